/* A pool of pthread workers pulling chunks of work from a shared queue,
   each computing a partial histogram and a partial sum; results are merged
   under a mutex, and a barrier-like condition variable ends the run. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NWORKERS 4
#define NITEMS 20000
#define CHUNK 500
#define NBINS 16

typedef struct {
    const unsigned *data;
    int next;
    int done_workers;
    long long total;
    unsigned long hist[NBINS];
    pthread_mutex_t lock;
    pthread_cond_t all_done;
} shared_t;

typedef struct {
    shared_t *shared;
    int id;
    int chunks;
} worker_arg_t;

static int take_chunk(shared_t *s, int *begin, int *end)
{
    int ok = 0;
    pthread_mutex_lock(&s->lock);
    if (s->next < NITEMS) {
        *begin = s->next;
        *end = s->next + CHUNK < NITEMS ? s->next + CHUNK : NITEMS;
        s->next = *end;
        ok = 1;
    }
    pthread_mutex_unlock(&s->lock);
    return ok;
}

static void *worker(void *p)
{
    worker_arg_t *arg = p;
    shared_t *s = arg->shared;
    int begin, end;
    while (take_chunk(s, &begin, &end)) {
        unsigned long local[NBINS] = {0};
        long long sum = 0;
        for (int i = begin; i < end; i++) {
            unsigned v = s->data[i];
            local[v % NBINS]++;
            sum += v % 1000;
        }
        pthread_mutex_lock(&s->lock);
        for (int b = 0; b < NBINS; b++)
            s->hist[b] += local[b];
        s->total += sum;
        pthread_mutex_unlock(&s->lock);
        arg->chunks++;
    }
    pthread_mutex_lock(&s->lock);
    s->done_workers++;
    if (s->done_workers == NWORKERS)
        pthread_cond_broadcast(&s->all_done);
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

int main(void)
{
    unsigned *data = malloc(NITEMS * sizeof *data);
    unsigned x = 1;
    for (int i = 0; i < NITEMS; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[i] = x;
    }
    shared_t s;
    memset(&s, 0, sizeof s);
    s.data = data;
    pthread_mutex_init(&s.lock, NULL);
    pthread_cond_init(&s.all_done, NULL);
    pthread_t threads[NWORKERS];
    worker_arg_t args[NWORKERS];
    for (int i = 0; i < NWORKERS; i++) {
        args[i] = (worker_arg_t){&s, i, 0};
        if (pthread_create(&threads[i], NULL, worker, &args[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    pthread_mutex_lock(&s.lock);
    while (s.done_workers < NWORKERS)
        pthread_cond_wait(&s.all_done, &s.lock);
    pthread_mutex_unlock(&s.lock);
    int chunks = 0;
    for (int i = 0; i < NWORKERS; i++) {
        pthread_join(threads[i], NULL);
        chunks += args[i].chunks;
    }
    printf("chunks %d, total %lld\n", chunks, s.total);
    unsigned long check = 0;
    for (int b = 0; b < NBINS; b++) {
        printf("bin %2d %lu\n", b, s.hist[b]);
        check += s.hist[b];
    }
    long long serial = 0;
    for (int i = 0; i < NITEMS; i++)
        serial += data[i] % 1000;
    printf("items %lu, serial total matches: %d\n", check, serial == s.total);
    pthread_cond_destroy(&s.all_done);
    pthread_mutex_destroy(&s.lock);
    free(data);
    return 0;
}
