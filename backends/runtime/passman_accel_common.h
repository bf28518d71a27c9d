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

/* Reads PASSMAN_ACCEL_BLOCK into block[0..2] (missing components 1); 0 when unset. */
static int passman_block_from_env(size_t block[3])
{
    const char *v = getenv("PASSMAN_ACCEL_BLOCK");
    const char *p = v;
    size_t total = 1;
    int k;
    if (!v || !*v)
        return 0;
    block[0] = block[1] = block[2] = 1;
    for (k = 0; k < 3; k++) {
        char *end;
        unsigned long long n;
        if (*p < '0' || *p > '9')
            break;
        errno = 0;
        n = strtoull(p, &end, 10);
        if (errno || n == 0 || n > 1024)
            break;
        block[k] = (size_t) n;
        total *= (size_t) n;
        p = end;
        if (*p == '\0') {
            if (total > 1024)
                passman_fatal("PASSMAN_ACCEL_BLOCK=%s: more than 1024 work-items in a "
                              "work-group", v);
            return 1;
        }
        if (*p != 'x')
            break;
        p++;
    }
    passman_fatal("PASSMAN_ACCEL_BLOCK=%s: expected 1 to 3 positive sizes such as 256, 32x8 "
                  "or 32x4x2", v);
}

void passman_accel_config(int ndims, const size_t *extent, size_t *global, size_t *local)
{
    static const size_t defaults[3][3] = {{256, 1, 1}, {32, 8, 1}, {32, 4, 2}};
    size_t block[3];
    int from_env = passman_block_from_env(block);
    int k;
    if (ndims < 1 || ndims > 3)
        passman_fatal("passman_accel_config: %d dimensions (1 to 3 expected)", ndims);
    for (k = 0; k < ndims; k++) {
        size_t l = from_env ? block[k] : defaults[ndims - 1][k];
        if (!from_env) {
            size_t p2 = 1;
            while (p2 < extent[k] && p2 < l)
                p2 *= 2;
            l = p2 < l ? p2 : l;
        }
        local[k] = l;
        global[k] = (extent[k] + l - 1) / l * l;
    }
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
