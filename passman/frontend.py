"""The C front end: preprocess with the system ``cpp``, parse with pycparser.

User programs are preprocessed against passman's own library headers (the
include folders that plugins register, by default the ``libc`` headers under
``stubs/include``), never against the system's, so the parser sees only
standard C. What the preprocessor throws away and the way back needs is
remembered: the ``#include`` lines and feature-test ``#define`` lines of each
file. Positions in errors and in the AST are the user's (``#line`` honoured).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_parser

from .astutil import IndexDesignator, deepest
from .errors import InvalidInput, located
from .semantic import check_unit

#: Include folders searched before any ``-I`` of the user (library headers).
SYSTEM_INCLUDE_DIRS: list[Path] = []

#: Macros defined for every preprocessing run.
PREDEFINED = ["-D__passman__=1"]

#: The deepest syntax tree passman accepts: the printer and the passes walk
#: trees recursively, a few Python frames a level. Parsing raises the
#: interpreter's recursion limit to :data:`RECURSION_LIMIT` (never lowers it);
#: 1,000 levels (a sum of 1,000 terms) then go through the OpenMP recipe, and
#: deeper code is refused with its location instead of a RecursionError.
MAX_NESTING = 1000
RECURSION_LIMIT = 10 * MAX_NESTING

_DIRECTIVE = re.compile(r"^\s*#\s*(include|define|undef|if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b(.*)$")
_OPENS = ("if", "ifdef", "ifndef")
_BRANCHES = ("elif", "elifdef", "elifndef", "else")


def register_include_dir(path: str | Path) -> None:
    """Add a folder of library headers (a broker's models) to every preprocessing run."""
    p = Path(path).resolve()
    if p not in SYSTEM_INCLUDE_DIRS:
        SYSTEM_INCLUDE_DIRS.append(p)


@dataclass
class ParsedFile:
    """One preprocessed and parsed source file."""

    path: Path
    #: the file name as it appears in the AST's coordinates
    coord_name: str
    ast: c_ast.FileAST
    #: ``#include`` and feature-test ``#define`` lines, in source order, inside their ``#if``s
    directives: list[str] = field(default_factory=list)
    #: user headers (``#include "x.h"``) resolved next to the file
    local_headers: list[Path] = field(default_factory=list)
    #: every ``#include``/``#define``/``#undef`` line, to re-parse edited code
    macros: list[str] = field(default_factory=list)


def _cpp_command() -> list[str]:
    for cand in ("cpp", "gcc", "cc", "clang"):
        exe = shutil.which(cand)
        if exe:
            return [exe] if cand == "cpp" else [exe, "-E"]
    raise InvalidInput("error: no C preprocessor found (install gcc or cpp)")


def preprocess(path: Path, cppflags: list[str]) -> str:
    """Run the C preprocessor on ``path`` against passman's library headers."""
    from .plugins import load_plugins

    load_plugins()  # brokers register their header folders
    cmd = _cpp_command() + ["-nostdinc", "-undef", *PREDEFINED]
    for d in SYSTEM_INCLUDE_DIRS:
        cmd += ["-isystem", str(d)]
    cmd += list(cppflags)
    name = str(path)
    cmd += ["-x", "c", name if not name.startswith("-") else f"./{name}"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True)
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: error: the file or a header it includes is not UTF-8 text") from None
    if proc.returncode != 0:
        lines = [ln for ln in proc.stderr.splitlines() if "error" in ln]
        first = lines[0] if lines else proc.stderr.strip().splitlines()[-1:] or ["preprocessing failed"]
        msg = first if isinstance(first, str) else first[0]
        raise InvalidInput(msg.strip())
    return proc.stdout


def _parse_error_message(parser: c_parser.CParser, err: Exception, default_file: str) -> str:
    """Turn a pycparser error into ``file:line:col: error: message``."""
    text = str(err)
    m = re.match(r"^(.*?):(\d+):(\d+): (.*)$", text)
    if m:
        what = re.sub(r"^before: (.*)$", r"syntax error before '\1'", m.group(4))
        return f"{m.group(1)}:{m.group(2)}:{m.group(3)}: error: {what}"
    msg = text.split(": ", 1)[1] if ": " in text else text
    try:  # pycparser sometimes reports only the file: find the offending token
        tok = parser._peek()
        fname = parser.clex.filename or default_file
        if tok is not None:
            return f"{fname}:{tok.lineno}:{tok.column}: error: {msg} before '{tok.value}'"
        return f"{fname}: error: {msg} at end of input"
    except Exception:  # pragma: no cover - depends on pycparser internals
        return f"{default_file}: error: {msg}"


class CParser(c_parser.CParser):
    """pycparser's parser, keeping what its AST would lose: ``[ID] =`` designators (:class:`IndexDesignator`)."""

    def _parse_designator(self) -> c_ast.Node:
        bracket = self._peek_type() == "LBRACKET"
        node = super()._parse_designator()
        if bracket and type(node) is c_ast.ID:
            return IndexDesignator(node.name, node.coord)
        return node


def parse_text(text: str, filename: str) -> c_ast.FileAST:
    """Parse preprocessed C text; syntax errors become :class:`InvalidInput`."""
    parser = CParser()
    try:
        return parser.parse(text, filename)
    except c_parser.ParseError as err:
        raise InvalidInput(_parse_error_message(parser, err, filename)) from None
    except (AssertionError, IndexError, TypeError, ValueError) as err:  # parser bugs on odd input
        raise InvalidInput(f"{filename}: error: cannot parse: {err}") from None
    except RecursionError:
        raise InvalidInput(f"{filename}: error: code nested too deeply to parse") from None


def check_nesting(ast: c_ast.FileAST, filename: str, limit: int = MAX_NESTING) -> None:
    """Refuse a syntax tree deeper than ``limit`` (see :data:`MAX_NESTING`)."""
    depth, node = deepest(ast)
    if depth > limit:
        message = f"code nested {depth} levels deep; passman handles at most {limit}"
        if node.coord is None:
            raise InvalidInput(f"{filename}: error: {message}")
        raise InvalidInput(located(node.coord, message))


def scan_directives(source: str, everything: bool = False) -> list[str]:
    """The ``#include`` lines and feature-test ``#define``/``#undef`` lines of ``source``.

    Feature-test macros (names starting with ``_``, e.g. ``_POSIX_C_SOURCE``)
    change what the real headers declare, so they go back with the includes;
    other macros were expanded by the preprocessor and are not needed in the
    output (``everything=True`` keeps them all, to re-parse code that uses them).

    A kept line inside ``#if``/``#ifdef``/``#ifndef`` keeps its conditional
    context: the whole conditional (every branch's ``#elif``/``#else`` and the
    ``#endif``) is kept around it, so ``#ifdef USE_MATH`` / ``#include
    <math.h>`` / ``#endif`` comes back as it was. A conditional that holds no
    kept line is left out.
    """
    root: list = []  # items: a kept line (str), or a conditional: [[head, items], ...] + endif
    stack: list[list] = []  # the conditionals being read, innermost last
    items = root
    lines = source.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        while line.endswith("\\") and i + 1 < len(lines):
            i += 1
            line = line[:-1] + lines[i]
        i += 1
        m = _DIRECTIVE.match(line)
        if not m:
            continue
        kind, rest = m.group(1), _strip_comment(m.group(2).strip())
        text = f"#{kind} {rest}" if rest else f"#{kind}"
        if kind in _OPENS:
            branches: list = [[text, []]]
            items.append(branches)
            stack.append(branches)
            items = branches[0][1]
        elif kind in _BRANCHES and stack:
            stack[-1].append([text, []])
            items = stack[-1][-1][1]
        elif kind == "endif" and stack:
            stack.pop()
            items = stack[-1][-1][1] if stack else root
        elif kind in ("include", "define", "undef") and (everything or kind == "include" or rest.startswith("_")):
            items.append(f"#{kind} {m.group(2).strip()}")
    out: list[str] = []
    _emit_directives(root, out)
    return out


def _strip_comment(text: str) -> str:
    """A conditional's expression without a trailing ``/* ... */`` or ``//`` comment."""
    return re.sub(r"\s*(/\*.*?\*/|//.*)\s*$", "", text)


def _emit_directives(items: list, out: list[str]) -> bool:
    """Append the kept lines of ``items`` (with their conditionals) to ``out``; whether any."""
    kept = False
    for item in items:
        if isinstance(item, str):
            out.append(item)
            kept = True
            continue
        inner: list[str] = []
        inside = False
        for head, body in item:
            inner.append(head)
            inside = _emit_directives(body, inner) or inside
        if inside:
            out += [*inner, "#endif"]
            kept = True
    return kept


def local_includes(source: str, directory: Path) -> list[Path]:
    """User headers included with quotes that exist beside the source file."""
    found = []
    for m in re.finditer(r'^\s*#\s*include\s*"([^"]+)"', source, re.M):
        p = directory / m.group(1)
        if p.is_file():
            found.append(p)
    return found


def parse_file(path: str | Path, cppflags: list[str] | None = None) -> ParsedFile:
    """Preprocess and parse one C file, then check it as a C compiler would (:mod:`.semantic`)."""
    p = Path(path)
    if not p.is_file():
        raise InvalidInput(f"{path}: error: no such file")
    try:
        source = p.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidInput(f"{path}: error: cannot read: {err}") from None
    text = preprocess(p, cppflags or [])
    if sys.getrecursionlimit() < RECURSION_LIMIT:
        sys.setrecursionlimit(RECURSION_LIMIT)
    ast = parse_text(text, str(p))
    check_nesting(ast, str(p))
    check_unit(ast, text)
    return ParsedFile(
        path=p,
        coord_name=str(p),
        ast=ast,
        directives=scan_directives(source),
        local_headers=local_includes(source, p.parent),
        macros=scan_directives(source, everything=True),
    )


def parse_string(code: str, filename: str = "<string>") -> c_ast.FileAST:
    """Parse C text that needs no preprocessing (for ``module.code = ...``)."""
    return parse_text(code, filename)
