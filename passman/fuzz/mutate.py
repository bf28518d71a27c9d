"""Mutated-input check: random small edits of the corpus programs, judged against gcc.

Each case takes one corpus program (``tests/corpus/*.c``) and applies one
seeded random mutation: delete, duplicate or swap tokens, delete or duplicate
a line, replace an identifier by another one of the file or by an undeclared
name. ``gcc -fsyntax-only`` says whether the mutant is valid C, then
``passman run openmp mutant.c -o out`` runs on it (30 s limit) and the case is
classified:

``clean_error``
    gcc rejects the mutant and passman exits non-zero with one ``error:`` line;
``refused``
    gcc accepts the mutant, passman refuses it with one ``error:`` line
    (passman handles less than gcc: a refusal, not a bug);
``correct``
    both accept; passman's output compiles and, when the mutant runs within
    5 s, prints the same at 2 threads: numbers within a relative 1e-9, or
    within 1e-6 where the output has an OpenMP reduction (a parallel sum
    reorders additions; the corpus prints 7 significant digits, as in
    ``tests/test_openmp.py``);
``undefined``
    both accept but the mutant's own behaviour is undefined (its sanitized
    build fails, two builds of it disagree, or it converts a pointer to an
    integer, which gcc 14 rejects), so outputs are not compared;
``accepted_invalid``
    gcc rejects the mutant but passman wrote it out (a bug);
``traceback`` / ``unclean_error``
    passman crashed, or failed without a single ``error:`` line (bugs);
``hang``
    passman ran for more than 30 s (a bug);
``wrong``
    passman's output prints something else than the mutant (a bug);
``bad_output``
    gcc accepts the mutant but passman's output does not compile (a bug).

``python -m passman.fuzz.mutate --cases N --seed S --jobs J`` prints a table
of the classes and exits non-zero when any bug class is non-empty; a case is
reproduced alone with ``--seed S --first K --cases 1 --keep DIR``.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ..testing import outputs_match

#: Conversions gcc 12 only warns about (gcc 14 rejects them): a mutant that passes a
#: function where an int is expected (``f(printf)``) computes with an address that
#: differs from run to run (ASLR), so its output is not an oracle.
STRICT = ["-Werror=int-conversion", "-Werror=incompatible-pointer-types", "-Werror=pointer-to-int-cast",
          "-Werror=format"]

#: The corpus programs mutated by default (one-file programs).
CORPUS = Path(__file__).resolve().parents[2] / "tests" / "corpus"

#: Every class, bugs last; the table lists them in this order.
CLASSES = (
    "clean_error", "refused", "correct", "undefined",
    "accepted_invalid", "traceback", "unclean_error", "hang", "wrong", "bad_output",
)
#: The classes that are bugs in passman.
BUGS = frozenset(CLASSES[4:])

PASSMAN_TIMEOUT = 30.0
#: the mutant's own run: longer ones are not compared
RUN_TIMEOUT = 5.0
#: passman's output, at 2 threads, on a machine that may be busy
OUTPUT_TIMEOUT = 60.0
GCC_TIMEOUT = 60.0
RTOL = 1e-9
#: tolerance where passman's output reduces in parallel (sums in another order)
REDUCTION_TOL = 1e-6

_TOKEN = re.compile(
    r"""(?P<skip>/\*.*?\*/|//[^\n]*|[ \t\r\f\v]+|\\\n|\n)
      | (?P<tok>[A-Za-z_]\w*
      | (?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[uUlLfF]*|0[xX][0-9a-fA-F]+[uUlL]*
      | "(?:\\.|[^"\\\n])*" | '(?:\\.|[^'\\\n])*'
      | \.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|\#\#
      | [^\s])""",
    re.S | re.X,
)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_KEYWORDS = frozenset("""auto break case char const continue default do double else enum extern
    float for goto if inline int long register restrict return short signed sizeof static struct
    switch typedef union unsigned void volatile while _Bool _Complex""".split())


@dataclass(frozen=True)
class Token:
    """A token of a C file: its text and its span in the file."""

    text: str
    start: int
    end: int


@dataclass(frozen=True)
class Mutant:
    """One mutated program."""

    case: int
    program: Path
    text: str
    #: what was changed, e.g. ``delete token 'i' at 42:9``
    change: str


@dataclass(frozen=True)
class Outcome:
    """The class of one mutant, with the evidence."""

    mutant: Mutant
    kind: str
    detail: str = ""
    seconds: float = 0.0


def tokens(text: str) -> list[Token]:
    """The tokens of C ``text`` outside comments (preprocessor lines included)."""
    return [Token(m.group("tok"), m.start(), m.end()) for m in _TOKEN.finditer(text) if m.group("tok")]


def _where(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"{line}:{col}"


def _delete_token(text: str, toks: list[Token], rng: random.Random) -> tuple[str, str]:
    t = rng.choice(toks)
    return text[: t.start] + text[t.end :], f"delete token {t.text!r} at {_where(text, t.start)}"


def _duplicate_token(text: str, toks: list[Token], rng: random.Random) -> tuple[str, str]:
    t = rng.choice(toks)
    return (text[: t.end] + " " + t.text + text[t.end :],
            f"duplicate token {t.text!r} at {_where(text, t.start)}")


def _swap_tokens(text: str, toks: list[Token], rng: random.Random) -> tuple[str, str]:
    i = rng.randrange(len(toks))
    j = min(len(toks) - 1, i + rng.randint(1, 8)) if rng.random() < 0.7 else rng.randrange(len(toks))
    a, b = sorted((toks[i], toks[j]), key=lambda t: t.start)
    if a is b:
        return _delete_token(text, toks, rng)
    out = text[: a.start] + b.text + text[a.end : b.start] + a.text + text[b.end :]
    return out, f"swap tokens {a.text!r} at {_where(text, a.start)} and {b.text!r} at {_where(text, b.start)}"


def _replace_identifier(text: str, toks: list[Token], rng: random.Random) -> tuple[str, str]:
    idents = [t for t in toks if _IDENT.fullmatch(t.text) and t.text not in _KEYWORDS]
    if not idents:
        return _delete_token(text, toks, rng)
    t = rng.choice(idents)
    others = sorted({u.text for u in idents} - {t.text})
    new = rng.choice(others) if others and rng.random() < 0.6 else f"undeclared_{rng.randrange(1000)}"
    return (text[: t.start] + new + text[t.end :],
            f"replace identifier {t.text!r} at {_where(text, t.start)} by {new!r}")


def _delete_line(text: str, toks: list[Token], rng: random.Random) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    k = rng.choice([i for i, ln in enumerate(lines) if ln.strip()])
    return "".join(lines[:k] + lines[k + 1 :]), f"delete line {k + 1}: {lines[k].strip()!r}"


def _duplicate_line(text: str, toks: list[Token], rng: random.Random) -> tuple[str, str]:
    lines = text.splitlines(keepends=True)
    k = rng.choice([i for i, ln in enumerate(lines) if ln.strip()])
    return "".join(lines[: k + 1] + lines[k:]), f"duplicate line {k + 1}: {lines[k].strip()!r}"


#: The mutation operators, each ``(text, tokens, rng) -> (mutant text, description)``.
MUTATIONS: dict[str, Callable[[str, list[Token], random.Random], tuple[str, str]]] = {
    "delete_token": _delete_token,
    "duplicate_token": _duplicate_token,
    "swap_tokens": _swap_tokens,
    "replace_identifier": _replace_identifier,
    "delete_line": _delete_line,
    "duplicate_line": _duplicate_line,
}


def corpus_programs(corpus: Path = CORPUS) -> list[Path]:
    """The one-file corpus programs, sorted by name."""
    return sorted(corpus.glob("*.c"))


def make_mutant(programs: Sequence[Path], seed: int, case: int) -> Mutant:
    """The mutant number ``case`` of the run seeded with ``seed`` (independent of other cases)."""
    rng = random.Random(f"{seed}:{case}")
    program = rng.choice(list(programs))
    text = program.read_text()
    op = rng.choice(sorted(MUTATIONS))
    new, change = MUTATIONS[op](text, tokens(text), rng)
    return Mutant(case, program, new, change)


def _run(cmd: Sequence[str], cwd: Path, timeout: float, env: dict[str, str] | None = None
         ) -> subprocess.CompletedProcess[str] | None:
    """Run a command; None when it runs past ``timeout``."""
    try:
        return subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, timeout=timeout,
                              env=env, errors="replace")
    except subprocess.TimeoutExpired:
        return None


def _passman_command() -> list[str]:
    return [sys.executable, "-m", "passman.cli"]


def _binary_output(binary: Path, cwd: Path, threads: int = 2) -> tuple[int | None, str] | None:
    """``(exit status, stdout)`` of an OpenMP program, or None when it runs past the limit."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_WAIT_POLICY="passive")
    proc = _run([str(binary)], cwd, OUTPUT_TIMEOUT, env)
    return None if proc is None else (proc.returncode, proc.stdout)


def _same(a: tuple[int | None, str], b: tuple[int | None, str], tol: float = RTOL) -> bool:
    return a[0] == b[0] and outputs_match(a[1], b[1], rtol=tol, atol=0.0 if tol == RTOL else tol)


def _one_error_line(stderr: str) -> bool:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    errors = [ln for ln in lines if "error:" in ln]
    return len(errors) == 1 and "Traceback" not in stderr


def _first_error(stderr: str) -> str:
    """The first ``error:`` line of a compiler's messages (else its last line)."""
    lines = stderr.strip().splitlines()
    return next((ln for ln in lines if "error:" in ln), lines[-1] if lines else "")


def passman_environment(pycache: Path | None = None) -> dict[str, str]:
    """The environment passman runs in: bytecode cached in ``pycache`` (saves its start-up)."""
    env = dict(os.environ)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(pycache)
    return env


def classify(mutant: Mutant, workdir: Path, env: dict[str, str] | None = None) -> Outcome:
    """Judge one mutant in ``workdir`` (an empty folder of its own); ``env``: passman's environment."""
    t0 = time.monotonic()

    def done(kind: str, detail: str = "") -> Outcome:
        return Outcome(mutant, kind, detail.strip()[-2000:], time.monotonic() - t0)

    src = workdir / mutant.program.name
    src.write_text(mutant.text)
    gcc = _run(["gcc", "-fsyntax-only", src.name], workdir, GCC_TIMEOUT)
    gcc_ok = gcc is not None and gcc.returncode == 0
    out = workdir / "out"
    pm = _run([*_passman_command(), "run", "openmp", src.name, "-o", str(out)], workdir, PASSMAN_TIMEOUT, env)
    if pm is None:
        return done("hang", f"passman ran past {PASSMAN_TIMEOUT:.0f} s")
    if "Traceback" in pm.stderr or pm.returncode == 3:
        return done("traceback", pm.stderr)
    if pm.returncode != 0:
        if not _one_error_line(pm.stderr):
            return done("unclean_error", pm.stderr)
        return done("clean_error" if not gcc_ok else "refused", pm.stderr)
    if not gcc_ok:
        return done("accepted_invalid", _first_error(gcc.stderr) if gcc else "gcc ran past its limit")
    strict = _run(["gcc", "-fsyntax-only", *STRICT, src.name], workdir, GCC_TIMEOUT)
    if strict is not None and strict.returncode != 0:  # gcc 12 warns only; gcc 14 rejects
        return done("undefined", "a pointer converted to an integer (or to another pointer type), or a "
                    "printf argument of the wrong type: its value changes from run to run; "
                    + _first_error(strict.stderr))
    return _compare(mutant, workdir, src, out, done)


def _compare(mutant: Mutant, workdir: Path, src: Path, out: Path,
             done: Callable[[str, str], Outcome]) -> Outcome:
    """Classify a mutant both accept: build passman's output and the mutant, run both, compare."""
    sources = sorted(str(p) for p in out.glob("*.c"))
    ref = _run(["gcc", "-O0", "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                src.name, "-o", "ref", "-lm"], workdir, GCC_TIMEOUT)
    if ref is None or ref.returncode != 0:  # the mutant does not link: compile the output only
        objs = _run(["gcc", "-O2", "-fopenmp", "-c", *sources], out, GCC_TIMEOUT)
        if objs is None or objs.returncode != 0:
            return done("bad_output", _first_error(objs.stderr) if objs else "gcc ran past its limit")
        return done("correct", "the mutant does not link; output compiled only")
    got = _run(["gcc", "-O2", "-fopenmp", "-DPASSMAN_THREADS_AFTER=0", *sources, "-o", str(workdir / "got"), "-lm"],
               out, GCC_TIMEOUT)  # threads from the first region on (guard_team_start's macro)
    if got is None or got.returncode != 0:
        return done("bad_output", _first_error(got.stderr) if got else "gcc ran past its limit")
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0")
    t_ref = _run([str(workdir / "ref")], workdir, RUN_TIMEOUT, env)
    if t_ref is None:
        return done("correct", "the mutant runs past 5 s; output compiled only")
    if "runtime error" in t_ref.stderr or "Sanitizer" in t_ref.stderr:
        return done("undefined", t_ref.stderr)
    expected = (t_ref.returncode, t_ref.stdout)
    actual = _binary_output(workdir / "got", workdir)
    reduces = any("reduction(" in Path(f).read_text() for f in sources)
    if actual is not None and _same(expected, actual, REDUCTION_TOL if reduces else RTOL):
        return done("correct")
    # the mutant may be undefined in a way sanitizers miss: build it as passman's output is built
    plain = _run(["gcc", "-O2", "-fopenmp", src.name, "-o", "plain", "-lm"], workdir, GCC_TIMEOUT)
    again = _binary_output(workdir / "plain", workdir) if plain and plain.returncode == 0 else None
    if again is None or not _same(expected, again):
        return done("undefined", "two builds of the mutant disagree")
    if actual is None:
        return done("wrong", f"passman's output runs past {OUTPUT_TIMEOUT:.0f} s")
    return done("wrong", f"expected rc={expected[0]}:\n{expected[1][:800]}\ngot rc={actual[0]}:\n{actual[1][:800]}")


def run_cases(cases: int, seed: int = 0, jobs: int = 1, first: int = 0,
              programs: Sequence[Path] | None = None, keep: Path | None = None,
              progress: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Make and classify mutants ``first .. first+cases-1`` of the run seeded with ``seed``.

    ``keep``: a folder where every buggy mutant is copied (``case-K-NAME.c``).
    """
    progs = list(programs) if programs is not None else corpus_programs()
    pycache = Path(tempfile.mkdtemp(prefix="passman-mutants-pycache-"))
    env = passman_environment(pycache)

    def one(case: int) -> Outcome:
        mutant = make_mutant(progs, seed, case)
        tmp = Path(tempfile.mkdtemp(prefix=f"passman-mutant-{case}-"))
        try:
            outcome = classify(mutant, tmp, env)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        if keep is not None and outcome.kind in BUGS:
            keep.mkdir(parents=True, exist_ok=True)
            (keep / f"case-{case}-{mutant.program.name}").write_text(mutant.text)
        if progress is not None:
            progress(outcome)
        return outcome

    try:
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            return list(pool.map(one, range(first, first + cases)))
    finally:
        shutil.rmtree(pycache, ignore_errors=True)


def table(outcomes: Sequence[Outcome]) -> str:
    """The count of each class, bugs marked, as a text table."""
    counts = Counter(o.kind for o in outcomes)
    rows = [f"{'class':18s} {'count':>6s}"]
    for kind in CLASSES:
        mark = "  (bug)" if kind in BUGS and counts[kind] else ""
        rows.append(f"{kind:18s} {counts[kind]:6d}{mark}")
    rows.append(f"{'total':18s} {len(outcomes):6d}")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: run the cases, print the table and each bug; exit 1 on any bug."""
    p = argparse.ArgumentParser(prog="python -m passman.fuzz.mutate", description=__doc__.split("\n\n")[0])
    p.add_argument("--cases", type=int, default=100, help="number of mutants (default 100)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="mutants judged in parallel (default 1)")
    p.add_argument("--first", type=int, default=0, help="number of the first case (default 0)")
    p.add_argument("--keep", type=Path, help="copy every buggy mutant into this folder")
    p.add_argument("--verbose", "-v", action="store_true", help="print every case as it ends")
    ns = p.parse_args(argv)
    if shutil.which("gcc") is None:
        print("passman.fuzz.mutate: error: gcc is needed to judge mutants", file=sys.stderr)
        return 2

    def progress(o: Outcome) -> None:
        if ns.verbose:
            why = f"\n    {o.detail.splitlines()[-1]}" if o.kind in BUGS and o.detail else ""
            print(f"case {o.mutant.case:5d} {o.kind:16s} {o.seconds:5.1f}s "
                  f"{o.mutant.program.name}: {o.mutant.change}{why}", file=sys.stderr, flush=True)

    t0 = time.monotonic()
    outcomes = run_cases(ns.cases, ns.seed, ns.jobs, ns.first, keep=ns.keep, progress=progress)
    bugs = [o for o in outcomes if o.kind in BUGS]
    for o in bugs:
        first_line = o.detail.splitlines()[-1] if o.detail else ""
        print(f"{o.kind}: case {o.mutant.case} ({o.mutant.program.name}: {o.mutant.change}): {first_line}")
    print(table(outcomes))
    print(f"seed {ns.seed}, cases {ns.first}..{ns.first + ns.cases - 1}, "
          f"{time.monotonic() - t0:.0f} s with {ns.jobs} job(s)")
    return 1 if bugs else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
