"""One fuzz case: a program, a mode, its options or steps, and the oracle's verdict on it.

``make_case(seed, mode)`` draws everything from the seed: the program
(:func:`~passman.fuzz.generator.generate`), and in ``openmp`` mode a few
recipe options (``--set min_work=0`` so that small loops run in parallel,
``--set poly=false`` for the coarse-grain path…), in ``api`` mode the steps
(:func:`~passman.fuzz.steps.plan`). :func:`judge` renders the program and
asks the oracle.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .generator import generate
from .oracle import Verdict, check_accel, check_api, check_openmp
from .program import Program, render
from .steps import Step, plan, positioned

MODES = ("openmp", "api")
#: modes run only when named (``--mode accel``): the accelerator recipe on the CPU emulation
EXTRA_MODES = ("accel",)
#: recipe options of the openmp mode, each drawn with its probability
OPTIONS = (
    (0.5, "--set min_work=0"),
    (0.3, "--set poly=false"),
    (0.15, "--set tile=false"),
    (0.1, "--set fusion=max"),
    (0.1, "--set wavefront=false"),
)


@dataclass
class Case:
    """What the oracle needs to judge one program in one mode."""

    seed: int
    mode: str
    program: Program
    options: list[str] = field(default_factory=list)
    #: api mode: the steps, loops named by uid
    steps: list[Step] = field(default_factory=list)


#: recipe options of the accel mode
ACCEL_OPTIONS = (
    (0.3, "--set max_dims=1"),
    (0.2, "--set transfers=naive"),
    (0.2, "--set promote=false"),
)


def draw_options(seed: int, table: tuple = OPTIONS) -> list[str]:
    """The openmp-mode recipe options of ``seed``."""
    rng = random.Random(f"options:{seed}")
    out: list[str] = []
    for probability, option in table:
        if rng.random() < probability:
            out += option.split()
    return out


def make_case(seed: int, mode: str) -> Case:
    """The case of ``seed`` in ``mode``."""
    if mode not in MODES + EXTRA_MODES:
        raise ValueError(f"unknown mode {mode!r} (expected one of {', '.join(MODES + EXTRA_MODES)})")
    program = generate(seed)
    if mode == "openmp":
        return Case(seed, mode, program, options=draw_options(seed))
    if mode == "accel":
        return Case(seed, mode, program, options=draw_options(seed, ACCEL_OPTIONS))
    return Case(seed, mode, program, steps=plan(render(program).loops, seed))


def api_steps(case: Case) -> list[Step]:
    """The case's steps with loops named by position (those on loops no longer there dropped)."""
    return positioned(case.steps, render(case.program).loops)


def judge(case: Case, timeout: float = 30) -> Verdict:
    """The oracle's verdict on ``case``."""
    rendered = render(case.program)
    if case.mode == "openmp":
        return check_openmp(rendered.text, case.options, timeout)
    if case.mode == "accel":
        return check_accel(rendered.text, case.options, timeout)
    counts = {f: len(loops) for f, loops in rendered.loops.items()}
    return check_api(rendered.text, positioned(case.steps, rendered.loops), counts, timeout)
