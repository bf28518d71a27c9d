/* seidel_2d: in-place 9-point Gauss-Seidel sweep with a time loop
   (loop-carried dependences in both i and j). */
#include <stdio.h>
#include <stdlib.h>

#define TSTEPS 20
#define N 200

static void init_array(int n, double A[n][n])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            A[i][j] = (double)((i * 37 + j * 11 + 2) % 17) / 17.0;
}

static void kernel_seidel_2d(int tsteps, int n, double A[n][n])
{
    int t, i, j;
    for (t = 0; t <= tsteps - 1; t++)
        for (i = 1; i <= n - 2; i++)
            for (j = 1; j <= n - 2; j++)
                A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                           + A[i][j - 1] + A[i][j] + A[i][j + 1]
                           + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
}

int main(void)
{
    double (*A)[N] = malloc(N * sizeof(double[N]));
    double s = 0.0;

    if (A == NULL)
        return 1;
    init_array(N, A);
    kernel_seidel_2d(TSTEPS, N, A);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * (1 + (i + 2 * j) % 7);
    printf("%.10e\n", s / ((double)N * N));
    free(A);
    return 0;
}
