/* The test launchers for the emulation: per kernel, an argument struct and a trampoline
   that unpacks it, as the emulation backend generates them. */
#include "passman_accel.h"

#include "kernels.inc"
#include "launchers.h"

struct add1d_args {
    double *a;
    long n;
};
static void add1d_item(void *p)
{
    struct add1d_args *a = (struct add1d_args *) p;
    k_add1d(a->a, a->n);
}
void run_add1d(void *a, long n)
{
    struct add1d_args args;
    size_t extent[1];
    args.a = (double *) a;
    args.n = n;
    extent[0] = (size_t) n;
    passman_accel_emu_launch(add1d_item, &args, 1, extent);
}

struct fill2d_args {
    double *a;
    long rows, cols;
};
static void fill2d_item(void *p)
{
    struct fill2d_args *a = (struct fill2d_args *) p;
    k_fill2d(a->a, a->rows, a->cols);
}
void run_fill2d(void *a, long rows, long cols)
{
    struct fill2d_args args;
    size_t extent[2];
    args.a = (double *) a;
    args.rows = rows;
    args.cols = cols;
    extent[0] = (size_t) cols;
    extent[1] = (size_t) rows;
    passman_accel_emu_launch(fill2d_item, &args, 2, extent);
}

struct fill3d_args {
    double *a;
    long nz, ny, nx;
};
static void fill3d_item(void *p)
{
    struct fill3d_args *a = (struct fill3d_args *) p;
    k_fill3d(a->a, a->nz, a->ny, a->nx);
}
void run_fill3d(void *a, long nz, long ny, long nx)
{
    struct fill3d_args args;
    size_t extent[3];
    args.a = (double *) a;
    args.nz = nz;
    args.ny = ny;
    args.nx = nx;
    extent[0] = (size_t) nx;
    extent[1] = (size_t) ny;
    extent[2] = (size_t) nz;
    passman_accel_emu_launch(fill3d_item, &args, 3, extent);
}

struct mark2d_args {
    int *flags;
    long gwidth;
};
static void mark2d_item(void *p)
{
    struct mark2d_args *a = (struct mark2d_args *) p;
    k_mark2d(a->flags, a->gwidth);
}
void run_mark2d(void *flags, long gwidth, long e0, long e1)
{
    struct mark2d_args args;
    size_t extent[2];
    args.flags = (int *) flags;
    args.gwidth = gwidth;
    extent[0] = (size_t) e0;
    extent[1] = (size_t) e1;
    passman_accel_emu_launch(mark2d_item, &args, 2, extent);
}

struct io_args {
    double *out, *in;
    long n;
};
static void twice_item(void *p)
{
    struct io_args *a = (struct io_args *) p;
    k_twice(a->out, a->in, a->n);
}
static void plus1_item(void *p)
{
    struct io_args *a = (struct io_args *) p;
    k_plus1(a->out, a->in, a->n);
}
static void run_io(void (*item)(void *), void *out, void *in, long n)
{
    struct io_args args;
    size_t extent[1];
    args.out = (double *) out;
    args.in = (double *) in;
    args.n = n;
    extent[0] = (size_t) n;
    passman_accel_emu_launch(item, &args, 1, extent);
}
void run_twice(void *out, void *in, long n)
{
    run_io(twice_item, out, in, n);
}
void run_plus1(void *out, void *in, long n)
{
    run_io(plus1_item, out, in, n);
}

struct chain_args {
    int *out;
    long n;
};
static void chain_item(void *p)
{
    struct chain_args *a = (struct chain_args *) p;
    k_chain(a->out, a->n);
}
void run_chain(void *out, long n)
{
    struct chain_args args;
    size_t extent[1];
    args.out = (int *) out;
    args.n = n;
    extent[0] = (size_t) n;
    passman_accel_emu_launch(chain_item, &args, 1, extent);
}

static void poke_item(void *p)
{
    struct add1d_args *a = (struct add1d_args *) p;
    k_poke(a->a, a->n);
}
void run_poke(void *a, long n)
{
    struct add1d_args args;
    size_t extent[1] = {1};
    args.a = (double *) a;
    args.n = n;
    passman_accel_emu_launch(poke_item, &args, 1, extent);
}
