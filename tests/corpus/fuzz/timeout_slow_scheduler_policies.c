/* Fuzz case: timeout in api mode, seed 1002653 (not shrunk: the shrinker was off). */
/* Found by: python -m passman.fuzz --mode api --seed 1002653 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_slow_scheduler_policies.c */
/* Problem: the steps ran past 30 s (confirmation campaign of 2026-11-27 at ae0564d: 58 s): the first auto_schedule found a schedule in 7 s with isl's "smart" fusion, then spent the function's 20 s trying "pluto" and "none" too, had no time left to generate code and refused; the second spent 8 s per policy. Now a part whose scheduling took over EXPLORE_SECONDS keeps the first schedule found, and after a policy runs out of time only "none" is tried, in FALLBACK_SECONDS: about 20 s */
/* passman-timeout: 27 (the limit is 30 s) */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"wavefront": false, "tile_sizes": "4,3"}}, {"name": "strip_mine", "function": "main", "loop": 8, "args": [8], "kwargs": {}}, {"name": "unroll", "function": "main", "loop": 6, "args": [4], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"tile": false}}, {"name": "unroll_and_jam", "function": "main", "loop": 6, "args": [2], "kwargs": {}}, {"name": "coarse_grain_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double B[14][17];
static double C[13][15];

int main(void)
{
    int n = 16, m = 10;
    int i, j, k, l;
    double sum;
    double t1 = 0.0, s2 = 0.0;
    double A[30];
    for (i = 0; i < 30; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 17; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 15; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 1; i < m; i += 2)
        for (j = 3; j < m + 1; j++)
            for (k = j + 1; k < 15; k++) {
                A[k + j] += B[k - 2][j];
                if (k <= n / 2)
                    A[k - 2] += 0.5 * C[11][k - 1];
                if (i + j < 14)
                    A[j] = 0.75 * B[i][k + 1];
                for (l = 0; l < k + 1; l++) {
                    A[l] = 0.5 * t1 + A[2 * k];
                    t1 = A[l];
                    if (i + l > 12)
                        s2 = s2 + j * 1.5;
                }
            }
    printf("s2 %.17g\n", s2);
    sum = 0.0;
    for (i = 0; i < 30; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 14; i++)
        for (j = 0; j < 17; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 13; i++)
        for (j = 0; j < 15; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
