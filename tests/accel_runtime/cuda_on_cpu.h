/* CUDA launchers on the CPU, for tests without a GPU: the CUDA backend's kernels.cu, compiled
   as C++ (g++ -x c++ -include cuda_on_cpu.h) and linked with the runtime's emulation
   (passman_accel_omp.c, which also gives the CUDA configuration entry points on its device).

   The kernels keep CUDA's index arithmetic: PASSMAN_INDEX(d) is
   blockIdx * blockDim + threadIdx as under nvcc, with blockIdx, blockDim and threadIdx set by
   the stand-in for a launch. The one change to the generated text, made by the test, is the
   launch syntax: `k<<<grid, block>>>(args)` becomes `passman_cpu_launch(k, grid, block)(args)`,
   which runs every thread of every block of the grid, one after another.

   With env PASSMAN_CPU_TRACE=1, each launch prints "cuda-on-cpu: <<<GXxGYxGZ, BXxBYxBZ>>>" on
   stderr (the tests count strips and check their grids). */
#ifndef CUDA_ON_CPU_H
#define CUDA_ON_CPU_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passman_accel.h" /* the emulation's dialect, overridden below */

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

static dim3 blockIdx, blockDim, threadIdx, gridDim;

#undef PASSMAN_KERNEL
#undef PASSMAN_DEVICE
#undef PASSMAN_INDEX
#define PASSMAN_KERNEL extern "C"
#define PASSMAN_DEVICE static inline
#define PASSMAN_INDEX(d)                                                                  \
    ((d) == 0   ? (long) blockIdx.x * (long) blockDim.x + (long) threadIdx.x              \
     : (d) == 1 ? (long) blockIdx.y * (long) blockDim.y + (long) threadIdx.y              \
                : (long) blockIdx.z * (long) blockDim.z + (long) threadIdx.z)
/* A launch runs to its end before the stand-in returns: nothing to wait for or check. */
#define PASSMAN_ACCEL_CHECK_LAUNCH() ((void) 0)

/* `k<<<grid, block>>>` as a callable: calling it with the arguments runs the grid. */
template <typename... P> struct passman_cpu_grid {
    void (*kernel)(P...);
    dim3 grid, block;

    template <typename... A> void operator()(A... args) const
    {
        const char *trace = getenv("PASSMAN_CPU_TRACE");
        if (trace && *trace && strcmp(trace, "0") != 0)
            fprintf(stderr, "cuda-on-cpu: <<<%ux%ux%u, %ux%ux%u>>>\n", grid.x, grid.y, grid.z,
                    block.x, block.y, block.z);
        gridDim = grid;
        blockDim = block;
        for (blockIdx.z = 0; blockIdx.z < grid.z; blockIdx.z++)
            for (blockIdx.y = 0; blockIdx.y < grid.y; blockIdx.y++)
                for (blockIdx.x = 0; blockIdx.x < grid.x; blockIdx.x++)
                    for (threadIdx.z = 0; threadIdx.z < block.z; threadIdx.z++)
                        for (threadIdx.y = 0; threadIdx.y < block.y; threadIdx.y++)
                            for (threadIdx.x = 0; threadIdx.x < block.x; threadIdx.x++)
                                kernel(args...);
    }
};

template <typename... P>
passman_cpu_grid<P...> passman_cpu_launch(void (*kernel)(P...), dim3 grid, dim3 block)
{
    return passman_cpu_grid<P...>{kernel, grid, block};
}

#endif
