/* collect's outputs besides the CSV: the summary table and the study's charts (SVG, text
 * as text) with an HTML page (docs/sweeps.md "Results"). */
#ifndef TBR_SWEEP_CHARTS_H
#define TBR_SWEEP_CHARTS_H

#include <stdio.h>

#include "sweep.h"

/* One cell's collected values. */
typedef struct {
    sweep_state state;
    double *stat;     /* per requested statistic */
    char **key_value; /* per configuration key column (64 bytes each) */
    long frames_checked, frames_exact;
} sw_cell_result;

void sw_format_number(double v, char *out, size_t n);
/* Per cell: each statistic normalised to the normalize configuration of its workload. */
void sw_summary_table(const sweep_plan *pl, const sw_cell_result *res, FILE *o);
/* DIR/<stat>.svg per statistic and DIR/index.html. 0 or -1 (message printed). */
int sw_charts(const sweep_plan *pl, const sw_cell_result *res, char **keys, size_t nkeys, const char *dir);

#endif
