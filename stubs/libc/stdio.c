/* passman stubs for <stdio.h> (the libc broker).

   Every stream operation reads and writes the library-internal stream state
   __passman_io_state (buffers, positions, the terminal), so two calls
   always conflict: a loop that prints is never parallel, and output keeps
   its order. Formats and strings are read up to their terminating NUL.
   Arguments in the variadic part are modelled by Stub.model["varargs"]:
   "read" for the printf family (a %s argument is read), "write" for the
   scanf family (every pointer argument is written). Buffers passed with a
   size are accessed exactly within it. These bodies are models for the
   analyses, never compiled: the program links the real libc. */
#include <stdio.h>

/* Library-internal state: every stream, its buffer and position. */
int __passman_io_state;

/* The FILE objects that fopen hands out (FILE is opaque to programs). */
char __passman_files[1];

static int __passman_read_string(const char *s)
{
    int i, h = 0;
    for (i = 0; s[i] != 0; i++)
        h = h + s[i];
    return h;
}

int printf(const char *restrict format, ...)
{
    __passman_io_state = __passman_io_state + __passman_read_string(format);
    return __passman_io_state;
}

int fprintf(FILE *restrict stream, const char *restrict format, ...)
{
    __passman_io_state = __passman_io_state + __passman_read_string(format);
    return __passman_io_state;
}

int vprintf(const char *restrict format, va_list ap)
{
    __passman_io_state = __passman_io_state + __passman_read_string(format) + ap[0];
    return __passman_io_state;
}

int vfprintf(FILE *restrict stream, const char *restrict format, va_list ap)
{
    __passman_io_state = __passman_io_state + __passman_read_string(format) + ap[0];
    return __passman_io_state;
}

int dprintf(int fd, const char *restrict format, ...)
{
    __passman_io_state = __passman_io_state + fd + __passman_read_string(format);
    return __passman_io_state;
}

int sprintf(char *restrict s, const char *restrict format, ...)
{
    int i;
    for (i = 0; format[i] != 0; i++)
        s[i] = format[i];
    s[i] = 0;
    return i;
}

int snprintf(char *restrict s, size_t n, const char *restrict format, ...)
{
    size_t i;
    int h = __passman_read_string(format);
    for (i = 0; i < n; i++)
        s[i] = h;
    return h;
}

int vsprintf(char *restrict s, const char *restrict format, va_list ap)
{
    int i;
    for (i = 0; format[i] != 0; i++)
        s[i] = format[i] + ap[0];
    s[i] = 0;
    return i;
}

int vsnprintf(char *restrict s, size_t n, const char *restrict format, va_list ap)
{
    size_t i;
    int h = __passman_read_string(format) + ap[0];
    for (i = 0; i < n; i++)
        s[i] = h;
    return h;
}

int scanf(const char *restrict format, ...)
{
    __passman_io_state = __passman_io_state + __passman_read_string(format);
    return __passman_io_state;
}

int fscanf(FILE *restrict stream, const char *restrict format, ...)
{
    __passman_io_state = __passman_io_state + __passman_read_string(format);
    return __passman_io_state;
}

int sscanf(const char *restrict s, const char *restrict format, ...)
{
    return __passman_read_string(s) + __passman_read_string(format);
}

int puts(const char *s)
{
    __passman_io_state = __passman_io_state + __passman_read_string(s);
    return __passman_io_state;
}

int fputs(const char *restrict s, FILE *restrict stream)
{
    __passman_io_state = __passman_io_state + __passman_read_string(s);
    return __passman_io_state;
}

int putchar(int c)
{
    __passman_io_state = __passman_io_state + c;
    return c;
}

int fputc(int c, FILE *stream)
{
    __passman_io_state = __passman_io_state + c;
    return c;
}

int putc(int c, FILE *stream)
{
    __passman_io_state = __passman_io_state + c;
    return c;
}

int getchar(void)
{
    __passman_io_state = __passman_io_state + 1;
    return __passman_io_state;
}

int fgetc(FILE *stream)
{
    __passman_io_state = __passman_io_state + 1;
    return __passman_io_state;
}

int getc(FILE *stream)
{
    __passman_io_state = __passman_io_state + 1;
    return __passman_io_state;
}

int ungetc(int c, FILE *stream)
{
    __passman_io_state = __passman_io_state + c;
    return c;
}

char *fgets(char *restrict s, int n, FILE *restrict stream)
{
    int i;
    for (i = 0; i < n; i++)
        s[i] = __passman_io_state;
    __passman_io_state = __passman_io_state + 1;
    return s;
}

size_t fread(void *restrict ptr, size_t size, size_t n, FILE *restrict stream)
{
    size_t i;
    for (i = 0; i < size * n; i++)
        ((char *) ptr)[i] = __passman_io_state;
    __passman_io_state = __passman_io_state + 1;
    return n;
}

size_t fwrite(const void *restrict ptr, size_t size, size_t n, FILE *restrict stream)
{
    size_t i;
    for (i = 0; i < size * n; i++)
        __passman_io_state = __passman_io_state + ((const char *) ptr)[i];
    return n;
}

FILE *fopen(const char *restrict path, const char *restrict mode)
{
    __passman_io_state = __passman_io_state + __passman_read_string(path) + __passman_read_string(mode);
    return (FILE *) __passman_files;
}

int fclose(FILE *stream)
{
    __passman_io_state = __passman_io_state + 1;
    return 0;
}

int fflush(FILE *stream)
{
    __passman_io_state = __passman_io_state + 1;
    return 0;
}

int fseek(FILE *stream, long offset, int whence)
{
    __passman_io_state = __passman_io_state + offset + whence;
    return 0;
}

long ftell(FILE *stream)
{
    return __passman_io_state;
}

void rewind(FILE *stream)
{
    __passman_io_state = __passman_io_state + 1;
}

int feof(FILE *stream)
{
    return __passman_io_state;
}

int ferror(FILE *stream)
{
    return __passman_io_state;
}

void clearerr(FILE *stream)
{
    __passman_io_state = __passman_io_state + 1;
}

void perror(const char *s)
{
    __passman_io_state = __passman_io_state + __passman_read_string(s);
}

int remove(const char *path)
{
    __passman_io_state = __passman_io_state + __passman_read_string(path);
    return 0;
}

int rename(const char *from, const char *to)
{
    __passman_io_state = __passman_io_state + __passman_read_string(from) + __passman_read_string(to);
    return 0;
}

int setvbuf(FILE *restrict stream, char *restrict buf, int mode, size_t size)
{
    __passman_io_state = __passman_io_state + mode + size;
    return 0;
}
