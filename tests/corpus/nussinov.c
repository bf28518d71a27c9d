/* nussinov: RNA folding dynamic programming (integer), triangular dependences:
   table[i][j] depends on table[i+1][*] and table[*][j-1]; i runs backwards. */
#include <stdio.h>
#include <stdlib.h>

#define N 300

typedef int base;

static int max_score(int s1, int s2)
{
    return s1 >= s2 ? s1 : s2;
}

static int match(base b1, base b2)
{
    return (b1 + b2) == 3 ? 1 : 0;
}

static void init_array(int n, base seq[n], int table[n][n])
{
    int i, j;
    for (i = 0; i < n; i++)
        seq[i] = (base)((i + 1) % 4);
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
            table[i][j] = 0;
}

static void kernel_nussinov(int n, base seq[n], int table[n][n])
{
    int i, j, k;
    for (i = n - 1; i >= 0; i--) {
        for (j = i + 1; j < n; j++) {
            if (j - 1 >= 0)
                table[i][j] = max_score(table[i][j], table[i][j - 1]);
            if (i + 1 < n)
                table[i][j] = max_score(table[i][j], table[i + 1][j]);
            if (j - 1 >= 0 && i + 1 < n) {
                /* don't allow adjacent elements to bond */
                if (i < j - 1)
                    table[i][j] = max_score(table[i][j], table[i + 1][j - 1] + match(seq[i], seq[j]));
                else
                    table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
            }
            for (k = i + 1; k < j; k++)
                table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
        }
    }
}

int main(void)
{
    base *seq = malloc(N * sizeof(base));
    int (*table)[N] = malloc(N * sizeof(*table));
    long sum = 0;

    if (seq == NULL || table == NULL)
        return 1;
    init_array(N, seq, table);
    kernel_nussinov(N, seq, table);
    for (int i = 0; i < N; i++)
        for (int j = i; j < N; j++)
            sum += table[i][j];
    printf("%d %ld\n", table[0][N - 1], sum);
    free(seq);
    free(table);
    return 0;
}
