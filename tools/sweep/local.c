/* run --local: unfinished replays, then unfinished tasks, JOBS processes at a time
 * (docs/sweeps.md "Running locally"). SIGINT/SIGTERM stop the running processes (by pid)
 * and leave their temp directories, which the next run redoes. Signals are taken with
 * sigwaitinfo (blocked, then waited for): no handler state. */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "sweep.h"

typedef struct {
    int replay; /* 1: index is a workload to replay, 0: a task */
    size_t index;
} work_item;

typedef struct {
    pid_t pid; /* 0: free */
    work_item item;
} slot;

static void on_child(int sig) { (void)sig; }

/* The unfinished work, replays first (a cell's task needs its workload's replay). */
static size_t pending_work(const sweep_plan *pl, work_item *items, size_t *skipped)
{
    size_t n = 0;
    *skipped = 0;
    for (size_t w = 0; w < pl->sf.nworkloads; w++)
        if (plan_replay_state(pl, w) != ST_DONE) items[n++] = (work_item){1, w};
    for (size_t t = 0; t < pl->ntasks; t++) {
        if (plan_task_state(&pl->tasks[t]) == ST_DONE)
            ++*skipped;
        else
            items[n++] = (work_item){0, t};
    }
    return n;
}

static int replays_running(const slot *slots, int jobs)
{
    for (int j = 0; j < jobs; j++)
        if (slots[j].pid && slots[j].item.replay) return 1;
    return 0;
}

/* Reaps finished children; counts failures. */
static void reap(const sweep_plan *pl, slot *slots, int jobs, int stopping, int *running, int *failed)
{
    int st;
    pid_t pid;
    while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
        for (int j = 0; j < jobs; j++) {
            if (slots[j].pid != pid) continue;
            slots[j].pid = 0;
            --*running;
            if (stopping) break; /* interrupted: its .tmp stays, the next run redoes it */
            const work_item *it = &slots[j].item;
            if (it->replay ? replay_finish(pl, it->index, st) : task_finish(pl, it->index, st)) ++*failed;
            break;
        }
}

static int start_item(const sweep_plan *pl, slot *s, work_item it)
{
    s->item = it;
    s->pid = it.replay ? replay_start(pl, it.index) : task_start(pl, it.index);
    if (s->pid > 0) return 0;
    fprintf(stderr, "tbr-sweep: cannot start %s: %s\n", it.replay ? pl->inputs[it.index] : pl->tasks[it.index].dir,
            strerror(errno));
    s->pid = 0;
    return -1;
}

int run_local(const sweep_plan *pl, int jobs)
{
    work_item *items = calloc(pl->sf.nworkloads + pl->ntasks + 1, sizeof *items);
    slot *slots = calloc((size_t)jobs, sizeof *slots);
    if (!items || !slots) abort();
    size_t skipped, n = pending_work(pl, items, &skipped), next = 0;
    fprintf(stderr, "tbr-sweep: %zu tasks complete (skipped), %zu to run, %d at a time\n", skipped, n, jobs);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct sigaction sa = {0}, old_sa;
    sa.sa_handler = on_child;
    sigaction(SIGCHLD, &sa, &old_sa);
    sigprocmask(SIG_BLOCK, &set, &old);
    int running = 0, failed = 0, stopping = 0;
    for (;;) {
        for (int j = 0; j < jobs && !stopping && next < n; j++) {
            if (slots[j].pid) continue;
            /* tasks wait until every replay has finished */
            if (!items[next].replay && replays_running(slots, jobs)) break;
            if (start_item(pl, &slots[j], items[next++])) failed++;
        }
        running = 0;
        for (int j = 0; j < jobs; j++) running += slots[j].pid != 0;
        if (!running) {
            if (stopping || next >= n) break;
            continue; /* nothing started (every start failed): try the next ones */
        }
        siginfo_t info;
        int sig = sigwaitinfo(&set, &info);
        if ((sig == SIGINT || sig == SIGTERM) && !stopping) {
            stopping = 1;
            fprintf(stderr, "tbr-sweep: %s: stopping the running tasks\n", strsignal(sig));
            for (int j = 0; j < jobs; j++)
                if (slots[j].pid) kill(slots[j].pid, SIGTERM);
        }
        reap(pl, slots, jobs, stopping, &running, &failed);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGCHLD, &old_sa, NULL);
    free(items);
    free(slots);
    if (stopping) {
        fprintf(stderr, "tbr-sweep: interrupted; run again to finish (complete tasks are kept)\n");
        return 130;
    }
    fprintf(stderr, "tbr-sweep: %zu tasks run, %d failed\n", n, failed);
    return failed ? 1 : 0;
}
