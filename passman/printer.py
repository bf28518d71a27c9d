"""C pretty-printer for passman's IR (pycparser ``c_ast``).

The printer writes C the way a person does, so that its output diffs cleanly
against hand-written input:

* 4-space indentation; function bodies open with ``{`` on its own line,
  control statements keep ``{`` on the header line (``} else {``,
  ``do {`` ... ``} while (c);``, ``switch (x) {`` with ``case`` labels one
  level in and their statements two levels in).
* Braces come from the AST only: a ``Compound`` body gets braces, any other
  body goes on the next line, indented; an ``EmptyStatement`` body stays
  ``for (...) ;``.  The single exception is a dangling ``else``: when an
  ``If`` with an ``else`` has a non-compound then-branch that ends in an
  ``if`` without ``else``, that branch is braced, since no brace-less text has
  that meaning.
* Parentheses only where C's grammar requires them, plus the ones that keep
  ``gcc -Wparentheses`` quiet (``a || (b && c)``, ``a << (b + c)``,
  ``(a & b) == c``, ``a & (b == c)``, ``(!a) == b``, ``if ((a = b))``),
  and ``-(-x)`` rather than ``--x``.  Printing then re-parsing gives back
  a structurally identical AST; printing is idempotent.

Conventions for the passman-specific options:

* ``annotations`` maps statement nodes (by identity) to lines printed as
  ``// line`` comments at the statement's indentation, immediately before it.
  The comments come before everything that introduces the statement: the run
  of ``#pragma`` lines preceding it in its block and the labels wrapping it.
  Annotations on a ``FuncDef`` come before the function (and its pragmas);
  annotations on a ``Compound`` that is a body are printed as the first lines
  inside its braces.
* Labels are printed on their own line, outdented one level (4 spaces) from
  the statement they label, but never left of column 0; the statement follows
  on the next line at its normal indentation.
* A label whose name is in ``hidden_labels`` is not printed (its statement is
  printed as if unlabelled); with ``label_comments=True`` it is shown instead
  as a ``// loop NAME`` line, at the statement's indentation, right before the
  statement (after any pragmas).
* With ``source_comments=True``, the comments the front end attached to a
  statement (:mod:`.statement_comments`) are printed on their own lines above
  it, before its annotations, and a block's end-of-block comments above its
  ``}``; each comment is printed once per function, at the first statement
  that carries it (copies of a statement share its comments).

Known limits: ``sizeof x`` is printed ``sizeof(x)`` (the AST does not tell);
no line wrapping; ``int a, *b;`` in a block prints as two declarations, as
pycparser splits it (declarations sharing one struct/union/enum definition
are kept together); ``(T){...}.f`` is printed ``((T){...}).f`` because
pycparser cannot read the former.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence

from pycparser import c_ast
from pycparser.c_generator import CGenerator

from .astutil import IndexDesignator
from .statement_comments import CommentCoord, comment_lines

__all__ = ["CPrinter", "to_c"]

_STEP = 4  # spaces per indentation level

# Precedence levels, higher binds tighter.
_COMMA, _ASSIGN, _COND = 1, 2, 3
_BINARY_PREC = {
    "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9,
    "<": 10, ">": 10, "<=": 10, ">=": 10, "<<": 11, ">>": 11,
    "+": 12, "-": 12, "*": 13, "/": 13, "%": 13,
}  # fmt: skip
_UNARY, _POSTFIX, _PRIMARY = 14, 15, 16
_COMPARISONS = frozenset({"==", "!=", "<", ">", "<=", ">="})
_BITWISE = frozenset({"&", "|", "^"})

_STATEMENTS = (
    c_ast.Compound, c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Switch,
    c_ast.Case, c_ast.Default, c_ast.Label, c_ast.Goto, c_ast.Break, c_ast.Continue,
    c_ast.Return, c_ast.EmptyStatement, c_ast.Pragma, c_ast.Decl, c_ast.Typedef,
    c_ast.DeclList, c_ast.StaticAssert,
)  # fmt: skip
_TYPE_MODIFIERS = (c_ast.PtrDecl, c_ast.ArrayDecl, c_ast.FuncDecl)


def to_c(
    node: c_ast.Node,
    *,
    indent: int = 0,
    annotations: Mapping[c_ast.Node, Sequence[str]] | None = None,
    hidden_labels: Collection[str] = (),
    label_comments: bool = False,
    macro_names: Callable[[c_ast.Constant], str | None] | None = None,
    source_comments: bool = False,
) -> str:
    """Print ``node`` as C source.

    ``node`` may be a ``FileAST`` (the result ends with exactly one newline), a
    ``FuncDef`` or any statement (complete lines, each ending in a newline,
    indented by ``indent`` levels of 4 spaces), or an expression or type (a
    single string without ``;`` or newline).  See :class:`CPrinter` for the
    other options.
    """
    printer = CPrinter(
        indent=indent,
        annotations=annotations,
        hidden_labels=hidden_labels,
        label_comments=label_comments,
        macro_names=macro_names,
        source_comments=source_comments,
    )
    return printer.render(node)


def to_c_operand(node: c_ast.Node) -> str:
    """``node`` printed for splicing into the text of a larger expression: in parentheses unless it
    binds as tightly as a postfix expression (a name, a constant, an element, a call, a member).
    ``f"i < {to_c(hi)}"`` with ``hi`` ``a > b ? a : b`` reads ``(i < a > b) ? a : b``;
    ``f"i < {to_c_operand(hi)}"`` means what it says."""
    text = to_c(node)
    return text if CPrinter._prec(node) >= _POSTFIX else f"({text})"


class CPrinter(CGenerator):
    """Human-style C generator; see the module docstring for the style.

    ``indent`` is the initial indentation in levels (4 spaces each);
    ``annotations`` maps statement nodes to comment lines; a ``Label`` whose
    name is in ``hidden_labels`` is omitted, or shown as ``// loop NAME`` when
    ``label_comments`` is true; ``macro_names(constant)``, when given, names
    the macro to print in place of a constant (None: print its value);
    ``source_comments`` prints the user's comments attached to statements.
    Use :meth:`render` (or :func:`to_c`); the
    ``visit_*`` methods of statements return complete, indented lines.
    """

    def __init__(
        self,
        *,
        indent: int = 0,
        annotations: Mapping[c_ast.Node, Sequence[str]] | None = None,
        hidden_labels: Collection[str] = (),
        label_comments: bool = False,
        macro_names: Callable[[c_ast.Constant], str | None] | None = None,
        source_comments: bool = False,
    ) -> None:
        super().__init__(reduce_parentheses=True)
        self.indent_level = indent * _STEP
        # Keyed by id(); the mapping keeps the nodes alive while we print.
        self._annotations = {
            id(k): [v] if isinstance(v, str) else list(v) for k, v in (annotations or {}).items()
        }
        self.hidden_labels = frozenset(hidden_labels)
        self.label_comments = label_comments
        self.macro_names = macro_names
        self.source_comments = source_comments
        self._shown: set[tuple[int, bool]] = set()  # (id of a CommentCoord, closing) printed in this function

    # ------------------------------------------------------------------ entry
    def render(self, node: c_ast.Node) -> str:
        """Print ``node`` according to its kind (file, function, statement, expression)."""
        if isinstance(node, c_ast.FileAST):
            return self.visit_FileAST(node)
        if isinstance(node, (c_ast.FuncDef, *_STATEMENTS)):
            return self._group([], [node])
        return self.visit(node)

    # -------------------------------------------------------------- helpers
    def _ind(self, extra: int = 0) -> str:
        return " " * max(0, self.indent_level + extra)

    def _source(self, node: c_ast.Node, closing: bool = False) -> list[str]:
        """The user's comments on ``node`` not yet printed in this function (above it, or above its ``}``)."""
        c = node.coord
        if not self.source_comments or not isinstance(c, CommentCoord) or (id(c), closing) in self._shown:
            return []
        texts = c.closing if closing else c.before
        if texts:
            self._shown.add((id(c), closing))
        return [line for text in texts for line in comment_lines(text, self._ind())]

    def _has_comments(self, node: c_ast.Node) -> bool:
        """Whether ``node`` has annotations or user comments still to print."""
        c = node.coord
        return bool(self._annotations.get(id(node))) or (
            self.source_comments and isinstance(c, CommentCoord) and bool(c.before)
            and (id(c), False) not in self._shown)

    def _closing(self, node: c_ast.Node) -> str:
        """The user's end-of-block comments of block ``node``, at the current indentation."""
        return "".join(self._source(node, closing=True))

    def _comments(self, node: c_ast.Node) -> str:
        """The user's comments on ``node``, then its annotation lines as ``//`` comments (may be empty)."""
        out = self._source(node)
        for text in self._annotations.get(id(node), ()):
            for line in str(text).split("\n"):
                line = line.rstrip()
                if line.endswith("\\"):  # a trailing backslash would splice lines
                    line += " //"
                out.append(self._ind() + ("// " + line if line else "//") + "\n")
        return "".join(out)

    def _nested(self, fn: Callable[..., str], *args: object) -> str:
        """Call ``fn(*args)`` one indentation level deeper."""
        self.indent_level += _STEP
        try:
            return fn(*args)
        finally:
            self.indent_level -= _STEP

    # --------------------------------------------------------- block items
    @staticmethod
    def _shared_definition(node: c_ast.Node) -> int | None:
        """id() of the struct/union/enum *definition* a declaration carries, if any."""
        if not isinstance(node, (c_ast.Decl, c_ast.Typedef)):
            return None
        t = node.type
        while isinstance(t, (*_TYPE_MODIFIERS, c_ast.TypeDecl)):
            t = t.type
        if isinstance(t, (c_ast.Struct, c_ast.Union)) and t.decls is not None:
            return id(t)
        if isinstance(t, c_ast.Enum) and t.values is not None:
            return id(t)
        return None

    def _units(self, items: Sequence[c_ast.Node]) -> Iterator[tuple[list, list]]:
        """Split block items into (pragmas, nodes) units.

        A unit is a run of pragmas followed by one item; declarations that
        share one struct/union/enum definition (``struct s {...} a, *b;``) form
        a single unit so that the definition is printed once.
        """
        i, n = 0, len(items)
        while i < n:
            j = i
            while j < n and isinstance(items[j], c_ast.Pragma):
                j += 1
            if j == n:
                yield list(items[i:j]), []
                return
            k = j + 1
            # pycparser leaves the ';' after _Static_assert(...) as an EmptyStatement.
            if (
                isinstance(items[j], c_ast.StaticAssert)
                and k < n
                and isinstance(items[k], c_ast.EmptyStatement)
                and id(items[k]) not in self._annotations
            ):
                yield list(items[i:j]), [items[j]]
                i = k + 1
                continue
            key = self._shared_definition(items[j])
            while key is not None and k < n and self._shared_definition(items[k]) == key:
                k += 1
            yield list(items[i:j]), list(items[j:k])
            i = k

    def _items(self, items: Sequence[c_ast.Node] | None) -> str:
        """Print block items at the current indentation."""
        return "".join(self._group(p, s) for p, s in self._units(items or []))

    def _group(self, pragmas: list, nodes: list) -> str:
        """Print annotations, then pragmas, then the (labelled) statement(s)."""
        out = [self._comments(p) for p in pragmas]
        for node in nodes:
            while isinstance(node, c_ast.Label):
                out.append(self._comments(node))
                node = node.stmt
            out.append(self._comments(node))
        out += [self._ind() + self.visit_Pragma(p) + "\n" for p in pragmas]
        if len(nodes) > 1:
            decls = [self._declaration(nodes[0])]
            decls += [self._declaration(d, declarator_only=True) for d in nodes[1:]]
            out.append(self._ind() + ", ".join(decls) + ";\n")
        elif nodes:
            out.append(self._stmt(nodes[0]))
        return "".join(out)

    # ------------------------------------------------------------ statements
    def _stmt(self, n: c_ast.Node) -> str:
        """Print one statement (without its annotations) at the current indentation."""
        ind = self._ind()
        match n:
            case c_ast.Compound():
                inner = self._nested(self._items, n.block_items) + self._nested(self._closing, n)
                return ind + "{\n" + inner + ind + "}\n" if inner else ind + "{ }\n"
            case c_ast.If():
                return ind + self._if(n)
            case c_ast.For():
                init = self._for_init(n.init)
                cond = " " + self._cond(n.cond) if n.cond else ""
                step = " " + self._expr(n.next) if n.next else ""
                return self._with_body(f"{ind}for ({init};{cond};{step})", n.stmt)
            case c_ast.While():
                return self._with_body(f"{ind}while ({self._cond(n.cond)})", n.stmt)
            case c_ast.DoWhile():
                text, closed = self._body(n.stmt)
                tail = f"while ({self._cond(n.cond)});\n"
                return ind + "do" + text + (" " + tail if closed else ind + tail)
            case c_ast.Switch():
                return self._with_body(f"{ind}switch ({self._expr(n.cond)})", n.stmt)
            case c_ast.Case() | c_ast.Default():
                head = f"case {self._expr(n.expr)}:" if isinstance(n, c_ast.Case) else "default:"
                return ind + head + "\n" + self._nested(self._items, n.stmts)
            case c_ast.Label() if n.name in self.hidden_labels:
                note = ind + f"// loop {n.name}\n" if self.label_comments else ""
                return note + self._stmt(n.stmt)
            case c_ast.Label():
                return self._ind(-_STEP) + n.name + ":\n" + self._stmt(n.stmt)
            case c_ast.FuncDef():
                return self._funcdef(n)
            case c_ast.Pragma():
                return ind + self.visit_Pragma(n) + "\n"
            case c_ast.Decl() | c_ast.Typedef():
                return ind + self._declaration(n) + ";\n"
            case c_ast.DeclList():
                return ind + self._for_init(n) + ";\n"
            case c_ast.EmptyStatement():
                return ind + ";\n"
            case c_ast.Return():
                return ind + ("return " + self._expr(n.expr) if n.expr else "return") + ";\n"
            case c_ast.Goto():
                return f"{ind}goto {n.name};\n"
            case c_ast.Break() | c_ast.Continue():
                return ind + ("break" if isinstance(n, c_ast.Break) else "continue") + ";\n"
            case _:  # expression statement, _Static_assert
                return ind + self._expr(n) + ";\n"

    def _for_init(self, init: c_ast.Node | None) -> str:
        if init is None:
            return ""
        if isinstance(init, c_ast.DeclList):
            parts = [self._declaration(init.decls[0])]
            parts += [self._declaration(d, declarator_only=True) for d in init.decls[1:]]
            return ", ".join(parts)
        return self._expr(init)

    def _cond(self, cond: c_ast.Node) -> str:
        """A controlling expression; ``if ((a = b))`` keeps gcc's -Wparentheses quiet."""
        text = self._expr(cond)
        if isinstance(cond, c_ast.Assignment) and cond.op == "=":
            return "(" + text + ")"
        return text

    def _body(self, stmt: c_ast.Node, force_braces: bool = False) -> tuple[str, bool]:
        """Text that follows a control header, and whether it ends with ``}``.

        When it ends with ``}`` no newline is added, so that ``else`` or
        ``while`` can follow on the same line.
        """
        if isinstance(stmt, c_ast.Compound):
            inner = (self._nested(self._comments, stmt) + self._nested(self._items, stmt.block_items)
                     + self._nested(self._closing, stmt))
            return (" {\n" + inner + self._ind() + "}" if inner else " { }"), True
        if isinstance(stmt, c_ast.EmptyStatement) and not self._has_comments(stmt):
            return " ;\n", False
        inner = self._nested(self._group, [], [stmt])
        if force_braces:
            return " {\n" + inner + self._ind() + "}", True
        return "\n" + inner, False

    def _with_body(self, header: str, stmt: c_ast.Node) -> str:
        text, closed = self._body(stmt)
        return header + text + ("\n" if closed else "")

    @classmethod
    def _open_if(cls, stmt: c_ast.Node | None) -> bool:
        """True when ``stmt`` (printed without braces) would capture a following ``else``."""
        match stmt:
            case c_ast.If(iffalse=None):
                return True
            case c_ast.If():
                return cls._open_if(stmt.iffalse)
            case c_ast.For() | c_ast.While() | c_ast.Switch() | c_ast.Label():
                return cls._open_if(stmt.stmt)
            case c_ast.Case() | c_ast.Default() if stmt.stmts:
                return cls._open_if(stmt.stmts[-1])
        return False

    def _if(self, n: c_ast.If) -> str:
        """An ``if`` statement (and its ``else if`` chain), without leading indentation."""
        dangling = n.iffalse is not None and self._open_if(n.iftrue)
        text, closed = self._body(n.iftrue, force_braces=dangling)
        s = f"if ({self._cond(n.cond)})" + text
        if n.iffalse is None:
            return s + ("\n" if closed else "")
        s += " else" if closed else self._ind() + "else"
        other = n.iffalse
        if isinstance(other, c_ast.If) and not self._has_comments(other):
            return s + " " + self._if(other)
        text, closed = self._body(other)
        return s + text + ("\n" if closed else "")

    def _funcdef(self, n: c_ast.FuncDef) -> str:
        ind = self._ind()
        s = ind + self._declaration(n.decl) + "\n"
        for p in n.param_decls or ():
            s += ind + self._declaration(p) + ";\n"
        self._shown = set()
        body = (self._nested(self._comments, n.body) + self._nested(self._items, n.body.block_items)
                + self._nested(self._closing, n.body))
        return s + ind + "{\n" + body + ind + "}\n"

    # -------------------------------------------------- statement visitors
    def visit_FileAST(self, n: c_ast.FileAST) -> str:
        """The whole file: no blank line between declarations, one around functions."""
        out: list[str] = []
        prev_func: bool | None = None
        for pragmas, nodes in self._units(n.ext):
            is_func = any(isinstance(x, c_ast.FuncDef) for x in nodes)
            if prev_func is not None and (prev_func or is_func):
                out.append("\n")
            out.append(self._group(pragmas, nodes))
            prev_func = is_func
        return "".join(out).rstrip("\n") + "\n"

    def visit_FuncDef(self, n: c_ast.FuncDef) -> str:
        """A function definition (complete lines)."""
        return self._funcdef(n)

    def visit_Compound(self, n: c_ast.Compound) -> str:
        """A block (complete lines)."""
        return self._stmt(n)

    visit_If = visit_For = visit_While = visit_DoWhile = visit_Switch = visit_Compound
    visit_Case = visit_Default = visit_Label = visit_Compound

    def visit_Pragma(self, n: c_ast.Pragma) -> str:
        """``#pragma text``, or ``_Pragma("text")`` when parsed from that form."""
        if isinstance(n.string, c_ast.Node):
            return "_Pragma(" + self.visit(n.string) + ")"
        return "#pragma " + n.string if n.string else "#pragma"

    def visit_Constant(self, n: c_ast.Constant) -> str:
        """A constant as written: its value, or the macro ``macro_names`` gives for it."""
        name = self.macro_names(n) if self.macro_names is not None else None
        return name or n.value

    def visit_StaticAssert(self, n: c_ast.StaticAssert) -> str:
        """``_Static_assert(cond, "msg")`` without the semicolon."""
        msg = ", " + self.visit(n.message) if n.message else ""
        return f"_Static_assert({self._sub(n.cond, _ASSIGN)}{msg})"

    # ---------------------------------------------------------- declarations
    def _declaration(self, n: c_ast.Node, declarator_only: bool = False) -> str:
        """A declaration without ``;``; with ``declarator_only`` the specifiers are left out."""
        if isinstance(n, c_ast.Typedef):
            base, decl = self._split_type(n.type)
            if declarator_only:
                return decl
            return " ".join([*n.storage, base] + ([decl] if decl else []))
        if not isinstance(n, c_ast.Decl):
            return self.visit(n)
        base, decl = self._split_type(n.type)
        if declarator_only:
            s = decl
        else:
            specs = [*n.storage, *n.funcspec, *(self.visit(a) for a in n.align or ())]
            s = " ".join([*specs, base] + ([decl] if decl else []))
        if n.bitsize is not None:
            s += " : " + self._sub(n.bitsize, _COND)
        if n.init is not None:
            s += " = " + self._sub(n.init, _ASSIGN)
        return s

    def _split_type(self, typ: c_ast.Node) -> tuple[str, str]:
        """Split a type into (specifiers, declarator), e.g. ``("double", "(*A)[n]")``."""
        mods = []
        while isinstance(typ, _TYPE_MODIFIERS):
            mods.append(typ)
            typ = typ.type
        if isinstance(typ, c_ast.TypeDecl):
            base = " ".join([*typ.quals, self.visit(typ.type)])
            decl = typ.declname or ""
        else:
            base, decl = self.visit(typ), ""
        for m in mods:  # outermost modifier binds closest to the name
            if isinstance(m, c_ast.PtrDecl):
                quals = " ".join(m.quals)
                decl = "*" + quals + (" " if quals and decl else "") + decl
                continue
            if decl.startswith("*"):
                decl = "(" + decl + ")"
            if isinstance(m, c_ast.ArrayDecl):
                dim = self._sub(m.dim, _ASSIGN) if m.dim is not None else ""
                decl += "[" + " ".join([*m.dim_quals] + ([dim] if dim else [])) + "]"
            else:
                decl += "(" + (self.visit(m.args) if m.args is not None else "") + ")"
        return base, decl

    def _type(self, typ: c_ast.Node) -> str:
        base, decl = self._split_type(typ)
        return base + (" " + decl if decl else "")

    def visit_Decl(self, n: c_ast.Decl, no_type: bool = False) -> str:
        """A declaration without ``;`` (``no_type``: the declarator part only)."""
        return self._declaration(n, declarator_only=no_type)

    def visit_DeclList(self, n: c_ast.DeclList) -> str:
        """``int i = 0, j = 1`` as in a ``for`` header."""
        return self._for_init(n)

    def visit_Typedef(self, n: c_ast.Typedef) -> str:
        """A typedef without ``;``."""
        return self._declaration(n)

    def visit_Typename(self, n: c_ast.Typename) -> str:
        """An abstract type, e.g. ``double (*)[n]``."""
        return self._type(n.type)

    def visit_TypeDecl(self, n: c_ast.Node) -> str:
        """A (possibly named) type."""
        return self._type(n)

    visit_PtrDecl = visit_ArrayDecl = visit_FuncDecl = visit_TypeDecl

    def visit_ParamList(self, n: c_ast.ParamList) -> str:
        """Comma-separated parameters."""
        return ", ".join(self._declaration(p) for p in n.params)

    def _sue(self, n: c_ast.Struct | c_ast.Union | c_ast.Enum, keyword: str) -> str:
        """A struct/union/enum specifier, with its body when it is a definition."""
        head = keyword + (" " + n.name if n.name else "")
        if isinstance(n, c_ast.Enum):
            if n.values is None:
                return head
            lines = [
                self._ind(_STEP) + e.name + (" = " + self._sub(e.value, _COND) if e.value else "")
                for e in n.values.enumerators
            ]
            body = ",\n".join(lines) + "\n" if lines else ""
        else:
            if n.decls is None:
                return head
            body = self._nested(self._items, n.decls)
        return head + (" {\n" + body + self._ind() + "}" if body else " { }")

    def visit_Struct(self, n: c_ast.Struct | c_ast.Union | c_ast.Enum) -> str:
        """``struct name``, or a definition; likewise for unions and enums."""
        return self._sue(n, type(n).__name__.lower())

    visit_Union = visit_Enum = visit_Struct

    # ------------------------------------------------------------ expressions
    @staticmethod
    def _prec(n: c_ast.Node) -> int:
        """Precedence level of expression ``n`` (higher binds tighter)."""
        match n:
            case c_ast.ExprList():
                return _COMMA
            case c_ast.Assignment():
                return _ASSIGN
            case c_ast.TernaryOp():
                return _COND
            case c_ast.BinaryOp():
                return _BINARY_PREC[n.op]
            case c_ast.UnaryOp(op="p++" | "p--"):
                return _POSTFIX
            case c_ast.UnaryOp() | c_ast.Cast() | c_ast.CompoundLiteral():
                return _UNARY  # pycparser cannot parse (T){...}.x: say ((T){...}).x
            case c_ast.Constant() if n.value.startswith(("-", "+")):
                return _UNARY
            case c_ast.ArrayRef() | c_ast.StructRef() | c_ast.FuncCall():
                return _POSTFIX
        return _PRIMARY

    def _sub(self, n: c_ast.Node, min_prec: int, force: bool = False) -> str:
        """Print expression ``n``, parenthesised if it binds looser than ``min_prec`` or ``force``."""
        if isinstance(n, c_ast.Compound):  # GNU statement expression
            return "({\n" + self._nested(self._items, n.block_items) + self._ind() + "})"
        text = self.visit(n)
        return "(" + text + ")" if force or self._prec(n) < min_prec else text

    def _expr(self, n: c_ast.Node) -> str:
        """Print expression ``n`` where any expression is allowed."""
        return self._sub(n, 0)

    @staticmethod
    def _clarify(op: str, child: c_ast.Node, left: bool) -> bool:
        """Whether gcc -Wparentheses (or -Wlogical-not-parentheses) wants parens here."""
        if isinstance(child, c_ast.UnaryOp) and child.op == "!":
            return left and (op in _COMPARISONS or op in _BITWISE)
        if not isinstance(child, c_ast.BinaryOp):
            return False
        c = child.op
        if op == "||":
            return c == "&&"
        if op in ("<<", ">>"):
            return c in ("+", "-")
        if op in _BITWISE:
            return c != op
        return op in _COMPARISONS and c in _COMPARISONS

    def visit_BinaryOp(self, n: c_ast.BinaryOp) -> str:
        """Binary operator, left-associative."""
        prec = _BINARY_PREC[n.op]
        left = self._sub(n.left, prec, self._clarify(n.op, n.left, True))
        right = self._sub(n.right, prec + 1, self._clarify(n.op, n.right, False))
        return f"{left} {n.op} {right}"

    def visit_UnaryOp(self, n: c_ast.UnaryOp) -> str:
        """Prefix/postfix operators, ``sizeof(x)`` and ``_Alignof(T)``."""
        op, expr = n.op, n.expr
        if op in ("sizeof", "_Alignof"):
            return f"{op}({self._expr(expr)})"
        if op in ("p++", "p--"):
            return self._sub(expr, _POSTFIX) + op[1:]
        # ++/-- take a unary-expression (no cast); others a cast-expression.
        if op in ("++", "--") and isinstance(expr, c_ast.Cast):
            return op + "(" + self._expr(expr) + ")"
        operand = self._sub(expr, _UNARY)
        if op[-1] in "+-&" and operand.startswith(op[-1]):
            operand = "(" + operand + ")"  # -(-x), not --x
        return op + operand

    def visit_Assignment(self, n: c_ast.Assignment) -> str:
        """``lvalue op rvalue``; chains (``a = b = 0``) are right-associative."""
        return f"{self._sub(n.lvalue, _UNARY)} {n.op} {self._sub(n.rvalue, _ASSIGN)}"

    def visit_TernaryOp(self, n: c_ast.TernaryOp) -> str:
        """``c ? a : b``; a nested conditional is parenthesised except after ``:``."""
        cond = self._sub(n.cond, _COND + 1)
        iftrue = self._sub(n.iftrue, _COND + 1)
        return f"{cond} ? {iftrue} : {self._sub(n.iffalse, _COND)}"

    def visit_Cast(self, n: c_ast.Cast) -> str:
        """``(type)expr`` without a space."""
        return "(" + self.visit(n.to_type) + ")" + self._sub(n.expr, _UNARY)

    def visit_ArrayRef(self, n: c_ast.ArrayRef) -> str:
        """``a[i]``."""
        return self._sub(n.name, _POSTFIX) + "[" + self._expr(n.subscript) + "]"

    def visit_StructRef(self, n: c_ast.StructRef) -> str:
        """``s.f`` and ``p->f`` (``(1).f``, not ``1.f``)."""
        glue = n.type == "." and isinstance(n.name, c_ast.Constant)
        return self._sub(n.name, _POSTFIX, glue) + n.type + self.visit(n.field)

    def visit_FuncCall(self, n: c_ast.FuncCall) -> str:
        """``f(a, b)``; a comma expression argument is parenthesised."""
        args = "" if n.args is None else self._sub(n.args, _ASSIGN)
        if isinstance(n.args, c_ast.ExprList):
            args = self.visit_ExprList(n.args)
        return self._sub(n.name, _POSTFIX) + "(" + args + ")"

    def visit_ExprList(self, n: c_ast.ExprList) -> str:
        """Comma-separated assignment-expressions."""
        return ", ".join(self._sub(e, _ASSIGN) for e in n.exprs)

    def visit_InitList(self, n: c_ast.InitList) -> str:
        """``{a, b, c}``."""
        return "{" + ", ".join(self._sub(e, _ASSIGN) for e in n.exprs) + "}"

    def visit_NamedInitializer(self, n: c_ast.NamedInitializer) -> str:
        """``.x = 1``, ``[2] = 3``, ``.a.b[1] = 0``."""
        desig = "".join(
            "." + d.name if isinstance(d, c_ast.ID) and not isinstance(d, IndexDesignator)
            else "[" + self._expr(d) + "]"
            for d in n.name
        )
        return desig + " = " + self._sub(n.expr, _ASSIGN)

    def visit_IndexDesignator(self, n: IndexDesignator) -> str:
        """The name of an enumeration constant used as a designator's index."""
        return n.name

    def visit_CompoundLiteral(self, n: c_ast.CompoundLiteral) -> str:
        """``(type){...}``."""
        return "(" + self.visit(n.type) + ")" + self.visit(n.init)
