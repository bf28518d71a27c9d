/* CBLAS levels 1 to 3 between kernels: init on the host, a kernel, dgemm on
   its output, a kernel, dgemv, daxpy and dscal on parts of vectors (pointer
   arguments &A[0][0], B[0], x + 1), a dot product into a scalar, a kernel
   that uses it, a checksum. Needs a CBLAS (-lopenblas). */
#include <stdio.h>
#include <cblas.h>

#define N 24

static double A[N][N], B[N][N], C[N][N], x[N], y[N], z[N];

static void init(void)
{
    for (int i = 0; i < N; i++) {
        for (int j = 0; j < N; j++) {
            A[i][j] = ((i * N + j) % 13) / 13.0 - 0.5;
            B[i][j] = ((i + 3 * j) % 7) / 7.0;
        }
        x[i] = (i % 5) * 0.25 - 0.5;
    }
}

int main(void)
{
    double s = 0, d;
    init();
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = A[i][j] * 0.5 + B[j][i];
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, N, N, N, 1.0, &A[0][0], N, B[0], N, 0.0,
                C[0], N);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            C[i][j] = C[i][j] + (i == j);
    cblas_dgemv(CblasRowMajor, CblasNoTrans, N, N, 0.5, &C[0][0], N, x, 1, 0.0, y, 1);
    cblas_daxpy(N - 2, 2.0, x + 1, 1, y + 1, 1);
    cblas_dscal(N, 0.5, &y[0], 1);
    d = cblas_ddot(N, x, 1, y, 1);
    for (int i = 0; i < N; i++)
        z[i] = y[i] * d + C[i][i];
    for (int i = 0; i < N; i++)
        s += z[i] * (1 + i % 3);
    printf("checksum %.10f\n", s);
    return 0;
}
