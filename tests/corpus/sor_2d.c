/* sor_2d: lexicographic 5-point SOR for the 2-D Poisson equation (in place, a time loop of
   sweeps), run a fixed number of sweeps, then again to a tolerance checked every few sweeps;
   prints the residual norms (the oracle of reordering transformations such as MLSOR). */
#include <stdio.h>
#include <math.h>

#define N 66
#define SWEEPS 60
#define CHECK 8
#define MAXSWEEPS 10000
#define TOL 1e-6
#define OMEGA 1.5

double U[N][N];
double F[N][N];

static void init_grid(int n, double u[n][n], double f[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            u[i][j] = 0.0;
            f[i][j] = (double)((i * 7 + j * 3) % 13 - 6) / (13.0 * n);
        }
    for (i = 0; i < n; i++) {
        u[i][0] = 1.0;
        u[0][i] = (double)i / n;
    }
}

static void kernel_sor_2d(int sweeps, int n, double omega, double u[n][n], double f[n][n])
{
    int t, i, j;
    for (t = 0; t < sweeps; t++)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                u[i][j] = (1.0 - omega) * u[i][j]
                          + omega * 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - f[i][j]);
}

static double residual(int n, double u[n][n], double f[n][n])
{
    int i, j;
    double s = 0.0;
    for (i = 1; i < n - 1; i++)
        for (j = 1; j < n - 1; j++) {
            double r = f[i][j] - (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - 4.0 * u[i][j]);
            s += r * r;
        }
    return sqrt(s);
}

static int solve_to_tolerance(int n, double u[n][n], double f[n][n], double tol)
{
    int sweeps = 0;
    double r0 = residual(n, u, f);
    double r = r0;
    while (r > tol * r0 && sweeps < MAXSWEEPS) {
        kernel_sor_2d(CHECK, n, OMEGA, u, f);
        sweeps += CHECK;
        r = residual(n, u, f);
    }
    return sweeps;
}

int main(void)
{
    int sweeps;
    init_grid(N, U, F);
    printf("residual %.4e\n", residual(N, U, F));
    kernel_sor_2d(SWEEPS, N, OMEGA, U, F);
    printf("after %d sweeps %.4e\n", SWEEPS, residual(N, U, F));
    init_grid(N, U, F);
    sweeps = solve_to_tolerance(N, U, F, TOL);
    printf("tolerance %.0e reached after %d sweeps %.4e\n", TOL, sweeps, residual(N, U, F));
    return 0;
}
