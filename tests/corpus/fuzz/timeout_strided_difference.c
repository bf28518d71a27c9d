/* Fuzz case: timeout in api mode, seed 1001716, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1001716 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_strided_difference.c */
/* Problem: the steps ran past 30 s (campaign of 2026-11-27 at ca71807): one IN-region difference of strided regions (j += 2 against 2 * i + 1) took over 20 s in isl; now under the operation budget, the coarse answer past it: about 3 s */
/* passman-timeout: 20 (the limit is 30 s) */
/* passman-steps: [{"name": "coarse_grain_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}] */

#include <stdio.h>

int main(void)
{
    int i, j, k;
    double sum;
    double A[15][27][9];
    for (i = 0; i < 15; i++)
        for (j = 0; j < 27; j++)
            for (k = 0; k < 9; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 2; i < 13; i++)
        for (j = 1; j < 14; j += 2)
            for (k = 1; k < 5; k++) {
                A[i][j][k] = 0.5;
                A[j][2 * i + 1][k + 3] = 0.5;
            }
    sum = 0.0;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 27; j++)
            for (k = 0; k < 9; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
