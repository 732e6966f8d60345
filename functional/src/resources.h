/* tbrsim recorder: RESOURCE records, once per resource per frame, before the first
 * record that refers to the resource. */
#ifndef TBR_RESOURCES_H
#define TBR_RESOURCES_H

#include "tbr_mesa_hooks.h"

#include "idset.h"
#include "rec_sink.h"
#include "rec_status.h"

struct resource_table {
    struct rec_status *st;
    tbr_idset described; /* this frame */
};

void res_init(struct resource_table *rt, struct rec_status *st);
void res_new_frame(struct resource_table *rt);
void res_free(struct resource_table *rt);
/* Emits r's RESOURCE record unless this frame has it (or r is no resource). */
void res_describe(struct resource_table *rt, const struct tbr_hook_resource *r, const struct rec_sink *out);

#endif
