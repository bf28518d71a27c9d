/* Fuzz case: timeout in api mode, seed 50451, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50451 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_difference_existentials.c */
/* Problem: the steps ran past 10 s (limit now 30 s, the campaign's) */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "allen_kennedy_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}] */

#include <stdio.h>

int main(void)
{
    int n = 22;
    int i, j, k;
    double sum;
    double A[22][24][22];
    for (i = 0; i < 22; i++)
        for (j = 0; j < 24; j++)
            for (k = 0; k < 22; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 3; i < n - 2; i += 2)
        for (j = 1; j < 6; j++) {
            A[j][j][i + 1] = 0.5 * A[i + 1][i + 3][2 * j + 1];
            A[i - 1][16][j] = 0.25 * (A[j - 1][8][j] + A[j - 1][8][j + 2]) + 0.5;
        }
    sum = 0.0;
    for (i = 0; i < 22; i++)
        for (j = 0; j < 24; j++)
            for (k = 0; k < 22; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
