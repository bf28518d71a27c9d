/* Fuzz case: timeout in api mode, seed 50336, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50336 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_9502fa87.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[12][13];

int main(void)
{
    int n = 1;
    int i, j, t;
    double sum;
    for (i = 0; i < 12; i++)
        for (j = 0; j < 13; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (t = 0; t < 6; t++)
        for (i = 0; i < n; i++)
            for (j = 2; j < 9; j++) {
                A[j + i + 2][j + 3] = 0.2 * (A[i + 3][j] + A[i + 3][j + 1]) + 0.2 * A[j][i];
                A[i][j] += A[7][j + 1];
            }
    sum = 0.0;
    for (i = 0; i < 12; i++)
        for (j = 0; j < 13; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
