"""Derive the single-precision stub files from the double-precision ones.

The FFTW and CBLAS stubs are written once, in double precision; the float
versions are the same code with the names and types renamed. Run
``python -m passman.stubs.precision`` after editing a double file; a test
checks that the committed single files are up to date.
"""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: double file -> (single file, ordered (pattern, replacement) regex rules)
DERIVED: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "fftw/fftw_double.c": ("fftw/fftw_single.c", [
        (r"\bfftw_", "fftwf_"),
        (r"__passman_fftw_", "__passman_fftwf_"),
        (r"\bdouble\b", "float"),
        (r"double precision", "single precision"),
        (r"float precision", "single precision"),
        (r"fftwf_set_timelimit\(float t\)", "fftwf_set_timelimit(double t)"),
    ]),
    "blas/cblas_double.c": ("blas/cblas_single.c", [
        (r"\bcblas_d", "cblas_s"),
        (r"\bcblas_idamax\b", "cblas_isamax"),
        (r"\bdouble\b", "float"),
        (r"\bsqrt\(", "sqrtf("),
        (r"\bfabs\(", "fabsf("),
        (r"float precision", "single precision"),
    ]),
}

HEADER = "/* Generated from {src} by passman/stubs/precision.py: edit that file instead. */\n"


def single_from_double(src: str) -> str:
    """The text of the single-precision file derived from ``src`` (a key of :data:`DERIVED`)."""
    _, rules = DERIVED[src]
    text = (HERE / src).read_text()
    for pattern, repl in rules:
        text = re.sub(pattern, repl, text)
    return HEADER.format(src=src) + text


def main() -> None:
    """Rewrite every derived single-precision file."""
    for src, (dst, _) in DERIVED.items():
        (HERE / dst).write_text(single_from_double(src))
        print(f"wrote {HERE / dst}")


if __name__ == "__main__":
    main()
