/* passman stub <libgen.h>: POSIX dirname and basename (glibc's __xpg_basename). */
#ifndef _PASSMAN_LIBGEN_H
#define _PASSMAN_LIBGEN_H

char *dirname(char *);
char *__xpg_basename(char *);
#define basename __xpg_basename

#endif
