/* Fuzz case: traceback in api mode, seed 90585, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 90585 --cases 1 */
/* Check it: python -m passman.fuzz --check traceback_db736d92.c */
/* Problem: passman failed (exit status -11):  */
/* passman-steps: [{"name": "forward_substitute", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[19];

int main(void)
{
    int n = 1;
    int i, j, k, l;
    double sum;
    double t0 = 0.0, s8 = 0.0;
    double B[20][21];
    for (i = 0; i < 19; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    for (i = 0; i < 20; i++)
        for (j = 0; j < 21; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 18; i++)
        for (j = i + 1; j < 15; j++)
            for (k = 1; k < 16; k++)
                for (l = j + 1; l < 18; l++) {
                    t0 = A[i];
                    A[0] = 0.5 * t0 + 0.5 * A[l];
                    s8 = 0.25 * (B[k - 1][l - 2] + B[k - 1][l]) + 0.25 * (B[k + 3][l + 1] + B[k + 3][l + 2]);
                }
    for (j = 2; j < n; j++)
        B[j][j] = 0.3;
    sum = 0.0;
    for (i = 0; i < 19; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 20; i++)
        for (j = 0; j < 21; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
