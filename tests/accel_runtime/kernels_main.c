/* Runs the test kernels through launchers.h on any implementation of passman_accel.h.
   Usage: kernels_main MODE; prints what the test checks, exits 1 on a wrong result. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launchers.h"
#include "passman_accel.h"

static int failures;

#define EXPECT(cond, ...)                      \
    do {                                       \
        if (!(cond)) {                         \
            printf("wrong: " __VA_ARGS__);     \
            printf("\n");                      \
            failures++;                        \
        }                                      \
    } while (0)

static void copy1(void *dev, const void *host, size_t elem, size_t n)
{
    size_t zero = 0;
    passman_accel_copy_to(dev, host, elem, 1, &n, &zero, &n);
}

static void back1(void *host, const void *dev, size_t elem, size_t n)
{
    size_t zero = 0;
    passman_accel_copy_from(host, dev, elem, 1, &n, &zero, &n);
}

/* 1-D, 2-D and 3-D kernels over extents that are not multiples of the work-group sizes. */
static void grid(void)
{
    enum { N = 1000, ROWS = 13, COLS = 37, NZ = 3, NY = 5, NX = 33 };
    static double a[N], b[ROWS * COLS], c[NZ * NY * NX];
    void *da = passman_accel_malloc(sizeof a), *db = passman_accel_malloc(sizeof b);
    void *dc = passman_accel_malloc(sizeof c);
    long i, j, k;
    for (i = 0; i < N; i++)
        a[i] = 0.5 * (double) i;
    copy1(da, a, sizeof *a, N);
    run_add1d(da, N);
    back1(a, da, sizeof *a, N);
    for (i = 0; i < N; i++)
        EXPECT(a[i] == 1.5 * (double) i, "add1d a[%ld] = %g", i, a[i]);
    run_fill2d(db, ROWS, COLS);
    back1(b, db, sizeof *b, ROWS * COLS);
    for (i = 0; i < ROWS; i++)
        for (j = 0; j < COLS; j++)
            EXPECT(b[i * COLS + j] == (double) (i * 100 + j), "fill2d b[%ld][%ld] = %g", i, j,
                   b[i * COLS + j]);
    run_fill3d(dc, NZ, NY, NX);
    back1(c, dc, sizeof *c, NZ * NY * NX);
    for (i = 0; i < NZ; i++)
        for (j = 0; j < NY; j++)
            for (k = 0; k < NX; k++)
                EXPECT(c[(i * NY + j) * NX + k] == (double) (i * 10000 + j * 100 + k),
                       "fill3d c[%ld][%ld][%ld] = %g", i, j, k, c[(i * NY + j) * NX + k]);
    passman_accel_free(da);
    passman_accel_free(db);
    passman_accel_free(dc);
    printf("grid %s\n", failures ? "wrong" : "ok");
}

/* Every work-item of the global range runs exactly once. */
static void mark(void)
{
    size_t extent[2] = {37, 13}, global[2], local[2], n, i, ones = 0;
    int *flags;
    void *d;
    passman_accel_config(2, extent, global, local);
    n = global[0] * global[1];
    flags = (int *) calloc(n, sizeof *flags);
    d = passman_accel_malloc(n * sizeof *flags);
    copy1(d, flags, sizeof *flags, n);
    run_mark2d(d, (long) global[0], (long) extent[0], (long) extent[1]);
    back1(flags, d, sizeof *flags, n);
    for (i = 0; i < n; i++)
        ones += flags[i] == 1;
    printf("mark global=%zux%zu local=%zux%zu items=%zu ones=%zu\n", global[0], global[1],
           local[0], local[1], n, ones);
    passman_accel_free(d);
    free(flags);
}

/* Known copies and launches for the statistics line. */
static void stats(void)
{
    static double a[1000];
    static int m[6 * 8];
    size_t dims[2] = {6, 8}, off[2] = {1, 2}, cnt[2] = {3, 4}, none[2] = {3, 0};
    size_t n = 1000, off1 = 5, cnt1 = 10;
    void *da = passman_accel_malloc(sizeof a), *dm = passman_accel_malloc(sizeof m);
    copy1(da, a, sizeof *a, 1000);                                  /* 8000 bytes */
    passman_accel_copy_to(dm, m, sizeof *m, 2, dims, off, cnt);     /* 48 bytes */
    passman_accel_copy_to(dm, m, sizeof *m, 2, dims, off, none);    /* nothing */
    passman_accel_copy_from(m, dm, sizeof *m, 2, dims, off, none);  /* nothing */
    run_add1d(da, 1000);
    run_add1d(da, 1000);
    passman_accel_copy_from(a, da, sizeof *a, 1, &n, &off1, &cnt1); /* 80 bytes */
    passman_accel_free(da);
    passman_accel_free(dm);
    printf("stats done\n");
}

/* Empty copies and launches move and run nothing. */
static void zero(void)
{
    double h[4] = {1, 2, 3, 4};
    size_t n = 4, off = 0, cnt = 0, dims[2] = {2, 2}, offs[2] = {0, 0}, cnts[2] = {2, 0};
    void *d = passman_accel_malloc(sizeof h);
    passman_accel_copy_from(h, d, sizeof *h, 1, &n, &off, &cnt);
    passman_accel_copy_from(h, d, sizeof *h, 2, dims, offs, cnts);
    run_add1d(d, 0);
    EXPECT(h[0] == 1 && h[1] == 2 && h[2] == 3 && h[3] == 4, "an empty copy changed the host");
    passman_accel_free(d);
    printf("zero %s\n", failures ? "wrong" : "ok");
}

/* A race-free kernel: the same result in any order. */
static void racefree(void)
{
    enum { N = 1000 };
    static double in[N], out[N];
    double sum = 0;
    void *din = passman_accel_malloc(sizeof in), *dout = passman_accel_malloc(sizeof out);
    long i;
    for (i = 0; i < N; i++)
        in[i] = (double) (i % 17);
    copy1(din, in, sizeof *in, N);
    run_twice(dout, din, N);
    back1(out, dout, sizeof *out, N);
    for (i = 0; i < N; i++) {
        EXPECT(out[i] == 2.0 * (double) (i % 17) + (double) i, "twice out[%ld] = %g", i, out[i]);
        sum += out[i];
    }
    printf("racefree %.1f\n", sum);
}

/* A racy kernel: its result depends on the order of the work-items. */
static void racy_chain(long n)
{
    static int out[1000];
    long sum = 0, i;
    void *d = passman_accel_malloc((size_t) n * sizeof *out);
    copy1(d, out, sizeof *out, (size_t) n);
    run_chain(d, n);
    back1(out, d, sizeof *out, (size_t) n);
    for (i = 0; i < n; i++)
        sum = sum * 31 % 1000000007 + out[i];
    printf("racy %ld last=%d\n", sum, out[n - 1]);
}

static void racy(void) /* 4 work-groups */
{
    racy_chain(1000);
}

static void racy1(void) /* 1 work-group: only the order inside it can change the result */
{
    racy_chain(200);
}

/* Reads a device buffer nothing was copied to. */
static void garbage(void)
{
    enum { N = 100 };
    static double out[N];
    int finite = 0, i;
    void *din = passman_accel_malloc(N * sizeof(double)), *dout = passman_accel_malloc(sizeof out);
    run_plus1(dout, din, N);
    back1(out, dout, sizeof *out, N);
    for (i = 0; i < N; i++)
        finite += isfinite(out[i]) != 0;
    printf("garbage finite=%d\n", finite);
}

/* A kernel writes one element past the end of a buffer. */
static void poke(void)
{
    enum { N = 10 };
    static double a[N];
    void *d = passman_accel_malloc(sizeof a);
    copy1(d, a, sizeof *a, N);
    printf("poke\n");
    fflush(stdout);
    run_poke(d, N);
    passman_accel_free(d);
    printf("poked\n");
}

/* Whole host arrays mapped to buffers: the same buffer for the same array, kept across
   launches; a larger size grows the buffer and keeps its content. */
static void mapped(void)
{
    enum { N = 64 };
    static double a[N], out[2 * N];
    void *d, *e;
    int i, bad = 0;
    for (i = 0; i < N; i++)
        a[i] = i;
    passman_accel_update_device(a, sizeof a);
    d = passman_accel_resolve(a, sizeof a);
    bad += d != passman_accel_resolve(a, sizeof a / 2); /* a smaller view: the same buffer */
    run_plus1(passman_accel_resolve(out, sizeof out), d, N); /* out[i] = a[i] + 1 on the device */
    e = passman_accel_resolve(a, 2 * sizeof a);        /* grows: the first N values stay */
    run_plus1(passman_accel_resolve(out, sizeof out), e, N);
    passman_accel_update_host(out, sizeof out / 2);
    for (i = 0; i < N; i++)
        bad += out[i] != i + 1;
    printf("mapped bad=%d\n", bad);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*run)(void);
    } modes[] = {{"grid", grid},       {"mark", mark},   {"stats", stats},     {"zero", zero},
                 {"racefree", racefree}, {"racy", racy}, {"racy1", racy1},
                 {"garbage", garbage}, {"poke", poke}, {"mapped", mapped}};
    size_t i;
    for (i = 0; argc == 2 && i < sizeof modes / sizeof *modes; i++)
        if (strcmp(argv[1], modes[i].name) == 0) {
            modes[i].run();
            return failures != 0;
        }
    fprintf(stderr, "usage: %s grid|mark|stats|zero|racefree|racy|racy1|garbage|poke|mapped\n", argv[0]);
    return 2;
}
