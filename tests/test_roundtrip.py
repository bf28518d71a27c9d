"""Round trip on the whole corpus: parse, print, compile, run gives the original's output;
printing is idempotent."""

from __future__ import annotations

import pytest
from conftest import corpus_programs, program_id

from passman import Workspace
from passman.testing import assert_same_output

PROGRAMS = corpus_programs()


@pytest.mark.parametrize("files", PROGRAMS, ids=[program_id(f) for f in PROGRAMS])
def test_roundtrip_runs_the_same(files):
    ws = Workspace(*files)
    assert_same_output(files, ws)


@pytest.mark.parametrize("files", PROGRAMS, ids=[program_id(f) for f in PROGRAMS])
def test_printing_is_idempotent(files, tmp_path):
    ws = Workspace(*files)
    first = {cu.filename: cu.code for cu in ws.compilation_units}
    saved = ws.save(tmp_path / "once")
    again = Workspace(*saved)
    second = {cu.filename: cu.code for cu in again.compilation_units}
    assert second == first
