/* Model header of passman's accelerator runtime (the host API of
   backends/runtime/passman_accel.h), for the analyses. */
#ifndef PASSMAN_ACCEL_H
#define PASSMAN_ACCEL_H
#include <stddef.h>

void passman_accel_init(void);
void passman_accel_release(void);
void *passman_accel_malloc(size_t bytes);
void passman_accel_free(void *dev);
void passman_accel_copy_to(void *dev, const void *host, size_t elem, int rank,
                           const size_t *dims, const size_t *offset, const size_t *count);
void passman_accel_copy_from(void *host, const void *dev, size_t elem, int rank,
                             const size_t *dims, const size_t *offset, const size_t *count);
void *passman_accel_resolve(const void *host, size_t bytes);
void *passman_accel_resolve_at(const void *host, size_t bytes, const void *at);
void passman_accel_update_device(const void *host, size_t bytes);
void passman_accel_update_host(void *host, size_t bytes);
double passman_accel_time(void);
#endif
