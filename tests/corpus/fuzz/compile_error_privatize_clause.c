/* Fuzz case: compile_error in api mode, seed 90643, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 90643 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_8367af08.c */
/* Problem: /tmp/passman-fuzz-c_0hgfsm/out/prog.c:7:38: error: ‘j’ undeclared (first use in this function) */
/* passman-steps: [{"name": "coarse_grain_parallelization_with_reduction", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "privatize", "function": "kernel", "loop": 0, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static void kernel(int n)
{
    int i, j;
    double s1 = 0.0;
    for (i = 0; i < n + 1; i++)
        for (j = 3; j < 5; j++)
            s1 = 1.0;
}

int main(void)
{
    int n = 1;
    kernel(n);
    return 0;
}
