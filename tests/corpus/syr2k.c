/* syr2k: symmetric rank-2k update of the lower triangle, C = alpha*A*B^T + alpha*B*A^T + beta*C. */
#include <stdio.h>
#include <stdlib.h>

#define N 120
#define M 100

static void init_array(int n, int m, double *alpha, double *beta, double C[n][n], double A[n][m],
                       double B[n][m])
{
    *alpha = 1.5;
    *beta = 1.2;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++) {
            A[i][j] = (double)((i * j + 1) % n) / n;
            B[i][j] = (double)((i * j + 2) % m) / m;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            C[i][j] = (double)((i * j + 3) % n) / m;
}

static void kernel_syr2k(int n, int m, double alpha, double beta, double C[n][n], double A[n][m],
                         double B[n][m])
{
    int i, j, k;

    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            C[i][j] *= beta;
        for (k = 0; k < m; k++)
            for (j = 0; j <= i; j++)
                C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
    }
}

int main(void)
{
    double (*C)[N] = malloc(N * sizeof(*C));
    double (*A)[M] = malloc(N * sizeof(*A));
    double (*B)[M] = malloc(N * sizeof(*B));
    double alpha, beta, s = 0.0;

    if (!C || !A || !B)
        return 1;
    init_array(N, M, &alpha, &beta, C, A, B);
    kernel_syr2k(N, M, alpha, beta, C, A, B);
    for (int i = 0; i < N; i++)
        for (int j = 0; j <= i; j++)
            s += C[i][j] * ((i + 2 * j) % 5 + 1);
    printf("%.6e\n", s);
    free(C);
    free(A);
    free(B);
    return 0;
}
