/* A logging library with variadic functions: printf-style messages into
   a ring buffer, a hand-written formatter that walks va_arg, forwarding
   with va_copy, and summary statistics. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum level { DEBUG, INFO, WARN, ERROR };

#define RING 16
#define LINE 96

typedef struct {
    char lines[RING][LINE];
    int head;
    int count[4];
    unsigned long bytes;
} logger_t;

static const char *level_names[] = {"debug", "info", "warn", "error"};

static void vlog_msg(logger_t *lg, enum level lvl, const char *fmt, va_list ap)
{
    char *dst = lg->lines[lg->head];
    int n = snprintf(dst, LINE, "[%s] ", level_names[lvl]);
    va_list copy;
    va_copy(copy, ap);
    int m = vsnprintf(dst + n, LINE - n, fmt, copy);
    va_end(copy);
    lg->bytes += (unsigned long)(n + m);
    lg->count[lvl]++;
    lg->head = (lg->head + 1) % RING;
}

static void log_msg(logger_t *lg, enum level lvl, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog_msg(lg, lvl, fmt, ap);
    va_end(ap);
}

/* A tiny formatter: %d %u %s %c %x %f and %%. Returns the length written. */
static int format(char *out, size_t cap, const char *fmt, ...)
{
    va_list ap;
    size_t n = 0;
    va_start(ap, fmt);
    for (const char *p = fmt; *p && n + 1 < cap; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        char tmp[40];
        int k = 0;
        switch (*++p) {
        case 'd':
            k = snprintf(tmp, sizeof tmp, "%d", va_arg(ap, int));
            break;
        case 'u':
            k = snprintf(tmp, sizeof tmp, "%u", va_arg(ap, unsigned));
            break;
        case 'x':
            k = snprintf(tmp, sizeof tmp, "%x", va_arg(ap, unsigned));
            break;
        case 'c':
            tmp[0] = (char)va_arg(ap, int);
            k = 1;
            break;
        case 'f':
            k = snprintf(tmp, sizeof tmp, "%.3f", va_arg(ap, double));
            break;
        case 's': {
            const char *s = va_arg(ap, const char *);
            k = snprintf(tmp, sizeof tmp, "%s", s ? s : "(null)");
            break;
        }
        case '%':
            tmp[0] = '%';
            k = 1;
            break;
        default:
            tmp[0] = '?';
            k = 1;
            p--;
            break;
        }
        for (int i = 0; i < k && n + 1 < cap; i++)
            out[n++] = tmp[i];
    }
    va_end(ap);
    out[n] = '\0';
    return (int)n;
}

static double average(int count, ...)
{
    va_list ap;
    double s = 0;
    va_start(ap, count);
    for (int i = 0; i < count; i++)
        s += va_arg(ap, double);
    va_end(ap);
    return count ? s / count : 0.0;
}

static long max_of(int count, ...)
{
    va_list ap;
    va_start(ap, count);
    long best = va_arg(ap, long);
    for (int i = 1; i < count; i++) {
        long v = va_arg(ap, long);
        if (v > best)
            best = v;
    }
    va_end(ap);
    return best;
}

int main(void)
{
    logger_t *lg = calloc(1, sizeof *lg);
    for (int i = 0; i < 40; i++) {
        enum level lvl = (enum level)(i % 7 == 0 ? ERROR : i % 3 == 0 ? WARN : i % 2 ? INFO : DEBUG);
        log_msg(lg, lvl, "event %d value %.2f tag %s", i, i * 1.25, i % 2 ? "odd" : "even");
    }
    for (int i = 0; i < 4; i++)
        printf("%-5s %d\n", level_names[i], lg->count[i]);
    printf("bytes %lu\n", lg->bytes);
    for (int i = 0; i < 3; i++)
        printf("ring[%d] %s\n", (lg->head + RING - 1 - i) % RING, lg->lines[(lg->head + RING - 1 - i) % RING]);
    char buf[128];
    int n = format(buf, sizeof buf, "id=%d hex=%x ch=%c pi=%f name=%s %% %u", -42, 48879u, 'Z', 3.14159,
                   "passman", 7u);
    printf("%s (%d)\n", buf, n);
    printf("average %.4f\n", average(5, 1.0, 2.5, 3.25, 4.0, 10.0));
    printf("max %ld\n", max_of(6, 3L, -7L, 99L, 12L, 98L, 0L));
    free(lg);
    return 0;
}
