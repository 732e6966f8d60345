/* The reset check of fuzz_sim_frame (issue 22): the harness reuses one GPU per
 * configuration and resets it (gpu_reset) between inputs, so an input must give the same
 * result after any other inputs as on a GPU just built. For every seed of the corpus, the
 * digest of a run on a new GPU (every statistic, the energy counts, the run's outcome and
 * the frame's pixels) is compared with the digests of the same seed run in one process
 * after the others, in order and reversed, ROUNDS times. Fails (exit 1) naming the seed
 * and the first differing line; also fails if no GPU was reused (nothing would be checked).
 * Usage: tbr-test-fuzz-sim-frame-reset CORPUS_DIR */
#include "fuzz_sim_frame.c"

#include <dirent.h>

#define ROUNDS    3
#define MAX_SEEDS 256

typedef struct {
    char *name;
    uint8_t *data;
    size_t size;
    char *fresh; /* its digest on a new GPU */
    size_t fresh_len;
} seed;

static int by_name(const void *a, const void *b) { return strcmp(((const seed *)a)->name, ((const seed *)b)->name); }

static int read_seeds(const char *dir, seed *seeds, size_t *n)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "fuzz_sim_frame_reset: %s: cannot open the corpus\n", dir);
        return -1;
    }
    struct dirent *de;
    *n = 0;
    while ((de = readdir(d)) && *n < MAX_SEEDS) {
        if (de->d_name[0] == '.') continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "rb");
        if (!f) continue;
        seed *s = &seeds[*n];
        memset(s, 0, sizeof *s);
        s->data = tbr_xcalloc(1, 1 << 20);
        s->size = fread(s->data, 1, 1 << 20, f);
        fclose(f);
        s->name = tbr_xstrdup(de->d_name);
        (*n)++;
    }
    closedir(d);
    qsort(seeds, *n, sizeof *seeds, by_name); /* the same order on every file system */
    return 0;
}

/* The digest of one run of `sd` with the harness state `st`. */
static char *digest_of(fuzz_state *st, const seed *sd, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f) abort();
    fuzz_sim_frame_run(st, sd->data, sd->size, f);
    fclose(f);
    return buf;
}

/* The first line where a and b differ, for the message. */
static void report_difference(const seed *sd, const char *b, size_t blen, int round)
{
    const char *a = sd->fresh;
    size_t i = 0, line = 0, start = 0;
    for (; i < sd->fresh_len && i < blen && a[i] == b[i]; i++)
        if (a[i] == '\n') line++, start = i + 1;
    int la = (int)strcspn(a + start, "\n"), lb = (int)strcspn(b + start, "\n");
    fprintf(stderr, "FAIL %s (round %d): differs from a new GPU's run at line %zu:\n  new:   %.*s\n  reset: %.*s\n",
            sd->name, round, line + 1, la > 200 ? 200 : la, a + start, lb > 200 ? 200 : lb, b + start);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: tbr-test-fuzz-sim-frame-reset CORPUS_DIR\n");
        return 2;
    }
    static seed seeds[MAX_SEEDS];
    size_t n;
    if (read_seeds(argv[1], seeds, &n) || n == 0) return 2;
    for (size_t i = 0; i < n; i++) { /* a new harness state: a new GPU for each seed */
        fuzz_state fresh;
        memset(&fresh, 0, sizeof fresh);
        seeds[i].fresh = digest_of(&fresh, &seeds[i], &seeds[i].fresh_len);
        fuzz_state_free(&fresh);
    }
    fuzz_state st;
    memset(&st, 0, sizeof st);
    int failures = 0;
    size_t checked = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (size_t k = 0; k < n; k++) {
            const seed *sd = &seeds[round % 2 ? n - 1 - k : k];
            size_t len;
            char *d = digest_of(&st, sd, &len);
            checked++;
            if (len != sd->fresh_len || memcmp(d, sd->fresh, len) != 0) {
                failures++;
                report_difference(sd, d, len, round);
            }
            free(d);
        }
    printf("fuzz_sim_frame_reset: %zu seeds, %zu runs after others: %d differ; GPUs built %llu, reset %llu\n", n,
           checked, failures, (unsigned long long)st.builds, (unsigned long long)st.resets);
    fuzz_state_free(&st);
    for (size_t i = 0; i < n; i++) {
        free(seeds[i].name);
        free(seeds[i].data);
        free(seeds[i].fresh);
    }
    if (st.resets == 0) {
        fprintf(stderr, "FAIL: no GPU was reset: the check compared nothing\n");
        return 1;
    }
    return failures ? 1 : 0;
}
