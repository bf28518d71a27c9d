/* Fuzz case: timeout in api mode, seed 51010, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 51010 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_shared_ternaries.c */
/* Problem: the steps ran past 10 s (limit now 30 s, the campaign's) */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "strip_mine", "function": "main", "loop": 7, "args": [8], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"wavefront": false, "tile_sizes": "4,3"}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double B[8][13];
static double C[12][9][6];

int main(void)
{
    int n = 1, m = 3;
    int i, j, k;
    double sum;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 13; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 12; i++)
        for (j = 0; j < 9; j++)
            for (k = 0; k < 6; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (i = 1; i < n + 1; i++)
        for (j = i; j < 9; j++)
            for (k = j; k < m + 1; k++)
                B[6][k + j] += 0.75 * C[10][j - 1][k + i];
    sum = 0.0;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 13; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 12; i++)
        for (j = 0; j < 9; j++)
            for (k = 0; k < 6; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
