/*
 * tbr/out_dir.h - an output directory that is all of one run (tbr-sim -o, tbr-replay -o).
 *
 * A run writes OUT.tmp-PID (a sibling of OUT, so the final rename stays on one file system)
 * and renames it to OUT only when every file in it is complete: OUT is either absent, the
 * previous complete result, or this run's complete result, never a mix. A run holds an
 * exclusive flock on OUT.lock from begin to commit/abandon, so a second writer of the same
 * OUT fails at once. Holding the lock also proves that every OUT.tmp-N present is the
 * leftover of a killed run (a live writer would hold the lock): begin removes them. Readers
 * recognise an unfinished directory by its name (tbr_out_dir_is_unfinished).
 * docs/timing-model.md "Output directory".
 */
#ifndef TBR_OUT_DIR_H
#define TBR_OUT_DIR_H

#include <limits.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    char final_path[PATH_MAX - 64]; /* OUT as given */
    char tmp_path[PATH_MAX];        /* OUT.tmp-PID: where the run writes */
    char lock_path[PATH_MAX];       /* OUT.lock */
    int lock_fd;                    /* -1 when not held */
    int force;                      /* replace an existing non-empty OUT */
} tbr_out_dir;

/* Takes OUT's lock, removes stale OUT.tmp-N left by killed runs, refuses an existing OUT
 * that is not an empty directory unless force, and creates OUT.tmp-PID. 0, or -1 with the
 * reason in err (the path and the OS's reason named). */
int tbr_out_dir_begin(tbr_out_dir *d, const char *out, int force, char *err, size_t errlen);

/* Publishes OUT.tmp-PID as OUT (an existing OUT is replaced: begin checked that it was empty
 * or force was given) and releases the lock. 0, or -1 with err (the temporary is removed). */
int tbr_out_dir_commit(tbr_out_dir *d, char *err, size_t errlen);

/* A failed run: removes OUT.tmp-PID and releases the lock; OUT is untouched. */
void tbr_out_dir_abandon(tbr_out_dir *d);

/* Keeps OUT.tmp-PID under another name (e.g. OUT.failed for inspection; an existing one is
 * replaced) and releases the lock. 0, or -1 (errno) when the rename failed: then the
 * temporary is removed. */
int tbr_out_dir_keep_as(tbr_out_dir *d, const char *name);

/* SIGINT, SIGTERM and SIGHUP remove OUT.tmp-PID and the lock file, then end the process by
 * the same signal. For a process without a child to stop first (tbr-sim). */
void tbr_out_dir_cleanup_on_signal(const tbr_out_dir *d);

/* 1 when DIR's last path component is the name of an unfinished or abandoned output
 * (NAME.tmp-N...), else 0. */
int tbr_out_dir_is_unfinished(const char *dir);

/* Removes the tree under path (no error when it does not exist). 0 or -1 (errno). */
int tbr_remove_tree(const char *path);

#ifdef __cplusplus
}
#endif

#endif
