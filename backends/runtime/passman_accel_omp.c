/* passman_accel_omp.c: passman_accel.h emulated on the CPU, for testing generated GPU code
   without a GPU.

   Device buffers are separate host allocations filled with 0xFF bytes (NaN for doubles),
   so a missing copy shows as a wrong result. A kernel is a C function run once per
   work-item of the whole GLOBAL range (guards run as on a GPU), in parallel with OpenMP,
   or with PASSMAN_ACCEL_SHUFFLE=1 on one thread in a shuffled order (seed
   PASSMAN_ACCEL_SEED, default 1) to expose kernels that depend on the order of their
   work-items. PASSMAN_ACCEL_CHECK=1 puts guard zones around each buffer and checks them
   after every launch, at free and at exit.

   gcc -std=c99 -O2 -fopenmp -c passman_accel_omp.c */
#define _POSIX_C_SOURCE 200809L

#include "passman_accel.h"

#include "passman_accel_common.h"

PASSMAN_THREAD_LOCAL long passman_accel_emu_id[3];

/* Bytes before each buffer (the front guard zone, keeps 64-byte alignment) and after it
   (the back guard zone, with PASSMAN_ACCEL_CHECK=1 only). */
enum { PASSMAN_FRONT = 64, PASSMAN_BACK = 1024, PASSMAN_GUARD_BYTE = 0xA5 };

static struct {
    int ready;
    int check;                 /* PASSMAN_ACCEL_CHECK=1 */
    unsigned long long random; /* the shuffle's generator state */
} emu;

void passman_accel_init(void)
{
    const char *seed;
    if (emu.ready)
        return;
    emu.ready = 1;
    emu.check = passman_env_on("PASSMAN_ACCEL_CHECK");
    emu.random = 1;
    seed = getenv("PASSMAN_ACCEL_SEED");
    if (seed && *seed) {
        char *end;
        errno = 0;
        emu.random = strtoull(seed, &end, 10);
        if (errno || *end)
            passman_fatal("PASSMAN_ACCEL_SEED=%s: expected a non-negative integer", seed);
    }
    passman_register_exit();
}

/* ---- buffers -------------------------------------------------------------------------- */

static size_t back_guard(void)
{
    return emu.check ? PASSMAN_BACK : 0;
}

/* Checks the guard zones of the live buffer i; exits with a message when one changed
   (after restoring them, so that the exit handler does not report them again). */
static void check_guards(size_t i)
{
    unsigned char *data = (unsigned char *) passman_buffers[i].dev;
    size_t bytes = passman_buffers[i].bytes, k;
    const char *where = NULL;
    if (!emu.check)
        return;
    for (k = 1; k <= PASSMAN_FRONT && !where; k++)
        if (data[-(ptrdiff_t) k] != PASSMAN_GUARD_BYTE)
            where = "before the start";
    for (k = 0; k < PASSMAN_BACK && !where; k++)
        if (data[bytes + k] != PASSMAN_GUARD_BYTE)
            where = "past the end";
    if (!where)
        return;
    memset(data - PASSMAN_FRONT, PASSMAN_GUARD_BYTE, PASSMAN_FRONT);
    memset(data + bytes, PASSMAN_GUARD_BYTE, PASSMAN_BACK);
    passman_fatal("write %s of a device buffer of %zu bytes", where, bytes);
}

void *passman_accel_malloc(size_t bytes)
{
    unsigned char *block;
    void *p;
    passman_accel_init();
    if (posix_memalign(&p, PASSMAN_FRONT, PASSMAN_FRONT + bytes + back_guard()) != 0)
        passman_fatal("out of memory for a device buffer of %zu bytes", bytes);
    block = (unsigned char *) p;
    memset(block, PASSMAN_GUARD_BYTE, PASSMAN_FRONT);
    memset(block + PASSMAN_FRONT, 0xFF, bytes);
    memset(block + PASSMAN_FRONT + bytes, PASSMAN_GUARD_BYTE, back_guard());
    passman_buffers_add(block + PASSMAN_FRONT, bytes);
    return block + PASSMAN_FRONT;
}

void passman_accel_free(void *dev)
{
    size_t i;
    passman_accel_init();
    if (!dev)
        return;
    i = passman_buffers_find(dev, "passman_accel_free");
    check_guards(i);
    passman_buffers_remove(i);
    free((unsigned char *) dev - PASSMAN_FRONT);
}

void passman_accel_release(void)
{
    size_t i;
    if (!emu.ready)
        return;
    for (i = 0; i < passman_nbuffers; i++)
        check_guards(i);
    for (i = 0; i < passman_nbuffers; i++)
        free((unsigned char *) passman_buffers[i].dev - PASSMAN_FRONT);
    passman_buffers_clear();
    emu.ready = 0;
}

/* ---- copies --------------------------------------------------------------------------- */

struct copy {
    unsigned char *to;
    const unsigned char *from;
};

static void move_rect(void *ctx, const struct passman_rect *r)
{
    struct copy *c = (struct copy *) ctx;
    size_t row;
    for (row = 0; row < r->height; row++)
        memcpy(c->to + r->base + row * r->pitch, c->from + r->base + row * r->pitch, r->width);
}

void passman_accel_copy_to(void *dev, const void *host, size_t elem, int rank,
                           const size_t *dims, const size_t *offset, const size_t *count)
{
    struct copy c;
    passman_accel_init();
    c.to = (unsigned char *) dev;
    c.from = (const unsigned char *) host;
    passman_count_copy(1, passman_box_copy("passman_accel_copy_to", dev, elem, rank, dims,
                                           offset, count, move_rect, &c));
}

void passman_accel_copy_from(void *host, const void *dev, size_t elem, int rank,
                             const size_t *dims, const size_t *offset, const size_t *count)
{
    struct copy c;
    passman_accel_init();
    c.to = (unsigned char *) host;
    c.from = (const unsigned char *) dev;
    passman_count_copy(0, passman_box_copy("passman_accel_copy_from", dev, elem, rank, dims,
                                           offset, count, move_rect, &c));
}

/* ---- launches ------------------------------------------------------------------------- */

/* splitmix64: the next pseudo-random number of the shuffle. */
static unsigned long long next_random(void)
{
    unsigned long long z = (emu.random += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* perm = a shuffle of 0..n-1 that is never the identity when n > 1. */
static void shuffle(size_t *perm, size_t n)
{
    size_t i, identity = 1;
    for (i = 0; i < n; i++)
        perm[i] = i;
    for (i = n; i > 1; i--) {
        size_t j = (size_t) (next_random() % i), t = perm[i - 1];
        perm[i - 1] = perm[j];
        perm[j] = t;
    }
    for (i = 0; i < n && identity; i++)
        identity = perm[i] == i;
    if (identity && n > 1) {
        perm[0] = 1;
        perm[1] = 0;
    }
}

/* The work-items of group `g` (numbered dimension 0 fastest), in order or in `order`. */
static void run_group(void (*item)(void *), void *args, const size_t *global,
                      const size_t *local, size_t g, const size_t *order)
{
    size_t ng0 = global[0] / local[0], ng1 = global[1] / local[1];
    size_t g0 = g % ng0, g1 = g / ng0 % ng1, g2 = g / ng0 / ng1;
    size_t n = local[0] * local[1] * local[2], i;
    for (i = 0; i < n; i++) {
        size_t l = order ? order[i] : i;
        passman_accel_emu_id[0] = (long) (g0 * local[0] + l % local[0]);
        passman_accel_emu_id[1] = (long) (g1 * local[1] + l / local[0] % local[1]);
        passman_accel_emu_id[2] = (long) (g2 * local[2] + l / local[0] / local[1]);
        item(args);
    }
}

void passman_accel_emu_launch(void (*item)(void *args), void *args, int ndims,
                              const size_t *extent)
{
    size_t global[3] = {1, 1, 1}, local[3] = {1, 1, 1}, groups = 1, i;
    double start;
    int k;
    passman_accel_init();
    passman_accel_config(ndims, extent, global, local);
    for (k = 0; k < ndims; k++)
        groups *= global[k] / local[k];
    if (groups == 0)
        return;
    start = passman_accel_time();
    if (passman_env_on("PASSMAN_ACCEL_SHUFFLE")) {
        size_t *group_order = (size_t *) passman_xrealloc(NULL, groups * sizeof(size_t));
        size_t *item_order = (size_t *) passman_xrealloc(
            NULL, local[0] * local[1] * local[2] * sizeof(size_t));
        shuffle(group_order, groups);
        for (i = 0; i < groups; i++) {
            shuffle(item_order, local[0] * local[1] * local[2]);
            run_group(item, args, global, local, group_order[i], item_order);
        }
        free(group_order);
        free(item_order);
    } else {
        long g;
#pragma omp parallel for schedule(static)
        for (g = 0; g < (long) groups; g++)
            run_group(item, args, global, local, (size_t) g, NULL);
    }
    passman_accel_launched(passman_accel_time() - start);
    for (i = 0; i < passman_nbuffers; i++)
        check_guards(i);
}

/* ---- the CUDA launchers' configuration, on the emulated device ------------------------- */

/* The CUDA backend's launchers (kernels.cu) call these; with them the launchers run on the CPU
   when kernels.cu is compiled as C++ against this emulation with a stand-in for <<< >>>
   (tests/accel_runtime/cuda_on_cpu.h). `func` is ignored: the emulated device is the same for
   every kernel. */
void passman_accel_config_cuda(const void *func, const char *kernel, const size_t *block,
                               int ndims, const size_t *extent, size_t *global, size_t *local)
{
    struct passman_device_limits lim;
    (void) func;
    passman_accel_init();
    passman_device_limits(kernel, &lim);
    passman_config_with(kernel, block, ndims, extent, &lim, global, local);
}

size_t passman_accel_config_cuda_strips(const void *func, const char *kernel, const size_t *block,
                                        int ndims, const size_t *extent, size_t *global,
                                        size_t *local, size_t *groups)
{
    struct passman_device_limits lim;
    (void) func;
    passman_accel_init();
    passman_device_limits(kernel, &lim);
    return passman_config_strips_with(kernel, block, ndims, extent, &lim, global, local, groups);
}
