/* The launch configuration on the CUDA device, for comparison with the rule (config_rules.c):
     device w=W m=M cu=C x=X0xX1xX2 g=G0xG1xG2     the device's values (cudaDeviceGetAttribute)
     config e=E global=G local=L                  passman_accel_config for some extents
     bounded e=E global=G local=L                 passman_accel_config_cuda of a kernel with
                                                  __launch_bounds__(128)
     run ok|wrong                                 a 64 x 1000000 grid (more than 65535 blocks
                                                  of 8 in y) and the bounded kernel, launched
                                                  with those configurations, each item once */
#include <stdio.h>

#include "passman_accel.h"

extern "C" void passman_accel_config_cuda(const void *func, const char *kernel,
                                          const size_t *block, int ndims, const size_t *extent,
                                          size_t *global, size_t *local);

PASSMAN_KERNEL void k_count(PASSMAN_GLOBAL unsigned char *flags, long e0, long e1)
{
    long i = PASSMAN_INDEX(0), j = PASSMAN_INDEX(1);
    if (i < e0 && j < e1)
        flags[j * e0 + i] += 1;
}

extern "C" __global__ void __launch_bounds__(128) k_bounded(unsigned char *flags, long n)
{
    long i = (long) blockIdx.x * (long) blockDim.x + (long) threadIdx.x;
    if (i < n)
        flags[i] += 1;
}

static void print_sizes(const char *key, const size_t *v, int n)
{
    printf(" %s=", key);
    for (int k = 0; k < n; k++)
        printf(k ? "x%zu" : "%zu", v[k]);
}

static void show(const char *what, int ndims, const size_t *extent, const size_t *global,
                 const size_t *local)
{
    printf("%s", what);
    print_sizes("e", extent, ndims);
    print_sizes("global", global, ndims);
    print_sizes("local", local, ndims);
    printf("\n");
}

/* True when each of the n flags on the device is 1. */
static bool counted_once(unsigned char *dev, size_t n)
{
    unsigned char *host = new unsigned char[n];
    size_t zero = 0, ones = 0;
    passman_accel_copy_from(host, dev, 1, 1, &n, &zero, &n);
    for (size_t i = 0; i < n; i++)
        ones += host[i] == 1;
    delete[] host;
    return ones == n;
}

int main()
{
    static const size_t extents[][3] = {{1000, 0, 0},   {100000, 0, 0}, {5, 0, 0},
                                        {37, 13, 0},    {200, 200, 0},  {1000, 1000, 0},
                                        {64, 1000000, 0}, {100, 100, 100}, {3, 3, 3}};
    int device = 0, v[9];
    cudaDeviceAttr attrs[9] = {cudaDevAttrWarpSize,       cudaDevAttrMaxThreadsPerBlock,
                               cudaDevAttrMultiProcessorCount, cudaDevAttrMaxBlockDimX,
                               cudaDevAttrMaxBlockDimY,   cudaDevAttrMaxBlockDimZ,
                               cudaDevAttrMaxGridDimX,    cudaDevAttrMaxGridDimY,
                               cudaDevAttrMaxGridDimZ};
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1};
    bool ok = true;
    passman_accel_init();
    cudaGetDevice(&device);
    for (int a = 0; a < 9; a++)
        cudaDeviceGetAttribute(&v[a], attrs[a], device);
    printf("device w=%d m=%d cu=%d x=%dx%dx%d g=%dx%dx%d\n", v[0], v[1], v[2], v[3], v[4], v[5],
           v[6], v[7], v[8]);
    for (size_t c = 0; c < sizeof extents / sizeof *extents; c++) {
        int ndims = extents[c][2] ? 3 : extents[c][1] ? 2 : 1;
        passman_accel_config(ndims, extents[c], global, local);
        show("config", ndims, extents[c], global, local);
    }

    /* 64 x 1000000: dimension 1 needs more than 65535 blocks of the heuristic's 8 */
    size_t extent[2] = {64, 1000000}, n = extent[0] * extent[1];
    unsigned char *flags = (unsigned char *) passman_accel_malloc(n);
    cudaMemset(flags, 0, n);
    passman_accel_config(2, extent, global, local);
    dim3 grid((unsigned) (global[0] / local[0]), (unsigned) (global[1] / local[1]));
    dim3 block((unsigned) local[0], (unsigned) local[1]);
    k_count<<<grid, block>>>(flags, (long) extent[0], (long) extent[1]);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    ok = ok && counted_once(flags, n);

    /* a kernel that takes at most 128 threads a block */
    size_t big[1] = {1000000};
    global[1] = local[1] = 1;
    passman_accel_config_cuda((const void *) k_bounded, "k_bounded", NULL, 1, big, global, local);
    show("bounded", 1, big, global, local);
    cudaMemset(flags, 0, big[0]);
    k_bounded<<<(unsigned) (global[0] / local[0]), (unsigned) local[0]>>>(flags, (long) big[0]);
    PASSMAN_ACCEL_CHECK_LAUNCH();
    ok = ok && counted_once(flags, big[0]);
    passman_accel_free(flags);
    printf("run %s\n", ok ? "ok" : "wrong");
    return 0;
}
