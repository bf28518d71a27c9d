/* libm_calls: element-wise loops calling sqrt, exp, sin, cos, fabs, pow, log, floor, fmax. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 20000

static double a[N], b[N], c[N];

static void init(int n)
{
    for (int i = 0; i < n; i++) {
        a[i] = (double)(i % 100) / 100.0;
        b[i] = (double)((i * 3) % 50) / 50.0 - 0.5;
    }
}

static void transcendental(int n, double *out, const double *u, const double *v)
{
    int i;
    for (i = 0; i < n; i++)
        out[i] = sqrt(u[i] + 1.0) + exp(-u[i]) * sin(v[i]) + cos(u[i] * v[i]);
}

static void powers(int n, double *out, const double *u, const double *v)
{
    int i;
    for (i = 0; i < n; i++)
        out[i] += pow(fabs(v[i]) + 0.5, 1.5) - pow(u[i], 2.0) + log(1.0 + u[i]);
}

static double rounding(int n, const double *u)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += floor(u[i] * 10.0) + ceil(u[i] * 3.0) + fmax(u[i], 0.5) + fmin(u[i], 0.25);
    return s;
}

int main(void)
{
    double s = 0.0;
    init(N);
    transcendental(N, c, a, b);
    powers(N, c, a, b);
    for (int i = 0; i < N; i++)
        s += c[i];
    printf("%.6e\n", s / N);
    printf("%.6f\n", rounding(N, a));
    printf("%.6f %.6f %.6f\n", atan2(1.0, 2.0), tanh(0.5), fabs(-3.25));
    return 0;
}
