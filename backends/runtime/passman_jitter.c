/* passman_jitter.c: a race amplifier for differential runs of OpenMP programs.
 *
 * Linked into a test build with -Wl,--wrap=<each entry point below> (see passman/jitter.py):
 * every call of the program to one of libgomp's entry points goes to __wrap_<name>, which
 * sleeps for a random while (0 to 200 microseconds, one call in 2^PASSMAN_JITTER_SHIFT, 4 by
 * default) where a thread starts work, then calls the real one (__real_<name>):
 *
 *   - a task, when it starts running (the task's function is wrapped; its data is copied
 *     behind a header that names the function);
 *   - a parallel region, in each thread as it starts;
 *   - a barrier, before and after it (the threads leave it out of step);
 *   - a single construct, after the thread knows whether it runs it;
 *   - omp_get_thread_num (called where a static loop shares out its iterations).
 *
 * On a machine of two cores, threads that run in step seldom show a missing task edge or a
 * missing barrier; the delays make the other orders happen. PASSMAN_JITTER_SEED seeds the
 * draws (each thread its own stream). Nothing else changes: the program computes what it
 * computes without the shim, if its synchronisation is right. (The real entry points are
 * strong references: a weak one would not pull its member out of a static libgomp.a.)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef void (*passman_fn)(void *);
typedef void (*passman_copy)(void *, void *);

static unsigned long long jitter_seed;
static unsigned jitter_mask = 3;
static unsigned long long jitter_threads;
static __thread unsigned long long jitter_state;

__attribute__((constructor)) static void jitter_init(void)
{
    const char *seed = getenv("PASSMAN_JITTER_SEED");
    const char *shift = getenv("PASSMAN_JITTER_SHIFT");
    jitter_seed = seed ? strtoull(seed, NULL, 10) : (unsigned long long)time(NULL);
    if (shift != NULL && atoi(shift) >= 0 && atoi(shift) < 16)
        jitter_mask = (1u << atoi(shift)) - 1;
}

static unsigned long long jitter_draw(void)
{
    if (jitter_state == 0) {
        unsigned long long k = __atomic_add_fetch(&jitter_threads, 1, __ATOMIC_RELAXED);
        jitter_state = (jitter_seed + k * 0x9E3779B97F4A7C15ULL) | 1;
    }
    jitter_state ^= jitter_state >> 12; /* xorshift64* */
    jitter_state ^= jitter_state << 25;
    jitter_state ^= jitter_state >> 27;
    return jitter_state * 2685821657736338717ULL;
}

static void jitter(void)
{
    unsigned long long r = jitter_draw();
    if ((r >> 40) & jitter_mask)
        return;
    struct timespec pause = {0, (long)((r >> 8) % 200000)};
    nanosleep(&pause, NULL);
}

/* Tasks: the copy libgomp keeps of a task's data starts with this header. */
struct jitter_task {
    passman_fn fn;
    passman_copy copy;
    long size;
    long offset;
    void *data;
};

static void jitter_task_run(void *p)
{
    struct jitter_task *h = p;
    jitter();
    h->fn((char *)p + h->offset);
}

static void jitter_task_copy(void *dst, void *src)
{
    struct jitter_task *h = src;
    memcpy(dst, h, sizeof *h);
    if (h->copy)
        h->copy((char *)dst + h->offset, h->data);
    else
        memcpy((char *)dst + h->offset, h->data, (size_t)h->size);
}

void __real_GOMP_task(passman_fn, void *, passman_copy, long, long, bool, unsigned, void **, int, void *);
void __wrap_GOMP_task(passman_fn fn, void *data, passman_copy copy, long size, long align, bool if_clause,
                      unsigned flags, void **depend, int priority, void *detach)
{
    long a = align > (long)_Alignof(struct jitter_task) ? align : (long)_Alignof(struct jitter_task);
    long offset = ((long)sizeof(struct jitter_task) + a - 1) / a * a;
    struct jitter_task h = {fn, copy, size, offset, data};
    __real_GOMP_task(jitter_task_run, &h, jitter_task_copy, offset + size, a, if_clause, flags, depend,
                     priority, detach);
}

/* Parallel regions: the region's data is shared, not copied, so the pair lives on the stack
   of the thread that opens the region, until the region ends. */
struct jitter_region {
    passman_fn fn;
    void *data;
};

static void jitter_region_run(void *p)
{
    struct jitter_region *r = p;
    jitter();
    r->fn(r->data);
}

void __real_GOMP_parallel(passman_fn, void *, unsigned, unsigned);
void __wrap_GOMP_parallel(passman_fn fn, void *data, unsigned threads, unsigned flags)
{
    struct jitter_region r = {fn, data};
    __real_GOMP_parallel(jitter_region_run, &r, threads, flags);
}

void __real_GOMP_barrier(void);
void __wrap_GOMP_barrier(void)
{
    jitter();
    __real_GOMP_barrier();
    jitter();
}

bool __real_GOMP_single_start(void);
bool __wrap_GOMP_single_start(void)
{
    bool mine = __real_GOMP_single_start();
    jitter();
    return mine;
}

int __real_omp_get_thread_num(void);
int __wrap_omp_get_thread_num(void)
{
    jitter();
    return __real_omp_get_thread_num();
}
