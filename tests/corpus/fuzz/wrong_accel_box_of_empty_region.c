/* Fuzz case: wrong in accel mode, seed 3353, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 3353 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_accel_box_of_empty_region.c */
/* Or: passman run accel wrong_accel_box_of_empty_region.c -o out --build --run --set max_dims=1 --set transfers=naive */
/* passman-mode: accel */
/* Problem: {'PASSMAN_ACCEL_CHECK': '1'}: line 1: 'A 42.25' -> 'A -nan' */
/* passman-options: --set max_dims=1 --set transfers=naive */

#include <stdio.h>

static double A[7];

int main(void)
{
    int i, j, k;
    double sum;
    for (i = 0; i < 7; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    for (i = 2; i < 14; i++)
        for (j = 1; j < 3; j++)
            for (k = 5; k >= 4; k--) {
                if (i + j <= 14)
                    A[k] = 0.75;
            }
    sum = 0.0;
    for (i = 0; i < 7; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
