/* gemm: C := alpha*A*B + beta*C, PolyBench style (kernel file). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "polybench.h"

static void init_array(int ni, int nj, int nk, DATA_TYPE *alpha, DATA_TYPE *beta,
                       DATA_TYPE C[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ])
{
    *alpha = 1.5;
    *beta = 1.2;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            C[i][j] = (DATA_TYPE)((i * j + 1) % ni) / ni;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nk; j++)
            A[i][j] = (DATA_TYPE)(i * (j + 1) % nk) / nk;
    for (int i = 0; i < nk; i++)
        for (int j = 0; j < nj; j++)
            B[i][j] = (DATA_TYPE)(i * (j + 2) % nj) / nj;
}

static void print_array(int ni, int nj, DATA_TYPE C[NI][NJ])
{
    double sum = 0;
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            sum += C[i][j] * ((i + j) % 7 + 1);
    printf("checksum %.6f\n", sum);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 5; j++)
            printf(DATA_PRINTF_MODIFIER, C[i][j]);
        printf("\n");
    }
}

static void kernel_gemm(int ni, int nj, int nk, DATA_TYPE alpha, DATA_TYPE beta,
                        DATA_TYPE C[NI][NJ], DATA_TYPE A[NI][NK], DATA_TYPE B[NK][NJ])
{
    for (int i = 0; i < ni; i++) {
        for (int j = 0; j < nj; j++)
            C[i][j] *= beta;
        for (int k = 0; k < nk; k++)
            for (int j = 0; j < nj; j++)
                C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

int main(int argc, char **argv)
{
    int ni = NI, nj = NJ, nk = NK;
    DATA_TYPE alpha, beta;
    DATA_TYPE(*C)[NI][NJ] = POLYBENCH_ALLOC_2D_ARRAY(NI, NJ, DATA_TYPE);
    DATA_TYPE(*A)[NI][NK] = POLYBENCH_ALLOC_2D_ARRAY(NI, NK, DATA_TYPE);
    DATA_TYPE(*B)[NK][NJ] = POLYBENCH_ALLOC_2D_ARRAY(NK, NJ, DATA_TYPE);
    init_array(ni, nj, nk, &alpha, &beta, POLYBENCH_ARRAY(C), POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
    polybench_timer_start();
    kernel_gemm(ni, nj, nk, alpha, beta, POLYBENCH_ARRAY(C), POLYBENCH_ARRAY(A), POLYBENCH_ARRAY(B));
    polybench_timer_stop();
    if (argc > 1 && strcmp(argv[1], "-time") == 0)
        fprintf(stderr, "%0.6f\n", polybench_timer_elapsed());
    printf("size %d %d %d memory known: %d\n", ni, nj, nk, polybench_peak_memory_kb() != 0);
    print_array(ni, nj, POLYBENCH_ARRAY(C));
    POLYBENCH_FREE_ARRAY(C);
    POLYBENCH_FREE_ARRAY(A);
    POLYBENCH_FREE_ARRAY(B);
    return 0;
}
