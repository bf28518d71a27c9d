/* Fuzz case: timeout in api mode, seed 1005117, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1005117 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_extent_of_tiled_code.c */
/* Problem: the steps ran past 30 s (campaign of 2026-11-27 at 163d885, api seed 1005117: 97 s): the second auto_schedule asked isl for the extent of each band member of a schedule of the first one's tiled code (dim_min / dim_max, parametric integer programming over its divisions); now under EXTENT_OPERATIONS (an unknown extent past them): 3.6 s */
/* passman-timeout: 10 (the limit is 30 s) */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[5][3];

int main(void)
{
    int n = 1, m = 1;
    int i, j;
    double sum;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 3; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < n - 2; i++)
        for (j = 1; j < m + 1; j++)
            A[i][j] = A[i + 3][j - 1] + A[i + 3][j];
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 3; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
