"""Library models shipped with passman: the libc headers and the built-in brokers.

Registered through the ``passman.brokers`` entry point like any third-party
broker: importing this package makes ``include/`` the folder of headers user
programs are preprocessed against, and registers one declarative broker per
``<feature>/manifest.toml`` (libc, math, fftw, blas).
"""

from pathlib import Path

from passman.brokers import register_manifests
from passman.frontend import register_include_dir

HERE = Path(__file__).resolve().parent
INCLUDE_DIR = HERE / "include"

register_include_dir(INCLUDE_DIR)
register_manifests(HERE, skip_existing=True)
