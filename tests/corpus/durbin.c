/* durbin: Levinson-Durbin recursion (Toeplitz system); a sequential k loop of short
   parallel loops and scalar recurrences (Amini's sequential promotion). */
#include <stdio.h>
#include <stdlib.h>

#define N 120

static void init_array(int n, double r[n])
{
    for (int i = 0; i < n; i++)
        r[i] = (double)(n + 1 - i) / (n * 200.0);
}

static void kernel_durbin(int n, double r[n], double y[n], double z[n])
{
    double alpha, beta, sum;
    int i, k;

    y[0] = -r[0];
    beta = 1.0;
    alpha = -r[0];
    for (k = 1; k < n; k++) {
        beta = (1 - alpha * alpha) * beta;
        sum = 0.0;
        for (i = 0; i < k; i++)
            sum += r[k - i - 1] * y[i];
        alpha = -(r[k] + sum) / beta;
        for (i = 0; i < k; i++)
            z[i] = y[i] + alpha * y[k - i - 1];
        for (i = 0; i < k; i++)
            y[i] = z[i];
        y[k] = alpha;
    }
}

int main(void)
{
    static double r[N], y[N], z[N];
    double s = 0.0;

    init_array(N, r);
    kernel_durbin(N, r, y, z);
    for (int i = 0; i < N; i++)
        s += y[i] * (i % 4 + 1);
    printf("%.6e\n", s);
    return 0;
}
