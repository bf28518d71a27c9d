/* passman stub <spawn.h>: posix_spawn (glibc, x86-64 layout). */
#ifndef _PASSMAN_SPAWN_H
#define _PASSMAN_SPAWN_H

#include <sched.h>
#include <sys/types.h>

typedef struct {
    short __flags;
    pid_t __pgrp;
    sigset_t __sd;
    sigset_t __ss;
    struct sched_param __sp;
    int __policy;
    int __pad[16];
} posix_spawnattr_t;

typedef struct {
    int __allocated;
    int __used;
    struct __spawn_action *__actions;
    int __pad[16];
} posix_spawn_file_actions_t;

#define POSIX_SPAWN_RESETIDS 0x01
#define POSIX_SPAWN_SETPGROUP 0x02
#define POSIX_SPAWN_SETSIGDEF 0x04
#define POSIX_SPAWN_SETSIGMASK 0x08
#define POSIX_SPAWN_SETSCHEDPARAM 0x10
#define POSIX_SPAWN_SETSCHEDULER 0x20
#ifdef _GNU_SOURCE
#define POSIX_SPAWN_USEVFORK 0x40
#define POSIX_SPAWN_SETSID 0x80
#endif

int posix_spawn(pid_t *restrict, const char *restrict,
                const posix_spawn_file_actions_t *restrict, const posix_spawnattr_t *restrict,
                char *const[restrict], char *const[restrict]);
int posix_spawnp(pid_t *, const char *, const posix_spawn_file_actions_t *,
                 const posix_spawnattr_t *, char *const[], char *const[]);

int posix_spawnattr_init(posix_spawnattr_t *);
int posix_spawnattr_destroy(posix_spawnattr_t *);
int posix_spawnattr_getsigdefault(const posix_spawnattr_t *restrict, sigset_t *restrict);
int posix_spawnattr_setsigdefault(posix_spawnattr_t *restrict, const sigset_t *restrict);
int posix_spawnattr_getsigmask(const posix_spawnattr_t *restrict, sigset_t *restrict);
int posix_spawnattr_setsigmask(posix_spawnattr_t *restrict, const sigset_t *restrict);
int posix_spawnattr_getflags(const posix_spawnattr_t *restrict, short *restrict);
int posix_spawnattr_setflags(posix_spawnattr_t *, short);
int posix_spawnattr_getpgroup(const posix_spawnattr_t *restrict, pid_t *restrict);
int posix_spawnattr_setpgroup(posix_spawnattr_t *, pid_t);
int posix_spawnattr_getschedpolicy(const posix_spawnattr_t *restrict, int *restrict);
int posix_spawnattr_setschedpolicy(posix_spawnattr_t *, int);
int posix_spawnattr_getschedparam(const posix_spawnattr_t *restrict,
                                  struct sched_param *restrict);
int posix_spawnattr_setschedparam(posix_spawnattr_t *restrict,
                                  const struct sched_param *restrict);

int posix_spawn_file_actions_init(posix_spawn_file_actions_t *);
int posix_spawn_file_actions_destroy(posix_spawn_file_actions_t *);
int posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *restrict, int,
                                     const char *restrict, int, mode_t);
int posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *, int);
int posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *, int, int);
#ifdef _GNU_SOURCE
int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *restrict,
                                         const char *restrict);
int posix_spawn_file_actions_addfchdir_np(posix_spawn_file_actions_t *, int);
int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *, int);
int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *, int);
#endif

#endif
