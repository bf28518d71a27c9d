/* passman stub <threads.h>: C11 threads, x86-64 glibc layout. */
#ifndef _PASSMAN_THREADS_H
#define _PASSMAN_THREADS_H

#include <time.h>

#define thread_local _Thread_local
#define TSS_DTOR_ITERATIONS 4
#define ONCE_FLAG_INIT { 0 }

typedef unsigned long thrd_t;
typedef int (*thrd_start_t)(void *);
typedef unsigned int tss_t;
typedef void (*tss_dtor_t)(void *);
typedef struct {
    int __data;
} once_flag;
typedef union {
    char __size[40];
    long __align;
} mtx_t;
typedef union {
    char __size[48];
    long long __align;
} cnd_t;

enum {
    thrd_success = 0,
    thrd_busy = 1,
    thrd_error = 2,
    thrd_nomem = 3,
    thrd_timedout = 4
};
enum {
    mtx_plain = 0,
    mtx_recursive = 1,
    mtx_timed = 2
};

int thrd_create(thrd_t *, thrd_start_t, void *);
int thrd_equal(thrd_t, thrd_t);
thrd_t thrd_current(void);
int thrd_sleep(const struct timespec *, struct timespec *);
_Noreturn void thrd_exit(int);
int thrd_detach(thrd_t);
int thrd_join(thrd_t, int *);
void thrd_yield(void);
int mtx_init(mtx_t *, int);
int mtx_lock(mtx_t *);
int mtx_timedlock(mtx_t *restrict, const struct timespec *restrict);
int mtx_trylock(mtx_t *);
int mtx_unlock(mtx_t *);
void mtx_destroy(mtx_t *);
void call_once(once_flag *, void (*)(void));
int cnd_init(cnd_t *);
int cnd_signal(cnd_t *);
int cnd_broadcast(cnd_t *);
int cnd_wait(cnd_t *, mtx_t *);
int cnd_timedwait(cnd_t *restrict, mtx_t *restrict, const struct timespec *restrict);
void cnd_destroy(cnd_t *);
int tss_create(tss_t *, tss_dtor_t);
void *tss_get(tss_t);
int tss_set(tss_t, void *);
void tss_delete(tss_t);

#endif
