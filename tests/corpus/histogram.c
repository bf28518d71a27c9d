/* histogram: integer histogram hist[a[i]]++ (indirect, data-dependent writes),
   plus a prefix sum over the bins and a weighted histogram. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define N 200000
#define NBINS 256

static unsigned char data[N];
static int hist[NBINS];
static int cumul[NBINS];

static void init_data(int n, unsigned char *a)
{
    uint32_t state = 12345u;
    for (int i = 0; i < n; i++) {
        /* deterministic linear congruential generator, unsigned wrap-around is defined */
        state = state * 1103515245u + 12345u;
        a[i] = (unsigned char)((state >> 16) & 0xFF);
    }
}

static void compute_histogram(int n, const unsigned char *a, int *h, int nbins)
{
    int i;
    for (i = 0; i < nbins; i++)
        h[i] = 0;
    for (i = 0; i < n; i++)
        h[a[i]]++;
}

static void weighted_histogram(int n, const unsigned char *a, double *w, int nbins)
{
    for (int b = 0; b < nbins; b++)
        w[b] = 0.0;
    for (int i = 0; i < n; i++)
        w[a[i] % nbins] += (double)(i % 7) / 7.0;
}

static void prefix(int nbins, const int *h, int *c)
{
    int b;
    c[0] = h[0];
    for (b = 1; b < nbins; b++)
        c[b] = c[b - 1] + h[b];
}

int main(void)
{
    double *w = malloc(16 * sizeof(double));
    long weighted = 0;
    double wsum = 0.0;
    int maxbin = 0;

    if (w == NULL)
        return 1;
    init_data(N, data);
    compute_histogram(N, data, hist, NBINS);
    prefix(NBINS, hist, cumul);
    weighted_histogram(N, data, w, 16);
    for (int b = 0; b < NBINS; b++) {
        weighted += (long)b * hist[b];
        if (hist[b] > hist[maxbin])
            maxbin = b;
    }
    for (int b = 0; b < 16; b++)
        wsum += w[b] * (b + 1);
    printf("%d %ld %d %d %.6f\n", cumul[NBINS - 1], weighted, maxbin, hist[maxbin], wsum);
    free(w);
    return 0;
}
