/* main.c: two-compilation-unit program; kernels live in kernels.c, prototypes in
   kernels.h. Build: gcc main.c kernels.c -lm */
#include <stdio.h>
#include <stdlib.h>
#include "kernels.h"

static double A[N][N];
static double B[N][N];

int main(void)
{
    double (*C)[N] = malloc(sizeof(double[N][N]));
    double (*tmp)[N] = malloc(sizeof(double[N][N]));
    double f1, f2;

    if (C == NULL || tmp == NULL)
        return 1;
    init_matrix(N, A, 3);
    init_matrix(N, B, 5);
    matmul(N, C, A, B);
    f1 = frobenius(N, C);
    smooth(TSTEPS, N, C, tmp);
    f2 = frobenius(N, C);
    printf("%.6e %.6e %d\n", f1, f2, kernel_calls);
    free(C);
    free(tmp);
    return 0;
}
