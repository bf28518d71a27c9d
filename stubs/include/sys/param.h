/* passman stub <sys/param.h>: old-style system parameters (glibc, Linux). */
#ifndef _PASSMAN_SYS_PARAM_H
#define _PASSMAN_SYS_PARAM_H

#include <stddef.h>
#include <sys/types.h>
#include <limits.h>
#include <endian.h>
#include <signal.h>

/* <bits/param.h> and <linux/param.h>. */
#define HZ 100
#define EXEC_PAGESIZE 4096
#define NOGROUP (-1)
#define MAXHOSTNAMELEN 64
#define MAXSYMLINKS 20
#define NOFILE 256
#define NCARGS 131072

#define NBBY CHAR_BIT
#define NGROUPS NGROUPS_MAX
#define CANBSIZ 255
#define MAXPATHLEN PATH_MAX
#define NODEV ((dev_t) -1)
#define DEV_BSIZE 512

/* Bit map related macros. */
#define setbit(a,i) ((a)[(i)/NBBY] |= 1<<((i)%NBBY))
#define clrbit(a,i) ((a)[(i)/NBBY] &= ~(1<<((i)%NBBY)))
#define isset(a,i) ((a)[(i)/NBBY] & (1<<((i)%NBBY)))
#define isclr(a,i) (((a)[(i)/NBBY] & (1<<((i)%NBBY))) == 0)

/* Macros for counting and rounding. */
#define howmany(x, y) (((x) + ((y) - 1)) / (y))
#define roundup(x, y) (__builtin_constant_p (y) && powerof2 (y) \
                       ? (((x) + (y) - 1) & ~((y) - 1)) \
                       : ((((x) + ((y) - 1)) / (y)) * (y)))
#define powerof2(x) ((((x) - 1) & (x)) == 0)

/* Macros for min/max. */
#define MIN(a,b) (((a)<(b))?(a):(b))
#define MAX(a,b) (((a)>(b))?(a):(b))

#endif
