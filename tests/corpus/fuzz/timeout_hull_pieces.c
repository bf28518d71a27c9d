/* Fuzz case: timeout in openmp mode, seed 50681, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 50681 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_b4a02178.c */
/* Or: passman run openmp timeout_b4a02178.c -o out --set min_work=0 --set poly=false */
/* Problem: passman ran past 10 s: one convex hull of 28 pieces took 3 s inside isl (region_sets.MAX_HULL_PIECES) */
/* passman-options: --set min_work=0 --set poly=false */
/* passman-timeout: 10 */

#include <stdio.h>

static double A[14][5];
static double C[14][14][25];

int main(void)
{
    int n = 23;
    int i, j, k;
    double sum;
    double D[5][14][5];
    for (i = 0; i < 14; i++)
        for (j = 0; j < 5; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 14; j++)
            for (k = 0; k < 25; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 14; j++)
            for (k = 0; k < 5; k++)
                D[i][j][k] = (i * 7 + j * 3 + k * 5 + 4) % 11 * 0.25;
    for (i = 2; i < 13; i += 2)
        for (j = 0; j < 4; j += 2) {
            for (k = 0; k < n + 1; k++)
                C[i][j][k] = 1.0;
            A[i][j] = D[j][i][j];
            C[j + 3][12][j] = 3;
        }
    sum = 0.0;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 5; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 14; j++)
            for (k = 0; k < 25; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 14; j++)
            for (k = 0; k < 5; k++)
                sum += D[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
