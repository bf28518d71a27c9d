/* Device entry points of FFTW's new-array execute functions, single precision
   (passman_dev_fftwf_execute_dft*): fftw_device_double.c's, for fftwf plans (the
   broker links this file and -lfftw3f only for programs that use them). */
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
