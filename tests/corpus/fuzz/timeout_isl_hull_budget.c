/* Fuzz case: timeout in api mode, seed 150016, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 150016 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_isl_hull_budget.c */
/* Problem: the steps ran past 30 s */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "coarse_grain_parallelization", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "coarse_grain_parallelization_with_reduction", "function": "main", "loop": null, "args": [], "kwargs": {"min_work": 0}}, {"name": "coarse_grain_parallelization_with_reduction", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "tile", "function": "main", "loop": 13, "args": [3, 5, 2], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"tile": false}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[27][20][24];
static double B[17][36][22];
static double C[15][12];
static double D[15][17][19];

int main(void)
{
    int n = 19, m = 7;
    int i, j, k;
    double sum;
    double s9 = 0.0;
    double E[9][4];
    for (i = 0; i < 27; i++)
        for (j = 0; j < 20; j++)
            for (k = 0; k < 24; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 36; j++)
            for (k = 0; k < 22; k++)
                B[i][j][k] = (i * 7 + j * 3 + k * 5 + 2) % 11 * 0.25;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 12; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 17; j++)
            for (k = 0; k < 19; k++)
                D[i][j][k] = (i * 7 + j * 3 + k * 5 + 4) % 11 * 0.25;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 4; j++)
            E[i][j] = (i * 7 + j * 3 + 5) % 11 * 0.25;
    for (i = 0; i < m + 1; i += 2)
        for (j = 0; j < m; j++) {
            for (k = 1; k < n + 1; k++) {
                if (i + j < 11)
                    A[i][j][k] = A[k + j][k - 1][k];
                A[j][j + i][k + 3] += i * 0.25;
                A[i][0][k - 1] += 0.75 * (B[i + 1][j][k] + B[i + 1][j][k + 1]);
            }
            C[i + j][i + 3] += 0.5 * D[2 * j + 1][i + j][2 * j];
            s9 = s9 + 0.3 * E[i][2];
        }
    for (i = 1; i < 7; i++)
        for (j = 0; j < 16; j++)
            for (k = j; k < n - 1; k++)
                D[i][j][k] = B[j][k + j + 2][j + 3];
    printf("s9 %.17g\n", s9);
    sum = 0.0;
    for (i = 0; i < 27; i++)
        for (j = 0; j < 20; j++)
            for (k = 0; k < 24; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 36; j++)
            for (k = 0; k < 22; k++)
                sum += B[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 12; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 15; i++)
        for (j = 0; j < 17; j++)
            for (k = 0; k < 19; k++)
                sum += D[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("D %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 9; i++)
        for (j = 0; j < 4; j++)
            sum += E[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("E %.17g\n", sum);
    return 0;
}
