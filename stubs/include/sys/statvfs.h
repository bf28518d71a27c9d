/* passman stub <sys/statvfs.h>: file system statistics (glibc, x86-64). */
#ifndef _PASSMAN_SYS_STATVFS_H
#define _PASSMAN_SYS_STATVFS_H

#ifndef __passman_fsblkcnt_t
#define __passman_fsblkcnt_t
typedef unsigned long fsblkcnt_t;
typedef unsigned long fsfilcnt_t;
#endif

struct statvfs {
    unsigned long f_bsize;
    unsigned long f_frsize;
    fsblkcnt_t f_blocks;
    fsblkcnt_t f_bfree;
    fsblkcnt_t f_bavail;
    fsfilcnt_t f_files;
    fsfilcnt_t f_ffree;
    fsfilcnt_t f_favail;
    unsigned long f_fsid;
    unsigned long f_flag;
    unsigned long f_namemax;
    int __f_spare[6];
};

/* f_flag bits (glibc: enumerators with same-named macros). */
enum {
    ST_RDONLY = 1,
    ST_NOSUID = 2
#ifdef _GNU_SOURCE
    ,
    ST_NODEV = 4,
    ST_NOEXEC = 8,
    ST_SYNCHRONOUS = 16,
    ST_MANDLOCK = 64,
    ST_WRITE = 128,
    ST_APPEND = 256,
    ST_IMMUTABLE = 512,
    ST_NOATIME = 1024,
    ST_NODIRATIME = 2048,
    ST_RELATIME = 4096
#endif
};
#define ST_RDONLY ST_RDONLY
#define ST_NOSUID ST_NOSUID
#ifdef _GNU_SOURCE
#define ST_NODEV ST_NODEV
#define ST_NOEXEC ST_NOEXEC
#define ST_SYNCHRONOUS ST_SYNCHRONOUS
#define ST_MANDLOCK ST_MANDLOCK
#define ST_WRITE ST_WRITE
#define ST_APPEND ST_APPEND
#define ST_IMMUTABLE ST_IMMUTABLE
#define ST_NOATIME ST_NOATIME
#define ST_NODIRATIME ST_NODIRATIME
#define ST_RELATIME ST_RELATIME
#endif

int statvfs(const char *restrict, struct statvfs *restrict);
int fstatvfs(int, struct statvfs *);

#endif
