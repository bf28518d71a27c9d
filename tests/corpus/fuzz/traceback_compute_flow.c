/* Fuzz case: traceback in api mode, seed 70171, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 70171 --cases 1 */
/* Check it: python -m passman.fuzz --check traceback_compute_flow.c */
/* Problem: allen_kennedy_parallelization(min_work=0) on kernel: InternalError: analysis dependences crashed on ('module', 'kernel'): Error('call to isl_union_access_info_compute_flow failed: affine expression involves some of the domain dimensions in /project/isl/isl_domain_factor_templ.c:26') */
/* passman-steps: [{"name": "auto_schedule", "function": "kernel", "loop": null, "args": [], "kwargs": {"wavefront": false, "tile_sizes": "4,3"}}, {"name": "allen_kennedy_parallelization", "function": "kernel", "loop": null, "args": [], "kwargs": {"min_work": 0}}] */

#include <stdio.h>

static double A[4];

static void kernel(int n, int m)
{
    int i, j, t;
    for (t = 0; t < 2; t++)
        A[0] = 1.0;
    for (i = m - 2; i >= 1; i--)
        for (j = i + 1; j < n - 1; j++)
            A[j] += 0.5;
}

int main(void)
{
    int n = 1, m = 1;
    int i;
    double sum;
    for (i = 0; i < 4; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    kernel(n, m);
    sum = 0.0;
    for (i = 0; i < 4; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
