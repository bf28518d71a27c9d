/* C. Scalar temporaries written in the body of a scheduled parallel loop */
/* Before the fix: wrong output (openmp mode). */
/* Regression program of a known bug class (shrunk by hand). */

#include <stdio.h>

static double A[7];
static double B[7][8];

int main(void)
{
    int i, j, t;
    double sum;
    double t6 = 0.0, t7 = 0.0;
    for (i = 0; i < 7; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 8; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (t = 0; t < 3; t++)
        for (i = 1; i < 3; i++)
            for (j = 1; j < 4; j += 2) {
                t6 = 0.75 * B[j][j] + 0.3 * A[j - 1];
                B[t + j][j] = 0.5 * t6 + A[2 * t + 1];
                t7 = 0.75;
                A[t] = 0.5 * t7 + 1.5 * B[i - 1][j + 3];
            }
    sum = 0.0;
    for (i = 0; i < 7; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 7; i++)
        for (j = 0; j < 8; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
