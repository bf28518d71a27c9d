/* passman stub <search.h>: hash tables, binary trees and linear search (glibc). */
#ifndef _PASSMAN_SEARCH_H
#define _PASSMAN_SEARCH_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif

#ifdef _GNU_SOURCE
struct qelem {
    struct qelem *q_forw;
    struct qelem *q_back;
    char q_data[1];
};
#endif

void insque(void *, void *);
void remque(void *);

#ifdef _GNU_SOURCE
typedef int (*comparison_fn_t)(const void *, const void *);
#endif

/* Hash tables. */
typedef enum {
    FIND,
    ENTER
} ACTION;

typedef struct entry {
    char *key;
    void *data;
} ENTRY;

struct _ENTRY;

ENTRY *hsearch(ENTRY, ACTION);
int hcreate(size_t);
void hdestroy(void);

#ifdef _GNU_SOURCE
struct hsearch_data {
    struct _ENTRY *table;
    unsigned int size;
    unsigned int filled;
};

int hsearch_r(ENTRY, ACTION, ENTRY **, struct hsearch_data *);
int hcreate_r(size_t, struct hsearch_data *);
void hdestroy_r(struct hsearch_data *);
#endif

/* Binary trees. */
typedef enum {
    preorder,
    postorder,
    endorder,
    leaf
} VISIT;

void *tsearch(const void *, void **, int (*)(const void *, const void *));
void *tfind(const void *, void *const *, int (*)(const void *, const void *));
void *tdelete(const void *restrict, void **restrict, int (*)(const void *, const void *));
void twalk(const void *, void (*)(const void *, VISIT, int));
#ifdef _GNU_SOURCE
void twalk_r(const void *, void (*)(const void *, VISIT, void *), void *);
void tdestroy(void *, void (*)(void *));
#endif

/* Linear search. */
void *lfind(const void *, const void *, size_t *, size_t,
            int (*)(const void *, const void *));
void *lsearch(const void *, void *, size_t *, size_t,
              int (*)(const void *, const void *));

#endif
