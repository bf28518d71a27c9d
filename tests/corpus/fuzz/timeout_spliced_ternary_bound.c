/* Fuzz case: timeout in api mode, stencil seed 6 (python -m passman.fuzz.stencils, with storage folded on two buffers). */
/* Found by: python -m passman.fuzz.stencils --seed 6 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_spliced_ternary_bound.c */
/* Problem: eliminate_false_dependences wrote its copy loop as text, 'for (long A0_x0 = 0; A0_x0 <= HI; A0_x0++)' with HI isl's bound of the folded dimension, 'tsteps >= 2 ? 1 : tsteps - tsteps % 2', printed bare: the condition read '(A0_x0 <= tsteps) >= 2 ? 1 : tsteps - tsteps % 2', true for ever, and the program never ended. Now every bound spliced into generated text goes through printer.to_c_operand (in parentheses unless primary): di_shapes's copies, dlt's copies, sweep bounds and time loop */
/* passman-steps: [{"name": "eliminate_false_dependences", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "time_tile", "function": "kernel", "loop": null, "args": [], "kwargs": {"shape": "balanced", "schedule": "static"}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>
#define N 96
#define TSTEPS 8
static double A[2][N];
static double B[N];

static void kernel(int tsteps, int n, double A[2][n], double B[n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int i = 2; i < n - 2; i++)
            A[(t + 1) % 2][i] = 0.45 * (A[t % 2][i - 1] + A[t % 2][i - 2]) + 0.01;
    }
}

int main(void)
{
    for (int i = 0; i < N; i++)
        A[0][i] = ((3 * i) % 13) * 0.125 + 1.0, B[i] = 0.5, A[1][i] = 0.25;
    kernel(TSTEPS, N, A, B);
    double s = 0.0;
    for (int i = 0; i < N; i++)
        s += A[TSTEPS % 2][i] * ((3 * i) % 7 + 1) + B[i] + A[(TSTEPS + 1) % 2][i];
    printf("%.10e\n", s);
    return 0;
}
