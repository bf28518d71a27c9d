/* gemver: rank-2 update of A, then x = beta*A^T*y + z, w = alpha*A*x. */
#include <stdio.h>
#include <stdlib.h>

#define N 300

static void init_array(int n, double *alpha, double *beta, double A[n][n],
                       double u1[n], double v1[n], double u2[n], double v2[n],
                       double w[n], double x[n], double y[n], double z[n])
{
    int i, j;
    double fn = (double)n;

    *alpha = 1.5;
    *beta = 1.2;
    for (i = 0; i < n; i++) {
        u1[i] = i;
        u2[i] = ((i + 1) / fn) / 2.0;
        v1[i] = ((i + 1) / fn) / 4.0;
        v2[i] = ((i + 1) / fn) / 6.0;
        y[i] = ((i + 1) / fn) / 8.0;
        z[i] = ((i + 1) / fn) / 9.0;
        x[i] = 0.0;
        w[i] = 0.0;
        for (j = 0; j < n; j++)
            A[i][j] = (double)(i * j % n) / n;
    }
}

static void kernel_gemver(int n, double alpha, double beta, double A[n][n],
                          double u1[n], double v1[n], double u2[n], double v2[n],
                          double w[n], double x[n], double y[n], double z[n])
{
    int i, j;

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            x[i] = x[i] + beta * A[j][i] * y[j];

    for (i = 0; i < n; i++)
        x[i] = x[i] + z[i];

    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            w[i] = w[i] + alpha * A[i][j] * x[j];
}

int main(void)
{
    double alpha, beta, s = 0.0;
    double (*A)[N] = malloc(sizeof(double) * N * N);
    double *u1 = malloc(N * sizeof(double));
    double *v1 = malloc(N * sizeof(double));
    double *u2 = malloc(N * sizeof(double));
    double *v2 = malloc(N * sizeof(double));
    double *w = malloc(N * sizeof(double));
    double *x = malloc(N * sizeof(double));
    double *y = malloc(N * sizeof(double));
    double *z = malloc(N * sizeof(double));

    if (!A || !u1 || !v1 || !u2 || !v2 || !w || !x || !y || !z)
        return 1;
    init_array(N, &alpha, &beta, A, u1, v1, u2, v2, w, x, y, z);
    kernel_gemver(N, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
    for (int i = 0; i < N; i++)
        s += w[i] / N;
    printf("%.6e\n", s);
    free(A); free(u1); free(v1); free(u2); free(v2);
    free(w); free(x); free(y); free(z);
    return 0;
}
