/* CBLAS on cuBLAS (the blas broker's cuda implementation).

   Programs keep calling CBLAS; each call copies the operands it reads to the
   GPU, runs the cuBLAS routine and copies back what it writes. The device
   entry points (passman_dev_cblas_*, called by kernel_data_mapping's library
   launches) run the same routines on device addresses, with no copy. cuBLAS is
   column-major: a row-major call is the column-major call on the transposed
   problem (swap the operands, flip transpositions, triangles and sides).
   Compiled with nvcc and linked with -lcublas. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

extern "C" {

enum CBLAS_ORDER {CblasRowMajor = 101, CblasColMajor = 102};
enum CBLAS_TRANSPOSE {CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113,
                      CblasConjNoTrans = 114};
enum CBLAS_UPLO {CblasUpper = 121, CblasLower = 122};
enum CBLAS_DIAG {CblasNonUnit = 131, CblasUnit = 132};
enum CBLAS_SIDE {CblasLeft = 141, CblasRight = 142};
typedef size_t CBLAS_INDEX;

#define PASSMAN_CHECK_CUDA(call)                                                         \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            fprintf(stderr, "cblas on cuBLAS: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)
#define PASSMAN_CHECK_CUBLAS(call)                                                       \
    do {                                                                                 \
        cublasStatus_t s_ = (call);                                                      \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                               \
            fprintf(stderr, "cblas on cuBLAS: %s failed (%d)\n", #call, (int) s_);       \
            exit(1);                                                                     \
        }                                                                                \
    } while (0)

static cublasHandle_t passman_cublas(void)
{
    static cublasHandle_t handle;
    static int ready;
    if (!ready) {
        PASSMAN_CHECK_CUBLAS(cublasCreate(&handle));
        ready = 1;
    }
    return handle;
}

/* Elements spanned by a vector of n elements with increment inc. */
static size_t passman_vlen(int n, int inc)
{
    return n < 1 ? 0 : (size_t) 1 + (size_t) (n - 1) * (size_t) (inc < 0 ? -inc : inc);
}

/* Elements spanned by a column-major rows x cols matrix with leading dimension ld. */
static size_t passman_mlen(int rows, int cols, int ld)
{
    return rows < 1 || cols < 1 ? 0 : (size_t) ld * (size_t) (cols - 1) + (size_t) rows;
}

static void *passman_to_gpu(const void *host, size_t bytes)
{
    void *dev = NULL;
    PASSMAN_CHECK_CUDA(cudaMalloc(&dev, bytes ? bytes : 1));
    if (bytes)
        PASSMAN_CHECK_CUDA(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    return dev;
}

static void passman_to_host(void *host, void *dev, size_t bytes)
{
    if (bytes)
        PASSMAN_CHECK_CUDA(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    cudaFree(dev);
}

static int passman_trans(enum CBLAS_TRANSPOSE t)
{
    return t == CblasTrans || t == CblasConjTrans;
}

static cublasOperation_t passman_op(int transposed)
{
    return transposed ? CUBLAS_OP_T : CUBLAS_OP_N;
}

static cublasFillMode_t passman_fill(enum CBLAS_UPLO u, int flip)
{
    return (u == CblasUpper) != flip ? CUBLAS_FILL_MODE_UPPER : CUBLAS_FILL_MODE_LOWER;
}

static cublasSideMode_t passman_side(enum CBLAS_SIDE s, int flip)
{
    return (s == CblasLeft) != flip ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
}

static cublasDiagType_t passman_diag(enum CBLAS_DIAG d)
{
    return d == CblasUnit ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

/* The API of one precision: p is the CBLAS letter (d, s), P the cuBLAS one (D, S). */
#define PASSMAN_CBLAS_API(p, P, R)                                                          \
    void cblas_##p##axpy(const int N, const R alpha, const R *X, const int incX, R *Y,      \
                         const int incY)                                                    \
    {                                                                                       \
        size_t nx = passman_vlen(N, incX) * sizeof(R), ny = passman_vlen(N, incY) * sizeof(R); \
        R *dx = (R *) passman_to_gpu(X, nx), *dy = (R *) passman_to_gpu(Y, ny);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##axpy(passman_cublas(), N, &alpha, dx, incX, dy, incY)); \
        passman_to_host(Y, dy, ny);                                                         \
        cudaFree(dx);                                                                       \
    }                                                                                       \
    R cblas_##p##dot(const int N, const R *X, const int incX, const R *Y, const int incY)   \
    {                                                                                       \
        R r = 0;                                                                            \
        size_t nx = passman_vlen(N, incX) * sizeof(R), ny = passman_vlen(N, incY) * sizeof(R); \
        R *dx = (R *) passman_to_gpu(X, nx), *dy = (R *) passman_to_gpu(Y, ny);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##dot(passman_cublas(), N, dx, incX, dy, incY, &r));  \
        cudaFree(dx);                                                                       \
        cudaFree(dy);                                                                       \
        return r;                                                                           \
    }                                                                                       \
    void cblas_##p##scal(const int N, const R alpha, R *X, const int incX)                  \
    {                                                                                       \
        size_t nx;                                                                          \
        R *dx;                                                                              \
        if (incX <= 0)                                                                      \
            return;                                                                         \
        nx = passman_vlen(N, incX) * sizeof(R);                                             \
        dx = (R *) passman_to_gpu(X, nx);                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##scal(passman_cublas(), N, &alpha, dx, incX));       \
        passman_to_host(X, dx, nx);                                                         \
    }                                                                                       \
    void cblas_##p##copy(const int N, const R *X, const int incX, R *Y, const int incY)     \
    {                                                                                       \
        size_t nx = passman_vlen(N, incX) * sizeof(R), ny = passman_vlen(N, incY) * sizeof(R); \
        R *dx = (R *) passman_to_gpu(X, nx), *dy = (R *) passman_to_gpu(Y, ny);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##copy(passman_cublas(), N, dx, incX, dy, incY));     \
        passman_to_host(Y, dy, ny);                                                         \
        cudaFree(dx);                                                                       \
    }                                                                                       \
    void cblas_##p##swap(const int N, R *X, const int incX, R *Y, const int incY)           \
    {                                                                                       \
        size_t nx = passman_vlen(N, incX) * sizeof(R), ny = passman_vlen(N, incY) * sizeof(R); \
        R *dx = (R *) passman_to_gpu(X, nx), *dy = (R *) passman_to_gpu(Y, ny);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##swap(passman_cublas(), N, dx, incX, dy, incY));     \
        passman_to_host(X, dx, nx);                                                         \
        passman_to_host(Y, dy, ny);                                                         \
    }                                                                                       \
    R cblas_##p##nrm2(const int N, const R *X, const int incX)                              \
    {                                                                                       \
        R r = 0;                                                                            \
        size_t nx;                                                                          \
        R *dx;                                                                              \
        if (N < 1 || incX < 1)                                                              \
            return 0;                                                                       \
        nx = passman_vlen(N, incX) * sizeof(R);                                             \
        dx = (R *) passman_to_gpu(X, nx);                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##nrm2(passman_cublas(), N, dx, incX, &r));           \
        cudaFree(dx);                                                                       \
        return r;                                                                           \
    }                                                                                       \
    R cblas_##p##asum(const int N, const R *X, const int incX)                              \
    {                                                                                       \
        R r = 0;                                                                            \
        size_t nx;                                                                          \
        R *dx;                                                                              \
        if (N < 1 || incX < 1)                                                              \
            return 0;                                                                       \
        nx = passman_vlen(N, incX) * sizeof(R);                                             \
        dx = (R *) passman_to_gpu(X, nx);                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##asum(passman_cublas(), N, dx, incX, &r));           \
        cudaFree(dx);                                                                       \
        return r;                                                                           \
    }                                                                                       \
    CBLAS_INDEX cblas_i##p##amax(const int N, const R *X, const int incX)                   \
    {                                                                                       \
        int r = 0;                                                                          \
        size_t nx;                                                                          \
        R *dx;                                                                              \
        if (N < 1 || incX < 1)                                                              \
            return 0;                                                                       \
        nx = passman_vlen(N, incX) * sizeof(R);                                             \
        dx = (R *) passman_to_gpu(X, nx);                                                   \
        PASSMAN_CHECK_CUBLAS(cublasI##p##amax(passman_cublas(), N, dx, incX, &r));          \
        cudaFree(dx);                                                                       \
        return (CBLAS_INDEX) (r - 1); /* cuBLAS counts from 1 */                            \
    }                                                                                       \
    void cblas_##p##gemv(const enum CBLAS_ORDER Order, const enum CBLAS_TRANSPOSE TransA,   \
                         const int M, const int N, const R alpha, const R *A, const int lda, \
                         const R *X, const int incX, const R beta, R *Y, const int incY)    \
    {                                                                                       \
        int row = Order == CblasRowMajor, t = passman_trans(TransA) != row;                 \
        int m = row ? N : M, n = row ? M : N; /* the column-major problem */                \
        size_t na = passman_mlen(m, n, lda) * sizeof(R);                                    \
        size_t nx = passman_vlen(t ? m : n, incX) * sizeof(R);                              \
        size_t ny = passman_vlen(t ? n : m, incY) * sizeof(R);                              \
        R *da = (R *) passman_to_gpu(A, na), *dx = (R *) passman_to_gpu(X, nx);             \
        R *dy = (R *) passman_to_gpu(Y, ny);                                                \
        PASSMAN_CHECK_CUBLAS(cublas##P##gemv(passman_cublas(), passman_op(t), m, n, &alpha, \
                                             da, lda, dx, incX, &beta, dy, incY));          \
        passman_to_host(Y, dy, ny);                                                         \
        cudaFree(da);                                                                       \
        cudaFree(dx);                                                                       \
    }                                                                                       \
    void cblas_##p##ger(const enum CBLAS_ORDER Order, const int M, const int N,             \
                        const R alpha, const R *X, const int incX, const R *Y,              \
                        const int incY, R *A, const int lda)                                \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        size_t na = passman_mlen(row ? N : M, row ? M : N, lda) * sizeof(R);                \
        size_t nx = passman_vlen(M, incX) * sizeof(R), ny = passman_vlen(N, incY) * sizeof(R); \
        R *da = (R *) passman_to_gpu(A, na), *dx = (R *) passman_to_gpu(X, nx);             \
        R *dy = (R *) passman_to_gpu(Y, ny);                                                \
        if (row)                                                                            \
            PASSMAN_CHECK_CUBLAS(cublas##P##ger(passman_cublas(), N, M, &alpha, dy, incY,   \
                                                dx, incX, da, lda));                        \
        else                                                                                \
            PASSMAN_CHECK_CUBLAS(cublas##P##ger(passman_cublas(), M, N, &alpha, dx, incX,   \
                                                dy, incY, da, lda));                        \
        passman_to_host(A, da, na);                                                         \
        cudaFree(dx);                                                                       \
        cudaFree(dy);                                                                       \
    }                                                                                       \
    void cblas_##p##trsv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,          \
                         const enum CBLAS_TRANSPOSE TransA, const enum CBLAS_DIAG Diag,     \
                         const int N, const R *A, const int lda, R *X, const int incX)      \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        size_t na = passman_mlen(N, N, lda) * sizeof(R), nx = passman_vlen(N, incX) * sizeof(R); \
        R *da = (R *) passman_to_gpu(A, na), *dx = (R *) passman_to_gpu(X, nx);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##trsv(passman_cublas(), passman_fill(Uplo, row),     \
                                             passman_op(passman_trans(TransA) != row),      \
                                             passman_diag(Diag), N, da, lda, dx, incX));    \
        passman_to_host(X, dx, nx);                                                         \
        cudaFree(da);                                                                       \
    }                                                                                       \
    void cblas_##p##symv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,          \
                         const int N, const R alpha, const R *A, const int lda, const R *X, \
                         const int incX, const R beta, R *Y, const int incY)                \
    {                                                                                       \
        size_t na = passman_mlen(N, N, lda) * sizeof(R);                                    \
        size_t nx = passman_vlen(N, incX) * sizeof(R), ny = passman_vlen(N, incY) * sizeof(R); \
        R *da = (R *) passman_to_gpu(A, na), *dx = (R *) passman_to_gpu(X, nx);             \
        R *dy = (R *) passman_to_gpu(Y, ny);                                                \
        PASSMAN_CHECK_CUBLAS(cublas##P##symv(passman_cublas(),                              \
                                             passman_fill(Uplo, Order == CblasRowMajor), N, \
                                             &alpha, da, lda, dx, incX, &beta, dy, incY));  \
        passman_to_host(Y, dy, ny);                                                         \
        cudaFree(da);                                                                       \
        cudaFree(dx);                                                                       \
    }                                                                                       \
    void cblas_##p##gemm(const enum CBLAS_ORDER Order, const enum CBLAS_TRANSPOSE TransA,   \
                         const enum CBLAS_TRANSPOSE TransB, const int M, const int N,       \
                         const int K, const R alpha, const R *A, const int lda, const R *B, \
                         const int ldb, const R beta, R *C, const int ldc)                  \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        /* column-major C' = op(A') op(B') with (A', B', m, n) swapped when row-major */    \
        const R *a = row ? B : A, *b = row ? A : B;                                         \
        int lda2 = row ? ldb : lda, ldb2 = row ? lda : ldb;                                 \
        int ta = passman_trans(row ? TransB : TransA), tb = passman_trans(row ? TransA : TransB); \
        int m = row ? N : M, n = row ? M : N;                                               \
        size_t na = passman_mlen(ta ? K : m, ta ? m : K, lda2) * sizeof(R);                 \
        size_t nb = passman_mlen(tb ? n : K, tb ? K : n, ldb2) * sizeof(R);                 \
        size_t nc = passman_mlen(m, n, ldc) * sizeof(R);                                    \
        R *da = (R *) passman_to_gpu(a, na), *db = (R *) passman_to_gpu(b, nb);             \
        R *dc = (R *) passman_to_gpu(C, nc);                                                \
        PASSMAN_CHECK_CUBLAS(cublas##P##gemm(passman_cublas(), passman_op(ta), passman_op(tb), \
                                             m, n, K, &alpha, da, lda2, db, ldb2, &beta, dc, \
                                             ldc));                                         \
        passman_to_host(C, dc, nc);                                                         \
        cudaFree(da);                                                                       \
        cudaFree(db);                                                                       \
    }                                                                                       \
    void cblas_##p##symm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side,          \
                         const enum CBLAS_UPLO Uplo, const int M, const int N,              \
                         const R alpha, const R *A, const int lda, const R *B,              \
                         const int ldb, const R beta, R *C, const int ldc)                  \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        int m = row ? N : M, n = row ? M : N;                                               \
        cublasSideMode_t side = passman_side(Side, row);                                    \
        int ka = side == CUBLAS_SIDE_LEFT ? m : n;                                          \
        size_t na = passman_mlen(ka, ka, lda) * sizeof(R);                                  \
        size_t nb = passman_mlen(m, n, ldb) * sizeof(R), nc = passman_mlen(m, n, ldc) * sizeof(R); \
        R *da = (R *) passman_to_gpu(A, na), *db = (R *) passman_to_gpu(B, nb);             \
        R *dc = (R *) passman_to_gpu(C, nc);                                                \
        PASSMAN_CHECK_CUBLAS(cublas##P##symm(passman_cublas(), side, passman_fill(Uplo, row), \
                                             m, n, &alpha, da, lda, db, ldb, &beta, dc, ldc)); \
        passman_to_host(C, dc, nc);                                                         \
        cudaFree(da);                                                                       \
        cudaFree(db);                                                                       \
    }                                                                                       \
    void cblas_##p##syrk(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo,          \
                         const enum CBLAS_TRANSPOSE Trans, const int N, const int K,        \
                         const R alpha, const R *A, const int lda, const R beta, R *C,      \
                         const int ldc)                                                     \
    {                                                                                       \
        int row = Order == CblasRowMajor, t = passman_trans(Trans) != row;                  \
        size_t na = passman_mlen(t ? K : N, t ? N : K, lda) * sizeof(R);                    \
        size_t nc = passman_mlen(N, N, ldc) * sizeof(R);                                    \
        R *da = (R *) passman_to_gpu(A, na), *dc = (R *) passman_to_gpu(C, nc);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##syrk(passman_cublas(), passman_fill(Uplo, row),     \
                                             passman_op(t), N, K, &alpha, da, lda, &beta,   \
                                             dc, ldc));                                     \
        passman_to_host(C, dc, nc);                                                         \
        cudaFree(da);                                                                       \
    }                                                                                       \
    void cblas_##p##trsm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side,          \
                         const enum CBLAS_UPLO Uplo, const enum CBLAS_TRANSPOSE TransA,     \
                         const enum CBLAS_DIAG Diag, const int M, const int N,              \
                         const R alpha, const R *A, const int lda, R *B, const int ldb)     \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        int m = row ? N : M, n = row ? M : N;                                               \
        cublasSideMode_t side = passman_side(Side, row);                                    \
        int ka = side == CUBLAS_SIDE_LEFT ? m : n;                                          \
        size_t na = passman_mlen(ka, ka, lda) * sizeof(R), nb = passman_mlen(m, n, ldb) * sizeof(R); \
        R *da = (R *) passman_to_gpu(A, na), *db = (R *) passman_to_gpu(B, nb);             \
        PASSMAN_CHECK_CUBLAS(cublas##P##trsm(passman_cublas(), side, passman_fill(Uplo, row), \
                                             passman_op(passman_trans(TransA)),             \
                                             passman_diag(Diag), m, n, &alpha, da, lda, db, ldb)); \
        passman_to_host(B, db, nb);                                                         \
        cudaFree(da);                                                                       \
    }

PASSMAN_CBLAS_API(d, D, double)
PASSMAN_CBLAS_API(s, S, float)

/* The device entry points of one precision (passman_dev_cblas_*, passman_dev_cblas.h): the
   same calls on device addresses (kernel_data_mapping's buffers), so no copy; the scalar
   results (dot, nrm2, asum, iamax) come back to the host as cuBLAS returns them. */
#define PASSMAN_CBLAS_DEVICE_API(p, P, R)                                                   \
    void passman_dev_cblas_##p##axpy(const int N, const R alpha, const R *X, const int incX, \
                                     R *Y, const int incY)                                  \
    {                                                                                       \
        PASSMAN_CHECK_CUBLAS(cublas##P##axpy(passman_cublas(), N, &alpha, X, incX, Y, incY)); \
    }                                                                                       \
    R passman_dev_cblas_##p##dot(const int N, const R *X, const int incX, const R *Y,       \
                                 const int incY)                                            \
    {                                                                                       \
        R r = 0;                                                                            \
        PASSMAN_CHECK_CUBLAS(cublas##P##dot(passman_cublas(), N, X, incX, Y, incY, &r));    \
        return r;                                                                           \
    }                                                                                       \
    void passman_dev_cblas_##p##scal(const int N, const R alpha, R *X, const int incX)      \
    {                                                                                       \
        if (incX > 0)                                                                       \
            PASSMAN_CHECK_CUBLAS(cublas##P##scal(passman_cublas(), N, &alpha, X, incX));    \
    }                                                                                       \
    void passman_dev_cblas_##p##copy(const int N, const R *X, const int incX, R *Y,         \
                                     const int incY)                                        \
    {                                                                                       \
        PASSMAN_CHECK_CUBLAS(cublas##P##copy(passman_cublas(), N, X, incX, Y, incY));       \
    }                                                                                       \
    void passman_dev_cblas_##p##swap(const int N, R *X, const int incX, R *Y, const int incY) \
    {                                                                                       \
        PASSMAN_CHECK_CUBLAS(cublas##P##swap(passman_cublas(), N, X, incX, Y, incY));       \
    }                                                                                       \
    R passman_dev_cblas_##p##nrm2(const int N, const R *X, const int incX)                  \
    {                                                                                       \
        R r = 0;                                                                            \
        if (N < 1 || incX < 1)                                                              \
            return 0;                                                                       \
        PASSMAN_CHECK_CUBLAS(cublas##P##nrm2(passman_cublas(), N, X, incX, &r));            \
        return r;                                                                           \
    }                                                                                       \
    R passman_dev_cblas_##p##asum(const int N, const R *X, const int incX)                  \
    {                                                                                       \
        R r = 0;                                                                            \
        if (N < 1 || incX < 1)                                                              \
            return 0;                                                                       \
        PASSMAN_CHECK_CUBLAS(cublas##P##asum(passman_cublas(), N, X, incX, &r));            \
        return r;                                                                           \
    }                                                                                       \
    CBLAS_INDEX passman_dev_cblas_i##p##amax(const int N, const R *X, const int incX)       \
    {                                                                                       \
        int r = 0;                                                                          \
        if (N < 1 || incX < 1)                                                              \
            return 0;                                                                       \
        PASSMAN_CHECK_CUBLAS(cublasI##p##amax(passman_cublas(), N, X, incX, &r));           \
        return (CBLAS_INDEX) (r - 1);                                                       \
    }                                                                                       \
    void passman_dev_cblas_##p##gemv(const enum CBLAS_ORDER Order,                          \
                                     const enum CBLAS_TRANSPOSE TransA, const int M,        \
                                     const int N, const R alpha, const R *A, const int lda, \
                                     const R *X, const int incX, const R beta, R *Y,        \
                                     const int incY)                                        \
    {                                                                                       \
        int row = Order == CblasRowMajor, t = passman_trans(TransA) != row;                 \
        PASSMAN_CHECK_CUBLAS(cublas##P##gemv(passman_cublas(), passman_op(t), row ? N : M,  \
                                             row ? M : N, &alpha, A, lda, X, incX, &beta,   \
                                             Y, incY));                                     \
    }                                                                                       \
    void passman_dev_cblas_##p##ger(const enum CBLAS_ORDER Order, const int M, const int N, \
                                    const R alpha, const R *X, const int incX, const R *Y,  \
                                    const int incY, R *A, const int lda)                    \
    {                                                                                       \
        if (Order == CblasRowMajor)                                                         \
            PASSMAN_CHECK_CUBLAS(cublas##P##ger(passman_cublas(), N, M, &alpha, Y, incY, X, \
                                                incX, A, lda));                             \
        else                                                                                \
            PASSMAN_CHECK_CUBLAS(cublas##P##ger(passman_cublas(), M, N, &alpha, X, incX, Y, \
                                                incY, A, lda));                             \
    }                                                                                       \
    void passman_dev_cblas_##p##trsv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, \
                                     const enum CBLAS_TRANSPOSE TransA,                     \
                                     const enum CBLAS_DIAG Diag, const int N, const R *A,   \
                                     const int lda, R *X, const int incX)                   \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##trsv(passman_cublas(), passman_fill(Uplo, row),     \
                                             passman_op(passman_trans(TransA) != row),      \
                                             passman_diag(Diag), N, A, lda, X, incX));      \
    }                                                                                       \
    void passman_dev_cblas_##p##symv(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, \
                                     const int N, const R alpha, const R *A, const int lda, \
                                     const R *X, const int incX, const R beta, R *Y,        \
                                     const int incY)                                        \
    {                                                                                       \
        PASSMAN_CHECK_CUBLAS(cublas##P##symv(passman_cublas(),                              \
                                             passman_fill(Uplo, Order == CblasRowMajor), N, \
                                             &alpha, A, lda, X, incX, &beta, Y, incY));     \
    }                                                                                       \
    void passman_dev_cblas_##p##gemm(const enum CBLAS_ORDER Order,                          \
                                     const enum CBLAS_TRANSPOSE TransA,                     \
                                     const enum CBLAS_TRANSPOSE TransB, const int M,        \
                                     const int N, const int K, const R alpha, const R *A,   \
                                     const int lda, const R *B, const int ldb, const R beta, \
                                     R *C, const int ldc)                                   \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##gemm(                                               \
            passman_cublas(), passman_op(passman_trans(row ? TransB : TransA)),             \
            passman_op(passman_trans(row ? TransA : TransB)), row ? N : M, row ? M : N, K,  \
            &alpha, row ? B : A, row ? ldb : lda, row ? A : B, row ? lda : ldb, &beta, C,   \
            ldc));                                                                          \
    }                                                                                       \
    void passman_dev_cblas_##p##symm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side, \
                                     const enum CBLAS_UPLO Uplo, const int M, const int N,  \
                                     const R alpha, const R *A, const int lda, const R *B,  \
                                     const int ldb, const R beta, R *C, const int ldc)      \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##symm(passman_cublas(), passman_side(Side, row),     \
                                             passman_fill(Uplo, row), row ? N : M,          \
                                             row ? M : N, &alpha, A, lda, B, ldb, &beta, C, \
                                             ldc));                                         \
    }                                                                                       \
    void passman_dev_cblas_##p##syrk(const enum CBLAS_ORDER Order, const enum CBLAS_UPLO Uplo, \
                                     const enum CBLAS_TRANSPOSE Trans, const int N,         \
                                     const int K, const R alpha, const R *A, const int lda, \
                                     const R beta, R *C, const int ldc)                     \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##syrk(passman_cublas(), passman_fill(Uplo, row),     \
                                             passman_op(passman_trans(Trans) != row), N, K, \
                                             &alpha, A, lda, &beta, C, ldc));               \
    }                                                                                       \
    void passman_dev_cblas_##p##trsm(const enum CBLAS_ORDER Order, const enum CBLAS_SIDE Side, \
                                     const enum CBLAS_UPLO Uplo,                            \
                                     const enum CBLAS_TRANSPOSE TransA,                     \
                                     const enum CBLAS_DIAG Diag, const int M, const int N,  \
                                     const R alpha, const R *A, const int lda, R *B,        \
                                     const int ldb)                                         \
    {                                                                                       \
        int row = Order == CblasRowMajor;                                                   \
        PASSMAN_CHECK_CUBLAS(cublas##P##trsm(passman_cublas(), passman_side(Side, row),     \
                                             passman_fill(Uplo, row),                       \
                                             passman_op(passman_trans(TransA)),             \
                                             passman_diag(Diag), row ? N : M, row ? M : N,  \
                                             &alpha, A, lda, B, ldb));                      \
    }

PASSMAN_CBLAS_DEVICE_API(d, D, double)
PASSMAN_CBLAS_DEVICE_API(s, S, float)

} /* extern "C" */
