/* Fuzz case: crash in accel mode, seed 3373, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 3373 --cases 1 */
/* Check it: python -m passman.fuzz --check crash_accel_box_of_empty_region_2.c */
/* Or: passman run accel crash_accel_box_of_empty_region_2.c -o out --build --run --set transfers=naive */
/* passman-mode: accel */
/* Problem: exit status 1: passman-accel: passman_accel_copy_from: the box 6..6 of dimension 0 is outside the array (6 elements)
 */
/* passman-options: --set transfers=naive */

#include <stdio.h>

static double B[6];

int main(void)
{
    int i, j;
    double sum;
    for (i = 0; i < 6; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    for (i = 2; i < 9; i++)
        for (j = i + 1; j < 5; j++)
            B[j] = 0.25;
    sum = 0.0;
    for (i = 0; i < 6; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
