/* kernels.c: compute kernels for the two-unit program (see main.c). */
#include <math.h>
#include "kernels.h"

int kernel_calls = 0;

static double init_value(int i, int j, int n, int seed)
{
    return (double)((i * seed + j) % n) / n;
}

void init_matrix(int n, double A[n][n], int seed)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = init_value(i, j, n, seed);
    kernel_calls++;
}

void matmul(int n, double C[n][n], double A[n][n], double B[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            C[i][j] = 0.0;
    for (i = 0; i < n; i++)
        for (k = 0; k < n; k++)
            for (j = 0; j < n; j++)
                C[i][j] += A[i][k] * B[k][j];
    kernel_calls++;
}

void smooth(int tsteps, int n, double A[n][n], double tmp[n][n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                tmp[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
        for (int i = 1; i < n - 1; i++)
            for (int j = 1; j < n - 1; j++)
                A[i][j] = tmp[i][j];
    }
    kernel_calls++;
}

double frobenius(int n, double A[n][n])
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            s += A[i][j] * A[i][j];
    kernel_calls++;
    return sqrt(s);
}
