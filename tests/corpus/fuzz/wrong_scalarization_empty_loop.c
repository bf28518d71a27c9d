/* Fuzz case: wrong in api mode, seed 1075, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1075 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_scalarization_empty_loop.c */
/* Problem: 1 threads: line 1: 'B 18.5' -> 'B 10' */
/* passman-steps: [{"name": "scalarization", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double B[6];

int main(void)
{
    int i, j, k;
    double sum;
    for (i = 0; i < 6; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    for (j = 0; j < 5; j++)
        for (k = 1; k < j; k++)
            B[j] = 0.2;
    sum = 0.0;
    for (i = 0; i < 6; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
