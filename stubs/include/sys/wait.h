/* passman stub <sys/wait.h>: waiting for child processes, glibc values. */
#ifndef _PASSMAN_SYS_WAIT_H
#define _PASSMAN_SYS_WAIT_H

#include <sys/types.h>
#include <signal.h>

#define WNOHANG 1
#define WUNTRACED 2
#define WSTOPPED 2
#define WEXITED 4
#define WCONTINUED 8
#define WNOWAIT 0x01000000
#define WCOREFLAG 0x80
#define WEXITSTATUS(status) (((status) & 0xff00) >> 8)
#define WTERMSIG(status) ((status) & 0x7f)
#define WSTOPSIG(status) WEXITSTATUS(status)
#define WIFEXITED(status) (WTERMSIG(status) == 0)
#define WIFSIGNALED(status) (((signed char) (((status) & 0x7f) + 1) >> 1) > 0)
#define WIFSTOPPED(status) (((status) & 0xff) == 0x7f)
#define WIFCONTINUED(status) ((status) == 0xffff)
#define WCOREDUMP(status) ((status) & 0x80)

typedef enum { P_ALL, P_PID, P_PGID, P_PIDFD } idtype_t;

pid_t wait(int *);
pid_t waitpid(pid_t, int *, int);

#endif
