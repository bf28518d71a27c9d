/* A PolyBench-like harness header: problem sizes chosen with
   -DMINI_DATASET / -DSMALL_DATASET / -DLARGE_DATASET, array allocation,
   timing and cache flushing helpers (utilities/polybench.c). */
#ifndef POLYBENCH_H
#define POLYBENCH_H

#include <stddef.h>

#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) && !defined(LARGE_DATASET)
#define SMALL_DATASET
#endif

#ifdef MINI_DATASET
#define NI 20
#define NJ 25
#define NK 30
#endif
#ifdef SMALL_DATASET
#define NI 60
#define NJ 70
#define NK 80
#endif
#ifdef LARGE_DATASET
#define NI 200
#define NJ 220
#define NK 240
#endif

#define DATA_TYPE double
#define DATA_PRINTF_MODIFIER "%0.2lf "

#define POLYBENCH_ARRAY(x) (*x)
#define POLYBENCH_ALLOC_2D_ARRAY(n1, n2, type) \
    (type(*)[n1][n2]) polybench_alloc_data((n1) * (n2), sizeof(type))
#define POLYBENCH_FREE_ARRAY(x) free((void *)(x))

extern double polybench_t_start, polybench_t_end;

void *polybench_alloc_data(unsigned long long n, int elt_size);
void polybench_flush_cache(void);
void polybench_prepare_instruments(void);
void polybench_timer_start(void);
void polybench_timer_stop(void);
double polybench_timer_elapsed(void);
long polybench_peak_memory_kb(void);

#endif
