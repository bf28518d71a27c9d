/* heat_2d_edges: 2-D heat equation on the whole grid, no ghost cells: the first
   sweep clamps its neighbours to the edge (insulated walls, MIN/MAX macros), the
   second reads zero outside the grid (cold walls, tests on the indices). Real
   codes guard their edges like this; the tests cost the inner loop its vector code
   unless the interior runs without them (split_boundaries). */
#include <stdio.h>

#define TSTEPS 20
#define N 40
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))

static double A[N][N];
static double B[N][N];

static void init_array(int n, double a[n][n], double b[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            a[i][j] = (double)((i * 37 + j * 11 + 3) % 17);
            b[i][j] = 0.0;
        }
}

static void kernel_heat_2d_edges(int tsteps, int n, double a[n][n], double b[n][n])
{
    int t, i, j;
    for (t = 0; t < tsteps; t++) {
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                b[i][j] = a[i][j] + 0.125 * (a[MAX(i - 1, 0)][j] + a[MIN(i + 1, n - 1)][j]
                                             + a[i][MAX(j - 1, 0)] + a[i][MIN(j + 1, n - 1)] - 4.0 * a[i][j]);
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                a[i][j] = b[i][j] + 0.125 * ((i > 0 ? b[i - 1][j] : 0.0) + (i < n - 1 ? b[i + 1][j] : 0.0)
                                             + (j > 0 ? b[i][j - 1] : 0.0) + (j < n - 1 ? b[i][j + 1] : 0.0)
                                             - 4.0 * b[i][j]);
    }
}

int main(void)
{
    double s = 0.0;
    int i, j;
    init_array(N, A, B);
    kernel_heat_2d_edges(TSTEPS, N, A, B);
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            s += A[i][j] * (1 + (i + 2 * j) % 7);
    printf("%.10e\n", s / (N * N));
    return 0;
}
