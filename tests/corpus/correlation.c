/* correlation: means, standard deviations (sqrt, guarded division), normalisation,
   then a triangular correlation-matrix product. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define M 100
#define N 120

static void init_array(int m, int n, double data[n][m])
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < m; j++)
            data[i][j] = (double)((i * (j + 1)) % 23) / m + (double)((i + 2 * j) % 7) / 7.0;
}

static void kernel_correlation(int m, int n, double float_n, double data[n][m],
                               double corr[m][m], double mean[m], double stddev[m])
{
    int i, j, k;
    double eps = 0.1;

    for (j = 0; j < m; j++) {
        mean[j] = 0.0;
        for (i = 0; i < n; i++)
            mean[j] += data[i][j];
        mean[j] /= float_n;
    }

    for (j = 0; j < m; j++) {
        stddev[j] = 0.0;
        for (i = 0; i < n; i++)
            stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
        stddev[j] /= float_n;
        stddev[j] = sqrt(stddev[j]);
        stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
    }

    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++) {
            data[i][j] -= mean[j];
            data[i][j] /= sqrt(float_n) * stddev[j];
        }

    for (i = 0; i < m - 1; i++) {
        corr[i][i] = 1.0;
        for (j = i + 1; j < m; j++) {
            corr[i][j] = 0.0;
            for (k = 0; k < n; k++)
                corr[i][j] += data[k][i] * data[k][j];
            corr[j][i] = corr[i][j];
        }
    }
    corr[m - 1][m - 1] = 1.0;
}

int main(void)
{
    double (*data)[M] = malloc(N * sizeof(*data));
    double (*corr)[M] = malloc(M * sizeof(*corr));
    double *mean = malloc(M * sizeof(double));
    double *stddev = malloc(M * sizeof(double));
    double s = 0.0;

    if (!data || !corr || !mean || !stddev)
        return 1;
    init_array(M, N, data);
    kernel_correlation(M, N, (double)N, data, corr, mean, stddev);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++)
            s += corr[i][j];
    printf("%.6e\n", s / (M * M));
    free(data);
    free(corr);
    free(mean);
    free(stddev);
    return 0;
}
