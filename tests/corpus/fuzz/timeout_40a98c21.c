/* Fuzz case: timeout in api mode, seed 17, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 17 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_40a98c21.c */
/* Problem: the steps ran past 10 s */
/* Measured at 45ed833, quiet machine: this program 6-11 s, seed 17 itself 29 s; time in ompify_code's parallel_loops (array_privatizer, region_sets._hull/bounded: 221 convex hulls, 3.5 s). */
/* passman-timeout: 20 (the limit is 30 s; after the fixes this program takes 2-6 s) */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"tile": false}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

int main(void)
{
    int n = 6;
    int i, j, k, t;
    double sum;
    double B[10][8];
    double C[5][5][7];
    for (i = 0; i < 10; i++)
        for (j = 0; j < 8; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 7; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (t = 0; t < 6; t++)
        for (i = 0; i < 7; i++)
            for (j = 2; j < n - 2; j++) {
                B[j + t][i] += 1.0;
                C[j][j][t] = B[2 * j][j];
            }
    sum = 0.0;
    for (i = 0; i < 10; i++)
        for (j = 0; j < 8; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 7; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
