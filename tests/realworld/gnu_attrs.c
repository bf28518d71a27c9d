/* Code written with GNU C habits: attributes (aligned, packed, unused,
   noinline, always_inline, format, noreturn, pure, const), __restrict,
   __inline__, __extension__, __builtin_expect and bit built-ins. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define N 256

struct __attribute__((packed)) wire_header {
    uint8_t tag;
    uint32_t length;
    uint16_t flags;
};

typedef struct {
    char c;
    double d;
} __attribute__((aligned(32))) cache_line_t;

struct sample {
    int id;
    float value __attribute__((aligned(16)));
};

static double buffer_a[N] __attribute__((aligned(64)));
static double buffer_b[N] __attribute__((aligned(64)));
__attribute__((aligned(32))) static float weights[16];

static void die(const char *msg) __attribute__((noreturn));
static int report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void die(const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    exit(1);
}

static int report(const char *fmt, ...)
{
    __builtin_va_list ap;
    __builtin_va_start(ap, fmt);
    int n = vprintf(fmt, ap);
    __builtin_va_end(ap);
    return n;
}

static __inline__ __attribute__((always_inline)) double square(double x)
{
    return x * x;
}

__attribute__((noinline)) static void axpy(int n, double a, const double *__restrict x,
                                           double *__restrict y)
{
    for (int i = 0; i < n; i++)
        y[i] += a * x[i];
}

__attribute__((pure)) static double norm2(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += square(v[i]);
    return s;
}

__attribute__((const)) static int popcount_sum(unsigned x)
{
    return __builtin_popcount(x) + __builtin_ctz(x | 0x100u) + (__builtin_clz(x | 1u) & 7);
}

int main(void)
{
    int unused_counter __attribute__((unused)) = 0;
    __extension__ long long big = 1LL << 40;
    for (int i = 0; i < N; i++) {
        buffer_a[i] = (i % 13) * 0.5;
        buffer_b[i] = (i % 7) - 3.0;
    }
    for (int i = 0; i < 16; i++)
        weights[i] = 1.0f / (i + 1);
    axpy(N, 0.25, buffer_a, buffer_b);
    double n2 = norm2(buffer_b, N);
    if (unlikely(n2 < 0))
        die("negative norm");
    report("norm2 %.4f big %lld\n", n2, big);
    int bits = 0;
    for (unsigned x = 1; x < 1000; x += 37)
        bits += popcount_sum(x);
    report("bits %d\n", bits);
    report("sizeof wire_header %zu cache_line %zu align %zu sample %zu\n", sizeof(struct wire_header),
           sizeof(cache_line_t), _Alignof(cache_line_t), sizeof(struct sample));
    report("aligned %d %d %d\n", (int)((uintptr_t)buffer_a % 64), (int)((uintptr_t)buffer_b % 64),
           (int)((uintptr_t)weights % 32));
    unsigned char wire[7] = {9, 1, 2, 0, 0, 0x34, 0x12};
    struct wire_header h;
    memcpy(&h, wire, sizeof h);
    report("tag %u length %u flags %x\n", h.tag, h.length, h.flags);
    float ws = 0;
    for (int i = 0; i < 16; i++)
        ws += weights[i];
    if (likely(ws > 0))
        report("weights %.5f\n", ws);
    return 0;
}
