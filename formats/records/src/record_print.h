/* tbr-dump's text of each record type (the print entries of the record table). */
#ifndef TBR_RECORD_PRINT_H
#define TBR_RECORD_PRINT_H

#include "tbr/record_table.h"

#define TBR_REC_PRINT_FNS(X)                                                                                           \
    X(frame_end)                                                                                                       \
    X(resource)                                                                                                        \
    X(upload) X(shader) X(render_pass) X(clear) X(draw) X(draw_end) X(prim) X(quads) X(tile) X(flush) X(unsupported)   \
        X(path) X(vs_textures) X(texels) X(vertices) X(surface_check) X(surface_init)
#define TBR_REC_PRINT_DECL_(name) void tbr_rec_print_##name(FILE *out, const tbr_rec_decoded *d, int verbose);
TBR_REC_PRINT_FNS(TBR_REC_PRINT_DECL_)
#undef TBR_REC_PRINT_DECL_

#endif
