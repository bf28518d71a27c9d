/* passman stub <signal.h> (minimal): handlers, raise/kill, signal sets,
   sigaction.  Linux x86-64 signal numbers. */
#ifndef _PASSMAN_SIGNAL_H
#define _PASSMAN_SIGNAL_H

/* Types. */
#ifndef __passman_pid_t
#define __passman_pid_t
typedef int pid_t;
#endif
#ifndef __passman_sigset_t
#define __passman_sigset_t
typedef struct { unsigned long __val[16]; } __sigset_t;
#endif
#ifndef __passman_sigset_t_pub
#define __passman_sigset_t_pub
typedef __sigset_t sigset_t;
#endif
#ifndef __passman_id_types
#define __passman_id_types
typedef unsigned int uid_t;
typedef unsigned int gid_t;
#endif
#ifndef __passman_time_t
#define __passman_time_t
typedef long time_t;
#endif
#ifndef __passman_struct_timespec
#define __passman_struct_timespec
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};
#endif
typedef int sig_atomic_t;
typedef void (*__sighandler_t)(int);
typedef __sighandler_t sig_t;
#ifdef _GNU_SOURCE
typedef __sighandler_t sighandler_t;
#endif
union sigval { int sival_int; void *sival_ptr; };

/* Only the leading members of siginfo_t are modelled; the rest is padding. */
typedef struct {
    int si_signo;
    int si_errno;
    int si_code;
    int __pad0;
    union { int _pad[28]; void *__align; } _sifields;
} siginfo_t;

struct sigaction {
    union {
        __sighandler_t sa_handler;
        void (*sa_sigaction)(int, siginfo_t *, void *);
    } __sigaction_handler;
    __sigset_t sa_mask;
    int sa_flags;
    void (*sa_restorer)(void);
};
#define sa_handler __sigaction_handler.sa_handler
#define sa_sigaction __sigaction_handler.sa_sigaction

/* Handlers and flags. */
#define SIG_ERR ((__sighandler_t) -1)
#define SIG_DFL ((__sighandler_t) 0)
#define SIG_IGN ((__sighandler_t) 1)
#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2
#define SA_NOCLDSTOP 1
#define SA_NOCLDWAIT 2
#define SA_SIGINFO 4
#define SA_ONSTACK 0x08000000
#define SA_RESTART 0x10000000
#define SA_NODEFER 0x40000000
#define SA_RESETHAND 0x80000000

/* Signal numbers. */
#define SIGHUP 1
#define SIGINT 2
#define SIGQUIT 3
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGIOT SIGABRT
#define SIGBUS 7
#define SIGFPE 8
#define SIGKILL 9
#define SIGUSR1 10
#define SIGSEGV 11
#define SIGUSR2 12
#define SIGPIPE 13
#define SIGALRM 14
#define SIGTERM 15
#define SIGSTKFLT 16
#define SIGCHLD 17
#define SIGCONT 18
#define SIGSTOP 19
#define SIGTSTP 20
#define SIGTTIN 21
#define SIGTTOU 22
#define SIGURG 23
#define SIGXCPU 24
#define SIGXFSZ 25
#define SIGVTALRM 26
#define SIGPROF 27
#define SIGWINCH 28
#define SIGPOLL 29
#define SIGIO SIGPOLL
#define SIGPWR 30
#define SIGSYS 31

/* Functions. */
__sighandler_t signal(int, __sighandler_t);
int raise(int);
int kill(pid_t, int);
void psignal(int, const char *);
int sigemptyset(sigset_t *);
int sigfillset(sigset_t *);
int sigaddset(sigset_t *, int);
int sigdelset(sigset_t *, int);
int sigismember(const sigset_t *, int);
int sigprocmask(int, const sigset_t *restrict, sigset_t *restrict);
int sigaction(int, const struct sigaction *restrict, struct sigaction *restrict);
int sigpending(sigset_t *);
int sigsuspend(const sigset_t *);

#endif
