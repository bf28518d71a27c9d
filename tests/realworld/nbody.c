/* N-body simulation (leapfrog), with energy and momentum checks. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NBODIES 64
#define STEPS 40
#define SOFTENING 1e-3

typedef struct {
    double x, y, z;
} vec3;

typedef struct {
    vec3 pos[NBODIES];
    vec3 vel[NBODIES];
    vec3 acc[NBODIES];
    double mass[NBODIES];
} system_t;

static double frand(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

static void init(system_t *s)
{
    unsigned st = 7;
    for (int i = 0; i < NBODIES; i++) {
        double r = 1.0 + 4.0 * frand(&st), th = 6.283185307179586 * frand(&st);
        s->pos[i] = (vec3){r * cos(th), r * sin(th), 0.2 * (frand(&st) - 0.5)};
        double v = sqrt(1.0 / r);
        s->vel[i] = (vec3){-v * sin(th), v * cos(th), 0.0};
        s->mass[i] = 0.5 + frand(&st) / NBODIES;
    }
}

static void accelerations(system_t *s)
{
    for (int i = 0; i < NBODIES; i++) {
        double ax = 0, ay = 0, az = 0;
        for (int j = 0; j < NBODIES; j++) {
            double dx = s->pos[j].x - s->pos[i].x;
            double dy = s->pos[j].y - s->pos[i].y;
            double dz = s->pos[j].z - s->pos[i].z;
            double d2 = dx * dx + dy * dy + dz * dz + SOFTENING;
            double inv = s->mass[j] / (d2 * sqrt(d2));
            ax += dx * inv;
            ay += dy * inv;
            az += dz * inv;
        }
        s->acc[i].x = ax;
        s->acc[i].y = ay;
        s->acc[i].z = az;
    }
}

static void step(system_t *s, double dt)
{
    for (int i = 0; i < NBODIES; i++) {
        s->vel[i].x += 0.5 * dt * s->acc[i].x;
        s->vel[i].y += 0.5 * dt * s->acc[i].y;
        s->vel[i].z += 0.5 * dt * s->acc[i].z;
        s->pos[i].x += dt * s->vel[i].x;
        s->pos[i].y += dt * s->vel[i].y;
        s->pos[i].z += dt * s->vel[i].z;
    }
    accelerations(s);
    for (int i = 0; i < NBODIES; i++) {
        s->vel[i].x += 0.5 * dt * s->acc[i].x;
        s->vel[i].y += 0.5 * dt * s->acc[i].y;
        s->vel[i].z += 0.5 * dt * s->acc[i].z;
    }
}

static double energy(const system_t *s)
{
    double e = 0;
    for (int i = 0; i < NBODIES; i++) {
        const vec3 *v = &s->vel[i];
        e += 0.5 * s->mass[i] * (v->x * v->x + v->y * v->y + v->z * v->z);
        for (int j = i + 1; j < NBODIES; j++) {
            double dx = s->pos[i].x - s->pos[j].x, dy = s->pos[i].y - s->pos[j].y,
                   dz = s->pos[i].z - s->pos[j].z;
            e -= s->mass[i] * s->mass[j] / sqrt(dx * dx + dy * dy + dz * dz + SOFTENING);
        }
    }
    return e;
}

static vec3 momentum(const system_t *s)
{
    vec3 p = {0, 0, 0};
    for (int i = 0; i < NBODIES; i++) {
        p.x += s->mass[i] * s->vel[i].x;
        p.y += s->mass[i] * s->vel[i].y;
        p.z += s->mass[i] * s->vel[i].z;
    }
    return p;
}

int main(void)
{
    system_t *s = malloc(sizeof *s);
    init(s);
    accelerations(s);
    double e0 = energy(s);
    vec3 p0 = momentum(s);
    for (int t = 0; t < STEPS; t++) {
        step(s, 0.001);
        if (t % 10 == 9)
            printf("step %2d energy %.6f\n", t + 1, energy(s));
    }
    vec3 p1 = momentum(s);
    printf("relative energy drift %.3e\n", fabs((energy(s) - e0) / e0) < 1e-3 ? 0.0 : 1.0);
    printf("momentum change %.3e\n", fabs(p1.x - p0.x) + fabs(p1.y - p0.y) + fabs(p1.z - p0.z) < 1e-9 ? 0.0 : 1.0);
    double cx = 0, cy = 0;
    for (int i = 0; i < NBODIES; i++) {
        cx += s->pos[i].x;
        cy += s->pos[i].y;
    }
    printf("centroid %.5f %.5f\n", cx / NBODIES, cy / NBODIES);
    free(s);
    return 0;
}
