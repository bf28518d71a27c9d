/* passman_accel.h: the accelerator runtime that generated GPU programs call.

   One header for the three implementations; a program links exactly one:
     passman_accel_omp.c      emulation on the CPU (gcc -fopenmp), for testing
     passman_accel_opencl.c   OpenCL 1.2 (gcc ... -lOpenCL)
     passman_accel_cuda.cu    CUDA (nvcc)
   See README.md in this folder for the compile lines and the launcher shapes.

   Host side: plain C (C99 or later), callable from C and C++.
   Kernel side: the macros PASSMAN_KERNEL, PASSMAN_GLOBAL, PASSMAN_DEVICE and
   PASSMAN_INDEX(d) let one kernel text compile as CUDA (this header, under
   nvcc), as C for the emulation (this header, under gcc) and as OpenCL C
   (passman_accel_cl.h, pasted at the top of the .cl file). */
#ifndef PASSMAN_ACCEL_H
#define PASSMAN_ACCEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- host API, every implementation -------------------------------------------------- */

/* Idempotent; every other call calls it lazily. Registers passman_accel_release with atexit. */
void passman_accel_init(void);
/* Frees every device buffer and the device state. Called at exit; calling it earlier is fine. */
void passman_accel_release(void);

/* A device buffer of `bytes` bytes (an opaque handle: for OpenCL a cl_mem cast to void*,
   for CUDA and the emulation a device address). Exits with a message when out of memory. */
void *passman_accel_malloc(size_t bytes);
void passman_accel_free(void *dev);

/* Copy the box offset[k] .. offset[k]+count[k]-1 (k = 0..rank-1, dimension 0 outermost,
   C row-major) of an array of `rank` (1..4) dimensions of dims[k] elements of `elem` bytes,
   between the host array and a device buffer holding the WHOLE array with the same layout.
   count[k] == 0 for any k: nothing is moved (and nothing is counted). A box outside the
   array is an error (message, exit(1)). */
void passman_accel_copy_to(void *dev, const void *host, size_t elem, int rank,
                           const size_t *dims, const size_t *offset, const size_t *count);
void passman_accel_copy_from(void *host, const void *dev, size_t elem, int rank,
                             const size_t *dims, const size_t *offset, const size_t *count);

/* Whole host arrays kept on the device across launches (kernel_data_mapping): the buffer
   mapped to the host array at `host` (allocated on first use, `bytes` bytes; a larger size
   later grows it, keeping its content); freed by passman_accel_release. The update calls copy
   the first `bytes` bytes of the array to its buffer, or back. */
void *passman_accel_resolve(const void *host, size_t bytes);
/* The device address of `at`, an address inside the host array `host` (as passman_accel_resolve
   maps it): the same byte offset into its buffer (a library launch's pointer argument, such as
   &A[i][0] or A + k). An address outside the array is an error. CUDA and the emulation only
   (an OpenCL buffer is a handle, not an address). */
void *passman_accel_resolve_at(const void *host, size_t bytes, const void *at);
void passman_accel_update_device(const void *host, size_t bytes);
void passman_accel_update_host(void *host, size_t bytes);

/* Seconds, monotonic (for timers). */
double passman_accel_time(void);

/* Launch configuration for `ndims` (1..3) mapped dimensions, dimension 0 the innermost loop
   (the fastest varying): work-group sizes local[k] and global sizes global[k], a multiple of
   local[k] and >= extent[k]. The block follows the device (README.md, "Launch configuration":
   dimension 0 a multiple of the warp, squarish shapes, at least two blocks per compute unit
   for small grids); env PASSMAN_ACCEL_BLOCK ("64", "16x16", "32x4x2", component k for
   dimension k, missing ones 1) overrides it. An extent of 0: global[k] = 0, and there is
   nothing to launch (a CUDA launcher must then skip the launch). */
void passman_accel_config(int ndims, const size_t *extent, size_t *global, size_t *local);
/* The same for the kernel named `kernel` (NULL: none) with the block `block` the recipe chose
   (NULL: none): PASSMAN_ACCEL_BLOCK_<kernel>, then PASSMAN_ACCEL_BLOCK, then `block`, then
   the rule. */
void passman_accel_config_for(const char *kernel, const size_t *block, int ndims,
                              const size_t *extent, size_t *global, size_t *local);

/* Counts one kernel launch that took `seconds` (for PASSMAN_ACCEL_STATS=1). Only CUDA
   launchers call it; passman_accel_launch and passman_accel_emu_launch count themselves. */
void passman_accel_launched(double seconds);

/* ---- OpenCL host API (passman_accel_opencl.c) ----------------------------------------- */

/* The kernel `name` (a cl_kernel cast to void*, cached by name) of the program built once
   from: the file named by env PASSMAN_OPENCL_SOURCE, else <executable's directory>/kernels.cl,
   else the text registered with passman_accel_opencl_source (call it before the first
   passman_accel_kernel; the text is copied). */
void *passman_accel_kernel(const char *name);
void passman_accel_opencl_source(const char *text);
/* clSetKernelArg, checked: for a buffer pass the address of its handle. */
void passman_accel_arg(void *kernel, int index, size_t size, const void *value);
/* Configures (passman_accel_config), enqueues, waits for the end, counts the launch. */
void passman_accel_launch(void *kernel, int ndims, const size_t *extent);
/* The same with the block the recipe chose (NULL: none; see passman_accel_config_for), strip-
   mined when the grid is larger than the device takes. */
void passman_accel_launch_for(void *kernel, const size_t *block, int ndims, const size_t *extent);

/* ---- emulation host API (passman_accel_omp.c) ----------------------------------------- */

/* Runs item(args) once per work-item of the GLOBAL range of passman_accel_config, with
   PASSMAN_INDEX(d) set for each; in parallel (OpenMP), or with env PASSMAN_ACCEL_SHUFFLE=1
   on one thread in a shuffled order of work-groups and of the items inside them (seed: env
   PASSMAN_ACCEL_SEED, default 1). Counts the launch. */
void passman_accel_emu_launch(void (*item)(void *args), void *args, int ndims,
                              const size_t *extent);
/* The same for the kernel named `kernel` with the block the recipe chose (NULL: none). */
void passman_accel_emu_launch_for(const char *kernel, const size_t *block,
                                  void (*item)(void *args), void *args, int ndims,
                                  const size_t *extent);

/* ---- CUDA host API (passman_accel_cuda.cu; the emulation too, on its device) ---------- */

/* passman_accel_config_for with the device's and the kernel `func`'s limits (its threads per
   block), for a CUDA launcher that launches once: a grid larger than maxGridSize is fitted by
   growing the block, or refused. */
void passman_accel_config_cuda(const void *func, const char *kernel, const size_t *block, int ndims,
                               const size_t *extent, size_t *global, size_t *local);
/* The same for a launcher that strip-mines (the CUDA backend's): the block as the rule or the
   overrides give it (not fitted); groups[k] (3 entries) the most blocks of dimension k in one
   launch (maxGridSize, or fewer with env PASSMAN_CUDA_MAX_GRID; 0: any). Returns the number of
   strips, 0 when there is nothing to launch; passman_accel_strip gives each. */
size_t passman_accel_config_cuda_strips(const void *func, const char *kernel, const size_t *block,
                                        int ndims, const size_t *extent, size_t *global,
                                        size_t *local, size_t *groups);

/* Strip `index` (0 to the count - 1) of the global range global[0..ndims-1] in work-groups
   local[k], at most groups[k] of them per dimension in one launch (0: any): its first item
   offset[k] and its items size[k], a multiple of local[k] (dimension 0 varies fastest). Returns
   the number of strips (0 for an empty range); offset and size are set only below it. Every
   implementation has it (pure). */
size_t passman_accel_strip(int ndims, const size_t *global, const size_t *local,
                           const size_t *groups, size_t index, size_t *offset, size_t *size);

#ifdef __cplusplus
}
#endif

/* ---- kernel dialect ------------------------------------------------------------------- */

#if defined(__CUDACC__)

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define PASSMAN_KERNEL extern "C" __global__
#define PASSMAN_GLOBAL
#define PASSMAN_DEVICE __device__
#define PASSMAN_INDEX(d)                                                                  \
    ((d) == 0   ? (long) blockIdx.x * (long) blockDim.x + (long) threadIdx.x              \
     : (d) == 1 ? (long) blockIdx.y * (long) blockDim.y + (long) threadIdx.y              \
                : (long) blockIdx.z * (long) blockDim.z + (long) threadIdx.z)

/* After k<<<grid, block>>>(...): reports a launch or execution error with the launcher's
   file:line and exits; when it returns, the kernel has finished. */
#define PASSMAN_ACCEL_CHECK_LAUNCH()                                                      \
    do {                                                                                  \
        cudaError_t passman_e_ = cudaGetLastError();                                      \
        const char *passman_what_ = "kernel launch";                                      \
        if (passman_e_ == cudaSuccess) {                                                  \
            passman_e_ = cudaDeviceSynchronize();                                         \
            passman_what_ = "kernel execution";                                           \
        }                                                                                 \
        if (passman_e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d: CUDA error %s in %s: %s\n", __FILE__, __LINE__,       \
                    cudaGetErrorName(passman_e_), passman_what_,                          \
                    cudaGetErrorString(passman_e_));                                      \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#else /* the emulation: kernels are C functions, one call per work-item */

#include <math.h>

#if defined(__cplusplus)
#define PASSMAN_THREAD_LOCAL thread_local
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define PASSMAN_THREAD_LOCAL _Thread_local
#else
#define PASSMAN_THREAD_LOCAL __thread
#endif

#ifdef __cplusplus
extern "C" {
#endif
/* The global id of the current work-item per dimension (set by passman_accel_emu_launch). */
extern PASSMAN_THREAD_LOCAL long passman_accel_emu_id[3];
#ifdef __cplusplus
}
#endif

#define PASSMAN_KERNEL
#define PASSMAN_GLOBAL
#define PASSMAN_DEVICE static inline
#define PASSMAN_INDEX(d) (passman_accel_emu_id[(d)])

#endif

#endif /* PASSMAN_ACCEL_H */
