/* passman_accel_common.h: what the three implementations of passman_accel.h share
   (launch configuration, box copies, the device-buffer registry, statistics, exit).
   Internal: included once, by the implementation file, after passman_accel.h. Valid C99
   and C++ (passman_accel_cuda.cu includes it). */
#ifndef PASSMAN_ACCEL_COMMON_H
#define PASSMAN_ACCEL_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "passman_accel.h"

#if defined(__GNUC__)
#define PASSMAN_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define PASSMAN_NORETURN __attribute__((noreturn))
#else
#define PASSMAN_PRINTF(f, a)
#define PASSMAN_NORETURN
#endif

/* ---- errors --------------------------------------------------------------------------- */

/* Set while the atexit handler runs: exit() may not be called again then. */
static int passman_exiting;

/* Ends the program with status 1 (from an atexit handler too, where exit is undefined). */
static PASSMAN_NORETURN void passman_die(void)
{
    fflush(stdout);
    fflush(stderr);
    if (passman_exiting)
        _Exit(1);
    exit(1);
}

/* "passman-accel: <message>" on stderr, then status 1. */
static PASSMAN_NORETURN PASSMAN_PRINTF(1, 2) void passman_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("passman-accel: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    passman_die();
}

static void *passman_xrealloc(void *p, size_t bytes)
{
    void *q = realloc(p, bytes);
    if (!q)
        passman_fatal("out of host memory (%zu bytes)", bytes);
    return q;
}

/* An environment variable is on when it is set, non-empty and not "0". */
static int passman_env_on(const char *name)
{
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* ---- time and statistics -------------------------------------------------------------- */

double passman_accel_time(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double) t.tv_sec + 1e-9 * (double) t.tv_nsec;
}

static struct {
    unsigned long long to_n, to_bytes, from_n, from_bytes, launches;
    double kernel_s, copy_s;
} passman_stats;

void passman_accel_launched(double seconds)
{
    passman_stats.launches++;
    passman_stats.kernel_s += seconds;
}

static void passman_stats_print(void)
{
    if (!passman_env_on("PASSMAN_ACCEL_STATS"))
        return;
    fprintf(stderr,
            "passman-accel: %llu copies to device (%llu bytes), %llu copies from device "
            "(%llu bytes), %llu kernel launches, %.6f s in kernels, %.6f s in copies\n",
            passman_stats.to_n, passman_stats.to_bytes, passman_stats.from_n,
            passman_stats.from_bytes, passman_stats.launches, passman_stats.kernel_s,
            passman_stats.copy_s);
    fflush(stderr);
}

static void passman_at_exit(void)
{
    passman_exiting = 1;
    passman_accel_release();
    passman_stats_print();
}

/* Registers the exit handler once (the implementation's init calls it after its device
   library is up, so that the handler runs before that library's own teardown). */
static void passman_register_exit(void)
{
    static int registered;
    if (!registered) {
        registered = 1;
        atexit(passman_at_exit);
    }
}

/* ---- launch configuration ------------------------------------------------------------- */

/* The rule (README.md, "Launch configuration"): pure functions of the extents and of what the
   device (and the kernel, where the API says) allows, so that the tests can run them on the
   CPU with any device; then the overrides (environment, the recipe's block); then the grid
   fitted to the device. An implementation that knows its device defines
   PASSMAN_ACCEL_DEVICE_LIMITS before including this file and defines passman_device_limits;
   the emulation gets the fixed device below. */

/* Block sizes W << j (j < PASSMAN_OCCUPANCY_SLOTS) whose occupancy a device may report. */
#define PASSMAN_OCCUPANCY_SLOTS 11

/* What a device allows, as the heuristic sees it (0 in a size: no limit, or not known). */
struct passman_device_limits {
    size_t warp;          /* W: dimension 0 of a block is a multiple of it (CUDA warpSize,
                             OpenCL the kernel's preferred work-group size multiple) */
    size_t max_group;     /* items in a block (maxThreadsPerBlock, CL_*_WORK_GROUP_SIZE) */
    size_t max_item[3];   /* items of a block per dimension (maxThreadsDim, ..._ITEM_SIZES) */
    size_t compute_units; /* multiprocessors (CL_DEVICE_MAX_COMPUTE_UNITS) */
    size_t max_groups[3]; /* blocks of a grid per dimension (CUDA maxGridSize); 0: any (the
                             OpenCL launch strip-mines what the device cannot take at once) */
    size_t resident[PASSMAN_OCCUPANCY_SLOTS];
                          /* occupancy, where the API gives it for the kernel (its registers and
                             shared memory: CUDA cudaOccupancyMaxActiveBlocksPerMultiprocessor):
                             resident[j] = the kernel's work-items resident at once on one
                             compute unit with blocks of W << j items; 0: not known */
};

/* The block of a large grid (the CUDA guide's 128 to 256 items; Par4All's 256), and the most
   items an override may ask for. */
#define PASSMAN_BLOCK_TARGET ((size_t) 256)
#define PASSMAN_BLOCK_MAX ((size_t) 1024)

#ifdef __cplusplus
extern "C" {
#endif
/* The configuration of the launch of the kernel named `kernel` (NULL: unnamed) with the block
   the recipe chose for it (`block`: ndims sizes, NULL: none). Precedence: env
   PASSMAN_ACCEL_BLOCK_<kernel>, env PASSMAN_ACCEL_BLOCK, `block`, the heuristic. */
void passman_accel_config_for(const char *kernel, const size_t *block, int ndims,
                              const size_t *extent, size_t *global, size_t *local);
#ifdef __cplusplus
}
#endif

/* Of the blocks W << j up to `b` items, the one that keeps the most of the kernel's work-items
   resident on a compute unit (lim->resident), the larger on a tie; `b` itself when the device
   reports no occupancy for them. A kernel heavy in registers can hold more work-items with
   smaller blocks (72 registers on 64K: 3 blocks of 256 items, 768 resident, but 7 of 128,
   896), since a compute unit holds whole blocks. */
static size_t passman_occupancy_block(size_t w, size_t b, const struct passman_device_limits *lim)
{
    size_t best = b, most = 0, c;
    int j;
    for (j = 0, c = w; j < PASSMAN_OCCUPANCY_SLOTS && c <= b; j++, c *= 2)
        if (lim->resident[j] && lim->resident[j] >= most) {
            most = lim->resident[j];
            best = c;
        }
    return best;
}

/* The items of a block: the largest W * 2^j within PASSMAN_BLOCK_TARGET and max_group (the
   latter alone when it is below W), or the smaller W * 2^j that keeps more work-items resident
   (passman_occupancy_block), halved while the grid would have fewer than two blocks per
   compute unit, but never below W. */
static size_t passman_block_total(int ndims, const size_t *extent,
                                  const struct passman_device_limits *lim)
{
    size_t w = lim->warp ? lim->warp : 1, cap = PASSMAN_BLOCK_TARGET, items = 1, b;
    int k;
    if (lim->max_group && lim->max_group < cap)
        cap = lim->max_group;
    if (w >= cap)
        return cap;
    for (b = w; 2 * b <= cap; b *= 2)
        ;
    b = passman_occupancy_block(w, b, lim);
    for (k = 0; k < ndims; k++)
        items = extent[k] && items > (size_t) -1 / extent[k] ? (size_t) -1 : items * extent[k];
    while (b > w && items / 2 / b < lim->compute_units)
        b /= 2;
    return b;
}

/* The shape of a block of at most `total` items: dimension 0 starts at one warp (or the whole
   extent when it is smaller), the others at 1; then the smallest side that can still grow
   doubles (the lowest dimension on a tie), as long as the block stays within `total`, each
   side within its extent (dimension 0: rounded up to a multiple of W) and max_item. */
static void passman_block_shape(int ndims, const size_t *extent, size_t total,
                                const struct passman_device_limits *lim, size_t *local)
{
    size_t w = lim->warp ? lim->warp : 1, cap[3], items;
    int k, grows[3];
    for (k = 0; k < ndims; k++) {
        size_t e = extent[k] ? extent[k] : 1;
        cap[k] = k == 0 && e > w ? (e + w - 1) / w * w : e;
        if (lim->max_item[k] && cap[k] > lim->max_item[k])
            cap[k] = lim->max_item[k];
        local[k] = 1;
        grows[k] = 1;
    }
    local[0] = w < cap[0] ? w : cap[0];
    if (local[0] > total)
        local[0] = total ? total : 1;
    items = local[0];
    for (;;) {
        int best = -1;
        size_t next;
        for (k = 0; k < ndims; k++)
            if (grows[k] && local[k] < cap[k] && (best < 0 || local[k] < local[best]))
                best = k;
        if (best < 0)
            break;
        next = 2 * local[best] < cap[best] ? 2 * local[best] : cap[best];
        if (items / local[best] * next > total) {
            grows[best] = 0;
            continue;
        }
        items = items / local[best] * next;
        local[best] = next;
    }
}

/* The heuristic: passman_block_shape of passman_block_total items. */
static void passman_choose_block(int ndims, const size_t *extent,
                                 const struct passman_device_limits *lim, size_t *local)
{
    passman_block_shape(ndims, extent, passman_block_total(ndims, extent, lim), lim, local);
}

/* A grid within lim->max_groups: a side whose extent needs more blocks grows (doubling, or
   to the exact need past max_item), the other sides halve to stay within max_group (the
   largest of dimensions 1 and 2 first, dimension 0 last). 0 when no block can do it (the
   launcher must strip-mine). */
static int passman_fit_grid(int ndims, const size_t *extent,
                            const struct passman_device_limits *lim, size_t *local)
{
    int k, j, fixed[3] = {0, 0, 0};
    for (k = 0; k < ndims; k++) {
        size_t g = lim->max_groups[k], need, n, items;
        if (g == 0 || (extent[k] + local[k] - 1) / local[k] <= g)
            continue;
        need = (extent[k] + g - 1) / g;
        for (n = local[k]; n < need; n *= 2)
            ;
        if (lim->max_item[k] && n > lim->max_item[k])
            n = need;
        if (lim->max_item[k] && n > lim->max_item[k])
            return 0;
        local[k] = n;
        fixed[k] = 1;
        for (;;) {
            int big = -1;
            for (items = 1, j = 0; j < ndims; j++)
                items *= local[j];
            if (!lim->max_group || items <= lim->max_group)
                break;
            for (j = ndims - 1; j >= 1; j--)
                if (!fixed[j] && local[j] > 1 && (big < 0 || local[j] > local[big]))
                    big = j;
            if (big < 0 && !fixed[0] && local[0] > 1)
                big = 0;
            if (big < 0)
                return 0;
            local[big] = (local[big] + 1) / 2;
        }
    }
    return 1;
}

/* Strip-mining of a grid with more than max_groups[k] blocks in a dimension (0: any): the
   number of launches (0 for an empty grid) and, for index < that number, the offsets and the
   global sizes of launch `index` (dimension 0 the fastest varying), multiples of local[k]. */
static inline size_t passman_strips(int ndims, const size_t *global, const size_t *local,
                                    const size_t *max_groups, size_t index,
                                    size_t *offset, size_t *size)
{
    size_t count = 1, step[3], n[3];
    int k;
    for (k = 0; k < ndims; k++) {
        step[k] = max_groups[k] && global[k] / local[k] > max_groups[k] ? max_groups[k] * local[k]
                                                                         : global[k];
        n[k] = step[k] ? (global[k] + step[k] - 1) / step[k] : 0;
        count *= n[k];
    }
    if (index >= count)
        return count;
    for (k = 0; k < ndims; k++) {
        offset[k] = index % n[k] * step[k];
        size[k] = global[k] - offset[k] < step[k] ? global[k] - offset[k] : step[k];
        index /= n[k];
    }
    return count;
}

size_t passman_accel_strip(int ndims, const size_t *global, const size_t *local,
                           const size_t *groups, size_t index, size_t *offset, size_t *size)
{
    return passman_strips(ndims, global, local, groups, index, offset, size);
}

/* Parses "256", "32x8", "32x4x2" (each component 1 to `max_item`, their product at most
   `max_items`) into sizes[0..]: the number of components, 0 when malformed, -1 when the
   product is too large. */
static int passman_parse_sizes(const char *v, size_t sizes[3], size_t max_item,
                               size_t max_items)
{
    const char *p = v;
    size_t total = 1;
    int k;
    for (k = 0; k < 3; k++) {
        char *end;
        unsigned long long n;
        if (*p < '0' || *p > '9')
            return 0;
        errno = 0;
        n = strtoull(p, &end, 10);
        if (errno || n == 0 || n > max_item)
            return 0;
        sizes[k] = (size_t) n;
        total = total > max_items / (size_t) n ? max_items + 1 : total * (size_t) n;
        p = end;
        if (*p == '\0')
            return total > max_items ? -1 : k + 1;
        if (*p != 'x')
            return 0;
        p++;
    }
    return 0;
}

/* Reads env `name` ("65535", "1024x65535x65535": blocks per dimension in one launch) into
   groups[0..2]; unset, empty or missing components: 0 (no limit). A malformed value is an
   error that names the variable. */
static void passman_grid_from_env(const char *name, size_t groups[3])
{
    const char *v = getenv(name);
    groups[0] = groups[1] = groups[2] = 0;
    if (v && *v && passman_parse_sizes(v, groups, (size_t) -1, (size_t) -1) <= 0)
        passman_fatal("%s=%s: expected 1 to 3 positive numbers of work-groups such as 65535 or "
                      "1024x65535x65535", name, v);
}

/* Reads env `name` ("256", "32x8", "32x4x2") into block[0..2] (missing components 1): 0 when
   unset or empty; a malformed value is an error. */
static int passman_block_from_env(const char *name, size_t block[3])
{
    const char *v = getenv(name);
    int n;
    if (!v || !*v)
        return 0;
    block[0] = block[1] = block[2] = 1;
    n = passman_parse_sizes(v, block, PASSMAN_BLOCK_MAX, PASSMAN_BLOCK_MAX);
    if (n < 0)
        passman_fatal("%s=%s: more than %zu work-items in a work-group", name, v,
                      PASSMAN_BLOCK_MAX);
    if (n == 0)
        passman_fatal("%s=%s: expected 1 to 3 positive sizes such as 256, 32x8 or 32x4x2", name,
                      v);
    return 1;
}

/* The configuration on a device with the limits `lim` (see passman_accel_config_for); a grid
   larger than lim->max_groups is fitted (passman_fit_grid) or refused. */
static void passman_config_with(const char *kernel, const size_t *block, int ndims,
                                const size_t *extent, const struct passman_device_limits *lim,
                                size_t *global, size_t *local)
{
    size_t chosen[3] = {1, 1, 1};
    int given = 0, k;
    if (ndims < 1 || ndims > 3)
        passman_fatal("passman_accel_config: %d dimensions (1 to 3 expected)", ndims);
    if (kernel && *kernel) {
        size_t n = strlen("PASSMAN_ACCEL_BLOCK_") + strlen(kernel) + 1;
        char *name = (char *) passman_xrealloc(NULL, n);
        snprintf(name, n, "PASSMAN_ACCEL_BLOCK_%s", kernel);
        given = passman_block_from_env(name, chosen);
        free(name);
    }
    if (!given)
        given = passman_block_from_env("PASSMAN_ACCEL_BLOCK", chosen);
    if (!given && block) {
        size_t items = 1;
        for (k = 0; k < ndims; k++) {
            if (block[k] == 0 || block[k] > PASSMAN_BLOCK_MAX / items)
                passman_fatal("passman_accel_config: kernel %s: the recipe's block %zux%zux%zu "
                              "(1 to %zu work-items expected)", kernel ? kernel : "?", block[0],
                              ndims > 1 ? block[1] : 1, ndims > 2 ? block[2] : 1,
                              PASSMAN_BLOCK_MAX);
            items *= block[k];
            chosen[k] = block[k];
        }
        given = 1;
    }
    if (given)
        for (k = 0; k < ndims; k++)
            local[k] = chosen[k];
    else
        passman_choose_block(ndims, extent, lim, local);
    if (!passman_fit_grid(ndims, extent, lim, local)) {
        for (k = 0; k < ndims && (lim->max_groups[k] == 0 ||
                                  (extent[k] + local[k] - 1) / local[k] <= lim->max_groups[k]);
             k++)
            ;
        passman_fatal("passman_accel_config: an extent of %zu in dimension %d needs more than "
                      "%zu blocks, the device's limit, even with the largest block: the "
                      "launcher must strip-mine it", extent[k < ndims ? k : 0],
                      k < ndims ? k : 0, lim->max_groups[k < ndims ? k : 0]);
    }
    for (k = 0; k < ndims; k++)
        global[k] = (extent[k] + local[k] - 1) / local[k] * local[k];
}

/* The configuration of a launcher that strip-mines (passman_accel_config_cuda_strips): the rule
   and the overrides as passman_config_with, the grid NOT fitted to the device (the block stays
   as chosen); groups[k] the most blocks of dimension k in one launch: the device's
   lim->max_groups[k] and env PASSMAN_CUDA_MAX_GRID (for tests), the smaller; 0: any. Returns
   the number of strips (passman_strips), 0 when there is nothing to launch. */
static inline size_t passman_config_strips_with(const char *kernel, const size_t *block,
                                                int ndims, const size_t *extent,
                                                const struct passman_device_limits *lim,
                                                size_t *global, size_t *local, size_t *groups)
{
    struct passman_device_limits any = *lim;
    size_t env[3], offset[3], size[3];
    int k;
    any.max_groups[0] = any.max_groups[1] = any.max_groups[2] = 0;
    passman_config_with(kernel, block, ndims, extent, &any, global, local);
    passman_grid_from_env("PASSMAN_CUDA_MAX_GRID", env);
    for (k = 0; k < 3; k++)
        groups[k] = env[k] && (lim->max_groups[k] == 0 || env[k] < lim->max_groups[k])
                        ? env[k] : lim->max_groups[k];
    return passman_strips(ndims, global, local, groups, 0, offset, size);
}

#ifdef PASSMAN_ACCEL_DEVICE_LIMITS
/* The implementation's device (and the kernel `kernel`, NULL: none, where it knows it). */
static void passman_device_limits(const char *kernel, struct passman_device_limits *lim);

void passman_accel_config(int ndims, const size_t *extent, size_t *global, size_t *local)
{
    passman_accel_config_for(NULL, NULL, ndims, extent, global, local);
}
#else
/* The emulation's device: fixed, the same on every host (a warp of 32, 8 compute units,
   1024 items a block, 1024 x 1024 x 64 per dimension, a grid of any size). */
static void passman_device_limits(const char *kernel, struct passman_device_limits *lim)
{
    (void) kernel;
    memset(lim, 0, sizeof *lim); /* no occupancy known */
    lim->warp = 32;
    lim->max_group = 1024;
    lim->max_item[0] = lim->max_item[1] = 1024;
    lim->max_item[2] = 64;
    lim->compute_units = 8;
    lim->max_groups[0] = lim->max_groups[1] = lim->max_groups[2] = 0;
}

/* The kernel and block of the launch in progress (passman_accel_emu_launch_for). */
static struct {
    const char *kernel;
    const size_t *block;
} passman_emu_next;

#ifdef __cplusplus
extern "C" {
#endif
/* passman_accel_emu_launch with the kernel's name and the recipe's block (NULL: none), as
   passman_accel_config_for takes them. */
void passman_accel_emu_launch_for(const char *kernel, const size_t *block,
                                  void (*item)(void *args), void *args, int ndims,
                                  const size_t *extent);
#ifdef __cplusplus
}
#endif

void passman_accel_emu_launch_for(const char *kernel, const size_t *block,
                                  void (*item)(void *args), void *args, int ndims,
                                  const size_t *extent)
{
    passman_emu_next.kernel = kernel;
    passman_emu_next.block = block;
    passman_accel_emu_launch(item, args, ndims, extent);
    passman_emu_next.kernel = NULL;
    passman_emu_next.block = NULL;
}

void passman_accel_config(int ndims, const size_t *extent, size_t *global, size_t *local)
{
    passman_accel_config_for(passman_emu_next.kernel, passman_emu_next.block, ndims, extent,
                             global, local);
}
#endif

void passman_accel_config_for(const char *kernel, const size_t *block, int ndims,
                              const size_t *extent, size_t *global, size_t *local)
{
    struct passman_device_limits lim;
    if (ndims < 1 || ndims > 3)
        passman_fatal("passman_accel_config: %d dimensions (1 to 3 expected)", ndims);
    passman_device_limits(kernel, &lim);
    passman_config_with(kernel, block, ndims, extent, &lim, global, local);
}

/* ---- device-buffer registry ----------------------------------------------------------- */

/* The live device buffers and their sizes (host API calls come from one thread). */
static struct passman_buffer {
    void *dev;
    size_t bytes;
} *passman_buffers;
static size_t passman_nbuffers, passman_buffers_cap;

static void passman_buffers_add(void *dev, size_t bytes)
{
    if (passman_nbuffers == passman_buffers_cap) {
        passman_buffers_cap = passman_buffers_cap ? 2 * passman_buffers_cap : 16;
        passman_buffers = (struct passman_buffer *) passman_xrealloc(
            passman_buffers, passman_buffers_cap * sizeof *passman_buffers);
    }
    passman_buffers[passman_nbuffers].dev = dev;
    passman_buffers[passman_nbuffers].bytes = bytes;
    passman_nbuffers++;
}

/* The index of the live buffer `dev`, or an error naming `what` (the API function). */
static size_t passman_buffers_find(const void *dev, const char *what)
{
    size_t i = passman_nbuffers;
    while (i-- > 0)
        if (passman_buffers[i].dev == dev)
            return i;
    passman_fatal("%s: %p is not a live device buffer (not from passman_accel_malloc, or freed)",
                  what, dev);
}

static void passman_buffers_remove(size_t i)
{
    passman_buffers[i] = passman_buffers[--passman_nbuffers];
}

/* Host arrays mapped to device buffers (passman_accel_resolve), most recent last. */
static struct passman_mapping {
    const void *host;
    void *dev;
    size_t bytes;
} *passman_mappings;
static size_t passman_nmappings, passman_mappings_cap;

static void passman_buffers_clear(void)
{
    free(passman_buffers);
    passman_buffers = NULL;
    passman_nbuffers = passman_buffers_cap = 0;
    free(passman_mappings); /* their buffers were in passman_buffers */
    passman_mappings = NULL;
    passman_nmappings = passman_mappings_cap = 0;
}

/* ---- box copies ----------------------------------------------------------------------- */

/* `height` rows of `width` contiguous bytes, `pitch` bytes apart, the first one `base`
   bytes into both the host array and the device buffer (they have the same layout). */
struct passman_rect {
    size_t base, width, height, pitch;
};

/* Moves one rectangle; `ctx` carries the host and device pointers and the direction. */
typedef void (*passman_rect_mover)(void *ctx, const struct passman_rect *r);

/* Splits the box into as few rectangles as the layout allows (dimensions the box spans
   whole merge with the next inner one), moves them with `move`, and returns the bytes
   moved (0 for an empty box). Checks the box against the array and the array against
   the device buffer `dev`. `what` names the API function for messages. */
static size_t passman_box_copy(const char *what, const void *dev, size_t elem, int rank,
                               const size_t *dims, const size_t *offset, const size_t *count,
                               passman_rect_mover move, void *ctx)
{
    size_t stride[4], n[3], step[3], idx[3] = {0, 0, 0};
    size_t array = elem, moved = elem, base = 0, i;
    struct passman_rect r;
    int k, nouter = 0, full;
    double start = passman_accel_time(); /* every mover is synchronous: the copy is done on return */
    if (rank < 1 || rank > 4)
        passman_fatal("%s: rank %d (1 to 4 expected)", what, rank);
    for (k = 0; k < rank; k++)
        if (count[k] == 0)
            return 0;
    for (k = rank - 1; k >= 0; k--) {
        if (offset[k] > dims[k] || count[k] > dims[k] - offset[k])
            passman_fatal("%s: the box %zu..%zu of dimension %d is outside the array (%zu "
                          "elements)", what, offset[k], offset[k] + count[k] - 1, k, dims[k]);
        stride[k] = array;
        array *= dims[k];
        moved *= count[k];
        base += offset[k] * stride[k];
    }
    i = passman_buffers_find(dev, what);
    if (array > passman_buffers[i].bytes)
        passman_fatal("%s: the array (%zu bytes) is larger than the device buffer (%zu bytes)",
                      what, array, passman_buffers[i].bytes);
    /* The contiguous run: the innermost dimension and every outer one while the box spans
       the whole dimension inside it. */
    r.width = elem;
    for (k = rank - 1;; k--) {
        r.width *= count[k];
        if (count[k] != dims[k] || k == 0)
            break;
    }
    /* The strided dimensions 0..k-1, inner first; an outer one merges into the inner one
       when the inner one is spanned whole. */
    full = 0;
    for (k = k - 1; k >= 0; k--) {
        if (nouter > 0 && full) {
            n[nouter - 1] *= count[k];
        } else {
            n[nouter] = count[k];
            step[nouter] = stride[k];
            nouter++;
        }
        full = count[k] == dims[k];
    }
    r.base = base;
    r.height = nouter > 0 ? n[0] : 1;
    r.pitch = nouter > 0 ? step[0] : r.width;
    for (;;) {
        struct passman_rect piece = r;
        for (k = 1; k < nouter; k++)
            piece.base += idx[k] * step[k];
        move(ctx, &piece);
        for (k = 1; k < nouter; k++) {
            if (++idx[k] < n[k])
                break;
            idx[k] = 0;
        }
        if (k >= nouter)
            break;
    }
    passman_stats.copy_s += passman_accel_time() - start;
    return moved;
}

/* Counts a copy of `bytes` bytes (none for 0). */
static void passman_count_copy(int to_device, size_t bytes)
{
    if (bytes == 0)
        return;
    if (to_device) {
        passman_stats.to_n++;
        passman_stats.to_bytes += bytes;
    } else {
        passman_stats.from_n++;
        passman_stats.from_bytes += bytes;
    }
}

/* ---- host arrays mapped to device buffers ------------------------------------------------ */

/* Copies `bytes` bytes between a host array and its buffer (one rectangle: counted). */
static void passman_mapped_copy(int to_device, void *dev, void *host, size_t bytes)
{
    size_t dims[1], offset[1] = {0}, count[1];
    dims[0] = count[0] = bytes;
    if (to_device)
        passman_accel_copy_to(dev, host, 1, 1, dims, offset, count);
    else
        passman_accel_copy_from(host, dev, 1, 1, dims, offset, count);
}

void *passman_accel_resolve(const void *host, size_t bytes)
{
    size_t i;
    struct passman_mapping *m;
    if (host == NULL)
        passman_fatal("passman_accel_resolve: a null host array");
    for (i = 0; i < passman_nmappings; i++) {
        m = &passman_mappings[i];
        if (m->host != host)
            continue;
        if (bytes > m->bytes) {
            /* A larger view of the same array: a larger buffer, the valid bytes moved through
               the host array's own storage is not possible (it may be newer), so through a
               temporary (two counted copies; rare: one array seen with two sizes). */
            void *bigger = passman_accel_malloc(bytes);
            void *tmp = malloc(m->bytes);
            if (tmp == NULL)
                passman_fatal("passman_accel_resolve: out of host memory (%zu bytes)", m->bytes);
            passman_mapped_copy(0, m->dev, tmp, m->bytes);
            passman_mapped_copy(1, bigger, tmp, m->bytes);
            free(tmp);
            passman_accel_free(m->dev);
            m->dev = bigger;
            m->bytes = bytes;
        }
        return m->dev;
    }
    if (passman_nmappings == passman_mappings_cap) {
        size_t cap = passman_mappings_cap ? 2 * passman_mappings_cap : 16;
        struct passman_mapping *more = (struct passman_mapping *)
            realloc(passman_mappings, cap * sizeof *more);
        if (more == NULL)
            passman_fatal("passman_accel_resolve: out of host memory");
        passman_mappings = more;
        passman_mappings_cap = cap;
    }
    m = &passman_mappings[passman_nmappings++];
    m->host = host;
    m->bytes = bytes;
    m->dev = passman_accel_malloc(bytes > 0 ? bytes : 1);
    return m->dev;
}

void *passman_accel_resolve_at(const void *host, size_t bytes, const void *at)
{
    const char *h = (const char *) host, *a = (const char *) at;
    char *dev = (char *) passman_accel_resolve(host, bytes);
    if (a < h || (size_t) (a - h) > bytes)
        passman_fatal("passman_accel_resolve_at: %p is outside the host array %p (%zu bytes)", at,
                      host, bytes);
    return dev + (a - h);
}

void passman_accel_update_device(const void *host, size_t bytes)
{
    if (bytes > 0)
        passman_mapped_copy(1, passman_accel_resolve(host, bytes), (void *) host, bytes);
}

void passman_accel_update_host(void *host, size_t bytes)
{
    if (bytes > 0)
        passman_mapped_copy(0, passman_accel_resolve(host, bytes), host, bytes);
}

#endif /* PASSMAN_ACCEL_COMMON_H */
