/* passman stub <complex.h>: C99 complex arithmetic (glibc prototypes).
   The imaginary unit is written with GCC's __builtin_complex: the same value
   and type as glibc's (__extension__ 1.0iF), which pycparser cannot lex. */
#ifndef _PASSMAN_COMPLEX_H
#define _PASSMAN_COMPLEX_H

#define complex _Complex
#define _Complex_I __builtin_complex(0.0f, 1.0f)
#define I _Complex_I
#define CMPLX(x, y) __builtin_complex((double) (x), (double) (y))
#define CMPLXF(x, y) __builtin_complex((float) (x), (float) (y))
#define CMPLXL(x, y) __builtin_complex((long double) (x), (long double) (y))

#define __PASSMAN_CPLX(name) \
    double _Complex name(double _Complex); \
    float _Complex name##f(float _Complex); \
    long double _Complex name##l(long double _Complex);
#define __PASSMAN_CPLX_REAL(name) \
    double name(double _Complex); \
    float name##f(float _Complex); \
    long double name##l(long double _Complex);

__PASSMAN_CPLX(cacos)
__PASSMAN_CPLX(casin)
__PASSMAN_CPLX(catan)
__PASSMAN_CPLX(ccos)
__PASSMAN_CPLX(csin)
__PASSMAN_CPLX(ctan)
__PASSMAN_CPLX(cacosh)
__PASSMAN_CPLX(casinh)
__PASSMAN_CPLX(catanh)
__PASSMAN_CPLX(ccosh)
__PASSMAN_CPLX(csinh)
__PASSMAN_CPLX(ctanh)
__PASSMAN_CPLX(cexp)
__PASSMAN_CPLX(clog)
__PASSMAN_CPLX(csqrt)
__PASSMAN_CPLX(conj)
__PASSMAN_CPLX(cproj)
__PASSMAN_CPLX_REAL(cabs)
__PASSMAN_CPLX_REAL(carg)
__PASSMAN_CPLX_REAL(cimag)
__PASSMAN_CPLX_REAL(creal)
double _Complex cpow(double _Complex, double _Complex);
float _Complex cpowf(float _Complex, float _Complex);
long double _Complex cpowl(long double _Complex, long double _Complex);

#undef __PASSMAN_CPLX
#undef __PASSMAN_CPLX_REAL

#endif
