/* passman stub <semaphore.h>: POSIX semaphores, x86-64 glibc layout. */
#ifndef _PASSMAN_SEMAPHORE_H
#define _PASSMAN_SEMAPHORE_H

#include <sys/types.h>
#include <time.h>

typedef union {
    char __size[32];
    long __align;
} sem_t;

#define SEM_FAILED ((sem_t *) 0)

int sem_init(sem_t *, int, unsigned int);
int sem_destroy(sem_t *);
sem_t *sem_open(const char *, int, ...);
int sem_close(sem_t *);
int sem_unlink(const char *);
int sem_wait(sem_t *);
int sem_timedwait(sem_t *restrict, const struct timespec *restrict);
int sem_trywait(sem_t *);
int sem_post(sem_t *);
int sem_getvalue(sem_t *restrict, int *restrict);

#endif
