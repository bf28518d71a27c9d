/* bicg: BiCG sub-kernel, s = A^T*r and q = A*p computed in one sweep. */
#include <stdio.h>
#include <stdlib.h>

#define M 390
#define N 410

static void init_array(int m, int n, double A[n][m], double r[n], double p[m])
{
    int i, j;
    for (i = 0; i < m; i++)
        p[i] = (double)(i % m) / m;
    for (i = 0; i < n; i++) {
        r[i] = (double)(i % n) / n;
        for (j = 0; j < m; j++)
            A[i][j] = (double)(i * (j + 1) % n) / n;
    }
}

static void kernel_bicg(int m, int n, double A[n][m], double s[m], double q[n],
                        double p[m], double r[n])
{
    int i, j;
    for (i = 0; i < m; i++)
        s[i] = 0;
    for (i = 0; i < n; i++) {
        q[i] = 0.0;
        for (j = 0; j < m; j++) {
            s[j] = s[j] + r[i] * A[i][j];
            q[i] = q[i] + A[i][j] * p[j];
        }
    }
}

int main(void)
{
    double (*A)[M] = malloc(N * sizeof(double[M]));
    double *s = malloc(M * sizeof(double));
    double *q = malloc(N * sizeof(double));
    double *p = malloc(M * sizeof(double));
    double *r = malloc(N * sizeof(double));
    double cs = 0.0, cq = 0.0;
    int i;

    if (!A || !s || !q || !p || !r)
        return 1;
    init_array(M, N, A, r, p);
    kernel_bicg(M, N, A, s, q, p, r);
    for (i = 0; i < M; i++)
        cs += s[i];
    for (i = 0; i < N; i++)
        cq += q[i];
    printf("%.6f %.6f\n", cs / M, cq / N);
    free(A); free(s); free(q); free(p); free(r);
    return 0;
}
