/* passman stub <sys/types.h>: POSIX types with x86-64 glibc definitions. */
#ifndef _PASSMAN_SYS_TYPES_H
#define _PASSMAN_SYS_TYPES_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_ssize_t
#define __passman_ssize_t
typedef long ssize_t;
#endif
#ifndef __passman_off_t
#define __passman_off_t
typedef long off_t;
#endif
#ifndef __passman_pid_t
#define __passman_pid_t
typedef int pid_t;
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
#ifndef __passman_suseconds_t
#define __passman_suseconds_t
typedef long suseconds_t;
#endif
#ifndef __passman_useconds_t
#define __passman_useconds_t
typedef unsigned int useconds_t;
#endif
#ifndef __passman_id_types
#define __passman_id_types
typedef unsigned int uid_t;
typedef unsigned int gid_t;
#endif
typedef unsigned int mode_t;
typedef unsigned int id_t;
typedef unsigned long dev_t;
typedef unsigned long ino_t;
typedef unsigned long nlink_t;
typedef long blksize_t;
typedef long blkcnt_t;
#ifndef __passman_fsblkcnt_t
#define __passman_fsblkcnt_t
typedef unsigned long fsblkcnt_t;
typedef unsigned long fsfilcnt_t;
#endif
typedef int key_t;
typedef long loff_t;
typedef int daddr_t;
typedef char *caddr_t;
typedef struct { int __val[2]; } fsid_t;

/* BSD and System V names. */
typedef unsigned char u_char;
typedef unsigned short u_short;
typedef unsigned int u_int;
typedef unsigned long u_long;
typedef long quad_t;
typedef unsigned long u_quad_t;
typedef unsigned long ulong;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned char u_int8_t;
typedef unsigned short u_int16_t;
typedef unsigned int u_int32_t;
typedef unsigned long u_int64_t;
typedef long register_t;

/* glibc's <sys/types.h> also provides the signed exact-width types. */
#ifndef __passman_intN_t
#define __passman_intN_t
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
#endif

/* glibc's <sys/types.h> also includes <sys/select.h> and the pthread types. */
#include <sys/select.h>
#include <bits/pthreadtypes.h>

#endif
