/* passman stubs for <math.h> (the math broker): models of libm.

   Every function here only reads its arguments (pure): the body returns a
   value computed from all of them, so an analysis sees exactly those reads
   and no write. Functions that store through a pointer argument (frexp,
   modf, remquo, sincos) write exactly that object and are not pure; lgamma
   writes the library's sign state (signgam). errno is ignored, as with
   gcc -fno-math-errno. These bodies are models for the analyses, never
   compiled: the program links the real libm.

   Generated once from stubs/include/math.h; edit by hand from now on. */
#include <math.h>

/* Library-internal state: the sign of the last lgamma result (signgam). */
int __passman_signgam;

float __builtin_inff(void)
{
    return 0;
}

float __builtin_nanf(const char *x)
{
    return x[0];
}

double __builtin_huge_val(void)
{
    return 0;
}

float __builtin_huge_valf(void)
{
    return 0;
}

long double __builtin_huge_vall(void)
{
    return 0;
}

int __builtin_fpclassify(int x, int y, int z, int w, int a4, double a5)
{
    return x + y + z + w + a4 + a5;
}

int __builtin_isfinite(double x)
{
    return x;
}

int __builtin_isinf_sign(double x)
{
    return x;
}

int __builtin_isnan(double x)
{
    return x;
}

int __builtin_isnormal(double x)
{
    return x;
}

int __builtin_signbit(double x)
{
    return x;
}

int __builtin_isgreater(double x, double y)
{
    return x + y;
}

int __builtin_isgreaterequal(double x, double y)
{
    return x + y;
}

int __builtin_isless(double x, double y)
{
    return x + y;
}

int __builtin_islessequal(double x, double y)
{
    return x + y;
}

int __builtin_islessgreater(double x, double y)
{
    return x + y;
}

int __builtin_isunordered(double x, double y)
{
    return x + y;
}

double acos(double x)
{
    return x;
}

double asin(double x)
{
    return x;
}

double atan(double x)
{
    return x;
}

double cos(double x)
{
    return x;
}

double sin(double x)
{
    return x;
}

double tan(double x)
{
    return x;
}

double acosh(double x)
{
    return x;
}

double asinh(double x)
{
    return x;
}

double atanh(double x)
{
    return x;
}

double cosh(double x)
{
    return x;
}

double sinh(double x)
{
    return x;
}

double tanh(double x)
{
    return x;
}

double exp(double x)
{
    return x;
}

double exp2(double x)
{
    return x;
}

double expm1(double x)
{
    return x;
}

double log(double x)
{
    return x;
}

double log10(double x)
{
    return x;
}

double log1p(double x)
{
    return x;
}

double log2(double x)
{
    return x;
}

double logb(double x)
{
    return x;
}

double cbrt(double x)
{
    return x;
}

double fabs(double x)
{
    return x;
}

double sqrt(double x)
{
    return x;
}

double erf(double x)
{
    return x;
}

double erfc(double x)
{
    return x;
}

double lgamma(double x)
{
    __passman_signgam = x < 0;
    return x;
}

double tgamma(double x)
{
    return x;
}

double ceil(double x)
{
    return x;
}

double floor(double x)
{
    return x;
}

double nearbyint(double x)
{
    return x;
}

double rint(double x)
{
    return x;
}

double round(double x)
{
    return x;
}

double trunc(double x)
{
    return x;
}

double atan2(double x, double y)
{
    return x + y;
}

double hypot(double x, double y)
{
    return x + y;
}

double pow(double x, double y)
{
    return x + y;
}

double fmod(double x, double y)
{
    return x + y;
}

double remainder(double x, double y)
{
    return x + y;
}

double copysign(double x, double y)
{
    return x + y;
}

double nextafter(double x, double y)
{
    return x + y;
}

double fdim(double x, double y)
{
    return x + y;
}

double fmax(double x, double y)
{
    return x + y;
}

double fmin(double x, double y)
{
    return x + y;
}

double fma(double x, double y, double z)
{
    return x + y + z;
}

double frexp(double x, int *y)
{
    *y = x;
    return x;
}

double ldexp(double x, int y)
{
    return x + y;
}

double modf(double x, double *y)
{
    *y = x;
    return x;
}

double scalbn(double x, int y)
{
    return x + y;
}

double scalbln(double x, long y)
{
    return x + y;
}

int ilogb(double x)
{
    return x;
}

long lrint(double x)
{
    return x;
}

long long llrint(double x)
{
    return x;
}

long lround(double x)
{
    return x;
}

long long llround(double x)
{
    return x;
}

double remquo(double x, double y, int *z)
{
    *z = x;
    return x + y;
}

double nan(const char *x)
{
    return x[0];
}

double nexttoward(double x, long double y)
{
    return x + y;
}

float acosf(float x)
{
    return x;
}

float asinf(float x)
{
    return x;
}

float atanf(float x)
{
    return x;
}

float cosf(float x)
{
    return x;
}

float sinf(float x)
{
    return x;
}

float tanf(float x)
{
    return x;
}

float acoshf(float x)
{
    return x;
}

float asinhf(float x)
{
    return x;
}

float atanhf(float x)
{
    return x;
}

float coshf(float x)
{
    return x;
}

float sinhf(float x)
{
    return x;
}

float tanhf(float x)
{
    return x;
}

float expf(float x)
{
    return x;
}

float exp2f(float x)
{
    return x;
}

float expm1f(float x)
{
    return x;
}

float logf(float x)
{
    return x;
}

float log10f(float x)
{
    return x;
}

float log1pf(float x)
{
    return x;
}

float log2f(float x)
{
    return x;
}

float logbf(float x)
{
    return x;
}

float cbrtf(float x)
{
    return x;
}

float fabsf(float x)
{
    return x;
}

float sqrtf(float x)
{
    return x;
}

float erff(float x)
{
    return x;
}

float erfcf(float x)
{
    return x;
}

float lgammaf(float x)
{
    __passman_signgam = x < 0;
    return x;
}

float tgammaf(float x)
{
    return x;
}

float ceilf(float x)
{
    return x;
}

float floorf(float x)
{
    return x;
}

float nearbyintf(float x)
{
    return x;
}

float rintf(float x)
{
    return x;
}

float roundf(float x)
{
    return x;
}

float truncf(float x)
{
    return x;
}

float atan2f(float x, float y)
{
    return x + y;
}

float hypotf(float x, float y)
{
    return x + y;
}

float powf(float x, float y)
{
    return x + y;
}

float fmodf(float x, float y)
{
    return x + y;
}

float remainderf(float x, float y)
{
    return x + y;
}

float copysignf(float x, float y)
{
    return x + y;
}

float nextafterf(float x, float y)
{
    return x + y;
}

float fdimf(float x, float y)
{
    return x + y;
}

float fmaxf(float x, float y)
{
    return x + y;
}

float fminf(float x, float y)
{
    return x + y;
}

float fmaf(float x, float y, float z)
{
    return x + y + z;
}

float frexpf(float x, int *y)
{
    *y = x;
    return x;
}

float ldexpf(float x, int y)
{
    return x + y;
}

float modff(float x, float *y)
{
    *y = x;
    return x;
}

float scalbnf(float x, int y)
{
    return x + y;
}

float scalblnf(float x, long y)
{
    return x + y;
}

int ilogbf(float x)
{
    return x;
}

long lrintf(float x)
{
    return x;
}

long long llrintf(float x)
{
    return x;
}

long lroundf(float x)
{
    return x;
}

long long llroundf(float x)
{
    return x;
}

float remquof(float x, float y, int *z)
{
    *z = x;
    return x + y;
}

float nanf(const char *x)
{
    return x[0];
}

float nexttowardf(float x, long double y)
{
    return x + y;
}

long double acosl(long double x)
{
    return x;
}

long double asinl(long double x)
{
    return x;
}

long double atanl(long double x)
{
    return x;
}

long double cosl(long double x)
{
    return x;
}

long double sinl(long double x)
{
    return x;
}

long double tanl(long double x)
{
    return x;
}

long double acoshl(long double x)
{
    return x;
}

long double asinhl(long double x)
{
    return x;
}

long double atanhl(long double x)
{
    return x;
}

long double coshl(long double x)
{
    return x;
}

long double sinhl(long double x)
{
    return x;
}

long double tanhl(long double x)
{
    return x;
}

long double expl(long double x)
{
    return x;
}

long double exp2l(long double x)
{
    return x;
}

long double expm1l(long double x)
{
    return x;
}

long double logl(long double x)
{
    return x;
}

long double log10l(long double x)
{
    return x;
}

long double log1pl(long double x)
{
    return x;
}

long double log2l(long double x)
{
    return x;
}

long double logbl(long double x)
{
    return x;
}

long double cbrtl(long double x)
{
    return x;
}

long double fabsl(long double x)
{
    return x;
}

long double sqrtl(long double x)
{
    return x;
}

long double erfl(long double x)
{
    return x;
}

long double erfcl(long double x)
{
    return x;
}

long double lgammal(long double x)
{
    __passman_signgam = x < 0;
    return x;
}

long double tgammal(long double x)
{
    return x;
}

long double ceill(long double x)
{
    return x;
}

long double floorl(long double x)
{
    return x;
}

long double nearbyintl(long double x)
{
    return x;
}

long double rintl(long double x)
{
    return x;
}

long double roundl(long double x)
{
    return x;
}

long double truncl(long double x)
{
    return x;
}

long double atan2l(long double x, long double y)
{
    return x + y;
}

long double hypotl(long double x, long double y)
{
    return x + y;
}

long double powl(long double x, long double y)
{
    return x + y;
}

long double fmodl(long double x, long double y)
{
    return x + y;
}

long double remainderl(long double x, long double y)
{
    return x + y;
}

long double copysignl(long double x, long double y)
{
    return x + y;
}

long double nextafterl(long double x, long double y)
{
    return x + y;
}

long double fdiml(long double x, long double y)
{
    return x + y;
}

long double fmaxl(long double x, long double y)
{
    return x + y;
}

long double fminl(long double x, long double y)
{
    return x + y;
}

long double fmal(long double x, long double y, long double z)
{
    return x + y + z;
}

long double frexpl(long double x, int *y)
{
    *y = x;
    return x;
}

long double ldexpl(long double x, int y)
{
    return x + y;
}

long double modfl(long double x, long double *y)
{
    *y = x;
    return x;
}

long double scalbnl(long double x, int y)
{
    return x + y;
}

long double scalblnl(long double x, long y)
{
    return x + y;
}

int ilogbl(long double x)
{
    return x;
}

long lrintl(long double x)
{
    return x;
}

long long llrintl(long double x)
{
    return x;
}

long lroundl(long double x)
{
    return x;
}

long long llroundl(long double x)
{
    return x;
}

long double remquol(long double x, long double y, int *z)
{
    *z = x;
    return x + y;
}

long double nanl(const char *x)
{
    return x[0];
}

long double nexttowardl(long double x, long double y)
{
    return x + y;
}

double j0(double x)
{
    return x;
}

double j1(double x)
{
    return x;
}

double jn(int x, double y)
{
    return x + y;
}

double y0(double x)
{
    return x;
}

double y1(double x)
{
    return x;
}

double yn(int x, double y)
{
    return x + y;
}

void sincos(double x, double *y, double *z)
{
    *y = x;
    *z = x;
}

void sincosf(float x, float *y, float *z)
{
    *y = x;
    *z = x;
}

void sincosl(long double x, long double *y, long double *z)
{
    *y = x;
    *z = x;
}

double exp10(double x)
{
    return x;
}

float exp10f(float x)
{
    return x;
}

long double exp10l(long double x)
{
    return x;
}
