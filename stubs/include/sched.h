/* passman stub <sched.h>: scheduling; CPU sets with _GNU_SOURCE, as glibc. */
#ifndef _PASSMAN_SCHED_H
#define _PASSMAN_SCHED_H

#include <sys/types.h>
#include <time.h>

#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RR 2

struct sched_param {
    int sched_priority;
};

typedef unsigned long __cpu_mask;
typedef struct {
    __cpu_mask __bits[1024 / (8 * sizeof(__cpu_mask))];
} cpu_set_t;

int sched_setparam(pid_t, const struct sched_param *);
int sched_getparam(pid_t, struct sched_param *);
int sched_setscheduler(pid_t, int, const struct sched_param *);
int sched_getscheduler(pid_t);
int sched_yield(void);
int sched_get_priority_max(int);
int sched_get_priority_min(int);
int sched_rr_get_interval(pid_t, struct timespec *);

#ifdef _GNU_SOURCE
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define SCHED_RESET_ON_FORK 0x40000000
#define CPU_SETSIZE 1024
#define CPU_ZERO(cpusetp) __passman_cpu_zero(sizeof(cpu_set_t), cpusetp)
#define CPU_SET(cpu, cpusetp) __passman_cpu_set(cpu, sizeof(cpu_set_t), cpusetp)
#define CPU_CLR(cpu, cpusetp) __passman_cpu_clr(cpu, sizeof(cpu_set_t), cpusetp)
#define CPU_ISSET(cpu, cpusetp) __passman_cpu_isset(cpu, sizeof(cpu_set_t), cpusetp)
#define CPU_COUNT(cpusetp) __sched_cpucount(sizeof(cpu_set_t), cpusetp)
int __sched_cpucount(size_t, const cpu_set_t *);
int sched_getcpu(void);
int sched_setaffinity(pid_t, size_t, const cpu_set_t *);
int sched_getaffinity(pid_t, size_t, cpu_set_t *);
#endif

#endif
