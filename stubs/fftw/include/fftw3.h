/* passman model of <fftw3.h> (FFTW 3, double and single precision).

   Only what pycparser needs to parse programs that use FFTW: the types
   (fftw_complex is double[2], as in the real header when <complex.h> is not
   included first; plans are opaque pointers), the flag and sign macros with
   the real values, and the prototypes of the modelled API. The output is
   compiled against the real header. */
#ifndef _PASSMAN_FFTW3_H
#define _PASSMAN_FFTW3_H

#ifndef __passman_size_t
#define __passman_size_t
typedef unsigned long size_t;
#endif

#define FFTW_FORWARD (-1)
#define FFTW_BACKWARD (+1)
#define FFTW_NO_TIMELIMIT (-1.0)

#define FFTW_MEASURE (0U)
#define FFTW_DESTROY_INPUT (1U << 0)
#define FFTW_UNALIGNED (1U << 1)
#define FFTW_CONSERVE_MEMORY (1U << 2)
#define FFTW_EXHAUSTIVE (1U << 3)
#define FFTW_PRESERVE_INPUT (1U << 4)
#define FFTW_PATIENT (1U << 5)
#define FFTW_ESTIMATE (1U << 6)
#define FFTW_WISDOM_ONLY (1U << 21)

/* The API of one precision: P is the prefix (fftw_, fftwf_), R the real type. */
#define __PASSMAN_FFTW_API(P, R)                                                        \
typedef R P##complex[2];                                                                \
typedef struct P##plan_s *P##plan;                                                      \
void P##execute(const P##plan p);                                                       \
P##plan P##plan_dft(int rank, const int *n, P##complex *in, P##complex *out, int sign,  \
                    unsigned flags);                                                    \
P##plan P##plan_dft_1d(int n, P##complex *in, P##complex *out, int sign, unsigned flags); \
P##plan P##plan_dft_2d(int n0, int n1, P##complex *in, P##complex *out, int sign,       \
                       unsigned flags);                                                 \
P##plan P##plan_dft_3d(int n0, int n1, int n2, P##complex *in, P##complex *out,         \
                       int sign, unsigned flags);                                       \
P##plan P##plan_many_dft(int rank, const int *n, int howmany, P##complex *in,           \
                         const int *inembed, int istride, int idist, P##complex *out,   \
                         const int *onembed, int ostride, int odist, int sign,          \
                         unsigned flags);                                               \
P##plan P##plan_dft_r2c(int rank, const int *n, R *in, P##complex *out, unsigned flags); \
P##plan P##plan_dft_r2c_1d(int n, R *in, P##complex *out, unsigned flags);              \
P##plan P##plan_dft_r2c_2d(int n0, int n1, R *in, P##complex *out, unsigned flags);     \
P##plan P##plan_dft_r2c_3d(int n0, int n1, int n2, R *in, P##complex *out,              \
                           unsigned flags);                                             \
P##plan P##plan_dft_c2r(int rank, const int *n, P##complex *in, R *out, unsigned flags); \
P##plan P##plan_dft_c2r_1d(int n, P##complex *in, R *out, unsigned flags);              \
P##plan P##plan_dft_c2r_2d(int n0, int n1, P##complex *in, R *out, unsigned flags);     \
P##plan P##plan_dft_c2r_3d(int n0, int n1, int n2, P##complex *in, R *out,              \
                           unsigned flags);                                             \
void P##execute_dft(const P##plan p, P##complex *in, P##complex *out);                  \
void P##execute_dft_r2c(const P##plan p, R *in, P##complex *out);                       \
void P##execute_dft_c2r(const P##plan p, P##complex *in, R *out);                       \
void P##destroy_plan(P##plan p);                                                        \
void P##cleanup(void);                                                                  \
void P##set_timelimit(double t);                                                        \
int P##init_threads(void);                                                              \
void P##plan_with_nthreads(int nthreads);                                               \
void P##cleanup_threads(void);                                                          \
void *P##malloc(size_t n);                                                              \
R *P##alloc_real(size_t n);                                                             \
P##complex *P##alloc_complex(size_t n);                                                 \
void P##free(void *p);

__PASSMAN_FFTW_API(fftw_, double)
__PASSMAN_FFTW_API(fftwf_, float)

#undef __PASSMAN_FFTW_API
#endif
