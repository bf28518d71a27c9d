/* passman stubs for the accelerator runtime (the accel broker).

   Models for the analyses, never compiled: a copy reads the whole source
   array and may write any element of the destination (the box it moves
   depends on memory, offset[] and count[]); allocation and release touch the
   runtime's state. The program links backends/runtime/passman_accel_*.{c,cu}. */
#include <passman_accel.h>

char __passman_accel_memory[1];
size_t __passman_accel_state;

void passman_accel_init(void)
{
    __passman_accel_state = __passman_accel_state + 1;
}

void passman_accel_release(void)
{
    __passman_accel_state = __passman_accel_state + 1;
}

void *passman_accel_malloc(size_t bytes)
{
    __passman_accel_state = __passman_accel_state + bytes;
    return (void *) __passman_accel_memory;
}

void passman_accel_free(void *dev)
{
    __passman_accel_state = __passman_accel_state + 1;
}

void passman_accel_copy_to(void *dev, const void *host, size_t elem, int rank,
                           const size_t *dims, const size_t *offset, const size_t *count)
{
    size_t i, n = elem;
    int k;
    for (k = 0; k < rank; k++)
        n = n * dims[k];
    for (i = 0; i < n; i++)
        if (offset[0] <= i && count[0] > 0)
            ((char *) dev)[i] = ((const char *) host)[i];
}

void passman_accel_copy_from(void *host, const void *dev, size_t elem, int rank,
                             const size_t *dims, const size_t *offset, const size_t *count)
{
    size_t i, n = elem;
    int k;
    for (k = 0; k < rank; k++)
        n = n * dims[k];
    for (i = 0; i < n; i++)
        if (offset[0] <= i && count[0] > 0)
            ((char *) host)[i] = ((const char *) dev)[i];
}

void *passman_accel_resolve(const void *host, size_t bytes)
{
    __passman_accel_state = __passman_accel_state + bytes;
    return (void *) __passman_accel_memory;
}

void *passman_accel_resolve_at(const void *host, size_t bytes, const void *at)
{
    __passman_accel_state = __passman_accel_state + bytes;
    return (void *) __passman_accel_memory;
}

void passman_accel_update_device(const void *host, size_t bytes)
{
    size_t i;
    for (i = 0; i < bytes; i++)
        __passman_accel_memory[0] = ((const char *) host)[i];
    __passman_accel_state = __passman_accel_state + 1;
}

void passman_accel_update_host(void *host, size_t bytes)
{
    size_t i;
    for (i = 0; i < bytes; i++)
        ((char *) host)[i] = __passman_accel_memory[0];
    __passman_accel_state = __passman_accel_state + 1;
}

double passman_accel_time(void)
{
    return 0.0;
}
