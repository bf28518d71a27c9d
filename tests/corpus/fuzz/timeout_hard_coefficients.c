/* Fuzz case: timeout in api mode, seed 50815, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50815 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_hard_coefficients.c */
/* Problem: the steps ran past 10 s (limit now 30 s, the campaign's) */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "linearize_array", "function": "main", "loop": null, "args": [], "kwargs": {"locals": true}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

int main(void)
{
    int n = 1, m = 8;
    int i, j, k;
    double sum;
    double A[10][7][10];
    for (i = 0; i < 10; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 10; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 2; i < m; i++)
        for (j = 1; j < n; j++)
            for (k = 1; k < i; k++)
                A[j + i][k - 1][k] += 0.75 * (A[i - 2][j + 1][k + 1] + A[i - 2][j + 1][k + 2]);
    sum = 0.0;
    for (i = 0; i < 10; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 10; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
