/* FFTW executions between kernels: a complex round trip (fftw_execute of
   plans made before the kernels) and a real-to-complex / complex-to-real one,
   each spectrum filtered by a kernel, a checksum. Needs -lfftw3. */
#include <stdio.h>
#include <fftw3.h>

#define N 64

static fftw_complex x[N], y[N];
static double re[N], r[N];
static fftw_complex spec[N / 2 + 1];

int main(void)
{
    double s = 0;
    fftw_plan fwd = fftw_plan_dft_1d(N, x, y, FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan bwd = fftw_plan_dft_1d(N, y, x, FFTW_BACKWARD, FFTW_ESTIMATE);
    fftw_plan r2c = fftw_plan_dft_r2c_1d(N, re, spec, FFTW_ESTIMATE);
    fftw_plan c2r = fftw_plan_dft_c2r_1d(N, spec, re, FFTW_ESTIMATE);
    for (int i = 0; i < N; i++) {
        x[i][0] = (i % 7) * 0.25 - 0.5;
        x[i][1] = (i % 3) * 0.5;
        re[i] = (i % 5) - 2.0;
    }
    fftw_execute(fwd);
    for (int i = 0; i < N; i++) {
        y[i][0] = y[i][0] / (1.0 + i);
        y[i][1] = y[i][1] / (1.0 + i);
    }
    fftw_execute(bwd);
    fftw_execute(r2c);
    for (int k = 0; k < N / 2 + 1; k++) {
        spec[k][0] = spec[k][0] / (1.0 + k);
        spec[k][1] = spec[k][1] / (1.0 + k);
    }
    fftw_execute(c2r);
    for (int i = 0; i < N; i++)
        r[i] = x[i][0] / N + x[i][1] / N + re[i] / N;
    for (int i = 0; i < N; i++)
        s += r[i] * (1 + i % 3);
    printf("checksum %.10f\n", s);
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(bwd);
    fftw_destroy_plan(r2c);
    fftw_destroy_plan(c2r);
    return 0;
}
