/* Fuzz case: compile_error in openmp mode, seed 140055, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 140055 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_cd631d62.c */
/* Or: passman run openmp compile_error_cd631d62.c -o out --set min_work=0 */
/* Problem: /tmp/passman-fuzz-b7unz0vi/out/prog.c:15:58: error: ‘c1’ undeclared (first use in this function); /tmp/passman-fuzz-b7unz0vi/out/prog.c:15:78: error: ‘c0’ undeclared (first use in this function); /tmp/passman-fuzz-b7unz0vi/out/prog.c:15:102: error: ‘c2’ undeclared (first use in this function) */
/* passman-options: --set min_work=0 */

#include <stdio.h>

static void kernel(int n, double A[17][6][5], double B[5])
{
    int i, j, k;
    for (i = n - 2; i >= 0; i--)
        for (j = 1; j < 8; j += 2)
            for (k = 0; k < 4; k += 2)
                A[2 * j + 1][k + 1][k] += 0.75 * B[k];
}

int main(void)
{
    int n = 25;
    int i, j, k;
    double sum;
    double A[17][6][5];
    double B[5];
    for (i = 0; i < 17; i++)
        for (j = 0; j < 6; j++)
            for (k = 0; k < 5; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 5; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    kernel(n, A, B);
    sum = 0.0;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 6; j++)
            for (k = 0; k < 5; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 5; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
