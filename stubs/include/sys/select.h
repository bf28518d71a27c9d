/* passman stub <sys/select.h>: fd_set and select (glibc, x86-64). */
#ifndef _PASSMAN_SYS_SELECT_H
#define _PASSMAN_SYS_SELECT_H

#ifndef __passman_time_t
#define __passman_time_t
typedef long time_t;
#endif
#ifndef __passman_suseconds_t
#define __passman_suseconds_t
typedef long suseconds_t;
#endif
#ifndef __passman_sigset_t
#define __passman_sigset_t
typedef struct { unsigned long __val[16]; } __sigset_t;
#endif
#ifndef __passman_sigset_t_pub
#define __passman_sigset_t_pub
typedef __sigset_t sigset_t;
#endif
#ifndef __passman_struct_timeval
#define __passman_struct_timeval
struct timeval {
    time_t tv_sec;
    suseconds_t tv_usec;
};
#endif
#ifndef __passman_struct_timespec
#define __passman_struct_timespec
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};
#endif

typedef long __fd_mask;
typedef __fd_mask fd_mask;
#if defined _GNU_SOURCE || defined _XOPEN_SOURCE
typedef struct { __fd_mask fds_bits[16]; } fd_set;
#define __FDS_BITS(set) ((set)->fds_bits)
#else
typedef struct { __fd_mask __fds_bits[16]; } fd_set;
#define __FDS_BITS(set) ((set)->__fds_bits)
#endif

#define FD_SETSIZE 1024
#define __NFDBITS (8 * (int) sizeof (__fd_mask))
#define NFDBITS __NFDBITS
#define __FD_ELT(d) ((d) / __NFDBITS)
#define __FD_MASK(d) ((__fd_mask) (1UL << ((d) % __NFDBITS)))
#define FD_SET(fd, fdsetp) ((void) (__FDS_BITS (fdsetp)[__FD_ELT (fd)] |= __FD_MASK (fd)))
#define FD_CLR(fd, fdsetp) ((void) (__FDS_BITS (fdsetp)[__FD_ELT (fd)] &= ~__FD_MASK (fd)))
#define FD_ISSET(fd, fdsetp) ((__FDS_BITS (fdsetp)[__FD_ELT (fd)] & __FD_MASK (fd)) != 0)
#define FD_ZERO(fdsetp) \
  do { \
    unsigned int __i; \
    fd_set *__arr = (fdsetp); \
    for (__i = 0; __i < sizeof (fd_set) / sizeof (__fd_mask); ++__i) \
      __FDS_BITS (__arr)[__i] = 0; \
  } while (0)

int select(int, fd_set *restrict, fd_set *restrict, fd_set *restrict, struct timeval *restrict);
int pselect(int, fd_set *restrict, fd_set *restrict, fd_set *restrict,
            const struct timespec *restrict, const __sigset_t *restrict);

#endif
