/* passman stub <sys/file.h>: BSD file locking (glibc). */
#ifndef _PASSMAN_SYS_FILE_H
#define _PASSMAN_SYS_FILE_H

#include <fcntl.h>

#define L_SET 0
#define L_INCR 1
#define L_XTND 2

#define LOCK_SH 1
#define LOCK_EX 2
#define LOCK_NB 4
#define LOCK_UN 8

int flock(int, int);

#endif
