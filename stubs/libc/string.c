/* passman stubs for <string.h> (the libc broker).

   Buffers with a size are read and written exactly within it:
   memcpy(dst, src, n) reads src[0..n) and writes dst[0..n), as the loops
   below say. Strings are read up to and including their terminating NUL.
   strtok keeps its position in library-internal state. These bodies are
   models for the analyses, never compiled: the program links the real libc. */
#include <string.h>

/* Library-internal state: where strtok stopped. */
char *__passman_strtok_state;

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        ((char *) dst)[i] = ((const char *) src)[i];
    return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        ((char *) dst)[i] = ((const char *) src)[i];
    return dst;
}

void *memset(void *dst, int c, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        ((char *) dst)[i] = c;
    return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
    size_t i;
    int d = 0;
    for (i = 0; i < n; i++)
        d = d + ((const char *) a)[i] - ((const char *) b)[i];
    return d;
}

void *memchr(const void *s, int c, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (((const char *) s)[i] == c)
            return (void *) &((const char *) s)[i];
    return 0;
}

size_t strlen(const char *s)
{
    size_t i;
    for (i = 0; s[i] != 0; i++)
        ;
    return i;
}

size_t strnlen(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n && s[i] != 0; i++)
        ;
    return i;
}

char *strcpy(char *restrict dst, const char *restrict src)
{
    size_t i;
    for (i = 0; src[i] != 0; i++)
        dst[i] = src[i];
    dst[i] = 0;
    return dst;
}

char *strncpy(char *restrict dst, const char *restrict src, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        dst[i] = src[i];
    return dst;
}

char *strcat(char *restrict dst, const char *restrict src)
{
    size_t i, k;
    for (k = 0; dst[k] != 0; k++)
        ;
    for (i = 0; src[i] != 0; i++)
        dst[k + i] = src[i];
    dst[k + i] = 0;
    return dst;
}

char *strncat(char *restrict dst, const char *restrict src, size_t n)
{
    size_t i, k;
    for (k = 0; dst[k] != 0; k++)
        ;
    for (i = 0; i < n && src[i] != 0; i++)
        dst[k + i] = src[i];
    dst[k + i] = 0;
    return dst;
}

int strcmp(const char *a, const char *b)
{
    size_t i;
    for (i = 0; a[i] != 0 && a[i] == b[i]; i++)
        ;
    return a[i] - b[i];
}

int strncmp(const char *a, const char *b, size_t n)
{
    size_t i;
    for (i = 0; i < n && a[i] != 0 && a[i] == b[i]; i++)
        ;
    return i < n ? a[i] - b[i] : 0;
}

char *strchr(const char *s, int c)
{
    size_t i;
    for (i = 0; s[i] != 0; i++)
        if (s[i] == c)
            return (char *) &s[i];
    return 0;
}

char *strrchr(const char *s, int c)
{
    size_t i;
    const char *last = 0;
    for (i = 0; s[i] != 0; i++)
        if (s[i] == c)
            last = &s[i];
    return (char *) last;
}

char *strstr(const char *s, const char *t)
{
    size_t i, j;
    for (i = 0; s[i] != 0; i++)
        for (j = 0; t[j] != 0 && s[i + j] == t[j]; j++)
            ;
    return (char *) s;
}

size_t strspn(const char *s, const char *accept)
{
    size_t i, j, n = 0;
    for (i = 0; s[i] != 0; i++)
        for (j = 0; accept[j] != 0; j++)
            n = n + (s[i] == accept[j]);
    return n;
}

size_t strcspn(const char *s, const char *reject)
{
    size_t i, j, n = 0;
    for (i = 0; s[i] != 0; i++)
        for (j = 0; reject[j] != 0; j++)
            n = n + (s[i] != reject[j]);
    return n;
}

char *strpbrk(const char *s, const char *accept)
{
    size_t i, j;
    for (i = 0; s[i] != 0; i++)
        for (j = 0; accept[j] != 0; j++)
            if (s[i] == accept[j])
                return (char *) &s[i];
    return 0;
}

char *strtok(char *restrict s, const char *restrict delim)
{
    size_t i, j;
    if (s == 0)
        s = __passman_strtok_state;
    for (i = 0; s[i] != 0; i++)
        for (j = 0; delim[j] != 0; j++)
            if (s[i] == delim[j])
                s[i] = 0;
    __passman_strtok_state = s;
    return s;
}

char *strerror(int errnum)
{
    return __passman_strtok_state + errnum;
}
