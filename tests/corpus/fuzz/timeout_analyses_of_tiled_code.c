/* Fuzz case: timeout in api mode, seed 1005639 (the whole case: shrunk, its last two steps alone took 10 s). */
/* Found by: python -m passman.fuzz --mode api --seed 1005639 --cases 1 */
/* Check it: python -m passman.fuzz --check timeout_analyses_of_tiled_code.c */
/* Problem: the steps ran past 30 s (campaign of 2026-11-27 at 163d885: 66 s): after auto_schedule(fusion="max") tiled the kernel, every later step re-analysed its code, each analysis within its own limit, and ompify_code spent 44 s in the region analysis (projections and loop domains of min/max bounds past its time limit) and 13 s in the preconditions (no limit). Now the preconditions have one (preconditions.FUNCTION_SECONDS: past it none is known), projections and loop domains are coarse past the region limit, and a function's pool (deadline.POOL_SECONDS, and now the region analyses draw on it too) bounds what its analyses spend together over a sequence of passes: about 20 s */
/* passman-timeout: 27 (the limit is 30 s) */
/* passman-steps: [{"name": "full_unroll", "function": "kernel", "loop": 2, "args": [], "kwargs": {}}, {"name": "auto_schedule", "function": "kernel", "loop": null, "args": [], "kwargs": {"fusion": "max"}}, {"name": "interchange", "function": "kernel", "loop": 2, "args": [], "kwargs": {"order": [2, 0, 1]}}, {"name": "auto_schedule", "function": "kernel", "loop": null, "args": [], "kwargs": {"tile": false}}, {"name": "ompify_code", "function": "kernel", "loop": null, "args": [], "kwargs": {}}, {"name": "ompify_code", "function": "main", "loop": null, "args": [], "kwargs": {}}] */

#include <stdio.h>

static double A[26][25];
static double B[30][46];

static void kernel(int n, int m, double C[25][37], double D[26][50], double E[25][26][17])
{
    int i, j, k, l, t;
    double t6 = 0.0;
    for (t = 0; t < 8; t++)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < m; j++)
                A[i][j] = 0.2 * (A[i][j] + A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (i = n - 1; i >= 3; i--) {
        for (j = 1; j < 14; j++)
            for (k = 3; k < m; k += 2)
                for (l = 0; l < n - 2; l++) {
                    A[k][l + 1] = 0.3 * B[5][12] + 0.2 * B[3][2 * l] + 0.3 * C[l][l + j] * D[12][k - 2];
                    D[k][l] = 0.75 * E[l + 1][i][k];
                }
        C[i - 1][0] = i * 0.5;
        B[i - 2][i] = 0.5 * t6 + D[i][2 * i];
        t6 = 0.75;
    }
    for (i = 0; i < m; i++)
        for (j = 0; j < 14; j++) {
            B[i][2 * i + 1] += 0.3 * C[0][i];
            A[i][j + 1] = j * 1.5 + 0.3 * B[i + j][j + 1];
        }
}

int main(void)
{
    int n = 25, m = 16;
    int i, j, k;
    double sum;
    double C[25][37];
    double D[26][50];
    double E[25][26][17];
    for (i = 0; i < 26; i++)
        for (j = 0; j < 25; j++)
            A[i][j] = (i * 7 + j * 3 + 1) % 11 * 0.25;
    for (i = 0; i < 30; i++)
        for (j = 0; j < 46; j++)
            B[i][j] = (i * 7 + j * 3 + 2) % 11 * 0.25;
    for (i = 0; i < 25; i++)
        for (j = 0; j < 37; j++)
            C[i][j] = (i * 7 + j * 3 + 3) % 11 * 0.25;
    for (i = 0; i < 26; i++)
        for (j = 0; j < 50; j++)
            D[i][j] = (i * 7 + j * 3 + 4) % 11 * 0.25;
    for (i = 0; i < 25; i++)
        for (j = 0; j < 26; j++)
            for (k = 0; k < 17; k++)
                E[i][j][k] = (i * 7 + j * 3 + k * 5 + 5) % 11 * 0.25;
    kernel(n, m, C, D, E);
    sum = 0.0;
    for (i = 0; i < 26; i++)
        for (j = 0; j < 25; j++)
            sum += A[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("A %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 30; i++)
        for (j = 0; j < 46; j++)
            sum += B[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("B %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 25; i++)
        for (j = 0; j < 37; j++)
            sum += C[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("C %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 26; i++)
        for (j = 0; j < 50; j++)
            sum += D[i][j] * ((i * 3 + j * 7) % 13 + 1);
    printf("D %.17g\n", sum);
    sum = 0.0;
    for (i = 0; i < 25; i++)
        for (j = 0; j < 26; j++)
            for (k = 0; k < 17; k++)
                sum += E[i][j][k] * ((i * 3 + j * 7 + k * 11) % 13 + 1);
    printf("E %.17g\n", sum);
    return 0;
}
