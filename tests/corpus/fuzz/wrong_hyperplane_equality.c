/* Fuzz case: wrong in api mode, seed 160236, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 160236 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_hyperplane_equality.c */
/* Problem: 1 threads: line 1: 'A 73.25' -> 'A 57' */
/* passman-steps: [{"name": "loop_hyperplane", "function": "kernel", "loop": 0, "args": [], "kwargs": {"direction": [2, 1]}}] */

#include <stdio.h>

static double A[5][2];

static void kernel(void)
{
    int i, j;
    for (i = 1; i < 4; i++)
        for (j = 3; j < 4; j++)
            A[j][0] = 0.5;
}

int main(void)
{
    int i, j;
    double sum;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 2; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    kernel();
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 2; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
