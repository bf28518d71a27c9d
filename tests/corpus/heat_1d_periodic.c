/* heat_1d_periodic: 1-D heat equation on a ring (periodic edges): the neighbours of
   the first and last points wrap around, (i - 1 + n) % n and (i + 1) % n, as codes
   on periodic domains write it. Nothing can be time-tiled across the wrap; the
   remainders cost the sweep its vector code unless the interior runs without them
   (split_boundaries). */
#include <stdio.h>

#define TSTEPS 40
#define N 500

static double A[N];
static double B[N];

static void init_array(int n, double a[n], double b[n])
{
    int i;
    for (i = 0; i < n; i++) {
        a[i] = (double)((i * 37 + 3) % 17);
        b[i] = 0.0;
    }
}

static void kernel_heat_1d_periodic(int tsteps, int n, double a[n], double b[n])
{
    int t, i;
    for (t = 0; t < tsteps; t++) {
        for (i = 0; i < n; i++)
            b[i] = a[i] + 0.25 * (a[(i - 1 + n) % n] - 2.0 * a[i] + a[(i + 1) % n]);
        for (i = 0; i < n; i++)
            a[i] = b[i] + 0.25 * (b[(i - 1 + n) % n] - 2.0 * b[i] + b[(i + 1) % n]);
    }
}

int main(void)
{
    double s = 0.0;
    int i;
    init_array(N, A, B);
    kernel_heat_1d_periodic(TSTEPS, N, A, B);
    for (i = 0; i < N; i++)
        s += A[i] * (1 + i % 7);
    printf("%.10e\n", s / N);
    return 0;
}
