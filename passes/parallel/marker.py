"""The internal marker of a parallel loop, where OpenMP can put its pragma, and which nests it collapses.

Parallelization passes (:mod:`.parallelize`) record their decisions in the IR
as a pragma right before the loop (in its block), which :mod:`.ompify`
turns into OpenMP::

    #pragma passman parallel private(j, t) lastprivate(i) reduction(+:s)
    for (i = 0; i < n; i++) ...

Here: the marker's clauses (:class:`ParallelMarker`), reading and writing
it on a loop (:func:`marker`, :func:`is_marked_parallel`,
:func:`set_marker`, :func:`remove_marker`), whether an OpenMP pragma can be
printed right before a loop's ``for`` (:func:`placement_problem`), the
OpenMP canonical loop form (:func:`canonical_form`) and the perfect nests
worth a ``collapse(n)`` (:func:`collapse_chain`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from pycparser import c_ast, c_parser

from passman import Loop, register_property
from passman.astutil import replace_child, walk
from passman.loop import LoopSite, iter_sites, located_sites
from passman.printer import to_c

from ..analysis.effect_model import function_scope
from ..cfacts.control import escaping_jumps
from ..cfacts.folding import int_value, simplify
from ..cfacts.sideeffects import has_side_effects, variables, writes
from .verdicts import loop_verdict

__all__ = [
    "MARKER",
    "ParallelMarker",
    "block_of",
    "canonical_form",
    "canonical_index",
    "clauses",
    "collapse_chain",
    "constant_value",
    "has_omp_pragma",
    "is_marked_parallel",
    "marked_loops",
    "marker",
    "marker_at",
    "placement_problem",
    "inside",
    "pragmas_at",
    "pragmas_of",
    "remove_marker",
    "replace_pragma",
    "set_marker",
    "sole_loop",
    "split_list",
    "without_variable",
]

#: the first words of the internal pragma that marks a parallel loop
MARKER = "passman parallel"

COLLAPSE_BELOW = register_property(
    "parallel_collapse_below",
    int,
    64,
    "a perfect nest of parallel loops is collapsed when its outer loop runs a known number of iterations below this",
)

# ------------------------------------------------------------------------ the marker


@dataclass(frozen=True)
class ParallelMarker:
    """The clauses of ``#pragma passman parallel``: what every iteration owns, what is reduced.

    ``reductions`` are ``(operator, item)`` pairs: ``("+", "s")``,
    ``("max", "m")``, ``("+", "hist[0:256]")`` (an OpenMP array section).
    ``condition``: the run-time profitability test (an OpenMP ``if`` clause,
    ``n * m >= 2000``; "" for none), or with ``versioned`` the test that
    chooses between a parallel and a sequential copy of the loop (written
    ``version(...)`` in the marker), see :mod:`.profitability`.
    """

    private: tuple[str, ...] = ()
    lastprivate: tuple[str, ...] = ()
    reductions: tuple[tuple[str, str], ...] = ()
    condition: str = ""
    versioned: bool = False  # the condition chooses a parallel or a sequential copy (``version(...)``)

    @property
    def text(self) -> str:
        """The pragma's text (without ``#pragma``)."""
        parts = [MARKER]
        if self.private:
            parts.append(f"private({', '.join(self.private)})")
        if self.lastprivate:
            parts.append(f"lastprivate({', '.join(self.lastprivate)})")
        parts += [f"reduction({op}:{item})" for op, item in self.reductions]
        if self.condition:
            parts.append(f"{'version' if self.versioned else 'if'}({self.condition})")
        return " ".join(parts)

    @classmethod
    def parse(cls, text: str) -> ParallelMarker | None:
        """The marker a pragma's text holds, or None if it is not a marker."""
        words = text.split(None, 2)
        if words[:2] != MARKER.split():
            return None
        private: list[str] = []
        last: list[str] = []
        reds: list[tuple[str, str]] = []
        condition, versioned = "", False
        for name, arg in clauses(words[2] if len(words) > 2 else ""):
            arg = arg or ""
            if name == "private":
                private += split_list(arg)
            elif name == "lastprivate":
                last += split_list(arg)
            elif name == "reduction":
                op, _, items = arg.partition(":")
                reds += [(op.strip(), item) for item in split_list(items)]
            elif name in ("if", "version"):
                condition, versioned = (arg or "").strip(), name == "version"
        return cls(tuple(private), tuple(last), tuple(reds), condition, versioned)

    def merged(self, other: ParallelMarker) -> ParallelMarker:
        """The clauses of both markers (a collapsed nest: one pragma for several loops).

        The outer marker's (``self``) condition stays, alone: it weighs the whole
        nest, and the inner one's may name the outer loop's index, unknown
        where the pragma stands.
        """
        return ParallelMarker(
            _union(self.private, other.private),
            _union(self.lastprivate, other.lastprivate),
            _union(self.reductions, other.reductions),
            self.condition,  # the inner loop's may name the outer index (fuzz seed 140219)
            self.versioned,
        )


def _union(a: tuple, b: tuple) -> tuple:
    return tuple(dict.fromkeys((*a, *b)))


def clauses(text: str) -> Iterator[tuple[str, str | None]]:
    """The words and ``name(argument)`` clauses of a pragma, parentheses balanced.

    ``omp for private(a, b)`` -> ``("omp", None), ("for", None), ("private", "a, b")``.
    """
    k, n = 0, len(text)
    while k < n:
        m = re.compile(r"\s*([A-Za-z_]\w*)\s*").match(text, k)
        if not m:
            break
        name, k = m.group(1), m.end()
        if k < n and text[k] == "(":
            depth, start = 0, k + 1
            while k < n:
                depth += {"(": 1, ")": -1}.get(text[k], 0)
                k += 1
                if depth == 0:
                    break
            yield name, text[start : k - 1]
        else:
            yield name, None


def split_list(arg: str) -> list[str]:
    """Split ``a, b[0:n], c`` at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in arg:
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(ch, 0)
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


#: the clauses whose argument is a list of variables
DATA_CLAUSES = ("private", "firstprivate", "lastprivate", "shared", "copyin", "copyprivate")


def without_variable(text: str, name: str) -> str:
    """A pragma's text with ``name`` taken out of its data clauses (a clause left empty goes).

    ``omp parallel for private(j, t)`` without ``j`` -> ``omp parallel for private(t)``;
    the text is returned unchanged when no clause names ``name``.
    """
    parts, changed = [], False
    for word, arg in clauses(text):
        if arg is not None and word in DATA_CLAUSES:
            items = split_list(arg)
            kept = [x for x in items if x != name]
            if len(kept) != len(items):
                changed = True
                if not kept:
                    continue
                arg = ", ".join(kept)
        parts.append(word if arg is None else f"{word}({arg})")
    return " ".join(parts) if changed else text


def pragmas_of(loop: Loop) -> list[c_ast.Pragma]:
    """The ``#pragma`` nodes right before the loop in its block (they apply to it)."""
    return pragmas_at(loop.site)


def pragmas_at(site: LoopSite) -> list[c_ast.Pragma]:
    """:func:`pragmas_of` the loop at ``site`` (one walk of the function finds every site)."""
    items = block_of(site.parent)
    if items is None:
        return []
    i = next(k for k, n in enumerate(items) if n is site.labelled)
    j = i
    while j > 0 and isinstance(items[j - 1], c_ast.Pragma):
        j -= 1
    return items[j:i]


def block_of(parent: c_ast.Node) -> list[c_ast.Node] | None:
    """The statement list of a block or ``case`` (None for other parents: ``for`` bodies, branches)."""
    if isinstance(parent, c_ast.Compound):
        return parent.block_items
    if isinstance(parent, (c_ast.Case, c_ast.Default)):
        return parent.stmts
    return None


def marker(loop: Loop) -> ParallelMarker | None:
    """The ``#pragma passman parallel`` marker of ``loop``, if it has one."""
    return marker_at(loop.site)


def marker_at(site: LoopSite) -> ParallelMarker | None:
    """:func:`marker` of the loop at ``site``."""
    for p in pragmas_at(site):
        m = ParallelMarker.parse(p.string)
        if m is not None:
            return m
    return None


def marked_loops(module) -> list[Loop]:
    """The loops of ``module`` that carry a marker, outer before inner (one walk of the function)."""
    return [Loop(module, s.label, s) for s in iter_sites(located_sites(module.ast)) if marker_at(s) is not None]


def is_marked_parallel(loop: Loop) -> bool:
    """Whether a parallelization pass marked ``loop`` parallel (``#pragma passman parallel``)."""
    return marker(loop) is not None


def has_omp_pragma(loop: Loop) -> bool:
    """Whether an ``#pragma omp`` line (the user's or ompify's) sits right before ``loop``.

    A bare ``#pragma omp parallel`` does not count: every thread of the
    region runs the whole loop (a time loop around ``omp for`` loops,
    :mod:`.hoist`), which stays sequential.
    """
    for p in pragmas_of(loop):
        words = [name for name, _ in clauses(p.string)]
        if words[:1] == ["omp"] and (words[1:2] != ["parallel"] or words[2:3] in (["for"], ["loop"])):
            return True
    return False


def remove_marker(loop: Loop) -> bool:
    """Remove ``loop``'s marker (inside a transformation); whether there was one."""
    site = loop.site
    items = block_of(site.parent)
    gone = [p for p in pragmas_of(loop) if ParallelMarker.parse(p.string) is not None]
    if items is not None and gone:
        items[:] = [n for n in items if not any(n is g for g in gone)]
    return bool(gone)


def set_marker(loop: Loop, m: ParallelMarker) -> None:
    """Put marker ``m`` right before ``loop`` (inside a transformation), replacing any other.

    A loop that is not in a block (the body of a ``for`` or an ``if``
    without braces) is first wrapped in one.
    """
    remove_marker(loop)
    replace_pragma(loop, None, m.text)


def replace_pragma(loop: Loop, old: c_ast.Pragma | None, text: str) -> None:
    """Replace pragma ``old`` before ``loop`` by ``#pragma text`` (insert it right before the loop if None)."""
    site = loop.site
    items = block_of(site.parent)
    if items is None:
        block = c_ast.Compound([site.labelled], site.labelled.coord)
        replace_child(site.parent, site.labelled, block)
        items = block.block_items
    new = c_ast.Pragma(text, site.node.coord)
    if old is not None:
        k = next(k for k, n in enumerate(items) if n is old)
        items[k] = new
    else:
        k = next(k for k, n in enumerate(items) if n is site.labelled)
        items.insert(k, new)


def placement_problem(loop: Loop) -> str | None:
    """Why no OpenMP pragma can be printed right before the loop's ``for`` (None: it can).

    OpenMP wants its pragma immediately before ``for``: a label the user
    wrote on the loop (printed between them) or another pragma on the loop
    (``#pragma GCC ivdep``, which wants the same place) stands in the way.
    """
    if not loop.generated:
        return f"it carries the label '{loop.label}:', which would separate an OpenMP pragma from its 'for'"
    for p in pragmas_of(loop):
        if ParallelMarker.parse(p.string) is None:
            return f"it carries '#pragma {p.string}', which needs the place right before 'for' that OpenMP's pragma needs"
    return None


def inside(loop: Loop, pred) -> bool:
    """Whether a loop enclosing ``loop`` satisfies ``pred``."""
    o = loop.outer
    while o is not None:
        if pred(o):
            return True
        o = o.outer
    return False


# ------------------------------------------------------------------------ nest shapes


def sole_loop(stmt: c_ast.Node) -> c_ast.Label | None:
    """The loop (its ``Label``) that is all of ``stmt``: the loop itself, or a block holding only it
    (and pragmas)."""
    if isinstance(stmt, c_ast.Label) and isinstance(stmt.stmt, c_ast.For):
        return stmt
    if isinstance(stmt, c_ast.Compound):
        items = [n for n in stmt.block_items or [] if not isinstance(n, c_ast.Pragma)]
        if len(items) == 1:
            return sole_loop(items[0])
    return None


def collapse_chain(loop: Loop, marked=None) -> list[Loop]:
    """The perfect rectangular nest of marked loops starting at ``loop`` that OpenMP should collapse.

    ``loop`` first; each next loop is the whole body of the previous one,
    marked (``marked(loop)``, default :func:`is_marked_parallel`), in
    OpenMP canonical form, with bounds that do not depend on the indices
    of the chain nor on anything its body writes. Only worth it, so only
    done, when ``loop`` runs a known number of iterations below the
    property ``parallel_collapse_below`` (64): too few to keep the threads
    busy; otherwise the collapsed index arithmetic costs more than it gives
    (gcc 12: matmul twice slower on one thread). The innermost loop of a
    nest is never collapsed: it stays a plain loop the compiler can vectorize.
    """
    marked = marked or is_marked_parallel
    chain = [loop]
    trips = constant_value(loop_verdict(loop).trip_count)
    if trips is None or trips >= loop.module.ws.props.parallel_collapse_below:
        return chain
    while True:
        node = chain[-1].node
        inner = sole_loop(node.stmt)
        if inner is None:
            return chain
        nxt = Loop(loop.module, inner.name)
        if not marked(nxt) or canonical_form(nxt) is not None or placement_problem(nxt):
            return chain
        between = node.stmt.block_items or [] if isinstance(node.stmt, c_ast.Compound) else []
        if any(isinstance(p, c_ast.Pragma) and ParallelMarker.parse(p.string) is None for p in between):
            return chain
        if not any(isinstance(n, c_ast.For) for n in walk(inner.stmt.stmt)):
            return chain  # the innermost loop: keep it vectorizable
        indices = {canonical_index(lp.node) for lp in chain}
        written = {w.base.name for w in writes(loop.node.stmt) if w.base is not None}
        f = inner.stmt
        bounds = [f.init, f.cond]
        used = {v.name for b in bounds for v in variables(b)} - {canonical_index(f)}
        if used & (indices | written):
            return chain
        chain.append(nxt)


def canonical_index(f: c_ast.For) -> str | None:
    """The index of a loop whose initialization is ``i = lb`` or ``T i = lb``."""
    init = f.init
    if isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        return init.decls[0].name
    return None


_RELOPS = {"<", "<=", ">", ">="}


def canonical_form(loop: Loop) -> str | None:
    """Why ``loop`` is not in OpenMP canonical form (None when it is).

    ``for (i = lb; i < ub; i++)``: init ``i = lb`` or ``T i = lb`` with an
    integer index; test ``<``, ``<=``, ``>``, ``>=`` against an expression
    without side effects; increment ``i++``, ``i--``, ``i += c``,
    ``i -= c``, ``i = i + c``; no jump out of the body; the index not
    written in the body.
    """
    f = loop.node
    index = canonical_index(f)
    if index is None:
        return "its initialization is not 'i = lb'"
    scope = function_scope(loop.module)
    decl = None
    if isinstance(f.init, c_ast.DeclList):
        decl = f.init.decls[0]
    else:
        decl = scope.names.decl_of(f.init.lvalue)
    if not isinstance(decl, c_ast.Decl) or scope.types.category(decl.type) not in ("signed", "unsigned"):
        return f"its index {index} is not an integer variable"
    cond = f.cond
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in _RELOPS):
        return "its test is not a comparison with <, <=, > or >="
    sides = [cond.left, cond.right]
    is_index = [isinstance(s, c_ast.ID) and s.name == index for s in sides]
    if is_index.count(True) != 1:
        return f"its test does not compare {index} with a bound"
    bound = sides[1] if is_index[0] else sides[0]
    if has_side_effects(bound) or any(v.name == index for v in variables(bound)):
        return f"its bound {to_c(bound)} is not loop-invariant"
    nxt = f.next
    ok = False
    if isinstance(nxt, c_ast.UnaryOp) and nxt.op in ("++", "p++", "--", "p--"):
        ok = isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == index
    elif isinstance(nxt, c_ast.Assignment) and isinstance(nxt.lvalue, c_ast.ID) and nxt.lvalue.name == index:
        step = None
        if nxt.op in ("+=", "-="):
            step = nxt.rvalue
        elif nxt.op == "=" and isinstance(nxt.rvalue, c_ast.BinaryOp) and nxt.rvalue.op in ("+", "-"):
            r = nxt.rvalue
            if isinstance(r.left, c_ast.ID) and r.left.name == index:
                step = r.right
            elif r.op == "+" and isinstance(r.right, c_ast.ID) and r.right.name == index:
                step = r.left
        ok = step is not None and not has_side_effects(step) and all(v.name != index for v in variables(step))
    if not ok:
        return "its increment is not i++, i--, i += c or i = i + c"
    jumps = escaping_jumps(f.stmt)
    if jumps:
        return "its body can be left early"
    if any(w.base is not None and w.base.name == index and w.kind == "whole" for w in writes(f.stmt)):
        return f"its index {index} is written in the body"
    return None



def constant_value(text: str | None) -> int | None:
    """The value of a C integer constant expression (``"250 - 2"``), None if it is not one."""
    if text is None:
        return None
    text = text.strip()
    if re.fullmatch(r"\d+", text):
        return int(text)
    try:
        ast = c_parser.CParser().parse(f"int x = {text};")
    except Exception:  # noqa: BLE001 - not a C expression: unknown
        return None
    return int_value(simplify(ast.ext[0].init))
