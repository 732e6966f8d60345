/* tbr-dump's text of each record type (the print entries of the record table). */
#ifndef TBR_RECORD_PRINT_H
#define TBR_RECORD_PRINT_H

#include "tbr/record_table.h"

void tbr_rec_print_frame_end(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_resource(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_upload(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_shader(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_render_pass(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_clear(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_draw(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_draw_end(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_prim(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_quads(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_tile(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_flush(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_unsupported(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_path(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_vs_textures(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_texels(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_vertices(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_surface_check(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_invalidate(FILE *out, const tbr_rec_decoded *d, int verbose);
void tbr_rec_print_surface_init(FILE *out, const tbr_rec_decoded *d, int verbose);

#endif
