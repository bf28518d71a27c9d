"""Round trip on the whole corpus.

Untouched input gives the input back byte for byte (``cu.code``). The
printer is tested on its own: the whole program printed by it
(``cu.printed``: macros expanded, comments gone) compiles and runs as the
original, and printing is idempotent.
"""

from __future__ import annotations

import shutil

import pytest
from conftest import corpus_programs, program_id

from passman import Workspace
from passman.testing import build_and_run, outputs_match, reference_output

PROGRAMS = corpus_programs()


@pytest.mark.parametrize("files", PROGRAMS, ids=[program_id(f) for f in PROGRAMS])
def test_untouched_input_is_byte_identical(files, tmp_path):
    ws = Workspace(*files)
    for cu in ws.compilation_units:
        if not cu.is_stub:
            assert cu.code == cu.path.read_text()
    saved = ws.save(tmp_path / "out")
    assert {p.name: p.read_bytes() for p in saved} == {f.name: f.read_bytes() for f in files}


def _save_printed(ws: Workspace, directory) -> list:
    """Write every unit as the printer prints it (and the user's headers) into ``directory``."""
    directory.mkdir()
    out = []
    for cu in ws.compilation_units:
        if cu.is_stub:
            continue
        out.append(directory / cu.filename)
        out[-1].write_text(cu.printed)
        for h in cu.local_headers:
            shutil.copyfile(h, directory / h.name)
    return out


@pytest.mark.parametrize("files", PROGRAMS, ids=[program_id(f) for f in PROGRAMS])
def test_printed_program_runs_the_same(files, tmp_path):
    ws = Workspace(*files)
    ref = reference_output(files)
    got = build_and_run(_save_printed(ws, tmp_path / "printed"))
    assert ref.returncode == got.returncode and outputs_match(ref.stdout, got.stdout)


@pytest.mark.parametrize("files", PROGRAMS, ids=[program_id(f) for f in PROGRAMS])
def test_printing_is_idempotent(files, tmp_path):
    ws = Workspace(*files)
    first = {cu.filename: cu.printed for cu in ws.compilation_units if not cu.is_stub}
    again = Workspace(*_save_printed(ws, tmp_path / "once"))
    second = {cu.filename: cu.printed for cu in again.compilation_units if not cu.is_stub}
    assert second == first
    # and the printed text, being untouched input now, comes back as it is
    assert {cu.filename: cu.code for cu in again.compilation_units if not cu.is_stub} == first
