/* passman stub <string.h>: glibc prototypes. */
#ifndef _PASSMAN_STRING_H
#define _PASSMAN_STRING_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef NULL
#define NULL ((void*)0)
#endif

/* Memory blocks. */
void *memcpy(void *restrict, const void *restrict, size_t);
void *memmove(void *, const void *, size_t);
void *memccpy(void *restrict, const void *restrict, int, size_t);
void *memset(void *, int, size_t);
int memcmp(const void *, const void *, size_t);
void *memchr(const void *, int, size_t);

/* Copying and concatenation. */
char *strcpy(char *restrict, const char *restrict);
char *strncpy(char *restrict, const char *restrict, size_t);
char *stpcpy(char *restrict, const char *restrict);
char *stpncpy(char *restrict, const char *restrict, size_t);
char *strcat(char *restrict, const char *restrict);
char *strncat(char *restrict, const char *restrict, size_t);
char *strdup(const char *);
char *strndup(const char *, size_t);

/* Comparison. */
int strcmp(const char *, const char *);
int strncmp(const char *, const char *, size_t);
int strcoll(const char *, const char *);
size_t strxfrm(char *restrict, const char *restrict, size_t);

/* Searching. */
char *strchr(const char *, int);
char *strrchr(const char *, int);
size_t strcspn(const char *, const char *);
size_t strspn(const char *, const char *);
char *strpbrk(const char *, const char *);
char *strstr(const char *, const char *);
char *strtok(char *restrict, const char *restrict);
char *strtok_r(char *restrict, const char *restrict, char **restrict);
char *strsep(char **restrict, const char *restrict);

/* Length and errors. */
size_t strlen(const char *);
size_t strnlen(const char *, size_t);
char *strerror(int);
#ifdef _GNU_SOURCE
char *strerror_r(int, char *, size_t);
#else
int strerror_r(int, char *, size_t);    /* the XSI version (__xpg_strerror_r) */
#endif
char *strsignal(int);

/* glibc's <string.h> also declares the <strings.h> functions. */
#include <strings.h>

#endif
