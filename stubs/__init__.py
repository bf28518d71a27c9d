"""Library models shipped with passman (the ``libc`` headers and, later, brokers).

Registered through the ``passman.brokers`` entry point like any third-party
broker: importing this package makes its headers the ones user programs are
preprocessed against.
"""

from pathlib import Path

from passman.frontend import register_include_dir

INCLUDE_DIR = Path(__file__).resolve().parent / "include"

register_include_dir(INCLUDE_DIR)
