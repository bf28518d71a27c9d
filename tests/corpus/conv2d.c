/* conv2d: 2-D convolution of an image with a small 5x5 filter (4-deep loop nest,
   constant-size filter array, interior-only output). */
#include <stdio.h>
#include <stdlib.h>

#define H 300
#define W 320
#define K 5

static float img[H][W];
static float out[H][W];
static const float filt[K][K] = {
    { 1.0f, 4.0f, 6.0f, 4.0f, 1.0f },
    { 4.0f, 16.0f, 24.0f, 16.0f, 4.0f },
    { 6.0f, 24.0f, 36.0f, 24.0f, 6.0f },
    { 4.0f, 16.0f, 24.0f, 16.0f, 4.0f },
    { 1.0f, 4.0f, 6.0f, 4.0f, 1.0f }
};

static void init_image(int h, int w, float im[h][w])
{
    int i, j;
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++)
            im[i][j] = (float)((i * 3 + j * 7) % 256) / 255.0f;
}

static void conv2d(int h, int w, float in[h][w], float o[h][w], const float f[K][K])
{
    int i, j, di, dj;
    const int r = K / 2;
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++)
            o[i][j] = 0.0f;
    for (i = r; i < h - r; i++)
        for (j = r; j < w - r; j++) {
            float acc = 0.0f;
            for (di = 0; di < K; di++)
                for (dj = 0; dj < K; dj++)
                    acc += f[di][dj] * in[i + di - r][j + dj - r];
            o[i][j] = acc / 256.0f;
        }
}

int main(void)
{
    double s = 0.0;
    init_image(H, W, img);
    conv2d(H, W, img, out, filt);
    for (int i = 0; i < H; i++)
        for (int j = 0; j < W; j++)
            s += out[i][j];
    printf("%.4f\n", s / (H * W));
    return 0;
}
