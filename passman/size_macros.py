"""Size macros the build chooses, kept as names for the passes.

PolyBench and programs like it pick their sizes when they are built:
``#ifdef LARGE_DATASET`` / ``#define N 4000`` in a header, or ``#ifndef N``
around a default, or ``-DN=4000`` on the command line. The preprocessor has
replaced ``N`` by one value before pycparser sees the code, so a pass would
reason on that value (``N`` is 60 to the dependence test and the scheduler)
and the code it writes would be right for 60 only.

So a constant the front end knows came from such a macro
(:class:`~passman.macro_constants.MacroCoord`) goes back to being the name
``N`` where C allows a name there: an expression, a loop bound, the size of
an array parameter or of an automatic array without initializer. To the
passes ``N`` is then an ``extern const`` integer they know nothing about,
declared by a hidden header node (never printed): whatever they prove holds
for every size, their output says ``N``, and the build's preprocessor gives
it the value the build chose. A place where C wants a constant (a file-scope
array, a ``case``, a bit-field, a static local, a struct member, an
initializer's designator) keeps the value, and the unit's size guard
(:meth:`passman.unit.CompilationUnit.code`) still stops a build at another
size when such a constant is in the file.

A macro is chosen by the build when its definition in force is on the
command line or inside an ``#if``/``#ifdef``/``#ifndef`` (an include
guard does not count); a plain ``#define N 1000`` stays a value, as it is
for the compiler whatever ``-D`` is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from pycparser import c_ast
from pycparser.c_parser import Coord

from .astutil import child_nodes
from .macro_constants import MacroCoord
from .source_text import tokenize

__all__ = ["SIZE_HEADER", "build_chosen_macros", "name_size_macros", "specialize", "specialized"]

#: The coordinate file of the hidden declarations of size macros.
SIZE_HEADER = "<passman size macros>"

_MARKER = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"')
_DEFINE = re.compile(r"^#\s*(define|undef)\s+([A-Za-z_]\w*)(\(?)")
_HEAD = re.compile(r"#\s*(\w+)\s*(.*)", re.S)
_IDENT = re.compile(r"[A-Za-z_]\w*")
_INTEGER = re.compile(r"^(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)$")


def build_chosen_macros(names: set[str], preprocess: Callable[[list[str]], str]) -> set[str]:
    """Those of ``names`` whose value the build chooses (see the module's text).

    A macro is chosen when its definition in force is on the command line
    or inside a conditional, or when it expands to a chosen macro
    (PolyBench's ``_PB_N`` is ``N``). ``preprocess(extra_flags)`` runs the
    file's preprocessor with more flags.
    """
    if not names:
        return set()
    try:
        out = preprocess(["-dD"])
    except Exception:  # noqa: BLE001 - without the answer no macro is taken as chosen
        return set()
    defined: dict[str, tuple[str, int, str]] = {}  # name -> file, line, body text
    current, line = "", 0
    for text in out.split("\n"):
        if text.startswith("#"):
            m = _MARKER.match(text)
            if m:
                current, line = m.group(2), int(m.group(1))
                continue
            d = _DEFINE.match(text)
            if d:
                if d.group(1) == "undef":
                    defined.pop(d.group(2), None)
                else:
                    defined[d.group(2)] = (current, line, text[d.end():])
        line += 1
    depths: dict[str, dict[int, int]] = {}
    memo: dict[str, bool] = {}

    def chosen(name: str, path: frozenset[str]) -> bool:
        if name in memo:
            return memo[name]
        if name not in defined or name in path:
            return False
        file, at, body = defined[name]
        if file == "<command-line>":
            result = True
        elif file.startswith("<"):
            result = False
        else:
            if file not in depths:
                depths[file] = _conditional_depths(file)
            result = depths[file].get(at, 0) > 0
        if not result:  # or it expands to a chosen macro
            result = any(chosen(x, path | {name}) for x in _IDENT.findall(body) if x in defined)
        memo[name] = result
        return result

    return {n for n in names if chosen(n, frozenset())}


def _conditional_depths(file: str) -> dict[int, int]:
    """For each line of ``file`` that holds a directive, how many conditionals (no include guard) enclose it."""
    try:
        text = Path(file).read_text()
    except (OSError, UnicodeDecodeError):
        return {}
    directives = []
    for tok in tokenize(text):
        if tok.kind == "directive":
            m = _HEAD.match(text, tok.start, tok.end)
            if m:
                directives.append((tok.line, m.group(1), m.group(2).strip()))
    out: dict[int, int] = {}
    stack: list[bool] = []  # per open conditional: whether it counts (not an include guard)
    for k, (line, kind, rest) in enumerate(directives):
        if kind in ("if", "ifdef", "ifndef"):
            guard = _is_guard(kind, rest, directives[k + 1] if k + 1 < len(directives) else None)
            stack.append(not guard)
        elif kind == "endif" and stack:
            stack.pop()
        out[line] = sum(stack)
    return out


def _is_guard(kind: str, rest: str, following: tuple[int, str, str] | None) -> bool:
    m = re.fullmatch(r"(?:!\s*defined\s*\(?\s*)?([A-Za-z_]\w*)\s*\)?", rest) if kind != "ifdef" else None
    if m is None or (kind == "if" and not rest.startswith("!")) or following is None:
        return False
    return following[1] == "define" and following[2] == m.group(1)


def name_size_macros(ast: c_ast.FileAST, coord_name: str, chosen: set[str]) -> set[str]:
    """Write back as names the constants of ``ast`` that came from a macro of ``chosen``, where C allows.

    Returns the macros written back; each gets a hidden ``extern const``
    declaration at the start of the unit.
    """
    if not chosen:
        return set()
    named: dict[str, str] = {}  # macro -> its C type
    visitor = _Namer(chosen, named)
    for node in ast.ext:
        if isinstance(node, c_ast.FuncDef) and _in_file(node.decl, coord_name):
            visitor.function(node)
        elif isinstance(node, c_ast.Decl) and isinstance(node.type, c_ast.FuncDecl) and _in_file(node, coord_name):
            visitor.parameters(node.type)
    decls = []
    for name, ctype in sorted(named.items()):
        coord = Coord(SIZE_HEADER, 0, 0)
        tdecl = c_ast.TypeDecl(name, [], None, c_ast.IdentifierType(ctype.split()), coord=coord)
        decls.append(c_ast.Decl(name, ["const"], [], ["extern"], [], tdecl, None, None, coord=coord))
    ast.ext[:0] = decls
    return set(named)


def _in_file(node: c_ast.Node, coord_name: str) -> bool:
    return node.coord is not None and node.coord.file == coord_name


def _has_jump(node: c_ast.Node) -> bool:
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (c_ast.Goto, c_ast.Switch)):
            return True
        stack.extend(c for c in child_nodes(n))
    return False


class _Namer:
    """Replaces the constants of chosen macros in the places where C allows any integer expression."""

    def __init__(self, chosen: set[str], named: dict[str, str]):
        self.chosen = chosen
        self.named = named
        self.arrays = True  # whether automatic arrays may become variable-length ones

    def function(self, fd: c_ast.FuncDef) -> None:
        if isinstance(fd.decl.type, c_ast.FuncDecl):
            self.parameters(fd.decl.type)
        # a goto or switch may not jump into the scope of a variable-length array
        self.arrays = not _has_jump(fd.body)
        self.visit(fd.body)

    def parameters(self, fdecl: c_ast.FuncDecl) -> None:
        for p in (fdecl.args.params if fdecl.args else []):
            if isinstance(p, c_ast.Decl):
                self.type_(p.type)

    def _named(self, node: c_ast.Node) -> c_ast.Node:
        c = node.coord
        if not (isinstance(node, c_ast.Constant) and isinstance(c, MacroCoord) and c.macro in self.chosen):
            return node
        m = _INTEGER.match(c.expansion)
        if m is None or node.type not in ("int", "unsigned int", "long int", "unsigned long int",
                                          "long long int", "unsigned long long int"):
            return node
        if self.named.setdefault(c.macro, node.type) != node.type:
            return node  # one macro, two types: keep the values
        return c_ast.ID(c.macro, coord=c)

    def visit(self, node: c_ast.Node | None) -> None:
        if node is None:
            return
        if isinstance(node, (c_ast.Struct, c_ast.Union, c_ast.Enum, c_ast.Typedef, c_ast.StaticAssert,
                             c_ast.Pragma)):
            return
        if isinstance(node, c_ast.Case):
            for s in node.stmts or []:
                self.visit(s)
            return
        if isinstance(node, c_ast.Decl):
            self.declaration(node)
            return
        if isinstance(node, c_ast.NamedInitializer):
            node.expr = self._named(node.expr)
            self.visit(node.expr)
            return
        if isinstance(node, c_ast.Typename):
            self.type_(node.type)
            return
        self._replace_children(node)

    def declaration(self, d: c_ast.Decl) -> None:
        if "static" in d.storage or "extern" in d.storage or d.bitsize is not None:
            return
        if isinstance(d.type, (c_ast.Struct, c_ast.Union, c_ast.Enum)):
            return
        if not isinstance(d.type, c_ast.ArrayDecl) or (d.init is None and self.arrays):
            self.type_(d.type)  # an array object with an initializer keeps constant sizes
        if d.init is not None:
            d.init = self._named(d.init)
            self.visit(d.init)

    def type_(self, t: c_ast.Node | None) -> None:
        """The sizes in a declarator, down to its base type (left alone: a struct's members keep theirs)."""
        while isinstance(t, (c_ast.ArrayDecl, c_ast.PtrDecl, c_ast.FuncDecl)):
            if isinstance(t, c_ast.ArrayDecl) and t.dim is not None:
                t.dim = self._named(t.dim)
                self.visit(t.dim)
            t = t.type

    def _replace_children(self, node: c_ast.Node) -> None:
        for slot in node.__slots__:
            if slot in ("coord", "__weakref__"):
                continue
            value = getattr(node, slot, None)
            if isinstance(value, c_ast.Node):
                new = self._named(value)
                if new is not value:
                    setattr(node, slot, new)
                else:
                    self.visit(value)
            elif isinstance(value, list):
                for k, item in enumerate(value):
                    if isinstance(item, c_ast.Node):
                        new = self._named(item)
                        if new is not item:
                            value[k] = new
                        else:
                            self.visit(item)


def specialize(node: c_ast.Node, unit: c_ast.FileAST | None = None) -> set[str]:
    """Put back the parsed value of every size macro named under ``node``; the macros put back.

    The constants keep their :class:`~passman.macro_constants.MacroCoord`,
    so the output still says the macro's name. The hidden declarations of
    those macros in ``unit`` are marked (their coordinate becomes a
    ``MacroCoord`` with the value), and the unit's size guard names them
    from then on, whatever the passes do with the constants.
    """
    done: set[str] = set()

    def value(n: c_ast.Node) -> c_ast.Node:
        c = n.coord
        if isinstance(n, c_ast.ID) and isinstance(c, MacroCoord) and _INTEGER.match(c.expansion):
            done.add(c.macro)
            return c_ast.Constant(_literal_type(c.expansion), c.expansion, coord=c)
        return n

    stack = [node]
    while stack:
        n = stack.pop()
        for slot in n.__slots__:
            if slot in ("coord", "__weakref__"):
                continue
            v = getattr(n, slot, None)
            if isinstance(v, c_ast.Node):
                setattr(n, slot, value(v))
                stack.append(getattr(n, slot))
            elif isinstance(v, list):
                v[:] = [value(x) if isinstance(x, c_ast.Node) else x for x in v]
                stack.extend(x for x in v if isinstance(x, c_ast.Node))
    for d in (unit.ext if unit is not None else []):
        if isinstance(d, c_ast.Decl) and d.name in done and d.coord is not None and d.coord.file == SIZE_HEADER:
            value = next(iter(_values_of(node, d.name)), None)
            if value is not None:
                d.coord = MacroCoord(SIZE_HEADER, 0, 0, d.name, value)
    return done


def specialized(unit: c_ast.FileAST) -> dict[str, str]:
    """The size macros of ``unit`` that :func:`specialize` gave a value, with it."""
    return {d.coord.macro: d.coord.expansion for d in unit.ext
            if isinstance(d, c_ast.Decl) and isinstance(d.coord, MacroCoord) and d.coord.file == SIZE_HEADER}


def _values_of(node: c_ast.Node, macro: str) -> set[str]:
    out = set()
    stack = [node]
    while stack:
        n = stack.pop()
        c = n.coord
        if isinstance(n, c_ast.Constant) and isinstance(c, MacroCoord) and c.macro == macro:
            out.add(c.expansion)
        stack.extend(x for _, x in n.children())
    return out


def _literal_type(text: str) -> str:
    """pycparser's type of an integer literal."""
    suffix = text.lstrip("0123456789abcdefABCDEFxX").lower()
    unsigned = "unsigned " if "u" in suffix else ""
    longs = suffix.count("l")
    return unsigned + ("long long int" if longs == 2 else "long int" if longs == 1 else "int")
