"""The progress line of long runs (``passman.progress``): what it says, when, and where it goes."""

from __future__ import annotations

import io
import re

from conftest import CORPUS

from passman import Workspace
from passman import cli as cli_module
from passman.cli import main as cli
from passman.progress import Progress


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_line_names_the_phase_the_pass_and_the_functions_done_once_two_seconds_passed():
    clock, out = Clock(), io.StringIO()
    progress = Progress(live=False, every=10.0, stream=out, clock=clock)
    ws = Workspace(CORPUS / "multi_function.c")
    ws.instrument(progress)
    progress.phase("recipe openmp")
    sweep = "coarse_grain_parallelization_with_reduction?"  # over every function, refusals tolerated
    ws.apply_pipeline(sweep)
    assert out.getvalue() == ""  # a short run prints nothing
    clock.now += 2.5
    ws.apply_pipeline(sweep)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1, lines  # one line, then none before ten more seconds
    total = len(ws.all_functions)
    first = ws.all_functions[0].name
    assert lines[0] == (f"passman: 2.5 s  recipe openmp  0/{total} functions  "  # a second sweep: none done yet
                        f"coarse_grain_parallelization_with_reduction on {first}")
    every = Progress(live=False, delay=0.0, every=0.0, stream=io.StringIO(), clock=clock)
    ws.instrument(every)
    ws.apply_pipeline(sweep)
    counts = re.findall(r"\d+/\d+ functions", every.stream.getvalue())
    assert counts[0] == f"0/{total} functions" and counts[-1] == f"{total}/{total} functions", counts


def test_a_live_line_is_rewritten_in_place_and_erased():
    clock, out = Clock(), io.StringIO()
    progress = Progress(live=True, stream=out, clock=clock)
    clock.now += 3
    progress.phase("parsing")
    clock.now += 1
    progress.phase("building")
    progress.clear()
    assert out.getvalue() == ("\rpassman: 3.0 s  parsing\x1b[K\rpassman: 4.0 s  building\x1b[K\r\x1b[K")


def test_the_command_line_shows_it_on_standard_error_only(tmp_path, capfd, monkeypatch):
    src = CORPUS / "dot.c"
    assert cli(["run", "openmp", str(src)]) == 0
    plain = capfd.readouterr()
    assert "passman: 0." not in plain.err  # not a terminal, no -v: no progress line
    monkeypatch.setattr(cli_module, "_progress", lambda: Progress(live=False, delay=0.0, every=0.0))
    assert cli(["run", "openmp", str(src)]) == 0
    shown = capfd.readouterr()
    assert shown.out == plain.out  # the program's text is untouched
    assert re.search(r"^passman: [0-9.]+ s  recipe openmp  \d+/\d+ functions  ompify_code on \w+$", shown.err, re.M)
    assert "passman: " in shown.err.splitlines()[0] and "parsing" in shown.err
