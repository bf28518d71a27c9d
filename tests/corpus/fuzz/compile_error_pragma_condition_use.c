/* Fuzz case: compile_error in api mode, seed 1003563, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1003563 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_pragma_condition_use.c */
/* Problem: prog.c:18:20: error: 'm' undeclared (campaign of 2026-11-27 at 163d885): the parallel marker's run-time test version((long)(m - 2) * 2 >= 100000) read m, partial_eval folded the loop's bound, and dead_code_elimination removed m's initialisation and declaration: liveness and unused declarations did not see names in pragmas. Now every name of a pragma's text is read there */
/* passman-steps: [{"name": "allen_kennedy_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "partial_eval", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "dead_code_elimination", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[3][2];

int main(void)
{
    int m = 1;
    int i, j, t;
    double sum;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 2; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (t = 0; t < 2; t++)
        for (i = 1; i < m - 1; i++)
            A[i][0] = 0.2;
    sum = 0.0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 2; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    return 0;
}
