/* Fuzz case: crash in accel mode, seed 3154, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 3154 --cases 1 */
/* Check it: python -m passman.fuzz --check crash_accel_box_of_empty_region.c */
/* Or: passman run accel crash_accel_box_of_empty_region.c -o out --build --run --set transfers=naive */
/* passman-mode: accel */
/* Problem: exit status 1: passman-accel: passman_accel_copy_from: the box 4..4 of dimension 2 is outside the array (4 elements)
 */
/* passman-options: --set transfers=naive */

#include <stdio.h>

static double A[2][2][4];

int main(void)
{
    int i, j, k, l;
    double sum;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            for (k = 0; k < 4; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 1; i < 7; i++)
        for (l = i; l < 3; l++)
            A[0][0][l] = 0.5;
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            for (k = 0; k < 4; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
