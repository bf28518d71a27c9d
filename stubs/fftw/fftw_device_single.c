/* Device entry points of FFTW's new-array execute functions, single precision
   (passman_dev_fftwf_execute_dft*), as the fftw broker's stubs and as their
   implementation on the accelerator runtime's emulation.

   kernel_data_mapping runs an FFTW execution between kernels as a *library
   launch* on the device copies of the plan's arrays. On the emulation
   (target cpu) a device buffer is host memory: each entry point is FFTW's
   new-array execution on it (compiled as it is, with the real <fftw3.h>).
   FFTW asks the new arrays to be aligned as the plan's: a device buffer is
   64-byte aligned and an address in it has the host address's offset in its
   array, so they agree for the arrays the pass resolves (declared arrays of
   16 bytes or more and allocated memory are 16-byte aligned). For the
   analyses the bodies say what the entry point does to memory: what the
   new-array execution does. On cuda: cuda/fftw_cufft.cu (cuFFT, no copy). */
#include <fftw3.h>
#include <passman_dev_fftw.h>

void passman_dev_fftwf_execute_dft(const fftwf_plan p, fftwf_complex *in, fftwf_complex *out)
{
    fftwf_execute_dft(p, in, out);
}

void passman_dev_fftwf_execute_dft_r2c(const fftwf_plan p, float *in, fftwf_complex *out)
{
    fftwf_execute_dft_r2c(p, in, out);
}

void passman_dev_fftwf_execute_dft_c2r(const fftwf_plan p, fftwf_complex *in, float *out)
{
    fftwf_execute_dft_c2r(p, in, out);
}
