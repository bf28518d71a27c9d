/* pragmas: OpenMP '#pragma omp parallel for' (with and without clauses), the
   GCC-specific '#pragma GCC ivdep', a pragma GCC does not know
   ('#pragma clang loop ...'), and user C labels placed directly on for loops.
   Output is identical with or without -fopenmp (the only reduction is integer). */
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-label"
#include <stdio.h>
#include <stdlib.h>

#define N 256

double A[N][N];
double B[N][N];
double x[N];
double y[N];

static void init(int n)
{
    int i, j;
#pragma omp parallel for private(j)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            A[i][j] = (double)((i * j + 1) % n) / n - (i == 200 && j == 3 ? 1.0 : 0.0);
    for (i = 0; i < n; i++)
        x[i] = (double)(i % 17) / 17.0;
}

static void scale_copy(int n, double alpha)
{
    int i, j;
outer:
    for (i = 0; i < n; i++) {
#pragma GCC ivdep
        for (j = 0; j < n; j++)
            B[i][j] = alpha * A[i][j];
    }
}

static void matvec(int n)
{
#pragma omp parallel for
    for (int i = 0; i < n; i++) {
        double s = 0.0;
#pragma clang loop vectorize(enable)
        for (int j = 0; j < n; j++)
            s += B[i][j] * x[j];
        y[i] = s;
    }
}

static long count_large(int n, double thr)
{
    long cnt = 0;
    int i, j;
#pragma omp parallel for private(j) reduction(+:cnt)
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            if (B[i][j] > thr)
                cnt++;
    return cnt;
}

static int first_negative_row(int n)
{
    int i, j, row = -1;
rows:
    for (i = 0; i < n; i++) {
cols:
        for (j = 0; j < n; j++) {
            if (B[i][j] < 0.0) {
                row = i;
                goto found;
            }
        }
    }
found:
    return row;
}

int main(void)
{
    double s = 0.0;
    init(N);
    scale_copy(N, 2.0);
    matvec(N);
    for (int i = 0; i < N; i++)
        s += y[i];
    printf("%.6f %ld %d\n", s / N, count_large(N, 1.0), first_negative_row(N));
    return 0;
}
