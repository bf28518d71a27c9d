/* Fuzz case: timeout in openmp mode, seed 92156, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 92156 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_parallel_region_in_loop.c (was timeout_12437dd5.c) */
/* Or: passman run openmp timeout_parallel_region_in_loop.c -o out --set min_work=0 */
/* Cause: a parallel region opened 1512 times (in two sequential loops) for a few iterations each; */
/* fixed by the profitability model (passes/parallel/profitability.py, parallel_region_work). */
/* Problem: the transformed program ran past 10 s (2 threads) */
/* passman-options: --set min_work=0 */
/* passman-timeout: 10 */

#include <stdio.h>

static double A[23][22][43];

int main(void)
{
    int n = 21, m = 20;
    int i, j, k;
    double sum;
    double t8 = 0.0;
    double B[22][29][23];
    double C[25][9];
    double E[9][25][4];
    for (i = 0; i < 23; i++)
        for (j = 0; j < 22; j++)
            for (k = 0; k < 43; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 22; i++)
        for (j = 0; j < 29; j++)
            for (k = 0; k < 23; k++)
                B[i][j][k] = (i * 7 + j * 3 + k * 5 + 2) % 11 * 0.25;
    for (i = 0; i < 25; i++)
        for (j = 0; j < 9; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 25; j++)
            for (k = 0; k < 4; k++)
                E[i][j][k] = (i * 7 + j * 3 + k * 5 + 5) % 11 * 0.25;
    for (i = 0; i < 8; i++)
        for (j = n - 1; j >= 1; j--)
            for (k = 3; k < m + 1; k += 2) {
                A[i][j][k] = 0.5 * B[k][k + i][k + 1] * A[j + 1][k][2 * k + 1];
                C[j + 3][7] = 0.5 * t8 + E[i][j + 3][2];
            }
    sum = 0.0;
    for (i = 0; i < 23; i++)
        for (j = 0; j < 22; j++)
            for (k = 0; k < 43; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 22; i++)
        for (j = 0; j < 29; j++)
            for (k = 0; k < 23; k++)
                sum += B[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 25; i++)
        for (j = 0; j < 9; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 25; j++)
            for (k = 0; k < 4; k++)
                sum += E[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("E %.17g\n", sum);
    return 0;
}
