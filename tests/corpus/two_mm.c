/* two_mm: D = alpha*A*B*C + beta*D, two chained matrix products through a temporary. */
#include <stdio.h>
#include <stdlib.h>

#define NI 80
#define NJ 90
#define NK 100
#define NL 70

static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NL];
static double D[NI][NL];

static void init_array(void)
{
    for (int i = 0; i < NI; i++)
        for (int k = 0; k < NK; k++)
            A[i][k] = (double)((i * k + 1) % NI) / NI;
    for (int k = 0; k < NK; k++)
        for (int j = 0; j < NJ; j++)
            B[k][j] = (double)(k * (j + 1) % NJ) / NJ;
    for (int j = 0; j < NJ; j++)
        for (int l = 0; l < NL; l++)
            C[j][l] = (double)((j * (l + 3) + 1) % NL) / NL;
    for (int i = 0; i < NI; i++)
        for (int l = 0; l < NL; l++)
            D[i][l] = (double)(i * (l + 2) % NK) / NK;
}

static void kernel_2mm(int ni, int nj, int nk, int nl, double alpha, double beta,
                       double tmp[ni][nj], double A_[ni][nk], double B_[nk][nj],
                       double C_[nj][nl], double D_[ni][nl])
{
    int i, j, k;

    /* tmp = alpha * A * B */
    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            tmp[i][j] = 0.0;
            for (k = 0; k < nk; ++k)
                tmp[i][j] += alpha * A_[i][k] * B_[k][j];
        }
    /* D = beta * D + tmp * C */
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            D_[i][j] *= beta;
            for (k = 0; k < nj; ++k)
                D_[i][j] += tmp[i][k] * C_[k][j];
        }
}

int main(void)
{
    double (*tmp)[NJ] = malloc(NI * sizeof(*tmp));
    double sum = 0.0;
    int i, j;

    if (tmp == NULL)
        return 1;
    init_array();
    kernel_2mm(NI, NJ, NK, NL, 1.5, 1.2, tmp, A, B, C, D);
    for (i = 0; i < NI; i++)
        for (j = 0; j < NL; j++)
            sum += D[i][j];
    printf("%.6e\n", sum / (NI * NL));
    free(tmp);
    return 0;
}
