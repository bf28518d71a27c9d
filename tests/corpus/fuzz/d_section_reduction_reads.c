/* D. An array-section reduction while the loop also reads other elements of the array */
/* Before the fix: wrong output (openmp mode, coarse-grain path). */
/* Regression program of a known bug class (shrunk by hand). */
/* passman-options: --set poly=false */

#include <stdio.h>

static double C[18][17];

int main(void)
{
    int i, j, k;
    double sum;
    for (i = 0; i < 18; i++)
        for (j = 0; j < 17; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 0; i < 1000; i++)
        for (k = 0; k < 10; k++)
            C[k][15] += C[16][k];
    sum = 0.0;
    for (i = 0; i < 18; i++)
        for (j = 0; j < 17; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
