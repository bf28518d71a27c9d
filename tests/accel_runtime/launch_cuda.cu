/* The test launchers for CUDA, as the CUDA backend generates them. */
#include "passman_accel.h"

#include "kernels.inc"
#include "launchers.h"

/* grid and block for `ndims` extents; false when there is nothing to launch. */
static bool configure(int ndims, const size_t *extent, dim3 *grid, dim3 *block)
{
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    passman_accel_config(ndims, extent, global, local);
    if (global[0] == 0 || global[1] == 0 || global[2] == 0)
        return false;
    *grid = dim3((unsigned) (global[0] / local[0]), (unsigned) (global[1] / local[1]),
                 (unsigned) (global[2] / local[2]));
    *block = dim3((unsigned) local[0], (unsigned) local[1], (unsigned) local[2]);
    return true;
}

extern "C" void run_add1d(void *a, long n)
{
    size_t extent[1] = {(size_t) n};
    dim3 grid, block;
    if (!configure(1, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_add1d<<<grid, block>>>((double *) a, n);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_fill2d(void *a, long rows, long cols)
{
    size_t extent[2] = {(size_t) cols, (size_t) rows};
    dim3 grid, block;
    if (!configure(2, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_fill2d<<<grid, block>>>((double *) a, rows, cols);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_fill3d(void *a, long nz, long ny, long nx)
{
    size_t extent[3] = {(size_t) nx, (size_t) ny, (size_t) nz};
    dim3 grid, block;
    if (!configure(3, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_fill3d<<<grid, block>>>((double *) a, nz, ny, nx);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_mark2d(void *flags, long gwidth, long e0, long e1)
{
    size_t extent[2] = {(size_t) e0, (size_t) e1};
    dim3 grid, block;
    if (!configure(2, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_mark2d<<<grid, block>>>((int *) flags, gwidth);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_twice(void *out, void *in, long n)
{
    size_t extent[1] = {(size_t) n};
    dim3 grid, block;
    if (!configure(1, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_twice<<<grid, block>>>((double *) out, (const double *) in, n);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_plus1(void *out, void *in, long n)
{
    size_t extent[1] = {(size_t) n};
    dim3 grid, block;
    if (!configure(1, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_plus1<<<grid, block>>>((double *) out, (const double *) in, n);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_chain(void *out, long n)
{
    size_t extent[1] = {(size_t) n};
    dim3 grid, block;
    if (!configure(1, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_chain<<<grid, block>>>((int *) out, n);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}

extern "C" void run_poke(void *a, long n)
{
    size_t extent[1] = {1};
    dim3 grid, block;
    if (!configure(1, extent, &grid, &block))
        return;
    double start = passman_accel_time();
    k_poke<<<grid, block>>>((double *) a, n);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    passman_accel_launched(passman_accel_time() - start);
}
