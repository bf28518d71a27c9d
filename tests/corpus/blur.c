/* blur: separable 2-D Gaussian blur, a 7-tap filter along the rows then along
   the columns (5 taps on the half-size level), edges clamped, on an image and on its half-size copy (a two-level
   pyramid): 1-D malloc'd images indexed y * w + x with w a parameter that takes two
   values (the pixel loops are not provably parallel), and a short tap loop that
   is a reduction inside the pixel loops (parallel, but never worth a region). */
#include <stdio.h>
#include <stdlib.h>

#define H 480
#define W 640
#define R 3

static int clamp(int v, int lo, int hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

static void init_image(int h, int w, float *im)
{
    int x, y;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++)
            im[y * w + x] = (float)((x * 7 + y * 13) % 256) / 255.0f;
}

static void blur_rows(int h, int w, int r, const float *in, float *out, const float *wt)
{
    int x, y, k;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            float s = 0.0f;
            for (k = -r; k <= r; k++)
                s += wt[k + r] * in[y * w + clamp(x + k, 0, w - 1)];
            out[y * w + x] = s;
        }
}

static void blur_columns(int h, int w, int r, const float *in, float *out, const float *wt)
{
    int x, y, k;
    for (y = 0; y < h; y++)
        for (x = 0; x < w; x++) {
            float s = 0.0f;
            for (k = -r; k <= r; k++)
                s += wt[k + r] * in[clamp(y + k, 0, h - 1) * w + x];
            out[y * w + x] = s;
        }
}

int main(void)
{
    static const float wt[2 * R + 1] = { 1.0f, 6.0f, 15.0f, 20.0f, 15.0f, 6.0f, 1.0f };
    float *img = malloc(sizeof(float) * H * W);
    float *tmp = malloc(sizeof(float) * H * W);
    float *res = malloc(sizeof(float) * H * W);
    double s = 0.0;
    int i;
    if (img == NULL || tmp == NULL || res == NULL)
        return 1;
    init_image(H, W, img);
    blur_rows(H, W, R, img, tmp, wt);
    blur_columns(H, W, R, tmp, res, wt);
    for (i = 0; i < H / 2 * (W / 2); i++)      /* the half-size level */
        img[i] = res[(i / (W / 2)) * 2 * W + (i % (W / 2)) * 2];
    blur_rows(H / 2, W / 2, R - 1, img, tmp, wt + 1);     /* 5 taps */
    blur_columns(H / 2, W / 2, R - 1, tmp, img, wt + 1);
    for (i = 0; i < H * W; i++)
        s += res[i];
    printf("%.4f %.4f\n", s / (H * W) / 64.0, res[(H / 2) * W + W / 3] / 64.0);
    s = 0.0;
    for (i = 0; i < H / 2 * (W / 2); i++)
        s += img[i];
    printf("%.4f %.4f\n", s / (H / 2 * (W / 2)) / 1024.0, img[(H / 4) * (W / 2) + W / 6] / 1024.0);
    free(img);
    free(tmp);
    free(res);
    return 0;
}
