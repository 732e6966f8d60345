/* Minimal JSON reader (DOM) for stats.json and friends. Numbers are doubles. */
#ifndef TBR_PIC_JSON_H
#define TBR_PIC_JSON_H
#include <stddef.h>

typedef enum { PJ_NULL, PJ_BOOL, PJ_NUM, PJ_STR, PJ_ARR, PJ_OBJ } pj_type;

typedef struct pj_value pj_value;
struct pj_value {
    pj_type type;
    double num;      /* PJ_NUM; PJ_BOOL: 0/1 */
    char *str;       /* PJ_STR */
    size_t n;        /* PJ_ARR / PJ_OBJ: element count */
    pj_value *items; /* PJ_ARR / PJ_OBJ values */
    char **keys;     /* PJ_OBJ keys */
};

/* Parse text; NULL on error with a message (with line number) in err. */
pj_value *pj_parse(const char *text, size_t len, char *err, size_t err_size);
/* Read and parse a file; the message names the file. */
pj_value *pj_parse_file(const char *path, char *err, size_t err_size);
void pj_free(pj_value *v);

const pj_value *pj_get(const pj_value *obj, const char *key);      /* NULL if absent */
const pj_value *pj_path(const pj_value *root, const char *dotted); /* "a.b.c", keys may
                                   contain dots: the longest matching key is tried first */
const pj_value *pj_at(const pj_value *arr, size_t i);
int pj_number(const pj_value *v, double *out); /* 0 if a number (or bool) */
#endif
