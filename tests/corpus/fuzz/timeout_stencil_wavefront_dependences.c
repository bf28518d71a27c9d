/* Fuzz case: timeout in api mode, seed 17 of the stencil fuzzer. */
/* Found by: python -m passman.fuzz.stencils --seed 17 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_stencil_wavefront_dependences.c */
/* Problem: the dependences of isl's tiled wavefront (ompify_code after auto_schedule): 25 s for 5 pairs of references; now each pair has PAIR_OPERATIONS, past them it depends at every ordered level */
/* passman-timeout: 20 (the limit is 30 s) */
/* passman-steps: [{"name": "auto_schedule", "function": "kernel", "loop": null, "args": [], "kwargs": {"time_tiling": "trapezoid"}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>
#define N 18
#define TSTEPS 11
static double A[N][N];
static double B[N][N];

static void kernel(int tsteps, int n, double A[n][n], double B[n][n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 2; i < n - 2; i++)
            for (int j = 2; j < n - 2; j++)
                A[i][j] = 0.45 * (A[i + 2][j + 1] + A[i + 1][j]) + 0.01;
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
