/* Generated from fftw/fftw_double.c by passman/stubs/precision.py: edit that file instead. */
/* passman stubs for FFTW 3, single precision (the fftw broker).

   A plan is library-internal state: creating one records the arrays it
   transforms and how many elements one execution reads and writes;
   fftwf_execute(p) then reads the input and writes the output *of that plan*
   (and, for complex-to-real plans, overwrites the input, as FFTW does by
   default). Planning with anything but FFTW_ESTIMATE or FFTW_WISDOM_ONLY
   overwrites both arrays. Stub.model states the same facts declaratively
   ("captures", "executes_plan"), so an analysis can map fftwf_execute(p) to
   exactly the arrays captured by the call that created p.
   These bodies are models for the analyses, never compiled: the program
   links FFTW (cpu, openmp) or the cuFFT wrapper (cuda). */
#include <fftw3.h>

/* Library-internal state: what each plan captured, seen as arrays of reals. */
struct fftwf_plan_s {
    float *in;
    float *out;
    int in_count;
    int out_count;
    int destroys_input;
};

static struct fftwf_plan_s __passman_fftwf_plans[1024];
static int __passman_fftwf_nplans;
/* the planner: wisdom, thread settings, time limit */
static float __passman_fftwf_planner;
/* memory handed out by fftwf_malloc */
static float __passman_fftwf_heap[1];

static fftwf_plan __passman_fftwf_new_plan(float *in, float *out, int in_count, int out_count,
                                         int destroys_input, unsigned flags)
{
    int i;
    fftwf_plan p = &__passman_fftwf_plans[__passman_fftwf_nplans];
    __passman_fftwf_nplans = __passman_fftwf_nplans + 1;
    __passman_fftwf_planner = __passman_fftwf_planner + flags;
    if ((flags & (FFTW_ESTIMATE | FFTW_WISDOM_ONLY)) == 0) {
        for (i = 0; i < in_count; i++)
            in[i] = 0;
        for (i = 0; i < out_count; i++)
            out[i] = 0;
    }
    p->in = in;
    p->out = out;
    p->in_count = in_count;
    p->out_count = out_count;
    p->destroys_input = destroys_input && (flags & FFTW_PRESERVE_INPUT) == 0;
    return p;
}

static int __passman_fftwf_product(int rank, const int *n)
{
    int k, total = 1;
    for (k = 0; k < rank; k++)
        total = total * n[k];
    return total;
}

static void __passman_fftwf_run(const fftwf_plan p, float *in, float *out)
{
    int i;
    float s = 0;
    for (i = 0; i < p->in_count; i++)
        s = s + in[i];
    if (p->destroys_input)
        for (i = 0; i < p->in_count; i++)
            in[i] = s;
    for (i = 0; i < p->out_count; i++)
        out[i] = s;
}

fftwf_plan fftwf_plan_dft_1d(int n, fftwf_complex *in, fftwf_complex *out, int sign, unsigned flags)
{
    return __passman_fftwf_new_plan((float *) in, (float *) out, 2 * n, 2 * n, 0, flags + sign);
}

fftwf_plan fftwf_plan_dft_2d(int n0, int n1, fftwf_complex *in, fftwf_complex *out, int sign,
                           unsigned flags)
{
    return __passman_fftwf_new_plan((float *) in, (float *) out, 2 * n0 * n1, 2 * n0 * n1, 0,
                                   flags + sign);
}

fftwf_plan fftwf_plan_dft_3d(int n0, int n1, int n2, fftwf_complex *in, fftwf_complex *out,
                           int sign, unsigned flags)
{
    return __passman_fftwf_new_plan((float *) in, (float *) out, 2 * n0 * n1 * n2,
                                   2 * n0 * n1 * n2, 0, flags + sign);
}

fftwf_plan fftwf_plan_dft(int rank, const int *n, fftwf_complex *in, fftwf_complex *out, int sign,
                        unsigned flags)
{
    int total = __passman_fftwf_product(rank, n);
    return __passman_fftwf_new_plan((float *) in, (float *) out, 2 * total, 2 * total, 0,
                                   flags + sign);
}

fftwf_plan fftwf_plan_many_dft(int rank, const int *n, int howmany, fftwf_complex *in,
                             const int *inembed, int istride, int idist, fftwf_complex *out,
                             const int *onembed, int ostride, int odist, int sign,
                             unsigned flags)
{
    int total = __passman_fftwf_product(rank, n);
    int in_extent = (howmany - 1) * idist + (total - 1) * istride + 1;
    int out_extent = (howmany - 1) * odist + (total - 1) * ostride + 1;
    if (inembed != 0)
        in_extent = in_extent + inembed[0];
    if (onembed != 0)
        out_extent = out_extent + onembed[0];
    return __passman_fftwf_new_plan((float *) in, (float *) out, 2 * in_extent, 2 * out_extent,
                                   0, flags + sign);
}

fftwf_plan fftwf_plan_dft_r2c_1d(int n, float *in, fftwf_complex *out, unsigned flags)
{
    return __passman_fftwf_new_plan(in, (float *) out, n, 2 * (n / 2 + 1), 0, flags);
}

fftwf_plan fftwf_plan_dft_r2c_2d(int n0, int n1, float *in, fftwf_complex *out, unsigned flags)
{
    return __passman_fftwf_new_plan(in, (float *) out, n0 * n1, 2 * n0 * (n1 / 2 + 1), 0, flags);
}

fftwf_plan fftwf_plan_dft_r2c_3d(int n0, int n1, int n2, float *in, fftwf_complex *out,
                               unsigned flags)
{
    return __passman_fftwf_new_plan(in, (float *) out, n0 * n1 * n2, 2 * n0 * n1 * (n2 / 2 + 1),
                                   0, flags);
}

fftwf_plan fftwf_plan_dft_r2c(int rank, const int *n, float *in, fftwf_complex *out,
                            unsigned flags)
{
    int total = __passman_fftwf_product(rank, n);
    int last = n[rank - 1];
    return __passman_fftwf_new_plan(in, (float *) out, total, 2 * (total / last) * (last / 2 + 1),
                                   0, flags);
}

fftwf_plan fftwf_plan_dft_c2r_1d(int n, fftwf_complex *in, float *out, unsigned flags)
{
    return __passman_fftwf_new_plan((float *) in, out, 2 * (n / 2 + 1), n, 1, flags);
}

fftwf_plan fftwf_plan_dft_c2r_2d(int n0, int n1, fftwf_complex *in, float *out, unsigned flags)
{
    return __passman_fftwf_new_plan((float *) in, out, 2 * n0 * (n1 / 2 + 1), n0 * n1, 1, flags);
}

fftwf_plan fftwf_plan_dft_c2r_3d(int n0, int n1, int n2, fftwf_complex *in, float *out,
                               unsigned flags)
{
    return __passman_fftwf_new_plan((float *) in, out, 2 * n0 * n1 * (n2 / 2 + 1), n0 * n1 * n2,
                                   1, flags);
}

fftwf_plan fftwf_plan_dft_c2r(int rank, const int *n, fftwf_complex *in, float *out,
                            unsigned flags)
{
    int total = __passman_fftwf_product(rank, n);
    int last = n[rank - 1];
    return __passman_fftwf_new_plan((float *) in, out, 2 * (total / last) * (last / 2 + 1), total,
                                   1, flags);
}

void fftwf_execute(const fftwf_plan p)
{
    __passman_fftwf_run(p, p->in, p->out);
}

void fftwf_execute_dft(const fftwf_plan p, fftwf_complex *in, fftwf_complex *out)
{
    __passman_fftwf_run(p, (float *) in, (float *) out);
}

void fftwf_execute_dft_r2c(const fftwf_plan p, float *in, fftwf_complex *out)
{
    __passman_fftwf_run(p, in, (float *) out);
}

void fftwf_execute_dft_c2r(const fftwf_plan p, fftwf_complex *in, float *out)
{
    __passman_fftwf_run(p, (float *) in, out);
}

/* A plan lives in the library's own state (__passman_fftwf_plans): releasing it touches no
   memory of the program's (writing through p would be a write anywhere to the analyses, since
   they cannot see where p points). */
void fftwf_destroy_plan(fftwf_plan p)
{
    (void) p;
    __passman_fftwf_nplans = __passman_fftwf_nplans;
}

void fftwf_cleanup(void)
{
    __passman_fftwf_nplans = 0;
    __passman_fftwf_planner = 0;
}

void fftwf_set_timelimit(double t)
{
    __passman_fftwf_planner = __passman_fftwf_planner + t;
}

int fftwf_init_threads(void)
{
    __passman_fftwf_planner = __passman_fftwf_planner + 1;
    return 1;
}

void fftwf_plan_with_nthreads(int nthreads)
{
    __passman_fftwf_planner = __passman_fftwf_planner + nthreads;
}

void fftwf_cleanup_threads(void)
{
    __passman_fftwf_planner = 0;
}

void *fftwf_malloc(size_t n)
{
    __passman_fftwf_planner = __passman_fftwf_planner + n;
    return (void *) __passman_fftwf_heap;
}

float *fftwf_alloc_real(size_t n)
{
    __passman_fftwf_planner = __passman_fftwf_planner + n;
    return __passman_fftwf_heap;
}

fftwf_complex *fftwf_alloc_complex(size_t n)
{
    __passman_fftwf_planner = __passman_fftwf_planner + n;
    return (fftwf_complex *) __passman_fftwf_heap;
}

void fftwf_free(void *p)
{
    __passman_fftwf_planner = __passman_fftwf_planner + (p != 0);
}
