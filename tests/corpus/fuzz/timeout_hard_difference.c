/* Fuzz case: timeout in openmp mode, seed 190003, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 190003 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_hard_difference.c */
/* Or: passman run openmp timeout_hard_difference.c -o out --set poly=false */
/* Before the fix: 27 s, 23 s of them in three region differences (5.7 s each) whose first operand
   has existential variables with coefficients up to 17 (hard(x)), which isl's operation budget
   does not bound; region_sets._difference now answers x (over) or nothing (under) for them: 2-5 s. */
/* Problem: passman ran past 10 s */
/* passman-options: --set poly=false */
/* passman-timeout: 10 */

#include <stdio.h>

static double A[14][16][17];

int main(void)
{
    int i, j, k, l;
    double sum;
    double s4 = 0.0;
    double B[2];
    for (i = 0; i < 14; i++)
        for (j = 0; j < 16; j++)
            for (k = 0; k < 17; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 2; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    for (i = 0; i < 8; i++)
        for (j = 0; j < i; j++)
            for (k = 1; k < 10; k++)
                for (l = 1; l < 15; l++) {
                    A[j][k][l - 1] = 1.0;
                    if (j > 4)
                        A[k + 3][l][l + 1] = 0.75;
                }
    for (i = 0; i < -1; i++)
        s4 = 0.3 * B[0];
    sum = 0.0;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 16; j++)
            for (k = 0; k < 17; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 2; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
