/* passman stub <sys/stat.h>: struct stat and file modes, x86-64 glibc layout. */
#ifndef _PASSMAN_SYS_STAT_H
#define _PASSMAN_SYS_STAT_H

#include <sys/types.h>
#include <time.h>

struct stat {
    dev_t st_dev;
    ino_t st_ino;
    nlink_t st_nlink;
    mode_t st_mode;
    uid_t st_uid;
    gid_t st_gid;
    int __pad0;
    dev_t st_rdev;
    off_t st_size;
    blksize_t st_blksize;
    blkcnt_t st_blocks;
    struct timespec st_atim;
    struct timespec st_mtim;
    struct timespec st_ctim;
    long __glibc_reserved[3];
};
#define st_atime st_atim.tv_sec
#define st_mtime st_mtim.tv_sec
#define st_ctime st_ctim.tv_sec

/* File types and permission bits. */
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFCHR 0020000
#define S_IFBLK 0060000
#define S_IFREG 0100000
#define S_IFIFO 0010000
#define S_IFLNK 0120000
#define S_IFSOCK 0140000
#define S_ISUID 04000
#define S_ISGID 02000
#define S_ISVTX 01000
#define S_IRUSR 0400
#define S_IWUSR 0200
#define S_IXUSR 0100
#define S_IRWXU (0400|0200|0100)
#define S_IRGRP (0400 >> 3)
#define S_IWGRP (0200 >> 3)
#define S_IXGRP (0100 >> 3)
#define S_IRWXG ((0400|0200|0100) >> 3)
#define S_IROTH ((0400 >> 3) >> 3)
#define S_IWOTH ((0200 >> 3) >> 3)
#define S_IXOTH ((0100 >> 3) >> 3)
#define S_IRWXO (((0400|0200|0100) >> 3) >> 3)
#define S_ISDIR(mode) ((((mode)) & 0170000) == (0040000))
#define S_ISCHR(mode) ((((mode)) & 0170000) == (0020000))
#define S_ISBLK(mode) ((((mode)) & 0170000) == (0060000))
#define S_ISREG(mode) ((((mode)) & 0170000) == (0100000))
#define S_ISFIFO(mode) ((((mode)) & 0170000) == (0010000))
#define S_ISLNK(mode) ((((mode)) & 0170000) == (0120000))
#define S_ISSOCK(mode) ((((mode)) & 0170000) == (0140000))
#define UTIME_NOW ((1l << 30) - 1l)
#define UTIME_OMIT ((1l << 30) - 2l)

int stat(const char *restrict, struct stat *restrict);
int fstat(int, struct stat *);
int lstat(const char *restrict, struct stat *restrict);
int fstatat(int, const char *restrict, struct stat *restrict, int);
int chmod(const char *, mode_t);
int fchmod(int, mode_t);
int fchmodat(int, const char *, mode_t, int);
mode_t umask(mode_t);
int mkdir(const char *, mode_t);
int mkdirat(int, const char *, mode_t);
int mkfifo(const char *, mode_t);
int mknod(const char *, mode_t, dev_t);
int utimensat(int, const char *, const struct timespec[2], int);
int futimens(int, const struct timespec[2]);

#endif
