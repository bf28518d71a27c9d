/* doitgen: multi-resolution analysis kernel, 3-D tensor times matrix with a
   per-(r,q) temporary vector and copy-back. */
#include <stdio.h>
#include <stdlib.h>

#define NR 40
#define NQ 50
#define NP 60

static double A[NR][NQ][NP];
static double C4[NP][NP];

static void init_array(int nr, int nq, int np, double a[nr][nq][np], double c4[np][np])
{
    int i, j, k;
    for (i = 0; i < nr; i++)
        for (j = 0; j < nq; j++)
            for (k = 0; k < np; k++)
                a[i][j][k] = (double)((i * j + k) % np) / np;
    for (i = 0; i < np; i++)
        for (j = 0; j < np; j++)
            c4[i][j] = (double)(i * j % np) / np;
}

static void kernel_doitgen(int nr, int nq, int np, double a[nr][nq][np],
                           double c4[np][np], double sum[np])
{
    int r, q, p, s;
    for (r = 0; r < nr; r++)
        for (q = 0; q < nq; q++) {
            for (p = 0; p < np; p++) {
                sum[p] = 0.0;
                for (s = 0; s < np; s++)
                    sum[p] += a[r][q][s] * c4[s][p];
            }
            for (p = 0; p < np; p++)
                a[r][q][p] = sum[p];
        }
}

int main(void)
{
    double *sum = malloc(NP * sizeof(double));
    double total = 0.0;

    if (sum == NULL)
        return 1;
    init_array(NR, NQ, NP, A, C4);
    kernel_doitgen(NR, NQ, NP, A, C4, sum);
    for (int r = 0; r < NR; r++)
        for (int q = 0; q < NQ; q++)
            for (int p = 0; p < NP; p++)
                total += A[r][q][p];
    printf("%.6e\n", total / (NR * NQ * NP));
    free(sum);
    return 0;
}
