/* Fuzz case: timeout in api mode, seed 50181, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50181 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_56b6ff55.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[16][30][19];

int main(void)
{
    int i, j, k;
    double sum;
    double C[4][15];
    for (i = 0; i < 16; i++)
        for (j = 0; j < 30; j++)
            for (k = 0; k < 19; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 15; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 3; i < 15; i += 2)
        for (j = 14; j >= 1; j--) {
            A[j][i - 2][i + 3] = C[2][j - 1];
            A[12][i + j][0] = 0.5;
        }
    sum = 0.0;
    for (i = 0; i < 16; i++)
        for (j = 0; j < 30; j++)
            for (k = 0; k < 19; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 15; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
