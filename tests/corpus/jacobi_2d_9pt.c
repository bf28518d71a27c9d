/* jacobi_2d_9pt: 9-point 2-D Jacobi stencil (j2d9: the mean of the 3x3 neighbourhood),
   time loop alternating between two arrays. */
#include <stdio.h>
#include <stdlib.h>

#define TSTEPS 30
#define N 180

static void init_array(int n, double A[n][n], double B[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
            B[i][j] = A[i][j];
        }
}

static void kernel_jacobi_2d_9pt(int tsteps, int n, double A[n][n], double B[n][n])
{
    int t, i, j;
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                B[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                A[i][j] = (B[i - 1][j - 1] + B[i - 1][j] + B[i - 1][j + 1]
                           + B[i][j - 1] + B[i][j] + B[i][j + 1]
                           + B[i + 1][j - 1] + B[i + 1][j] + B[i + 1][j + 1]) / 9.0;
    }
}

int main(void)
{
    double (*A)[N] = malloc(sizeof(double[N][N]));
    double (*B)[N] = malloc(sizeof(double[N][N]));
    double s = 0.0;

    if (A == NULL || B == NULL)
        return 1;
    init_array(N, A, B);
    kernel_jacobi_2d_9pt(TSTEPS, N, A, B);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i + j) % 3);
    printf("%.10e\n", s / ((double)N * N));
    free(A);
    free(B);
    return 0;
}
