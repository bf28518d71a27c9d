/* CSV parsing: generate a sales table as CSV text, parse it back with
   quoted fields, aggregate per region and product, sort, and report. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 8
#define MAX_ROWS 400
#define NREGIONS 5

typedef struct {
    char region[16];
    char product[24];
    int quantity;
    double price;
    int day;
} record_t;

typedef struct {
    const char *name;
    int orders;
    long units;
    double revenue;
} summary_t;

static const char *regions[NREGIONS] = {"north", "south", "east", "west", "central"};
static const char *products[] = {"widget", "gadget, large", "gizmo \"pro\"", "doohickey"};

static unsigned long lcg(unsigned long *s)
{
    *s = *s * 6364136223846793005UL + 1442695040888963407UL;
    return *s >> 33;
}

static size_t quote_field(char *out, size_t cap, const char *field)
{
    int needs = strpbrk(field, ",\"\n") != NULL;
    size_t n = 0;
    if (needs && n < cap)
        out[n++] = '"';
    for (const char *p = field; *p && n + 2 < cap; p++) {
        if (*p == '"')
            out[n++] = '"';
        out[n++] = *p;
    }
    if (needs && n < cap)
        out[n++] = '"';
    out[n] = '\0';
    return n;
}

static char *generate_csv(int rows)
{
    size_t cap = 64 + (size_t)rows * 96;
    char *buf = malloc(cap);
    size_t len = (size_t)snprintf(buf, cap, "region,product,quantity,price,day\n");
    unsigned long seed = 2024;
    for (int i = 0; i < rows; i++) {
        char q[64];
        const char *prod = products[lcg(&seed) % 4];
        quote_field(q, sizeof q, prod);
        len += (size_t)snprintf(buf + len, cap - len, "%s,%s,%lu,%lu.%02lu,%lu\n",
                                regions[lcg(&seed) % NREGIONS], q, 1 + lcg(&seed) % 20,
                                1 + lcg(&seed) % 99, lcg(&seed) % 100, 1 + lcg(&seed) % 365);
    }
    return buf;
}

/* Split one CSV line into fields (in place); returns the number of fields or -1. */
static int split_line(char *line, char *fields[], int max)
{
    int n = 0;
    char *p = line;
    while (n < max) {
        if (*p == '"') {
            char *w = ++p;
            fields[n++] = w;
            for (;;) {
                if (*p == '\0')
                    return -1;
                if (*p == '"') {
                    if (p[1] == '"') {
                        *w++ = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                *w++ = *p++;
            }
            *w = '\0';
        } else {
            fields[n++] = p;
            while (*p && *p != ',')
                p++;
        }
        if (*p == ',') {
            *p++ = '\0';
            continue;
        }
        if (*p == '\0')
            return n;
        *p = '\0';
        return n;
    }
    return -1;
}

static int parse_record(char *line, record_t *r)
{
    char *f[MAX_FIELDS];
    if (split_line(line, f, MAX_FIELDS) != 5)
        return -1;
    char *end;
    errno = 0;
    long q = strtol(f[2], &end, 10);
    if (errno || *end)
        return -1;
    double price = strtod(f[3], &end);
    if (*end)
        return -1;
    snprintf(r->region, sizeof r->region, "%s", f[0]);
    snprintf(r->product, sizeof r->product, "%s", f[1]);
    r->quantity = (int)q;
    r->price = price;
    r->day = atoi(f[4]);
    return 0;
}

static int by_revenue(const void *a, const void *b)
{
    const summary_t *x = a, *y = b;
    if (x->revenue != y->revenue)
        return x->revenue < y->revenue ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    char *csv = generate_csv(MAX_ROWS);
    record_t *recs = malloc(MAX_ROWS * sizeof *recs);
    int nrec = 0, bad = 0, lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(csv, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (lineno++ == 0)
            continue; /* header */
        if (parse_record(line, &recs[nrec]) == 0)
            nrec++;
        else
            bad++;
    }
    printf("parsed %d records, %d bad\n", nrec, bad);

    summary_t sum[NREGIONS];
    for (int r = 0; r < NREGIONS; r++)
        sum[r] = (summary_t){regions[r], 0, 0, 0.0};
    double *prices = malloc(nrec * sizeof *prices);
    for (int i = 0; i < nrec; i++) {
        prices[i] = recs[i].price;
        for (int r = 0; r < NREGIONS; r++)
            if (strcmp(recs[i].region, regions[r]) == 0) {
                sum[r].orders++;
                sum[r].units += recs[i].quantity;
                sum[r].revenue += recs[i].quantity * recs[i].price;
            }
    }
    qsort(sum, NREGIONS, sizeof sum[0], by_revenue);
    for (int r = 0; r < NREGIONS; r++)
        printf("%-8s %4d orders %6ld units %12.2f\n", sum[r].name, sum[r].orders, sum[r].units,
               sum[r].revenue);
    qsort(prices, nrec, sizeof *prices, by_double);
    printf("median price %.2f, min %.2f, max %.2f\n", prices[nrec / 2], prices[0], prices[nrec - 1]);
    int quoted = 0;
    for (int i = 0; i < nrec; i++)
        quoted += strchr(recs[i].product, ',') != NULL || strchr(recs[i].product, '"') != NULL;
    int upper = 0;
    for (int i = 0; i < nrec; i++)
        upper += toupper((unsigned char)recs[i].region[0]) == 'N';
    printf("%d products with quotes or commas, %d northern\n", quoted, upper);
    free(prices);
    free(recs);
    free(csv);
    return 0;
}
