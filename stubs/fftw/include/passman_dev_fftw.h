/* Device entry points of FFTW's new-array execute functions (the fftw
   broker): the plan is the host's, the arrays device addresses
   (kernel_data_mapping resolves them to the buffers it keeps on the device,
   and runs fftw_execute(p) as the new-array execution of p on the device
   copies of the arrays p captured). cuda: cuda/fftw_cufft.cu runs cuFFT on
   them; cpu (the accelerator runtime's emulation): fftw_device_double.c and
   fftw_device_single.c run FFTW on the emulated buffers. */
#ifndef PASSMAN_DEV_FFTW_H
#define PASSMAN_DEV_FFTW_H

#include <fftw3.h>

void passman_dev_fftw_execute_dft(const fftw_plan, fftw_complex *, fftw_complex *);
void passman_dev_fftw_execute_dft_r2c(const fftw_plan, double *, fftw_complex *);
void passman_dev_fftw_execute_dft_c2r(const fftw_plan, fftw_complex *, double *);
void passman_dev_fftwf_execute_dft(const fftwf_plan, fftwf_complex *, fftwf_complex *);
void passman_dev_fftwf_execute_dft_r2c(const fftwf_plan, float *, fftwf_complex *);
void passman_dev_fftwf_execute_dft_c2r(const fftwf_plan, fftwf_complex *, float *);

#endif
