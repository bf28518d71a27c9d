/* The FFTW 3 API on cuFFT (the fftw broker's cuda implementation).

   Programs keep calling FFTW: plans remember their host arrays, and each
   execution copies the input to the GPU, runs the cuFFT transform and copies
   the output back. The device entry points (passman_dev_fftw_execute_dft*,
   called by kernel_data_mapping's library launches) run the plan on device
   addresses, with no copy. Like FFTW, transforms are unnormalised, row-major, and
   FFTW_FORWARD/FFTW_BACKWARD equal CUFFT_FORWARD/CUFFT_INVERSE. Compiled
   with nvcc and linked with -lcufft. */
#include <cuda_runtime.h>
#include <cufft.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern "C" {

typedef double fftw_complex[2];
typedef float fftwf_complex[2];

#define PASSMAN_CHECK_CUDA(call)                                                       \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "fftw on cuFFT: %s: %s\n", #call, cudaGetErrorString(e_)); \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)
#define PASSMAN_CHECK_CUFFT(call)                                                      \
    do {                                                                               \
        cufftResult r_ = (call);                                                       \
        if (r_ != CUFFT_SUCCESS) {                                                     \
            fprintf(stderr, "fftw on cuFFT: %s failed (%d)\n", #call, (int) r_);       \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

/* One plan: the cuFFT handle, the host arrays it captured, device buffers. */
struct passman_cufft_plan {
    cufftHandle handle;
    cufftType type;
    int sign;
    void *in, *out;             /* host arrays */
    size_t in_bytes, out_bytes; /* bytes read and written by one execution */
    void *d_in, *d_out;         /* device buffers (d_out == d_in when in place) */
};

typedef struct passman_cufft_plan *fftw_plan;
typedef struct passman_cufft_plan *fftwf_plan;

static struct passman_cufft_plan *passman_new_plan(int rank, const int *n, cufftType type,
                                                   int sign, void *in, void *out)
{
    struct passman_cufft_plan *p = (struct passman_cufft_plan *) calloc(1, sizeof *p);
    int dbl = type == CUFFT_Z2Z || type == CUFFT_D2Z || type == CUFFT_Z2D;
    size_t real_size = dbl ? sizeof(double) : sizeof(float), complex_size = 2 * real_size;
    size_t total = 1, last;
    int k, dims[3];
    if (rank < 1 || rank > 3) {
        fprintf(stderr, "fftw on cuFFT: rank %d transforms are not supported\n", rank);
        exit(1);
    }
    last = (size_t) n[rank - 1];
    for (k = 0; k < rank; k++) {
        total *= (size_t) n[k];
        dims[k] = n[k];
    }
    p->type = type;
    p->sign = sign;
    p->in = in;
    p->out = out;
    if (type == CUFFT_Z2Z || type == CUFFT_C2C) {
        p->in_bytes = p->out_bytes = total * complex_size;
    } else if (type == CUFFT_D2Z || type == CUFFT_R2C) {
        p->in_bytes = total * real_size;
        p->out_bytes = total / last * (last / 2 + 1) * complex_size;
    } else {
        p->in_bytes = total / last * (last / 2 + 1) * complex_size;
        p->out_bytes = total * real_size;
    }
    PASSMAN_CHECK_CUFFT(cufftPlanMany(&p->handle, rank, dims, NULL, 1, 0, NULL, 1, 0, type, 1));
    PASSMAN_CHECK_CUDA(cudaMalloc(&p->d_in, p->in_bytes > p->out_bytes ? p->in_bytes : p->out_bytes));
    p->d_out = in == out ? p->d_in : NULL;
    if (p->d_out == NULL)
        PASSMAN_CHECK_CUDA(cudaMalloc(&p->d_out, p->out_bytes));
    return p;
}

/* Runs the transform of plan p from device memory d_in to device memory d_out. */
static void passman_run(struct passman_cufft_plan *p, void *d_in, void *d_out)
{
    switch (p->type) {
    case CUFFT_Z2Z:
        PASSMAN_CHECK_CUFFT(cufftExecZ2Z(p->handle, (cufftDoubleComplex *) d_in,
                                         (cufftDoubleComplex *) d_out, p->sign));
        break;
    case CUFFT_C2C:
        PASSMAN_CHECK_CUFFT(cufftExecC2C(p->handle, (cufftComplex *) d_in,
                                         (cufftComplex *) d_out, p->sign));
        break;
    case CUFFT_D2Z:
        PASSMAN_CHECK_CUFFT(cufftExecD2Z(p->handle, (cufftDoubleReal *) d_in,
                                         (cufftDoubleComplex *) d_out));
        break;
    case CUFFT_R2C:
        PASSMAN_CHECK_CUFFT(cufftExecR2C(p->handle, (cufftReal *) d_in,
                                         (cufftComplex *) d_out));
        break;
    case CUFFT_Z2D:
        PASSMAN_CHECK_CUFFT(cufftExecZ2D(p->handle, (cufftDoubleComplex *) d_in,
                                         (cufftDoubleReal *) d_out));
        break;
    case CUFFT_C2R:
        PASSMAN_CHECK_CUFFT(cufftExecC2R(p->handle, (cufftComplex *) d_in,
                                         (cufftReal *) d_out));
        break;
    }
}

static void passman_execute(struct passman_cufft_plan *p, void *in, void *out)
{
    PASSMAN_CHECK_CUDA(cudaMemcpy(p->d_in, in, p->in_bytes, cudaMemcpyHostToDevice));
    passman_run(p, p->d_in, p->d_out);
    PASSMAN_CHECK_CUDA(cudaMemcpy(out, p->d_out, p->out_bytes, cudaMemcpyDeviceToHost));
}

/* The device entry points' execution: in and out are device addresses (kernel_data_mapping's
   buffers), nothing moves between host and device. cuFFT may overwrite the input of a
   complex-to-real transform, which a plan made with FFTW_PRESERVE_INPUT keeps: that input is
   read from the plan's scratch buffer (a copy on the device). */
static void passman_execute_on_device(struct passman_cufft_plan *p, void *in, void *out)
{
    if ((p->type == CUFFT_Z2D || p->type == CUFFT_C2R) && in != out) {
        PASSMAN_CHECK_CUDA(cudaMemcpy(p->d_in, in, p->in_bytes, cudaMemcpyDeviceToDevice));
        in = p->d_in;
    }
    passman_run(p, in, out);
    PASSMAN_CHECK_CUDA(cudaDeviceSynchronize());
}

static void passman_destroy(struct passman_cufft_plan *p)
{
    cufftDestroy(p->handle);
    if (p->d_out != p->d_in)
        cudaFree(p->d_out);
    cudaFree(p->d_in);
    free(p);
}

/* The API of one precision: P prefix, R real type, C2C/R2C/C2R cuFFT types. */
#define PASSMAN_FFTW_API(P, R, C2C, R2C, C2R)                                              \
    P##plan P##plan_dft(int rank, const int *n, P##complex *in, P##complex *out, int sign, \
                        unsigned flags)                                                    \
    {                                                                                      \
        return passman_new_plan(rank, n, C2C, sign, in, out);                              \
    }                                                                                      \
    P##plan P##plan_dft_1d(int n, P##complex *in, P##complex *out, int sign,               \
                           unsigned flags)                                                 \
    {                                                                                      \
        return passman_new_plan(1, &n, C2C, sign, in, out);                                \
    }                                                                                      \
    P##plan P##plan_dft_2d(int n0, int n1, P##complex *in, P##complex *out, int sign,      \
                           unsigned flags)                                                 \
    {                                                                                      \
        int n[2] = {n0, n1};                                                               \
        return passman_new_plan(2, n, C2C, sign, in, out);                                 \
    }                                                                                      \
    P##plan P##plan_dft_3d(int n0, int n1, int n2, P##complex *in, P##complex *out,        \
                           int sign, unsigned flags)                                       \
    {                                                                                      \
        int n[3] = {n0, n1, n2};                                                           \
        return passman_new_plan(3, n, C2C, sign, in, out);                                 \
    }                                                                                      \
    P##plan P##plan_dft_r2c(int rank, const int *n, R *in, P##complex *out, unsigned flags) \
    {                                                                                      \
        return passman_new_plan(rank, n, R2C, CUFFT_FORWARD, in, out);                     \
    }                                                                                      \
    P##plan P##plan_dft_r2c_1d(int n, R *in, P##complex *out, unsigned flags)              \
    {                                                                                      \
        return passman_new_plan(1, &n, R2C, CUFFT_FORWARD, in, out);                       \
    }                                                                                      \
    P##plan P##plan_dft_r2c_2d(int n0, int n1, R *in, P##complex *out, unsigned flags)     \
    {                                                                                      \
        int n[2] = {n0, n1};                                                               \
        return passman_new_plan(2, n, R2C, CUFFT_FORWARD, in, out);                        \
    }                                                                                      \
    P##plan P##plan_dft_r2c_3d(int n0, int n1, int n2, R *in, P##complex *out,             \
                               unsigned flags)                                             \
    {                                                                                      \
        int n[3] = {n0, n1, n2};                                                           \
        return passman_new_plan(3, n, R2C, CUFFT_FORWARD, in, out);                        \
    }                                                                                      \
    P##plan P##plan_dft_c2r(int rank, const int *n, P##complex *in, R *out, unsigned flags) \
    {                                                                                      \
        return passman_new_plan(rank, n, C2R, CUFFT_INVERSE, in, out);                     \
    }                                                                                      \
    P##plan P##plan_dft_c2r_1d(int n, P##complex *in, R *out, unsigned flags)              \
    {                                                                                      \
        return passman_new_plan(1, &n, C2R, CUFFT_INVERSE, in, out);                       \
    }                                                                                      \
    P##plan P##plan_dft_c2r_2d(int n0, int n1, P##complex *in, R *out, unsigned flags)     \
    {                                                                                      \
        int n[2] = {n0, n1};                                                               \
        return passman_new_plan(2, n, C2R, CUFFT_INVERSE, in, out);                        \
    }                                                                                      \
    P##plan P##plan_dft_c2r_3d(int n0, int n1, int n2, P##complex *in, R *out,             \
                               unsigned flags)                                             \
    {                                                                                      \
        int n[3] = {n0, n1, n2};                                                           \
        return passman_new_plan(3, n, C2R, CUFFT_INVERSE, in, out);                        \
    }                                                                                      \
    void P##execute(const P##plan p) { passman_execute(p, p->in, p->out); }                \
    void P##execute_dft(const P##plan p, P##complex *in, P##complex *out)                  \
    {                                                                                      \
        passman_execute(p, in, out);                                                       \
    }                                                                                      \
    void P##execute_dft_r2c(const P##plan p, R *in, P##complex *out)                       \
    {                                                                                      \
        passman_execute(p, in, out);                                                       \
    }                                                                                      \
    void P##execute_dft_c2r(const P##plan p, P##complex *in, R *out)                       \
    {                                                                                      \
        passman_execute(p, in, out);                                                       \
    }                                                                                      \
    void passman_dev_##P##execute_dft(const P##plan p, P##complex *in, P##complex *out)    \
    {                                                                                      \
        passman_execute_on_device(p, in, out);                                             \
    }                                                                                      \
    void passman_dev_##P##execute_dft_r2c(const P##plan p, R *in, P##complex *out)         \
    {                                                                                      \
        passman_execute_on_device(p, in, out);                                             \
    }                                                                                      \
    void passman_dev_##P##execute_dft_c2r(const P##plan p, P##complex *in, R *out)         \
    {                                                                                      \
        passman_execute_on_device(p, in, out);                                             \
    }                                                                                      \
    void P##destroy_plan(P##plan p) { passman_destroy(p); }                                \
    void P##cleanup(void) {}                                                               \
    void P##set_timelimit(double t) {}                                                     \
    int P##init_threads(void) { return 1; }                                                \
    void P##plan_with_nthreads(int nthreads) {}                                            \
    void P##cleanup_threads(void) {}                                                       \
    void *P##malloc(size_t n)                                                              \
    {                                                                                      \
        void *p = NULL;                                                                    \
        PASSMAN_CHECK_CUDA(cudaMallocHost(&p, n)); /* pinned: faster transfers */          \
        return p;                                                                          \
    }                                                                                      \
    R *P##alloc_real(size_t n) { return (R *) P##malloc(n * sizeof(R)); }                  \
    P##complex *P##alloc_complex(size_t n)                                                 \
    {                                                                                      \
        return (P##complex *) P##malloc(n * sizeof(P##complex));                           \
    }                                                                                      \
    void P##free(void *p) { cudaFreeHost(p); }

PASSMAN_FFTW_API(fftw_, double, CUFFT_Z2Z, CUFFT_D2Z, CUFFT_Z2D)
PASSMAN_FFTW_API(fftwf_, float, CUFFT_C2C, CUFFT_R2C, CUFFT_C2R)

} /* extern "C" */
