/* B. A write whose element does not depend on the outer loop, under a condition on both indices */
/* Before the fix: wrong output (openmp mode). */
/* Regression program of a known bug class (shrunk by hand). */

#include <stdio.h>

static double A[29];
static double B[32][29];

int main(void)
{
    int n = 30;
    int i, j;
    double sum;
    for (i = 0; i < 29; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    for (i = 0; i < 32; i++)
        for (j = 0; j < 29; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 1; i < n + 1; i++)
        for (j = 1; j < n - 2; j++) {
            if (j + i < 9)
                A[j] = B[i][j];
        }
    sum = 0.0;
    for (i = 0; i < 29; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 32; i++)
        for (j = 0; j < 29; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
