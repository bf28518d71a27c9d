/* Fuzz case: timeout in api mode, seed 1007224 (the whole case). */
/* Found by: python -m passman.fuzz --mode api --seed 1007224 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_region_analyses_pool.c */
/* Problem: the steps ran past 30 s (campaign of 2026-11-27 at 163d885; 44 s with the function pool of f7b9b78, which the region analyses did not draw on): after two auto_schedule, loop_fusion_with_regions, allen_kennedy_parallelization and ompify_code each re-analysed the tiled code, the array privatizer's region walks and OUT regions 3 s each, every time. Now the region analyses draw on the function's pool too */
/* passman-timeout: 27 (the limit is 30 s) */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "loop_fusion_with_regions", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "invariant_code_motion", "function": "main", "loop": 7, "args": [], "kwargs": {}}, {"name": "allen_kennedy_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[13][41];

int main(void)
{
    int n = 19, m = 20;
    int i, j, k, l;
    double sum;
    double B[20][26][7];
    for (i = 0; i < 13; i++)
        for (j = 0; j < 41; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 20; i++)
        for (j = 0; j < 26; j++)
            for (k = 0; k < 7; k++)
                B[i][j][k] = (i * 7 + j * 3 + k * 5 + 2) % 11 * 0.25;
    for (i = 3; i < m; i++)
        for (j = 0; j < n; j++)
            for (k = 1; k < 6; k++)
                for (l = 1; l < k; l++) {
                    A[l + k + 2][2 * i + 1] = 0.3 * B[j][k - 1][l + 1];
                    B[l + 1][l + j + 2][k] += 1.0;
                }
    sum = 0.0;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 41; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 20; i++)
        for (j = 0; j < 26; j++)
            for (k = 0; k < 7; k++)
                sum += B[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("B %.17g\n", sum);
    return 0;
}
