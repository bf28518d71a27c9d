/* Fuzz case: traceback in openmp mode, seed 140055, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 140055 --cases 1 */
/* Check it: python -m passman.fuzz --check traceback_a33aac5e.c */
/* Or: passman run openmp traceback_a33aac5e.c -o out --set min_work=0 */
/* Problem: passman: internal error: pass auto_schedule crashed on function kernel: Error('call to isl_set_coefficients failed: input set not allowed to have local variables in /project/isl/isl_farkas.c:847') */
/* passman-options: --set min_work=0 */

#include <stdio.h>

static double A[2][5][5];

static void kernel(int n)
{
    int i, k;
    for (i = n - 2; i >= 0; i--)
        for (k = 0; k < 4; k += 2)
            A[0][k][k] = 0.75;
}

int main(void)
{
    int n = 1;
    int i, j, k;
    double sum;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 5; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    kernel(n);
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 5; j++)
            for (k = 0; k < 5; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
