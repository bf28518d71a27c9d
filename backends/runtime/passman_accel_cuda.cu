/* passman_accel_cuda.cu: passman_accel.h on CUDA (the runtime API, the current device).

   Launchers generated against it call passman_accel_config, launch with <<<grid, block>>>,
   then PASSMAN_ACCEL_CHECK_LAUNCH() (which waits for the kernel) and
   passman_accel_launched(seconds); see README.md. Every CUDA call is checked:
   "file:line: CUDA error cudaError...: message in cudaXxx", exit(1).

   nvcc -O2 -arch=sm_90 -c passman_accel_cuda.cu */
#include "passman_accel.h"

#define PASSMAN_ACCEL_DEVICE_LIMITS 1 /* passman_device_limits below */
#include "passman_accel_common.h"

static void cuda_check(cudaError_t err, const char *file, int line, const char *call)
{
    if (err == cudaSuccess)
        return;
    fprintf(stderr, "%s:%d: CUDA error %s: %s in %s\n", file, line, cudaGetErrorName(err),
            cudaGetErrorString(err), call);
    passman_die();
}

#define PASSMAN_CUDA_CHECK(err, call) cuda_check((err), __FILE__, __LINE__, (call))

static int cuda_ready;

extern "C" void passman_accel_init(void)
{
    if (cuda_ready)
        return;
    PASSMAN_CUDA_CHECK(cudaFree(0), "cudaFree(0), creating the context");
    cuda_ready = 1;
    passman_register_exit();
}

extern "C" void passman_accel_release(void)
{
    size_t i;
    if (!cuda_ready)
        return;
    cuda_ready = 0; /* errors below are ignored: this runs at exit */
    for (i = 0; i < passman_nbuffers; i++)
        cudaFree(passman_buffers[i].dev);
    passman_buffers_clear();
}

extern "C" void *passman_accel_malloc(size_t bytes)
{
    void *p = NULL;
    passman_accel_init();
    PASSMAN_CUDA_CHECK(cudaMalloc(&p, bytes ? bytes : 1), "cudaMalloc");
    passman_buffers_add(p, bytes);
    return p;
}

extern "C" void passman_accel_free(void *dev)
{
    passman_accel_init();
    if (!dev)
        return;
    passman_buffers_remove(passman_buffers_find(dev, "passman_accel_free"));
    PASSMAN_CUDA_CHECK(cudaFree(dev), "cudaFree");
}

struct copy {
    unsigned char *to;
    const unsigned char *from;
    cudaMemcpyKind kind;
};

static void move_rect(void *ctx, const struct passman_rect *r)
{
    struct copy *c = (struct copy *) ctx;
    if (r->height == 1)
        PASSMAN_CUDA_CHECK(cudaMemcpy(c->to + r->base, c->from + r->base, r->width, c->kind),
                           "cudaMemcpy");
    else
        PASSMAN_CUDA_CHECK(cudaMemcpy2D(c->to + r->base, r->pitch, c->from + r->base, r->pitch,
                                        r->width, r->height, c->kind),
                           "cudaMemcpy2D");
}

extern "C" void passman_accel_copy_to(void *dev, const void *host, size_t elem, int rank,
                                      const size_t *dims, const size_t *offset,
                                      const size_t *count)
{
    struct copy c;
    passman_accel_init();
    c.to = (unsigned char *) dev;
    c.from = (const unsigned char *) host;
    c.kind = cudaMemcpyHostToDevice;
    passman_count_copy(1, passman_box_copy("passman_accel_copy_to", dev, elem, rank, dims,
                                           offset, count, move_rect, &c));
}

extern "C" void passman_accel_copy_from(void *host, const void *dev, size_t elem, int rank,
                                        const size_t *dims, const size_t *offset,
                                        const size_t *count)
{
    struct copy c;
    passman_accel_init();
    c.to = (unsigned char *) host;
    c.from = (const unsigned char *) dev;
    c.kind = cudaMemcpyDeviceToHost;
    passman_count_copy(0, passman_box_copy("passman_accel_copy_from", dev, elem, rank, dims,
                                           offset, count, move_rect, &c));
}

/* ---- launch configuration ------------------------------------------------------------- */

static struct passman_device_limits cuda_limits;
static int cuda_limits_ready;

static size_t cuda_attribute(cudaDeviceAttr attr, int device)
{
    int v = 0;
    PASSMAN_CUDA_CHECK(cudaDeviceGetAttribute(&v, attr, device), "cudaDeviceGetAttribute");
    return v > 0 ? (size_t) v : 0;
}

/* The current device's limits (queried once): warpSize, maxThreadsPerBlock, maxThreadsDim,
   multiProcessorCount, maxGridSize. CUDA launchers launch once: the grid must fit. */
static void passman_device_limits(const char *kernel, struct passman_device_limits *lim)
{
    (void) kernel;
    passman_accel_init();
    if (!cuda_limits_ready) {
        int device = 0;
        PASSMAN_CUDA_CHECK(cudaGetDevice(&device), "cudaGetDevice");
        cuda_limits.warp = cuda_attribute(cudaDevAttrWarpSize, device);
        cuda_limits.max_group = cuda_attribute(cudaDevAttrMaxThreadsPerBlock, device);
        cuda_limits.max_item[0] = cuda_attribute(cudaDevAttrMaxBlockDimX, device);
        cuda_limits.max_item[1] = cuda_attribute(cudaDevAttrMaxBlockDimY, device);
        cuda_limits.max_item[2] = cuda_attribute(cudaDevAttrMaxBlockDimZ, device);
        cuda_limits.compute_units = cuda_attribute(cudaDevAttrMultiProcessorCount, device);
        cuda_limits.max_groups[0] = cuda_attribute(cudaDevAttrMaxGridDimX, device);
        cuda_limits.max_groups[1] = cuda_attribute(cudaDevAttrMaxGridDimY, device);
        cuda_limits.max_groups[2] = cuda_attribute(cudaDevAttrMaxGridDimZ, device);
        cuda_limits_ready = 1;
    }
    *lim = cuda_limits;
}

/* The device's limits lowered by the kernel's own (cudaFuncGetAttributes: maxThreadsPerBlock,
   lower than the device's for a kernel short of registers), with the kernel's occupancy for
   each block of W << j items up to PASSMAN_BLOCK_TARGET (cudaOccupancyMaxActiveBlocksPer-
   Multiprocessor, from its registers and shared memory); `func` is the kernel,
   `(const void *) k0` (NULL: the device's limits only). */
static void cuda_kernel_limits(const void *func, const char *kernel, int ndims,
                               struct passman_device_limits *lim)
{
    if (ndims < 1 || ndims > 3)
        passman_fatal("passman_accel_config: %d dimensions (1 to 3 expected)", ndims);
    passman_device_limits(kernel, lim);
    if (func) {
        cudaFuncAttributes attr;
        size_t items;
        int j;
        PASSMAN_CUDA_CHECK(cudaFuncGetAttributes(&attr, func), "cudaFuncGetAttributes");
        if (attr.maxThreadsPerBlock > 0 && (size_t) attr.maxThreadsPerBlock < lim->max_group)
            lim->max_group = (size_t) attr.maxThreadsPerBlock;
        for (j = 0, items = lim->warp ? lim->warp : 1;
             j < PASSMAN_OCCUPANCY_SLOTS && items <= lim->max_group && items <= PASSMAN_BLOCK_TARGET;
             j++, items *= 2) {
            int blocks = 0;
            PASSMAN_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, func,
                                                                             (int) items, 0),
                               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
            lim->resident[j] = blocks > 0 ? (size_t) blocks * items : 0;
        }
    }
}

/* passman_accel_config_for with the kernel's limits; the grid fitted to maxGridSize. */
extern "C" void passman_accel_config_cuda(const void *func, const char *kernel,
                                          const size_t *block, int ndims, const size_t *extent,
                                          size_t *global, size_t *local)
{
    struct passman_device_limits lim;
    cuda_kernel_limits(func, kernel, ndims, &lim);
    passman_config_with(kernel, block, ndims, extent, &lim, global, local);
}

/* The same, strip-mined: the strips of at most maxGridSize blocks (PASSMAN_CUDA_MAX_GRID: fewer)
   that the generated launchers launch one after another (see passman_accel.h). */
extern "C" size_t passman_accel_config_cuda_strips(const void *func, const char *kernel,
                                                   const size_t *block, int ndims,
                                                   const size_t *extent, size_t *global,
                                                   size_t *local, size_t *groups)
{
    struct passman_device_limits lim;
    cuda_kernel_limits(func, kernel, ndims, &lim);
    return passman_config_strips_with(kernel, block, ndims, extent, &lim, global, local, groups);
}
