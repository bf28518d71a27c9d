/* passman model of <cblas.h>: the C interface to the BLAS, single and double
   precision, levels 1 to 3 (the functions passman models).

   Enumerations and values are the reference CBLAS ones (OpenBLAS, ATLAS,
   Netlib CBLAS and MKL agree); integers are int. The output is compiled
   against the real header of the BLAS it links. */
#ifndef _PASSMAN_CBLAS_H
#define _PASSMAN_CBLAS_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif

typedef enum CBLAS_ORDER {CblasRowMajor = 101, CblasColMajor = 102} CBLAS_ORDER;
typedef enum CBLAS_TRANSPOSE {CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113,
                              CblasConjNoTrans = 114} CBLAS_TRANSPOSE;
typedef enum CBLAS_UPLO {CblasUpper = 121, CblasLower = 122} CBLAS_UPLO;
typedef enum CBLAS_DIAG {CblasNonUnit = 131, CblasUnit = 132} CBLAS_DIAG;
typedef enum CBLAS_SIDE {CblasLeft = 141, CblasRight = 142} CBLAS_SIDE;
typedef CBLAS_ORDER CBLAS_LAYOUT;
typedef size_t CBLAS_INDEX;

/* The API of one precision: P is the letter (d, s), R the real type. */
#define __PASSMAN_CBLAS_API(P, R)                                                          \
void cblas_##P##axpy(const int N, const R alpha, const R *X, const int incX, R *Y,         \
                     const int incY);                                                      \
R cblas_##P##dot(const int N, const R *X, const int incX, const R *Y, const int incY);     \
void cblas_##P##scal(const int N, const R alpha, R *X, const int incX);                    \
void cblas_##P##copy(const int N, const R *X, const int incX, R *Y, const int incY);       \
void cblas_##P##swap(const int N, R *X, const int incX, R *Y, const int incY);             \
R cblas_##P##nrm2(const int N, const R *X, const int incX);                                \
R cblas_##P##asum(const int N, const R *X, const int incX);                                \
CBLAS_INDEX cblas_i##P##amax(const int N, const R *X, const int incX);                     \
void cblas_##P##gemv(const enum CBLAS_ORDER Order, const enum CBLAS_TRANSPOSE TransA,       \
                     const int M, const int N, const R alpha, const R *A, const int lda,   \
                     const R *X, const int incX, const R beta, R *Y, const int incY);      \
void cblas_##P##ger(const enum CBLAS_ORDER Order, const int M, const int N, const R alpha,  \
                    const R *X, const int incX, const R *Y, const int incY, R *A,          \
                    const int lda);                                                        \
void cblas_##P##trsv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,             \
                     const enum CBLAS_TRANSPOSE TransA, const enum CBLAS_DIAG Diag,        \
                     const int N, const R *A, const int lda, R *X, const int incX);        \
void cblas_##P##symv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, const int N, \
                     const R alpha, const R *A, const int lda, const R *X, const int incX, \
                     const R beta, R *Y, const int incY);                                  \
void cblas_##P##gemm(const enum CBLAS_ORDER Order, const enum CBLAS_TRANSPOSE TransA,       \
                     const enum CBLAS_TRANSPOSE TransB, const int M, const int N,          \
                     const int K, const R alpha, const R *A, const int lda, const R *B,    \
                     const int ldb, const R beta, R *C, const int ldc);                    \
void cblas_##P##symm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side,             \
                     const enum CBLAS_UPLO Uplo, const int M, const int N, const R alpha,  \
                     const R *A, const int lda, const R *B, const int ldb, const R beta,   \
                     R *C, const int ldc);                                                 \
void cblas_##P##syrk(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,             \
                     const enum CBLAS_TRANSPOSE Trans, const int N, const int K,           \
                     const R alpha, const R *A, const int lda, const R beta, R *C,         \
                     const int ldc);                                                       \
void cblas_##P##trsm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side,             \
                     const enum CBLAS_UPLO Uplo, const enum CBLAS_TRANSPOSE TransA,        \
                     const enum CBLAS_DIAG Diag, const int M, const int N, const R alpha,  \
                     const R *A, const int lda, R *B, const int ldb);

__PASSMAN_CBLAS_API(d, double)
__PASSMAN_CBLAS_API(s, float)

#undef __PASSMAN_CBLAS_API
#endif
