/* matmul_global: C = A*B on fixed-size global arrays, classic i-j-k triple loop. */
#include <stdio.h>

#define N 150

double A[N][N];
double B[N][N];
double C[N][N];

void init(void)
{
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
            A[i][j] = (double)((i + j) % N) / N;
            B[i][j] = (double)(i * j % N) / N;
            C[i][j] = 0.0;
        }
    }
}

void matmul(void)
{
    int i, j, k;
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) {
            double sum = 0.0;
            for (k = 0; k < N; k++)
                sum += A[i][k] * B[k][j];
            C[i][j] = sum;
        }
    }
}

double checksum(void)
{
    double s = 0.0;
    int i, j;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++)
            s += C[i][j] * ((i + j) % 3 - 1);
    return s;
}

int main(void)
{
    init();
    matmul();
    printf("%.6f\n", checksum());
    return 0;
}
