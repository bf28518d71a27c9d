/* The vecops test library. */
#ifndef VECOPS_H
#define VECOPS_H
void vec_fill(double *x, int n, double v);
double vec_sum(const double *x, int n);
#endif
