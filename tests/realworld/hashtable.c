/* A chained hash table of strings to counts, with pluggable hash
   functions (function pointers), resizing, deletion and iteration. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint32_t (*hash_fn)(const char *key);

typedef struct entry {
    char *key;
    long value;
    struct entry *next;
} entry_t;

typedef struct {
    entry_t **buckets;
    size_t nbuckets;
    size_t count;
    hash_fn hash;
    unsigned long collisions;
} table_t;

static uint32_t hash_djb2(const char *s)
{
    uint32_t h = 5381;
    while (*s)
        h = ((h << 5) + h) + (unsigned char)*s++;
    return h;
}

static uint32_t hash_fnv1a(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 16777619u;
    }
    return h;
}

static uint32_t hash_sdbm(const char *s)
{
    uint32_t h = 0;
    int c;
    while ((c = (unsigned char)*s++))
        h = c + (h << 6) + (h << 16) - h;
    return h;
}

static char *dup_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static table_t *table_new(size_t nbuckets, hash_fn hash)
{
    table_t *t = calloc(1, sizeof *t);
    t->buckets = calloc(nbuckets, sizeof *t->buckets);
    t->nbuckets = nbuckets;
    t->hash = hash;
    return t;
}

static void table_resize(table_t *t, size_t nbuckets)
{
    entry_t **nb = calloc(nbuckets, sizeof *nb);
    for (size_t i = 0; i < t->nbuckets; i++) {
        entry_t *e = t->buckets[i];
        while (e) {
            entry_t *next = e->next;
            size_t j = t->hash(e->key) % nbuckets;
            e->next = nb[j];
            nb[j] = e;
            e = next;
        }
    }
    free(t->buckets);
    t->buckets = nb;
    t->nbuckets = nbuckets;
}

static entry_t *table_find(const table_t *t, const char *key)
{
    for (entry_t *e = t->buckets[t->hash(key) % t->nbuckets]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static void table_add(table_t *t, const char *key, long delta)
{
    entry_t *e = table_find(t, key);
    if (e) {
        e->value += delta;
        return;
    }
    if (t->count + 1 > t->nbuckets * 3 / 4)
        table_resize(t, t->nbuckets * 2 + 1);
    size_t i = t->hash(key) % t->nbuckets;
    if (t->buckets[i])
        t->collisions++;
    e = malloc(sizeof *e);
    e->key = dup_string(key);
    e->value = delta;
    e->next = t->buckets[i];
    t->buckets[i] = e;
    t->count++;
}

static int table_remove(table_t *t, const char *key)
{
    entry_t **pp = &t->buckets[t->hash(key) % t->nbuckets];
    for (; *pp; pp = &(*pp)->next)
        if (strcmp((*pp)->key, key) == 0) {
            entry_t *dead = *pp;
            *pp = dead->next;
            free(dead->key);
            free(dead);
            t->count--;
            return 1;
        }
    return 0;
}

static void table_foreach(const table_t *t, void (*fn)(const entry_t *, void *), void *ctx)
{
    for (size_t i = 0; i < t->nbuckets; i++)
        for (const entry_t *e = t->buckets[i]; e; e = e->next)
            fn(e, ctx);
}

static void table_free(table_t *t)
{
    for (size_t i = 0; i < t->nbuckets; i++) {
        entry_t *e = t->buckets[i];
        while (e) {
            entry_t *n = e->next;
            free(e->key);
            free(e);
            e = n;
        }
    }
    free(t->buckets);
    free(t);
}

struct stats {
    long total;
    long max;
    unsigned long keyhash;
};

static void accumulate(const entry_t *e, void *ctx)
{
    struct stats *s = ctx;
    s->total += e->value;
    if (e->value > s->max)
        s->max = e->value;
    s->keyhash ^= hash_fnv1a(e->key) * (unsigned long)e->value;
}

static void make_word(char *buf, unsigned n)
{
    static const char syll[][4] = {"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo"};
    buf[0] = '\0';
    int parts = 1 + n % 3;
    for (int i = 0; i < parts; i++) {
        strcat(buf, syll[(n >> (3 * i)) & 7]);
    }
}

int main(void)
{
    static const struct {
        const char *name;
        hash_fn fn;
    } hashes[] = {{"djb2", hash_djb2}, {"fnv1a", hash_fnv1a}, {"sdbm", hash_sdbm}};
    for (size_t h = 0; h < sizeof hashes / sizeof hashes[0]; h++) {
        table_t *t = table_new(7, hashes[h].fn);
        unsigned x = 17;
        char word[16];
        for (int i = 0; i < 3000; i++) {
            x = x * 69069u + 1u;
            make_word(word, (x >> 10) % 512);
            table_add(t, word, 1 + (long)(x % 3));
        }
        int removed = 0;
        for (unsigned n = 0; n < 512; n += 7) {
            make_word(word, n);
            removed += table_remove(t, word);
        }
        struct stats s = {0, 0, 0};
        table_foreach(t, accumulate, &s);
        entry_t *e = table_find(t, "kalo");
        printf("%-6s keys=%zu buckets=%zu removed=%d total=%ld max=%ld kalo=%ld sig=%lx\n",
               hashes[h].name, t->count, t->nbuckets, removed, s.total, s.max, e ? e->value : -1L,
               s.keyhash);
        table_free(t);
    }
    return 0;
}
