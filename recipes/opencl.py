"""Run the parallel loop nests as OpenCL kernels (PoCL on the CPU here, any OpenCL device).

    passman run opencl app.c -o out --build --run          # kernels.cl beside the binary
    PASSMAN_ACCEL_STATS=1 PASSMAN_OPENCL_DEVICE=pthread ./out/app

The same mapping and transfers as the ``accel`` recipe (``gpu_ify``,
``kernel_load_store``); the ``opencl`` backend writes the kernels in OpenCL C
and the launches through the runtime's OpenCL implementation.

Library calls (CBLAS, FFTW) stay host calls: their brokers have no OpenCL
implementation, so ``libraries=device`` changes nothing here; the arrays their
stubs' regions name are made valid on the host around them.

Options: ``max_dims`` (default 3), ``transfers`` (``optimized`` or ``naive``), ``host``, ``promote``,
``libraries``, ``verbose`` (see the ``accel`` recipe).
"""

from __future__ import annotations

from .accel import accelerate

#: ``--build`` and ``--run`` use the OpenCL backend
BACKEND = "opencl"


def main(ws, max_dims: int = 3, verbose: bool = False, transfers: str = "optimized", host: str = "",
         promote: bool = True, libraries: str = "device") -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose, transfers, host, promote, libraries, "opencl")
