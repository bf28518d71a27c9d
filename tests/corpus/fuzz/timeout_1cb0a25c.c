/* Fuzz case: timeout in openmp mode, seed 127, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 127 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_1cb0a25c.c */
/* Or: passman run openmp timeout_1cb0a25c.c -o out --set min_work=0 --set poly=false */
/* Problem: passman ran past 10 s */
/* Measured at 45ed833, quiet machine: this program 6 s, seed 127 itself 20 s (over 30 s under load); time in the coarse-grain parallel_loops (array_privatizer, region_sets._hull/bounded). */
/* passman-timeout: 20 (the limit is 30 s; after the fixes this program takes 2-6 s) */
/* passman-options: --set min_work=0 --set poly=false */

#include <stdio.h>

static double A[8][7][8];

int main(void)
{
    int m = 8;
    int i, j, k;
    double sum;
    double s4 = 0.0;
    double B[8][7][2];
    for (i = 0; i < 8; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 8; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 2; k++)
                B[i][j][k] = (i * 7 + j * 3 + k * 5 + 2) % 11 * 0.25;
    for (i = 3; i < m - 1; i++)
        for (j = 1; j < 6; j += 2) {
            A[i][j][0] = A[i][j][0];
            s4 = B[i][j][0];
            A[j][j][i] += 1.0;
        }
    sum = 0.0;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 8; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 2; k++)
                sum += B[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
