"""Run the parallel loop nests as CUDA kernels (compiled with nvcc; run where a GPU is).

    passman run cuda app.c -o out --build --run          # kernels.cu, compiled and linked with nvcc
    PASSMAN_ACCEL_STATS=1 ./out/app

The same mapping and transfers as the ``accel`` recipe (``gpu_ify``,
``kernel_data_mapping``, or ``kernel_load_store`` with ``transfers=naive``);
the ``cuda`` backend writes the kernels and their launchers in ``kernels.cu``
(nvcc; a grid larger than the device's ``maxGridSize`` runs as strips) and the
host code in C, linked with the runtime's CUDA implementation.

Library calls between kernels run on the device buffers the mapping already
holds (``libraries=device``, the default): ``kernel_data_mapping`` treats a
CBLAS call or an FFTW execution like a kernel launch whose IN and OUT are its
stub's read and write regions, and calls the broker's device entry point on
the arrays' device addresses (``passman_dev_cblas_dgemm`` on cuBLAS,
``passman_dev_fftw_execute_dft`` on cuFFT: ``-lcublas``, ``-lcufft``), so
nothing moves around the call unless the host uses the data. A call the pass
cannot prove (an argument it cannot resolve to an array of known size, a call
inside an expression, a plan it cannot trace) stays a host call, as with
``libraries=host``: the arrays its stub's regions name are made valid on the
host before it (and moved back to the device after it where a kernel needs
what it writes), and the brokers' CUDA implementations move the operands of
each call to the GPU and back.

Options: ``max_dims`` (default 3), ``transfers`` (``optimized`` or ``naive``), ``host``, ``promote``,
``libraries`` (``device`` or ``host``), ``verbose`` (see the ``accel`` recipe).
"""

from __future__ import annotations

from .accel import accelerate

#: ``--build`` and ``--run`` use the CUDA backend
BACKEND = "cuda"


def main(ws, max_dims: int = 3, verbose: bool = False, transfers: str = "optimized", host: str = "",
         promote: bool = True, libraries: str = "device") -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose, transfers, host, promote, libraries, "cuda")
