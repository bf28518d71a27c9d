/* Fuzz case: compile_error in accel mode, seed 1053, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 1053 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_accel_reach_out_of_scope.c */
/* Or: passman run accel compile_error_accel_reach_out_of_scope.c -o out --build --run --set max_dims=1 --set promote=false */
/* passman-mode: accel */
/* Problem: prog.c:48:91: note: each undeclared identifier is reported only once for each function it appears in */
/* passman-options: --set max_dims=1 --set promote=false */

#include <stdio.h>

int main(void)
{
    int m = 5;
    int i;
    double s4 = 0.0;
    for (i = 2; i < m - 1; i++)
        s4 += 0.5;
    return 0;
}
