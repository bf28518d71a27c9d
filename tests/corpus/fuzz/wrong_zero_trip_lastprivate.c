/* Fuzz case: wrong in api mode, seed 70598, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 70598 --cases 1 */
/* Check it: python -m passman.fuzz --check wrong_zero_trip_lastprivate.c */
/* Problem: 1 threads: line 1: 't5 0.29999999999999999' -> 't5 0' */
/* passman-steps: [{"name": "full_unroll", "function": "main", "loop": 0, "args": [], "kwargs": {}}, {"name": "allen_kennedy_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

int main(void)
{
    int j, k;
    double t5 = 0.0;
    for (j = 1; j < 3; j++)
        for (k = j; k < 2; k++)
            t5 = 0.3;
    printf("t5 %.17g\n", t5);
    return 0;
}
