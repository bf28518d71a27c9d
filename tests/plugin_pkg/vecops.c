/* The real vecops library (what the program links). */
#include "vecops.h"

void vec_fill(double *x, int n, double v)
{
    for (int i = 0; i < n; i++)
        x[i] = v;
}

double vec_sum(const double *x, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i];
    return s;
}
