/* One host function per test kernel; launch_emu.c, launch_opencl.c and launch_cuda.cu
   implement them the way the backends generate launchers. */
#ifndef LAUNCHERS_H
#define LAUNCHERS_H
#ifdef __cplusplus
extern "C" {
#endif
void run_add1d(void *a, long n);
void run_fill2d(void *a, long rows, long cols);
void run_fill3d(void *a, long nz, long ny, long nx);
void run_mark2d(void *flags, long gwidth, long e0, long e1);
void run_twice(void *out, void *in, long n);
void run_chain(void *out, long n);
void run_plus1(void *out, void *in, long n);
void run_poke(void *a, long n);
#ifdef __cplusplus
}
#endif
#endif
