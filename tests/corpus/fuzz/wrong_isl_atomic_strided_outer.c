/* Fuzz case: wrong in openmp mode, seed 91966, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 91966 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_isl_atomic_strided_outer.c */
/* Or: passman run openmp wrong_isl_atomic_strided_outer.c -o out */
/* Problem: 1 threads: line 1: 't0 1' -> 't0 2' */

#include <stdio.h>

static double A[16][18][17];

int main(void)
{
    int n = 14, m = 17;
    int i, j, k, l;
    double sum;
    double t0 = 0.0;
    for (i = 0; i < 16; i++)
        for (j = 0; j < 18; j++)
            for (k = 0; k < 17; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 1; i < 4; i++) {
        A[7][i][i + 3] = A[i][8][i];
        for (j = 0; j < n; j++) {
            for (k = 1; k < m; k++)
                for (l = 0; l < 16; l++)
                    A[j][k][l] = A[j + 1][k][8];
            t0 = A[5][j][0];
        }
    }
    printf("t0 %.17g\n", t0);
    sum = 0.0;
    for (i = 0; i < 16; i++)
        for (j = 0; j < 18; j++)
            for (k = 0; k < 17; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
