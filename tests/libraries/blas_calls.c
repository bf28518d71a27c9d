/* CBLAS calls: C = alpha * A * B' + beta * C (dgemm, row-major), then
   y = 2 x + y (daxpy) and a dot product (ddot), with checksums. Needs a
   CBLAS (-lopenblas). */
#include <stdio.h>
#include <cblas.h>

#define M 12
#define N 10
#define K 7

static double A[M][K], B[N][K], C[M][N];
static double x[M * N], y[M * N];

static void init(void)
{
    for (int i = 0; i < M; i++)
        for (int k = 0; k < K; k++)
            A[i][k] = ((i * K + k) % 13) / 13.0 - 0.5;
    for (int j = 0; j < N; j++)
        for (int k = 0; k < K; k++)
            B[j][k] = ((j + 3 * k) % 7) / 7.0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            C[i][j] = i == j ? 1.0 : 0.0;
    for (int i = 0; i < M * N; i++)
        y[i] = (i % 4) * 0.25;
}

int main(void)
{
    double s = 0;
    init();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, 1.5, &A[0][0], K, &B[0][0], K,
                0.5, &C[0][0], N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j] * (1 + (i + j) % 3);
    printf("dgemm %.6f\n", s);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            x[i * N + j] = C[i][j];
    cblas_daxpy(M * N, 2.0, x, 1, y, 1);
    printf("daxpy %.6f\n", y[0] + y[M * N / 2] + y[M * N - 1]);
    printf("ddot %.6f\n", cblas_ddot(M * N, x, 1, y, 1));
    return 0;
}
