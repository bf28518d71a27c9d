/* Device entry points of CBLAS (passman_dev_cblas_*), as the blas broker's
   stubs and as their implementation on the accelerator runtime's emulation.

   kernel_data_mapping runs a CBLAS call between kernels as a *library
   launch*: passman_dev_cblas_dgemm(...) with every array argument resolved
   to its device buffer. On the emulation (target cpu) a device buffer is
   host memory, so each entry point is the CPU BLAS call on it; this file is
   compiled as it is (with the real <cblas.h>, -lopenblas). For the analyses
   the same bodies say what the entry point reads and writes: what the CBLAS
   function does to the memory it is given. On cuda the entry points are in
   cuda/cblas_cublas.cu (cuBLAS on the buffers, no copy). */
#include <cblas.h>
#include <passman_dev_cblas.h>

#define PASSMAN_DEV_CBLAS(P, R)                                                            \
void passman_dev_cblas_##P##axpy(const int N, const R alpha, const R *X, const int incX,  \
                                 R *Y, const int incY)                                     \
{                                                                                          \
    cblas_##P##axpy(N, alpha, X, incX, Y, incY);                                           \
}                                                                                          \
R passman_dev_cblas_##P##dot(const int N, const R *X, const int incX, const R *Y,          \
                             const int incY)                                               \
{                                                                                          \
    return cblas_##P##dot(N, X, incX, Y, incY);                                            \
}                                                                                          \
void passman_dev_cblas_##P##scal(const int N, const R alpha, R *X, const int incX)         \
{                                                                                          \
    cblas_##P##scal(N, alpha, X, incX);                                                    \
}                                                                                          \
void passman_dev_cblas_##P##copy(const int N, const R *X, const int incX, R *Y,            \
                                 const int incY)                                           \
{                                                                                          \
    cblas_##P##copy(N, X, incX, Y, incY);                                                  \
}                                                                                          \
void passman_dev_cblas_##P##swap(const int N, R *X, const int incX, R *Y, const int incY)  \
{                                                                                          \
    cblas_##P##swap(N, X, incX, Y, incY);                                                  \
}                                                                                          \
R passman_dev_cblas_##P##nrm2(const int N, const R *X, const int incX)                     \
{                                                                                          \
    return cblas_##P##nrm2(N, X, incX);                                                    \
}                                                                                          \
R passman_dev_cblas_##P##asum(const int N, const R *X, const int incX)                     \
{                                                                                          \
    return cblas_##P##asum(N, X, incX);                                                    \
}                                                                                          \
CBLAS_INDEX passman_dev_cblas_i##P##amax(const int N, const R *X, const int incX)          \
{                                                                                          \
    return cblas_i##P##amax(N, X, incX);                                                   \
}                                                                                          \
void passman_dev_cblas_##P##gemv(const enum CBLAS_ORDER Order,                             \
                                 const enum CBLAS_TRANSPOSE TransA, const int M,           \
                                 const int N, const R alpha, const R *A, const int lda,    \
                                 const R *X, const int incX, const R beta, R *Y,           \
                                 const int incY)                                           \
{                                                                                          \
    cblas_##P##gemv(Order, TransA, M, N, alpha, A, lda, X, incX, beta, Y, incY);           \
}                                                                                          \
void passman_dev_cblas_##P##ger(const enum CBLAS_ORDER Order, const int M, const int N,    \
                                const R alpha, const R *X, const int incX, const R *Y,     \
                                const int incY, R *A, const int lda)                       \
{                                                                                          \
    cblas_##P##ger(Order, M, N, alpha, X, incX, Y, incY, A, lda);                          \
}                                                                                          \
void passman_dev_cblas_##P##trsv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, \
                                 const enum CBLAS_TRANSPOSE TransA,                        \
                                 const enum CBLAS_DIAG Diag, const int N, const R *A,      \
                                 const int lda, R *X, const int incX)                      \
{                                                                                          \
    cblas_##P##trsv(Order, Uplo, TransA, Diag, N, A, lda, X, incX);                        \
}                                                                                          \
void passman_dev_cblas_##P##symv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, \
                                 const int N, const R alpha, const R *A, const int lda,    \
                                 const R *X, const int incX, const R beta, R *Y,           \
                                 const int incY)                                           \
{                                                                                          \
    cblas_##P##symv(Order, Uplo, N, alpha, A, lda, X, incX, beta, Y, incY);                \
}                                                                                          \
void passman_dev_cblas_##P##gemm(const enum CBLAS_ORDER Order,                             \
                                 const enum CBLAS_TRANSPOSE TransA,                        \
                                 const enum CBLAS_TRANSPOSE TransB, const int M,           \
                                 const int N, const int K, const R alpha, const R *A,      \
                                 const int lda, const R *B, const int ldb, const R beta,   \
                                 R *C, const int ldc)                                      \
{                                                                                          \
    cblas_##P##gemm(Order, TransA, TransB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);  \
}                                                                                          \
void passman_dev_cblas_##P##symm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side, \
                                 const enum CBLAS_UPLO Uplo, const int M, const int N,     \
                                 const R alpha, const R *A, const int lda, const R *B,     \
                                 const int ldb, const R beta, R *C, const int ldc)         \
{                                                                                          \
    cblas_##P##symm(Order, Side, Uplo, M, N, alpha, A, lda, B, ldb, beta, C, ldc);         \
}                                                                                          \
void passman_dev_cblas_##P##syrk(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, \
                                 const enum CBLAS_TRANSPOSE Trans, const int N,            \
                                 const int K, const R alpha, const R *A, const int lda,    \
                                 const R beta, R *C, const int ldc)                        \
{                                                                                          \
    cblas_##P##syrk(Order, Uplo, Trans, N, K, alpha, A, lda, beta, C, ldc);                \
}                                                                                          \
void passman_dev_cblas_##P##trsm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side, \
                                 const enum CBLAS_UPLO Uplo,                               \
                                 const enum CBLAS_TRANSPOSE TransA,                        \
                                 const enum CBLAS_DIAG Diag, const int M, const int N,     \
                                 const R alpha, const R *A, const int lda, R *B,           \
                                 const int ldb)                                            \
{                                                                                          \
    cblas_##P##trsm(Order, Side, Uplo, TransA, Diag, M, N, alpha, A, lda, B, ldb);         \
}

PASSMAN_DEV_CBLAS(d, double)
PASSMAN_DEV_CBLAS(s, float)
