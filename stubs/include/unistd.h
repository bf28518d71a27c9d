/* passman stub <unistd.h>: a useful subset of the POSIX API (glibc). */
#ifndef _PASSMAN_UNISTD_H
#define _PASSMAN_UNISTD_H

/* Types. */
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
#ifndef __passman_useconds_t
#define __passman_useconds_t
typedef unsigned int useconds_t;
#endif
#ifndef __passman_id_types
#define __passman_id_types
typedef unsigned int uid_t;
typedef unsigned int gid_t;
#endif
#ifndef __passman_socklen_t
#define __passman_socklen_t
typedef unsigned int socklen_t;
#endif
#ifndef __passman_intptr_t
#define __passman_intptr_t
typedef long intptr_t;
#endif

/* Constants. */
#ifndef NULL
#define NULL ((void*)0)
#endif
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
#define R_OK 4
#define W_OK 2
#define X_OK 1
#define F_OK 0
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* sysconf names (glibc's enum values). */
#define _SC_ARG_MAX 0
#define _SC_CHILD_MAX 1
#define _SC_CLK_TCK 2
#define _SC_NGROUPS_MAX 3
#define _SC_OPEN_MAX 4
#define _SC_PAGESIZE 30
#define _SC_PAGE_SIZE 30
#define _SC_LINE_MAX 43
#define _SC_NPROCESSORS_CONF 83
#define _SC_NPROCESSORS_ONLN 84
#define _SC_PHYS_PAGES 85
#define _SC_AVPHYS_PAGES 86
#define _SC_HOST_NAME_MAX 180
#define _SC_LEVEL1_DCACHE_SIZE 188
#define _SC_LEVEL1_DCACHE_ASSOC 189
#define _SC_LEVEL1_DCACHE_LINESIZE 190
#define _SC_LEVEL2_CACHE_SIZE 191
#define _SC_LEVEL3_CACHE_SIZE 194

/* Sleeping, processes, system information. */
unsigned int sleep(unsigned int);
int usleep(useconds_t);
unsigned int alarm(unsigned int);
int pause(void);
pid_t getpid(void);
pid_t getppid(void);
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
gid_t getegid(void);
pid_t fork(void);
_Noreturn void _exit(int);
int execv(const char *, char *const[]);
int execvp(const char *, char *const[]);
int execve(const char *, char *const[], char *const[]);
int execl(const char *, const char *, ...);
int execlp(const char *, const char *, ...);
long sysconf(int);
long pathconf(const char *, int);
int getpagesize(void);
void *sbrk(intptr_t);
int gethostname(char *, size_t);
int isatty(int);

/* File descriptors and files. */
ssize_t read(int, void *, size_t);
ssize_t write(int, const void *, size_t);
ssize_t pread(int, void *, size_t, off_t);
ssize_t pwrite(int, const void *, size_t, off_t);
off_t lseek(int, off_t, int);
int close(int);
int dup(int);
int dup2(int, int);
int pipe(int[2]);
int fsync(int);
int ftruncate(int, off_t);
int truncate(const char *, off_t);
int access(const char *, int);
int unlink(const char *);
int rmdir(const char *);
int chdir(const char *);
char *getcwd(char *, size_t);
int link(const char *, const char *);
int symlink(const char *, const char *);
ssize_t readlink(const char *restrict, char *restrict, size_t);

/* Option parsing. */
int getopt(int, char *const *, const char *);
extern char *optarg;
extern int optind;
extern int opterr;
extern int optopt;

#endif
