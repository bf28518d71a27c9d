/* Fuzz case: timeout in openmp mode, seed 140080, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 140080 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_coarse_grain_recipe.c */
/* Or: passman run openmp timeout_coarse_grain_recipe.c -o out --set poly=false */
/* Problem: passman ran past 10 s */
/* passman-options: --set poly=false */
/* passman-timeout: 10 */

#include <stdio.h>

static double A[24][24][16];
static double C[2][3][3];

int main(void)
{
    int n = 12;
    int i, j, k, t;
    double sum;
    double D[2][4];
    for (i = 0; i < 24; i++)
        for (j = 0; j < 24; j++)
            for (k = 0; k < 16; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            for (k = 0; k < 3; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 4; j++)
            D[i][j] = (i * 7 + j * 3 + 4) % 11 * 0.25;
    for (t = 0; t < 2; t++)
        for (i = 2; i < 12; i++)
            for (j = n; j >= 2; j--)
                A[2 * i][i + 1][j] = A[j + t][2 * i][t + i + 2];
    for (j = 1; j < 2; j++) {
        if (j >= 1)
            C[0][j][j] = D[j - 1][j + 1];
    }
    sum = 0.0;
    for (i = 0; i < 24; i++)
        for (j = 0; j < 24; j++)
            for (k = 0; k < 16; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 3; j++)
            for (k = 0; k < 3; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 4; j++)
            sum += D[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
