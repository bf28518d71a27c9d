/* passman stub <math.h>: glibc prototypes, x86-64 constants, and the
   type-generic classification macros expanded to the GCC builtins that
   glibc's own header uses. */
#ifndef _PASSMAN_MATH_H
#define _PASSMAN_MATH_H

typedef float float_t;          /* FLT_EVAL_METHOD == 0 on x86-64 */
typedef double double_t;

/* Special values. */
float __builtin_inff(void);
float __builtin_nanf(const char *);
double __builtin_huge_val(void);
float __builtin_huge_valf(void);
long double __builtin_huge_vall(void);
#define HUGE_VAL (__builtin_huge_val())
#define HUGE_VALF (__builtin_huge_valf())
#define HUGE_VALL (__builtin_huge_vall())
#define INFINITY (__builtin_inff())
#define NAN (__builtin_nanf(""))

/* Classification. */
#define FP_NAN 0
#define FP_INFINITE 1
#define FP_ZERO 2
#define FP_SUBNORMAL 3
#define FP_NORMAL 4
#define FP_ILOGB0 (-2147483647 - 1)
#define FP_ILOGBNAN (-2147483647 - 1)
#define MATH_ERRNO 1
#define MATH_ERREXCEPT 2
#define math_errhandling (MATH_ERRNO | MATH_ERREXCEPT)

/* Type-generic macros (the builtins take any floating type). */
int __builtin_fpclassify();
int __builtin_isfinite();
int __builtin_isinf_sign();
int __builtin_isnan();
int __builtin_isnormal();
int __builtin_signbit();
int __builtin_isgreater();
int __builtin_isgreaterequal();
int __builtin_isless();
int __builtin_islessequal();
int __builtin_islessgreater();
int __builtin_isunordered();
#define fpclassify(x) __builtin_fpclassify(FP_NAN, FP_INFINITE, FP_NORMAL, FP_SUBNORMAL, FP_ZERO, x)
#define isfinite(x) __builtin_isfinite(x)
#define isinf(x) __builtin_isinf_sign(x)
#define isnan(x) __builtin_isnan(x)
#define isnormal(x) __builtin_isnormal(x)
#define signbit(x) __builtin_signbit(x)
#define isgreater(x, y) __builtin_isgreater(x, y)
#define isgreaterequal(x, y) __builtin_isgreaterequal(x, y)
#define isless(x, y) __builtin_isless(x, y)
#define islessequal(x, y) __builtin_islessequal(x, y)
#define islessgreater(x, y) __builtin_islessgreater(x, y)
#define isunordered(x, y) __builtin_isunordered(x, y)

/* Constants (glibc spells them with 20 digits; the f/l ones are GNU). */
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#ifdef _GNU_SOURCE
#define M_Ef 2.7182818284590452354f
#define M_LOG2Ef 1.4426950408889634074f
#define M_LOG10Ef 0.43429448190325182765f
#define M_LN2f 0.69314718055994530942f
#define M_LN10f 2.30258509299404568402f
#define M_PIf 3.14159265358979323846f
#define M_PI_2f 1.57079632679489661923f
#define M_PI_4f 0.78539816339744830962f
#define M_1_PIf 0.31830988618379067154f
#define M_2_PIf 0.63661977236758134308f
#define M_2_SQRTPIf 1.12837916709551257390f
#define M_SQRT2f 1.41421356237309504880f
#define M_SQRT1_2f 0.70710678118654752440f
#define M_El 2.718281828459045235360287471352662498L
#define M_LOG2El 1.442695040888963407359924681001892137L
#define M_LOG10El 0.434294481903251827651128918916605082L
#define M_LN2l 0.693147180559945309417232121458176568L
#define M_LN10l 2.302585092994045684017991454684364208L
#define M_PIl 3.141592653589793238462643383279502884L
#define M_PI_2l 1.570796326794896619231321691639751442L
#define M_PI_4l 0.785398163397448309615660845819875721L
#define M_1_PIl 0.318309886183790671537767526745028724L
#define M_2_PIl 0.636619772367581343075535053490057448L
#define M_2_SQRTPIl 1.128379167095512573896158903121545172L
#define M_SQRT2l 1.414213562373095048801688724209698079L
#define M_SQRT1_2l 0.707106781186547524400844362104849039L
#endif

/* C99 functions, double */
double acos(double); double asin(double); double atan(double);
double cos(double); double sin(double); double tan(double);
double acosh(double); double asinh(double); double atanh(double);
double cosh(double); double sinh(double); double tanh(double);
double exp(double); double exp2(double); double expm1(double);
double log(double); double log10(double); double log1p(double);
double log2(double); double logb(double); double cbrt(double);
double fabs(double); double sqrt(double); double erf(double);
double erfc(double); double lgamma(double); double tgamma(double);
double ceil(double); double floor(double); double nearbyint(double);
double rint(double); double round(double); double trunc(double);
double atan2(double, double); double hypot(double, double);
double pow(double, double); double fmod(double, double);
double remainder(double, double); double copysign(double, double);
double nextafter(double, double); double fdim(double, double);
double fmax(double, double); double fmin(double, double);
double fma(double, double, double); double frexp(double, int *);
double ldexp(double, int); double modf(double, double *);
double scalbn(double, int); double scalbln(double, long); int ilogb(double);
long lrint(double); long long llrint(double); long lround(double);
long long llround(double); double remquo(double, double, int *);
double nan(const char *); double nexttoward(double, long double);

/* C99 functions, float */
float acosf(float); float asinf(float); float atanf(float);
float cosf(float); float sinf(float); float tanf(float); float acoshf(float);
float asinhf(float); float atanhf(float); float coshf(float);
float sinhf(float); float tanhf(float); float expf(float);
float exp2f(float); float expm1f(float); float logf(float);
float log10f(float); float log1pf(float); float log2f(float);
float logbf(float); float cbrtf(float); float fabsf(float);
float sqrtf(float); float erff(float); float erfcf(float);
float lgammaf(float); float tgammaf(float); float ceilf(float);
float floorf(float); float nearbyintf(float); float rintf(float);
float roundf(float); float truncf(float);
float atan2f(float, float); float hypotf(float, float);
float powf(float, float); float fmodf(float, float);
float remainderf(float, float); float copysignf(float, float);
float nextafterf(float, float); float fdimf(float, float);
float fmaxf(float, float); float fminf(float, float);
float fmaf(float, float, float); float frexpf(float, int *);
float ldexpf(float, int); float modff(float, float *);
float scalbnf(float, int); float scalblnf(float, long); int ilogbf(float);
long lrintf(float); long long llrintf(float); long lroundf(float);
long long llroundf(float); float remquof(float, float, int *);
float nanf(const char *); float nexttowardf(float, long double);

/* C99 functions, long double */
long double acosl(long double); long double asinl(long double);
long double atanl(long double); long double cosl(long double);
long double sinl(long double); long double tanl(long double);
long double acoshl(long double); long double asinhl(long double);
long double atanhl(long double); long double coshl(long double);
long double sinhl(long double); long double tanhl(long double);
long double expl(long double); long double exp2l(long double);
long double expm1l(long double); long double logl(long double);
long double log10l(long double); long double log1pl(long double);
long double log2l(long double); long double logbl(long double);
long double cbrtl(long double); long double fabsl(long double);
long double sqrtl(long double); long double erfl(long double);
long double erfcl(long double); long double lgammal(long double);
long double tgammal(long double); long double ceill(long double);
long double floorl(long double); long double nearbyintl(long double);
long double rintl(long double); long double roundl(long double);
long double truncl(long double);
long double atan2l(long double, long double);
long double hypotl(long double, long double);
long double powl(long double, long double);
long double fmodl(long double, long double);
long double remainderl(long double, long double);
long double copysignl(long double, long double);
long double nextafterl(long double, long double);
long double fdiml(long double, long double);
long double fmaxl(long double, long double);
long double fminl(long double, long double);
long double fmal(long double, long double, long double);
long double frexpl(long double, int *); long double ldexpl(long double, int);
long double modfl(long double, long double *);
long double scalbnl(long double, int);
long double scalblnl(long double, long); int ilogbl(long double);
long lrintl(long double); long long llrintl(long double);
long lroundl(long double); long long llroundl(long double);
long double remquol(long double, long double, int *);
long double nanl(const char *);
long double nexttowardl(long double, long double);

/* XSI Bessel functions and GNU extensions. */
double j0(double); double j1(double); double jn(int, double);
double y0(double); double y1(double); double yn(int, double);
#ifdef _GNU_SOURCE
void sincos(double, double *, double *);
void sincosf(float, float *, float *);
void sincosl(long double, long double *, long double *);
double exp10(double); float exp10f(float); long double exp10l(long double);
#endif

#endif
