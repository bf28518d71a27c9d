/* Fuzz case: timeout in api mode, seed 50923, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50923 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_44f614da.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "auto_schedule", "function": "kernel", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[13][4];
static double B[13][13];
static double C[13][13][26];

static void kernel(int n, int m)
{
    int i, j, k, l;
    for (i = 0; i < n + 1; i++)
        for (j = 0; j < m; j++)
            for (k = i; k < m - 2; k++)
                for (l = 0; l < n; l++) {
                    A[k][2 * i] = 0.3 * (B[k][l] + B[k][l + 2]) + 0.2 * C[k][i + 3][k + j];
                    C[l][k + l][k] += 0.3 * B[2 * i + 1][k];
                }
}

int main(void)
{
    int n = 1, m = 14;
    int i, j, k;
    double sum;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 4; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 13; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 13; j++)
            for (k = 0; k < 26; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    kernel(n, m);
    sum = 0.0;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 4; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 13; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 13; j++)
            for (k = 0; k < 26; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
