/* The test launchers for OpenCL, as the OpenCL backend generates them. */
#include "passman_accel.h"

#include "launchers.h"

void run_add1d(void *a, long n)
{
    void *k = passman_accel_kernel("k_add1d");
    size_t extent[1];
    extent[0] = (size_t) n;
    passman_accel_arg(k, 0, sizeof a, &a);
    passman_accel_arg(k, 1, sizeof n, &n);
    passman_accel_launch(k, 1, extent);
}

void run_fill2d(void *a, long rows, long cols)
{
    void *k = passman_accel_kernel("k_fill2d");
    size_t extent[2];
    extent[0] = (size_t) cols;
    extent[1] = (size_t) rows;
    passman_accel_arg(k, 0, sizeof a, &a);
    passman_accel_arg(k, 1, sizeof rows, &rows);
    passman_accel_arg(k, 2, sizeof cols, &cols);
    passman_accel_launch(k, 2, extent);
}

void run_fill3d(void *a, long nz, long ny, long nx)
{
    void *k = passman_accel_kernel("k_fill3d");
    size_t extent[3];
    extent[0] = (size_t) nx;
    extent[1] = (size_t) ny;
    extent[2] = (size_t) nz;
    passman_accel_arg(k, 0, sizeof a, &a);
    passman_accel_arg(k, 1, sizeof nz, &nz);
    passman_accel_arg(k, 2, sizeof ny, &ny);
    passman_accel_arg(k, 3, sizeof nx, &nx);
    passman_accel_launch(k, 3, extent);
}

void run_mark2d(void *flags, long gwidth, long e0, long e1)
{
    void *k = passman_accel_kernel("k_mark2d");
    size_t extent[2];
    extent[0] = (size_t) e0;
    extent[1] = (size_t) e1;
    passman_accel_arg(k, 0, sizeof flags, &flags);
    passman_accel_arg(k, 1, sizeof gwidth, &gwidth);
    passman_accel_launch(k, 2, extent);
}

static void run_io(const char *name, void *out, void *in, long n)
{
    void *k = passman_accel_kernel(name);
    size_t extent[1];
    extent[0] = (size_t) n;
    passman_accel_arg(k, 0, sizeof out, &out);
    passman_accel_arg(k, 1, sizeof in, &in);
    passman_accel_arg(k, 2, sizeof n, &n);
    passman_accel_launch(k, 1, extent);
}

void run_twice(void *out, void *in, long n)
{
    run_io("k_twice", out, in, n);
}

void run_plus1(void *out, void *in, long n)
{
    run_io("k_plus1", out, in, n);
}

void run_chain(void *out, long n)
{
    void *k = passman_accel_kernel("k_chain");
    size_t extent[1];
    extent[0] = (size_t) n;
    passman_accel_arg(k, 0, sizeof out, &out);
    passman_accel_arg(k, 1, sizeof n, &n);
    passman_accel_launch(k, 1, extent);
}

void run_poke(void *a, long n)
{
    void *k = passman_accel_kernel("k_poke");
    size_t extent[1] = {1};
    passman_accel_arg(k, 0, sizeof a, &a);
    passman_accel_arg(k, 1, sizeof n, &n);
    passman_accel_launch(k, 1, extent);
}
