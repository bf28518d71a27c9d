/* passman_accel_cl.h: the kernel dialect of passman_accel.h in OpenCL C 1.2.
   Pasted at the top of a generated .cl file (or #included: the runtime builds a .cl
   file with -I <its folder>). */
#ifndef PASSMAN_ACCEL_CL_H
#define PASSMAN_ACCEL_CL_H
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define PASSMAN_KERNEL __kernel
#define PASSMAN_GLOBAL __global
#define PASSMAN_DEVICE
#define PASSMAN_INDEX(d) ((long) get_global_id(d))
#endif
