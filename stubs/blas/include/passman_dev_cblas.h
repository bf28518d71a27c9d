/* Device entry points of CBLAS (the blas broker): the same functions and
   parameters (unnamed: a program that includes this after its own macros may
   have defined N or M), every pointer a device address (kernel_data_mapping
   resolves the host arrays to the buffers it keeps on the device). cuda:
   cuda/cblas_cublas.cu runs them with cuBLAS; cpu (the accelerator runtime's
   emulation): cblas_device.c calls the CPU BLAS on the emulated buffers. */
#ifndef PASSMAN_DEV_CBLAS_H
#define PASSMAN_DEV_CBLAS_H

#include <cblas.h>

#define PASSMAN_DEV_CBLAS_API(P, R)                                                      \
void passman_dev_cblas_##P##axpy(const int, const R, const R *, const int, R *,          \
    const int);                                                                          \
R passman_dev_cblas_##P##dot(const int, const R *, const int, const R *, const int);     \
void passman_dev_cblas_##P##scal(const int, const R, R *, const int);                    \
void passman_dev_cblas_##P##copy(const int, const R *, const int, R *, const int);       \
void passman_dev_cblas_##P##swap(const int, R *, const int, R *, const int);             \
R passman_dev_cblas_##P##nrm2(const int, const R *, const int);                          \
R passman_dev_cblas_##P##asum(const int, const R *, const int);                          \
CBLAS_INDEX passman_dev_cblas_i##P##amax(const int, const R *, const int);               \
void passman_dev_cblas_##P##gemv(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,     \
    const int, const int, const R, const R *, const int, const R *, const int, const R,  \
    R *, const int);                                                                     \
void passman_dev_cblas_##P##ger(const enum CBLAS_ORDER, const int, const int, const R,   \
    const R *, const int, const R *, const int, R *, const int);                         \
void passman_dev_cblas_##P##trsv(const enum CBLAS_ORDER, const enum CBLAS_UPLO,          \
    const enum CBLAS_TRANSPOSE, const enum CBLAS_DIAG, const int, const R *, const int,  \
    R *, const int);                                                                     \
void passman_dev_cblas_##P##symv(const enum CBLAS_ORDER, const enum CBLAS_UPLO,          \
    const int, const R, const R *, const int, const R *, const int, const R, R *,        \
    const int);                                                                          \
void passman_dev_cblas_##P##gemm(const enum CBLAS_ORDER, const enum CBLAS_TRANSPOSE,     \
    const enum CBLAS_TRANSPOSE, const int, const int, const int, const R, const R *,     \
    const int, const R *, const int, const R, R *, const int);                           \
void passman_dev_cblas_##P##symm(const enum CBLAS_ORDER, const enum CBLAS_SIDE,          \
    const enum CBLAS_UPLO, const int, const int, const R, const R *, const int,          \
    const R *, const int, const R, R *, const int);                                      \
void passman_dev_cblas_##P##syrk(const enum CBLAS_ORDER, const enum CBLAS_UPLO,          \
    const enum CBLAS_TRANSPOSE, const int, const int, const R, const R *, const int,     \
    const R, R *, const int);                                                            \
void passman_dev_cblas_##P##trsm(const enum CBLAS_ORDER, const enum CBLAS_SIDE,          \
    const enum CBLAS_UPLO, const enum CBLAS_TRANSPOSE, const enum CBLAS_DIAG, const int, \
    const int, const R, const R *, const int, R *, const int);

PASSMAN_DEV_CBLAS_API(d, double)
PASSMAN_DEV_CBLAS_API(s, float)

#undef PASSMAN_DEV_CBLAS_API
#endif
