/* Fuzz case: timeout in api mode, seed 24 of the stencil fuzzer. */
/* Found by: python -m passman.fuzz.stencils --seed 24 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_stencil_task_directions.c */
/* Problem: time_tile's task directions: reduce_deltas walked every tile between the ends of a long direction (tile sizes 8,2,4 on offsets of 2: over 60 s); now bounded (MAX_BOX points a direction, 2 s in all), the directions not shown redundant kept */
/* passman-timeout: 20 (the limit is 30 s) */
/* passman-steps: [{"name": "time_tile", "function": "kernel", "loop": null, "args": [], "kwargs": {"shape": "diamond", "schedule": "tasks", "tile_sizes": "8,2,4"}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>
#define N 27
#define TSTEPS 8
static double A[N][N];
static double B[N][N];

static void kernel(int tsteps, int n, double A[n][n], double B[n][n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 2; i < n - 2; i++)
            for (int j = 2; j < n - 2; j++)
                B[i][j] = 0.3 * (A[i + 2][j + 2] + A[i][j] + A[i - 2][j - 1]) + 0.01;
        for (int i = 2; i < n - 2; i++)
            for (int j = 2; j < n - 2; j++)
                A[i][j] = 0.9 * (B[i - 1][j - 1]);
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[i][j] = ((3 * i + 5 * j) % 13) * 0.125 + 1.0, B[i][j] = 0.5;
    kernel(TSTEPS, N, A, B);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j] * ((3 * i + 5 * j) % 7 + 1) + B[i][j];
    printf("%.10e\n", s);
    return 0;
}
