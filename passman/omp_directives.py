"""OpenMP directives written in the input (``#pragma omp ...``): their syntax.

A C compiler without ``-fopenmp`` ignores OpenMP directives, but passman's
OpenMP output is compiled with it, where gcc checks them; a malformed
directive would come out as a program that does not build. The front end
therefore reads each directive as gcc does. :func:`parse_directive` splits
the text into the directive (``parallel for``) and its clauses
(``private(i, j)``), checking the clause names the directive allows and the
shape of their arguments; :func:`loop_form_problem` checks that a loop a
directive applies to has OpenMP's canonical form (``for (i = lb; i < ub;
i += step)``). Names, types and constants in clauses are checked by
:mod:`passman.semantic`, which knows the scopes.

Directives gcc does not know are ignored, as gcc ignores them; only the
common directives (those of OpenMP 3 and the ``simd`` and ``taskloop`` forms)
are checked, the others (``target``, ``declare``, ...) are accepted as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pycparser import c_ast

_TOKEN = re.compile(r"\s*(?:([A-Za-z_]\w*)|(\d[\w.]*)|(&&|\|\||[^\s\w]))")

_PARALLEL = {"if", "num_threads", "default", "private", "firstprivate", "shared", "copyin",
             "reduction", "proc_bind", "allocate"}
_FOR = {"private", "firstprivate", "lastprivate", "linear", "reduction", "schedule", "collapse",
        "ordered", "nowait", "allocate", "order"}
_SIMD = {"safelen", "simdlen", "linear", "aligned", "private", "lastprivate", "reduction",
         "collapse", "nontemporal", "if", "order"}
_TASK = {"if", "final", "untied", "default", "mergeable", "private", "firstprivate", "shared",
         "depend", "priority", "in_reduction", "allocate", "detach", "affinity"}
_TASKLOOP = {"if", "shared", "private", "firstprivate", "lastprivate", "default", "grainsize",
             "num_tasks", "collapse", "final", "priority", "untied", "mergeable", "nogroup",
             "reduction", "in_reduction", "allocate"}
_SECTIONS = {"private", "firstprivate", "lastprivate", "reduction", "nowait", "allocate"}

#: checked directives and the clauses each allows
DIRECTIVES: dict[str, set[str]] = {
    "parallel": _PARALLEL,
    "for": _FOR,
    "simd": _SIMD,
    "for simd": _FOR | _SIMD,
    "parallel for": _PARALLEL | _FOR - {"nowait"},
    "parallel for simd": _PARALLEL | _FOR | _SIMD - {"nowait"},
    "sections": _SECTIONS,
    "parallel sections": _PARALLEL | _SECTIONS - {"nowait"},
    "section": set(),
    "single": {"private", "firstprivate", "copyprivate", "nowait", "allocate"},
    "master": set(),
    "critical": {"hint"},
    "barrier": set(),
    "atomic": {"read", "write", "update", "capture", "seq_cst", "acq_rel", "release", "acquire",
               "relaxed", "hint"},
    "flush": {"acq_rel", "release", "acquire"},
    "ordered": {"threads", "simd", "depend"},
    "task": _TASK,
    "taskwait": {"depend"},
    "taskyield": set(),
    "taskgroup": {"task_reduction", "allocate"},
    "taskloop": _TASKLOOP,
    "taskloop simd": _TASKLOOP | _SIMD,
    "threadprivate": set(),
}
#: directives that apply to the ``for`` loop after them
LOOP_DIRECTIVES = frozenset(("for", "simd", "for simd", "parallel for", "parallel for simd",
                             "taskloop", "taskloop simd"))
#: directives that are statements of their own (no structured block after them)
STANDALONE = frozenset(("barrier", "flush", "taskwait", "taskyield", "threadprivate"))
#: directives followed by a parenthesized list or name (``critical(name)``, ``flush(a, b)``)
_DIRECTIVE_ARGUMENT = {"critical": "name", "flush": "list", "threadprivate": "list"}

#: clauses whose argument is a list of variables
LIST_CLAUSES = frozenset(("private", "firstprivate", "lastprivate", "shared", "copyin",
                          "copyprivate", "nontemporal", "linear", "aligned", "reduction"))
#: clauses whose argument is an expression (``INTEGER``: an integer one; ``CONSTANT``: a positive constant)
EXPRESSION_CLAUSES = {"if": "scalar", "final": "scalar", "num_threads": "integer",
                      "priority": "integer", "grainsize": "integer", "num_tasks": "integer",
                      "hint": "integer", "collapse": "constant", "safelen": "constant",
                      "simdlen": "constant", "ordered": "constant"}
_NO_ARGUMENT = frozenset(("nowait", "untied", "mergeable", "nogroup", "read", "write", "update",
                          "capture", "seq_cst", "acq_rel", "release", "acquire", "relaxed",
                          "threads", "simd"))
_OPTIONAL_ARGUMENT = frozenset(("ordered",))
_REDUCTION_OPERATORS = frozenset(("+", "*", "-", "&", "|", "^", "&&", "||", "max", "min"))
_SCHEDULE_KINDS = frozenset(("static", "dynamic", "guided", "auto", "runtime"))
_KEYWORD_ARGUMENTS = {"default": {"shared", "none", "firstprivate", "private"},
                      "proc_bind": {"master", "close", "spread", "primary"}}


class DirectiveError(ValueError):
    """A ``#pragma omp`` line gcc rejects; the message is gcc's, more or less."""


@dataclass(frozen=True)
class Clause:
    """One clause: its name, and the text between its parentheses (None without)."""

    name: str
    argument: str | None = None

    @property
    def variables(self) -> list[str]:
        """The variables a list clause names (``reduction(+: a, b)`` names a and b)."""
        text = self.argument or ""
        if self.name == "reduction":
            text = text.split(":", 1)[1] if ":" in text else ""
        elif self.name in ("linear", "aligned"):
            text = text.split(":", 1)[0]
        elif self.name == "lastprivate" and text.strip().startswith("conditional"):
            text = text.split(":", 1)[-1]
        return [v.strip() for v in text.split(",") if v.strip()]


@dataclass(frozen=True)
class Directive:
    """A checked OpenMP directive."""

    name: str
    clauses: tuple[Clause, ...] = ()
    #: the list or name in parentheses after the directive (``flush(a)``, ``critical(lock)``)
    argument: str | None = None

    @property
    def is_loop(self) -> bool:
        """Whether it applies to the ``for`` loop that follows."""
        return self.name in LOOP_DIRECTIVES

    @property
    def is_standalone(self) -> bool:
        """Whether it is a statement of its own."""
        return self.name in STANDALONE

    @property
    def collapse(self) -> str | None:
        """The argument text of its ``collapse`` clause, if any."""
        return next((c.argument for c in self.clauses if c.name == "collapse"), None)


def _tokens(text: str) -> list[str]:
    out, pos = [], 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        out.append(m.group(m.lastindex))
        pos = m.end()
    return out


def parse_directive(text: str) -> Directive | None:
    """The directive of a pragma's text (``omp parallel for private(i)``).

    None when gcc ignores it (not ``omp``, or a directive it does not know or
    passman does not check). Raises :class:`DirectiveError`.
    """
    words = _tokens(text)
    if not words or words[0] != "omp":
        return None
    words = words[1:]
    name = ""
    for n in range(min(3, len(words)), 0, -1):
        candidate = " ".join(words[:n])
        if candidate in DIRECTIVES:
            name, words = candidate, words[n:]
            break
    if not name:
        return None
    argument = None
    if name in _DIRECTIVE_ARGUMENT and words[:1] == ["("]:
        argument, words = _parenthesized(words, name)
        if _DIRECTIVE_ARGUMENT[name] == "name" and not re.fullmatch(r"[A-Za-z_]\w*", argument.strip()):
            raise DirectiveError(f"expected identifier before '{argument.strip() or ')'}'")
    if name == "threadprivate" and argument is None:
        raise DirectiveError("expected '(' before end of line")
    return Directive(name, tuple(_clauses(name, words)), argument)


def _parenthesized(words: list[str], what: str) -> tuple[str, list[str]]:
    """The text inside the parentheses that open ``words``, and the words after them."""
    depth = 0
    for i, w in enumerate(words):
        depth += (w == "(") - (w == ")")
        if depth == 0:
            return " ".join(words[1:i]), words[i + 1 :]
    raise DirectiveError(f"expected ')' before end of line in '{what}'")


def _clauses(directive: str, words: list[str]) -> list[Clause]:
    allowed = DIRECTIVES[directive]
    out: list[Clause] = []
    while words:
        if words[0] == "," and out and len(words) > 1:
            words = words[1:]
        w = words[0]
        if not re.fullmatch(r"[A-Za-z_]\w*", w):
            raise DirectiveError(f"expected '#pragma omp' clause before '{w}'")
        if w not in allowed:
            raise DirectiveError(f"'{w}' is not valid for '#pragma omp {directive}'")
        words = words[1:]
        if words[:1] == ["("]:
            if w in _NO_ARGUMENT:
                raise DirectiveError("expected '#pragma omp' clause before '('")
            argument, words = _parenthesized(words, w)
            _check_argument(w, argument)
            out.append(Clause(w, argument))
        elif w in _NO_ARGUMENT or w in _OPTIONAL_ARGUMENT:
            out.append(Clause(w))
        else:
            raise DirectiveError(f"expected '(' before '{words[0] if words else 'end of line'}'")
    return out


def _check_argument(clause: str, text: str) -> None:
    """The shape of a clause's argument (names are checked against the scopes later)."""
    words = _tokens(text)
    if not words:
        raise DirectiveError(f"expected expression before ')' in '{clause}'")
    if clause in _KEYWORD_ARGUMENTS:
        if len(words) != 1 or words[0] not in _KEYWORD_ARGUMENTS[clause]:
            raise DirectiveError(f"expected {' or '.join(sorted(_KEYWORD_ARGUMENTS[clause]))} "
                                 f"in '{clause}'")
    elif clause == "schedule":
        head = (text.split(":", 1)[1] if ":" in text else text).split(",", 1)[0].strip()
        if head not in _SCHEDULE_KINDS:
            raise DirectiveError(f"invalid schedule kind before '{head or ')'}'")
    elif clause == "reduction":
        op = text.split(":", 1)[0].split(",")[-1].strip() if ":" in text else ""
        if op not in _REDUCTION_OPERATORS:
            raise DirectiveError(f"invalid reduction operator '{op}'" if op
                                 else "expected ':' in 'reduction'")
    if clause in LIST_CLAUSES:
        for v in Clause(clause, text).variables:
            if not re.fullmatch(r"[A-Za-z_]\w*(\s*\[[^\]]*\])*", v):
                raise DirectiveError(f"expected identifier before '{v.split()[0]}' in '{clause}'")
        if not Clause(clause, text).variables:
            raise DirectiveError(f"expected identifier before ')' in '{clause}'")


def loop_form_problem(loop: c_ast.For) -> tuple[c_ast.Node | None, str] | None:
    """Why ``loop`` is not in OpenMP's canonical form (where, message), or None if it is."""
    var: str | None = None
    init = loop.init
    if isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None:
        var = init.decls[0].name
    elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
        var = init.lvalue.name
    if var is None:
        return init or loop, "expected iteration declaration or initialization"
    cond = loop.cond
    if cond is None:
        return loop, "missing controlling predicate"
    if not (isinstance(cond, c_ast.BinaryOp) and cond.op in ("<", "<=", ">", ">=", "!=")
            and var in (_name(cond.left), _name(cond.right))):
        return cond, "invalid controlling predicate"
    nxt = loop.next
    if nxt is None:
        return loop, "missing increment expression"
    if not _increments(nxt, var):
        return nxt, "invalid increment expression"
    return None


def loop_variable(loop: c_ast.For) -> str | None:
    """The iteration variable of a loop in canonical form."""
    init = loop.init
    if isinstance(init, c_ast.DeclList) and init.decls:
        return init.decls[0].name
    if isinstance(init, c_ast.Assignment) and isinstance(init.lvalue, c_ast.ID):
        return init.lvalue.name
    return None


def _name(e: c_ast.Node) -> str | None:
    return e.name if isinstance(e, c_ast.ID) else None


def _increments(e: c_ast.Node, var: str) -> bool:
    match e:
        case c_ast.UnaryOp(op="++" | "--" | "p++" | "p--"):
            return _name(e.expr) == var
        case c_ast.Assignment(op="+=" | "-="):
            return _name(e.lvalue) == var
        case c_ast.Assignment(op="=", rvalue=c_ast.BinaryOp(op="+" | "-")):
            sides = (_name(e.rvalue.left), _name(e.rvalue.right) if e.rvalue.op == "+" else None)
            return _name(e.lvalue) == var and var in sides
    return False
