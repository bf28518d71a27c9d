/* E. A reduction section indexed by the parallel loop's own index */
/* Before the fix: wrong output (openmp mode). */
/* Regression program of a known bug class (shrunk by hand). */

#include <stdio.h>

static double A[13][14];
static double B[16][10];

int main(void)
{
    int n = 12, m = 10;
    int i, j, k;
    double sum;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 14; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 16; i++)
        for (j = 0; j < 10; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < n; i++)
        for (j = 0; j < m; j++)
            for (k = m - 1; k >= 3; k--) {
                if (i < n / 2)
                    A[i][12] += 3;
                B[i + 3][k - 1] += j * 1.5;
            }
    sum = 0.0;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 14; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 16; i++)
        for (j = 0; j < 10; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
