/* Fuzz case: timeout in api mode, seed 50153, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50153 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_372ff62d.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "auto_schedule", "function": "kernel", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[22][23];
static double D[3];

static void kernel(int n, int m)
{
    int i, j, k;
    for (i = m - 1; i >= 3; i--)
        for (j = m; j >= 1; j--)
            for (k = 2; k < n - 1; k++)
                A[j - 1][k + 3] = 0.3 * A[k + 1][j + 1] + 0.2 * A[j][k];
    for (j = n - 3; j >= 1; j--)
        A[0][j - 1] = 0.75 * D[1];
}

int main(void)
{
    int n = 3, m = 20;
    int i, j;
    double sum;
    for (i = 0; i < 22; i++)
        for (j = 0; j < 23; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 3; i++)
        D[i] = (i * 7 + 4) % 11 * 0.25;
    kernel(n, m);
    sum = 0.0;
    for (i = 0; i < 22; i++)
        for (j = 0; j < 23; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 3; i++)
        sum += D[i] * ((i * 3) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
