/* gesummv: y = alpha*A*x + beta*B*x, two matrix-vector products fused in one loop. */
#include <stdio.h>
#include <stdlib.h>

#define N 250

static void init_array(int n, double *alpha, double *beta, double A[n][n], double B[n][n], double x[n])
{
    *alpha = 1.5;
    *beta = 1.2;
    for (int i = 0; i < n; i++) {
        x[i] = (double)(i % n) / n;
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * j + 1) % n) / n;
            B[i][j] = (double)((i * j + 2) % n) / n;
        }
    }
}

static void kernel_gesummv(int n, double alpha, double beta, double A[n][n], double B[n][n],
                           double tmp[n], double x[n], double y[n])
{
    int i, j;

    for (i = 0; i < n; i++) {
        tmp[i] = 0.0;
        y[i] = 0.0;
        for (j = 0; j < n; j++) {
            tmp[i] = A[i][j] * x[j] + tmp[i];
            y[i] = B[i][j] * x[j] + y[i];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}

int main(void)
{
    static double A[N][N], B[N][N], tmp[N], x[N], y[N];
    double alpha, beta, s = 0.0;

    init_array(N, &alpha, &beta, A, B, x);
    kernel_gesummv(N, alpha, beta, A, B, tmp, x, y);
    for (int i = 0; i < N; i++)
        s += y[i] * (i % 7 + 1);
    printf("%.6e\n", s);
    return 0;
}
