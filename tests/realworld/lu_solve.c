/* Dense linear solver: LU factorization with partial pivoting on aligned
   buffers (posix_memalign), forward and back substitution, residual check,
   and goto-based cleanup on every error path. */
#define _POSIX_C_SOURCE 200112L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 80

static int alloc_matrix(double **out, size_t rows, size_t cols)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, rows * cols * sizeof(double)) != 0)
        return -1;
    memset(p, 0, rows * cols * sizeof(double));
    *out = p;
    return 0;
}

static void fill(double *a, double *b, int n)
{
    for (int i = 0; i < n; i++) {
        double row = 0;
        for (int j = 0; j < n; j++) {
            a[i * n + j] = 1.0 / (1.0 + abs(i - j)) + ((i * 7 + j * 3) % 11) * 0.01;
            row += fabs(a[i * n + j]);
        }
        a[i * n + i] += row;
        b[i] = (double)(i % 5) - 2.0;
    }
}

/* In place: A = L U with unit lower L; perm records the row swaps. */
static int lu_factor(double *a, int *perm, int n)
{
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int k = 0; k < n; k++) {
        int p = k;
        double best = fabs(a[k * n + k]);
        for (int i = k + 1; i < n; i++)
            if (fabs(a[i * n + k]) > best) {
                best = fabs(a[i * n + k]);
                p = i;
            }
        if (best < 1e-14)
            return -1;
        if (p != k) {
            for (int j = 0; j < n; j++) {
                double t = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = t;
            }
            int t = perm[k];
            perm[k] = perm[p];
            perm[p] = t;
        }
        for (int i = k + 1; i < n; i++) {
            double f = a[i * n + k] / a[k * n + k];
            a[i * n + k] = f;
            for (int j = k + 1; j < n; j++)
                a[i * n + j] -= f * a[k * n + j];
        }
    }
    return 0;
}

static void lu_solve(const double *lu, const int *perm, const double *b, double *x, int n)
{
    for (int i = 0; i < n; i++) {
        double s = b[perm[i]];
        for (int j = 0; j < i; j++)
            s -= lu[i * n + j] * x[j];
        x[i] = s;
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = x[i];
        for (int j = i + 1; j < n; j++)
            s -= lu[i * n + j] * x[j];
        x[i] = s / lu[i * n + i];
    }
}

static double residual(const double *a, const double *x, const double *b, int n)
{
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double s = -b[i];
        for (int j = 0; j < n; j++)
            s += a[i * n + j] * x[j];
        if (fabs(s) > worst)
            worst = fabs(s);
    }
    return worst;
}

int main(void)
{
    int status = 1;
    double *a = NULL, *lu = NULL, *b = NULL, *x = NULL;
    int *perm = NULL;
    if (alloc_matrix(&a, N, N) || alloc_matrix(&lu, N, N))
        goto out;
    if (alloc_matrix(&b, N, 1) || alloc_matrix(&x, N, 1))
        goto out;
    perm = malloc(N * sizeof *perm);
    if (!perm)
        goto out;
    fill(a, b, N);
    memcpy(lu, a, sizeof(double) * N * N);
    if (lu_factor(lu, perm, N) != 0) {
        fprintf(stderr, "singular matrix\n");
        goto out;
    }
    lu_solve(lu, perm, b, x, N);
    double det = 1;
    int swaps = 0;
    for (int i = 0; i < N; i++) {
        det *= lu[i * N + i] / 10.0;
        swaps += perm[i] != i;
    }
    printf("residual small: %d\n", residual(a, x, b, N) < 1e-9);
    printf("scaled det %.6e, rows moved %d\n", det, swaps);
    double s = 0;
    for (int i = 0; i < N; i++)
        s += x[i] * (i + 1);
    printf("weighted solution %.8f\n", s);
    status = 0;
out:
    free(perm);
    free(x);
    free(b);
    free(lu);
    free(a);
    return status;
}
