/* control_flow: if/else chains, while, do-while, switch (with fall-through and
   default), break/continue, goto, ternary, comma, short-circuit logic, every
   compound assignment operator, and pre/post ++/--. */
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static int classify(int x)
{
    if (x < 0)
        return -1;
    else if (x == 0)
        return 0;
    else if (x < 10)
        return 1;
    else if (x < 100)
        return 2;
    else
        return 3;
}

static int collatz_steps(int x)
{
    int steps = 0;
    while (x != 1) {
        if (x % 2 == 0)
            x /= 2;
        else
            x = 3 * x + 1;
        steps++;
    }
    return steps;
}

static int digit_sum(int x)
{
    int s = 0;
    do {
        s += x % 10;
        x /= 10;
    } while (x > 0);
    return s;
}

static int switch_score(int x)
{
    int score = 0;
    switch (x % 8) {
    case 0:
        score += 10;
        break;
    case 1:
    case 2:
        score += 20;
        /* fall through */
    case 3:
        score += 3;
        break;
    case 4: {
        int t = x / 8;
        score = t % 5;
        break;
    }
    case 5:
        score--;
        break;
    default:
        score = -7;
        break;
    }
    return score;
}

static int first_multiple(const int *a, int n, int m)
{
    int i;
    for (i = 0; i < n; i++) {
        if (a[i] == 0)
            continue;
        if (a[i] % m == 0)
            break;
    }
    return i;
}

static int find_pair(int n, int target)
{
    int i, j, found = -1;
    for (i = 0; i < n; i++) {
        for (j = i; j < n; j++) {
            if (i * j == target) {
                found = i * 1000 + j;
                goto done;
            }
        }
    }
done:
    return found;
}

static unsigned int bit_ops(unsigned int x)
{
    unsigned int y = x;
    y <<= 3;
    y ^= x;
    y >>= 1;
    y |= 0x10u;
    y &= 0xFFFFu;
    y = ~y & 0xFFFFu;
    return y;
}

static int arith_ops(int x)
{
    int y = x + 5;
    y += 3;
    y -= 1;
    y *= 2;
    y /= 3;
    y %= 97;
    int a = y++;
    int b = ++y;
    int c = y--;
    int d = --y;
    return a + b * 2 + c * 3 + d * 4;
}

int main(void)
{
    int *a = malloc(N * sizeof(int));
    long total = 0;
    int hist[5] = { 0, 0, 0, 0, 0 };
    int i, k;
    unsigned int bits = 0;

    if (a == NULL)
        return 1;
    for (i = 0; i < N; i++)
        a[i] = (i * 37) % 211 - 50;

    for (i = 0; i < N; i++)
        hist[classify(a[i]) + 1]++;

    for (i = 1, k = 0; i < 200; i += 3, k++)
        total += collatz_steps(i) + (k & 1 ? digit_sum(i) : -digit_sum(i));

    for (i = 0; i < N; ++i)
        total += switch_score(i);

    for (i = N - 1; i >= 0; --i) {
        int v = a[i];
        total += (v > 0 && v % 2 == 0) ? v : (v < -10 || v == 7) ? -1 : 0;
    }

    i = 0;
    while (1) {
        if (++i > 50)
            break;
        if (i % 3)
            continue;
        bits += bit_ops((unsigned int)i);
    }

    for (i = 0; i < 100; i++)
        total += arith_ops(i);

    printf("%d %d %d %d %d\n", hist[0], hist[1], hist[2], hist[3], hist[4]);
    printf("%ld %u %d %d\n", total, bits, first_multiple(a, N, 13), find_pair(100, 391));
    free(a);
    return 0;
}
