/* Declarative parameter table and config-file handling (see config.h and
 * docs/timing-config.md). Source abbreviations used in the table:
 *   thesis  = seeds/000 (TEAPOT PTR thesis), Table 4.1 unless a section is named
 *   RE      = seeds/001 (Rendering Elimination, HPCA 2019), Table I
 *   DTM     = seeds/003 (DTM-NUCA), Table I
 *   ATTILA  = seeds/004 (ATTILA embedded GPU)
 *   LPDDR4  = JEDEC JESD209-4 LPDDR4-2400 speed bin (see docs/dram-model.md)
 */
#include "core/config.h"
#include "tbr/file_input.h"
#include "core/util.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/stats.h" /* tbr_json_string */

#define U  TBR_P_UINT
#define I  TBR_P_INT
#define D  TBR_P_DOUBLE
#define B  TBR_P_BOOL
#define E  TBR_P_ENUM
#define S  TBR_P_STRING
#define NR 0, 0 /* no numeric range (bool/enum/string) */

/* A cache's parameters; every cache uses the same field set so that
 * tbr_cache_params_from_config() can read any of them by prefix. */
#define CACHE_PARAMS(pfx, what, size, ways, banks, lat, mshrs, src)                                                    \
    {pfx ".size_kb", U, size, "KiB", 1, 1 << 20, NULL, what " capacity", src},                                         \
        {pfx ".ways", U, ways, "", 1, 64, NULL, what " associativity", src},                                           \
        {pfx ".line_bytes", U, "64", "B", 4, 4096, NULL, what " line size (all caches 64 B)", src},                    \
        {pfx ".banks",                                                                                                 \
         U,                                                                                                            \
         banks,                                                                                                        \
         "",                                                                                                           \
         1,                                                                                                            \
         64,                                                                                                           \
         NULL,                                                                                                         \
         what " banks; one access per bank per cycle, bank = set index mod banks",                                     \
         src},                                                                                                         \
        {pfx ".latency", U, lat, "cycles", 1, 1000, NULL, what " hit latency", src},                                   \
        {pfx ".mshrs",                                                                                                 \
         U,                                                                                                            \
         mshrs,                                                                                                        \
         "",                                                                                                           \
         1,                                                                                                            \
         1024,                                                                                                         \
         NULL,                                                                                                         \
         what " miss status holding registers (outstanding missed lines)",                                             \
         "assumption (not given in thesis Table 4.1)"},                                                                \
    {                                                                                                                  \
        pfx ".mshr_targets", U, "8", "", 1, 256, NULL, what " requests that can merge into one MSHR", "assumption"     \
    }

static const tbr_param_desc k_params[] = {
    /* ---- GPU-wide ---- */
    {"gpu.clock_mhz", U, "800", "MHz", 1, 10000, NULL, "GPU core clock", "thesis Table 4.1"},
    {"gpu.voltage_v", D, "1.0", "V", 0.1, 5, NULL,
     "GPU supply voltage: the energy model scales dynamic energy with its square (docs/energy-model.md)",
     "thesis Table 4.1"},
    {"gpu.tech_nm", U, "22", "nm", 1, 1000, NULL,
     "GPU technology node: the energy model scales capacitances linearly with it (docs/energy-model.md)",
     "thesis Table 4.1"},
    {"screen.width", U, "1920", "px", 1, 16384, NULL, "framebuffer width", "thesis Table 4.1"},
    {"screen.height", U, "1080", "px", 1, 16384, NULL, "framebuffer height", "thesis Table 4.1"},

    /* ---- tiling ---- */
    {"tile.width", U, "32", "px", 4, 256, NULL, "tile width (power of two)", "thesis Table 4.1"},
    {"tile.height", U, "32", "px", 4, 256, NULL, "tile height (power of two)", "thesis Table 4.1"},
    {"tile.order", E, "scanline", "", NR, "scanline|zorder|snake", "order in which the Tile Fetcher schedules tiles",
     "thesis §4.1 (scanline baseline), §6 (zorder, snake)"},
    {"tile.raster_units", U, "1", "", 1, 16, NULL, "number of Raster Units rendering tiles in parallel (PTR)",
     "thesis §5.1 (baseline 1, PTR 2)"},
    {"tile.ru_assignment", E, "static", "", NR, "static|fastest|mixed",
     "tile-to-Raster-Unit assignment: static round-robin, fewest queued, fewest with round-robin tie break",
     "thesis §5.1"},
    {"tile.work_tile", U, "0", "tiles", 0, 64, NULL,
     "work-tile size N: screen tiles go to the Raster Units in N x N work tiles, round robin, and the Tile Fetcher "
     "interleaves the units' tiles (0 = off: tile.ru_assignment over the tile.order schedule; 1 = the static "
     "interleaving)",
     "Emerald (seeds/002) sec. 6, Fig. 15"},
    {"tile.restore", E, "used", "", NR, "used|always",
     "tile buffer loads of planes not cleared in the pass: used = only planes the pass's draws use (depth/stencil if a "
     "draw tests depth or stencil, colors if the pass has a draw) and not undefined (invalidated earlier in the frame "
     "and not written since: INVALIDATE records), always = every bound plane",
     "Mesa freedreno_draw.c batch_draw_tracking (restore only used buffers); docs/timing-model.md"},
    {"depth.store", E, "auto", "", NR, "auto|always|never",
     "depth/stencil tile buffer written back to memory at tile end: auto = when the pass wrote it (a depth/stencil "
     "clear, or a draw writing depth or stencil) and it is not invalidated (the window's at the swap, and "
     "glInvalidateFramebuffer/glDiscardFramebufferEXT after the pass's last write: INVALIDATE records, traces of "
     "records minor 11), always = every tile of a pass with a depth/stencil buffer, never = discarded (the GPU keeps "
     "depth on chip only)",
     "issue #19; thesis §2.2 (Color Buffer flush); Mesa freedreno_draw.c + freedreno_resource.c fd_invalidate_resource "
     "(resolve written buffers unless invalidated); EGL 1.4 §3.9.1 + Mesa dri_drawable.c dri_flush (window "
     "depth/stencil invalidated at swap)"},
    {"color.store", E, "auto", "", NR, "auto|always",
     "color tile buffers written back to memory at tile end: auto = every bound color buffer but those the "
     "application invalidated (glInvalidateFramebuffer/glDiscardFramebufferEXT) after the pass's last write "
     "(INVALIDATE records, traces of records minor 11), always = every bound color buffer (the model before)",
     "issue #19; thesis §2.2 (Color Buffer flush); Mesa freedreno_resource.c fd_invalidate_resource (clears the "
     "batch's resolve bits of the invalidated buffers) + freedreno_draw.c (resolve written buffers)"},
    {"tile.primitive_table_entries", U, "16", "", 1, 1024, NULL,
     "Tile Fetcher Primitive Table entries (primitives in flight)", "thesis Table 4.1, §4.1"},

    /* ---- queues (entries) ---- */
    {"queue.vertex_in", U, "16", "entries", 1, 65536, NULL, "vertex input queue", "thesis Table 4.1"},
    {"queue.vertex_out", U, "16", "entries", 1, 65536, NULL, "vertex output queue", "thesis Table 4.1"},
    {"queue.primitive", U, "32", "entries", 1, 65536, NULL, "primitive (triangle) queue", "thesis Table 4.1"},
    {"queue.tile", U, "32", "entries", 1, 65536, NULL, "tile queue (one per Raster Unit)", "thesis Table 4.1, §5.1"},
    {"queue.post_raster", U, "512", "entries", 1, 65536, NULL, "post-rasterization (fragment) queue",
     "thesis Table 4.1"},
    {"queue.pre_fragment", U, "128", "entries", 1, 65536, NULL,
     "pre-fragment-processing queue, one per fragment processor", "thesis Table 4.1 (x4)"},
    {"queue.color", U, "64", "entries", 1, 65536, NULL, "color (blending input) queue", "thesis Table 4.1"},
    {"queue.vertex_entry_bytes", U, "136", "B", 1, 65536, NULL,
     "vertex queue entry width: sizes the vertex queues' SRAM in the energy model", "RE Table I, DTM Table I"},
    {"queue.primitive_entry_bytes", U, "388", "B", 1, 65536, NULL,
     "triangle/tile queue entry width: sizes the primitive and tile queues' SRAM in the energy model",
     "RE Table I, DTM Table I"},
    {"queue.fragment_entry_bytes", U, "233", "B", 1, 65536, NULL,
     "fragment queue entry width: sizes the fragment queues' SRAM in the energy model", "RE Table I, DTM Table I"},
    {"queue.color_entry_bytes", U, "24", "B", 1, 65536, NULL,
     "color queue entry width: sizes the color queues' SRAM in the energy model", "DTM Table I"},

    /* ---- caches ---- */
    CACHE_PARAMS("vertex_cache", "vertex cache", "4", "2", "1", "1", "4", "thesis Table 4.1"),
    {"vertex_cache.private", B, "false", "", NR, NULL, "one vertex cache per vertex processor instead of one shared",
     "DTM Table I (x #VPs); thesis: shared"},
    CACHE_PARAMS("tile_cache", "tile cache", "32", "4", "1", "2", "8", "thesis Table 4.1"),
    CACHE_PARAMS("texture_cache", "texture cache (one per fragment processor)", "8", "2", "1", "2", "8",
                 "thesis Table 4.1 (x4)"),
    {"texture_cache.organization", E, "private", "", NR, "private|dnuca|dtm_nuca|dtm_nuca_dist|shared",
     "texture cache organization: private caches, D-NUCA without replication, DTM-NUCA with a centralized or "
     "distributed Affinity Table, or one shared cache banked over the processors (docs/techniques.md \"DTM-NUCA\")",
     "DTM §IV, §VI"},
    {"texture.layout", E, "linear", "", NR, "linear|tiled",
     "texture memory layout of sampled textures (texture unit): linear = rows of texels (softpipe's layout), "
     "tiled = 4x4-texel blocks (docs/timing-model.md \"Texture unit\")",
     "assumption (TEAPOT replays softpipe traces, linear)"},
    CACHE_PARAMS("inst_cache", "instruction cache", "16", "2", "2", "2", "4", "thesis Table 4.1 (x2)"),
    {"inst_cache.count", U, "2", "", 1, 64, NULL,
     "instruction caches: 1 = shared by vertex and fragment processors, >= 2 = one for each (thesis: 2)",
     "thesis Table 4.1 (x2)"},
    CACHE_PARAMS("l2", "shared L2 cache", "2048", "8", "8", "18", "32", "thesis Table 4.1"),

    /* ---- on-chip tile buffers ---- */
    {"depth_buffer.size_kb", U, "4", "KiB", 1, 65536, NULL, "per-Raster-Unit tile depth buffer", "thesis Table 4.1"},
    {"depth_buffer.banks", U, "1", "", 1, 64, NULL, "depth buffer banks", "thesis Table 4.1"},
    {"depth_buffer.latency", U, "1", "cycles", 1, 100, NULL, "depth buffer access latency", "thesis Table 4.1"},
    {"depth_buffer.bytes_per_pixel", U, "4", "B", 1, 16, NULL, "depth/stencil storage per pixel",
     "assumption (32-bit depth; 4 KiB = 32x32x4 B in thesis Table 4.1)"},
    {"color_buffer.size_kb", U, "4", "KiB", 1, 65536, NULL, "per-Raster-Unit tile color buffer", "thesis Table 4.1"},
    {"color_buffer.banks", U, "1", "", 1, 64, NULL, "color buffer banks", "thesis Table 4.1"},
    {"color_buffer.latency", U, "1", "cycles", 1, 100, NULL, "color buffer access latency", "thesis Table 4.1"},
    {"color_buffer.bytes_per_pixel", U, "4", "B", 1, 16, NULL, "color storage per pixel (RGBA8)",
     "assumption (RGBA8; 4 KiB = 32x32x4 B in thesis Table 4.1)"},

    /* ---- fixed-function stages ---- */
    {"prim_assembly.tris_per_cycle", D, "1", "tri/cycle", 0.01, 64, NULL, "primitive assembly throughput",
     "thesis Table 4.1"},
    {"raster.attrs_per_cycle", U, "16", "attr/cycle", 1, 1024, NULL,
     "rasterizer attribute interpolation throughput (16 = 4 quads/cycle)", "thesis Table 4.1, §4.1"},
    {"early_z.inflight_quads", U, "20", "quads", 1, 4096, NULL, "Early-Z in-flight quad fragments", "thesis Table 4.1"},
    {"early_z.quads_per_cycle", U, "4", "quads/cycle", 1, 64, NULL, "Early-Z throughput", "thesis §4.1"},
    /* ---- pipeline organisation: TBR (TBDR = tbr + hsr.enabled) or immediate mode (docs/organisations.md) ---- */
    {"pipeline.organization", E, "tbr", "", NR, "tbr|imr",
     "tbr = tile-based (binning, Parameter Buffer, on-chip tile buffers; TBDR is tbr with hsr.enabled); imr = "
     "immediate mode: primitives rasterized in submission order over the whole render target, depth and color "
     "through the Z and color caches (imr.*) backed by the L2 and DRAM",
     "ATTILA sec. 2 (immediate-mode pipeline); thesis §2.2 (TBR)"},
    {"imr.z_cache.size_kb", U, "16", "KiB", 1, 4096, NULL, "IMR Z (depth/stencil) cache capacity (64-B lines)",
     "ATTILA sec. 2 (Z and Stencil test: 16 KB)"},
    {"imr.z_cache.ways", U, "4", "", 1, 64, NULL, "IMR Z cache associativity", "ATTILA sec. 2 (4-way)"},
    {"imr.z_cache.mshrs", U, "16", "lines", 1, 1024, NULL, "IMR Z cache lines being read at once",
     "assumption (ATTILA gives no figure)"},
    {"imr.color_cache.size_kb", U, "16", "KiB", 1, 4096, NULL, "IMR color cache capacity (64-B lines)",
     "ATTILA sec. 2 (Color Write: as the Z and Stencil test stage)"},
    {"imr.color_cache.ways", U, "4", "", 1, 64, NULL, "IMR color cache associativity",
     "ATTILA sec. 2 (as the Z cache)"},
    {"imr.color_cache.mshrs", U, "16", "lines", 1, 1024, NULL, "IMR color cache lines being read at once",
     "assumption (ATTILA gives no figure)"},
    {"imr.miss_lookahead", U, "16", "quads", 0, 1024, NULL,
     "IMR: quads queued behind a waiting one whose Z/color misses the stage issues meanwhile",
     "assumption (ATTILA Table 1: Z Test and Color Write input queues of 64)"},
    {"imr.fast_clear", B, "true", "", NR, NULL,
     "IMR fast clear: a clear marks the plane's lines cleared (no write; a miss on a cleared line is not read; "
     "lines still cleared are written at the pass end); false = the clear writes every line at the pass start",
     "ATTILA sec. 2 (fast depth/stencil buffer clear)"},
    {"imr.hierarchical_z", B, "false", "", NR, NULL,
     "IMR Hierarchical Z: an on-chip buffer of one conservative (maximum) depth per block rejects quads of "
     "LESS/LEQUAL/EQUAL draws before Early-Z reads the Z cache (imr/hiz.h: update rule, what it decides)",
     "ATTILA sec. 2, Table 1 (Hierarchical Z)"},
    {"imr.hiz.block_size", U, "8", "pixels", 2, 64, NULL,
     "IMR Hi-Z block: block_size x block_size pixels share one depth (a power of two)",
     "ATTILA simulator bGPU.ini StampsPerHZBlock = 16 (8x8); seeds/004 sec. 5 (8x8-fragment blocks with HZ)"},
    {"imr.hiz.capacity_blocks", U, "262144", "blocks", 1, 16777216, NULL,
     "IMR Hi-Z buffer capacity: blocks beyond it (in row order) are never rejected",
     "ATTILA sec. 2 (HZ buffer for up to 4096x4096); simulator bGPU.ini HierarchicalZBufferSize = 262144"},
    {"imr.z_compression", B, "false", "", NR, NULL,
     "IMR depth compression: the Z cache's lines become 256-B blocks, each written to and read from memory in "
     "64, 128, 192 or 256 B as its depth values allow (imr/hiz.h hiz_block_lines); a cleared block in 64 B",
     "ATTILA sec. 2 (depth compression), sec. 5 (256-B lines with compression); simulator Hilo levels"},
    {"imr.color_compression", B, "false", "", NR, NULL,
     "IMR color compression: the color cache's lines become 256-B blocks, each written to and read from memory in "
     "64, 128, 192 or 256 B as a palette encoding of its pixels allows (its distinct values plus an index per "
     "pixel; a uniform or cleared block in 64 B); an assumption (raster/imr_blend.c)",
     "ATTILA sec. 2, 5 (its depth compression's 256-B blocks and levels, applied to color; its Color Write stage has "
     "none), refs [18][19] (ATI-style compression)"},
    /* ---- TBDR: Hidden Surface Removal (raster/hsr.h; docs/techniques.md) ---- */
    {"hsr.enabled", B, "false", "", NR, NULL,
     "TBDR: a Hidden Surface Removal stage ahead of each Raster Unit builds the next tile's depth while the "
     "current one is shaded, so only visible fragments of opaque geometry are shaded; false = TBR (thesis baseline)",
     "DTM sec. II-C, Fig. 2"},
    {"hsr.quads_per_cycle", U, "4", "quads/cycle", 1, 64, NULL, "HSR rasterizer and Early-Z test throughput",
     "assumption (as early_z.quads_per_cycle; DTM sec. II-C gives no figure)"},
    {"hsr.setup_cycles", U, "1", "cycles", 0, 1000, NULL,
     "HSR rasterizer cycles to set up one primitive in a tile before testing its quads",
     "assumption (as raster.setup_cycles)"},
    {"hsr.tile_buffers", U, "2", "tiles", 1, 64, NULL,
     "HSR depth buffers: tiles HSR may hold, from the one it processes to the one the Rasterizer finishes "
     "(2 = the next tile while the current one is shaded)",
     "DTM sec. II-C (the next tile while working on the current one)"},
    {"hsr.buffer_prims", U, "1024", "primitives", 1, 1u << 20, NULL,
     "primitives of a tile the HSR stage's output queue holds while the previous tile is shaded; a tile with "
     "more falls back to TBR",
     "assumption"},
    {"blend.inflight_quads", U, "20", "quads", 1, 4096, NULL, "blending in-flight quad fragments", "thesis Table 4.1"},
    {"blend.quads_per_cycle", U, "4", "quads/cycle", 1, 64, NULL, "blending throughput", "thesis §4.1"},

    /* ---- programmable stages ---- */
    {"vertex.processors", U, "4", "", 1, 256, NULL, "vertex processors", "thesis Table 4.1"},
    {"vertex.threads_per_processor", U, "12", "threads", 1, 4096, NULL, "resident vertex threads per vertex processor",
     "ATTILA §3 (12 vertex threads); assumption"},
    {"vertex.texture_path", E, "l2", "", NR, "l2|cache",
     "where the vertex processors' texture fetches (vertex texturing) read texture lines: l2 = the shared "
     "L2 directly, cache = a vertex texture cache with the texture_cache.* geometry",
     "thesis Table 4.1 (texture caches x4: fragment processors only, split vertex/fragment shaders); "
     "cache: ATTILA unified shaders (a texture unit per shader)"},
    {"fragment.processors", U, "4", "", 1, 256, NULL, "fragment processors (one texture cache each)",
     "thesis Table 4.1"},
    {"fragment.threads_per_processor", U, "64", "threads", 1, 4096, NULL,
     "resident fragment threads (one per fragment) per fragment processor",
     "assumption (ATTILA §3 keeps 240 fragments in flight)"},
    {"fragment.quad_mapping", E, "interleaved", "", NR, "interleaved|strips|quadrant|round_robin",
     "quad-to-fragment-processor assignment by the quad's position (qx, qy) in the tile, in quads: "
     "interleaved (qx + 2*qy) % n, strips qy * n / (tile.height / 2), quadrant (n regions), round_robin (by arrival)",
     "thesis §4.1.1, ch. 5 (quad mappings); DTM-NUCA Fig. 1"},
    {"shader.organization", E, "split", "", NR, "split|unified",
     "split = separate vertex.processors and fragment.processors (per Raster Unit); unified = one pool of "
     "shader.pool_cores cores running both vertex and fragment work (shader/shader_pool.c, docs/timing-model.md "
     "\"Unified shader cores\")",
     "thesis Table 4.1 (split); ATTILA §2, §4 and Emerald §3 (unified)"},
    {"shader.pool_cores", U, "0", "", 0, 256, NULL,
     "unified organisation: shader cores in the pool; 0 = vertex.processors + fragment.processors * "
     "tile.raster_units (the split organisation's total core count)",
     "assumption (a comparison keeps the total core count)"},
    {"shader.pool_threads", U, "0", "threads", 0, 4096, NULL,
     "unified organisation: resident threads per pool core, vertex and fragment work together; 0 = "
     "fragment.threads_per_processor",
     "ATTILA §4 (one thread budget for the unified shader's inputs)"},
    {"shader.arbitration", E, "oldest_first", "", NR, "fixed_vertex_first|fixed_fragment_first|oldest_first|share",
     "unified organisation: which work type gets a pool core's dispatch port (a free thread) and issue slot when "
     "both want it: fixed priority, the older waiting request (issue: the types alternate), or "
     "shader.vertex_share_percent of the contended grants and issue cycles",
     "assumption (ATTILA and Emerald give no policy)"},
    {"shader.vertex_share_percent", U, "50", "%", 0, 100, NULL,
     "unified organisation, shader.arbitration = share: the vertex work's share of the contended dispatch grants "
     "and issued instructions of each pool core",
     "assumption"},
    {"shader.issue_width", U, "1", "instr/cycle", 1, 16, NULL, "instructions issued per processor per cycle",
     "assumption"},
    {"shader.lat_alu", U, "2", "cycles", 1, 1000, NULL, "latency of simple ALU ops (add, mul, mad, mov, cmp)",
     "assumption"},
    {"shader.lat_sfu", U, "8", "cycles", 1, 1000, NULL,
     "latency of special-function ops (rcp, rsq, exp, log, sin, cos)", "assumption"},
    {"shader.lat_tex", U, "4", "cycles", 1, 1000, NULL,
     "texture op latency excluding the texture cache access (address + filtering)", "assumption"},
    {"shader.lat_ctrl", U, "1", "cycles", 1, 1000, NULL, "latency of control-flow ops", "assumption"},
    {"shader.lat_mem", U, "2", "cycles", 1, 1000, NULL, "latency of varying/uniform loads and output writes",
     "assumption"},

    /* ---- main memory (system level) ---- */
    {"mem.size_mb", U, "8192", "MiB", 1, 1 << 24, NULL, "main memory size; must equal the DRAM geometry capacity",
     "thesis Table 4.1"},

    /* ---- DRAM device and controller (docs/dram-model.md) ---- */
    {"dram.protocol", E, "lpddr4", "", NR, "lpddr4|lpddr3",
     "DRAM standard: selects the energy model's default IDD current table (timing uses the parameters below)",
     "thesis Table 4.1 (LPDDR4)"},
    {"dram.clock_mhz", U, "1200", "MHz", 1, 10000, NULL, "DRAM command clock (data rate = 2x)",
     "thesis Table 4.1 (1.2 GHz) = LPDDR4-2400"},
    {"dram.tCK_ps", U, "833", "ps", 100, 100000, NULL, "DRAM clock period; must match dram.clock_mhz", "LPDDR4-2400"},
    {"dram.voltage_v", D, "1.2", "V", 0.1, 5, NULL, "DRAM supply voltage", "thesis Table 4.1"},
    {"dram.channels", U, "2", "", 1, 64, NULL, "independent channels (power of two)",
     "thesis Table 4.1 (dual-channel)"},
    {"dram.ranks", U, "2", "", 1, 16, NULL, "ranks per channel (power of two)",
     "assumption (2 x 16 Gb/channel dies reach the thesis' 8 GB)"},
    {"dram.bankgroups", U, "1", "", 1, 16, NULL,
     "bank groups per rank (LPDDR4 has none: 1); dram.tCCD_L, tWTR_L and tRRD_L apply within a group", "LPDDR4"},
    {"dram.banks", U, "8", "", 1, 64, NULL, "banks per rank, all bank groups together", "LPDDR4"},
    {"dram.rows", U, "131072", "", 2, 1 << 24, NULL, "rows per bank (16 Gb per channel: R0-R16)", "LPDDR4"},
    {"dram.columns", U, "1024", "", 16, 1 << 16, NULL, "columns per row (x16: 2 KiB page)", "LPDDR4"},
    {"dram.bus_width", U, "16", "bits", 8, 512, NULL, "data bus width per channel", "LPDDR4 (x16 channel)"},
    {"dram.burst_length", U, "16", "beats", 2, 64, NULL, "burst length (BL16: 32 B on x16)", "LPDDR4"},
    {"dram.request_bytes", U, "64", "B", 8, 4096, NULL,
     "bytes per memory request (= L2 line); split into request_bytes/(bus_width/8*BL) bursts", "thesis Table 4.1"},
    {"dram.tCL", U, "24", "tCK", 1, 1000, NULL, "read latency RL (RD command to first data)",
     "LPDDR4-2400 RL (DBI off)"},
    {"dram.tCWL", U, "12", "tCK", 1, 1000, NULL, "write latency WL (WR command to first data)", "LPDDR4-2400 WL set A"},
    {"dram.tRCD", U, "22", "tCK", 1, 1000, NULL, "ACT to RD/WR (18 ns)", "LPDDR4"},
    {"dram.tRP", U, "22", "tCK", 1, 1000, NULL, "PRE to ACT, per-bank precharge (18 ns)", "LPDDR4"},
    {"dram.tRAS", U, "51", "tCK", 1, 10000, NULL, "ACT to PRE, same bank (42 ns)", "LPDDR4"},
    {"dram.tRRD", U, "12", "tCK", 1, 1000, NULL, "ACT to ACT, different banks of a rank (10 ns)", "LPDDR4"},
    {"dram.tFAW", U, "48", "tCK", 1, 10000, NULL, "four-activate window per rank (40 ns)", "LPDDR4"},
    {"dram.tWR", U, "22", "tCK", 1, 1000, NULL, "write recovery: end of write data to PRE (18 ns)", "LPDDR4"},
    {"dram.tWTR", U, "12", "tCK", 1, 1000, NULL, "end of write data to RD, same rank (10 ns)", "LPDDR4"},
    {"dram.tRTP", U, "9", "tCK", 1, 1000, NULL, "RD to PRE (7.5 ns)", "LPDDR4"},
    {"dram.tCCD", U, "8", "tCK", 1, 1000, NULL, "column command to column command (BL16: 8)", "LPDDR4"},
    {"dram.tRTRS", U, "2", "tCK", 0, 1000, NULL, "idle data-bus cycles when the bus changes direction or rank",
     "assumption (docs/dram-model.md)"},
    {"dram.tCCD_L", U, "0", "tCK", 0, 1000, NULL,
     "column to column command in the same bank group (dram.tCCD is the other-group tCCD_S); 0 = dram.tCCD",
     "DDR4/LPDDR5 bank groups (LPDDR4 has none)"},
    {"dram.tWTR_L", U, "0", "tCK", 0, 1000, NULL,
     "end of write data to RD in the same bank group (dram.tWTR is tWTR_S); 0 = dram.tWTR",
     "DDR4/LPDDR5 bank groups (LPDDR4 has none)"},
    {"dram.tRRD_L", U, "0", "tCK", 0, 1000, NULL,
     "ACT to ACT in the same bank group (dram.tRRD is tRRD_S); 0 = dram.tRRD", "DDR4/LPDDR5 bank groups"},
    {"dram.tPPD", U, "0", "tCK", 0, 1000, NULL, "PRE to PRE, same rank (0 = no constraint)", "LPDDR4 tPPD"},
    {"dram.tCCD_across_ranks", B, "true", "", NR, NULL,
     "tCCD also separates column commands to different ranks of a channel (false: only the data-bus "
     "turnaround dram.tRTRS does, as in DRAMsim3)",
     "assumption (docs/dram-model.md)"},
    {"dram.tREFI", U, "4685", "tCK", 1, 1 << 24, NULL, "average refresh interval per rank (3.904 us)", "LPDDR4"},
    {"dram.tRFC", U, "456", "tCK", 1, 1 << 20, NULL, "all-bank refresh cycle time (380 ns, 16 Gb/channel)", "LPDDR4"},
    {"dram.refresh", B, "true", "", NR, NULL, "model all-bank refresh (off only for experiments/tests)", "LPDDR4"},
    {"dram.address_mapping", S, "ro:ra:bg:ba:co:ch", "", NR, NULL,
     "address bit fields from MSB to LSB above the request offset: ch, ra, bg, ba, ro, co, each exactly once",
     "assumption (channel-interleaved lines, row-buffer-friendly streams)"},
    {"dram.scheduler", E, "frfcfs", "", NR, "frfcfs|fcfs",
     "per-channel scheduler: FR-FCFS (row hits first, then oldest) or strict FCFS", "assumption"},
    {"dram.queue_size", U, "32", "requests", 1, 4096, NULL,
     "per-channel request queue (unified), or the size of the read queue and of the write buffer (split)",
     "assumption"},
    {"dram.queue_structure", E, "unified", "", NR, "unified|per_bank|per_rank",
     "controller structure: unified = one FR-FCFS/FCFS queue of reads and writes; per_bank / per_rank = a read "
     "queue and a posted write buffer feeding command queues per bank / per rank served round robin "
     "(docs/dram-model.md)",
     "thesis Table 4.1 (not specified: unified kept); DRAMsim3 PER_BANK"},
    {"dram.cmd_queue_size", U, "8", "commands", 1, 4096, NULL, "split controller: entries per command queue",
     "DRAMsim3 cmd_queue_size"},
    {"dram.write_high_watermark", U, "32", "requests", 1, 4096, NULL,
     "split controller: a write drain starts when the write buffer holds this many (<= dram.queue_size)",
     "DRAMsim3 (drain when full)"},
    {"dram.write_low_watermark", U, "0", "requests", 0, 4096, NULL,
     "split controller: a drain moves the writes buffered at its start minus this many, then reads resume",
     "DRAMsim3 (0)"},
    {"dram.write_idle_drain", U, "8", "requests", 0, 4096, NULL,
     "split controller: a drain also starts when more than this many writes wait and every command queue is empty",
     "DRAMsim3 (8)"},
    {"dram.page_policy", E, "open", "", NR, "open|closed|open_adaptive",
     "row buffer policy: open (close on a conflict or refresh), closed (auto-precharge after every request), "
     "open_adaptive (auto-precharge when no queued request wants the row)",
     "assumption (open page)"},
    {"dram.row_hit_cap", U, "16", "commands", 0, 1 << 20, NULL,
     "FR-FCFS: after this many column commands to an open row, pending row hits no longer protect it from "
     "an older conflicting request (0 = unlimited)",
     "assumption (starvation guard)"},
    {"dram.ctrl_latency", U, "10", "tCK", 0, 10000, NULL,
     "fixed controller + PHY overhead added to every request's completion", "assumption (docs/dram-model.md)"},
    {"dram.cdc_sync_cycles", U, "2", "cycles", 0, 100, NULL,
     "synchronizer delay of the GPU<->DRAM clock-domain crossing, in cycles of the receiving clock",
     "assumption (2-flop synchronizer)"},
    {"dram.cdc_fifo_depth", U, "16", "entries", 1, 65536, NULL,
     "depth of each asynchronous FIFO between the GPU and DRAM clock domains", "assumption"},

    /* ---- DTM-NUCA texture caches (seeds/003; texture/tex_nuca.c, docs/techniques.md "DTM-NUCA") ---- */
    {"dtm.buckets", U, "32", "", 1, 65536, NULL, "Affinity Table buckets", "DTM Table I"},
    {"dtm.counter_bits", U, "4", "bits", 1, 16, NULL, "saturating access counter width", "DTM Table I"},
    {"dtm.page_blocks", U, "8", "blocks", 1, 65536, NULL, "cache blocks per page grouped into one bucket",
     "DTM Table I"},
    {"dtm.epoch_accesses", U, "20000", "accesses", 1, 1u << 31, NULL,
     "texture accesses per Affinity Table synchronization epoch", "DTM Table I"},
    {"dtm.hysteresis_percent", U, "25", "%", 0, 1000, NULL,
     "a saturated counter takes a bucket's ownership only if it exceeds the owner's counter by more than this "
     "percentage (anti ping-pong margin)",
     "DTM §III-B (\"plus a percentage\"; value: assumption)"},
    {"dtm.replication", B, "true", "", NR, NULL,
     "allowed replication: a line present in the local texture cache is served locally even when another node "
     "owns its bucket (false: only the owner serves it)",
     "DTM §III-B"},
    /* ---- tbr-sim pipeline units (docs/timing-model.md) ---- */
    /* ---- Geometry/raster overlap across render passes (gpu.c; docs/timing-model.md) ---- */
    {"overlap.enabled", B, "true", "", NR, NULL,
     "the geometry phase (vertex shading, binning, Parameter Buffer writes) of the next render pass of a frame "
     "runs while the current pass is rastered, as the vertex/tiler and fragment jobs of a tiler do; false = one "
     "pass at a time (geometry, then raster: the sequential figures); with Rendering Elimination on, passes run "
     "one at a time; does not apply to pipeline.organization = imr (no Parameter Buffer: its geometry and raster "
     "already run together within a pass), where --set overlap.enabled=true is an error",
     "RE sec. II (decoupled Geometry and Raster Pipelines); thesis §2.2"},
    {"overlap.across_frames", B, "true", "", NR, NULL,
     "with overlap: the next frame's geometry phase runs during the current frame's last raster phase (after a "
     "swap; the next frame's back buffer is a new buffer), with the same Parameter Buffers; false = each frame "
     "begins after the previous frame's last tile flush",
     "RE sec. II (decoupled Geometry and Raster Pipelines); thesis §2.2"},
    {"overlap.pb_buffers", U, "2", "buffers", 1, 4, NULL,
     "Parameter Buffers with overlap: a pass's geometry needs a free one (it holds it until its last tile "
     "is flushed); 1 = no overlap",
     "assumption (double buffering; RE sec. II)"},
    {"overlap.pb_buffer_kib", U, "0", "KiB", 0, 1u << 22, NULL,
     "capacity of one Parameter Buffer with overlap (0 = unbounded): a pass writing more holds several; its "
     "Polygon List Builder stalls when none is free while an earlier pass holds one",
     "assumption"},
    {"cp.cycles_per_draw", U, "8", "cycles", 0, 100000, NULL,
     "Command Processor cycles to decode one draw call and its render state", "assumption"},
    {"vertex_fetch.bytes_per_attr", U, "16", "B", 1, 256, NULL,
     "bytes fetched per vertex attribute (vec4 of float) for draws without VERTICES records; draws with them "
     "fetch the vertex-buffer lines each vertex read",
     "assumption (thesis §2.2 Vertex Fetcher)"},
    {"vertex_fetch.indices", B, "true", "", NR, NULL,
     "indexed draws with VERTICES records read their index buffer (DRAW.start .. start + count elements of "
     "index_size bytes, per instance) through the Vertex Cache, spread over the draw's VS groups ahead of their "
     "attribute lines (docs/timing-model.md \"Index fetch\")",
     "issue #19; thesis §2.2 Vertex Fetcher"},
    {"plb.tiles_per_cycle", U, "1", "tiles/cycle", 1, 64, NULL,
     "Polygon List Builder per-tile list writes per cycle (bounding-box binning)",
     "assumption (thesis §2.2 Polygon List Builder)"},
    {"raster.setup_cycles", U, "1", "cycles", 0, 1000, NULL,
     "Rasterizer cycles to set up one primitive in a tile before emitting its quads", "assumption"},
    {"tile.fetcher_pipelined", B, "true", "", NR, NULL,
     "Tile Fetcher starts the next tile while the current one renders (thesis §4.1.2); false = baseline",
     "thesis §4.1.2"},
    /* ---- Rendering / Transaction Elimination (docs/techniques.md) ---- */
    {"re.enabled", B, "false", "", NR, NULL,
     "Rendering Elimination: skip tiles whose input signature equals the reference frame's", "RE §III"},
    {"re.buffering", E, "single", "", NR, "single|double",
     "frame buffers: single compares with the previous frame, double with the one before (front/back)",
     "RE §IV-C (paper: double; traces of EGL pbuffers write one buffer)"},
    {"re.refresh_period", U, "0", "frames", 0, 1000000, NULL,
     "disable RE every N-th frame to refresh the frame buffer (0 = never)", "RE §III-E"},
    {"re.crc_cycles_per_subblock", U, "1", "cycles", 1, 64, NULL,
     "Compute CRC unit cycles per 64-bit subblock (8 LUTs of 1 KB)", "RE §III-F (18 cycles per 3-attribute primitive)"},
    {"re.accumulate_unit", E, "combine", "", NR, "combine|iterative",
     "Accumulate CRC unit: combine = one GF(2) multiply by the block's shift operator per tile (built by the Compute "
     "CRC unit), iterative = one 64-bit Shift step per subblock (Algorithm 3)",
     "RE §III-F/G, Alg. 3; combine: zlib crc32_combine_op (docs/techniques.md)"},
    {"re.accumulate_cycles_per_subblock", U, "1", "cycles", 0, 64, NULL,
     "iterative Accumulate CRC unit: cycles per 64-bit shift step (Algorithm 3)", "RE §III-F"},
    {"re.combine_cycles", U, "1", "cycles", 1, 64, NULL,
     "combine Accumulate CRC unit: cycles per combine (initiation interval of the pipelined multiplier)",
     "assumption (a 32x32 GF(2) multiply is an AND-XOR tree about 6 gates deep)"},
    {"re.ot_queue_entries", U, "16", "entries", 1, 65536, NULL,
     "Overlapped-Tiles queue entries between the Polygon List Builder and the Accumulate CRC unit",
     "assumption (RE §III-F gives no size)"},
    {"re.compare_cycles", U, "1", "cycles", 0, 1000, NULL,
     "cycles to read and compare a tile's two signatures at dispatch", "RE §V (a few cycles)"},
    {"te.enabled", B, "false", "", NR, NULL,
     "Transaction Elimination: drop color-buffer flushes whose color signature is unchanged", "RE §IV-C, [16]"},
    {"te.buffering", E, "single", "", NR, "single|double",
     "frame buffers for TE: single compares with the previous frame, double with the one before", "RE §IV-C"},
    /* ---- DFSL: dynamic fragment-shading load balancing (docs/techniques.md) ---- */
    {"dfsl.enabled", B, "false", "", NR, NULL,
     "DFSL: choose the work-tile size per frame, an evaluation phase (one frame per size 1..dfsl.max_work_tile) then "
     "the fastest size for dfsl.run_frames frames, repeated",
     "Emerald (seeds/002) sec. 6.3, Algorithm 1"},
    {"dfsl.max_work_tile", U, "10", "tiles", 1, 10, NULL,
     "DFSL's candidate work-tile sizes 1..N (the evaluation phase lasts N frames)", "Emerald sec. 6.2 (1..10)"},
    {"dfsl.run_frames", U, "100", "frames", 1, 1000000, NULL,
     "DFSL's run phase: frames rendered with the best evaluated work-tile size before the next evaluation",
     "Emerald sec. 6.3 (RunFrames; 100 in Fig. 19)"},
    {"noc.hop_latency", U, "1", "cycles", 0, 1000, NULL, "2D-mesh routing latency per hop between texture caches",
     "DTM Table I"},
    {"noc.link_bytes", U, "64", "B", 1, 1024, NULL,
     "2D-mesh link width between texture caches: one flit of this size per link per cycle (a request is one "
     "flit, a line line_bytes / link_bytes flits)",
     "assumption (DTM gives only the hop latency; 64 B = one texture-cache line per cycle, the caches' fill width)"},
    /* ---- energy/power model (docs/energy-model.md) ---- */
    {"energy.sram_leak_nw_per_bit", TBR_P_DOUBLE, "1.0", "nW", 0, 1000, NULL,
     "SRAM leakage per bit (cell + periphery) at 1.0 V, scaled linearly with gpu.voltage_v",
     "assumption (docs/energy-model.md: 22 nm low-power SRAM estimate)"},
    {"energy.logic_leak_fraction", TBR_P_DOUBLE, "0.1", "", 0, 10, NULL,
     "logic leakage as a fraction of the unit's peak dynamic power at 800 MHz", "assumption (docs/energy-model.md)"},
    {"energy.dynamic_scale", TBR_P_DOUBLE, "1.0", "", 0, 1000, NULL,
     "multiplier on every GPU structure's energy per event (calibration/sensitivity)", "assumption"},
    {"energy.leakage_scale", TBR_P_DOUBLE, "1.0", "", 0, 1000, NULL,
     "multiplier on every GPU structure's leakage power (calibration/sensitivity)", "assumption"},
    {"dram_power.vdd1_v", TBR_P_DOUBLE, "1.8", "V", 0, 5, NULL, "LPDDR4 VDD1 rail voltage",
     "JESD209-4 (LPDDR4 VDD1 nominal)"},
    {"dram_power.vdd2_v", TBR_P_DOUBLE, "1.1", "V", 0, 5, NULL, "LPDDR4 VDD2 rail voltage",
     "JESD209-4 (LPDDR4 VDD2 nominal)"},
    {"dram_power.vddq_v", TBR_P_DOUBLE, "1.1", "V", 0, 5, NULL, "LPDDR4 VDDQ rail voltage",
     "JESD209-4 (LPDDR4 VDDQ nominal)"},
    {"dram_power.idd0_vdd1_ma", TBR_P_DOUBLE, "3.5", "mA", 0, 10000, NULL,
     "IDD0 one-bank ACT-PRE current on VDD1 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd0_vdd2_ma", TBR_P_DOUBLE, "45", "mA", 0, 10000, NULL,
     "IDD0 one-bank ACT-PRE current on VDD2 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd0_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD0 one-bank ACT-PRE current on VDDQ of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd2p_vdd1_ma", TBR_P_DOUBLE, "1.2", "mA", 0, 10000, NULL,
     "IDD2P precharge power-down current on VDD1 of one x16 die channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd2p_vdd2_ma", TBR_P_DOUBLE, "3", "mA", 0, 10000, NULL,
     "IDD2P precharge power-down current on VDD2 of one x16 die channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd2p_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD2P precharge power-down current on VDDQ of one x16 die channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd2n_vdd1_ma", TBR_P_DOUBLE, "2", "mA", 0, 10000, NULL,
     "IDD2N precharge standby current on VDD1 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd2n_vdd2_ma", TBR_P_DOUBLE, "27", "mA", 0, 10000, NULL,
     "IDD2N precharge standby current on VDD2 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd2n_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD2N precharge standby current on VDDQ of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd3p_vdd1_ma", TBR_P_DOUBLE, "1.2", "mA", 0, 10000, NULL,
     "IDD3P active power-down current on VDD1 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd3p_vdd2_ma", TBR_P_DOUBLE, "9", "mA", 0, 10000, NULL,
     "IDD3P active power-down current on VDD2 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd3p_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD3P active power-down current on VDDQ of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd3n_vdd1_ma", TBR_P_DOUBLE, "2.25", "mA", 0, 10000, NULL,
     "IDD3N active standby current on VDD1 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd3n_vdd2_ma", TBR_P_DOUBLE, "30", "mA", 0, 10000, NULL,
     "IDD3N active standby current on VDD2 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd3n_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD3N active standby current on VDDQ of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd4r_vdd1_ma", TBR_P_DOUBLE, "2.25", "mA", 0, 10000, NULL,
     "IDD4R burst read current (VDDQ: standby value, data I/O is dram_power.io_pj_per_bit) on VDD1 of one x16 die "
     "channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd4r_vdd2_ma", TBR_P_DOUBLE, "275", "mA", 0, 10000, NULL,
     "IDD4R burst read current (VDDQ: standby value, data I/O is dram_power.io_pj_per_bit) on VDD2 of one x16 die "
     "channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd4r_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD4R burst read current (VDDQ: standby value, data I/O is dram_power.io_pj_per_bit) on VDDQ of one x16 die "
     "channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd4w_vdd1_ma", TBR_P_DOUBLE, "2.25", "mA", 0, 10000, NULL,
     "IDD4W burst write current (VDDQ: standby value, data I/O is dram_power.io_pj_per_bit) on VDD1 of one x16 die "
     "channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd4w_vdd2_ma", TBR_P_DOUBLE, "210", "mA", 0, 10000, NULL,
     "IDD4W burst write current (VDDQ: standby value, data I/O is dram_power.io_pj_per_bit) on VDD2 of one x16 die "
     "channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd4w_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD4W burst write current (VDDQ: standby value, data I/O is dram_power.io_pj_per_bit) on VDDQ of one x16 die "
     "channel",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd5_vdd1_ma", TBR_P_DOUBLE, "10", "mA", 0, 10000, NULL,
     "IDD5 all-bank refresh current on VDD1 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd5_vdd2_ma", TBR_P_DOUBLE, "90", "mA", 0, 10000, NULL,
     "IDD5 all-bank refresh current on VDD2 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd5_vddq_ma", TBR_P_DOUBLE, "0.75", "mA", 0, 10000, NULL,
     "IDD5 all-bank refresh current on VDDQ of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd6_vdd1_ma", TBR_P_DOUBLE, "0.3", "mA", 0, 10000, NULL,
     "IDD6 self-refresh current on VDD1 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd6_vdd2_ma", TBR_P_DOUBLE, "0.5", "mA", 0, 10000, NULL,
     "IDD6 self-refresh current on VDD2 of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd6_vddq_ma", TBR_P_DOUBLE, "0.1", "mA", 0, 10000, NULL,
     "IDD6 self-refresh current on VDDQ of one x16 die channel", "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit"},
    {"dram_power.idd_tck_ps", TBR_P_UINT, "625", "ps", 100, 100000, NULL,
     "clock period at which IDD4R/IDD4W were specified (burst energy = excess current x BL/2 x this)",
     "DRAMSys memspec JEDEC_8Gb_LPDDR4-3200_16bit (LPDDR4-3200)"},
    {"dram_power.io_pj_per_bit", TBR_P_DOUBLE, "4.0", "pJ/bit", 0, 1000, NULL,
     "DRAM data I/O energy per transferred bit, both link ends (VDDQ + controller PHY)",
     "assumption (docs/energy-model.md)"},
};

#undef U
#undef I
#undef D
#undef B
#undef E
#undef S
#undef NR

#define NPARAMS (sizeof k_params / sizeof k_params[0])

/* Keys of the documents' tables whose mechanism the model does not have yet. They stay in the
 * table (presets and the documents name them), keep their default, and any other value is an
 * error: a parameter that silently changes nothing would mislead a study (issue #22). */
static const struct {
    const char *name;
    const char *why;
} k_not_modeled[] = {
    {"early_z.inflight_quads",
     "the Early-Z stage is a pipeline limited by its throughput and the depth buffer's banks, not by a count "
     "of quads in flight"},
    {"blend.inflight_quads",
     "blending is a pipeline limited by its throughput and the color buffer's banks, not by a count of quads "
     "in flight"},
    {"inst_cache.mshr_targets",
     "the instruction-cache unit sends one request per missing line (later fetches wait for the same fill), so no "
     "request ever merges into an MSHR"},
    {"color_buffer.latency", "blending reads and writes the on-chip color buffer at blend.quads_per_cycle; the "
                             "access latency is not timed"},
    {"shader.lat_mem", "TGSI has no separate varying/uniform load or output write instructions to time"},
    {"dram.voltage_v", "DRAM energy uses the rail voltages dram_power.vdd1_v, vdd2_v and vddq_v"},
    {"dram_power.idd2p_vdd1_ma", "the DRAM model never enters precharge power-down"},
    {"dram_power.idd2p_vdd2_ma", "the DRAM model never enters precharge power-down"},
    {"dram_power.idd2p_vddq_ma", "the DRAM model never enters precharge power-down"},
    {"dram_power.idd3p_vdd1_ma", "the DRAM model never enters active power-down"},
    {"dram_power.idd3p_vdd2_ma", "the DRAM model never enters active power-down"},
    {"dram_power.idd3p_vddq_ma", "the DRAM model never enters active power-down"},
    {"dram_power.idd6_vdd1_ma", "the DRAM model never enters self-refresh"},
    {"dram_power.idd6_vdd2_ma", "the DRAM model never enters self-refresh"},
    {"dram_power.idd6_vddq_ma", "the DRAM model never enters self-refresh"},
    {"vertex_cache.private",
     "the Vertex Fetcher reads every vertex through one shared vertex cache before a vertex processor takes the "
     "work, so per-processor caches are not built (nor charged energy)"},
};

const char *tbr_param_not_modeled(const char *name)
{
    for (size_t i = 0; i < sizeof k_not_modeled / sizeof k_not_modeled[0]; i++)
        if (strcmp(k_not_modeled[i].name, name) == 0) return k_not_modeled[i].why;
    return NULL;
}

typedef struct {
    int64_t i;      /* INT, UINT (as bits), BOOL, ENUM index */
    double d;       /* DOUBLE */
    char *s;        /* STRING */
    char *origin;   /* NULL = default */
    char ename[24]; /* ENUM: the value's name, owned by the value (tbr_cfg_str; no allocation) */
} value_t;

/* Parameter names are looked up through a hash of the table (FNV-1a, open addressing, at
 * most half full; slot = index + 1, 0 = empty), kept in each configuration: a GPU reads
 * some 600 parameters while it is built, and a linear strcmp scan of the table per read
 * was 17% of fuzz_sim_frame's instructions per input (issue 22). */
#define NAME_SLOTS 1024u
_Static_assert(2 * NPARAMS <= NAME_SLOTS, "NAME_SLOTS: at most half full");

struct tbr_config {
    value_t v[NPARAMS];
    uint16_t name_slot[NAME_SLOTS];
};

size_t tbr_param_count(void) { return NPARAMS; }

const tbr_param_desc *tbr_param_at(size_t i) { return i < NPARAMS ? &k_params[i] : NULL; }

static long find_index(const char *name)
{
    for (size_t i = 0; i < NPARAMS; i++)
        if (strcmp(k_params[i].name, name) == 0) return (long)i;
    return -1;
}

static uint32_t name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 16777619u;
    return h & (NAME_SLOTS - 1);
}

static void index_names(tbr_config *cfg)
{
    for (size_t i = 0; i < NPARAMS; i++) {
        uint32_t h = name_hash(k_params[i].name);
        while (cfg->name_slot[h]) h = (h + 1) & (NAME_SLOTS - 1);
        cfg->name_slot[h] = (uint16_t)(i + 1);
    }
}

/* find_index through CFG's hash of the names. */
static long find_in(const tbr_config *cfg, const char *name)
{
    for (uint32_t h = name_hash(name); cfg->name_slot[h]; h = (h + 1) & (NAME_SLOTS - 1))
        if (strcmp(k_params[cfg->name_slot[h] - 1].name, name) == 0) return (long)cfg->name_slot[h] - 1;
    return -1;
}

const tbr_param_desc *tbr_param_find(const char *name)
{
    long i = find_index(name);
    return i < 0 ? NULL : &k_params[i];
}

const char *tbr_param_type_name(tbr_param_type t)
{
    switch (t) {
        case TBR_P_INT: return "int";
        case TBR_P_UINT: return "uint";
        case TBR_P_DOUBLE: return "double";
        case TBR_P_BOOL: return "bool";
        case TBR_P_ENUM: return "enum";
        case TBR_P_STRING: return "string";
    }
    return "?";
}

/* Index of `val` in the '|'-separated enum list, or -1. */
static int enum_index(const char *allowed, const char *val)
{
    int idx = 0;
    size_t n = strlen(val);
    const char *p = allowed;
    while (*p) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, val, n) == 0) return idx;
        idx++;
        if (!bar) break;
        p = bar + 1;
    }
    return -1;
}

static void enum_name(const char *allowed, int index, char *buf, size_t len)
{
    const char *p = allowed;
    for (int i = 0; i < index && p; i++) {
        p = strchr(p, '|');
        if (p) p++;
    }
    if (!p) {
        snprintf(buf, len, "?");
        return;
    }
    const char *bar = strchr(p, '|');
    size_t n = bar ? (size_t)(bar - p) : strlen(p);
    if (n >= len) n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
}

/* Parse `text` according to the descriptor into *out; on error writes a
 * message (without location) into err. */
static int parse_value(const tbr_param_desc *d, const char *text, value_t *out, char *err, size_t errlen)
{
    char *end;
    errno = 0;
    switch (d->type) {
        case TBR_P_INT: {
            long long x = strtoll(text, &end, 0);
            if (end == text || *end || errno) {
                tbr_set_err(err, errlen, "'%s' is not an integer", text);
                return -1;
            }
            if ((double)x < d->min || (double)x > d->max) {
                tbr_set_err(err, errlen, "%lld out of range [%.17g, %.17g]", x, d->min, d->max);
                return -1;
            }
            out->i = x;
            return 0;
        }
        case TBR_P_UINT: {
            const char *p = text;
            while (isspace((unsigned char)*p)) p++;
            if (*p == '-' || *p == '+') {
                tbr_set_err(err, errlen, "'%s' is not an unsigned integer", text);
                return -1;
            }
            unsigned long long x = strtoull(text, &end, 0);
            if (end == text || *end || errno) {
                tbr_set_err(err, errlen, "'%s' is not an unsigned integer", text);
                return -1;
            }
            if ((double)x < d->min || (double)x > d->max) {
                tbr_set_err(err, errlen, "%llu out of range [%.17g, %.17g]", x, d->min, d->max);
                return -1;
            }
            out->i = (int64_t)x;
            return 0;
        }
        case TBR_P_DOUBLE: {
            double x = strtod(text, &end);
            if (end == text || *end || errno || !isfinite(x)) {
                tbr_set_err(err, errlen, "'%s' is not a finite number", text);
                return -1;
            }
            if (x < d->min || x > d->max) {
                tbr_set_err(err, errlen, "%g out of range [%g, %g]", x, d->min, d->max);
                return -1;
            }
            out->d = x;
            return 0;
        }
        case TBR_P_BOOL:
            if (!strcmp(text, "true") || !strcmp(text, "yes") || !strcmp(text, "on") || !strcmp(text, "1")) {
                out->i = 1;
                return 0;
            }
            if (!strcmp(text, "false") || !strcmp(text, "no") || !strcmp(text, "off") || !strcmp(text, "0")) {
                out->i = 0;
                return 0;
            }
            tbr_set_err(err, errlen, "'%s' is not a boolean (true/false)", text);
            return -1;
        case TBR_P_ENUM: {
            int k = enum_index(d->allowed, text);
            if (k < 0) {
                tbr_set_err(err, errlen, "'%s' is not one of %s", text, d->allowed);
                return -1;
            }
            out->i = k;
            enum_name(d->allowed, k, out->ename, sizeof out->ename);
            if (strlen(out->ename) != strlen(text)) { /* a table bug: names fit ename */
                tbr_set_err(err, errlen, "enum name '%s' longer than %zu characters", text, sizeof out->ename - 1);
                return -1;
            }
            return 0;
        }
        case TBR_P_STRING: out->s = tbr_xstrdup(text); return 0;
    }
    return -1;
}

tbr_config *tbr_config_new(void)
{
    tbr_config *cfg = tbr_xcalloc(1, sizeof *cfg);
    index_names(cfg);
    for (size_t i = 0; i < NPARAMS; i++) {
        char err[256];
        if (parse_value(&k_params[i], k_params[i].def, &cfg->v[i], err, sizeof err) != 0) {
            /* A broken built-in default is a bug in the table itself. */
            fprintf(stderr, "tbr config: bad built-in default for %s: %s\n", k_params[i].name, err);
            abort();
        }
    }
    return cfg;
}

void tbr_config_free(tbr_config *cfg)
{
    if (!cfg) return;
    for (size_t i = 0; i < NPARAMS; i++) {
        free(cfg->v[i].s);
        free(cfg->v[i].origin);
    }
    free(cfg);
}

static bool same_as_default(const tbr_param_desc *d, const value_t *v)
{
    value_t def = {0};
    char msg[64];
    if (parse_value(d, d->def, &def, msg, sizeof msg) != 0) return false;
    bool same = def.i == v->i && def.d == v->d && (!def.s || (v->s && strcmp(def.s, v->s) == 0));
    free(def.s);
    return same;
}

/* key with every byte outside printable ASCII as \xHH, so that a message shows what is
 * really there (an invisible byte-order mark, a non-breaking space) */
static void visible(const char *key, char *out, size_t outlen)
{
    size_t o = 0;
    for (const unsigned char *k = (const unsigned char *)key; *k && o + 5 < outlen; k++) {
        if (*k >= 0x20 && *k < 0x7f)
            out[o++] = (char)*k;
        else
            o += (size_t)snprintf(out + o, outlen - o, "\\x%02X", *k);
    }
    out[o] = '\0';
}

int tbr_config_set(tbr_config *cfg, const char *key, const char *value, const char *where, char *err, size_t errlen)
{
    long i = find_in(cfg, key);
    if (i < 0) {
        char shown[256];
        visible(key, shown, sizeof shown);
        tbr_set_err(err, errlen, "%s: unknown parameter '%s' (see --list-params)", where, shown);
        return -1;
    }
    value_t nv = {0};
    char msg[256];
    if (parse_value(&k_params[i], value, &nv, msg, sizeof msg) != 0) {
        tbr_set_err(err, errlen, "%s: %s: %s", where, key, msg);
        return -1;
    }
    const char *why = tbr_param_not_modeled(key);
    if (why && !same_as_default(&k_params[i], &nv)) {
        free(nv.s);
        tbr_set_err(err, errlen, "%s: %s = %s: not modeled yet: %s (only the default %s is accepted)", where, key,
                    value, why, k_params[i].def);
        return -1;
    }
    free(cfg->v[i].s);
    free(cfg->v[i].origin);
    nv.origin = tbr_xstrdup(where);
    cfg->v[i] = nv;
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s)) s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1])) e--;
    *e = '\0';
    return s;
}

int tbr_config_parse_text(tbr_config *cfg, const char *text, const char *name, char *err, size_t errlen)
{
    /* line at which each parameter was set in this text, to reject duplicates */
    int seen[NPARAMS];
    memset(seen, 0, sizeof seen);
    int lineno = 0;
    const char *p = text;
    /* a UTF-8 byte-order mark (editors on some systems write one) is not part of the first key */
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = tbr_xrealloc(NULL, len + 1);
        memcpy(line, p, len);
        line[len] = '\0';
        p = nl ? nl + 1 : p + len;
        lineno++;
        char where[512];
        snprintf(where, sizeof where, "%s:%d", name, lineno);
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = trim(line);
        if (!*s) {
            free(line);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq) {
            tbr_set_err(err, errlen, "%s: expected 'key = value', got '%s'", where, s);
            free(line);
            return -1;
        }
        *eq = '\0';
        char *key = trim(s), *val = trim(eq + 1);
        if (!*key || !*val) {
            tbr_set_err(err, errlen, "%s: expected 'key = value' (empty %s)", where, *key ? "value" : "key");
            free(line);
            return -1;
        }
        long idx = find_index(key);
        if (idx >= 0 && seen[idx]) {
            tbr_set_err(err, errlen, "%s: '%s' already set at line %d", where, key, seen[idx]);
            free(line);
            return -1;
        }
        if (tbr_config_set(cfg, key, val, where, err, errlen) != 0) {
            free(line);
            return -1;
        }
        seen[idx] = lineno;
        free(line);
    }
    return 0;
}

int tbr_config_load_file(tbr_config *cfg, const char *path, char *err, size_t errlen)
{
    char oerr[256];
    FILE *f = tbr_fopen_input(path, oerr, sizeof oerr); /* a regular file only: a FIFO would block */
    if (!f) {
        tbr_set_err(err, errlen, "%s: %s", path, oerr);
        return -1;
    }
    size_t cap = 4096, n = 0;
    char *buf = tbr_xrealloc(NULL, cap);
    size_t r;
    while ((r = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += r;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = tbr_xrealloc(buf, cap);
        }
    }
    int rd_err = ferror(f);
    fclose(f);
    buf[n] = '\0';
    if (rd_err) {
        tbr_set_err(err, errlen, "%s: read error", path);
        free(buf);
        return -1;
    }
    if (memchr(buf, '\0', n)) {
        tbr_set_err(err, errlen, "%s: contains a NUL byte (not a text config file)", path);
        free(buf);
        return -1;
    }
    int rc = tbr_config_parse_text(cfg, buf, path, err, errlen);
    free(buf);
    return rc;
}

int tbr_config_apply_override(tbr_config *cfg, const char *kv, char *err, size_t errlen)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv) {
        tbr_set_err(err, errlen, "--set: expected key=value, got '%s'", kv);
        return -1;
    }
    char *key = tbr_xstrdup(kv);
    key[eq - kv] = '\0';
    char *k = trim(key);
    char *vcopy = tbr_xstrdup(eq + 1);
    char *v = trim(vcopy);
    int rc;
    if (!*v) {
        tbr_set_err(err, errlen, "--set: empty value for '%s'", k);
        rc = -1;
    } else {
        rc = tbr_config_set(cfg, k, v, "--set", err, errlen);
    }
    free(key);
    free(vcopy);
    return rc;
}

/* ---- getters ---- */

static const value_t *get_checked(const tbr_config *cfg, const char *name, tbr_param_type t1, tbr_param_type t2)
{
    long i = find_in(cfg, name);
    if (i < 0) {
        fprintf(stderr, "tbr config: internal error: no parameter '%s'\n", name);
        abort();
    }
    if (k_params[i].type != t1 && k_params[i].type != t2) {
        fprintf(stderr, "tbr config: internal error: '%s' is %s, read as %s\n", name,
                tbr_param_type_name(k_params[i].type), tbr_param_type_name(t1));
        abort();
    }
    return &cfg->v[i];
}

int64_t tbr_cfg_int(const tbr_config *cfg, const char *name) { return get_checked(cfg, name, TBR_P_INT, TBR_P_INT)->i; }
uint64_t tbr_cfg_uint(const tbr_config *cfg, const char *name)
{
    return (uint64_t)get_checked(cfg, name, TBR_P_UINT, TBR_P_UINT)->i;
}
double tbr_cfg_double(const tbr_config *cfg, const char *name)
{
    return get_checked(cfg, name, TBR_P_DOUBLE, TBR_P_DOUBLE)->d;
}
bool tbr_cfg_bool(const tbr_config *cfg, const char *name)
{
    return get_checked(cfg, name, TBR_P_BOOL, TBR_P_BOOL)->i != 0;
}
int tbr_cfg_enum(const tbr_config *cfg, const char *name)
{
    return (int)get_checked(cfg, name, TBR_P_ENUM, TBR_P_ENUM)->i;
}
const char *tbr_cfg_str(const tbr_config *cfg, const char *name)
{
    /* an enum's name is kept with its value (parse_value): each configuration owns its names */
    const value_t *v = get_checked(cfg, name, TBR_P_STRING, TBR_P_ENUM);
    return v->s ? v->s : v->ename;
}
const char *tbr_cfg_origin(const tbr_config *cfg, const char *name)
{
    long i = find_in(cfg, name);
    if (i < 0) return NULL;
    return cfg->v[i].origin ? cfg->v[i].origin : "default";
}

void tbr_cfg_format(const tbr_config *cfg, size_t i, char *buf, size_t len)
{
    const value_t *v = &cfg->v[i];
    switch (k_params[i].type) {
        case TBR_P_INT: snprintf(buf, len, "%lld", (long long)v->i); break;
        case TBR_P_UINT: snprintf(buf, len, "%llu", (unsigned long long)(uint64_t)v->i); break;
        case TBR_P_DOUBLE: snprintf(buf, len, "%.15g", v->d); break;
        case TBR_P_BOOL: snprintf(buf, len, "%s", v->i ? "true" : "false"); break;
        case TBR_P_ENUM: enum_name(k_params[i].allowed, (int)v->i, buf, len); break;
        case TBR_P_STRING: snprintf(buf, len, "%s", v->s); break;
    }
}

size_t tbr_config_diff(const tbr_config *a, const tbr_config *b, char *diff, size_t difflen)
{
    size_t n = 0;
    if (diff && difflen) diff[0] = '\0';
    for (size_t i = 0; i < NPARAMS; i++) {
        char x[256], y[256];
        tbr_cfg_format(a, i, x, sizeof x);
        tbr_cfg_format(b, i, y, sizeof y);
        if (strcmp(x, y) != 0) {
            if (n == 0) tbr_set_err(diff, difflen, "%s: %s vs %s", k_params[i].name, x, y);
            n++;
        }
    }
    return n;
}

/* ---- cross-parameter validation ---- */

static bool is_pow2(uint64_t x) { return x && !(x & (x - 1)); }

static int check_cache(const tbr_config *cfg, const char *pfx, char *err, size_t errlen)
{
    char k[64];
#define CGET(field) (snprintf(k, sizeof k, "%s." field, pfx), tbr_cfg_uint(cfg, k))
    uint64_t size = CGET("size_kb") * 1024, ways = CGET("ways"), line = CGET("line_bytes"), banks = CGET("banks");
#undef CGET
    if (!is_pow2(line)) {
        tbr_set_err(err, errlen, "%s.line_bytes = %llu must be a power of two", pfx, (unsigned long long)line);
        return -1;
    }
    if (size % (line * ways) != 0) {
        tbr_set_err(err, errlen, "%s: size %llu B is not a multiple of line_bytes*ways = %llu", pfx,
                    (unsigned long long)size, (unsigned long long)(line * ways));
        return -1;
    }
    uint64_t sets = size / (line * ways);
    if (!is_pow2(sets)) {
        tbr_set_err(err, errlen, "%s: %llu sets (size/(line_bytes*ways)) is not a power of two", pfx,
                    (unsigned long long)sets);
        return -1;
    }
    if (!is_pow2(banks) || banks > sets) {
        tbr_set_err(err, errlen, "%s.banks = %llu must be a power of two <= number of sets (%llu)", pfx,
                    (unsigned long long)banks, (unsigned long long)sets);
        return -1;
    }
    return 0;
}

/* IMR (pipeline.organization = imr) has no tiles: the tile-based units and techniques
 * cannot be combined with it; its caches need at least one set. */
static int check_organization(const tbr_config *cfg, char *err, size_t errlen)
{
    if (tbr_cfg_enum(cfg, "pipeline.organization") != 1) return 0;
    static const char *tile_only[] = {"hsr.enabled", "re.enabled", "te.enabled"};
    for (size_t i = 0; i < sizeof tile_only / sizeof tile_only[0]; i++)
        if (tbr_cfg_bool(cfg, tile_only[i])) {
            tbr_set_err(err, errlen, "pipeline.organization = imr: %s = true: not modeled yet (a tile-based unit)",
                        tile_only[i]);
            return -1;
        }
    /* overlap is on by default and in dumped configurations, where it simply does not
     * apply to IMR; asked for on the command line it would suggest an overlap IMR lacks */
    if (tbr_cfg_bool(cfg, "overlap.enabled") && !strcmp(tbr_cfg_origin(cfg, "overlap.enabled"), "--set")) {
        tbr_set_err(err, errlen,
                    "pipeline.organization = imr: --set overlap.enabled = true: not modeled (overlap across render "
                    "passes needs a Parameter Buffer; it does not apply to IMR)");
        return -1;
    }
    if (tbr_cfg_uint(cfg, "tile.raster_units") != 1) {
        tbr_set_err(err, errlen,
                    "pipeline.organization = imr: tile.raster_units = %llu: not modeled yet (IMR has one Raster Unit)",
                    (unsigned long long)tbr_cfg_uint(cfg, "tile.raster_units"));
        return -1;
    }
    uint64_t hb = tbr_cfg_uint(cfg, "imr.hiz.block_size");
    if (hb & (hb - 1)) {
        tbr_set_err(err, errlen, "imr.hiz.block_size = %llu: not a power of two", (unsigned long long)hb);
        return -1;
    }
    static const char *caches[] = {"imr.z_cache", "imr.color_cache"};
    for (size_t i = 0; i < 2; i++) {
        char ks[64], kw[64];
        snprintf(ks, sizeof ks, "%s.size_kb", caches[i]);
        snprintf(kw, sizeof kw, "%s.ways", caches[i]);
        uint64_t lb = tbr_cfg_bool(cfg, i == 0 ? "imr.z_compression" : "imr.color_compression") ? 256 : 64;
        if (tbr_cfg_uint(cfg, ks) * 1024 / lb < tbr_cfg_uint(cfg, kw)) {
            tbr_set_err(err, errlen, "%s = %llu KiB holds fewer %llu-B lines than %s = %llu", ks,
                        (unsigned long long)tbr_cfg_uint(cfg, ks), (unsigned long long)lb, kw,
                        (unsigned long long)tbr_cfg_uint(cfg, kw));
            return -1;
        }
    }
    return 0;
}

int tbr_config_validate(const tbr_config *cfg, char *err, size_t errlen)
{
    static const char *caches[] = {"vertex_cache", "tile_cache", "texture_cache", "inst_cache", "l2"};
    for (size_t i = 0; i < sizeof caches / sizeof caches[0]; i++)
        if (check_cache(cfg, caches[i], err, errlen) != 0) return -1;
    uint64_t l2line = tbr_cfg_uint(cfg, "l2.line_bytes");
    for (size_t i = 0; i + 1 < sizeof caches / sizeof caches[0]; i++) {
        char k[64];
        snprintf(k, sizeof k, "%s.line_bytes", caches[i]);
        if (tbr_cfg_uint(cfg, k) > l2line) {
            tbr_set_err(err, errlen, "%s = %llu exceeds l2.line_bytes = %llu (an L1 miss must fit one L2 line)", k,
                        (unsigned long long)tbr_cfg_uint(cfg, k), (unsigned long long)l2line);
            return -1;
        }
    }

    if (check_organization(cfg, err, errlen) != 0) return -1;

    /* tiles */
    uint64_t tw = tbr_cfg_uint(cfg, "tile.width"), th = tbr_cfg_uint(cfg, "tile.height");
    if (!is_pow2(tw) || !is_pow2(th)) {
        tbr_set_err(err, errlen, "tile.width/tile.height (%llux%llu) must be powers of two (quads, Z-order)",
                    (unsigned long long)tw, (unsigned long long)th);
        return -1;
    }
    if (tw > tbr_cfg_uint(cfg, "screen.width") || th > tbr_cfg_uint(cfg, "screen.height")) {
        tbr_set_err(err, errlen, "tile (%llux%llu) larger than the screen", (unsigned long long)tw,
                    (unsigned long long)th);
        return -1;
    }
    /* The on-chip tile buffers are not backed by memory (thesis §5.1): a
   * whole tile must fit. */
    static const char *bufs[] = {"depth_buffer", "color_buffer"};
    for (int b = 0; b < 2; b++) {
        char ks[64], kb[64];
        snprintf(ks, sizeof ks, "%s.size_kb", bufs[b]);
        snprintf(kb, sizeof kb, "%s.bytes_per_pixel", bufs[b]);
        uint64_t need = tw * th * tbr_cfg_uint(cfg, kb), have = tbr_cfg_uint(cfg, ks) * 1024;
        if (need > have) {
            tbr_set_err(err, errlen, "%s: a %llux%llu tile at %llu B/pixel needs %llu B but %s = %llu KiB", bufs[b],
                        (unsigned long long)tw, (unsigned long long)th, (unsigned long long)tbr_cfg_uint(cfg, kb),
                        (unsigned long long)need, ks, (unsigned long long)tbr_cfg_uint(cfg, ks));
            return -1;
        }
    }

    /* DRAM geometry */
    static const char *pow2[] = {"dram.channels",  "dram.ranks",        "dram.bankgroups",
                                 "dram.banks",     "dram.rows",         "dram.columns",
                                 "dram.bus_width", "dram.burst_length", "dram.request_bytes"};
    for (size_t i = 0; i < sizeof pow2 / sizeof pow2[0]; i++)
        if (!is_pow2(tbr_cfg_uint(cfg, pow2[i]))) {
            tbr_set_err(err, errlen, "%s = %llu must be a power of two (address bit fields)", pow2[i],
                        (unsigned long long)tbr_cfg_uint(cfg, pow2[i]));
            return -1;
        }
    uint64_t banks = tbr_cfg_uint(cfg, "dram.banks"), bgs = tbr_cfg_uint(cfg, "dram.bankgroups");
    if (bgs > banks) {
        tbr_set_err(err, errlen, "dram.bankgroups = %llu exceeds dram.banks = %llu", (unsigned long long)bgs,
                    (unsigned long long)banks);
        return -1;
    }
    uint64_t busb = tbr_cfg_uint(cfg, "dram.bus_width") / 8, bl = tbr_cfg_uint(cfg, "dram.burst_length");
    uint64_t burst_bytes = busb * bl, req = tbr_cfg_uint(cfg, "dram.request_bytes");
    uint64_t row_bytes = tbr_cfg_uint(cfg, "dram.columns") * busb;
    if (req < burst_bytes) {
        tbr_set_err(err, errlen,
                    "dram.request_bytes = %llu is smaller than one burst (bus_width/8 * burst_length = %llu)",
                    (unsigned long long)req, (unsigned long long)burst_bytes);
        return -1;
    }
    if (req > row_bytes) {
        tbr_set_err(err, errlen, "dram.request_bytes = %llu exceeds a row (columns * bus_width/8 = %llu B)",
                    (unsigned long long)req, (unsigned long long)row_bytes);
        return -1;
    }
    if (l2line != req) {
        tbr_set_err(err, errlen,
                    "l2.line_bytes = %llu must equal dram.request_bytes = %llu (an L2 miss is one request)",
                    (unsigned long long)l2line, (unsigned long long)req);
        return -1;
    }
    uint64_t cap = tbr_cfg_uint(cfg, "dram.channels") * tbr_cfg_uint(cfg, "dram.ranks") * banks *
                   tbr_cfg_uint(cfg, "dram.rows") * row_bytes;
    uint64_t mem = tbr_cfg_uint(cfg, "mem.size_mb") << 20;
    if (cap != mem) {
        tbr_set_err(err, errlen,
                    "mem.size_mb = %llu but the DRAM geometry (channels*ranks*banks*rows*columns*bus_width/8) "
                    "holds %llu MiB",
                    (unsigned long long)tbr_cfg_uint(cfg, "mem.size_mb"), (unsigned long long)(cap >> 20));
        return -1;
    }
    /* clock: tCK must be the period of dram.clock_mhz, within 1 ps rounding */
    double period = 1e6 / (double)tbr_cfg_uint(cfg, "dram.clock_mhz");
    if (fabs(period - (double)tbr_cfg_uint(cfg, "dram.tCK_ps")) > 1.0) {
        tbr_set_err(err, errlen, "dram.tCK_ps = %llu does not match dram.clock_mhz = %llu (period %.1f ps)",
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.tCK_ps"),
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.clock_mhz"), period);
        return -1;
    }
    uint64_t tRAS = tbr_cfg_uint(cfg, "dram.tRAS"), tRCD = tbr_cfg_uint(cfg, "dram.tRCD");
    if (tRAS < tRCD) {
        tbr_set_err(err, errlen, "dram.tRAS (%llu) < dram.tRCD (%llu)", (unsigned long long)tRAS,
                    (unsigned long long)tRCD);
        return -1;
    }
    if (tbr_cfg_uint(cfg, "dram.tFAW") < tbr_cfg_uint(cfg, "dram.tRRD")) {
        tbr_set_err(err, errlen, "dram.tFAW < dram.tRRD");
        return -1;
    }
    if (tbr_cfg_uint(cfg, "dram.tCCD") < bl / 2) {
        tbr_set_err(err, errlen, "dram.tCCD = %llu is shorter than a burst on the bus (burst_length/2 = %llu)",
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.tCCD"), (unsigned long long)(bl / 2));
        return -1;
    }
    if (strcmp(tbr_cfg_str(cfg, "dram.queue_structure"), "unified") != 0 &&
        (tbr_cfg_uint(cfg, "dram.write_high_watermark") > tbr_cfg_uint(cfg, "dram.queue_size") ||
         tbr_cfg_uint(cfg, "dram.write_low_watermark") >= tbr_cfg_uint(cfg, "dram.write_high_watermark"))) {
        tbr_set_err(err, errlen,
                    "dram.write_low_watermark (%llu) < dram.write_high_watermark (%llu) <= "
                    "dram.queue_size (%llu) does not hold",
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.write_low_watermark"),
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.write_high_watermark"),
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.queue_size"));
        return -1;
    }
    if (tbr_cfg_uint(cfg, "dram.tCCD_L") && tbr_cfg_uint(cfg, "dram.tCCD_L") < tbr_cfg_uint(cfg, "dram.tCCD")) {
        tbr_set_err(err, errlen, "dram.tCCD_L must be 0 or >= dram.tCCD");
        return -1;
    }
    if (tbr_cfg_uint(cfg, "dram.tCWL") > tbr_cfg_uint(cfg, "dram.tCL")) {
        tbr_set_err(err, errlen, "dram.tCWL > dram.tCL is not supported by the bus turnaround model");
        return -1;
    }
    if (tbr_cfg_bool(cfg, "dram.refresh") && tbr_cfg_uint(cfg, "dram.tRFC") >= tbr_cfg_uint(cfg, "dram.tREFI")) {
        tbr_set_err(err, errlen, "dram.tRFC (%llu) must be < dram.tREFI (%llu)",
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.tRFC"),
                    (unsigned long long)tbr_cfg_uint(cfg, "dram.tREFI"));
        return -1;
    }
    /* address mapping: six fields, each exactly once */
    const char *map = tbr_cfg_str(cfg, "dram.address_mapping");
    static const char *fields[] = {"ch", "ra", "bg", "ba", "ro", "co"};
    int count[6] = {0};
    const char *p = map;
    while (*p) {
        const char *c = strchr(p, ':');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        int f = -1;
        for (int j = 0; j < 6; j++)
            if (len == 2 && strncmp(p, fields[j], 2) == 0) f = j;
        if (f < 0) {
            tbr_set_err(err, errlen, "dram.address_mapping '%s': unknown field '%.*s' (use ch ra bg ba ro co)", map,
                        (int)len, p);
            return -1;
        }
        count[f]++;
        if (!c) break;
        p = c + 1;
    }
    for (int j = 0; j < 6; j++)
        if (count[j] != 1) {
            tbr_set_err(err, errlen, "dram.address_mapping '%s': field '%s' must appear exactly once", map, fields[j]);
            return -1;
        }
    return 0;
}

/* ---- printing ---- */

static void section_of(const char *name, char *buf, size_t len)
{
    const char *dot = strchr(name, '.');
    size_t n = dot ? (size_t)(dot - name) : strlen(name);
    if (n >= len) n = len - 1;
    memcpy(buf, name, n);
    buf[n] = '\0';
}

static void range_text(const tbr_param_desc *d, char *buf, size_t len)
{
    switch (d->type) {
        case TBR_P_INT:
        case TBR_P_UINT:
        case TBR_P_DOUBLE: snprintf(buf, len, "[%.15g, %.15g]", d->min, d->max); break;
        case TBR_P_BOOL: snprintf(buf, len, "true|false"); break;
        case TBR_P_ENUM: snprintf(buf, len, "%s", d->allowed); break;
        case TBR_P_STRING: snprintf(buf, len, "text"); break;
    }
}

void tbr_params_print(FILE *out)
{
    fprintf(out, "%-34s %-6s %-18s %-10s %s\n", "NAME", "TYPE", "DEFAULT", "UNIT", "RANGE / HELP / SOURCE");
    for (size_t i = 0; i < NPARAMS; i++) {
        const tbr_param_desc *d = &k_params[i];
        char r[128];
        range_text(d, r, sizeof r);
        fprintf(out, "%-34s %-6s %-18s %-10s %s\n", d->name, tbr_param_type_name(d->type), d->def,
                d->unit[0] ? d->unit : "-", r);
        const char *why = tbr_param_not_modeled(d->name);
        if (why)
            fprintf(out, "%-34s NOT MODELED YET: %s; only the default is accepted. %s [%s]\n", "", why, d->help,
                    d->source);
        else
            fprintf(out, "%-34s %s [%s]\n", "", d->help, d->source);
    }
}

void tbr_config_dump_text(const tbr_config *cfg, FILE *out)
{
    char prev[64] = "";
    for (size_t i = 0; i < NPARAMS; i++) {
        const tbr_param_desc *d = &k_params[i];
        char sec[64], val[512], r[128];
        section_of(d->name, sec, sizeof sec);
        if (strcmp(sec, prev) != 0) {
            fprintf(out, "%s# ---- %s ----\n", i ? "\n" : "", sec);
            snprintf(prev, sizeof prev, "%s", sec);
        }
        tbr_cfg_format(cfg, i, val, sizeof val);
        range_text(d, r, sizeof r);
        const char *why = tbr_param_not_modeled(d->name);
        if (why) fprintf(out, "# NOT MODELED YET (only this default is accepted): %s\n", why);
        fprintf(out, "# %s%s%s%s; %s; source: %s%s%s\n", d->help, d->unit[0] ? " [" : "", d->unit,
                d->unit[0] ? "]" : "", r, d->source, cfg->v[i].origin ? "; set at " : "",
                cfg->v[i].origin ? cfg->v[i].origin : "");
        fprintf(out, "%s = %s\n", d->name, val);
    }
}

void tbr_config_dump_json(const tbr_config *cfg, FILE *out)
{
    fprintf(out, "{");
    for (size_t i = 0; i < NPARAMS; i++) {
        const tbr_param_desc *d = &k_params[i];
        char val[512];
        tbr_cfg_format(cfg, i, val, sizeof val);
        fprintf(out, "%s\n  ", i ? "," : "");
        tbr_json_string(out, d->name);
        fprintf(out, ": ");
        switch (d->type) {
            case TBR_P_INT:
            case TBR_P_UINT:
            case TBR_P_DOUBLE:
            case TBR_P_BOOL: fprintf(out, "%s", val); break;
            case TBR_P_ENUM:
            case TBR_P_STRING: tbr_json_string(out, val); break;
        }
    }
    fprintf(out, "\n}\n");
}
