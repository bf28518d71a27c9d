/* passman stubs for FFTW 3, double precision (the fftw broker).

   A plan is library-internal state: creating one records the arrays it
   transforms and how many elements one execution reads and writes;
   fftw_execute(p) then reads the input and writes the output *of that plan*
   (and, for complex-to-real plans, overwrites the input, as FFTW does by
   default). Planning with anything but FFTW_ESTIMATE or FFTW_WISDOM_ONLY
   overwrites both arrays. Stub.model states the same facts declaratively
   ("captures", "executes_plan"), so an analysis can map fftw_execute(p) to
   exactly the arrays captured by the call that created p.
   These bodies are models for the analyses, never compiled: the program
   links FFTW (cpu, openmp) or the cuFFT wrapper (cuda). */
#include <fftw3.h>

/* Library-internal state: what each plan captured, seen as arrays of reals. */
struct fftw_plan_s {
    double *in;
    double *out;
    int in_count;
    int out_count;
    int destroys_input;
};

static struct fftw_plan_s __passman_fftw_plans[1024];
static int __passman_fftw_nplans;
/* the planner: wisdom, thread settings, time limit */
static double __passman_fftw_planner;
/* memory handed out by fftw_malloc */
static double __passman_fftw_heap[1];

static fftw_plan __passman_fftw_new_plan(double *in, double *out, int in_count, int out_count,
                                         int destroys_input, unsigned flags)
{
    int i;
    fftw_plan p = &__passman_fftw_plans[__passman_fftw_nplans];
    __passman_fftw_nplans = __passman_fftw_nplans + 1;
    __passman_fftw_planner = __passman_fftw_planner + flags;
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

static int __passman_fftw_product(int rank, const int *n)
{
    int k, total = 1;
    for (k = 0; k < rank; k++)
        total = total * n[k];
    return total;
}

static void __passman_fftw_run(const fftw_plan p, double *in, double *out)
{
    int i;
    double s = 0;
    for (i = 0; i < p->in_count; i++)
        s = s + in[i];
    if (p->destroys_input)
        for (i = 0; i < p->in_count; i++)
            in[i] = s;
    for (i = 0; i < p->out_count; i++)
        out[i] = s;
}

fftw_plan fftw_plan_dft_1d(int n, fftw_complex *in, fftw_complex *out, int sign, unsigned flags)
{
    return __passman_fftw_new_plan((double *) in, (double *) out, 2 * n, 2 * n, 0, flags + sign);
}

fftw_plan fftw_plan_dft_2d(int n0, int n1, fftw_complex *in, fftw_complex *out, int sign,
                           unsigned flags)
{
    return __passman_fftw_new_plan((double *) in, (double *) out, 2 * n0 * n1, 2 * n0 * n1, 0,
                                   flags + sign);
}

fftw_plan fftw_plan_dft_3d(int n0, int n1, int n2, fftw_complex *in, fftw_complex *out,
                           int sign, unsigned flags)
{
    return __passman_fftw_new_plan((double *) in, (double *) out, 2 * n0 * n1 * n2,
                                   2 * n0 * n1 * n2, 0, flags + sign);
}

fftw_plan fftw_plan_dft(int rank, const int *n, fftw_complex *in, fftw_complex *out, int sign,
                        unsigned flags)
{
    int total = __passman_fftw_product(rank, n);
    return __passman_fftw_new_plan((double *) in, (double *) out, 2 * total, 2 * total, 0,
                                   flags + sign);
}

fftw_plan fftw_plan_many_dft(int rank, const int *n, int howmany, fftw_complex *in,
                             const int *inembed, int istride, int idist, fftw_complex *out,
                             const int *onembed, int ostride, int odist, int sign,
                             unsigned flags)
{
    int total = __passman_fftw_product(rank, n);
    int in_extent = (howmany - 1) * idist + (total - 1) * istride + 1;
    int out_extent = (howmany - 1) * odist + (total - 1) * ostride + 1;
    if (inembed != 0)
        in_extent = in_extent + inembed[0];
    if (onembed != 0)
        out_extent = out_extent + onembed[0];
    return __passman_fftw_new_plan((double *) in, (double *) out, 2 * in_extent, 2 * out_extent,
                                   0, flags + sign);
}

fftw_plan fftw_plan_dft_r2c_1d(int n, double *in, fftw_complex *out, unsigned flags)
{
    return __passman_fftw_new_plan(in, (double *) out, n, 2 * (n / 2 + 1), 0, flags);
}

fftw_plan fftw_plan_dft_r2c_2d(int n0, int n1, double *in, fftw_complex *out, unsigned flags)
{
    return __passman_fftw_new_plan(in, (double *) out, n0 * n1, 2 * n0 * (n1 / 2 + 1), 0, flags);
}

fftw_plan fftw_plan_dft_r2c_3d(int n0, int n1, int n2, double *in, fftw_complex *out,
                               unsigned flags)
{
    return __passman_fftw_new_plan(in, (double *) out, n0 * n1 * n2, 2 * n0 * n1 * (n2 / 2 + 1),
                                   0, flags);
}

fftw_plan fftw_plan_dft_r2c(int rank, const int *n, double *in, fftw_complex *out,
                            unsigned flags)
{
    int total = __passman_fftw_product(rank, n);
    int last = n[rank - 1];
    return __passman_fftw_new_plan(in, (double *) out, total, 2 * (total / last) * (last / 2 + 1),
                                   0, flags);
}

fftw_plan fftw_plan_dft_c2r_1d(int n, fftw_complex *in, double *out, unsigned flags)
{
    return __passman_fftw_new_plan((double *) in, out, 2 * (n / 2 + 1), n, 1, flags);
}

fftw_plan fftw_plan_dft_c2r_2d(int n0, int n1, fftw_complex *in, double *out, unsigned flags)
{
    return __passman_fftw_new_plan((double *) in, out, 2 * n0 * (n1 / 2 + 1), n0 * n1, 1, flags);
}

fftw_plan fftw_plan_dft_c2r_3d(int n0, int n1, int n2, fftw_complex *in, double *out,
                               unsigned flags)
{
    return __passman_fftw_new_plan((double *) in, out, 2 * n0 * n1 * (n2 / 2 + 1), n0 * n1 * n2,
                                   1, flags);
}

fftw_plan fftw_plan_dft_c2r(int rank, const int *n, fftw_complex *in, double *out,
                            unsigned flags)
{
    int total = __passman_fftw_product(rank, n);
    int last = n[rank - 1];
    return __passman_fftw_new_plan((double *) in, out, 2 * (total / last) * (last / 2 + 1), total,
                                   1, flags);
}

void fftw_execute(const fftw_plan p)
{
    __passman_fftw_run(p, p->in, p->out);
}

void fftw_execute_dft(const fftw_plan p, fftw_complex *in, fftw_complex *out)
{
    __passman_fftw_run(p, (double *) in, (double *) out);
}

void fftw_execute_dft_r2c(const fftw_plan p, double *in, fftw_complex *out)
{
    __passman_fftw_run(p, in, (double *) out);
}

void fftw_execute_dft_c2r(const fftw_plan p, fftw_complex *in, double *out)
{
    __passman_fftw_run(p, (double *) in, out);
}

/* A plan lives in the library's own state (__passman_fftw_plans): releasing it touches no
   memory of the program's (writing through p would be a write anywhere to the analyses, since
   they cannot see where p points). */
void fftw_destroy_plan(fftw_plan p)
{
    (void) p;
    __passman_fftw_nplans = __passman_fftw_nplans;
}

void fftw_cleanup(void)
{
    __passman_fftw_nplans = 0;
    __passman_fftw_planner = 0;
}

void fftw_set_timelimit(double t)
{
    __passman_fftw_planner = __passman_fftw_planner + t;
}

int fftw_init_threads(void)
{
    __passman_fftw_planner = __passman_fftw_planner + 1;
    return 1;
}

void fftw_plan_with_nthreads(int nthreads)
{
    __passman_fftw_planner = __passman_fftw_planner + nthreads;
}

void fftw_cleanup_threads(void)
{
    __passman_fftw_planner = 0;
}

void *fftw_malloc(size_t n)
{
    __passman_fftw_planner = __passman_fftw_planner + n;
    return (void *) __passman_fftw_heap;
}

double *fftw_alloc_real(size_t n)
{
    __passman_fftw_planner = __passman_fftw_planner + n;
    return __passman_fftw_heap;
}

fftw_complex *fftw_alloc_complex(size_t n)
{
    __passman_fftw_planner = __passman_fftw_planner + n;
    return (fftw_complex *) __passman_fftw_heap;
}

void fftw_free(void *p)
{
    __passman_fftw_planner = __passman_fftw_planner + (p != 0);
}
