/* passman stub <sys/time.h>: struct timeval, gettimeofday, interval timers. */
#ifndef _PASSMAN_SYS_TIME_H
#define _PASSMAN_SYS_TIME_H

/* glibc's <sys/time.h> includes <sys/select.h>: time_t, suseconds_t,
   struct timeval, struct timespec, fd_set, select. */
#include <sys/select.h>

struct timezone {
    int tz_minuteswest;
    int tz_dsttime;
};

struct itimerval {
    struct timeval it_interval;
    struct timeval it_value;
};

enum __itimer_which { ITIMER_REAL = 0, ITIMER_VIRTUAL = 1, ITIMER_PROF = 2 };
#define ITIMER_REAL ITIMER_REAL
#define ITIMER_VIRTUAL ITIMER_VIRTUAL
#define ITIMER_PROF ITIMER_PROF
#ifdef _GNU_SOURCE
typedef enum __itimer_which __itimer_which_t;
#else
typedef int __itimer_which_t;
#endif

int gettimeofday(struct timeval *restrict, void *restrict);
int settimeofday(const struct timeval *, const struct timezone *);
int getitimer(__itimer_which_t, struct itimerval *);
int setitimer(__itimer_which_t, const struct itimerval *restrict, struct itimerval *restrict);
int utimes(const char *, const struct timeval[2]);

/* timeval arithmetic, as glibc spells it (statement macros, no extensions). */
#define timerisset(tvp) ((tvp)->tv_sec || (tvp)->tv_usec)
#define timerclear(tvp) ((tvp)->tv_sec = (tvp)->tv_usec = 0)
#define timercmp(a, b, CMP) \
  (((a)->tv_sec == (b)->tv_sec) ? \
   ((a)->tv_usec CMP (b)->tv_usec) : \
   ((a)->tv_sec CMP (b)->tv_sec))
#define timeradd(a, b, result) \
  do { \
    (result)->tv_sec = (a)->tv_sec + (b)->tv_sec; \
    (result)->tv_usec = (a)->tv_usec + (b)->tv_usec; \
    if ((result)->tv_usec >= 1000000) \
      { \
        ++(result)->tv_sec; \
        (result)->tv_usec -= 1000000; \
      } \
  } while (0)
#define timersub(a, b, result) \
  do { \
    (result)->tv_sec = (a)->tv_sec - (b)->tv_sec; \
    (result)->tv_usec = (a)->tv_usec - (b)->tv_usec; \
    if ((result)->tv_usec < 0) { \
      --(result)->tv_sec; \
      (result)->tv_usec += 1000000; \
    } \
  } while (0)

#endif
