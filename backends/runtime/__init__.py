"""The accelerator runtime: C sources (passman_accel.h and its OpenMP-emulation, OpenCL and
CUDA implementations) that generated GPU programs compile with; shipped as package data.
See README.md in this folder."""
