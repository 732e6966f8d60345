/* tbr-sim runner and output readers of the timing tests: see sim_output.h. */
#include "sim_output.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int sim_run(const char *sim, const char *in, const char *out, const char *extra)
{
    char cmd[4096];
    /* --force: the tests rerun into one OUT; --no-check: synthetic traces name no reference PNG */
    snprintf(cmd, sizeof cmd, "'%s' '%s' -o '%s' --quiet --force --no-check %s", sim, in, out, extra ? extra : "");
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

char *sim_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    s[n] = 0;
    fclose(f);
    return s;
}

long long sim_stat_value(const char *json, const char *name)
{
    char key[256];
    snprintf(key, sizeof key, "\"%s\": {", name);
    const char *p = strstr(json, key);
    if (!p) return -1;
    p = strstr(p, "\"value\": ");
    return p ? atoll(p + 9) : -1;
}

long long sim_energy_event_count(const char *json, const char *structure, const char *event)
{
    char key[256];
    const char *p = strstr(json, "\"structures\":{");
    snprintf(key, sizeof key, "\"%s\":{\"kind\"", structure);
    if (p) p = strstr(p, key);
    if (!p) return -1;
    const char *end = strstr(p, "}}}"); /* the structure's last event closes it */
    snprintf(key, sizeof key, "\"%s\":{", event);
    p = strstr(p, key);
    if (!p || (end && p > end)) return -1;
    p = strstr(p, "\"count\":");
    return p ? atoll(p + 8) : -1;
}

int sim_pixel_mismatch(const tbr_image *im, unsigned x, unsigned y, int r, int g, int bl, int a)
{
    const uint8_t *p = im->pixels + y * im->stride + x * 4;
    if (p[0] != r || p[1] != g || p[2] != bl || p[3] != a) {
        fprintf(stderr, "pixel (%u,%u) = (%d,%d,%d,%d), expected (%d,%d,%d,%d)\n", x, y, p[0], p[1], p[2], p[3], r, g,
                bl, a);
        return 1;
    }
    return 0;
}

int sim_read_frame_png(const char *out, unsigned frame, tbr_image *im)
{
    char p[1200], e[TBR_PNG_ERR_SIZE];
    snprintf(p, sizeof p, "%s/frames/frame_%05u.png", out, frame);
    if (tbr_png_read_frame(p, im, e, sizeof e)) {
        fprintf(stderr, "%s\n", e);
        return -1;
    }
    return 0;
}
