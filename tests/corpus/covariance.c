/* covariance: column means, centring, then symmetric covariance matrix
   (triangular j2 >= j1 loop, mirrored write). */
#include <stdio.h>
#include <stdlib.h>

#define M 120
#define N 140

static double data[N][M];
static double cov[M][M];
static double mean[M];

static void init_array(int m, int n, double *float_n, double d[n][m])
{
    int i, j;
    *float_n = (double)n;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            d[i][j] = ((double)i * j) / m;
}

static void kernel_covariance(int m, int n, double float_n, double d[n][m],
                              double c[m][m], double mu[m])
{
    int i, j, k;

    for (j = 0; j < m; j++) {
        mu[j] = 0.0;
        for (i = 0; i < n; i++)
            mu[j] += d[i][j];
        mu[j] /= float_n;
    }

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            d[i][j] -= mu[j];

    for (i = 0; i < m; i++)
        for (j = i; j < m; j++) {
            c[i][j] = 0.0;
            for (k = 0; k < n; k++)
                c[i][j] += d[k][i] * d[k][j];
            c[i][j] /= (float_n - 1.0);
            c[j][i] = c[i][j];
        }
}

int main(void)
{
    double float_n, s = 0.0;
    init_array(M, N, &float_n, data);
    kernel_covariance(M, N, float_n, data, cov, mean);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            s += cov[i][j];
    printf("%.6e\n", s / (M * M));
    return 0;
}
