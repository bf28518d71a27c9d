/* lu: in-place LU factorisation without pivoting (Doolittle), triangular loops. */
#include <stdio.h>
#include <stdlib.h>

#define N 250

double A[N][N];

static void init_array(int n, double a[n][n])
{
    int i, j;
    /* diagonally dominant, so no pivoting is needed */
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            a[i][j] = (double)((i * 7 + j * 3) % n) / n - 0.5;
        a[i][i] = (double)n;
    }
}

static void kernel_lu(int n, double a[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                a[i][j] -= a[i][k] * a[k][j];
            a[i][j] /= a[j][j];
        }
        for (j = i; j < n; j++) {
            for (k = 0; k < i; k++)
                a[i][j] -= a[i][k] * a[k][j];
        }
    }
}

static double checksum(int n, double a[n][n])
{
    double lower = 0.0, upper = 0.0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (j < i)
                lower += a[i][j];
            else
                upper += a[i][j];
        }
    return lower + upper / n;
}

int main(void)
{
    init_array(N, A);
    kernel_lu(N, A);
    printf("%.6e\n", checksum(N, A));
    return 0;
}
