/* Generated from blas/cblas_double.c by passman/stubs/precision.py: edit that file instead. */
/* passman stubs for CBLAS, single precision (the blas broker).

   Each body is the reference algorithm, written so that every access is an
   affine function of the loop counters, the sizes, the increments and the
   leading dimensions: element (r, c) of a row-major matrix with leading
   dimension ld is X[r * ld + c], of a column-major one X[r + c * ld]. The
   storage order, transpositions, triangle (uplo) and side are handled by
   explicit branches, so an analysis that knows them at the call site gets the
   exact regions: gemm reads op(A) and op(B) and reads/writes its M x N block
   of C; symm, syrk and trsm touch only the referenced triangle. Negative
   increments walk the vector backwards from its far end, as in the reference
   BLAS. These bodies compute what the BLAS computes (a test runs them against
   the real library), but they are models for the analyses: the program links
   a real BLAS (cpu, openmp) or the cuBLAS wrapper (cuda). */
#include <cblas.h>
#include <math.h>

#define __PASSMAN_TRANSPOSED(t) ((t) == CblasTrans || (t) == CblasConjTrans)

/* ------------------------------------------------------------------ level 1 */

void cblas_saxpy(const int N, const float alpha, const float *X, const int incX, float *Y,
                 const int incY)
{
    int i;
    int kx = incX < 0 ? (1 - N) * incX : 0;
    int ky = incY < 0 ? (1 - N) * incY : 0;
    for (i = 0; i < N; i++)
        Y[ky + i * incY] = Y[ky + i * incY] + alpha * X[kx + i * incX];
}

float cblas_sdot(const int N, const float *X, const int incX, const float *Y, const int incY)
{
    int i;
    float t = 0;
    int kx = incX < 0 ? (1 - N) * incX : 0;
    int ky = incY < 0 ? (1 - N) * incY : 0;
    for (i = 0; i < N; i++)
        t = t + X[kx + i * incX] * Y[ky + i * incY];
    return t;
}

void cblas_sscal(const int N, const float alpha, float *X, const int incX)
{
    int i;
    if (incX <= 0)
        return;
    for (i = 0; i < N; i++)
        X[i * incX] = alpha * X[i * incX];
}

void cblas_scopy(const int N, const float *X, const int incX, float *Y, const int incY)
{
    int i;
    int kx = incX < 0 ? (1 - N) * incX : 0;
    int ky = incY < 0 ? (1 - N) * incY : 0;
    for (i = 0; i < N; i++)
        Y[ky + i * incY] = X[kx + i * incX];
}

void cblas_sswap(const int N, float *X, const int incX, float *Y, const int incY)
{
    int i;
    float t;
    int kx = incX < 0 ? (1 - N) * incX : 0;
    int ky = incY < 0 ? (1 - N) * incY : 0;
    for (i = 0; i < N; i++) {
        t = X[kx + i * incX];
        X[kx + i * incX] = Y[ky + i * incY];
        Y[ky + i * incY] = t;
    }
}

float cblas_snrm2(const int N, const float *X, const int incX)
{
    int i;
    float t = 0;
    if (N < 1 || incX < 1)
        return 0;
    for (i = 0; i < N; i++)
        t = t + X[i * incX] * X[i * incX];
    return sqrtf(t);
}

float cblas_sasum(const int N, const float *X, const int incX)
{
    int i;
    float t = 0;
    if (N < 1 || incX < 1)
        return 0;
    for (i = 0; i < N; i++)
        t = t + fabsf(X[i * incX]);
    return t;
}

CBLAS_INDEX cblas_isamax(const int N, const float *X, const int incX)
{
    int i;
    CBLAS_INDEX best = 0;
    float m = 0;
    if (N < 1 || incX < 1)
        return 0;
    m = fabsf(X[0]);
    for (i = 1; i < N; i++)
        if (fabsf(X[i * incX]) > m) {
            m = fabsf(X[i * incX]);
            best = i;
        }
    return best;
}

/* ------------------------------------------------------------------ level 2 */

/* y = alpha * op(A) * x + beta * y; op(A) is leny x lenx. */
#define __PASSMAN_GEMV(AIDX)                                                     \
    for (i = 0; i < leny; i++) {                                               \
        t = 0;                                                                   \
        for (j = 0; j < lenx; j++)                                               \
            t = t + A[AIDX] * X[kx + j * incX];                                  \
        Y[ky + i * incY] = alpha * t + (beta == 0 ? 0 : beta * Y[ky + i * incY]); \
    }

void cblas_sgemv(const enum CBLAS_ORDER Order, const enum CBLAS_TRANSPOSE TransA, const int M,
                 const int N, const float alpha, const float *A, const int lda, const float *X,
                 const int incX, const float beta, float *Y, const int incY)
{
    int i, j, kx, ky;
    float t;
    int trans = __PASSMAN_TRANSPOSED(TransA);
    int lenx = trans ? M : N;
    int leny = trans ? N : M;
    kx = incX < 0 ? (1 - lenx) * incX : 0;
    ky = incY < 0 ? (1 - leny) * incY : 0;
    if ((Order == CblasRowMajor) != trans) {
        __PASSMAN_GEMV(i * lda + j)
    } else {
        __PASSMAN_GEMV(i + j * lda)
    }
}

/* A = alpha * x * y' + A, A is M x N. */
#define __PASSMAN_GER(AIDX)                                                      \
    for (i = 0; i < M; i++)                                                      \
        for (j = 0; j < N; j++)                                                  \
            A[AIDX] = A[AIDX] + alpha * X[kx + i * incX] * Y[ky + j * incY];

void cblas_sger(const enum CBLAS_ORDER Order, const int M, const int N, const float alpha,
                const float *X, const int incX, const float *Y, const int incY, float *A,
                const int lda)
{
    int i, j;
    int kx = incX < 0 ? (1 - M) * incX : 0;
    int ky = incY < 0 ? (1 - N) * incY : 0;
    if (Order == CblasRowMajor) {
        __PASSMAN_GER(i * lda + j)
    } else {
        __PASSMAN_GER(i + j * lda)
    }
}

/* Solve op(A) * x = b in place; op(A)(i, j) is A[AIDX], its diagonal A[i * lda + i]. */
#define __PASSMAN_TRSV_FORWARD(AIDX)                                             \
    for (i = 0; i < N; i++) {                                                    \
        t = X[kx + i * incX];                                                    \
        for (j = 0; j < i; j++)                                                  \
            t = t - A[AIDX] * X[kx + j * incX];                                  \
        if (Diag == CblasNonUnit)                                                \
            t = t / A[i * lda + i];                                              \
        X[kx + i * incX] = t;                                                    \
    }
#define __PASSMAN_TRSV_BACKWARD(AIDX)                                            \
    for (i = N - 1; i >= 0; i--) {                                               \
        t = X[kx + i * incX];                                                    \
        for (j = i + 1; j < N; j++)                                              \
            t = t - A[AIDX] * X[kx + j * incX];                                  \
        if (Diag == CblasNonUnit)                                                \
            t = t / A[i * lda + i];                                              \
        X[kx + i * incX] = t;                                                    \
    }

void cblas_strsv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,
                 const enum CBLAS_TRANSPOSE TransA, const enum CBLAS_DIAG Diag, const int N,
                 const float *A, const int lda, float *X, const int incX)
{
    int i, j;
    float t;
    int trans = __PASSMAN_TRANSPOSED(TransA);
    int lower = (Uplo == CblasLower) != trans;
    int kx = incX < 0 ? (1 - N) * incX : 0;
    if ((Order == CblasRowMajor) != trans) {
        if (lower) {
            __PASSMAN_TRSV_FORWARD(i * lda + j)
        } else {
            __PASSMAN_TRSV_BACKWARD(i * lda + j)
        }
    } else {
        if (lower) {
            __PASSMAN_TRSV_FORWARD(i + j * lda)
        } else {
            __PASSMAN_TRSV_BACKWARD(i + j * lda)
        }
    }
}

/* y = alpha * A * x + beta * y, A symmetric: (i, j) with j >= i is A[UPPER],
   with j < i A[LOWER] (both in the stored triangle). */
#define __PASSMAN_SYMV(UPPER, LOWER)                                             \
    for (i = 0; i < N; i++) {                                                    \
        t = 0;                                                                   \
        for (j = 0; j < i; j++)                                                  \
            t = t + A[LOWER] * X[kx + j * incX];                                 \
        for (j = i; j < N; j++)                                                  \
            t = t + A[UPPER] * X[kx + j * incX];                                 \
        Y[ky + i * incY] = alpha * t + (beta == 0 ? 0 : beta * Y[ky + i * incY]); \
    }

void cblas_ssymv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, const int N,
                 const float alpha, const float *A, const int lda, const float *X,
                 const int incX, const float beta, float *Y, const int incY)
{
    int i, j;
    float t;
    int kx = incX < 0 ? (1 - N) * incX : 0;
    int ky = incY < 0 ? (1 - N) * incY : 0;
    if ((Order == CblasRowMajor) == (Uplo == CblasUpper)) {
        __PASSMAN_SYMV(i * lda + j, i + j * lda)
    } else {
        __PASSMAN_SYMV(i + j * lda, i * lda + j)
    }
}

/* ------------------------------------------------------------------ level 3 */

/* C = alpha * op(A) * op(B) + beta * C; op(A)(i, l) is A[AIDX], op(B)(l, j) B[BIDX]. */
#define __PASSMAN_GEMM(AIDX, BIDX, CIDX)                                         \
    for (i = 0; i < M; i++)                                                      \
        for (j = 0; j < N; j++) {                                                \
            t = 0;                                                               \
            for (l = 0; l < K; l++)                                              \
                t = t + A[AIDX] * B[BIDX];                                       \
            C[CIDX] = alpha * t + (beta == 0 ? 0 : beta * C[CIDX]);              \
        }

void cblas_sgemm(const enum CBLAS_ORDER Order, const enum CBLAS_TRANSPOSE TransA,
                 const enum CBLAS_TRANSPOSE TransB, const int M, const int N, const int K,
                 const float alpha, const float *A, const int lda, const float *B,
                 const int ldb, const float beta, float *C, const int ldc)
{
    int i, j, l;
    float t;
    int ta = __PASSMAN_TRANSPOSED(TransA);
    int tb = __PASSMAN_TRANSPOSED(TransB);
    if (Order == CblasRowMajor) {
        if (!ta && !tb) {
            __PASSMAN_GEMM(i * lda + l, l * ldb + j, i * ldc + j)
        } else if (!ta) {
            __PASSMAN_GEMM(i * lda + l, l + j * ldb, i * ldc + j)
        } else if (!tb) {
            __PASSMAN_GEMM(i + l * lda, l * ldb + j, i * ldc + j)
        } else {
            __PASSMAN_GEMM(i + l * lda, l + j * ldb, i * ldc + j)
        }
    } else {
        if (!ta && !tb) {
            __PASSMAN_GEMM(i + l * lda, l + j * ldb, i + j * ldc)
        } else if (!ta) {
            __PASSMAN_GEMM(i + l * lda, l * ldb + j, i + j * ldc)
        } else if (!tb) {
            __PASSMAN_GEMM(i * lda + l, l + j * ldb, i + j * ldc)
        } else {
            __PASSMAN_GEMM(i * lda + l, l * ldb + j, i + j * ldc)
        }
    }
}

/* C = alpha * A * B + beta * C (left) or alpha * B * A + beta * C (right), A
   symmetric; A(p, q) is read as A[UP] when p <= q and A[LO] when p > q. */
#define __PASSMAN_SYMM_LEFT(UP, LO, BIDX, CIDX)                                  \
    for (i = 0; i < M; i++)                                                      \
        for (j = 0; j < N; j++) {                                                \
            t = 0;                                                               \
            for (k = 0; k < i; k++)                                              \
                t = t + A[LO] * B[BIDX];                                         \
            for (k = i; k < M; k++)                                              \
                t = t + A[UP] * B[BIDX];                                         \
            C[CIDX] = alpha * t + (beta == 0 ? 0 : beta * C[CIDX]);              \
        }
#define __PASSMAN_SYMM_RIGHT(UP, LO, BIDX, CIDX)                                 \
    for (i = 0; i < M; i++)                                                      \
        for (j = 0; j < N; j++) {                                                \
            t = 0;                                                               \
            for (k = 0; k <= j; k++)                                             \
                t = t + B[BIDX] * A[UP];                                         \
            for (k = j + 1; k < N; k++)                                          \
                t = t + B[BIDX] * A[LO];                                         \
            C[CIDX] = alpha * t + (beta == 0 ? 0 : beta * C[CIDX]);              \
        }

void cblas_ssymm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side,
                 const enum CBLAS_UPLO Uplo, const int M, const int N, const float alpha,
                 const float *A, const int lda, const float *B, const int ldb,
                 const float beta, float *C, const int ldc)
{
    int i, j, k;
    float t;
    int s = (Order == CblasRowMajor) == (Uplo == CblasUpper);
    if (Side == CblasLeft) {
        if (Order == CblasRowMajor) {
            if (s) {
                __PASSMAN_SYMM_LEFT(i * lda + k, i + k * lda, k * ldb + j, i * ldc + j)
            } else {
                __PASSMAN_SYMM_LEFT(i + k * lda, i * lda + k, k * ldb + j, i * ldc + j)
            }
        } else {
            if (s) {
                __PASSMAN_SYMM_LEFT(i * lda + k, i + k * lda, k + j * ldb, i + j * ldc)
            } else {
                __PASSMAN_SYMM_LEFT(i + k * lda, i * lda + k, k + j * ldb, i + j * ldc)
            }
        }
    } else {
        if (Order == CblasRowMajor) {
            if (s) {
                __PASSMAN_SYMM_RIGHT(k * lda + j, k + j * lda, i * ldb + k, i * ldc + j)
            } else {
                __PASSMAN_SYMM_RIGHT(k + j * lda, k * lda + j, i * ldb + k, i * ldc + j)
            }
        } else {
            if (s) {
                __PASSMAN_SYMM_RIGHT(k * lda + j, k + j * lda, i + k * ldb, i + j * ldc)
            } else {
                __PASSMAN_SYMM_RIGHT(k + j * lda, k * lda + j, i + k * ldb, i + j * ldc)
            }
        }
    }
}

/* C = alpha * op(A) * op(A)' + beta * C on the uplo triangle of C only:
   op(A)(i, l) is A[AI], op(A)(j, l) A[AJ]; j runs over [JLO, JHI). */
#define __PASSMAN_SYRK(JLO, JHI, AI, AJ, CIDX)                                   \
    for (i = 0; i < N; i++)                                                      \
        for (j = JLO; j < JHI; j++) {                                            \
            t = 0;                                                               \
            for (l = 0; l < K; l++)                                              \
                t = t + A[AI] * A[AJ];                                           \
            C[CIDX] = alpha * t + (beta == 0 ? 0 : beta * C[CIDX]);              \
        }

void cblas_ssyrk(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,
                 const enum CBLAS_TRANSPOSE Trans, const int N, const int K, const float alpha,
                 const float *A, const int lda, const float beta, float *C, const int ldc)
{
    int i, j, l;
    float t;
    int trans = __PASSMAN_TRANSPOSED(Trans);
    int rowlike = (Order == CblasRowMajor) != trans;
    if (Order == CblasRowMajor) {
        if (Uplo == CblasUpper) {
            if (rowlike) {
                __PASSMAN_SYRK(i, N, i * lda + l, j * lda + l, i * ldc + j)
            } else {
                __PASSMAN_SYRK(i, N, i + l * lda, j + l * lda, i * ldc + j)
            }
        } else {
            if (rowlike) {
                __PASSMAN_SYRK(0, i + 1, i * lda + l, j * lda + l, i * ldc + j)
            } else {
                __PASSMAN_SYRK(0, i + 1, i + l * lda, j + l * lda, i * ldc + j)
            }
        }
    } else {
        if (Uplo == CblasUpper) {
            if (rowlike) {
                __PASSMAN_SYRK(i, N, i * lda + l, j * lda + l, i + j * ldc)
            } else {
                __PASSMAN_SYRK(i, N, i + l * lda, j + l * lda, i + j * ldc)
            }
        } else {
            if (rowlike) {
                __PASSMAN_SYRK(0, i + 1, i * lda + l, j * lda + l, i + j * ldc)
            } else {
                __PASSMAN_SYRK(0, i + 1, i + l * lda, j + l * lda, i + j * ldc)
            }
        }
    }
}

/* Solve op(A) * X = alpha * B (left) or X * op(A) = alpha * B (right), X
   overwriting B (M x N); op(A)(p, q) is A[AIDX], its diagonal A[p * lda + p]. */
#define __PASSMAN_TRSM_LEFT(ISTART, ICOND, ISTEP, KLO, KHI, AIDX, BIJ, BKJ)       \
    for (j = 0; j < N; j++)                                                      \
        for (i = ISTART; ICOND; ISTEP) {                                         \
            t = alpha * B[BIJ];                                                  \
            for (k = KLO; k < KHI; k++)                                          \
                t = t - A[AIDX] * B[BKJ];                                        \
            if (Diag == CblasNonUnit)                                            \
                t = t / A[i * lda + i];                                          \
            B[BIJ] = t;                                                          \
        }
#define __PASSMAN_TRSM_RIGHT(JSTART, JCOND, JSTEP, KLO, KHI, AIDX, BIJ, BIK)      \
    for (i = 0; i < M; i++)                                                      \
        for (j = JSTART; JCOND; JSTEP) {                                         \
            t = alpha * B[BIJ];                                                  \
            for (k = KLO; k < KHI; k++)                                          \
                t = t - B[BIK] * A[AIDX];                                        \
            if (Diag == CblasNonUnit)                                            \
                t = t / A[j * lda + j];                                          \
            B[BIJ] = t;                                                          \
        }
/* the four solves of one side, for row-like (RL) or column-like op(A) indexing */
#define __PASSMAN_TRSM_L(A_RL, A_CL, BIJ, BKJ)                                   \
    if (rowlike) {                                                               \
        if (lower) {                                                             \
            __PASSMAN_TRSM_LEFT(0, i < M, i++, 0, i, A_RL, BIJ, BKJ)             \
        } else {                                                                 \
            __PASSMAN_TRSM_LEFT(M - 1, i >= 0, i--, i + 1, M, A_RL, BIJ, BKJ)    \
        }                                                                        \
    } else {                                                                     \
        if (lower) {                                                             \
            __PASSMAN_TRSM_LEFT(0, i < M, i++, 0, i, A_CL, BIJ, BKJ)             \
        } else {                                                                 \
            __PASSMAN_TRSM_LEFT(M - 1, i >= 0, i--, i + 1, M, A_CL, BIJ, BKJ)    \
        }                                                                        \
    }
#define __PASSMAN_TRSM_R(A_RL, A_CL, BIJ, BIK)                                   \
    if (rowlike) {                                                               \
        if (!lower) {                                                            \
            __PASSMAN_TRSM_RIGHT(0, j < N, j++, 0, j, A_RL, BIJ, BIK)            \
        } else {                                                                 \
            __PASSMAN_TRSM_RIGHT(N - 1, j >= 0, j--, j + 1, N, A_RL, BIJ, BIK)   \
        }                                                                        \
    } else {                                                                     \
        if (!lower) {                                                            \
            __PASSMAN_TRSM_RIGHT(0, j < N, j++, 0, j, A_CL, BIJ, BIK)            \
        } else {                                                                 \
            __PASSMAN_TRSM_RIGHT(N - 1, j >= 0, j--, j + 1, N, A_CL, BIJ, BIK)   \
        }                                                                        \
    }

void cblas_strsm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side,
                 const enum CBLAS_UPLO Uplo, const enum CBLAS_TRANSPOSE TransA,
                 const enum CBLAS_DIAG Diag, const int M, const int N, const float alpha,
                 const float *A, const int lda, float *B, const int ldb)
{
    int i, j, k;
    float t;
    int trans = __PASSMAN_TRANSPOSED(TransA);
    int lower = (Uplo == CblasLower) != trans;
    int rowlike = (Order == CblasRowMajor) != trans;
    if (Side == CblasLeft) {
        if (Order == CblasRowMajor) {
            __PASSMAN_TRSM_L(i * lda + k, i + k * lda, i * ldb + j, k * ldb + j)
        } else {
            __PASSMAN_TRSM_L(i * lda + k, i + k * lda, i + j * ldb, k + j * ldb)
        }
    } else {
        if (Order == CblasRowMajor) {
            __PASSMAN_TRSM_R(k * lda + j, k + j * lda, i * ldb + j, i * ldb + k)
        } else {
            __PASSMAN_TRSM_R(k * lda + j, k + j * lda, i + j * ldb, i + k * ldb)
        }
    }
}
