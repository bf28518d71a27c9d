"""Run the parallel loop nests as CUDA kernels (compiled with nvcc; run where a GPU is).

    passman run cuda app.c -o out --build --run          # kernels.cu, compiled and linked with nvcc
    PASSMAN_ACCEL_STATS=1 ./out/app

The same mapping and transfers as the ``accel`` recipe (``gpu_ify``,
``kernel_data_mapping``, or ``kernel_load_store`` with ``transfers=naive``);
the ``cuda`` backend writes the kernels and their launchers in ``kernels.cu``
(nvcc; a grid larger than the device's ``maxGridSize`` runs as strips) and the
host code in C, linked with the runtime's CUDA implementation.

Library calls stay host calls: the arrays their stubs' regions name are made
valid on the host before them (and moved back to the device after them where
a kernel needs what they write); on the ``cuda`` target the build links the
brokers' CUDA implementations (BLAS on cuBLAS, ``-lcublas``; FFTW on cuFFT,
``-lcufft``), which move the operands of each call to the GPU and back. Running
the call on the device buffers the mapping already holds is not done yet.

Options: ``max_dims`` (default 3), ``transfers`` (``optimized`` or ``naive``), ``host``, ``promote``,
``verbose`` (see the ``accel`` recipe).
"""

from __future__ import annotations

from .accel import accelerate

#: ``--build`` and ``--run`` use the CUDA backend
BACKEND = "cuda"


def main(ws, max_dims: int = 3, verbose: bool = False, transfers: str = "optimized", host: str = "",
         promote: bool = True) -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose, transfers, host, promote)
