# A real single-node Slurm cluster for one test, all state in one directory (sourced by
# test_sweep.sh; ../shared/notes/local-slurm.md has what was measured to work).
# cluster_start DIR: starts munged (unless one answers), slurmctld and slurmd; exports
# SLURM_CONF. cluster_stop: stops every daemon cluster_start started, by pid.
# Needs root (slurmd runs jobs as their user; SlurmUser=root), slurm-wlm and munge.

CLUSTER_DIR=
CLUSTER_MUNGED_PID=
CLUSTER_PIDS= # slurmctld's and slurmd's, read from their pid files once they are up

cluster_pid_alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# Stops a daemon by its pid and waits (10 s) until it is gone.
cluster_kill() {
  pid=$1
  cluster_pid_alive "$pid" || return 0
  kill "$pid" 2>/dev/null
  i=0
  while cluster_pid_alive "$pid" && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
  cluster_pid_alive "$pid" && kill -9 "$pid" 2>/dev/null
  return 0
}

cluster_stop() {
  [ -n "$CLUSTER_DIR" ] || return 0
  # jobs first (slurmd's job steps are its children), then the daemons
  [ -n "${SLURM_CONF:-}" ] && scancel --quiet --user="$(id -un)" 2>/dev/null
  # a daemon that failed before its pid was read: its pid file, if any
  [ -n "$CLUSTER_PIDS" ] || CLUSTER_PIDS=$(cat "$CLUSTER_DIR/slurmd.pid" "$CLUSTER_DIR/slurmctld.pid" 2>/dev/null)
  for pid in $CLUSTER_PIDS $CLUSTER_MUNGED_PID; do cluster_kill "$pid"; done
  CLUSTER_DIR=
}

cluster_munge() {
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then return 0; fi
  [ -f /etc/munge/munge.key ] || mungekey -c >/dev/null || return 1
  mkdir -p /run/munge /var/log/munge /var/lib/munge
  chown munge:munge /run/munge /var/log/munge /var/lib/munge /etc/munge /etc/munge/munge.key
  chmod 0700 /etc/munge /var/log/munge /var/lib/munge
  chmod 0400 /etc/munge/munge.key
  rm -f /run/munge/munged.pid
  su -s /bin/sh munge -c /usr/sbin/munged || return 1
  i=0
  while [ ! -s /run/munge/munged.pid ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  CLUSTER_MUNGED_PID=$(cat /run/munge/munged.pid 2>/dev/null)
  munge -n | unmunge >/dev/null
}

cluster_start() {
  CLUSTER_DIR=$1
  mkdir -p "$CLUSTER_DIR/state" "$CLUSTER_DIR/spool"
  host=$(hostname -s)
  # ports of our own (another cluster on this machine keeps the defaults 6817/6818)
  port=$((20000 + ($$ % 4000) * 2))
  cat >"$CLUSTER_DIR/slurm.conf" <<EOF
ClusterName=tbrtest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
StateSaveLocation=$CLUSTER_DIR/state
SlurmdSpoolDir=$CLUSTER_DIR/spool
SlurmctldPidFile=$CLUSTER_DIR/slurmctld.pid
SlurmdPidFile=$CLUSTER_DIR/slurmd.pid
SlurmctldLogFile=$CLUSTER_DIR/slurmctld.log
SlurmdLogFile=$CLUSTER_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/backfill
MinJobAge=30
NodeName=$host CPUs=$(nproc) RealMemory=1000 State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$CLUSTER_DIR/slurm.conf
  cluster_munge || { echo "cluster: munged does not answer" >&2; return 1; }
  slurmctld || { echo "cluster: slurmctld failed:"; tail "$CLUSTER_DIR/slurmctld.log"; return 1; } >&2
  slurmd || { echo "cluster: slurmd failed:"; tail "$CLUSTER_DIR/slurmd.log"; return 1; } >&2
  i=0
  while [ ! -s "$CLUSTER_DIR/slurmctld.pid" ] || [ ! -s "$CLUSTER_DIR/slurmd.pid" ]; do
    i=$((i + 1))
    [ $i -lt 50 ] || { echo "cluster: no pid files" >&2; return 1; }
    sleep 0.1
  done
  CLUSTER_PIDS="$(cat "$CLUSTER_DIR/slurmctld.pid") $(cat "$CLUSTER_DIR/slurmd.pid")"
  i=0
  until sinfo --noheader --format=%t 2>/dev/null | grep -q idle; do
    i=$((i + 1))
    [ $i -lt 60 ] || { echo "cluster: node not idle after 30 s:"; sinfo; tail "$CLUSTER_DIR/slurmctld.log"; return 1; } >&2
    sleep 0.5
  done
}
