/* symm: C = alpha*A*B + beta*C with A symmetric stored in its lower triangle;
   inner loop k < i accumulates into a scalar and also updates C[k][j]. */
#include <stdio.h>
#include <stdlib.h>

#define M 140
#define N 160

static void init_array(int m, int n, double C[m][n], double A[m][m], double B[m][n])
{
    int i, j;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            C[i][j] = (double)((i + j) % 100) / m;
            B[i][j] = (double)((n + i - j) % 100) / m;
        }
    for (i = 0; i < m; i++) {
        for (j = 0; j <= i; j++)
            A[i][j] = (double)((i + j) % 100) / m;
        for (j = i + 1; j < m; j++)
            A[i][j] = -999.0; /* never read */
    }
}

static void kernel_symm(int m, int n, double alpha, double beta,
                        double C[m][n], double A[m][m], double B[m][n])
{
    int i, j, k;
    double temp2;
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++) {
            temp2 = 0;
            for (k = 0; k < i; k++) {
                C[k][j] += alpha * B[i][j] * A[i][k];
                temp2 += B[k][j] * A[i][k];
            }
            C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
        }
}

int main(void)
{
    double (*C)[N] = malloc(sizeof(double[M][N]));
    double (*A)[M] = malloc(sizeof(double[M][M]));
    double (*B)[N] = malloc(sizeof(double[M][N]));
    double s = 0.0;

    if (!C || !A || !B)
        return 1;
    init_array(M, N, C, A, B);
    kernel_symm(M, N, 1.5, 1.2, C, A, B);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            s += C[i][j];
    printf("%.6e\n", s / (M * N));
    free(C);
    free(A);
    free(B);
    return 0;
}
