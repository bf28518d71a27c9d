/* Image filters on a grey-level picture: write it as a binary PGM file,
   read it back, blur, sharpen, edge-detect, threshold, and print
   histograms and checksums. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#define WIDTH 96
#define HEIGHT 64
#define MAXVAL 255

typedef struct {
    int width, height, maxval;
    unsigned char *pixels;
} image_t;

static image_t *image_new(int width, int height)
{
    image_t *img = malloc(sizeof *img);
    if (!img)
        return NULL;
    img->width = width;
    img->height = height;
    img->maxval = MAXVAL;
    img->pixels = calloc((size_t)width * height, 1);
    if (!img->pixels) {
        free(img);
        return NULL;
    }
    return img;
}

static void image_free(image_t *img)
{
    if (img) {
        free(img->pixels);
        free(img);
    }
}

static inline unsigned char clamp(int v)
{
    return v < 0 ? 0 : v > MAXVAL ? MAXVAL : (unsigned char)v;
}

static void synthesize(image_t *img)
{
    unsigned seed = 12345u;
    for (int y = 0; y < img->height; y++)
        for (int x = 0; x < img->width; x++) {
            seed = seed * 1103515245u + 12345u;
            int noise = (int)((seed >> 16) % 21) - 10;
            double r = hypot(x - img->width / 2.0, y - img->height / 2.0);
            int v = (int)(128 + 100 * cos(r / 6.0)) + noise;
            if ((x / 16 + y / 16) % 2 == 0)
                v += 20;
            img->pixels[y * img->width + x] = clamp(v);
        }
}

static int write_pgm(FILE *f, const image_t *img)
{
    if (fprintf(f, "P5\n# passman test image\n%d %d\n%d\n", img->width, img->height, img->maxval) < 0)
        return -1;
    size_t n = (size_t)img->width * img->height;
    return fwrite(img->pixels, 1, n, f) == n ? 0 : -1;
}

static void skip_comments(FILE *f)
{
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '#') {
            while ((c = fgetc(f)) != EOF && c != '\n')
                ;
        } else if (c != ' ' && c != '\n' && c != '\t' && c != '\r') {
            ungetc(c, f);
            return;
        }
    }
}

static image_t *read_pgm(FILE *f)
{
    char magic[3] = {0};
    int w, h, maxval;
    if (fread(magic, 1, 2, f) != 2 || strcmp(magic, "P5") != 0)
        return NULL;
    skip_comments(f);
    if (fscanf(f, "%d", &w) != 1)
        return NULL;
    skip_comments(f);
    if (fscanf(f, "%d", &h) != 1)
        return NULL;
    skip_comments(f);
    if (fscanf(f, "%d", &maxval) != 1 || maxval != MAXVAL)
        return NULL;
    fgetc(f);
    image_t *img = image_new(w, h);
    if (!img)
        return NULL;
    if (fread(img->pixels, 1, (size_t)w * h, f) != (size_t)w * h) {
        image_free(img);
        return NULL;
    }
    return img;
}

static void convolve3(const image_t *src, image_t *dst, const int k[3][3], int divisor, int bias)
{
    int w = src->width, h = src->height;
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            int acc = 0;
            for (int dy = -1; dy <= 1; dy++) {
                for (int dx = -1; dx <= 1; dx++) {
                    int yy = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
                    int xx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
                    acc += k[dy + 1][dx + 1] * src->pixels[yy * w + xx];
                }
            }
            dst->pixels[y * w + x] = clamp(acc / divisor + bias);
        }
    }
}

static void sobel(const image_t *src, image_t *dst)
{
    int w = src->width, h = src->height;
    memset(dst->pixels, 0, (size_t)w * h);
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const unsigned char *p = src->pixels + y * w + x;
            int gx = -p[-w - 1] - 2 * p[-1] - p[w - 1] + p[-w + 1] + 2 * p[1] + p[w + 1];
            int gy = -p[-w - 1] - 2 * p[-w] - p[-w + 1] + p[w - 1] + 2 * p[w] + p[w + 1];
            dst->pixels[y * w + x] = clamp((int)sqrt((double)(gx * gx + gy * gy)));
        }
}

static int otsu_threshold(const image_t *img, unsigned hist[256])
{
    size_t n = (size_t)img->width * img->height;
    memset(hist, 0, 256 * sizeof hist[0]);
    for (size_t i = 0; i < n; i++)
        hist[img->pixels[i]]++;
    double sum = 0;
    for (int t = 0; t < 256; t++)
        sum += (double)t * hist[t];
    double sumb = 0, best = -1;
    unsigned long wb = 0;
    int threshold = 0;
    for (int t = 0; t < 256; t++) {
        wb += hist[t];
        if (wb == 0)
            continue;
        unsigned long wf = n - wb;
        if (wf == 0)
            break;
        sumb += (double)t * hist[t];
        double mb = sumb / wb, mf = (sum - sumb) / wf;
        double between = (double)wb * wf * (mb - mf) * (mb - mf);
        if (between > best) {
            best = between;
            threshold = t;
        }
    }
    return threshold;
}

static unsigned long checksum(const image_t *img)
{
    unsigned long h = 5381;
    for (int i = 0; i < img->width * img->height; i++)
        h = h * 33 + img->pixels[i];
    return h;
}

int main(void)
{
    static const int blur[3][3] = {{1, 2, 1}, {2, 4, 2}, {1, 2, 1}};
    static const int sharpen[3][3] = {{0, -1, 0}, {-1, 5, -1}, {0, -1, 0}};
    image_t *img = image_new(WIDTH, HEIGHT);
    if (!img)
        return 1;
    synthesize(img);
    FILE *f = tmpfile();
    if (!f || write_pgm(f, img) != 0)
        return 2;
    rewind(f);
    image_t *in = read_pgm(f);
    fclose(f);
    if (!in)
        return 3;
    printf("read %dx%d, same=%d\n", in->width, in->height,
           memcmp(in->pixels, img->pixels, WIDTH * HEIGHT) == 0);
    image_t *tmp = image_new(WIDTH, HEIGHT), *out = image_new(WIDTH, HEIGHT);
    convolve3(in, tmp, blur, 16, 0);
    printf("blur     %lu\n", checksum(tmp));
    convolve3(tmp, out, sharpen, 1, 0);
    printf("sharpen  %lu\n", checksum(out));
    sobel(in, out);
    printf("sobel    %lu\n", checksum(out));
    unsigned hist[256];
    int t = otsu_threshold(in, hist);
    int above = 0;
    for (int i = 0; i < WIDTH * HEIGHT; i++)
        above += in->pixels[i] > t;
    printf("otsu threshold %d, %d pixels above\n", t, above);
    for (int b = 0; b < 8; b++) {
        unsigned s = 0;
        for (int i = 0; i < 32; i++)
            s += hist[b * 32 + i];
        printf("bin %d: %u\n", b, s);
    }
    image_free(img);
    image_free(in);
    image_free(tmp);
    image_free(out);
    return 0;
}
