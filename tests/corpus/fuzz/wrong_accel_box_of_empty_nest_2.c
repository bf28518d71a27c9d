/* Fuzz case: wrong in accel mode, seed 3289, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 3289 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_accel_box_of_empty_nest_2.c */
/* Or: passman run accel wrong_accel_box_of_empty_nest_2.c -o out --build --run --set promote=false */
/* passman-mode: accel */
/* Problem: {'PASSMAN_ACCEL_CHECK': '1'}: line 1: 'A 184' -> 'A 183.25' */
/* passman-options: --set promote=false */

#include <stdio.h>

static double A[5][5];

int main(void)
{
    int i, j, k;
    double sum;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 5; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 1; i < 4; i++)
        for (j = 0; j < 3; j++) {
            for (k = i + 1; k < 4; k++) {
                if (k + j >= 3)
                    A[j][k] = 1.0;
            }
            A[i][i] = 1.0;
        }
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 5; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
