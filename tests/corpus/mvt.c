/* mvt: x1 += A*y1 and x2 += A^T*y2, two matrix-vector products (row and column access). */
#include <stdio.h>

#define N 400

double A[N][N];
double x1[N], x2[N], y_1[N], y_2[N];

static void init_array(int n)
{
    int i, j;
    for (i = 0; i < n; i++) {
        x1[i] = (double)(i % n) / n;
        x2[i] = (double)((i + 1) % n) / n;
        y_1[i] = (double)((i + 3) % n) / n;
        y_2[i] = (double)((i + 4) % n) / n;
        for (j = 0; j < n; j++)
            A[i][j] = (double)(i * j % n) / n;
    }
}

static void kernel_mvt(int n, double a[n][n], double *v1, double *v2,
                       const double *w1, const double *w2)
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            v1[i] = v1[i] + a[i][j] * w1[j];
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            v2[i] = v2[i] + a[j][i] * w2[j];
}

int main(void)
{
    double s1 = 0.0, s2 = 0.0;
    init_array(N);
    kernel_mvt(N, A, x1, x2, y_1, y_2);
    for (int i = 0; i < N; i++) {
        s1 += x1[i];
        s2 += x2[i];
    }
    printf("%.6f %.6f\n", s1 / N, s2 / N);
    return 0;
}
