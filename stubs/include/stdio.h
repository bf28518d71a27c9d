/* passman stub <stdio.h>: glibc prototypes and x86-64 constants. */
#ifndef _PASSMAN_STDIO_H
#define _PASSMAN_STDIO_H

/* Types. */
#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif
#ifndef __passman_ssize_t
#define __passman_ssize_t
typedef long ssize_t;
#endif
#ifndef __passman_off_t
#define __passman_off_t
typedef long off_t;
#endif
#ifndef __passman_va_list
#define __passman_va_list
typedef char *va_list;          /* see <stdarg.h> */
#endif

#ifndef __passman_FILE
#define __passman_FILE
typedef struct _IO_FILE FILE;   /* opaque */
#endif
typedef struct _G_fpos_t {
    long __pos;
    struct {
        int __count;
        union { unsigned int __wch; char __wchb[4]; } __value;
    } __state;
} fpos_t;

/* Constants. */
#ifndef NULL
#define NULL ((void*)0)
#endif
#define EOF (-1)
#define BUFSIZ 8192
#define FILENAME_MAX 4096
#define FOPEN_MAX 16
#define L_tmpnam 20
#define L_ctermid 9
#define TMP_MAX 238328
#define P_tmpdir "/tmp"
#define _IOFBF 0
#define _IOLBF 1
#define _IONBF 2
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* Standard streams. */
extern FILE *stdin;
extern FILE *stdout;
extern FILE *stderr;
#define stdin stdin
#define stdout stdout
#define stderr stderr

/* Files. */
int remove(const char *);
int rename(const char *, const char *);
FILE *tmpfile(void);
char *tmpnam(char[20]);
FILE *fopen(const char *restrict, const char *restrict);
FILE *freopen(const char *restrict, const char *restrict, FILE *restrict);
FILE *fdopen(int, const char *);
FILE *fmemopen(void *, size_t, const char *);
FILE *open_memstream(char **, size_t *);
FILE *popen(const char *, const char *);
int pclose(FILE *);
int fclose(FILE *);
int fflush(FILE *);
void setbuf(FILE *restrict, char *restrict);
int setvbuf(FILE *restrict, char *restrict, int, size_t);
int fileno(FILE *);

/* Formatted I/O. */
int fprintf(FILE *restrict, const char *restrict, ...);
int printf(const char *restrict, ...);
int sprintf(char *restrict, const char *restrict, ...);
int snprintf(char *restrict, size_t, const char *restrict, ...);
int dprintf(int, const char *restrict, ...);
int vfprintf(FILE *restrict, const char *restrict, va_list);
int vprintf(const char *restrict, va_list);
int vsprintf(char *restrict, const char *restrict, va_list);
int vsnprintf(char *restrict, size_t, const char *restrict, va_list);
int vdprintf(int, const char *restrict, va_list);
int fscanf(FILE *restrict, const char *restrict, ...);
int scanf(const char *restrict, ...);
int sscanf(const char *restrict, const char *restrict, ...);
int vfscanf(FILE *restrict, const char *restrict, va_list);
int vscanf(const char *restrict, va_list);
int vsscanf(const char *restrict, const char *restrict, va_list);

/* Character and line I/O. */
int fgetc(FILE *);
int getc(FILE *);
int getchar(void);
int fputc(int, FILE *);
int putc(int, FILE *);
int putchar(int);
char *fgets(char *restrict, int, FILE *restrict);
int fputs(const char *restrict, FILE *restrict);
int puts(const char *);
int ungetc(int, FILE *);
ssize_t getline(char **restrict, size_t *restrict, FILE *restrict);
ssize_t getdelim(char **restrict, size_t *restrict, int, FILE *restrict);

/* Direct I/O and positioning. */
size_t fread(void *restrict, size_t, size_t, FILE *restrict);
size_t fwrite(const void *restrict, size_t, size_t, FILE *restrict);
int fseek(FILE *, long, int);
long ftell(FILE *);
int fseeko(FILE *, off_t, int);
off_t ftello(FILE *);
void rewind(FILE *);
int fgetpos(FILE *restrict, fpos_t *restrict);
int fsetpos(FILE *, const fpos_t *);

/* Errors. */
void clearerr(FILE *);
int feof(FILE *);
int ferror(FILE *);
void perror(const char *);

#endif
