"""passman.machine: the thread start-up of an OpenMP program, measured once per machine and kept.

The oracle for the probe is its own definition (a positive number of
nanoseconds, kept in the cache under this machine's key, read back
instead of measured again); the effect on the recipe is checked through
``sequential_program``'s threshold.
"""

from __future__ import annotations

import json
import shutil

import pytest
from passman.passes.parallel.profitability import STATEMENT_NS, program_work_threshold

from passman import machine


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """No pinned figure, an empty cache directory, no figure remembered in the process."""
    monkeypatch.delenv("PASSMAN_TEAM_START_NS", raising=False)
    monkeypatch.setenv("PASSMAN_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(machine, "_memo", {})
    return tmp_path


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_the_probe_measures_once_and_keeps_the_figure(fresh, monkeypatch):
    got = machine.team_start_ns()
    assert got > 0
    stored = json.loads((fresh / "machine.json").read_text())
    assert stored[machine.machine_key()] == got
    # the next process reads it: a planted figure comes back, the probe does not run
    stored[machine.machine_key()] = 1234567
    (fresh / "machine.json").write_text(json.dumps(stored))
    monkeypatch.setattr(machine, "_memo", {})
    monkeypatch.setattr(machine, "measure_team_start", lambda runs=0: pytest.fail("measured again"))
    assert machine.team_start_ns() == 1234567


def test_the_settings_are_part_of_the_key(fresh, monkeypatch):
    before = machine.machine_key()
    monkeypatch.setenv("OMP_WAIT_POLICY", "passive")
    assert machine.machine_key() != before
    monkeypatch.setenv("OMP_NUM_THREADS", "7")  # the probe runs at two threads whatever this says
    monkeypatch.delenv("OMP_WAIT_POLICY")
    assert machine.machine_key() == before


def test_a_pinned_figure_wins_and_no_compiler_gives_the_default(fresh, monkeypatch):
    monkeypatch.setenv("PASSMAN_TEAM_START_NS", "5000000")
    assert machine.team_start_ns() == 5_000_000
    monkeypatch.delenv("PASSMAN_TEAM_START_NS")
    monkeypatch.setattr(machine, "_compiler", lambda: None)
    assert machine.team_start_ns() == machine.DEFAULT_TEAM_START_NS
    assert not (fresh / "machine.json").exists()  # nothing measured, nothing kept


def test_the_threshold_follows_the_machine(fresh, monkeypatch):
    monkeypatch.setenv("PASSMAN_TEAM_START_NS", "5000000")  # 5 ms: a 2-vCPU VM with spinning threads
    assert program_work_threshold(-1) == round(2 * 5_000_000 / STATEMENT_NS)  # 25,000,000
    assert program_work_threshold(0) == 0 and program_work_threshold(123) == 123
