/* timing.config: the declarative parameter table, config files, --set
 * overrides and the cross-parameter checks (timing/core/config.h). */
#include <stdlib.h>
#include <string.h>

#include "core/config.h"
#include "tcheck.h"

static char err[1024];

/* parse `text` into a fresh default config; returns rc, keeps err */
static int parse(const char *text)
{
    tbr_config *c = tbr_config_new();
    int rc = tbr_config_parse_text(c, text, "t.conf", err, sizeof err);
    tbr_config_free(c);
    return rc;
}

/* parse + validate */
static int parse_validate(const char *text)
{
    tbr_config *c = tbr_config_new();
    int rc = tbr_config_parse_text(c, text, "t.conf", err, sizeof err);
    if (rc == 0) rc = tbr_config_validate(c, err, sizeof err);
    tbr_config_free(c);
    return rc;
}

/* The built-in defaults, configs/thesis-baseline.conf (case 1) and the two presets. */
static void test_defaults_and_files(const char *dir)
{
    char path[1024];
    /* built-in defaults are consistent */
    tbr_config *def = tbr_config_new();
    CHECK(tbr_config_validate(def, err, sizeof err) == 0);
    CHECK_EQ_U(tbr_cfg_uint(def, "gpu.clock_mhz"), 800);
    CHECK_EQ_U(tbr_cfg_uint(def, "l2.size_kb"), 2048);
    CHECK_EQ_U(tbr_cfg_uint(def, "queue.post_raster"), 512);
    CHECK(strcmp(tbr_cfg_str(def, "tile.order"), "scanline") == 0);
    CHECK_EQ_U(tbr_cfg_enum(def, "dram.scheduler"), 0);
    CHECK(strcmp(tbr_cfg_origin(def, "l2.ways"), "default") == 0);
    /* every table entry has help, unit (maybe empty) and a source */
    for (size_t i = 0; i < tbr_param_count(); i++) {
        const tbr_param_desc *d = tbr_param_at(i);
        CHECK(d->help && d->help[0] && d->source && d->source[0] && d->unit);
        CHECK(tbr_param_find(d->name) == d); /* names are unique */
    }

    /* 1. configs/thesis-baseline.conf sets every parameter, to the default */
    snprintf(path, sizeof path, "%s/thesis-baseline.conf", dir);
    tbr_config *base = tbr_config_new();
    CHECK(tbr_config_load_file(base, path, err, sizeof err) == 0);
    char diff[512];
    size_t nd = tbr_config_diff(def, base, diff, sizeof diff);
    if (nd) fprintf(stderr, "thesis-baseline.conf differs from the defaults: %s\n", diff);
    CHECK_EQ_U(nd, 0);
    for (size_t i = 0; i < tbr_param_count(); i++) {
        const char *o = tbr_cfg_origin(base, tbr_param_at(i)->name);
        if (strcmp(o, "default") == 0) fprintf(stderr, "thesis-baseline.conf lacks %s\n", tbr_param_at(i)->name);
        CHECK(strcmp(o, "default") != 0);
    }
    tbr_config_free(base);

    /* the two presets load and validate; spot-check their table values */
    snprintf(path, sizeof path, "%s/re-mali450.conf", dir);
    tbr_config *re = tbr_config_new();
    CHECK(tbr_config_load_file(re, path, err, sizeof err) == 0);
    CHECK(tbr_config_validate(re, err, sizeof err) == 0);
    if (t_failures) fprintf(stderr, "re-mali450: %s\n", err);
    CHECK_EQ_U(tbr_cfg_uint(re, "gpu.clock_mhz"), 400);
    CHECK_EQ_U(tbr_cfg_uint(re, "tile.width"), 16);
    CHECK_EQ_U(tbr_cfg_uint(re, "l2.size_kb"), 256);
    CHECK_EQ_U(tbr_cfg_uint(re, "tile_cache.size_kb"), 128);
    CHECK_EQ_U(tbr_cfg_uint(re, "vertex.processors"), 1);
    tbr_config_free(re);
    snprintf(path, sizeof path, "%s/dtm-nuca-32.conf", dir);
    tbr_config *dtm = tbr_config_new();
    CHECK(tbr_config_load_file(dtm, path, err, sizeof err) == 0);
    CHECK(tbr_config_validate(dtm, err, sizeof err) == 0);
    if (t_failures) fprintf(stderr, "dtm-nuca-32: %s\n", err);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "fragment.processors"), 32);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "texture_cache.size_kb"), 16);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "dtm.epoch_accesses"), 20000);
    CHECK(strcmp(tbr_cfg_str(dtm, "texture_cache.organization"), "dtm_nuca") == 0); /* DTM Table I */
    CHECK_EQ_U(tbr_cfg_uint(dtm, "dtm.buckets"), 32);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "dtm.counter_bits"), 4);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "dtm.page_blocks"), 8);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "texture_cache.ways"), 4);
    CHECK_EQ_U(tbr_cfg_uint(dtm, "mem.size_mb"), 1024);
    tbr_config_free(dtm);
    tbr_config_free(def);
}

/* Cases 2 and 3: errors of the config-file syntax, each with its file:line. */
static void test_parse_errors(void)
{
    /* 2. unknown key: error names the key and file:line */
    CHECK(parse("# comment\ngpu.clock_mhz = 800\nl2.sise_kb = 4\n") != 0);
    CHECK_STR_CONTAINS(err, "t.conf:3");
    CHECK_STR_CONTAINS(err, "l2.sise_kb");
    CHECK_STR_CONTAINS(err, "unknown");

    /* 3. bad type / range / enum / bool, each with its line */
    CHECK(parse("l2.ways = two\n") != 0);
    CHECK_STR_CONTAINS(err, "t.conf:1");
    CHECK_STR_CONTAINS(err, "l2.ways");
    CHECK(parse("\n\ngpu.clock_mhz = 0\n") != 0); /* min 1 */
    CHECK_STR_CONTAINS(err, "t.conf:3");
    CHECK_STR_CONTAINS(err, "out of range");
    CHECK(parse("l2.size_kb = -4\n") != 0);
    CHECK(parse("l2.size_kb = 4k\n") != 0);
    CHECK(parse("tile.order = hilbert\n") != 0);
    CHECK_STR_CONTAINS(err, "scanline|zorder|snake");
    CHECK(parse("dram.refresh = maybe\n") != 0);
    CHECK(parse("gpu.voltage_v = nan\n") != 0);
    CHECK(parse("gpu.clock_mhz 800\n") != 0); /* no '=' */
    CHECK_STR_CONTAINS(err, "key = value");
    CHECK(parse("gpu.clock_mhz =\n") != 0);
    CHECK(parse("l2.ways = 4\nl2.ways = 8\n") != 0); /* duplicate in one file */
    CHECK_STR_CONTAINS(err, "t.conf:2");
    CHECK_STR_CONTAINS(err, "line 1");
    /* accepted forms: hex, comments after values, bool words, enum */
    CHECK(parse("l2.size_kb = 0x400   # 1 MiB\ndram.refresh = off\ntile.order = snake\n") == 0);
}

/* Case 4: --set. */
static void test_overrides(void)
{
    /* 4. --set overrides the file and records its origin */
    tbr_config *c = tbr_config_new();
    CHECK(tbr_config_parse_text(c, "l2.size_kb = 1024\ntile.order = zorder\n", "t.conf", err, sizeof err) == 0);
    CHECK_EQ_U(tbr_cfg_uint(c, "l2.size_kb"), 1024);
    CHECK(strcmp(tbr_cfg_origin(c, "l2.size_kb"), "t.conf:1") == 0);
    CHECK(tbr_config_apply_override(c, "l2.size_kb=512", err, sizeof err) == 0);
    CHECK(tbr_config_apply_override(c, " tile.order = snake ", err, sizeof err) == 0);
    CHECK_EQ_U(tbr_cfg_uint(c, "l2.size_kb"), 512);
    CHECK(strcmp(tbr_cfg_str(c, "tile.order"), "snake") == 0);
    /* each configuration owns its enum names: reading another configuration's value (or the
     * same key again after a change) leaves a name already returned as it was (issue #19: a
     * static name cache shared by all configurations overwrote it) */
    const char *snake = tbr_cfg_str(c, "tile.order");
    tbr_config *other = tbr_config_new();
    CHECK(strcmp(tbr_cfg_str(other, "tile.order"), "scanline") == 0);
    CHECK(strcmp(snake, "snake") == 0);
    tbr_config_free(other);
    CHECK(strcmp(tbr_cfg_origin(c, "l2.size_kb"), "--set") == 0);
    CHECK(tbr_config_apply_override(c, "l2.bogus=1", err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "--set");
    CHECK_STR_CONTAINS(err, "l2.bogus");
    CHECK(tbr_config_apply_override(c, "l2.size_kb", err, sizeof err) != 0);
    CHECK(tbr_config_validate(c, err, sizeof err) == 0);
    tbr_config_free(c);
}

/* Case 5: validation of parameter combinations. */
static void test_validate(void)
{
    /* 5. inconsistent combinations are rejected by validate */
    /* 3 KiB / (64 B * 2 ways) = 24 sets: not a power of two */
    CHECK(parse_validate("vertex_cache.size_kb = 3\n") != 0);
    CHECK_STR_CONTAINS(err, "vertex_cache");
    CHECK_STR_CONTAINS(err, "power of two");
    /* 4 KiB / (64 B * 3 ways) is not an integer */
    CHECK(parse_validate("vertex_cache.ways = 3\n") != 0);
    CHECK_STR_CONTAINS(err, "multiple");
    /* 64x64 tile needs 16 KiB of color buffer at 4 B/pixel */
    CHECK(parse_validate("tile.width = 64\ntile.height = 64\ndepth_buffer.size_kb = 16\n") != 0);
    CHECK_STR_CONTAINS(err, "color_buffer");
    CHECK(parse_validate("tile.width = 64\ntile.height = 64\ndepth_buffer.size_kb = 16\ncolor_buffer.size_kb = 16\n") ==
          0);
    /* mem size vs DRAM geometry: halving the ranks halves the capacity */
    CHECK(parse_validate("dram.ranks = 1\n") != 0);
    CHECK_STR_CONTAINS(err, "mem.size_mb");
    CHECK(parse_validate("dram.ranks = 1\nmem.size_mb = 4096\n") == 0);
    /* tCK must match the clock */
    CHECK(parse_validate("dram.clock_mhz = 1600\n") != 0);
    CHECK_STR_CONTAINS(err, "dram.tCK_ps");
    CHECK(parse_validate("dram.address_mapping = ro:ra:ba:co:ch\n") != 0); /* bg missing */
    CHECK_STR_CONTAINS(err, "'bg'");
    CHECK(parse_validate("dram.address_mapping = ro:ra:bg:ba:co:xx\n") != 0);
    CHECK(parse_validate("l2.line_bytes = 128\n") != 0); /* L2 line must equal the DRAM request */
    CHECK(parse_validate("dram.tRAS = 10\n") != 0);      /* tRAS < tRCD */
    CHECK(parse_validate("l2.banks = 4096\n") != 0);     /* out of range */
    /* overlap (on by default, and in a dumped file) does not apply to IMR; asked for
     * with --set it is an error (docs/timing-model.md "Overlapping render passes") */
    CHECK(parse_validate("pipeline.organization = imr\n") == 0);
    CHECK(parse_validate("pipeline.organization = imr\noverlap.enabled = true\n") == 0);
    tbr_config *c = tbr_config_new();
    CHECK(tbr_config_apply_override(c, "pipeline.organization=imr", err, sizeof err) == 0);
    CHECK(tbr_config_apply_override(c, "overlap.enabled=true", err, sizeof err) == 0);
    CHECK(tbr_config_validate(c, err, sizeof err) != 0);
    CHECK_STR_CONTAINS(err, "overlap.enabled");
    CHECK(tbr_config_apply_override(c, "overlap.enabled=false", err, sizeof err) == 0);
    CHECK(tbr_config_validate(c, err, sizeof err) == 0);
    tbr_config_free(c);
}

/* Case 6: the text and JSON dumps. */
static void test_dump(void)
{
    /* 6. the text dump is a loadable config reproducing the same values */
    char *buf = NULL;
    size_t len = 0;
    char diff[512];
    FILE *m = open_memstream(&buf, &len);
    tbr_config *x = tbr_config_new();
    CHECK(tbr_config_apply_override(x, "prim_assembly.tris_per_cycle=0.333333", err, sizeof err) == 0);
    CHECK(tbr_config_apply_override(x, "dram.address_mapping=ch:ro:ra:bg:ba:co", err, sizeof err) == 0);
    tbr_config_dump_text(x, m);
    fclose(m);
    tbr_config *y = tbr_config_new();
    CHECK(tbr_config_parse_text(y, buf, "dump", err, sizeof err) == 0);
    CHECK_EQ_U(tbr_config_diff(x, y, diff, sizeof diff), 0);
    free(buf);
    /* JSON dump: starts/ends as an object, values typed */
    m = open_memstream(&buf, &len);
    tbr_config_dump_json(x, m);
    fclose(m);
    CHECK(buf[0] == '{' && buf[len - 2] == '}');
    CHECK_STR_CONTAINS(buf, "\"gpu.clock_mhz\": 800,");
    CHECK_STR_CONTAINS(buf, "\"dram.refresh\": true,");
    CHECK_STR_CONTAINS(buf, "\"tile.order\": \"scanline\",");
    CHECK_STR_CONTAINS(buf, "\"prim_assembly.tris_per_cycle\": 0.333333,");
    free(buf);
    tbr_config_free(x);
    tbr_config_free(y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_config CONFIG_DIR\n");
        return 2;
    }
    test_defaults_and_files(argv[1]);
    test_parse_errors();
    test_overrides();
    test_validate();
    test_dump();
    return T_RESULT();
}
