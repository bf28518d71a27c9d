/* PolyBench-like utilities: aligned allocation, cache flushing, timers with
   gettimeofday and getrusage, scheduling priority. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "polybench.h"

double polybench_t_start, polybench_t_end;

#define POLYBENCH_CACHE_SIZE_KB 512

static double rtclock(void)
{
    struct timeval tv;
    int stat = gettimeofday(&tv, NULL);
    if (stat != 0)
        fprintf(stderr, "error return from gettimeofday: %d\n", stat);
    return tv.tv_sec + tv.tv_usec * 1.0e-6;
}

void polybench_flush_cache(void)
{
    int cs = POLYBENCH_CACHE_SIZE_KB * 1024 / (int)sizeof(double);
    double *flush = calloc((size_t)cs, sizeof(double));
    double tmp = 0.0;
    for (int i = 0; i < cs; i++)
        tmp += flush[i];
    if (tmp > 10.0)
        fprintf(stderr, "cache flush: unexpected sum\n");
    free(flush);
}

void polybench_prepare_instruments(void)
{
    polybench_flush_cache();
    struct sched_param param;
    memset(&param, 0, sizeof param);
    param.sched_priority = sched_get_priority_min(SCHED_OTHER);
    (void)sched_setscheduler(0, SCHED_OTHER, &param);
    sched_yield();
}

void polybench_timer_start(void)
{
    polybench_prepare_instruments();
    polybench_t_start = rtclock();
}

void polybench_timer_stop(void)
{
    polybench_t_end = rtclock();
}

double polybench_timer_elapsed(void)
{
    return polybench_t_end - polybench_t_start;
}

long polybench_peak_memory_kb(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0)
        return -1;
    struct rlimit lim;
    if (getrlimit(RLIMIT_STACK, &lim) == 0 && lim.rlim_cur == RLIM_INFINITY)
        return usage.ru_maxrss;
    return usage.ru_maxrss;
}

void *polybench_alloc_data(unsigned long long n, int elt_size)
{
    void *ret = NULL;
    size_t bytes = (size_t)n * (size_t)elt_size;
    int err = posix_memalign(&ret, 4096, bytes);
    if (!ret || err) {
        fprintf(stderr, "[PolyBench] posix_memalign: cannot allocate memory\n");
        exit(1);
    }
    memset(ret, 0, bytes);
    return ret;
}
