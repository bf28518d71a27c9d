/* C11 in everyday code: _Generic dispatch, _Static_assert, anonymous
   structs and unions, designated initializers, compound literals,
   alignment specifiers, _Noreturn and flexible array members. */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <math.h>

#define type_name(x) _Generic((x), \
    _Bool: "bool", char: "char", int: "int", long: "long", unsigned: "unsigned", \
    float: "float", double: "double", char *: "char *", const char *: "const char *", \
    default: "other")

#define absval(x) _Generic((x), int: abs, long: labs, double: fabs, float: fabsf)(x)
#define max2(a, b) ((a) > (b) ? (a) : (b))

typedef struct {
    enum { SHAPE_CIRCLE, SHAPE_RECT, SHAPE_TRI } kind;
    union {
        struct {
            double radius;
        };
        struct {
            double w, h;
        };
        struct {
            double a, b, c;
        };
    };
    const char *name;
} shape_t;

_Static_assert(sizeof(uint32_t) == 4, "uint32_t must be 4 bytes");
_Static_assert(offsetof(shape_t, kind) == 0, "kind comes first");

typedef struct {
    size_t len;
    alignas(16) double data[];
} vector_t;

static vector_t *vector_new(size_t len)
{
    vector_t *v = malloc(sizeof *v + len * sizeof v->data[0]);
    if (!v)
        return NULL;
    v->len = len;
    for (size_t i = 0; i < len; i++)
        v->data[i] = (double)(i * i % 17) - 8.0;
    return v;
}

static double area(const shape_t *s)
{
    switch (s->kind) {
    case SHAPE_CIRCLE:
        return 3.141592653589793 * s->radius * s->radius;
    case SHAPE_RECT:
        return s->w * s->h;
    case SHAPE_TRI: {
        double p = (s->a + s->b + s->c) / 2;
        return sqrt(p * (p - s->a) * (p - s->b) * (p - s->c));
    }
    }
    return 0;
}

noreturn static void fatal(const char *msg)
{
    fprintf(stderr, "fatal: %s\n", msg);
    exit(3);
}

struct point {
    int x, y;
};

static int manhattan(struct point p, struct point q)
{
    return abs(p.x - q.x) + abs(p.y - q.y);
}

int main(void)
{
    shape_t shapes[] = {
        {.kind = SHAPE_CIRCLE, .radius = 1.5, .name = "disc"},
        {.kind = SHAPE_RECT, .w = 3, .h = 4.5, .name = "plate"},
        {.kind = SHAPE_TRI, .a = 3, .b = 4, .c = 5, .name = "wedge"},
        [3] = {.kind = SHAPE_RECT, .w = 0.5, .h = 0.5, .name = "tile"},
    };
    double total = 0;
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        printf("%-6s area %.4f\n", shapes[i].name, area(&shapes[i]));
        total += area(&shapes[i]);
    }
    printf("total %.4f\n", total);

    int i = -3;
    long l = -40000000000L;
    double d = -2.5;
    float f = -1.25f;
    char c = 'x';
    const char *cs = "text";
    char buf[8] = "buf";
    unsigned u = 5u;
    printf("%s %s %s %s %s %s %s %s\n", type_name(i), type_name(l), type_name(d), type_name(f),
           type_name(c), type_name(cs), type_name(buf), type_name(u));
    printf("%s %s %s\n", type_name(i + 0.5), type_name(c + 1), type_name((_Bool)1));
    printf("%d %ld %.2f %.2f\n", absval(i), absval(l), absval(d), absval(f));

    vector_t *v = vector_new(10);
    if (!v)
        fatal("out of memory");
    double vs = 0;
    for (size_t k = 0; k < v->len; k++)
        vs += v->data[k];
    printf("vector sum %.1f aligned %d\n", vs, (int)(((uintptr_t)v->data) % alignof(double) == 0));

    struct point p = {.y = 7, .x = 2};
    int dist = manhattan(p, (struct point){.x = -1, .y = 3});
    int *squares = (int[]){0, 1, 4, 9, 16, 25};
    printf("distance %d squares %d max %d\n", dist, squares[4] + squares[5], max2(dist, squares[3]));
    printf("alignof double %zu, max_align_t %zu\n", alignof(double), alignof(max_align_t));
    free(v);
    return 0;
}
