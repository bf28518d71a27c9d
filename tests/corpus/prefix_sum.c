/* prefix_sum: inclusive and exclusive scans (loop-carried dependence through the
   array), a 2-D summed-area table, and an integer scan. */
#include <stdio.h>
#include <stdlib.h>

#define N 100000
#define R 200
#define C 220

static double in[N];
static double incl[N];
static double excl[N];
static long sat[R][C];

static void inclusive_scan(int n, const double *a, double *b)
{
    int i;
    b[0] = a[0];
    for (i = 1; i < n; i++)
        b[i] = b[i - 1] + a[i];
}

static void exclusive_scan(int n, const double *a, double *b)
{
    double run = 0.0;
    for (int i = 0; i < n; i++) {
        b[i] = run;
        run += a[i];
    }
}

static void summed_area(int r, int c, long s[r][c])
{
    int i, j;
    for (i = 0; i < r; i++)
        for (j = 0; j < c; j++)
            s[i][j] = (i * 31 + j * 17) % 10;
    for (i = 0; i < r; i++)
        for (j = 1; j < c; j++)
            s[i][j] += s[i][j - 1];
    for (i = 1; i < r; i++)
        for (j = 0; j < c; j++)
            s[i][j] += s[i - 1][j];
}

int main(void)
{
    int *iv = malloc(N * sizeof(int));
    long isum = 0;

    if (iv == NULL)
        return 1;
    for (int i = 0; i < N; i++)
        in[i] = (double)(i % 10) / 10.0;
    inclusive_scan(N, in, incl);
    exclusive_scan(N, in, excl);
    summed_area(R, C, sat);
    iv[0] = 1;
    for (int i = 1; i < N; i++)
        iv[i] = (iv[i - 1] + i) % 1000;
    for (int i = 0; i < N; i++)
        isum += iv[i];
    printf("%.6f %.6f %.6f\n", incl[N - 1], excl[N - 1], incl[N / 2]);
    printf("%ld %ld\n", sat[R - 1][C - 1], isum);
    free(iv);
    return 0;
}
