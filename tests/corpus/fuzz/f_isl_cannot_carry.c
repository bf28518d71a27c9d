/* F. isl "unable to carry dependences" escaped auto_schedule as an internal error */
/* Before the fix: traceback (openmp mode). */
/* Regression program of a known bug class (shrunk by hand). */

#include <stdio.h>

static double C[17][17];

int main(void)
{
    int i, j, t;
    double sum;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 17; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (t = 0; t < 5; t++)
        for (i = 1; i < 9; i++)
            for (j = 3; j < 8; j += 2)
                C[t + 2][i + j] = 0.2 * C[j + i][j] + 0.3 * C[i][13] + C[i][2] * C[2 * t][j];
    sum = 0.0;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 17; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
