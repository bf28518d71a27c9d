/* Fuzz case: wrong in openmp mode, seed 50177, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode openmp --seed 50177 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_1bdc3565.c */
/* Or: passman run openmp wrong_1bdc3565.c -o out */
/* Problem: 1 threads: line 2: C 102.75 -> C 91. isl generated the band atomic: S3 (i odd) shares its loops
   with a statement of stride 2 and ran at even i too (codegen._mixed_strides). */

#include <stdio.h>

static double A[2][2][2];
static double C[12];

int main(void)
{
    int m = 1;
    int i, j, k;
    double sum;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            for (k = 0; k < 2; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 12; i++)
        C[i] = (i * 7 + 3) % 11 * 0.25;
    for (i = 3; i < 11; i += 2) {
        C[i] = 1.0;
        for (j = m - 1; j >= 2; j--)
            for (k = i + 1; k < 10; k++) {
                if (k > 5)
                    C[k - 1] = 0.3;
            }
    }
    A[0][0][0] = 1.0;
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            for (k = 0; k < 2; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 12; i++)
        sum += C[i] * ((i * 3) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
