"""The C front end: preprocess with the system ``cpp``, parse with pycparser.

User programs are preprocessed against passman's own library headers (the
include folders that plugins register, by default the ``libc`` headers under
``stubs/include``: declarations, types and macros of the C library and POSIX
with glibc's x86-64 values), never against the system's, so the parser sees
only standard C; the output keeps the user's ``#include`` lines and is
compiled against the real headers. A header with no model is an error at the
``#include`` that names it. What the preprocessor throws away and the way
back needs is remembered: the ``#include`` lines and feature-test ``#define``
lines of each file. Positions in errors and in the AST are the user's
(``#line`` honoured).

GNU C goes through :mod:`.gnu_extensions` (spellings mapped, attributes
dropped or put back in standard C, the rest refused with ``unsupported GNU
extension``). Two constructs take a type where pycparser wants an
expression, and the parser here reads them: ``__builtin_va_arg(ap, type)``
(what ``va_arg`` expands to; kept as a call whose second argument is a
``Typename``) and C11's ``_Generic``, which is resolved as the file is
checked: the selection becomes the association the controlling
expression's type picks.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pycparser import c_ast, c_parser

from .astutil import IndexDesignator, child_nodes, deepest
from .ctype import UNKNOWN, compatible, decay, is_known, unqualified
from .errors import InvalidInput, located
from .gnu_extensions import GnuLexer, UnsupportedExtension, apply_attributes
from .macro_constants import MacroCoord, MacroPlan
from .semantic import SemanticChecker
from .size_macros import build_chosen_macros, name_size_macros
from .statement_comments import attach_comments

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
_CONDITIONAL = re.compile(r"^\s*#\s*if", re.M)
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
    #: the file's text as read (what the output keeps where nothing changed)
    source: str | None = None


def _cpp_command() -> list[str]:
    for cand in ("cpp", "gcc", "cc", "clang"):
        exe = shutil.which(cand)
        if exe:
            return [exe] if cand == "cpp" else [exe, "-E"]
    raise InvalidInput("error: no C preprocessor found (install gcc or cpp)")


def preprocess(path: Path, cppflags: list[str]) -> str:
    """Run the C preprocessor on ``path`` against passman's library headers."""
    return start_preprocess(path, cppflags).result()


def start_preprocess(path: Path, cppflags: list[str]) -> Preprocessing:
    """:func:`preprocess` started: the preprocessor runs while the caller goes on."""
    from .plugins import load_plugins

    load_plugins()  # brokers register their header folders
    cmd = _cpp_command() + ["-nostdinc", "-undef", *PREDEFINED]
    for d in SYSTEM_INCLUDE_DIRS:
        cmd += ["-isystem", str(d)]
    cmd += list(cppflags)
    name = str(path)
    cmd += ["-x", "c", name if not name.startswith("-") else f"./{name}"]
    return Preprocessing(path, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE))


class Preprocessing:
    """A run of the preprocessor (:func:`start_preprocess`)."""

    def __init__(self, path: Path, proc: subprocess.Popen):
        self.path = path
        self.proc = proc

    def result(self) -> str:
        """The preprocessed text; :class:`InvalidInput` where the preprocessor failed."""
        out, err = self.proc.communicate()
        try:
            stdout, stderr = out.decode(), err.decode()
        except UnicodeDecodeError:
            raise InvalidInput(f"{self.path}: error: the file or a header it includes is not UTF-8 text") from None
        if self.proc.returncode != 0:
            lines = [ln for ln in stderr.splitlines() if "error" in ln]
            first = lines[0] if lines else stderr.strip().splitlines()[-1:] or ["preprocessing failed"]
            msg = first if isinstance(first, str) else first[0]
            raise InvalidInput(missing_header_message(msg.strip()))
        return stdout

    def close(self) -> None:
        """Stop the preprocessor if its answer is not wanted."""
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.communicate()


_MISSING = re.compile(r"^(?P<where>.*?): fatal error: (?P<name>[^:]+): No such file or directory$")


def missing_header_message(message: str) -> str:
    """cpp's message for an ``#include`` it could not find, said in passman's terms.

    A ``<header>`` with no model in passman's header folders (a library
    broker can add some, ``passman stubs`` lists them) is named as such; a
    missing user header keeps cpp's words, as an ``error:`` line.
    """
    m = _MISSING.match(message)
    if m is None:
        return message
    where, name = m.group("where"), m.group("name")
    line = _include_line(where)
    if line is not None and re.search(r"#\s*include\s*<", line):
        return (f"{where}: error: passman has no model of the library header <{name}> "
                "(its models are in stubs/include; a broker can add more)")
    return f"{where}: error: {name}: no such file"


def _include_line(where: str) -> str | None:
    """The source line ``file:line:col`` points at, if it can be read."""
    m = re.match(r"^(.*):(\d+):\d+$", where)
    if m is None:
        return None
    try:
        lines = Path(m.group(1)).read_text().splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    n = int(m.group(2))
    return lines[n - 1] if 0 < n <= len(lines) else None


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


class GenericSelection(c_ast.Node):
    """C11 ``_Generic(controlling, type: expr, ..., default: expr)`` (``None`` type: ``default``).

    Only between parsing and checking: :class:`Checker` replaces it by the chosen expression.
    """

    __slots__ = ("controlling", "associations", "coord", "chosen", "__weakref__")
    attr_names = ()

    def __init__(self, controlling: c_ast.Node, associations: list, coord=None):
        self.controlling = controlling
        self.associations = associations
        self.coord = coord
        self.chosen: c_ast.Node | None = None

    def children(self):
        """The controlling expression, then each association's type and expression."""
        out = [("controlling", self.controlling)]
        for i, (t, e) in enumerate(self.associations):
            if t is not None:
                out.append((f"type[{i}]", t))
            out.append((f"expr[{i}]", e))
        return tuple(out)


class CParser(c_parser.CParser):
    """pycparser's parser for GNU C (:class:`~passman.gnu_extensions.GnuLexer`), keeping what its AST would lose.

    ``[ID] =`` designators stay :class:`IndexDesignator`; ``__builtin_va_arg(ap, type)``
    and ``_Generic(...)`` are read (see the module documentation).
    """

    def __init__(self) -> None:
        super().__init__(lexer=GnuLexer)

    @property
    def attributes(self) -> list:
        """The GNU attributes the lexer took out of the last parsed text."""
        return self.clex.attributes

    def _parse_designator(self) -> c_ast.Node:
        bracket = self._peek_type() == "LBRACKET"
        node = super()._parse_designator()
        if bracket and type(node) is c_ast.ID:
            return IndexDesignator(node.name, node.coord)
        return node

    def _parse_primary_expression(self) -> c_ast.Node:
        tok = self._peek()
        if tok is not None and tok.type == "ID" and self._peek_type(2) == "LPAREN":
            if tok.value == "__builtin_va_arg":
                return self._parse_va_arg()
            if tok.value == "_Generic":
                return self._parse_generic()
        return super()._parse_primary_expression()

    def _parse_va_arg(self) -> c_ast.Node:
        tok = self._advance()
        coord = self._tok_coord(tok)
        self._expect("LPAREN")
        ap = self._parse_assignment_expression()
        self._expect("COMMA")
        typ = self._parse_type_name()
        self._expect("RPAREN")
        return c_ast.FuncCall(c_ast.ID(tok.value, coord), c_ast.ExprList([ap, typ], coord), coord)

    def _parse_generic(self) -> c_ast.Node:
        tok = self._advance()
        self._expect("LPAREN")
        controlling = self._parse_assignment_expression()
        associations: list = []
        while self._accept("COMMA"):
            if self._peek_type() == "DEFAULT":
                self._advance()
                typ = None
            else:
                typ = self._parse_type_name()
            self._expect("COLON")
            associations.append((typ, self._parse_assignment_expression()))
        self._expect("RPAREN")
        return GenericSelection(controlling, associations, self._tok_coord(tok))


def parse_text(text: str, filename: str) -> c_ast.FileAST:
    """Parse preprocessed C text; syntax errors become :class:`InvalidInput`."""
    parser = CParser()
    try:
        ast = parser.parse(text, filename)
        apply_attributes(ast, parser.attributes)
        return ast
    except UnsupportedExtension as err:
        raise InvalidInput(str(err)) from None
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
    # a size the build may choose: set on the command line, or under an #if (of the file, or of a header
    # found beside it or through -I); without any, no macro is asked about
    choosable = any(f.startswith(("-D", "-I", "-include", "-imacros")) for f in cppflags or []) or any(
        _CONDITIONAL.search(t) for t in [source, *(h.read_text(errors="replace") for h in local_includes(source, p.parent))])
    # the preprocessor's run that says which constants were macros goes on while the text is parsed;
    # with -dD its output also says where each macro is set
    plan = MacroPlan(source, text, str(p))
    plan.start(p, lambda file: start_preprocess(file, [*(cppflags or []), *(["-dD"] if choosable else [])]))
    try:
        ast = parse_text(text, str(p))
        check_nesting(ast, str(p))
        check_and_resolve(ast, text)
    except BaseException:
        plan.close()
        raise
    if plan.finish(ast) and choosable:
        macros = {c.macro for c in _macro_coords(ast, str(p))}
        chosen = build_chosen_macros(
            macros, lambda extra: plan.answer if plan.answer else preprocess(p, [*(cppflags or []), *extra]))
        name_size_macros(ast, str(p), chosen)
    attach_comments(ast, source, str(p))
    return ParsedFile(
        path=p,
        coord_name=str(p),
        ast=ast,
        directives=scan_directives(source),
        local_headers=local_includes(source, p.parent),
        macros=scan_directives(source, everything=True),
        source=source,
    )


def _macro_coords(ast: c_ast.FileAST, name: str) -> Iterator[MacroCoord]:
    """The macro marks of the constants in the nodes of file ``name`` (never in a header's)."""
    stack: list[c_ast.Node] = [n for n in ast.ext
                               if (n.decl.coord if isinstance(n, c_ast.FuncDef) else n.coord) is not None
                               and (n.decl.coord if isinstance(n, c_ast.FuncDef) else n.coord).file == name]
    while stack:
        n = stack.pop()
        if isinstance(n, c_ast.Constant) and isinstance(n.coord, MacroCoord):
            yield n.coord
        stack.extend(c for c in child_nodes(n))


def parse_string(code: str, filename: str = "<string>") -> c_ast.FileAST:
    """Parse C text that needs no preprocessing (for ``module.code = ...``)."""
    return parse_text(code, filename)


class Checker(SemanticChecker):
    """The semantic check (:mod:`.semantic`), choosing each ``_Generic``'s association on the way.

    It also knows the two GNU built-ins whose arguments are types:
    ``__builtin_va_arg(ap, type)`` has that type, ``__builtin_offsetof`` is ``offsetof``.
    """

    def _FuncCall(self, e: c_ast.FuncCall):  # noqa: N802 - dispatched by node class name
        name = e.name.name if isinstance(e.name, c_ast.ID) else None
        if name in ("__builtin_va_arg", "__builtin_offsetof") and isinstance(e.args, c_ast.ExprList):
            ap, typ = e.args.exprs if name == "__builtin_va_arg" else e.args.exprs[::-1]
            if isinstance(typ, c_ast.Typename):
                if name == "__builtin_offsetof":
                    self.declared_type(typ, None)
                    return self.expr(c_ast.Constant("unsigned long", "0UL"))
                self.expr(ap)
                return self.declared_type(typ, None)
        return super()._FuncCall(e)

    def _GenericSelection(self, e: GenericSelection):  # noqa: N802 - dispatched by node class name
        t = self.value(e.controlling)
        t = unqualified(decay(t)) if is_known(t) else t
        default = None
        for typ, expr in e.associations:
            if typ is None:
                default = expr
                continue
            if not is_known(t):
                break
            if compatible(t, self.declared_type(typ, None)):
                e.chosen = expr
                break
        else:
            e.chosen = default
        if e.chosen is None and not is_known(t):
            self.fail(e, "_Generic: passman cannot tell the type of the controlling expression")
        if e.chosen is None:
            self.fail(e, f"'_Generic' selector of type '{t.spelled}' is not compatible with any association")
        return self.expr(e.chosen) if e.chosen is not None else UNKNOWN


def _replace_selections(node: c_ast.Node) -> c_ast.Node:
    """``node`` with every resolved :class:`GenericSelection` replaced by its chosen expression."""
    while isinstance(node, GenericSelection):
        node = node.chosen
    for slot in getattr(node, "__slots__", ()):
        value = getattr(node, slot, None)
        if isinstance(value, c_ast.Node):
            setattr(node, slot, _replace_selections(value))
        elif isinstance(value, list):
            value[:] = [_replace_selections(v) if isinstance(v, c_ast.Node) else v for v in value]
    return node


def check_and_resolve(ast: c_ast.FileAST, preprocessed: str | None = None) -> None:
    """Check ``ast`` as gcc would (:func:`~passman.semantic.check_unit`), resolving ``_Generic`` selections."""
    Checker(preprocessed).file(ast)
    if "_Generic" in (preprocessed or "_Generic"):
        _replace_selections(ast)
