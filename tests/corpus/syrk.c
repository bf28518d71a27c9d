/* syrk: symmetric rank-k update C = alpha*A*A^T + beta*C on the lower triangle
   (triangular j <= i loops). */
#include <stdio.h>

#define N 160
#define M 120

double A[N][M];
double C[N][N];

static void init_array(int n, int m)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            A[i][j] = (double)((i * j + 1) % n) / n;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            C[i][j] = (double)((i * j + 2) % m) / m;
}

static void kernel_syrk(int n, int m, double alpha, double beta,
                        double c[n][n], double a[n][m])
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j <= i; j++)
            c[i][j] *= beta;
        for (k = 0; k < m; k++) {
            for (j = 0; j <= i; j++)
                c[i][j] += alpha * a[i][k] * a[j][k];
        }
    }
}

int main(void)
{
    double s = 0.0;
    int i, j;
    init_array(N, M);
    kernel_syrk(N, M, 1.5, 1.2, C, A);
    for (i = 0; i < N; i++)
        for (j = 0; j <= i; j++)
            s += C[i][j];
    printf("%.6e\n", s / (N * N));
    return 0;
}
