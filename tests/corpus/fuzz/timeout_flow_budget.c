/* Fuzz case: timeout in api mode, seed 50992, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50992 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_flow_budget.c */
/* Problem: the steps ran past 10 s (limit now 30 s, the campaign's) */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[15][23][5];

int main(void)
{
    int m = 2;
    int i, j, k;
    double sum;
    double t5 = 0.0;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 23; j++)
            for (k = 0; k < 5; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 2; i < 10; i++)
        for (j = 3; j < m - 1; j++)
            for (k = 2; k < m + 1; k++)
                A[i][j + 3][k - 1] += 0.5 * A[i + 3][j][k + 1];
    for (i = 1; i < 11; i++)
        A[13][i - 1][1] = 0.5 * t5 + 0.5 * A[2][2 * i + 1][2];
    sum = 0.0;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 23; j++)
            for (k = 0; k < 5; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
