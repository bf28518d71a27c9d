/* gramschmidt: QR by modified Gram-Schmidt; a sequential k loop whose body mixes a norm
   (reduction, sqrt on the host side) with parallel loops (Amini's sequential promotion). */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define M 60
#define N 50

static void init_array(int m, int n, double A[m][n], double R[n][n], double Q[m][n])
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            A[i][j] = (((double)((i * j) % m) / m) * 10) + 1 + (i == j ? 20.0 : 0.0);
            Q[i][j] = 0.0;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            R[i][j] = 0.0;
}

static void kernel_gramschmidt(int m, int n, double A[m][n], double R[n][n], double Q[m][n])
{
    int i, j, k;
    double nrm;

    for (k = 0; k < n; k++) {
        nrm = 0.0;
        for (i = 0; i < m; i++)
            nrm += A[i][k] * A[i][k];
        R[k][k] = sqrt(nrm);
        for (i = 0; i < m; i++)
            Q[i][k] = A[i][k] / R[k][k];
        for (j = k + 1; j < n; j++) {
            R[k][j] = 0.0;
            for (i = 0; i < m; i++)
                R[k][j] += Q[i][k] * A[i][j];
            for (i = 0; i < m; i++)
                A[i][j] = A[i][j] - Q[i][k] * R[k][j];
        }
    }
}

int main(void)
{
    double (*A)[N] = malloc(M * sizeof(*A));
    double (*R)[N] = malloc(N * sizeof(*R));
    double (*Q)[N] = malloc(M * sizeof(*Q));
    double s = 0.0;

    if (!A || !R || !Q)
        return 1;
    init_array(M, N, A, R, Q);
    kernel_gramschmidt(M, N, A, R, Q);
    for (int i = 0; i < N; i++)
        for (int j = i; j < N; j++)
            s += R[i][j] * ((i + j) % 3 + 1);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++)
            s += Q[i][j];
    printf("%.6e\n", s);
    free(A);
    free(R);
    free(Q);
    return 0;
}
