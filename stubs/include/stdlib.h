/* passman stub <stdlib.h>: glibc prototypes and x86-64 constants. */
#ifndef _PASSMAN_STDLIB_H
#define _PASSMAN_STDLIB_H

/* Types. */
#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_wchar_t
#define __passman_wchar_t
typedef int wchar_t;
#endif
typedef struct { int quot; int rem; } div_t;
typedef struct { long quot; long rem; } ldiv_t;
typedef struct { long long quot; long long rem; } lldiv_t;

/* glibc's <stdlib.h> includes these two (by default, __USE_MISC). */
#include <sys/types.h>
#include <alloca.h>

/* Constants. */
#ifndef NULL
#define NULL ((void*)0)
#endif
#define EXIT_FAILURE 1
#define EXIT_SUCCESS 0
#define RAND_MAX 2147483647
size_t __ctype_get_mb_cur_max(void);
#define MB_CUR_MAX (__ctype_get_mb_cur_max())

/* Number conversion. */
double atof(const char *);
int atoi(const char *);
long atol(const char *);
long long atoll(const char *);
double strtod(const char *restrict, char **restrict);
float strtof(const char *restrict, char **restrict);
long double strtold(const char *restrict, char **restrict);
long strtol(const char *restrict, char **restrict, int);
unsigned long strtoul(const char *restrict, char **restrict, int);
long long strtoll(const char *restrict, char **restrict, int);
unsigned long long strtoull(const char *restrict, char **restrict, int);

/* Pseudo-random numbers. */
int rand(void);
void srand(unsigned int);
int rand_r(unsigned int *);
long random(void);
void srandom(unsigned int);
double drand48(void);
double erand48(unsigned short[3]);
long lrand48(void);
long nrand48(unsigned short[3]);
long mrand48(void);
long jrand48(unsigned short[3]);
void srand48(long);
unsigned short *seed48(unsigned short[3]);

/* Memory. */
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void *reallocarray(void *, size_t, size_t);
void free(void *);
void *aligned_alloc(size_t, size_t);
int posix_memalign(void **, size_t, size_t);

/* Process control and environment. */
_Noreturn void abort(void);
int atexit(void (*)(void));
int at_quick_exit(void (*)(void));
_Noreturn void exit(int);
_Noreturn void quick_exit(int);
_Noreturn void _Exit(int);
char *getenv(const char *);
int putenv(char *);
int setenv(const char *, const char *, int);
int unsetenv(const char *);
int system(const char *);
char *realpath(const char *restrict, char *restrict);
int mkstemp(char *);
char *mkdtemp(char *);

/* Searching and sorting. */
void *bsearch(const void *, const void *, size_t, size_t,
              int (*)(const void *, const void *));
void qsort(void *, size_t, size_t, int (*)(const void *, const void *));

/* Integer arithmetic. */
int abs(int);
long labs(long);
long long llabs(long long);
div_t div(int, int);
ldiv_t ldiv(long, long);
lldiv_t lldiv(long long, long long);

/* Multibyte characters. */
int mblen(const char *, size_t);
int mbtowc(wchar_t *restrict, const char *restrict, size_t);
int wctomb(char *, wchar_t);
size_t mbstowcs(wchar_t *restrict, const char *restrict, size_t);
size_t wcstombs(char *restrict, const wchar_t *restrict, size_t);

#endif
