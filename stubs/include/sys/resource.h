/* passman stub <sys/resource.h>: resource limits and usage, x86-64 glibc. */
#ifndef _PASSMAN_SYS_RESOURCE_H
#define _PASSMAN_SYS_RESOURCE_H

#include <sys/types.h>
#include <sys/time.h>

typedef unsigned long __rlim_t;
typedef __rlim_t rlim_t;

enum __rlimit_resource {
    RLIMIT_CPU = 0,
    RLIMIT_FSIZE = 1,
    RLIMIT_DATA = 2,
    RLIMIT_STACK = 3,
    RLIMIT_CORE = 4,
    __RLIMIT_RSS = 5,
    RLIMIT_NOFILE = 7,
    __RLIMIT_OFILE = RLIMIT_NOFILE,
    RLIMIT_AS = 9,
    __RLIMIT_NPROC = 6,
    __RLIMIT_MEMLOCK = 8,
    __RLIMIT_LOCKS = 10,
    __RLIMIT_SIGPENDING = 11,
    __RLIMIT_MSGQUEUE = 12,
    __RLIMIT_NICE = 13,
    __RLIMIT_RTPRIO = 14,
    __RLIMIT_RTTIME = 15,
    __RLIMIT_NLIMITS = 16,
    __RLIM_NLIMITS = __RLIMIT_NLIMITS
};
#define RLIMIT_CPU RLIMIT_CPU
#define RLIMIT_FSIZE RLIMIT_FSIZE
#define RLIMIT_DATA RLIMIT_DATA
#define RLIMIT_STACK RLIMIT_STACK
#define RLIMIT_CORE RLIMIT_CORE
#define RLIMIT_RSS __RLIMIT_RSS
#define RLIMIT_NOFILE RLIMIT_NOFILE
#define RLIMIT_OFILE __RLIMIT_OFILE
#define RLIMIT_AS RLIMIT_AS
#define RLIMIT_NPROC __RLIMIT_NPROC
#define RLIMIT_MEMLOCK __RLIMIT_MEMLOCK
#define RLIMIT_LOCKS __RLIMIT_LOCKS
#define RLIMIT_SIGPENDING __RLIMIT_SIGPENDING
#define RLIMIT_MSGQUEUE __RLIMIT_MSGQUEUE
#define RLIMIT_NICE __RLIMIT_NICE
#define RLIMIT_RTPRIO __RLIMIT_RTPRIO
#define RLIMIT_RTTIME __RLIMIT_RTTIME
#define RLIMIT_NLIMITS __RLIMIT_NLIMITS
#define RLIM_NLIMITS __RLIM_NLIMITS
#define RLIM_INFINITY ((__rlim_t) -1)
#define RLIM_SAVED_MAX ((__rlim_t) -1)
#define RLIM_SAVED_CUR ((__rlim_t) -1)

struct rlimit {
    rlim_t rlim_cur;
    rlim_t rlim_max;
};

enum __rusage_who { RUSAGE_SELF = 0, RUSAGE_CHILDREN = -1 };
#define RUSAGE_SELF RUSAGE_SELF
#define RUSAGE_CHILDREN RUSAGE_CHILDREN

/* glibc wraps each long member in a union with a word of the same size. */
struct rusage {
    struct timeval ru_utime;
    struct timeval ru_stime;
    long ru_maxrss;
    long ru_ixrss;
    long ru_idrss;
    long ru_isrss;
    long ru_minflt;
    long ru_majflt;
    long ru_nswap;
    long ru_inblock;
    long ru_oublock;
    long ru_msgsnd;
    long ru_msgrcv;
    long ru_nsignals;
    long ru_nvcsw;
    long ru_nivcsw;
};

#define PRIO_MIN -20
#define PRIO_MAX 20
enum __priority_which { PRIO_PROCESS = 0, PRIO_PGRP = 1, PRIO_USER = 2 };
#define PRIO_PROCESS PRIO_PROCESS
#define PRIO_PGRP PRIO_PGRP
#define PRIO_USER PRIO_USER

#ifdef _GNU_SOURCE
typedef enum __rlimit_resource __rlimit_resource_t;
typedef enum __rusage_who __rusage_who_t;
typedef enum __priority_which __priority_which_t;
#else
typedef int __rlimit_resource_t;
typedef int __rusage_who_t;
typedef int __priority_which_t;
#endif

int getrlimit(__rlimit_resource_t, struct rlimit *);
int setrlimit(__rlimit_resource_t, const struct rlimit *);
int getrusage(__rusage_who_t, struct rusage *);
int getpriority(__priority_which_t, id_t);
int setpriority(__priority_which_t, id_t, int);

#endif
