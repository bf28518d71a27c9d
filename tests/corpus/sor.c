/* sor: red-black successive over-relaxation on a 2-D grid with a convergence
   while-loop (residual-driven, max-iteration cap), stride-2 inner loops. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define N 80
#define MAXITER 2000

double G[N][N];
double F[N][N];

static void init_grid(int n, double g[n][n], double f[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            g[i][j] = 0.0;
            f[i][j] = (double)((i * j) % 11) / (11.0 * n * n);
        }
    for (i = 0; i < n; i++) {
        g[i][0] = 1.0;
        g[i][n - 1] = 0.0;
    }
}

static double sweep(int n, double g[n][n], double f[n][n], double omega, int color)
{
    int i, j;
    double maxdiff = 0.0;
    for (i = 1; i < n - 1; i++)
        for (j = 1 + (i + color) % 2; j < n - 1; j += 2) {
            double old = g[i][j];
            double nv = 0.25 * (g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1] - f[i][j]);
            g[i][j] = old + omega * (nv - old);
            if (fabs(g[i][j] - old) > maxdiff)
                maxdiff = fabs(g[i][j] - old);
        }
    return maxdiff;
}

static int solve(int n, double g[n][n], double f[n][n], double omega, double tol)
{
    int iter = 0;
    double diff = tol + 1.0;
    while (diff > tol && iter < MAXITER) {
        double d0 = sweep(n, g, f, omega, 0);
        double d1 = sweep(n, g, f, omega, 1);
        diff = d0 > d1 ? d0 : d1;
        iter++;
    }
    return iter;
}

int main(void)
{
    double s = 0.0;
    int iters;
    init_grid(N, G, F);
    iters = solve(N, G, F, 1.8, 1e-6);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += G[i][j];
    printf("%d %.6f\n", iters, s / (N * N));
    return 0;
}
