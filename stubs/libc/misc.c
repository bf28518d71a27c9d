/* passman stubs for <ctype.h>, <time.h>, <sys/time.h>, <assert.h> and the
   <stdarg.h> builtins (the libc broker).

   The character classes are pure. Clocks read and write the library's
   clock state (two readings differ, so timing calls keep their place).
   __assert_fail is noreturn and writes the stream state (its message).
   These bodies are models for the analyses, never compiled. */
#include <ctype.h>
#include <time.h>
#include <sys/time.h>
#include <assert.h>
#include <stdarg.h>

/* Library-internal state: the clocks. */
long __passman_clock_state;
extern int __passman_io_state;

int isalnum(int c) { return c; }
int isalpha(int c) { return c; }
int isblank(int c) { return c; }
int iscntrl(int c) { return c; }
int isdigit(int c) { return c; }
int isgraph(int c) { return c; }
int islower(int c) { return c; }
int isprint(int c) { return c; }
int ispunct(int c) { return c; }
int isspace(int c) { return c; }
int isupper(int c) { return c; }
int isxdigit(int c) { return c; }
int tolower(int c) { return c; }
int toupper(int c) { return c; }

clock_t clock(void)
{
    __passman_clock_state = __passman_clock_state + 1;
    return __passman_clock_state;
}

time_t time(time_t *t)
{
    __passman_clock_state = __passman_clock_state + 1;
    if (t != 0)
        *t = __passman_clock_state;
    return __passman_clock_state;
}

double difftime(time_t a, time_t b)
{
    return a - b;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz)
{
    __passman_clock_state = __passman_clock_state + 1;
    tv->tv_sec = __passman_clock_state;
    tv->tv_usec = __passman_clock_state;
    return 0;
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    __passman_clock_state = __passman_clock_state + id;
    ts->tv_sec = __passman_clock_state;
    ts->tv_nsec = __passman_clock_state;
    return 0;
}

void __assert_fail(const char *expr, const char *file, unsigned int line, const char *function)
{
    __passman_io_state = __passman_io_state + expr[0] + file[0] + line + function[0];
}

void __builtin_va_start(va_list ap, ...)
{
}

void __builtin_va_end(va_list ap)
{
}

void __builtin_va_copy(va_list dst, va_list src)
{
}

/* va_arg(ap, type) is __builtin_va_arg(ap, type): it reads the next argument
   and moves ap on (modelled as a write of the state ap points to). */
void *__builtin_va_arg(va_list ap, ...)
{
    *ap = *ap + 1;
    return 0;
}
