/* passman stub <time.h>: glibc prototypes and x86-64 types/constants. */
#ifndef _PASSMAN_TIME_H
#define _PASSMAN_TIME_H

/* Types. */
#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_time_t
#define __passman_time_t
typedef long time_t;
#endif
#ifndef __passman_clock_t
#define __passman_clock_t
typedef long clock_t;
#endif
#ifndef __passman_clockid_t
#define __passman_clockid_t
typedef int clockid_t;
#endif
#ifndef __passman_timer_t
#define __passman_timer_t
typedef void *timer_t;
#endif
#ifndef __passman_pid_t
#define __passman_pid_t
typedef int pid_t;
#endif

#ifndef __passman_struct_timespec
#define __passman_struct_timespec
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};
#endif

struct tm {
    int tm_sec;
    int tm_min;
    int tm_hour;
    int tm_mday;
    int tm_mon;
    int tm_year;
    int tm_wday;
    int tm_yday;
    int tm_isdst;
    long tm_gmtoff;
    const char *tm_zone;
};

struct itimerspec {
    struct timespec it_interval;
    struct timespec it_value;
};

/* Constants. */
#ifndef NULL
#define NULL ((void*)0)
#endif
#define CLOCKS_PER_SEC ((clock_t) 1000000)
#define TIME_UTC 1
#define CLOCK_REALTIME 0
#define CLOCK_MONOTONIC 1
#define CLOCK_PROCESS_CPUTIME_ID 2
#define CLOCK_THREAD_CPUTIME_ID 3
#define CLOCK_MONOTONIC_RAW 4
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_BOOTTIME 7
#define TIMER_ABSTIME 1

/* Processor and calendar time. */
clock_t clock(void);
time_t time(time_t *);
double difftime(time_t, time_t);
time_t mktime(struct tm *);
time_t timegm(struct tm *);
int timespec_get(struct timespec *, int);
size_t strftime(char *restrict, size_t, const char *restrict, const struct tm *restrict);
struct tm *gmtime(const time_t *);
struct tm *localtime(const time_t *);
struct tm *gmtime_r(const time_t *restrict, struct tm *restrict);
struct tm *localtime_r(const time_t *restrict, struct tm *restrict);
char *asctime(const struct tm *);
char *ctime(const time_t *);
char *asctime_r(const struct tm *restrict, char *restrict);
char *ctime_r(const time_t *restrict, char *restrict);
void tzset(void);
extern char *tzname[2];
extern int daylight;
extern long timezone;

/* POSIX clocks and sleeping. */
int nanosleep(const struct timespec *, struct timespec *);
int clock_getres(clockid_t, struct timespec *);
int clock_gettime(clockid_t, struct timespec *);
int clock_settime(clockid_t, const struct timespec *);
int clock_nanosleep(clockid_t, int, const struct timespec *, struct timespec *);
int clock_getcpuclockid(pid_t, clockid_t *);

#endif
