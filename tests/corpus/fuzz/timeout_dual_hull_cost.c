/* Fuzz case: timeout in api mode, seed 20016, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 20016 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_bcacefa2.c */
/* Problem: the steps ran past 30 s */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "scalarization", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double C[35][19][22];

static void kernel(int n, int m, double A[38][33], double B[24])
{
    int i, j, k, t;
    double t5 = 0.0, t6 = 0.0;
    for (t = 0; t < 4; t++)
        for (i = 2; i < 12; i += 2)
            for (j = t; j < m - 1; j++) {
                t5 = 0.75;
                A[i - 1][11] = 0.5 * t5 + 0.5 * A[j + i][i - 2];
                if (j <= 12) {
                    t6 = 0.2 * A[2 * i + 1][j + i + 2] + 0.25 * A[5][j + i];
                    A[2 * j][0] = 0.5 * t6 + 0.75 * B[j];
                }
            }
    for (i = 3; i < n - 1; i++)
        for (j = 1; j < 15; j += 2)
            for (k = 3; k < m; k++)
                B[k + 3] = 0.2 * A[2 * j + 1][j + 1] + 0.25 * C[5][k - 2][k + 1] + 0.25 * C[j + k][j + 3][j + 3];
}

int main(void)
{
    int n = 26, m = 20;
    int i, j, k;
    double sum;
    double A[38][33];
    double B[24];
    for (i = 0; i < 38; i++)
        for (j = 0; j < 33; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 24; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    for (i = 0; i < 35; i++)
        for (j = 0; j < 19; j++)
            for (k = 0; k < 22; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    kernel(n, m, A, B);
    sum = 0.0;
    for (i = 0; i < 38; i++)
        for (j = 0; j < 33; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 24; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 35; i++)
        for (j = 0; j < 19; j++)
            for (k = 0; k < 22; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
