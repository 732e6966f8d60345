/* tbrsim recorder: RESOURCE records (resources.h). */
#include "resources.h"

#include <string.h>

#include "tbr/records.h"

void res_init(struct resource_table *rt, struct rec_status *st) { rt->st = st; }
void res_new_frame(struct resource_table *rt) { tbr_idset_clear(&rt->described); }
void res_free(struct resource_table *rt) { tbr_idset_free(&rt->described); }

void res_describe(struct resource_table *rt, const struct tbr_hook_resource *r, const struct rec_sink *out)
{
    if (!r->id || tbr_idset_has(&rt->described, r->id)) return;
    if (!rt->st->ok) return;
    if (tbr_idset_add(&rt->described, r->id) < 0) {
        rec_fail(rt->st, "out of memory");
        return;
    }
    tbr_rec_resource rec;
    memset(&rec, 0, sizeof(rec));
    rec.id = r->id;
    rec.target = r->target;
    rec.format = r->format;
    rec.width = r->width;
    rec.height = r->height;
    rec.depth = r->depth;
    rec.array_size = r->array_size;
    rec.last_level = r->last_level;
    rec.nr_samples = r->nr_samples;
    rec.bind = r->bind;
    rec.block_bytes = r->block_bytes;
    rec.is_display_target = r->is_display_target;
    rec_copy_name(rec.format_name, sizeof(rec.format_name), r->format_name);
    tbr_buf *b = sink_buf(out);
    sink_emit(out, TBR_REC_RESOURCE, tbr_rec_resource_encode(b, &rec));
}
