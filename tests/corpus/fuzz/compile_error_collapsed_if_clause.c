/* Fuzz case: compile_error in api mode, seed 140219, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 140219 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_aba08ac9.c */
/* Problem: /tmp/passman-fuzz-9ktreuvx/out/prog.c:12:83: error: ‘c0’ undeclared (first use in this function) */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"wavefront": false, "tile_sizes": "4,3"}}, {"name": "coarse_grain_parallelization_with_reduction", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[4][4];
static double B[14][18];

int main(void)
{
    int i, j, t;
    double sum;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 18; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (t = 0; t < 3; t++)
        for (i = 12; i >= 10; i--)
            A[t][t] = B[i][i + t + 2];
    sum = 0.0;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 18; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
