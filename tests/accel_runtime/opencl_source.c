/* Where the OpenCL runtime finds its kernels: this program registers a k_const that writes
   42, which PASSMAN_OPENCL_SOURCE and <executable's directory>/kernels.cl override.
   Usage: opencl_source [KERNEL]; prints the four values the kernel wrote. */
#include <stdio.h>

#include "passman_accel.h"

static const char registered[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel void k_const(__global int *out, long n)\n"
    "{\n"
    "    long i = get_global_id(0);\n"
    "    if (i < n)\n"
    "        out[i] = 42;\n"
    "}\n";

int main(int argc, char **argv)
{
    int out[4] = {0, 0, 0, 0};
    size_t n = 4, zero = 0;
    long len = 4;
    void *d = passman_accel_malloc(sizeof out), *k;
    passman_accel_opencl_source(registered);
    k = passman_accel_kernel(argc > 1 ? argv[1] : "k_const");
    passman_accel_arg(k, 0, sizeof d, &d);
    passman_accel_arg(k, 1, sizeof len, &len);
    passman_accel_launch(k, 1, &n);
    passman_accel_copy_from(out, d, sizeof *out, 1, &n, &zero, &n);
    printf("%d %d %d %d\n", out[0], out[1], out[2], out[3]);
    return 0;
}
