/* trisolv: forward substitution L*x = b, triangular inner loop j < i. */
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static void init_array(int n, double L[n][n], double x[n], double b[n])
{
    int i, j;
    for (i = 0; i < n; i++) {
        x[i] = -999.0;
        b[i] = i;
        for (j = 0; j <= i; j++)
            L[i][j] = (double)(i + n - j + 1) * 2 / n;
        for (j = i + 1; j < n; j++)
            L[i][j] = 0.0;
    }
}

static void kernel_trisolv(int n, double L[n][n], double x[n], double b[n])
{
    int i, j;
    for (i = 0; i < n; i++) {
        x[i] = b[i];
        for (j = 0; j < i; j++)
            x[i] -= L[i][j] * x[j];
        x[i] = x[i] / L[i][i];
    }
}

int main(void)
{
    double (*L)[N] = malloc(sizeof(double[N][N]));
    double *x = malloc(N * sizeof(double));
    double *b = malloc(N * sizeof(double));
    double s = 0.0;

    if (L == NULL || x == NULL || b == NULL)
        return 1;
    init_array(N, L, x, b);
    kernel_trisolv(N, L, x, b);
    for (int i = 0; i < N; i++)
        s += x[i];
    printf("%.6e\n", s);
    free(L);
    free(x);
    free(b);
    return 0;
}
