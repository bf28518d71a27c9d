/* Fuzz case: compile_error in api mode, seed 1288, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1288 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_duplicate_reduction.c */
/* Problem: /tmp/passman-fuzz-hk_pcawp/out/prog.c:23:43: error: ‘C’ appears more than once in data clauses */
/* passman-steps: [{"name": "allen_kennedy_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "loop_normalize", "function": "main", "loop": 3, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double C[2][6][2];

int main(void)
{
    int n = 1;
    int i, j, k, l;
    double sum;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 6; j++)
            for (k = 0; k < 2; k++)
                C[i][j][k] = (i * 7 + j * 3 + k * 5 + 3) % 11 * 0.25;
    for (k = 3; k < 5; k++)
        for (l = 3; l < n; l++)
            C[0][k][0] += 1.0;
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 6; j++)
            for (k = 0; k < 2; k++)
                sum += C[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("C %.17g\n", sum);
    return 0;
}
