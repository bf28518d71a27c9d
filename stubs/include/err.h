/* passman stub <err.h>: BSD error messages. */
#ifndef _PASSMAN_ERR_H
#define _PASSMAN_ERR_H

#include <stdarg.h>

void warn(const char *, ...);
void vwarn(const char *, va_list);
void warnx(const char *, ...);
void vwarnx(const char *, va_list);
_Noreturn void err(int, const char *, ...);
_Noreturn void verr(int, const char *, va_list);
_Noreturn void errx(int, const char *, ...);
_Noreturn void verrx(int, const char *, va_list);

#endif
