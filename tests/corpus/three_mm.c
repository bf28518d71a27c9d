/* three_mm: G = (A*B)*(C*D), three matrix products through two temporaries. */
#include <stdio.h>
#include <stdlib.h>

#define NI 60
#define NJ 64
#define NK 70
#define NL 56
#define NM 66

static void init_array(int ni, int nj, int nk, int nl, int nm, double A[ni][nk], double B[nk][nj],
                       double C[nj][nm], double D[nm][nl])
{
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nk; j++)
            A[i][j] = (double)((i * j + 1) % ni) / (5 * ni);
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < nj; j++)
            B[i][j] = (double)((i * (j + 1) + 2) % nj) / (5 * nj);
    for (int i = 0; i < nj; i++)
        for (int j = 0; j < nm; j++)
            C[i][j] = (double)(i * (j + 3) % nl) / (5 * nl);
    for (int i = 0; i < nm; i++)
        for (int j = 0; j < nl; j++)
            D[i][j] = (double)((i * (j + 2) + 2) % nk) / (5 * nk);
}

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm, double E[ni][nj], double A[ni][nk],
                       double B[nk][nj], double F[nj][nl], double C[nj][nm], double D[nm][nl],
                       double G[ni][nl])
{
    int i, j, k;

    for (i = 0; i < ni; i++)
        for (j = 0; j < nj; j++) {
            E[i][j] = 0.0;
            for (k = 0; k < nk; ++k)
                E[i][j] += A[i][k] * B[k][j];
        }
    for (i = 0; i < nj; i++)
        for (j = 0; j < nl; j++) {
            F[i][j] = 0.0;
            for (k = 0; k < nm; ++k)
                F[i][j] += C[i][k] * D[k][j];
        }
    for (i = 0; i < ni; i++)
        for (j = 0; j < nl; j++) {
            G[i][j] = 0.0;
            for (k = 0; k < nj; ++k)
                G[i][j] += E[i][k] * F[k][j];
        }
}

int main(void)
{
    double (*E)[NJ] = malloc(NI * sizeof(*E));
    double (*A)[NK] = malloc(NI * sizeof(*A));
    double (*B)[NJ] = malloc(NK * sizeof(*B));
    double (*F)[NL] = malloc(NJ * sizeof(*F));
    double (*C)[NM] = malloc(NJ * sizeof(*C));
    double (*D)[NL] = malloc(NM * sizeof(*D));
    double (*G)[NL] = malloc(NI * sizeof(*G));
    double s = 0.0;

    if (!E || !A || !B || !F || !C || !D || !G)
        return 1;
    init_array(NI, NJ, NK, NL, NM, A, B, C, D);
    kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
    for (int i = 0; i < NI; i++)
        for (int j = 0; j < NL; j++)
            s += G[i][j] * ((i + j) % 5 + 1);
    printf("%.6e\n", s);
    free(E);
    free(A);
    free(B);
    free(F);
    free(C);
    free(D);
    free(G);
    return 0;
}
