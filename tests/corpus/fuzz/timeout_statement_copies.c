/* Fuzz case: timeout in api mode, seed 160111, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 160111 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_statement_copies.c */
/* Problem: the steps ran past 10 s */
/* passman-timeout: 10 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"tile": false}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[15][22][15];
static double C[9][15];
static double D[5][13];

int main(void)
{
    int m = 8;
    int i, j, k;
    double sum;
    double B[9][15];
    for (i = 0; i < 15; i++)
        for (j = 0; j < 22; j++)
            for (k = 0; k < 15; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 15; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 15; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 13; j++)
            D[i][j] = (i * 7 + j * 3 + 4) % 11 * 0.25;
    for (i = 1; i < 5; i++)
        for (j = 3; j < m; j++) {
            for (k = j; k < 14; k++) {
                A[i + 3][j - 1][k] = 0.5 * A[k][j][k];
                B[j - 2][k] = 0.25 * C[j][k] + 0.2 * A[k][k + j][j + 3];
            }
            B[i + 3][j + 1] = 0.3 * A[j + 3][i + 1][9] + 0.2 * (D[i - 1][j + 3] + D[i - 1][j + 4]);
        }
    sum = 0.0;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 22; j++)
            for (k = 0; k < 15; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 15; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 15; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 13; j++)
            sum += D[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
