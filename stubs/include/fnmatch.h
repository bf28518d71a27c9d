/* passman stub <fnmatch.h>. */
#ifndef _PASSMAN_FNMATCH_H
#define _PASSMAN_FNMATCH_H

#define FNM_PATHNAME (1 << 0)
#define FNM_NOESCAPE (1 << 1)
#define FNM_PERIOD (1 << 2)
#ifdef _GNU_SOURCE
#define FNM_CASEFOLD (1 << 4)
#define FNM_EXTMATCH (1 << 5)
#endif
#define FNM_NOMATCH 1

int fnmatch(const char *, const char *, int);

#endif
