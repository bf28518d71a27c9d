/* Fuzz case: crash in api mode, stencil seed 310179 (python -m passman.fuzz.stencils, edges guarded: zero outside the grid, storage folded on two buffers). */
/* Found by: python -m passman.fuzz.stencils --seed 310179 --cases 1 */
/* Check it: python -m passman.fuzz --check crash_guarded_read_copy_bounds.c */
/* Problem: eliminate_false_dependences copied the elements a read touches, and a read under a condition ('i - 2 >= 0 && j >= 1 ? A[t % 2][i - 2][j - 1] : 0.0') is modelled as reading wherever its statement runs: the copy loop ran from A[..][-2][-1], out of the array, and corrupted the heap (free(): invalid pointer). Now the copied elements are those inside the array's declared extents (never read outside them); a conditional read of a dimension without an affine extent is refused */
/* passman-steps: [{"name": "eliminate_false_dependences", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "time_tile", "function": "kernel", "loop": null, "args": [], "kwargs": {"shape": "balanced", "schedule": "static"}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <math.h>
#include <stdio.h>
#define N 25
#define TSTEPS 3
static double A[2][N][N];
static double B[N][N];

static void kernel(int tsteps, int n, double A[2][n][n], double B[n][n])
{
    int t, i, j;
    for (t = 1; t <= tsteps; t++) {
        for (i = 0; i < n; i = i + 1)
            for (j = 0; j <= n - 1; j = j + 1)
                A[(t + 1) % 2][i][j] = 0.225 * ((j - 2 >= 0 ? A[t % 2][i][j - 2] : 0.0) + (i + 2 <= n - 1 && j > 1 ? A[t % 2][i + 2][j - 2] : 0.0) + (i - 2 >= 0 && j >= 1 ? A[t % 2][i - 2][j - 1] : 0.0) + (i + 2 <= n - 1 && j - 1 >= 0 ? A[t % 2][i + 2][j - 1] : 0.0)) + 0.01;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            A[0][i][j] = ((3 * i + 5 * j) % 13) * 0.125 + 1.0, B[i][j] = 0.5, A[1][i][j] = ((3 * i + 5 * j) % 11) * 0.1 + 0.5;
    kernel(TSTEPS, N, A, B);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[TSTEPS % 2][i][j] * ((3 * i + 5 * j) % 7 + 1) + B[i][j] + A[(TSTEPS + 1) % 2][i][j];
    printf("%.10e\n", s);
    return 0;
}
