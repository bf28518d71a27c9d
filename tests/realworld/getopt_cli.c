/* A command-line tool with getopt_long: options choose a matrix size, a
   number of iterations, a method and verbosity; it runs a small power
   iteration and prints the dominant eigenvalue estimate. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum method { POWER, RAYLEIGH };

struct config {
    int n;
    int iterations;
    enum method method;
    int verbose;
    double shift;
    const char *label;
};

static void usage(const char *prog)
{
    fprintf(stderr, "usage: %s [-n SIZE] [-i ITER] [-m power|rayleigh] [-s SHIFT] [-v] [--label TEXT]\n",
            prog);
}

static int parse_args(int argc, char **argv, struct config *cfg)
{
    static const struct option longopts[] = {
        {"size", required_argument, NULL, 'n'},
        {"iterations", required_argument, NULL, 'i'},
        {"method", required_argument, NULL, 'm'},
        {"shift", required_argument, NULL, 's'},
        {"verbose", no_argument, NULL, 'v'},
        {"label", required_argument, NULL, 'l'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:i:m:s:vh", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            cfg->n = atoi(optarg);
            break;
        case 'i':
            cfg->iterations = atoi(optarg);
            break;
        case 'm':
            if (strcmp(optarg, "power") == 0)
                cfg->method = POWER;
            else if (strcmp(optarg, "rayleigh") == 0)
                cfg->method = RAYLEIGH;
            else
                return -1;
            break;
        case 's':
            cfg->shift = strtod(optarg, NULL);
            break;
        case 'v':
            cfg->verbose++;
            break;
        case 'l':
            cfg->label = optarg;
            break;
        case 'h':
        default:
            return -1;
        }
    }
    return optind;
}

static void build_matrix(double *a, int n, double shift)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i * n + j] = (i == j) ? 2.0 + shift : (abs(i - j) == 1 ? -1.0 : 0.0) + 1.0 / (1 + i + j);
}

static double normalize(double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * v[i];
    s = sqrt(s);
    for (int i = 0; i < n; i++)
        v[i] /= s;
    return s;
}

static void matvec(const double *a, const double *x, double *y, int n)
{
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += a[i * n + j] * x[j];
        y[i] = s;
    }
}

static double dot(const double *x, const double *y, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += x[i] * y[i];
    return s;
}

int main(int argc, char **argv)
{
    struct config cfg = {48, 60, POWER, 0, 0.0, "run"};
    char *defaults[] = {argv[0], "--size", "40", "-i", "80", "--method=rayleigh", "-v", "-s", "0.5",
                        "--label", "demo", "extra", NULL};
    if (argc == 1) {
        argc = 12;
        argv = defaults;
    }
    int first = parse_args(argc, argv, &cfg);
    if (first < 0 || cfg.n <= 0) {
        usage(argv[0]);
        return 2;
    }
    printf("%s: n=%d iterations=%d method=%s shift=%.2f verbose=%d operands=%d\n", cfg.label, cfg.n,
           cfg.iterations, cfg.method == POWER ? "power" : "rayleigh", cfg.shift, cfg.verbose,
           argc - first);
    double *a = malloc(sizeof(double) * cfg.n * cfg.n);
    double *x = malloc(sizeof(double) * cfg.n), *y = malloc(sizeof(double) * cfg.n);
    build_matrix(a, cfg.n, cfg.shift);
    for (int i = 0; i < cfg.n; i++)
        x[i] = 1.0 + (i % 3);
    normalize(x, cfg.n);
    double lambda = 0;
    for (int it = 0; it < cfg.iterations; it++) {
        matvec(a, x, y, cfg.n);
        lambda = cfg.method == POWER ? normalize(y, cfg.n) : dot(x, y, cfg.n);
        if (cfg.method == RAYLEIGH)
            normalize(y, cfg.n);
        double *t = x;
        x = y;
        y = t;
        if (cfg.verbose && it % 20 == 0)
            printf("  iteration %3d: %.6f\n", it, lambda);
    }
    printf("dominant eigenvalue ~ %.6f\n", lambda);
    free(a);
    free(x);
    free(y);
    return 0;
}
