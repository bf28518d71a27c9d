/* atax: y = A^T * (A * x), with a temporary vector. */
#include <stdio.h>
#include <stdlib.h>

#define M 380
#define N 410

static double A[M][N];
static double x[N];
static double y[N];
static double tmp[M];

static void init_array(int m, int n)
{
    double fn = (double)n;
    for (int i = 0; i < n; i++)
        x[i] = 1 + (i / fn);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i + j) % n) / (5 * m);
}

static void kernel_atax(int m, int n, double a[m][n], double xv[n], double yv[n], double t[m])
{
    int i, j;
    for (i = 0; i < n; i++)
        yv[i] = 0;
    for (i = 0; i < m; i++) {
        t[i] = 0.0;
        for (j = 0; j < n; j++)
            t[i] = t[i] + a[i][j] * xv[j];
        for (j = 0; j < n; j++)
            yv[j] = yv[j] + a[i][j] * t[i];
    }
}

int main(void)
{
    double s = 0.0;
    init_array(M, N);
    kernel_atax(M, N, A, x, y, tmp);
    for (int i = 0; i < N; i++)
        s += y[i];
    printf("%.6f\n", s / N);
    return 0;
}
