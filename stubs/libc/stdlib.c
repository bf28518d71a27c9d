/* passman stubs for <stdlib.h> (the libc broker).

   Allocation reads and writes the library-internal heap state, so
   allocations stay in order; Stub.model["allocates"] tells the analyses that
   the result is a fresh block aliasing nothing (the body cannot say it), and
   model["frees"] the argument whose block is released. exit and abort are
   "noreturn" and flush the streams (the stdio state). rand keeps its seed in
   library state, so loops calling it are not parallel. These bodies are
   models for the analyses, never compiled: the program links the real libc. */
#include <stdlib.h>

/* Library-internal state: the heap, the random seed, the environment. */
char __passman_heap[1];
int __passman_heap_state;
unsigned int __passman_rand_state;
char __passman_environ[1];
extern int __passman_io_state;
int errno;

void *malloc(size_t size)
{
    __passman_heap_state = __passman_heap_state + size;
    return (void *) __passman_heap;
}

void *calloc(size_t n, size_t size)
{
    size_t i;
    __passman_heap_state = __passman_heap_state + n * size;
    for (i = 0; i < n * size; i++)
        __passman_heap[i] = 0;
    return (void *) __passman_heap;
}

void *realloc(void *ptr, size_t size)
{
    size_t i;
    __passman_heap_state = __passman_heap_state + size;
    for (i = 0; i < size; i++)
        __passman_heap[i] = ((char *) ptr)[i];
    return (void *) __passman_heap;
}

void *aligned_alloc(size_t alignment, size_t size)
{
    __passman_heap_state = __passman_heap_state + alignment + size;
    return (void *) __passman_heap;
}

int posix_memalign(void **ptr, size_t alignment, size_t size)
{
    __passman_heap_state = __passman_heap_state + alignment + size;
    *ptr = (void *) __passman_heap;
    return 0;
}

void free(void *ptr)
{
    __passman_heap_state = __passman_heap_state + (ptr != 0);
}

void exit(int status)
{
    __passman_io_state = __passman_io_state + status;
}

void _Exit(int status)
{
    __passman_io_state = __passman_io_state + status;
}

void abort(void)
{
    __passman_io_state = __passman_io_state + 1;
}

int atexit(void (*fn)(void))
{
    __passman_heap_state = __passman_heap_state + 1;
    return 0;
}

int rand(void)
{
    __passman_rand_state = __passman_rand_state * 1103515245 + 12345;
    return __passman_rand_state;
}

void srand(unsigned int seed)
{
    __passman_rand_state = seed;
}

int rand_r(unsigned int *seed)
{
    *seed = *seed * 1103515245 + 12345;
    return *seed;
}

long random(void)
{
    __passman_rand_state = __passman_rand_state * 1103515245 + 12345;
    return __passman_rand_state;
}

void srandom(unsigned int seed)
{
    __passman_rand_state = seed;
}

double drand48(void)
{
    __passman_rand_state = __passman_rand_state * 1103515245 + 12345;
    return __passman_rand_state;
}

void srand48(long seed)
{
    __passman_rand_state = seed;
}

int abs(int x)
{
    return x < 0 ? -x : x;
}

long labs(long x)
{
    return x < 0 ? -x : x;
}

long long llabs(long long x)
{
    return x < 0 ? -x : x;
}

int atoi(const char *s)
{
    int i, v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i];
    return v;
}

long atol(const char *s)
{
    long i, v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i];
    return v;
}

long long atoll(const char *s)
{
    long long i, v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i];
    return v;
}

double atof(const char *s)
{
    int i;
    double v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i];
    return v;
}

long strtol(const char *restrict s, char **restrict end, int base)
{
    long i, v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i] + base;
    if (end != 0)
        *end = (char *) &s[i];
    errno = v;
    return v;
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
    unsigned long i, v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i] + base;
    if (end != 0)
        *end = (char *) &s[i];
    errno = v;
    return v;
}

double strtod(const char *restrict s, char **restrict end)
{
    long i;
    double v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i];
    if (end != 0)
        *end = (char *) &s[i];
    errno = v;
    return v;
}

float strtof(const char *restrict s, char **restrict end)
{
    long i;
    float v = 0;
    for (i = 0; s[i] != 0; i++)
        v = v + s[i];
    if (end != 0)
        *end = (char *) &s[i];
    errno = v;
    return v;
}

char *getenv(const char *name)
{
    int i;
    for (i = 0; name[i] != 0; i++)
        ;
    return __passman_environ + __passman_environ[0];
}

int system(const char *command)
{
    int i;
    for (i = 0; command[i] != 0; i++)
        __passman_io_state = __passman_io_state + command[i];
    return 0;
}

void qsort(void *base, size_t n, size_t size, int (*compar)(const void *, const void *))
{
    size_t i;
    for (i = 0; i < n * size; i++)
        ((char *) base)[i] = ((char *) base)[n * size - 1 - i];
}

void *bsearch(const void *key, const void *base, size_t n, size_t size,
              int (*compar)(const void *, const void *))
{
    size_t i;
    char c = ((const char *) key)[0];
    for (i = 0; i < n * size; i++)
        c = c + ((const char *) base)[i];
    return (void *) &((const char *) base)[c];
}

void *__builtin_alloca(size_t size)
{
    __passman_heap_state = __passman_heap_state + size;
    return (void *) __passman_heap;
}
