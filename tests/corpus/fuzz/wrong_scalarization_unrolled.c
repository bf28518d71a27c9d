/* Fuzz case: wrong in api mode, seed 1066, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1066 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_scalarization_unrolled.c */
/* Problem: 1 threads: line 1: 'B 10.75' -> 'B 9' */
/* passman-steps: [{"name": "unroll", "function": "main", "loop": 4, "args": [4], "kwargs": {}}, {"name": "scalarization", "function": "main", "loop": null, "args": [], "kwargs": {"break_perfect_nest": true}}] */

#include <stdio.h>

static double B[2];
static double C[2][2][5];

int main(void)
{
    int i, j, k, l;
    double sum;
    for (i = 0; i < 2; i++)
        B[i] = (i * 7 + 2) % 11 * 0.25;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            for (k = 0; k < 5; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (i = 2; i < 7; i++)
        for (l = i + 1; l < 4; l++)
            B[0] = C[0][0][l];
    sum = 0.0;
    for (i = 0; i < 2; i++)
        sum += B[i] * ((i * 3) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            for (k = 0; k < 5; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
