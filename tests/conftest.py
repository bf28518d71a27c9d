"""Shared fixtures: the corpus, small C programs written to tmp_path."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parent / "corpus"

#: C: ``threads_seen()`` prints the process's ``Threads:`` line of /proc/self/status on stderr (libgomp
#: keeps its team until the end: how many threads a run started); needs stdio.h and string.h
THREADS_SEEN_C = r"""
static void threads_seen(void)
{
    char line[256];
    FILE *f = fopen("/proc/self/status", "r");
    while (f != NULL && fgets(line, sizeof line, f) != NULL)
        if (strncmp(line, "Threads:", 8) == 0)
            fputs(line, stderr);
    if (f != NULL)
        fclose(f);
}
"""

# what the openmp recipe produces must not depend on the machine the tests run on: the thread
# start-up that sequential_program weighs is pinned (tests/test_machine.py measures it)
os.environ.setdefault("PASSMAN_TEAM_START_NS", "200000")


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


def slow_enabled(config) -> bool:
    """Whether the exhaustive variants run (``-m slow`` or ``PASSMAN_SLOW=1``)."""
    return "slow" in (config.getoption("-m") or "") or os.environ.get("PASSMAN_SLOW") == "1"


def corpus_params(default: Iterable[str]) -> list:
    """Every corpus program as a pytest parameter; those not named in ``default`` are marked slow.

    A test taking them calls :func:`skip_slow` first: the slow ones run with ``-m slow`` or
    ``PASSMAN_SLOW=1``, so that the suite stays within its time while the whole corpus stays
    one option away.
    """
    keep = set(default)
    return [pytest.param(files, id=program_id(files), marks=() if program_id(files) in keep else pytest.mark.slow)
            for files in corpus_programs()]


def skip_slow(request) -> None:
    """Skip a slow-marked parameter unless the slow variants are enabled."""
    if request.node.get_closest_marker("slow") is not None and not slow_enabled(request.config):
        pytest.skip("whole corpus: run with -m slow or PASSMAN_SLOW=1")


def have_gpu() -> bool:
    """True when nvidia-smi lists a GPU."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return False
    proc = subprocess.run([smi, "-L"], capture_output=True, text=True)
    return proc.returncode == 0 and "GPU" in proc.stdout
