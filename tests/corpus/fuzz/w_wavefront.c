/* W. Wavefront of tiles: the point loop under the front is marked parallel and carries the time dependence */
/* Before the fix: wrong output (openmp mode). */
/* Regression program of a known bug class (shrunk by hand). */

#include <stdio.h>

static double B[13];

int main(void)
{
    int i, j;
    double sum;
    for (i = 0; i < 13; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    for (i = 0; i < 50; i++)
        for (j = 1; j < 12; j++)
            B[j] = 0.5 * (B[j - 1] + B[j]);
    sum = 0.0;
    for (i = 0; i < 13; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
