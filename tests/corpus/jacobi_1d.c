/* jacobi_1d: 3-point 1-D Jacobi stencil, time loop alternating between two arrays. */
#include <stdio.h>

#define TSTEPS 200
#define N 4000

double A[N];
double B[N];

void init_array(int n, double a[n], double b[n])
{
    for (int i = 0; i < n; i++) {
        a[i] = (double)((i * 37 + 11) % 17) / 17.0;
        b[i] = (double)((i * 23 + 5) % 13) / 13.0;
    }
}

void kernel_jacobi_1d(int tsteps, int n, double a[n], double b[n])
{
    int t, i;
    for (t = 0; t < tsteps; t++) {
        for (i = 1; i < n - 1; i++)
            b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
        for (i = 1; i < n - 1; i++)
            a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
    }
}

int main(void)
{
    double s = 0.0;
    init_array(N, A, B);
    kernel_jacobi_1d(TSTEPS, N, A, B);
    for (int i = 0; i < N; i++)
        s += A[i] * (1 + i % 7);
    printf("%.10e\n", s / N);
    return 0;
}
