"""The mutated-input check (passman/fuzz/mutate.py): random edits of the corpus, judged against gcc.

A fixed-seed run of mutants must show no bug: every mutant gcc rejects is
refused with one ``error:`` line, every mutant gcc accepts is either refused
cleanly or transformed into a program that compiles and prints what the mutant
prints. ``PASSMAN_MUTANTS`` sets the number of mutants (default 80, about a
minute on 2 cores).
"""

from __future__ import annotations

import os
import random
import shutil

import pytest

from passman.fuzz.mutate import (
    BUGS,
    CLASSES,
    MUTATIONS,
    Mutant,
    classify,
    corpus_programs,
    main,
    make_mutant,
    passman_environment,
    run_cases,
    table,
    tokens,
)

needs_gcc = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

MUTANTS = int(os.environ.get("PASSMAN_MUTANTS", "80"))
SEED = 2026


def test_tokens_skip_comments_and_keep_positions():
    text = "int x = 1; /* a b */ y += x->z; // c\n#define N 3\n"
    toks = tokens(text)
    assert [t.text for t in toks] == ["int", "x", "=", "1", ";", "y", "+=", "x", "->", "z", ";",
                                      "#", "define", "N", "3"]
    assert all(text[t.start:t.end] == t.text for t in toks)


@pytest.mark.parametrize("op", sorted(MUTATIONS))
def test_each_mutation_changes_the_program(op):
    text = (corpus_programs()[0]).read_text()
    changed = 0
    for k in range(20):
        new, change = MUTATIONS[op](text, tokens(text), random.Random(k))
        changed += new != text
        assert change and new.count("\n") in range(text.count("\n") - 1, text.count("\n") + 2)
    assert changed >= 15


def test_mutants_are_reproducible():
    progs = corpus_programs()
    assert make_mutant(progs, 7, 12) == make_mutant(progs, 7, 12)
    assert make_mutant(progs, 7, 12) != make_mutant(progs, 8, 12)


@needs_gcc
def test_known_mutants_are_classified(tmp_path):
    prog = next(p for p in corpus_programs() if p.name == "dot.c")
    text = prog.read_text()
    env = passman_environment()
    bad = Mutant(0, prog, text.replace("s += a[i] * b[i];", "s += a[i] * undeclared_b[i];", 1), "edit")
    assert bad.text != text
    (tmp_path / "a").mkdir()
    got = classify(bad, tmp_path / "a", env)
    assert got.kind == "clean_error", got.detail
    (tmp_path / "b").mkdir()
    same = classify(Mutant(1, prog, text, "none"), tmp_path / "b", env)
    assert same.kind == "correct", same.detail


@needs_gcc
def test_fixed_seed_mutants_show_no_bug():
    outcomes = run_cases(MUTANTS, seed=SEED, jobs=2)
    assert len(outcomes) == MUTANTS and {o.kind for o in outcomes} <= set(CLASSES)
    bugs = [o for o in outcomes if o.kind in BUGS]
    assert not bugs, "\n".join(
        f"{o.kind}: case {o.mutant.case} {o.mutant.program.name}: {o.mutant.change}\n{o.detail}" for o in bugs
    ) + "\n" + table(outcomes)
    assert sum(o.kind == "clean_error" for o in outcomes) >= MUTANTS // 4  # most mutants break the program


@needs_gcc
def test_command_line_prints_a_table(capsys):
    assert main(["--cases", "2", "--seed", "3", "--jobs", "2"]) == 0
    out = capsys.readouterr().out
    assert "class" in out and "total                   2" in out and "accepted_invalid" in out
