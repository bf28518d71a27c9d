/* passman stub <tgmath.h>: type-generic math with C11 _Generic.
   Each macro picks the <math.h> or <complex.h> function for the type of its
   arguments, as glibc's header does: an integer argument counts as double;
   with several arguments the real type is the one of their sum, each counted
   so (__passman_tg), and the result is complex if one of them is. passman
   resolves the selection, so its output calls the chosen function; it is
   compiled against the real <tgmath.h>, which leaves those names alone. */
#ifndef _PASSMAN_TGMATH_H
#define _PASSMAN_TGMATH_H

#include <math.h>
#include <complex.h>

/* A zero of the real type an argument stands for (the real type of a
   complex one): the type of a sum of those is the real type of the result. */
#define __passman_tg(x) _Generic((x), float: (float) 0, long double: (long double) 0, \
    float _Complex: (float) 0, long double _Complex: (long double) 0, default: (double) 0)
/* r if neither x nor y is complex, else c. */
#define __passman_tgc(x, y, r, c) _Generic((x), float _Complex: c, double _Complex: c, \
    long double _Complex: c, default: _Generic((y), float _Complex: c, double _Complex: c, \
    long double _Complex: c, default: r))

#define acos(x) _Generic((x), float: acosf, long double: acosl, float _Complex: cacosf, \
    double _Complex: cacos, long double _Complex: cacosl, default: acos)(x)
#define acosh(x) _Generic((x), float: acoshf, long double: acoshl, float _Complex: cacoshf, \
    double _Complex: cacosh, long double _Complex: cacoshl, default: acosh)(x)
#define asin(x) _Generic((x), float: asinf, long double: asinl, float _Complex: casinf, \
    double _Complex: casin, long double _Complex: casinl, default: asin)(x)
#define asinh(x) _Generic((x), float: asinhf, long double: asinhl, float _Complex: casinhf, \
    double _Complex: casinh, long double _Complex: casinhl, default: asinh)(x)
#define atan(x) _Generic((x), float: atanf, long double: atanl, float _Complex: catanf, \
    double _Complex: catan, long double _Complex: catanl, default: atan)(x)
#define atan2(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: atan2f, long double: atan2l, \
    default: atan2)(x, y)
#define atanh(x) _Generic((x), float: atanhf, long double: atanhl, float _Complex: catanhf, \
    double _Complex: catanh, long double _Complex: catanhl, default: atanh)(x)
#define carg(x) _Generic((x), float: cargf, long double: cargl, float _Complex: cargf, \
    long double _Complex: cargl, default: carg)(x)
#define cbrt(x) _Generic((x), float: cbrtf, long double: cbrtl, default: cbrt)(x)
#define ceil(x) _Generic((x), float: ceilf, long double: ceill, default: ceil)(x)
#define cimag(x) _Generic((x), float: cimagf, long double: cimagl, float _Complex: cimagf, \
    long double _Complex: cimagl, default: cimag)(x)
#define conj(x) _Generic((x), float: conjf, long double: conjl, float _Complex: conjf, \
    long double _Complex: conjl, default: conj)(x)
#define copysign(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: copysignf, long double: copysignl, \
    default: copysign)(x, y)
#define cos(x) _Generic((x), float: cosf, long double: cosl, float _Complex: ccosf, \
    double _Complex: ccos, long double _Complex: ccosl, default: cos)(x)
#define cosh(x) _Generic((x), float: coshf, long double: coshl, float _Complex: ccoshf, \
    double _Complex: ccosh, long double _Complex: ccoshl, default: cosh)(x)
#define cproj(x) _Generic((x), float: cprojf, long double: cprojl, float _Complex: cprojf, \
    long double _Complex: cprojl, default: cproj)(x)
#define creal(x) _Generic((x), float: crealf, long double: creall, float _Complex: crealf, \
    long double _Complex: creall, default: creal)(x)
#define erf(x) _Generic((x), float: erff, long double: erfl, default: erf)(x)
#define erfc(x) _Generic((x), float: erfcf, long double: erfcl, default: erfc)(x)
#define exp(x) _Generic((x), float: expf, long double: expl, float _Complex: cexpf, \
    double _Complex: cexp, long double _Complex: cexpl, default: exp)(x)
#define exp2(x) _Generic((x), float: exp2f, long double: exp2l, default: exp2)(x)
#define expm1(x) _Generic((x), float: expm1f, long double: expm1l, default: expm1)(x)
#define fabs(x) _Generic((x), float: fabsf, long double: fabsl, float _Complex: cabsf, \
    double _Complex: cabs, long double _Complex: cabsl, default: fabs)(x)
#define fdim(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: fdimf, long double: fdiml, \
    default: fdim)(x, y)
#define floor(x) _Generic((x), float: floorf, long double: floorl, default: floor)(x)
#define fma(x, y, z) _Generic(__passman_tg(x) + __passman_tg(y) + __passman_tg(z), \
    float: fmaf, long double: fmal, default: fma)(x, y, z)
#define fmax(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: fmaxf, long double: fmaxl, \
    default: fmax)(x, y)
#define fmin(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: fminf, long double: fminl, \
    default: fmin)(x, y)
#define fmod(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: fmodf, long double: fmodl, \
    default: fmod)(x, y)
#define frexp(x, e) _Generic((x), float: frexpf, long double: frexpl, default: frexp)(x, e)
#define hypot(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: hypotf, long double: hypotl, \
    default: hypot)(x, y)
#define ilogb(x) _Generic((x), float: ilogbf, long double: ilogbl, default: ilogb)(x)
#define ldexp(x, e) _Generic((x), float: ldexpf, long double: ldexpl, default: ldexp)(x, e)
#define lgamma(x) _Generic((x), float: lgammaf, long double: lgammal, default: lgamma)(x)
#define llrint(x) _Generic((x), float: llrintf, long double: llrintl, default: llrint)(x)
#define llround(x) _Generic((x), float: llroundf, long double: llroundl, default: llround)(x)
#define log(x) _Generic((x), float: logf, long double: logl, float _Complex: clogf, \
    double _Complex: clog, long double _Complex: clogl, default: log)(x)
#define log10(x) _Generic((x), float: log10f, long double: log10l, default: log10)(x)
#define log1p(x) _Generic((x), float: log1pf, long double: log1pl, default: log1p)(x)
#define log2(x) _Generic((x), float: log2f, long double: log2l, default: log2)(x)
#define logb(x) _Generic((x), float: logbf, long double: logbl, default: logb)(x)
#define lrint(x) _Generic((x), float: lrintf, long double: lrintl, default: lrint)(x)
#define lround(x) _Generic((x), float: lroundf, long double: lroundl, default: lround)(x)
#define nearbyint(x) _Generic((x), float: nearbyintf, long double: nearbyintl, default: nearbyint)(x)
#define nextafter(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: nextafterf, long double: nextafterl, \
    default: nextafter)(x, y)
#define nexttoward(x, y) _Generic((x), float: nexttowardf, long double: nexttowardl, default: nexttoward)(x, y)
#define pow(x, y) _Generic(__passman_tg(x) + __passman_tg(y), \
    float: __passman_tgc(x, y, powf, cpowf), long double: __passman_tgc(x, y, powl, cpowl), \
    default: __passman_tgc(x, y, pow, cpow))(x, y)
#define remainder(x, y) _Generic(__passman_tg(x) + __passman_tg(y), float: remainderf, long double: remainderl, \
    default: remainder)(x, y)
#define remquo(x, y, q) _Generic(__passman_tg(x) + __passman_tg(y), float: remquof, \
    long double: remquol, default: remquo)(x, y, q)
#define rint(x) _Generic((x), float: rintf, long double: rintl, default: rint)(x)
#define round(x) _Generic((x), float: roundf, long double: roundl, default: round)(x)
#define scalbln(x, n) _Generic((x), float: scalblnf, long double: scalblnl, default: scalbln)(x, n)
#define scalbn(x, n) _Generic((x), float: scalbnf, long double: scalbnl, default: scalbn)(x, n)
#define sin(x) _Generic((x), float: sinf, long double: sinl, float _Complex: csinf, \
    double _Complex: csin, long double _Complex: csinl, default: sin)(x)
#define sinh(x) _Generic((x), float: sinhf, long double: sinhl, float _Complex: csinhf, \
    double _Complex: csinh, long double _Complex: csinhl, default: sinh)(x)
#define sqrt(x) _Generic((x), float: sqrtf, long double: sqrtl, float _Complex: csqrtf, \
    double _Complex: csqrt, long double _Complex: csqrtl, default: sqrt)(x)
#define tan(x) _Generic((x), float: tanf, long double: tanl, float _Complex: ctanf, \
    double _Complex: ctan, long double _Complex: ctanl, default: tan)(x)
#define tanh(x) _Generic((x), float: tanhf, long double: tanhl, float _Complex: ctanhf, \
    double _Complex: ctanh, long double _Complex: ctanhl, default: tanh)(x)
#define tgamma(x) _Generic((x), float: tgammaf, long double: tgammal, default: tgamma)(x)
#define trunc(x) _Generic((x), float: truncf, long double: truncl, default: trunc)(x)

#ifdef _GNU_SOURCE
#define exp10(x) _Generic((x), float: exp10f, long double: exp10l, default: exp10)(x)
#endif

#endif
