/* Fuzz case: wrong in accel mode, seed 1170, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 1170 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_accel_strided_out_hull.c */
/* Or: passman run accel wrong_accel_strided_out_hull.c -o out --build --run --set transfers=naive --set promote=false */
/* passman-mode: accel */
/* Problem: {'PASSMAN_ACCEL_CHECK': '1'}: line 1: 'D 11.5' -> 'D -nan' */
/* passman-options: --set transfers=naive --set promote=false */

#include <stdio.h>

static double D[4];

int main(void)
{
    int i, k;
    double sum;
    for (i = 0; i < 4; i++)
        D[i] = (i * 7 + 4) % 11 * 0.25;
    for (k = 0; k < 2; k++)
        D[2 * k] = 0.5;
    sum = 0.0;
    for (i = 0; i < 4; i++)
        sum += D[i] * ((i * 3) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
