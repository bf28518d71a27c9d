/* Fuzz case: wrong in accel mode, seed 3350, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 3350 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_accel_box_of_empty_nest.c */
/* Or: passman run accel wrong_accel_box_of_empty_nest.c -o out --build --run */
/* passman-mode: accel */
/* Problem: {'PASSMAN_ACCEL_CHECK': '1'}: line 1: 'A 95.5' -> 'A 106.5' */

#include <stdio.h>

static double A[2][8];
static double E[12][10][8];

int main(void)
{
    int i, j, k;
    double sum;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 8; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 12; i++)
        for (j = 0; j < 10; j++)
            for (k = 0; k < 8; k++)
                E[i][j][k] = (i * 7 + j * 3 + k * 5 + 5) % 11 * 0.25;
    for (i = 1; i < 11; i++)
        for (j = 0; j < 9; j++)
            for (k = i; k < 7; k++) {
                if (j + k >= 13)
                    A[0][k] = E[i][j][k];
            }
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 8; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 12; i++)
        for (j = 0; j < 10; j++)
            for (k = 0; k < 8; k++)
                sum += E[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("E %.17g\n", sum);
    return 0;
}
