/* Fuzz case: crash in accel mode, seed 511, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 511 --cases 1 */
/* Check it: python -m passman.fuzz --check crash_accel_box_past_extent.c */
/* Or: passman run accel crash_accel_box_past_extent.c -o out --build --run --set max_dims=1 --set transfers=naive */
/* passman-mode: accel */
/* Problem: exit status 1: passman-accel: passman_accel_copy_to: the box 0..3 of dimension 2 is outside the array (2 elements)
 */
/* passman-options: --set max_dims=1 --set transfers=naive */

#include <stdio.h>

static double A[2][5][2];

int main(void)
{
    int i, j, k;
    double sum;
    double s5 = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 2; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 1; i++) {
        s5 = A[i][0][i];
        A[i][i][i] = A[0][i + 3][0];
    }
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 2; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
