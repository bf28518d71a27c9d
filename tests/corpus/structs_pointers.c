/* structs_pointers: structs with array members, nested structs, typedefs, enum,
   union, arrays of structs, pointer arithmetic, pointer-to-pointer, function
   pointers, casts, sizeof, and string.h (memset, memcpy, strlen, strcpy, strcmp). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdint.h>

#define NP 64
#define NAMELEN 16

enum kind { KIND_A, KIND_B, KIND_C };

typedef struct {
    double x, y;
} vec2;

typedef struct particle {
    vec2 pos;
    vec2 vel;
    double hist[4];
    enum kind k;
    char name[NAMELEN];
} particle;

struct system {
    int n;
    particle p[NP];
    double *weights;
};

union pun {
    uint32_t u;
    unsigned char bytes[4];
};

typedef double (*reducer)(const double *, size_t);

static double rsum(const double *v, size_t n)
{
    double s = 0.0;
    const double *end = v + n;
    while (v < end)
        s += *v++;
    return s;
}

static double rmax(const double *v, size_t n)
{
    double m = v[0];
    size_t i;
    for (i = 1; i < n; i++)
        if (*(v + i) > m)
            m = *(v + i);
    return m;
}

static void init_system(struct system *s, int n)
{
    int i;
    memset(s, 0, sizeof(*s));
    s->n = n;
    for (i = 0; i < n; i++) {
        particle *q = &s->p[i];
        q->pos.x = (double)i / n;
        q->pos.y = (double)(n - i) / n;
        q->vel.x = (double)(i % 5) / 10.0;
        q->vel.y = -(double)(i % 3) / 10.0;
        q->k = (enum kind)(i % 3);
        strcpy(q->name, i % 2 ? "odd" : "even");
    }
}

static void step(struct system *s, double dt)
{
    particle *q;
    for (q = s->p; q < s->p + s->n; q++) {
        memmove(&q->hist[1], &q->hist[0], 3 * sizeof(double));
        q->hist[0] = q->pos.x;
        q->pos.x += dt * q->vel.x;
        q->pos.y += dt * q->vel.y;
        if (q->k == KIND_B)
            q->vel.y *= 0.5;
    }
}

static vec2 centroid(const struct system *s)
{
    vec2 c = { 0.0, 0.0 };
    for (int i = 0; i < s->n; i++) {
        c.x += s->p[i].pos.x;
        c.y += s->p[i].pos.y;
    }
    c.x /= s->n;
    c.y /= s->n;
    return c;
}

static double **make_matrix(int rows, int cols)
{
    double **m = malloc((size_t)rows * sizeof(double *));
    int i, j;
    if (m == NULL)
        return NULL;
    m[0] = malloc((size_t)rows * (size_t)cols * sizeof(double));
    if (m[0] == NULL) {
        free(m);
        return NULL;
    }
    for (i = 1; i < rows; i++)
        m[i] = m[i - 1] + cols;
    for (i = 0; i < rows; i++)
        for (j = 0; j < cols; j++)
            m[i][j] = (double)(i * cols + j) / (rows * cols);
    return m;
}

static void free_matrix(double **m)
{
    free(m[0]);
    free(m);
}

static void swap_rows(double **m, int a, int b)
{
    double *t = m[a];
    m[a] = m[b];
    m[b] = t;
}

static int count_kind(const particle *p, int n, enum kind k)
{
    int c = 0;
    for (const particle *q = p; q != p + n; ++q)
        c += q->k == k;
    return c;
}

int main(void)
{
    struct system *s = malloc(sizeof(struct system));
    reducer ops[2];
    double buf[NP], copy[NP];
    double **m;
    union pun pn;
    char label[32];
    int t, i;
    long namelen = 0;
    ptrdiff_t d;

    if (s == NULL)
        return 1;
    init_system(s, NP);
    for (t = 0; t < 10; t++)
        step(s, 0.1);
    vec2 c = centroid(s);

    for (i = 0; i < NP; i++)
        buf[i] = s->p[i].pos.x + s->p[i].hist[3];
    memcpy(copy, buf, sizeof(buf));
    ops[0] = rsum;
    ops[1] = &rmax;

    m = make_matrix(8, 5);
    if (m == NULL)
        return 1;
    swap_rows(m, 0, 7);
    d = &m[7][4] - &m[7][0];

    for (i = 0; i < NP; i++)
        namelen += (long)strlen(s->p[i].name);
    strcpy(label, "passman");
    pn.u = 0x01020304u;

    printf("%.6f %.6f\n", c.x, c.y);
    printf("%.6f %.6f\n", ops[0](copy, NP), (*ops[1])(copy, (size_t)NP));
    printf("%.6f %.6f %d\n", m[0][0], m[7][4], (int)d);
    printf("%ld %d %d %d\n", namelen, (int)strlen(label), strcmp(s->p[1].name, "odd") == 0,
           count_kind(s->p, s->n, KIND_C));
    printf("%d %d %d\n", (int)sizeof(vec2), (int)(sizeof(buf) / sizeof(buf[0])),
           pn.bytes[0] + pn.bytes[1] + pn.bytes[2] + pn.bytes[3]);
    printf("%d\n", (int)offsetof(particle, vel) / (int)sizeof(double));
    swap_rows(m, 7, 0);
    free_matrix(m);
    free(s);
    return 0;
}
