/* Fuzz case: timeout in api mode, seed 1001152, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 1001152 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_tiled_init_dependences.c */
/* Problem: the steps ran past 30 s (campaign of 2026-11-27 at ca71807): ompify_code re-analysed auto_schedule's skewed tiles of a 2-statement nest, 16 s modelling the parts and 30 s their dependences; now MODEL_SECONDS and FUNCTION_SECONDS (5 s each) bound them, with sound answers past them: about 13 s */
/* passman-timeout: 25 (the limit is 30 s) */
/* passman-steps: [{"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double D[8][7][6];

int main(void)
{
    int n = 1, m = 1;
    int i, j, k;
    double sum;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 6; k++)
                D[i][j][k] = (i * 7 + j * 3 + k * 5 + 4) % 11 * 0.25;
    for (i = 1; i < m + 1; i++) {
        D[i][i][i] = D[6][5][i + 3];
        for (j = 0; j < n + 1; j++)
            for (k = 1; k < m; k++)
                D[j + i][k][k] = 1.0;
    }
    sum = 0.0;
    for (i = 0; i < 8; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 6; k++)
                sum += D[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("D %.17g\n", sum);
    return 0;
}
