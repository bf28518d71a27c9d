/* Fuzz case: compile_error in accel mode, seed 1128, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode accel --seed 1128 --cases 1 */
/* Check it: python -m passman.fuzz --check compile_error_accel_shared_scalar_write.c */
/* Or: passman run accel compile_error_accel_shared_scalar_write.c -o out --build --run */
/* passman-mode: accel */
/* Problem: prog.c:67:24: note: each undeclared identifier is reported only once for each function it appears in */

#include <stdio.h>

static double D[2][2];

int main(void)
{
    int i, j;
    double sum;
    double t0 = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            D[i][j] = (i * 7 + j * 3 + 4) % 11 * 0.25;
    for (i = 0; i < 2; i++) {
        if (0 < 0) {
            D[0][0] = t0;
            t0 = 0.5;
        }
    }
    sum = 0.0;
    for (i = 0; i < 2; i++)
        for (j = 0; j < 2; j++)
            sum += D[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
