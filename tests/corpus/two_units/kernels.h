#ifndef KERNELS_H
#define KERNELS_H

#define N 200
#define TSTEPS 10

void init_matrix(int n, double A[n][n], int seed);
void matmul(int n, double C[n][n], double A[n][n], double B[n][n]);
void smooth(int tsteps, int n, double A[n][n], double tmp[n][n]);
double frobenius(int n, double A[n][n]);
extern int kernel_calls;

#endif
