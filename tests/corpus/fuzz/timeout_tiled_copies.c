/* Fuzz case: timeout in api mode, seed 150030, shrunk automatically. */
/* Found by: python -m passman.fuzz --mode api --seed 150030 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_tiled_copies.c */
/* Problem: the steps ran past 30 s */
/* passman-timeout: 30 */
/* passman-steps: [{"name": "unroll_and_jam", "function": "main", "loop": 17, "args": [2], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "scalarization", "function": "main", "loop": null, "args": [], "kwargs": {"break_perfect_nest": true}}, {"name": "dead_code_elimination", "function": "main", "loop": null, "args": [], "kwargs": {}}, {"name": "auto_schedule", "function": "main", "loop": null, "args": [], "kwargs": {"wavefront": false, "tile_sizes": "4,3"}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double C[15];
static double D[11][8];

int main(void)
{
    int n = 11, m = 9;
    int i, j, k, l;
    double sum;
    double A[18][19][15];
    double B[21][19][29];
    double E[17][20][14];
    for (i = 0; i < 18; i++)
        for (j = 0; j < 19; j++)
            for (k = 0; k < 15; k++)
                A[i][j][k] = (i * 7 + j * 3 + k * 5 + 1) % 11 * 0.25;
    for (i = 0; i < 21; i++)
        for (j = 0; j < 19; j++)
            for (k = 0; k < 29; k++)
                B[i][j][k] = (i * 7 + j * 3 + k * 5 + 2) % 11 * 0.25;
    for (i = 0; i < 15; i++)
        C[i] = (i * 7 + 3) % 11 * 0.25;
    for (i = 0; i < 11; i++)
        for (j = 0; j < 8; j++)
            D[i][j] = (i * 7 + j * 3 + 4) % 11 * 0.25;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 20; j++)
            for (k = 0; k < 14; k++)
                E[i][j][k] = (i * 7 + j * 3 + k * 5 + 5) % 11 * 0.25;
    for (i = 1; i < 14; i++) {
        C[i] = 0.5 * (A[i][i][i - 1] + A[i][i][i]);
        if (i < 9)
            C[i - 1] = 0.2 * B[i - 1][i][2 * i + 1] + 0.5 * B[i][i + 3][i + 3];
        for (j = 0; j < i; j++)
            for (k = 1; k < j + 2; k++) {
                A[j][i - 1][j] += 1.0;
                B[j][k][j] += 1.0;
            }
    }
    for (i = 2; i < m + 1; i++)
        for (j = 7; j >= 1; j--)
            for (k = 3; k < m + 1; k++) {
                for (l = 0; l < m - 2; l += 2) {
                    if (l <= m / 2)
                        C[l] = 0.3 * B[2 * k + 1][k][11];
                    D[k][l] = 0.3 * E[15][2 * k][2 * l] + 0.3 * (B[j + 3][k + 1][5] + B[j + 3][k + 1][7]);
                }
                A[i + 3][j - 1][k] = 1.0 + 0.5 * C[k - 2];
            }
    for (i = n - 2; i >= 1; i--)
        for (j = 1; j < 11; j++)
            for (k = 0; k < m; k += 2)
                A[i][j][k + 3] = 0.25 * B[j][k + i][j - 1] + 0.25 * A[2 * k][k + i][k + 3];
    sum = 0.0;
    for (i = 0; i < 18; i++)
        for (j = 0; j < 19; j++)
            for (k = 0; k < 15; k++)
                sum += A[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 21; i++)
        for (j = 0; j < 19; j++)
            for (k = 0; k < 29; k++)
                sum += B[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 15; i++)
        sum += C[i] * ((i * 3) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 11; i++)
        for (j = 0; j < 8; j++)
            sum += D[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("D %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 17; i++)
        for (j = 0; j < 20; j++)
            for (k = 0; k < 14; k++)
                sum += E[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("E %.17g\n", sum);
    return 0;
}
