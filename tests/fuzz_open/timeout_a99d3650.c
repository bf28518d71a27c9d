/* Fuzz case: timeout in api mode, seed 50206, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50206 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_a99d3650.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double B[18][9];

int main(void)
{
    int m = 12;
    int i, j, k;
    double sum;
    double A[26][28];
    for (i = 0; i < 26; i++)
        for (j = 0; j < 28; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 18; i++)
        for (j = 0; j < 9; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 1; i < m; i++)
        for (j = i + 1; j < 14; j++)
            for (k = 2; k < 7; k++) {
                A[j][k] = 0.5 * A[k + i + 2][j] + 1.0;
                B[j + 3][k] += 3;
                A[j + 1][k] = 0.3 * A[j - 2][j + i + 2] + 0.2 * A[i - 1][2 * k + 1] * A[j + i][k + 3] + 0.3 * B[j - 1][k + 1];
            }
    sum = 0.0;
    for (i = 0; i < 26; i++)
        for (j = 0; j < 28; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 18; i++)
        for (j = 0; j < 9; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
