"""Semantic check of a parsed C file: what gcc rejects although it parses.

pycparser checks syntax only, so ``x = undeclared + 1;``, ``*i`` on an
``int``, ``f(1) = 2`` or ``s.missing`` would go through passman and come out
as C that does not compile. :func:`check_unit` walks a parsed file once, in
source order, with scopes (:mod:`passman.declarations`) and a small type model
(:mod:`passman.ctype`, :mod:`passman.expressions`), and stops at the first
construct gcc 12 rejects by default:

* identifiers used but not declared (a call to an undeclared function is
  gcc's implicit declaration: accepted, then held against a later definition);
* operators on operands of the wrong type (``*`` or ``[]`` on a non-pointer,
  arithmetic on a struct, ``%`` on a double, pointer ``+`` pointer);
* ``++``, ``--``, ``&`` and assignments on non-lvalues, arrays, const objects;
* calls of non-functions, wrong numbers of arguments to prototyped functions,
  arguments, initializers and returns of incompatible types;
* ``.`` and ``->`` on non-structs, unknown members, incomplete structs;
* declarations: invalid type specifiers, duplicate storage classes, names
  declared twice in a scope, conflicting types, non-constant file-scope
  initializers and array sizes, fields and arrays of incomplete type;
* statements: ``break``/``continue``/``case`` outside a loop or switch,
  duplicate case values or labels, ``goto`` to an undefined label;
* pragmas gcc checks: ``GCC ivdep``/``GCC unroll`` before a loop, and OpenMP
  directives (:mod:`passman.omp_directives`), which passman's output is
  compiled with: clauses, their variables and expressions, canonical loops,
  no branch into or out of a structured block.

Where the model does not know a type (an unresolved typedef, an extension),
the check accepts: it rejects only what gcc surely rejects.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from pycparser import c_ast, c_parser

from .astutil import find_all, walk
from .ctype import (
    UNKNOWN,
    CType,
    is_complete_object,
    is_integer,
    is_known,
    parameter_type,
    storage_problem,
    unqualified,
)
from .declarations import Scope, Symbol
from .expressions import Expressions
from .omp_directives import (
    EXPRESSION_CLAUSES,
    LIST_CLAUSES,
    Directive,
    DirectiveError,
    loop_form_problem,
    loop_variable,
    parse_directive,
)

_DATA_SHARING = frozenset(("private", "firstprivate", "lastprivate", "shared", "reduction", "linear"))
_LOOP_PRAGMA = re.compile(r"\s*GCC\s+(ivdep|unroll)\b(.*)$", re.S)


def check_unit(ast: c_ast.FileAST, preprocessed: str | None = None) -> None:
    """Raise :class:`~passman.errors.InvalidInput` at the first construct gcc rejects.

    ``preprocessed``: the text pycparser parsed, which tells ``(f)(x)`` (no
    implicit declaration of ``f``) from ``f(x)``, that the AST does not.
    """
    SemanticChecker(preprocessed).file(ast)


@dataclass
class _Function:
    """The function whose body is being checked."""

    ret: CType
    labels: set[str] = field(default_factory=set)
    gotos: list[c_ast.Goto] = field(default_factory=list)
    #: OpenMP structured blocks: the labels and gotos (ids) in each
    blocks: list[tuple[set[str], set[int]]] = field(default_factory=list)


class SemanticChecker(Expressions):
    """One walk over a file: declarations, statements and expressions, in source order."""

    def __init__(self, preprocessed: str | None = None) -> None:
        super().__init__(preprocessed)
        self.function: _Function | None = None
        #: enclosing loops, switches (their case values) and OpenMP blocks, innermost last
        self.jumps: list[str | set[object]] = []
        #: loops OpenMP directives apply to (``break`` may not leave them)
        self.omp_loops: set[int] = set()
        #: file-scope objects declared with a struct type incomplete at that point
        self.tentative: list[c_ast.Decl] = []

    # -- file and declarations ----------------------------------------------------
    def file(self, ast: c_ast.FileAST) -> None:
        """Check every declaration and function of a file."""
        self.loop_pragmas(ast.ext)
        for node in ast.ext:
            if isinstance(node, c_ast.Pragma):
                d = self.omp_directive(node)
                if d is not None and d.name != "threadprivate":
                    self.fail(node, f"'#pragma omp {d.name}' may only be used in compound statements")
            elif isinstance(node, c_ast.FuncDef):
                self.function_definition(node)
            elif isinstance(node, (c_ast.Decl, c_ast.Typedef)):
                self.declaration(node)
            elif isinstance(node, c_ast.StaticAssert):
                self.expr(node.cond)
        for d in self.tentative:
            sym = self.scopes[0].names.get(d.name)
            if sym is not None and is_complete_object(sym.type) is False:
                self.fail(d, f"storage size of '{d.name}' isn't known")

    def declaration(self, d: c_ast.Decl | c_ast.Typedef) -> None:
        """A declaration, in file or block scope."""
        self.last_coord = d.coord or self.last_coord
        storage = tuple(d.storage or [])
        problem = storage_problem(list(storage))
        if problem:
            self.fail(d, problem)
        if isinstance(d, c_ast.Typedef):
            self.declare(d.name, Symbol("typedef", self.declared_type(d.type, d.name)), d)
            return
        if d.name is None:
            if isinstance(d.type, (c_ast.Struct, c_ast.Union)) and d.type.decls is None and d.type.name:
                self.forward_declare(d.type)
            else:
                self.declared_type(d.type, None)
            return
        t = self.declared_type(d.type, d.name)
        kind = "function" if t.kind == "function" else "object"
        if kind == "object":
            self._check_object(d, t, storage)
        if kind == "function" and d.init is not None:
            self.fail(d, f"function '{d.name}' is initialized like a variable")
        automatic = not self.at_file_scope and not {"static", "extern"} & set(storage)
        declared = _sized_by(t, d.init)
        self.declare(d.name, Symbol(kind, declared, storage, defined=d.init is not None, automatic=automatic), d)
        if d.init is not None:
            self.initializer(t, d.init, static=self.at_file_scope or "static" in storage)

    def _check_object(self, d: c_ast.Decl, t: CType, storage: tuple[str, ...]) -> None:
        file_scope = self.at_file_scope
        for word in ("auto", "register"):
            if file_scope and word in storage:
                self.fail(d, f"file-scope declaration of '{d.name}' specifies '{word}'")
        if "inline" in (d.funcspec or []):
            self.fail(d, f"variable '{d.name}' declared 'inline'")
        if "extern" in storage:
            if not file_scope and d.init is not None:
                self.fail(d, f"'{d.name}' has both 'extern' and initializer")
            return
        if t.kind == "void":
            self.fail(d, f"variable or field '{d.name}' declared void")
        if t.variable and (file_scope or "static" in storage):
            self.fail(d, f"variably modified '{d.name}' at file scope" if file_scope
                      else f"storage size of '{d.name}' isn't constant")
        if d.init is not None or t.kind == "array" and t.unsized and file_scope:
            return  # an initializer gives the size; gcc assumes one element at file scope
        if not file_scope and t.kind == "array" and t.unsized:
            self.fail(d, f"array size missing in '{d.name}'")
        if is_complete_object(t) is False:
            if file_scope:
                self.tentative.append(d)
            else:
                self.fail(d, f"storage size of '{d.name}' isn't known")

    def function_definition(self, fd: c_ast.FuncDef) -> None:
        """A function: its declaration in file scope, then its body in its own scope."""
        decl = fd.decl
        self.last_coord = decl.coord or self.last_coord
        problem = storage_problem(list(decl.storage or []))
        if problem:
            self.fail(decl, problem)
        scope = Scope("function")
        t = self.declared_type(decl.type, decl.name, params=scope)
        self.scopes.append(scope)
        try:
            for pd in fd.param_decls or []:
                self._old_style_parameter(scope, pd)
        finally:
            self.scopes.pop()
        for sym in scope.names.values():
            sym.placeholder = False
        self.declare(decl.name, Symbol("function", t, tuple(decl.storage or []), defined=True), decl)
        self.function = _Function((t.of or UNKNOWN) if t.kind == "function" else UNKNOWN)
        self.in_function = True
        self.scopes.append(scope)
        try:
            self.block(fd.body.block_items or [])
            for g in self.function.gotos:
                if g.name not in self.function.labels:
                    self.fail(g, f"label '{g.name}' used but not defined")
                for labels, gotos in self.function.blocks:
                    if (id(g) in gotos) != (g.name in labels):
                        self.fail(g, "invalid branch to/from OpenMP structured block")
        finally:
            self.scopes.pop()
            self.function = None
            self.in_function = False

    def _old_style_parameter(self, scope: Scope, pd: c_ast.Node) -> None:
        if not isinstance(pd, c_ast.Decl) or pd.name is None:
            if isinstance(pd, (c_ast.Decl, c_ast.Typedef)):
                self.declaration(pd)
            return
        old = scope.names.get(pd.name)
        if old is None:
            self.fail(pd, f"declaration for parameter '{pd.name}' but no such parameter")
        if not old.placeholder:
            self.fail(pd, f"redefinition of parameter '{pd.name}'")
        pt = self.declared_type(pd.type, pd.name)
        scope.names[pd.name] = Symbol("object", parameter_type(pt) if pt.kind in ("array", "function")
                                      else pt, param=True)

    # -- statements ---------------------------------------------------------------
    def block(self, items: list[c_ast.Node]) -> None:
        """The items of a block, in the current scope (OpenMP directives with their statements)."""
        self.loop_pragmas(items)
        pending: list[Directive] = []
        for item in items:
            if isinstance(item, c_ast.Pragma):
                d = self.omp_directive(item)
                if pending and pending[-1].is_loop:
                    self.fail(item, "for statement expected before '#pragma'")
                if d is None:
                    continue
                if d.is_standalone and pending:
                    self.fail(item, f"'#pragma omp {d.name}' may only be used in compound statements")
                if not d.is_standalone:
                    pending.append(d)
                continue
            if pending:
                self.construct(pending, item)
                pending = []
            else:
                self.statement(item)
        if pending:
            self.fail(None, "expected statement before '}' token")

    # -- OpenMP -----------------------------------------------------------------------
    def omp_directive(self, pragma: c_ast.Pragma) -> Directive | None:
        """Check an OpenMP directive: its syntax, the variables and expressions of its clauses."""
        self.last_coord = pragma.coord or self.last_coord
        try:
            d = parse_directive(pragma.string)
        except DirectiveError as err:
            self.fail(pragma, str(err))
            raise AssertionError("unreachable") from err
        if d is None:
            return None
        shared: dict[str, str] = {}
        for clause in d.clauses:
            if clause.name in LIST_CLAUSES:
                for v in clause.variables:
                    self._clause_variable(pragma, clause.name, v, shared)
            elif clause.name in EXPRESSION_CLAUSES and clause.argument is not None:
                self._clause_expression(pragma, clause.name, clause.argument)
        if d.argument is not None and d.name != "critical":
            for v in d.argument.split(","):
                self._clause_variable(pragma, d.name, v.strip(), {})
        return d

    def _clause_variable(self, pragma: c_ast.Pragma, clause: str, text: str, shared: dict[str, str]) -> None:
        name = re.match(r"\w*", text).group()
        sym = self.lookup(name)
        if sym is None:
            where = "(first use in this function)" if self.in_function else "here (not in a function)"
            self.fail(pragma, f"'{name}' undeclared {where}")
        if sym.kind != "object":
            self.fail(pragma, f"'{name}' is not a variable in clause '{clause}'")
        if clause == "reduction" and "[" not in text and sym.type.kind in ("pointer", "record"):
            self.fail(pragma, f"user defined reduction not found for '{name}'")
        if clause in _DATA_SHARING:
            if name in shared and {shared[name], clause} != {"firstprivate", "lastprivate"}:
                self.fail(pragma, f"'{name}' appears more than once in data clauses")
            shared[name] = clause

    def _clause_expression(self, pragma: c_ast.Pragma, clause: str, text: str) -> None:
        if clause == "if":
            text = re.sub(r"^\s*[A-Za-z_][\w ]*:(?!:)", "", text)
        names = {w for w in re.findall(r"[A-Za-z_]\w*", text)
                 if (sym := self.lookup(w)) is not None and sym.kind == "typedef"}
        prelude = "".join(f"typedef int {w};\n" for w in sorted(names))
        try:
            ast = c_parser.CParser().parse(f"{prelude}void __passman_clause(void) {{ ({text}); }}")
            e = ast.ext[-1].body.block_items[0]
        except Exception:  # noqa: BLE001 - any parser failure means: not an expression
            e = None
        if e is None or isinstance(e, c_ast.ExprList):
            self.fail(pragma, f"expected expression in '{clause}' clause")
        for n in walk(e):
            n.coord = pragma.coord
        t = self.value(e)
        kind = EXPRESSION_CLAUSES[clause]
        if kind == "scalar":
            self.scalar(e, t)
        elif is_known(t) and not is_integer(t):
            self.fail(pragma, f"'{clause}' expression must be integral")
        if kind == "constant":
            v = self.value_of(e)
            if v is None or v <= 0:
                self.fail(pragma, f"{clause} argument needs positive constant integer expression")

    def construct(self, directives: list[Directive], stmt: c_ast.Node) -> None:
        """The statement OpenMP directives apply to: a structured block, a loop nest in canonical form."""
        loop = next((d for d in directives if d.is_loop), None)
        if loop is not None:
            self._loop_nest(loop, stmt)
        for r in find_all(stmt, c_ast.Return):
            self.fail(r, "invalid branch to/from OpenMP structured block")
        if self.function is not None:
            labels = {lab.name for lab in find_all(stmt, c_ast.Label)}
            self.function.blocks.append((labels, {id(g) for g in find_all(stmt, c_ast.Goto)}))
        self.jumps.append("block")
        try:
            self.statement(stmt)
        finally:
            self.jumps.pop()

    def _loop_nest(self, d: Directive, stmt: c_ast.Node) -> None:
        depth = self.value_of(self._parsed(d.collapse)) if d.collapse else 1
        for level in range(max(1, depth or 1)):
            if not isinstance(stmt, c_ast.For):
                self.fail(stmt, "for statement expected" if level == 0 else "not enough perfectly nested loops")
            problem = loop_form_problem(stmt)
            if problem is not None:
                self.fail(problem[0] or stmt, problem[1])
            var = loop_variable(stmt)
            self.omp_loops.add(id(stmt))
            self.scopes.append(Scope("block"))
            try:  # the type of the iteration variable (declared in the loop or before it)
                if isinstance(stmt.init, c_ast.DeclList):
                    self.statement(stmt.init)
                sym = self.lookup(var) if var else None
                if sym is not None and is_known(sym.type) and sym.type.kind not in ("int", "pointer"):
                    self.fail(stmt, f"invalid type for iteration variable '{var}'")
            finally:
                self.scopes.pop()
            body = stmt.stmt
            if isinstance(body, c_ast.Compound) and len(body.block_items or []) == 1:
                body = body.block_items[0]
            stmt = body

    def _parsed(self, text: str) -> c_ast.Node | None:
        try:
            ast = c_parser.CParser().parse(f"int __passman_value = ({text});")
        except Exception:  # noqa: BLE001 - checked already by _clause_expression
            return None
        return ast.ext[0].init

    def loop_pragmas(self, items: list[c_ast.Node]) -> None:
        """``#pragma GCC ivdep`` and ``#pragma GCC unroll N`` must come right before a loop."""
        pending: set[str] = set()
        last: c_ast.Node | None = None
        for item in items:
            m = _LOOP_PRAGMA.match(item.string) if isinstance(item, c_ast.Pragma) else None
            if m is not None:
                kind, rest = m.group(1), m.group(2).strip()
                if kind in pending:
                    self.fail(item, "for, while or do statement expected before '#pragma'")
                if kind == "ivdep" and rest:
                    self.fail(item, f"expected end of line before '{rest.split()[0]}'")
                if kind == "unroll" and not _unroll_count(rest):
                    self.fail(item, "'#pragma GCC unroll' requires an assignment-expression that "
                                    "evaluates to a non-negative integral constant less than 65535")
                pending.add(kind)
                last = item
                continue
            if pending and not isinstance(item, (c_ast.For, c_ast.While, c_ast.DoWhile)):
                self.fail(item, "for, while or do statement expected")
            pending = set()
        if pending:
            self.fail(last, "for, while or do statement expected before '}' token")

    def statement(self, s: c_ast.Node | None) -> None:
        """Check one statement (or declaration) of a function body."""
        if s is None:
            return
        self.last_coord = s.coord or self.last_coord
        match s:
            case c_ast.Compound():
                self.scopes.append(Scope("block"))
                try:
                    self.block(s.block_items or [])
                finally:
                    self.scopes.pop()
            case c_ast.Decl() | c_ast.Typedef():
                self.declaration(s)
            case c_ast.DeclList():
                for d in s.decls:
                    self.declaration(d)
            case c_ast.If():
                self.condition(s.cond)
                self.statement(s.iftrue)
                self.statement(s.iffalse)
            case c_ast.While() | c_ast.DoWhile():
                self.condition(s.cond)
                self._loop_body(s.stmt)
            case c_ast.For():
                self.scopes.append(Scope("block"))
                try:
                    self.statement(s.init)
                    if s.cond is not None:
                        self.condition(s.cond)
                    if s.next is not None:
                        self.expr(s.next)
                    self._loop_body(s.stmt, "omp-loop" if id(s) in self.omp_loops else "loop")
                finally:
                    self.scopes.pop()
            case c_ast.Switch():
                t = self.value(s.cond)
                if is_known(t) and not is_integer(t):
                    self.fail(s.cond, "switch quantity not an integer")
                self.jumps.append(set())
                try:
                    self.statement(s.stmt)
                finally:
                    self.jumps.pop()
            case c_ast.Case() | c_ast.Default():
                self._case(s)
            case c_ast.Break():
                if not self.jumps or self.jumps[-1] == "block":
                    self.fail(s, "break statement not within loop or switch")
                if self.jumps[-1] == "omp-loop":
                    self.fail(s, "break statement used with OpenMP for loop")
            case c_ast.Continue():
                inner = next((j for j in reversed(self.jumps) if not isinstance(j, set)), "block")
                if inner == "block":
                    self.fail(s, "continue statement not within a loop")
            case c_ast.Return():
                self._return(s)
            case c_ast.Label():
                if self.function is not None:
                    if s.name in self.function.labels:
                        self.fail(s, f"duplicate label '{s.name}'")
                    self.function.labels.add(s.name)
                self.statement(s.stmt)
            case c_ast.Goto():
                if self.function is not None:
                    self.function.gotos.append(s)
            case c_ast.EmptyStatement() | c_ast.Pragma() | c_ast.FuncDef():
                pass
            case c_ast.StaticAssert():
                self.expr(s.cond)
            case _:
                self.expr(s)

    def _loop_body(self, body: c_ast.Node | None, kind: str = "loop") -> None:
        self.jumps.append(kind)
        try:
            self.statement(body)
        finally:
            self.jumps.pop()

    def _case(self, s: c_ast.Case | c_ast.Default) -> None:
        switch = next((j for j in reversed(self.jumps) if j == "block" or isinstance(j, set)), None)
        switch = switch if isinstance(switch, set) else None
        if isinstance(s, c_ast.Default):
            if switch is None:
                self.fail(s, "'default' label not within a switch statement")
            if "default" in switch:
                self.fail(s, "multiple default labels in one switch")
            switch.add("default")
        else:
            if switch is None:
                self.fail(s, "case label not within a switch statement")
            t = self.value(s.expr)
            if is_known(t) and not is_integer(t) or self.not_integer_constant(s.expr):
                self.fail(s.expr, "case label does not reduce to an integer constant")
            v = self.value_of(s.expr)
            if v is not None:
                if v in switch:
                    self.fail(s, "duplicate case value")
                switch.add(v)
        for st in s.stmts or []:
            self.statement(st)

    def _return(self, s: c_ast.Return) -> None:
        if s.expr is None:
            return
        t = self.value(s.expr)
        ret = self.function.ret if self.function is not None else UNKNOWN
        if ret.kind == "void" or not is_known(ret):
            return
        self.assignable(ret, t, s.expr, f"incompatible types when returning type '{t.spelled}' "
                                        f"but '{unqualified(ret).spelled}' was expected")

    def condition(self, e: c_ast.Node) -> None:
        """A controlling expression: it must be a scalar."""
        self.scalar(e, self.value(e))


def _sized_by(t: CType, init: c_ast.Node | None) -> CType:
    """An array declared without a size (``int a[] = {1, 2}``) takes it from its initializer."""
    if t.kind != "array" or not t.unsized or init is None:
        return t
    return replace(t, unsized=False)  # of a size the model does not count (braces may be elided)


def _unroll_count(text: str) -> bool:
    """Whether the argument of ``#pragma GCC unroll`` may be a count gcc accepts."""
    if not text or re.search(r"[\w)]\s+[\w(]", text):
        return False
    number = re.fullmatch(r"(\d+)[uUlL]*", text)
    return number is None or int(number.group(1)) < 65535
