/* tbr-sweep: studies over workloads x configurations, locally or under Slurm
 * (docs/sweeps.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"

#ifndef TBR_VERSION
#define TBR_VERSION "0.1.0"
#endif

static void usage(FILE *f)
{
    fprintf(f,
            "usage: tbr-sweep plan SWEEP [--out DIR]\n"
            "       tbr-sweep run SWEEP [--out DIR] --local [-j N]\n"
            "       tbr-sweep run SWEEP [--out DIR] --slurm [--chunk N] [--wait] [-- SBATCH_OPTION...]\n"
            "       tbr-sweep status SWEEP [--out DIR]\n"
            "       tbr-sweep collect SWEEP [--out DIR] [-o|--output CSV] [--charts DIR]\n"
            "       tbr-sweep task SWEEP --out DIR --list FILE --index I [--chunk N]   (what a Slurm array task runs)\n"
            "       tbr-sweep -h|--help | --version\n"
            "  SWEEP         the sweep file (docs/sweeps.md): workloads, configurations, statistics\n"
            "  --out DIR     output directory (default: the sweep file's 'output', relative to the file)\n"
            "  plan          print the cells and the commands that would run; nothing is run\n"
            "  run --local   run the unfinished replays and cells here, N processes at a time (-j, default 1);\n"
            "                complete cells are skipped, failed and interrupted ones redone\n"
            "  run --slurm   submit the unfinished work with sbatch: a job array of replays and one of cells\n"
            "                (depending on the replays), CHUNK cells per array task (default 1); --wait polls\n"
            "                squeue until both jobs are gone; options after -- go to sbatch\n"
            "  status        done / running / failed / pending per cell (from the files), failures with their log\n"
            "  collect       DIR/results.csv (or -o CSV): a row per cell; a summary table on stdout;\n"
            "                --charts DIR: an SVG chart per statistic and DIR/index.html\n"
            "  -q, --quiet   accepted by every subcommand as by every tbrsim tool (tbr-sweep prints no\n"
            "                progress on stderr; its reports go to stdout)\n"
            "Exit: 0 ok, 1 some cell failed or is not done, 2 bad usage or input, 130 interrupted.\n");
}

static int bad_usage(const char *msg, const char *arg)
{
    fprintf(stderr, "tbr-sweep: ");
    fprintf(stderr, msg, arg);
    fprintf(stderr, "\nTry 'tbr-sweep --help'.\n");
    return 2;
}

/* The command line after the subcommand. */
typedef struct {
    const char *sweep, *out, *csv, *charts, *list;
    int local, slurm, wait;
    long jobs, chunk, index;
    char **sbatch;
    int nsbatch;
} options;

static int number_arg(const char *opt, const char *s, long lo, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > 100000) return bad_usage("bad number for %s", opt);
    *out = v;
    return 0;
}

static int parse_options(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = o->chunk = 1;
    o->index = -1;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        int has = i + 1 < argc;
        if (!strcmp(a, "--")) {
            o->sbatch = argv + i + 1;
            o->nsbatch = argc - i - 1;
            break;
        } else if (!strcmp(a, "--local")) {
            o->local = 1;
        } else if (!strcmp(a, "--slurm")) {
            o->slurm = 1;
        } else if (!strcmp(a, "--wait")) {
            o->wait = 1;
        } else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            continue; /* nothing to silence (one convention across the tools) */
        } else if (!has &&
                   (!strcmp(a, "--out") || !strcmp(a, "-o") || !strcmp(a, "--output") || !strcmp(a, "--charts") ||
                    !strcmp(a, "-j") || !strcmp(a, "--chunk") || !strcmp(a, "--list") || !strcmp(a, "--index"))) {
            return bad_usage("option %s needs a value", a);
        } else if (!strcmp(a, "--out")) {
            o->out = argv[++i];
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            o->csv = argv[++i];
        } else if (!strcmp(a, "--charts")) {
            o->charts = argv[++i];
        } else if (!strcmp(a, "--list")) {
            o->list = argv[++i];
        } else if (!strcmp(a, "-j")) {
            if (number_arg(a, argv[++i], 1, &o->jobs)) return 2;
        } else if (!strcmp(a, "--chunk")) {
            if (number_arg(a, argv[++i], 1, &o->chunk)) return 2;
        } else if (!strcmp(a, "--index")) {
            if (number_arg(a, argv[++i], 0, &o->index)) return 2;
        } else if (a[0] == '-') {
            return bad_usage("unknown option %s", a);
        } else if (o->sweep) {
            return bad_usage("one SWEEP file only ('%s' is extra)", a);
        } else {
            o->sweep = a;
        }
    }
    return o->sweep ? 0 : bad_usage("%s needs a SWEEP file", argv[1]);
}

static int status(const sweep_plan *pl)
{
    int n[4] = {0};
    for (size_t w = 0; w < pl->sf.nworkloads; w++) {
        if (!plan_needs_replay(pl, w)) continue;
        char log[SW_PATH];
        sweep_state s = plan_replay_state(pl, w);
        plan_replay_paths(pl, w, log, sizeof log);
        printf("replay %-30s %s%s%s\n", pl->sf.workloads[w].name, sweep_state_name(s), s == ST_FAILED ? "  log " : "",
               s == ST_FAILED ? log : "");
    }
    for (size_t i = 0; i < pl->ncells; i++) {
        const sweep_cell *c = &pl->cells[i];
        sweep_state s = plan_cell_state(pl, c);
        n[s]++;
        printf("cell %-16s %-24s %s\n", pl->sf.workloads[c->w].name, pl->sf.configs[c->c].name, sweep_state_name(s));
        for (size_t k = 0; s == ST_FAILED && k < c->ntasks; k++) {
            const sweep_task *t = &pl->tasks[c->first_task + k];
            if (plan_task_state(t) == ST_FAILED) printf("  failed: %s  log %s\n", t->dir, t->log);
        }
    }
    printf("%zu cells: %d done, %d running (or interrupted), %d failed, %d pending\n", pl->ncells, n[ST_DONE],
           n[ST_RUNNING], n[ST_FAILED], n[ST_PENDING]);
    return 0;
}

static int dispatch(const char *cmd, const options *o, const sweep_plan *pl, const char *self)
{
    if (!strcmp(cmd, "plan")) {
        plan_print(pl);
        return 0;
    }
    if (!strcmp(cmd, "status")) return status(pl);
    if (!strcmp(cmd, "collect")) return collect(pl, o->csv, o->charts);
    if (!strcmp(cmd, "task")) {
        if (!o->list || o->index < 0) return bad_usage("%s needs --list FILE and --index I", cmd);
        return run_listed(pl, o->list, o->index, o->chunk);
    }
    if (o->local == o->slurm) return bad_usage("%s needs one of --local and --slurm", cmd);
    if (o->local) return run_local(pl, (int)o->jobs);
    return run_slurm(pl, self, (int)o->chunk, o->wait, o->sbatch, o->nsbatch);
}

int main(int argc, char **argv)
{
    if (argc < 2) return bad_usage("%s", "a subcommand is needed (plan, run, status, collect)");
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
        printf("tbr-sweep %s\n", TBR_VERSION);
        return 0;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "plan") && strcmp(cmd, "run") && strcmp(cmd, "status") && strcmp(cmd, "collect") &&
        strcmp(cmd, "task"))
        return bad_usage("unknown subcommand '%s'", cmd);
    options o;
    if (parse_options(argc, argv, &o)) return 2;
    if (o.nsbatch && !o.slurm) return bad_usage("%s", "sbatch options (after --) need run --slurm");
    sweep_plan pl;
    char err[SWEEP_ERR + SW_PATH];
    if (plan_load(&pl, o.sweep, o.out, argv[0], err, sizeof err)) {
        fprintf(stderr, "tbr-sweep: %s\n", err);
        return 2;
    }
    int rc = dispatch(cmd, &o, &pl, argv[0]);
    plan_free(&pl);
    return rc;
}
