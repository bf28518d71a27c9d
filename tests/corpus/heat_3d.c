/* heat_3d: 7-point 3-D heat-equation stencil, time loop ping-ponging between two arrays. */
#include <stdio.h>

#define TSTEPS 20
#define N 40

double A[N][N][N];
double B[N][N][N];

static void init_array(int n, double a[n][n][n], double b[n][n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            for (k = 0; k < n; k++)
                a[i][j][k] = b[i][j][k] = (double)((i * j + (n - k) * k) % n) * 10 / n;
}

static void kernel_heat_3d(int tsteps, int n, double a[n][n][n], double b[n][n][n])
{
    int t, i, j, k;
    for (t = 1; t <= tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                for (k = 1; k < n - 1; k++)
                    b[i][j][k] = 0.125 * (a[i + 1][j][k] - 2.0 * a[i][j][k] + a[i - 1][j][k])
                               + 0.125 * (a[i][j + 1][k] - 2.0 * a[i][j][k] + a[i][j - 1][k])
                               + 0.125 * (a[i][j][k + 1] - 2.0 * a[i][j][k] + a[i][j][k - 1])
                               + a[i][j][k];
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                for (k = 1; k < n - 1; k++)
                    a[i][j][k] = 0.125 * (b[i + 1][j][k] - 2.0 * b[i][j][k] + b[i - 1][j][k])
                               + 0.125 * (b[i][j + 1][k] - 2.0 * b[i][j][k] + b[i][j - 1][k])
                               + 0.125 * (b[i][j][k + 1] - 2.0 * b[i][j][k] + b[i][j][k - 1])
                               + b[i][j][k];
    }
}

int main(void)
{
    double s = 0.0;
    init_array(N, A, B);
    kernel_heat_3d(TSTEPS, N, A, B);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                s += A[i][j][k] * (1 + (i + 2 * j + 3 * k) % 7);
    printf("%.10e\n", s / (N * N * N));
    return 0;
}
