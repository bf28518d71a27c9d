/* multi_function: several functions calling each other; helpers taking arrays and
   sizes; a pure function called from inside a loop; a recursive function. */
#include <stdio.h>
#include <stdlib.h>

#define N 500
#define M 64

static double weight(int i, int n)
{
    return (double)(i % 17) / (double)n + 0.5;
}

static double poly(double x)
{
    return ((0.25 * x - 0.5) * x + 1.0) * x + 0.125;
}

static void fill(double *v, int n, int seed)
{
    for (int i = 0; i < n; i++)
        v[i] = (double)((i * seed + 3) % n) / n;
}

static void scale(double *v, int n, double s)
{
    int i;
    for (i = 0; i < n; i++)
        v[i] *= s;
}

static void axpy(int n, double alpha, const double *x, double *y)
{
    int i;
    for (i = 0; i < n; i++)
        y[i] += alpha * x[i];
}

static double sum(const double *v, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; i++)
        s += v[i];
    return s;
}

static void apply_poly(double *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = poly(v[i]) * weight(i, n);
}

static void matvec(int n, int m, double A[n][m], const double *x, double *y)
{
    for (int i = 0; i < n; i++) {
        y[i] = 0.0;
        for (int j = 0; j < m; j++)
            y[i] += A[i][j] * x[j];
    }
}

static long fib(int k)
{
    return k < 2 ? k : fib(k - 1) + fib(k - 2);
}

static double pipeline(double *x, double *y, int n)
{
    fill(x, n, 7);
    fill(y, n, 11);
    scale(x, n, 0.5);
    axpy(n, 2.0, x, y);
    apply_poly(y, n);
    return sum(y, n) / n;
}

int main(void)
{
    double *x = malloc(N * sizeof(double));
    double *y = malloc(N * sizeof(double));
    double (*A)[M] = malloc(N * sizeof(*A));
    double *r = malloc(N * sizeof(double));
    double p, q;
    int i, j;

    if (x == NULL || y == NULL || A == NULL || r == NULL)
        return 1;
    p = pipeline(x, y, N);
    for (i = 0; i < N; i++)
        for (j = 0; j < M; j++)
            A[i][j] = weight(i + j, N) * poly((double)j / M);
    matvec(N, M, A, y, r);
    q = sum(r, N) / N;
    printf("%.6f %.6f %ld\n", p, q, fib(20));
    free(x);
    free(y);
    free(A);
    free(r);
    return 0;
}
