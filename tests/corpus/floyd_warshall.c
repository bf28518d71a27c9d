/* floyd_warshall: all-pairs shortest paths (integer), k loop carries the dependence. */
#include <stdio.h>
#include <stdlib.h>

#define N 180

int path[N][N];

static void init_array(int n, int p[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            p[i][j] = i * j % 7 + 1;
            if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
                p[i][j] = 999;
        }
}

static void kernel_floyd_warshall(int n, int p[n][n])
{
    int i, j, k;
    for (k = 0; k < n; k++)
        for (i = 0; i < n; i++)
            for (j = 0; j < n; j++)
                p[i][j] = p[i][j] < p[i][k] + p[k][j] ? p[i][j] : p[i][k] + p[k][j];
}

int main(void)
{
    long sum = 0;
    int maxv = 0;
    init_array(N, path);
    kernel_floyd_warshall(N, path);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            sum += path[i][j];
            if (path[i][j] > maxv)
                maxv = path[i][j];
        }
    printf("%ld %d\n", sum, maxv);
    return 0;
}
