/* passman stub <malloc.h>: glibc's allocator interface. */
#ifndef _PASSMAN_MALLOC_H
#define _PASSMAN_MALLOC_H

#include <stddef.h>
#include <stdio.h>

void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void *reallocarray(void *, size_t, size_t);
void free(void *);
void *memalign(size_t, size_t);
void *valloc(size_t);
void *pvalloc(size_t);
size_t malloc_usable_size(void *);
int malloc_trim(size_t);
int mallopt(int, int);
void malloc_stats(void);

#define M_MXFAST 1
#define M_NLBLKS 2
#define M_GRAIN 3
#define M_KEEP 4
#define M_TRIM_THRESHOLD -1
#define M_TOP_PAD -2
#define M_MMAP_THRESHOLD -3
#define M_MMAP_MAX -4
#define M_CHECK_ACTION -5
#define M_PERTURB -6
#define M_ARENA_TEST -7
#define M_ARENA_MAX -8

#endif
