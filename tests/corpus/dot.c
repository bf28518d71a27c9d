/* dot: dot-product (sum) reduction, max/min reductions with index, integer sum
   reduction, and a norm. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 100000

double x[N];
double y[N];

static void init(int n)
{
    int i;
    for (i = 0; i < n; i++) {
        x[i] = (double)(i % 97) / 97.0 - 0.5;
        y[i] = (double)((i * 13) % 101) / 101.0;
    }
}

static double dot(int n, const double *a, const double *b)
{
    double s = 0.0;
    int i;
    for (i = 0; i < n; i++)
        s += a[i] * b[i];
    return s;
}

static double vmax(int n, const double *a)
{
    double m = a[0];
    for (int i = 1; i < n; i++)
        if (a[i] > m)
            m = a[i];
    return m;
}

static double vmin(int n, const double *a)
{
    double m = a[0];
    for (int i = 1; i < n; i++)
        m = a[i] < m ? a[i] : m;
    return m;
}

static int argmax_abs(int n, const double *a)
{
    int best = 0;
    for (int i = 1; i < n; i++)
        if (fabs(a[i]) > fabs(a[best]))
            best = i;
    return best;
}

static long isum(int n)
{
    long s = 0;
    for (int i = 0; i < n; i++)
        s += (i * 7) % 13;
    return s;
}

static double norm2(int n, const double *a)
{
    return sqrt(dot(n, a, a));
}

int main(void)
{
    init(N);
    printf("%.6f\n", dot(N, x, y));
    printf("%.6f %.6f %d\n", vmax(N, y), vmin(N, x), argmax_abs(N, x));
    printf("%ld %.6f\n", isum(N), norm2(N, x));
    return 0;
}
