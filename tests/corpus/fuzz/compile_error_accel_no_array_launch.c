/* Fuzz case: compile_error in accel mode, seed 513, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 513 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_accel_no_array_launch.c */
/* Or: passman run accel compile_error_accel_no_array_launch.c -o out --build --run */
/* passman-mode: accel */
/* Problem: compilation terminated. */

#include <stdio.h>

int main(void)
{
    int j;
    double t7 = 0.0;
    for (j = 3; j < 4; j++)
        t7 = 0.75;
    return 0;
}
