/* Every modelled CBLAS routine in every storage order, transposition,
   triangle, side and diagonal kind, with positive and negative increments.
   Compiled once against passman's stubs (stubs/blas/cblas_*.c) and once
   against the real BLAS: the outputs must agree, which checks that the stub
   bodies (whose accesses the analyses read) compute what the BLAS computes. */
#include <stdio.h>
#include <cblas.h>

#define S 7 /* matrices are up to S x S, stored with leading dimension LD */
#define LD 9

static double A[LD * LD], B[LD * LD], C[LD * LD], x[3 * LD], y[3 * LD];
static float fa[LD * LD], fb[LD * LD], fc[LD * LD], fx[3 * LD], fy[3 * LD];

static void fill(void)
{
    for (int i = 0; i < LD * LD; i++) {
        A[i] = ((i * 7) % 11) / 11.0 - 0.3;
        B[i] = ((i * 5) % 13) / 13.0;
        C[i] = ((i * 3) % 7) / 7.0 - 0.5;
        fa[i] = (float) A[i];
        fb[i] = (float) B[i];
        fc[i] = (float) C[i];
    }
    for (int i = 0; i < LD; i++) /* well-conditioned triangles for the solves */
        A[i * LD + i] = fa[i * LD + i] = 4.0f + i;
    for (int i = 0; i < 3 * LD; i++) {
        x[i] = fx[i] = (float) ((i % 5) - 2);
        y[i] = fy[i] = (float) (i % 3) * 0.5f;
    }
}

static double sum(const double *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * (1 + i % 5);
    return s;
}

static double fsum(const float *v, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += v[i] * (1 + i % 5);
    return s;
}

int main(void)
{
    static const enum CBLAS_ORDER orders[] = {CblasRowMajor, CblasColMajor};
    static const enum CBLAS_TRANSPOSE trans[] = {CblasNoTrans, CblasTrans};
    static const enum CBLAS_UPLO uplos[] = {CblasUpper, CblasLower};
    static const enum CBLAS_SIDE sides[] = {CblasLeft, CblasRight};
    static const enum CBLAS_DIAG diags[] = {CblasNonUnit, CblasUnit};
    static const int incs[] = {1, 2, -1, -3};

    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) {
            int ix = incs[a], iy = incs[b];
            fill();
            cblas_daxpy(S, 0.75, x, ix, y, iy);
            cblas_dswap(S - 2, x, ix, y, iy);
            cblas_dcopy(S - 1, y, iy, x, ix);
            printf("l1 %d %d: %.10g %.10g %.10g\n", ix, iy, cblas_ddot(S, x, ix, y, iy),
                   sum(x, 3 * LD), sum(y, 3 * LD));
            fill();
            cblas_saxpy(S, 0.75f, fx, ix, fy, iy);
            printf("l1f %d %d: %.4f %.4f\n", ix, iy, cblas_sdot(S, fx, ix, fy, iy),
                   fsum(fy, 3 * LD));
        }
    for (int a = 0; a < 2; a++) {
        fill();
        cblas_dscal(S, -1.5, x, incs[a]);
        printf("scal %d: %.10g %.10g %.10g %zu\n", incs[a], sum(x, 3 * LD),
               cblas_dnrm2(S, x, incs[a]), cblas_dasum(S, x, incs[a]),
               (size_t) cblas_idamax(S, x, incs[a]));
        printf("scalf %d: %.4f %.4f %zu\n", incs[a], cblas_snrm2(S, fx, incs[a]),
               cblas_sasum(S, fx, incs[a]), (size_t) cblas_isamax(S, fx, incs[a]));
    }
    for (int o = 0; o < 2; o++) {
        for (int t = 0; t < 2; t++) {
            fill();
            cblas_dgemv(orders[o], trans[t], S, S - 2, 1.25, A, LD, x, 2, 0.5, y, -1);
            printf("gemv %d %d: %.10g\n", o, t, sum(y, 3 * LD));
        }
        fill();
        cblas_dger(orders[o], S, S - 3, -0.5, x, 1, y, 2, A, LD);
        printf("ger %d: %.10g\n", o, sum(A, LD * LD));
        for (int u = 0; u < 2; u++) {
            fill();
            cblas_dsymv(orders[o], uplos[u], S, 2.0, A, LD, x, 1, 0.0, y, 2);
            printf("symv %d %d: %.10g\n", o, u, sum(y, 3 * LD));
            for (int t = 0; t < 2; t++)
                for (int d = 0; d < 2; d++) {
                    fill();
                    cblas_dtrsv(orders[o], uplos[u], trans[t], diags[d], S, A, LD, x, -2);
                    printf("trsv %d %d %d %d: %.10g\n", o, u, t, d, sum(x, 3 * LD));
                }
        }
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++) {
                fill();
                cblas_dgemm(orders[o], trans[ta], trans[tb], S, S - 1, S - 2, 0.5, A, LD, B, LD,
                            -1.0, C, LD);
                printf("gemm %d %d %d: %.10g\n", o, ta, tb, sum(C, LD * LD));
                fill();
                cblas_sgemm(orders[o], trans[ta], trans[tb], S, S - 1, S - 2, 0.5f, fa, LD, fb,
                            LD, -1.0f, fc, LD);
                printf("sgemm %d %d %d: %.3f\n", o, ta, tb, fsum(fc, LD * LD));
            }
        for (int s = 0; s < 2; s++)
            for (int u = 0; u < 2; u++) {
                fill();
                cblas_dsymm(orders[o], sides[s], uplos[u], S, S - 2, 1.5, A, LD, B, LD, 0.25, C,
                            LD);
                printf("symm %d %d %d: %.10g\n", o, s, u, sum(C, LD * LD));
                for (int t = 0; t < 2; t++)
                    for (int d = 0; d < 2; d++) {
                        fill();
                        cblas_dtrsm(orders[o], sides[s], uplos[u], trans[t], diags[d], S, S - 2,
                                    2.0, A, LD, B, LD);
                        printf("trsm %d %d %d %d %d: %.10g\n", o, s, u, t, d, sum(B, LD * LD));
                    }
            }
        for (int u = 0; u < 2; u++)
            for (int t = 0; t < 2; t++) {
                fill();
                cblas_dsyrk(orders[o], uplos[u], trans[t], S, S - 3, 0.5, A, LD, 2.0, C, LD);
                printf("syrk %d %d %d: %.10g\n", o, u, t, sum(C, LD * LD));
            }
    }
    return 0;
}
