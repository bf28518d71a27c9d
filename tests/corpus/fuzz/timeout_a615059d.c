/* Fuzz case: timeout in api mode, seed 27, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 27 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_a615059d.c */
/* Problem: the steps ran past 10 s */
/* Measured at 45ed833, quiet machine: this program 7-8 s, seed 27 itself 34 s; time in ompify_code's parallel_loops (array_privatizer, out_regions, region_sets.minus/_hull). */
/* passman-timeout: 20 (the limit is 30 s; after the fixes this program takes 2-6 s) */
/* passman-steps: [{"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[7][10];

int main(void)
{
    int m = 6;
    int i, j;
    double sum;
    double C[7][7];
    for (i = 0; i < 7; i++)
        for (j = 0; j < 10; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 7; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 1; i < 4; i += 2)
        for (j = i; j < m; j++) {
            A[j][i] += 3;
            A[i + 1][j] += A[i - 1][j - 1];
            A[i - 1][j + 3] = C[j][j];
        }
    sum = 0.0;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 10; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 7; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
