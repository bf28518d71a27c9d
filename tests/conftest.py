"""Shared fixtures: the corpus, small C programs written to tmp_path."""

from __future__ import annotations

from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "corpus"


def corpus_programs() -> list[list[Path]]:
    """Every corpus program as a list of its source files (one-file or a folder of units).

    ``fuzz/`` is not a program: it holds the fuzzer's shrunk regression programs
    (``tests/test_fuzz.py`` runs them).
    """
    progs = [[p] for p in sorted(CORPUS.glob("*.c"))]
    for d in sorted(p for p in CORPUS.iterdir() if p.is_dir() and p.name != "fuzz"):
        progs.append(sorted(d.glob("*.c")))
    return progs


def program_id(files: list[Path]) -> str:
    """A readable test id for a program."""
    return files[0].stem if len(files) == 1 else files[0].parent.name


@pytest.fixture
def write_c(tmp_path):
    """``write_c(code, name="t.c")`` writes a C file into tmp_path and returns its path."""

    def write(code: str, name: str = "t.c") -> Path:
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(code)
        return p

    return write
