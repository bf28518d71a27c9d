"""Constants that the user wrote as a macro name (``N`` for ``#define N 1000``).

The preprocessor replaces ``N`` by ``1000`` before pycparser sees the code,
so the AST holds a ``Constant``. So that a function passman prints again
still says ``N`` (and ``-DLARGE_DATASET`` still picks the size at build
time), the front end marks those constants: their coordinate becomes a
:class:`MacroCoord` that names the macro and the text it gave. Coordinates
are shared by copies of a node and ignored when trees are compared, so the
mark changes nothing for the passes; :attr:`passman.unit.CompilationUnit.code`
prints the name where the constant still has the macro's value and the
macro still means the same at the place printed.

How a constant is known to come from a macro: each line of the file is
compared token by token with the same line of the preprocessed text. While
they agree, an identifier of the original that the preprocessor replaced is
looked up: the text it expands to at the end of the file is asked from the
preprocessor itself (one extra run, with a line per macro after an
``#include`` of the file), and the comparison goes on only if the line holds
exactly that text there. A macro whose expansion is one number (possibly in
parentheses) marks that number. An invocation of a function-like macro is
expanded the same way, once as written and once with each argument name
that is itself a macro replaced by a marker name; where the marked
expansion shows a marker, the constant there came from that argument
(``POLYBENCH_2D(A, N, M, n, m)`` gives ``A[1000 + 0][1200 + 0]``: ``1000`` is
``N``). Anything else (a mismatch, ``#`` or ``##`` on an argument, a line
the preprocessor skipped) ends the comparison for the line: a constant is
marked only when its origin is certain.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pycparser import c_ast
from pycparser.c_parser import Coord

from .astutil import child_nodes
from .source_text import Token, tokenize

__all__ = ["MacroCoord", "MacroPlan"]

_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"')
_PROBE = "__passman_probe_{}__"
_ARG = "__passman_arg_{}__"
_PROBE_LINE = re.compile(r"^\s*__passman_probe_(\d+)__\s?(.*)$")


@dataclass
class MacroCoord(Coord):
    """The coordinate of a constant the user wrote as the object-like macro ``macro``.

    ``expansion`` is the constant's text as the macro gave it.
    """

    macro: str = ""
    expansion: str = ""


class MacroPlan:
    """Gives each constant of the parsed file written as a macro name a :class:`MacroCoord`, in three
    steps, so that the preprocessor's run overlaps the parse::

        plan = MacroPlan(source, preprocessed, name)   # what to ask (no preprocessor yet)
        plan.start(path, start)                        # start(file) starts the preprocessor
        ...                                            # parse ``preprocessed`` meanwhile
        count = plan.finish(ast)                       # the answer, the marks

    ``start(file)`` returns an object whose ``result()`` is the text the
    preprocessor gives for ``file`` (and raises where it fails: no mark).
    :attr:`answer` is that text once :meth:`finish` has it ("" where none
    was asked). :meth:`close` stops a run whose answer is not wanted.
    """

    def __init__(self, source: str, preprocessed: str, coord_name: str):
        self.coord_name = coord_name
        self.answer = ""
        self._tmp: Path | None = None
        self._pending: object | None = None
        self.lines = _main_file_lines(preprocessed, coord_name)
        original = [t for t in tokenize(source) if t.kind not in ("comment", "directive")]
        self.by_line: dict[int, int] = {}
        for k, t in enumerate(original):
            self.by_line.setdefault(t.line, k)
        expanded = {n: {t.value for t in _code_tokens(text)} for n, text in self.lines.items()}
        # identifiers the preprocessor replaced somewhere: the only ones worth asking about
        candidates = {t.value for t in original if t.kind == "ident"
                      and t.line in expanded and t.value not in expanded[t.line]}
        self.probes: _Probes | None = None
        if candidates:
            probes = _Probes(original, candidates)
            probes.plan()
            if probes.texts:
                self.probes = probes

    def start(self, path: Path, start: Callable[[Path], object]) -> None:
        """Start the preprocessor on the probe: each text to ask, expanded after the whole file."""
        if self.probes is None:
            return
        self._tmp = Path(tempfile.mkdtemp(prefix="passman-macros-"))
        probe = self._tmp / "probe.c"
        lines = [f'#include "{path.resolve()}"']
        lines += [_PROBE.format(i) + " " + text for i, text in enumerate(self.probes.texts)]
        probe.write_text("\n".join(lines) + "\n")
        try:
            self._pending = start(probe)
        except Exception:  # noqa: BLE001 - any failure only means no constant is marked
            self._pending = None

    def finish(self, ast: c_ast.FileAST) -> int:
        """Wait for the preprocessor's answer and mark the constants of ``ast``; how many were marked."""
        if self.probes is None:
            return 0
        try:
            self.answer = self._pending.result() if self._pending is not None else ""  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - any failure only means no constant is marked
            self.answer = ""
        finally:
            self.close()
        probes = self.probes
        probes.read(self.answer)
        tags: dict[tuple[int, int], tuple[str, str]] = {}
        for n, text in self.lines.items():
            if n in self.by_line:
                tags.update(probes.align(self.by_line[n], n, list(_code_tokens(text)), text))
        count = 0
        for node in _walk(ast):
            c = node.coord
            if isinstance(node, c_ast.Constant) and c is not None and c.file == self.coord_name:
                tag = tags.get((c.line, c.column or 0))
                if tag is not None and tag[1] == node.value:
                    node.coord = MacroCoord(c.file, c.line, c.column, tag[0], tag[1])
                    count += 1
        return count

    def close(self) -> None:
        """Stop the preprocessor if it still runs, and remove the probe."""
        pending, self._pending = self._pending, None
        if pending is not None and hasattr(pending, "close"):
            pending.close()
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


def _walk(node: c_ast.Node) -> Iterator[c_ast.Node]:
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in child_nodes(n))


def _code_tokens(text: str) -> Iterator[Token]:
    return (t for t in tokenize(text) if t.kind not in ("comment", "directive"))


def _main_file_lines(preprocessed: str, name: str) -> dict[int, str]:
    """The preprocessed text of each line of file ``name`` that has any (line numbers of the file)."""
    out: dict[int, str] = {}
    current, line = None, 0
    for text in preprocessed.split("\n"):
        m = _MARKER.match(text)
        if m:
            current, line = m.group(2), int(m.group(1))
            continue
        if current == name and text.strip() and not text.lstrip().startswith("#"):
            out[line] = text
        line += 1
    return out


def _is_number(value: str) -> bool:
    return bool(value) and (value[0].isdigit() or (value[0] == "." and value[1:2].isdigit()))


def _constant_of(tokens: list[str]) -> int | None:
    """Where the number is in a macro's expansion that is one number, possibly in parentheses."""
    k, n = 0, len(tokens)
    while k < n - 1 - k and tokens[k] == "(" and tokens[n - 1 - k] == ")":
        k += 1
    return k if n - 2 * k == 1 and _is_number(tokens[k]) else None


class _Probes:
    """What to ask the preprocessor about a file's macros, and the comparison with its answers."""

    def __init__(self, original: list[Token], candidates: set[str]):
        self.original = original
        self.candidates = candidates
        self.texts: list[str] = []
        self.index: dict[str, int] = {}
        self.answers: list[list[str] | None] = []

    def _ask(self, text: str) -> int:
        if text not in self.index:
            self.index[text] = len(self.texts)
            self.texts.append(text)
        return self.index[text]

    def _invocation_end(self, k: int) -> int | None:
        """One past the ``)`` closing the invocation whose name is token ``k`` (None: no invocation)."""
        toks = self.original
        if k + 1 >= len(toks) or toks[k + 1].value != "(":
            return None
        depth = 0
        for j in range(k + 1, len(toks)):
            v = toks[j].value if toks[j].kind == "punct" else ""
            if v == "(":
                depth += 1
            elif v == ")":
                depth -= 1
                if depth == 0:
                    return j + 1
        return None

    def _invocation(self, k: int, end: int) -> tuple[str, str, list[str]]:
        """The invocation's text, the text with macro arguments as markers, and those arguments."""
        plain, marked, args = [], [], []
        for t in self.original[k:end]:
            plain.append(t.value)
            if t.kind == "ident" and t.value in self.candidates and t is not self.original[k]:
                args.append(t.value)
                marked.append(_ARG.format(len(args) - 1))
            else:
                marked.append(t.value)
        return " ".join(plain), " ".join(marked), args

    def plan(self) -> None:
        """Ask about every replaced identifier, and every invocation of one."""
        for k, t in enumerate(self.original):
            if t.kind == "ident" and t.value in self.candidates:
                self._ask(t.value)
                end = self._invocation_end(k)
                if end is not None:
                    plain, marked, args = self._invocation(k, end)
                    self._ask(plain)
                    self._ask(marked)
                    for a in args:
                        self._ask(a)

    def read(self, out: str) -> None:
        """Take the preprocessor's answers from its output for the probe (:meth:`MacroPlan.start`)."""
        self.answers = [None] * len(self.texts)
        for text in out.split("\n"):
            m = _PROBE_LINE.match(text)
            if m and int(m.group(1)) < len(self.answers):
                self.answers[int(m.group(1))] = [t.value for t in _code_tokens(m.group(2))]

    def _answer(self, text: str) -> list[str] | None:
        i = self.index.get(text)
        return None if i is None else self.answers[i]

    def align(self, k: int, line: int, got: list[Token], text: str) -> Iterable[tuple[tuple[int, int], tuple[str, str]]]:
        """Compare the original tokens from ``k`` on with the preprocessed tokens ``got`` of ``line``.

        Yields ``((line, column), (macro, value))`` for each number of
        ``got`` certainly written as macro ``macro``.
        """
        toks = self.original
        j = 0
        while j < len(got) and k < len(toks):
            t = toks[k]
            if t.kind == "ident" and t.value in self.candidates:
                end = self._invocation_end(k)
                step = self._expand_invocation(k, end) if end is not None else None
                if step is not None and step[0] != [x.value for x in toks[k:end]]:
                    full, marks = step
                    if [g.value for g in got[j:j + len(full)]] != full:
                        return
                    for at, name in marks.items():
                        yield (line, got[j + at].start + 1), (name, full[at])
                    k, j = end, j + len(full)
                    continue
                exp = self._answer(t.value)
                if exp is None:
                    return
                if exp != [t.value]:
                    if [g.value for g in got[j:j + len(exp)]] != exp:
                        return
                    at = _constant_of(exp)
                    if at is not None:
                        yield (line, got[j + at].start + 1), (t.value, exp[at])
                    k, j = k + 1, j + len(exp)
                    continue
            if t.value != got[j].value:
                return
            k, j = k + 1, j + 1

    def _expand_invocation(self, k: int, end: int) -> tuple[list[str], dict[int, str]] | None:
        """An invocation's expansion and, by position in it, the numbers that came from a macro argument."""
        plain, marked, args = self._invocation(k, end)
        full, with_markers = self._answer(plain), self._answer(marked)
        if full is None or with_markers is None:
            return None
        marks: dict[int, str] = {}
        pos = 0
        for tok in with_markers:
            m = re.fullmatch(r"__passman_arg_(\d+)__", tok)
            if m is None:
                if pos >= len(full) or full[pos] != tok:
                    return full, {}  # an argument stringized or pasted: its numbers are not told apart
                pos += 1
                continue
            name = args[int(m.group(1))]
            exp = self._answer(name)
            if exp is None or full[pos:pos + len(exp)] != exp:
                return full, {}
            at = _constant_of(exp)
            if at is not None:
                marks[pos + at] = name
            pos += len(exp)
        return (full, marks) if pos == len(full) else (full, {})
