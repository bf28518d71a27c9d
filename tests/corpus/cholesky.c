/* cholesky: in-place Cholesky factorisation A = L*L^T of an SPD matrix, uses sqrt. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 250

static void init_array(int n, double A[n][n])
{
    int i, j;
    /* symmetric and strictly diagonally dominant with positive diagonal => SPD */
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            A[i][j] = 1.0 / (double)(i + j + 1);
        A[i][i] += (double)n;
    }
}

static void kernel_cholesky(int n, double A[n][n])
{
    int i, j, k;
    for (i = 0; i < n; i++) {
        /* j < i */
        for (j = 0; j < i; j++) {
            for (k = 0; k < j; k++)
                A[i][j] -= A[i][k] * A[j][k];
            A[i][j] /= A[j][j];
        }
        /* i == j */
        for (k = 0; k < i; k++)
            A[i][i] -= A[i][k] * A[i][k];
        A[i][i] = sqrt(A[i][i]);
    }
}

int main(void)
{
    double (*A)[N] = malloc(N * sizeof(*A));
    double s = 0.0;
    int i, j;

    if (A == NULL)
        return 1;
    init_array(N, A);
    kernel_cholesky(N, A);
    for (i = 0; i < N; i++)
        for (j = 0; j <= i; j++)
            s += A[i][j];
    printf("%.6e\n", s);
    free(A);
    return 0;
}
