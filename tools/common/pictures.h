/* Heatmap and bar-chart rendering shared by tbr-heatmap, tbr-barchart and tbr-report. */
#ifndef TBR_PIC_PICTURES_H
#define TBR_PIC_PICTURES_H
#include <stddef.h>
#include <stdio.h>

#include "canvas.h"
#include "run.h"

/* Heatmap: out = bg (W x H) with the grid blended over it (PIC_HEAT_ALPHA), plus a legend strip
 * below (and wider canvas if the legend needs it). range_min/max: NAN = from the data.
 * Returns 0 or -1. legend_y receives the first legend row. */
int pic_heatmap_render(const tbr_image *bg, const pic_tile_grid *g, const char *metric, long frame, double range_min,
                       double range_max, tbr_image *out, unsigned *legend_y, char *err, size_t err_size);
/* Scale of the text/legend for a frame of this width (1..4). */
int pic_heatmap_scale(unsigned width);

typedef struct {
    int ngroups, nseries;
    const char *const *group;  /* x-axis group labels (metrics or frames) */
    const char *const *series; /* legend entries (runs) */
    const double *v;           /* v[g * nseries + s]; NAN = missing (no bar) */
    const char *title;
    const char *ylabel;
    int normalized; /* value labels with 2 decimals, a reference line at 1 */
} pic_chart;

/* Bar geometry chosen by the renderer (for tests): plot_h pixels = ymax. */
typedef struct {
    int plot_top, plot_bottom;
    double ymax;
} pic_chart_layout;

int pic_barchart_render(const pic_chart *c, tbr_image *out, pic_chart_layout *lay, char *err, size_t err_size);
/* The same chart as SVG (text as text): written to O; LAY gets the plot's geometry in SVG
 * units. 0, or -1 on a write error. The _file form writes PATH through a temp name. */
int pic_barchart_svg(const pic_chart *c, FILE *o, pic_chart_layout *lay);
int pic_barchart_svg_file(const pic_chart *c, const char *path, char *err, size_t err_size);
/* Writes S as XML/HTML text: < > & and " escaped (SVG labels, HTML table cells). */
void pic_xml_text(FILE *o, const char *s);
#endif
