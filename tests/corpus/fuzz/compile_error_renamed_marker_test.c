/* Fuzz case: compile_error in api mode, seed 1008624, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1008624 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_renamed_marker_test.c */
/* Problem: prog.c:42:25: error: 'j_t' undeclared (campaign of 2026-11-27 at 163d885, api seed 1008624): allen_kennedy_parallelization marked the strip-mined j loop with a run-time test reading j_t, loop_normalize then replaced j_t by 8 * j_t_n in the code (not in the pragma's text), and ompify_code versioned the loop on the stale test. Now ompify_code leaves a loop whose test reads a name not declared there without a pragma, with a warning */
/* passman-steps: [{"name": "strip_mine", "function": "main", "loop": 5, "args": [8], "kwargs": {}}, {"name": "allen_kennedy_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "loop_normalize", "function": "main", "loop": 5, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[2];
static double C[5][4][2];

int main(void)
{
    int m = 1;
    int i, j, k;
    double sum;
    for (i = 0; i < 2; i++)
        A[i] = (i * 7 + 1) % 11 * 0.25;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 4; j++)
            for (k = 0; k < 2; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (i = 2; i < m - 2; i++)
        for (j = 0; j < i + 2; j++) {
            C[j][i][0] = 0.5;
            A[0] = 0.2;
        }
    sum = 0.0;
    for (i = 0; i < 2; i++)
        sum += A[i] * ((i * 3) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 5; i++)
        for (j = 0; j < 4; j++)
            for (k = 0; k < 2; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
