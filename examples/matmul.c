/* gemm: C = alpha*A*B + beta*C, kernel takes VLA parameters. */
#include <stdio.h>
#include <stdlib.h>

#define NI 500
#define NJ 460
#define NK 520

static void init_array(int ni, int nj, int nk, double *alpha, double *beta,
                       double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    int i, j;

    *alpha = 1.5;
    *beta = 1.2;
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++)
            C[i][j] = (double)((i * j + 1) % ni) / ni;
    for (i = 0; i < ni; i++)
        for (j = 0; j < nk; j++)
            A[i][j] = (double)(i * (j + 1) % nk) / nk;
    for (i = 0; i < nk; i++)
        for (j = 0; j < nj; j++)
            B[i][j] = (double)(i * (j + 2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[ni][nj], double A[ni][nk], double B[nk][nj])
{
    int i, j, k;

    for (i = 0; i < ni; i++) {
        for (j = 0; j < nj; j++)
            C[i][j] *= beta;
        for (k = 0; k < nk; k++) {
            for (j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
        }
    }
}

static double checksum(int ni, int nj, double C[ni][nj])
{
    double s = 0.0;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            s += C[i][j];
    return s / (ni * nj);
}

int main(void)
{
    double alpha, beta;
    double (*C)[NJ] = malloc(sizeof(double[NI][NJ]));
    double (*A)[NK] = malloc(sizeof(double[NI][NK]));
    double (*B)[NJ] = malloc(sizeof(double[NK][NJ]));

    if (C == NULL || A == NULL || B == NULL)
        return 1;
    init_array(NI, NJ, NK, &alpha, &beta, C, A, B);
    kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);
    printf("%.6f\n", checksum(NI, NJ, C));
    free(C);
    free(A);
    free(B);
    return 0;
}
