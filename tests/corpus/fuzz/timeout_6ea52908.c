/* Fuzz case: timeout in openmp mode, seed 47, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 47 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_6ea52908.c */
/* Or: passman run openmp timeout_6ea52908.c -o out --set min_work=0 */
/* Problem: passman ran past 10 s */
/* Measured at 45ed833, quiet machine: this program 15 s, seed 47 itself over 150 s; time in auto_schedule's code generation (isl_ast.linear/expr: 815k calls, re-expanding nested min/max). */
/* passman-timeout: 20 (the limit is 30 s; after the fixes this program takes 2-6 s) */
/* passman-options: --set min_work=0 */

#include <stdio.h>

static double A[5][6];
static double B[2][5][13];

int main(void)
{
    int n = 1, m = 1;
    int i, j, k;
    double sum;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 6; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 13; k++)
                B[i][j][k] = (i * 7 + j * 3 + k * 5 + 2) % 11 * 0.25;
    for (i = 0; i < n; i++) {
        A[i][i] = 1.0;
        for (j = 1; j < m; j++)
            for (k = 1; k < i + 1; k++)
                A[j][k + 3] = 0.75;
    }
    for (i = 3; i < m - 2; i++)
        A[i][i] = B[0][i][2 * i];
    for (i = 0; i < n - 2; i++)
        for (j = 1; j < 12; j++)
            B[0][i][j] = B[0][i][j];
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 6; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 13; k++)
                sum += B[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
