/* FFTW round trips: a 1-D and a 3-D complex transform in double precision
   and a 1-D one in single precision, forward then backward, with checksums
   of the spectrum and of the (normalised) result. Needs -lfftw3 -lfftw3f. */
#include <math.h>
#include <stdio.h>
#include <fftw3.h>

#define N 64
#define NX 8
#define NY 6
#define NZ 4

static double checksum(int n, fftw_complex *a)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += fabs(a[i][0]) + 0.5 * fabs(a[i][1]);
    return s;
}

static void round_trip_1d(void)
{
    fftw_complex *x = fftw_malloc(sizeof(fftw_complex) * N);
    fftw_complex *y = fftw_malloc(sizeof(fftw_complex) * N);
    fftw_plan fwd = fftw_plan_dft_1d(N, x, y, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_plan_dft_1d(N, y, x, FFTW_BACKWARD, FFTW_ESTIMATE);
    for (int i = 0; i < N; i++) {
        x[i][0] = sin(0.3 * i) + 0.25 * i;
        x[i][1] = cos(0.7 * i);
    }
    fftw_execute(fwd);
    printf("1d spectrum %.6f\n", checksum(N, y));
    fftw_execute(bwd);
    for (int i = 0; i < N; i++) {
        x[i][0] /= N;
        x[i][1] /= N;
    }
    printf("1d round trip %.6f\n", checksum(N, x));
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_free(x);
    fftw_free(y);
}

static fftw_complex grid[NX][NY][NZ];

static void round_trip_3d(void)
{
    int n = NX * NY * NZ;
    fftw_complex *g = &grid[0][0][0];
    /* in place, as Stars-PM's potential step (Amini 2012, Fig. 5.12) */
    fftw_plan fwd = fftw_plan_dft_3d(NX, NY, NZ, g, g, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_plan_dft_3d(NX, NY, NZ, g, g, FFTW_BACKWARD, FFTW_ESTIMATE);
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            for (int k = 0; k < NZ; k++) {
                grid[i][j][k][0] = (i * 7 + j * 3 + k) % 11 - 5.0;
                grid[i][j][k][1] = 0.1 * (i - j + k);
            }
    fftw_execute(fwd);
    printf("3d spectrum %.6f\n", checksum(n, g));
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            for (int k = 0; k < NZ; k++) {
                double damp = 1.0 / (1.0 + i + j + k);
                grid[i][j][k][0] *= damp;
                grid[i][j][k][1] *= damp;
            }
    fftw_execute(bwd);
    for (int i = 0; i < n; i++) {
        g[i][0] /= n;
        g[i][1] /= n;
    }
    printf("3d filtered %.6f\n", checksum(n, g));
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
}

static void round_trip_single(void)
{
    fftwf_complex a[N], b[N];
    fftwf_plan fwd = fftwf_plan_dft_1d(N, a, b, FFTW_FORWARD, FFTW_ESTIMATE);
    fftwf_plan bwd = fftwf_plan_dft_1d(N, b, a, FFTW_BACKWARD, FFTW_ESTIMATE);
    double s = 0;
    for (int i = 0; i < N; i++) {
        a[i][0] = (float) (i % 5) - 2.0f;
        a[i][1] = 0.5f;
    }
    fftwf_execute(fwd);
    fftwf_execute(bwd);
    for (int i = 0; i < N; i++)
        s += a[i][0] / N;
    printf("single round trip %.3f\n", s);
    fftwf_destroy_plan(fwd);
    fftwf_destroy_plan(bwd);
}

int main(void)
{
    round_trip_1d();
    round_trip_3d();
    round_trip_single();
    return 0;
}
