/* fdtd_2d: 2-D finite-difference time-domain kernel: ey, ex, hz field updates per step. */
#include <stdio.h>

#define TMAX 50
#define NX 200
#define NY 240

double ex[NX][NY];
double ey[NX][NY];
double hz[NX][NY];
double fict[TMAX];

static void init_array(int tmax, int nx, int ny)
{
    int i, j;
    for (i = 0; i < tmax; i++)
        fict[i] = (double)i;
    for (i = 0; i < nx; i++)
        for (j = 0; j < ny; j++) {
            ex[i][j] = (double)((i * 13 + j * 7 + 1) % 11) / 11.0;
            ey[i][j] = (double)((i * 5 + j * 17 + 2) % 13) / 13.0;
            hz[i][j] = (double)((i * 19 + j * 3 + 3) % 7) / 7.0;
        }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, double Ex[nx][ny], double Ey[nx][ny],
                           double Hz[nx][ny], double *f)
{
    int t, i, j;
    for (t = 0; t < tmax; t++) {
        for (j = 0; j < ny; j++)
            Ey[0][j] = f[t];
        for (i = 1; i < nx; i++)
            for (j = 0; j < ny; j++)
                Ey[i][j] = Ey[i][j] - 0.5 * (Hz[i][j] - Hz[i - 1][j]);
        for (i = 0; i < nx; i++)
            for (j = 1; j < ny; j++)
                Ex[i][j] = Ex[i][j] - 0.5 * (Hz[i][j] - Hz[i][j - 1]);
        for (i = 0; i < nx - 1; i++)
            for (j = 0; j < ny - 1; j++)
                Hz[i][j] = Hz[i][j] - 0.7 * (Ex[i][j + 1] - Ex[i][j]
                                             + Ey[i + 1][j] - Ey[i][j]);
    }
}

int main(void)
{
    double sx = 0.0, sy = 0.0, sz = 0.0;
    int i, j;
    init_array(TMAX, NX, NY);
    kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict);
    for (i = 0; i < NX; i++)
        for (j = 0; j < NY; j++) {
            sx += ex[i][j] * (1 + (i + j) % 5);
            sy += ey[i][j] * (1 + (i + 2 * j) % 5);
            sz += hz[i][j] * (1 + (2 * i + j) % 5);
        }
    printf("%.10e %.10e %.10e\n", sx / (NX * NY), sy / (NX * NY), sz / (NX * NY));
    return 0;
}
