/* Fuzz case: timeout in api mode, seed 90044, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 90044 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_39bc0ad2.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "coarse_grain_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[10][7];

int main(void)
{
    int n = 3, m = 6;
    int i, j, k;
    double sum;
    double B[7][6];
    for (i = 0; i < 10; i++)
        for (j = 0; j < 7; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 6; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 5; i += 2)
        for (j = i + 1; j < n; j++) {
            for (k = 0; k < m; k++)
                A[2 * j][k] += 3;
            B[i][j] = j * 1.5;
            B[i + 1][j - 1] = j * 0.5 + i * 0.5 + 0.2 * A[j + i + 2][j - 1] * B[j][i];
        }
    sum = 0.0;
    for (i = 0; i < 10; i++)
        for (j = 0; j < 7; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 6; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
