/* jacobi_2d: 5-point 2-D Jacobi stencil with a time loop; new values go to a second
   array and are copied back each step. */
#include <stdio.h>
#include <stdlib.h>

#define TSTEPS 40
#define N 250

static void init_array(int n, double A[n][n], double B[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            A[i][j] = (double)((i * 37 + j * 11 + 3) % 17) / 17.0;
            B[i][j] = (double)((i * 23 + j * 7 + 5) % 13) / 13.0;
        }
}

static void kernel_jacobi_2d(int tsteps, int n, double A[n][n], double B[n][n])
{
    int t, i, j;
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][j + 1]
                                 + A[i + 1][j] + A[i - 1][j]);
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                A[i][j] = B[i][j];
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
    kernel_jacobi_2d(TSTEPS, N, A, B);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i + 2 * j) % 7);
    printf("%.10e\n", s / ((double)N * N));
    free(A);
    free(B);
    return 0;
}
