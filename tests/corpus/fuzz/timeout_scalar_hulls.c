/* Fuzz case: timeout in api mode, seed 50046, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 50046 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_scalar_hulls.c */
/* Problem: the steps ran past 10 s (limit now 30 s, the campaign's) */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"wavefront": false, "tile_sizes": "4,3"}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

int main(void)
{
    int m = 1;
    int i, j, t;
    double sum;
    double A[4][4];
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (t = 0; t < 6; t++)
        for (i = 1; i < m; i++)
            for (j = 1; j < m; j++)
                A[i][j] = 1.0 + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1];
    sum = 0.0;
    for (i = 0; i < 4; i++)
        for (j = 0; j < 4; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
