"""Built-in backends, registered through the ``passman.backends`` entry point."""

from passman.registry import register_backend

from .accel_omp import AccelEmulationBackend
from .cuda import CUDABackend
from .opencl import OpenCLBackend
from .openmp import OpenMPBackend
from .sequential import SequentialBackend

register_backend("c", SequentialBackend)
register_backend("openmp", OpenMPBackend)
register_backend("accel", AccelEmulationBackend)
register_backend("opencl", OpenCLBackend)
register_backend("cuda", CUDABackend)
