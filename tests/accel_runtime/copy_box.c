/* Box copies of ranks 1 to 4 through any implementation of passman_accel.h, checked element
   by element against the box definition: only the box moves, in both directions, and the
   rest of the host array is left alone. Usage: copy_box [CASES]; prints "copy_box ok N". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "passman_accel.h"

static unsigned long long state = 12345;

static size_t rnd(size_t n) /* 0 .. n-1 */
{
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (size_t) ((state >> 33) % n);
}

/* A random box in dims: a third of the dimensions spanned whole, to merge them. */
static void random_box(int rank, const size_t *dims, size_t *off, size_t *cnt)
{
    int k;
    for (k = 0; k < rank; k++) {
        if (rnd(3) == 0) {
            off[k] = 0;
            cnt[k] = dims[k];
        } else {
            off[k] = rnd(dims[k]);
            cnt[k] = 1 + rnd(dims[k] - off[k]);
        }
    }
}

/* Is element `linear` of the array inside the box? (by its coordinates) */
static int in_box(size_t linear, int rank, const size_t *dims, const size_t *off,
                  const size_t *cnt)
{
    int k;
    for (k = rank - 1; k >= 0; k--) {
        size_t x = linear % dims[k];
        linear /= dims[k];
        if (x < off[k] || x >= off[k] + cnt[k])
            return 0;
    }
    return 1;
}

static int one_case(int number, int rank, size_t elem)
{
    size_t dims[4], off[4], cnt[4], off2[4], cnt2[4], full[4] = {0, 0, 0, 0}, n = 1, i, b;
    unsigned char *host, *sentinel, *result, *part, *copy;
    void *dev;
    int k;
    for (k = 0; k < rank; k++) {
        dims[k] = 1 + rnd(rank <= 2 ? 9 : 5);
        n *= dims[k];
    }
    random_box(rank, dims, off, cnt);
    random_box(rank, dims, off2, cnt2);
    host = (unsigned char *) malloc(n * elem);
    sentinel = (unsigned char *) malloc(n * elem);
    result = (unsigned char *) malloc(n * elem);
    part = (unsigned char *) malloc(n * elem);
    copy = (unsigned char *) malloc(n * elem);
    for (b = 0; b < n * elem; b++) {
        host[b] = (unsigned char) (1 + rnd(250));
        sentinel[b] = (unsigned char) (1 + rnd(250));
    }
    memcpy(copy, host, n * elem);
    memset(result, 0x77, n * elem);
    memset(part, 0x33, n * elem);
    dev = passman_accel_malloc(n * elem);
    passman_accel_copy_to(dev, sentinel, elem, rank, dims, full, dims);
    passman_accel_copy_to(dev, host, elem, rank, dims, off, cnt);
    passman_accel_copy_from(result, dev, elem, rank, dims, full, dims);
    passman_accel_copy_from(part, dev, elem, rank, dims, off2, cnt2);
    passman_accel_free(dev);
    for (i = 0; i < n; i++) {
        const unsigned char *want = in_box(i, rank, dims, off, cnt) ? host : sentinel;
        int inside2 = in_box(i, rank, dims, off2, cnt2);
        for (b = i * elem; b < (i + 1) * elem; b++)
            if (result[b] != want[b] || part[b] != (inside2 ? result[b] : 0x33) ||
                host[b] != copy[b]) {
                printf("case %d (rank %d, elem %zu): wrong at element %zu\n", number, rank, elem,
                       i);
                return 1;
            }
    }
    free(host);
    free(sentinel);
    free(result);
    free(part);
    free(copy);
    return 0;
}

int main(int argc, char **argv)
{
    static const size_t elems[] = {1, 4, 8, 12};
    int cases = argc > 1 ? atoi(argv[1]) : 400, c;
    for (c = 0; c < cases; c++)
        if (one_case(c, 1 + c % 4, elems[c / 4 % 4]))
            return 1;
    printf("copy_box ok %d\n", cases);
    return 0;
}
