"""Run the parallel loop nests as CUDA kernels (compiled with nvcc; run where a GPU is).

    passman run cuda app.c -o out --build --run          # kernels.cu, compiled and linked with nvcc
    PASSMAN_ACCEL_STATS=1 ./out/app

The same mapping and transfers as the ``accel`` recipe (``gpu_ify``,
``kernel_load_store``); the ``cuda`` backend writes the kernels and their
launchers in ``kernels.cu`` (nvcc) and the host code in C, linked with the
runtime's CUDA implementation.

Options: ``max_dims`` (default 3), ``transfers`` (``optimized`` or ``naive``), ``host``, ``promote``,
``verbose`` (see the ``accel`` recipe).
"""

from __future__ import annotations

from .accel import accelerate

#: ``--build`` and ``--run`` use the OpenCL backend
BACKEND = "cuda"


def main(ws, max_dims: int = 3, verbose: bool = False, transfers: str = "optimized", host: str = "",
         promote: bool = True) -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose, transfers, host, promote)
