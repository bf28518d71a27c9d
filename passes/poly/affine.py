"""C integer expressions as isl piecewise quasi-affine functions, C conditions as isl sets.

The polyhedral analyses (:mod:`.scop`, :mod:`.preconditions`, :mod:`.regions`)
all turn C expressions into isl objects through :class:`AffineBuilder`. The
caller decides what an identifier is with a *lookup* function: a set
dimension (a loop iterator, a region's ``PHI``), an isl parameter (a
symbolic program variable), a known constant (an enumerator), or nothing
affine (None). Before::

    2 * i + n - 1          with i a dimension, n a parameter
    (i + 1) / 2            C division, truncating toward zero
    i < n && j != 3

After (isl)::

    [n] -> { [i] -> [(2i + n - 1)] }
    { [i] -> [(floor((1 + i)/2))] : i >= -1; [i] -> [(-floor((-1 - i)/2))] : i < -1 }
    [n] -> { [i, j] : i < n and (j < 3 or j > 3) }

Supported: integer literals, ``+``, ``-``, unary ``-``/``+``, ``*`` when
one side is a constant, ``/`` and ``%`` by a positive constant (isl's
``tdiv_q``/``tdiv_r``, which are exactly C's truncating semantics; with a
context that proves the dividend non-negative they reduce to floor
division), ``<<`` by a constant, casts to integer types, ``?:`` with an
affine condition (min/max), comparisons and ``&&``, ``||``, ``!``.
Anything else (calls, memory reads, floating point, ``>>``, overflowing
unsigned arithmetic) is refused with None: the caller then treats the
expression as non-affine, never as something it is not.

Signed overflow is undefined in C, so signed arithmetic is modelled over
the integers. Unsigned arithmetic wraps around: a subtraction or negation
whose type is unsigned, and a comparison mixing signed and unsigned
operands, are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import islpy as isl
from pycparser import c_ast

from passman.printer import to_c

from ..cfacts.folding import int_value
from ..cfacts.types import TypeEnv

#: what an identifier is: ("dim", position), ("param", isl name) or ("const", value)
Symbol = tuple
Lookup = Callable[[c_ast.ID], "Symbol | None"]

_INT_CATEGORIES = ("signed", "unsigned")
_INT_TYPE_WORDS = frozenset(
    {"int", "long", "short", "char", "signed", "unsigned", "_Bool", "size_t", "ptrdiff_t",
     "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
     "intptr_t", "uintptr_t"}
)  # fmt: skip

_COMPARE = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set", "==": "eq_set", "!=": "ne_set"}


def ctx() -> isl.Context:
    """The isl context every polyhedral object of passman lives in."""
    return isl.DEFAULT_CONTEXT


#: the budgets in force (isl has one operation counter per context: the outermost one counts)
_budgets: list[int] = []


@contextmanager
def operation_budget(operations: int) -> Iterator[None]:
    """Run the block under isl's operation limit: isl raises ``isl.Error`` when it runs out.

    The limit counts isl's elementary operations, so a refusal is the same on
    every machine (a wall-clock limit is not possible: isl holds the
    interpreter while it works). Inside another budget the outer one counts.
    Tell its error from others with :func:`out_of_operations`.
    """
    c = ctx()
    if _budgets:
        yield
        return
    _budgets.append(operations)
    c.reset_operations()
    c.set_max_operations(operations)
    try:
        yield
    finally:
        c.set_max_operations(0)
        c.reset_operations()
        _budgets.pop()


#: constraints of a union's pieces, in all, up to which :func:`convex_hull` takes the hull from
#: the dual. isl's ``coefficients`` and ``solutions`` do not count their work against the
#: operation budget and their time grows fast: pieces of 10 and 21 constraints over 7
#: dimensions took 9 s then 31 s (fuzz seed 20016), where isl's own hull runs out of its
#: budget in 0.05 s. Region unions of the test suite stay under 20.
MAX_DUAL_CONSTRAINTS = 20

#: constraints of the dual (the union's ``coefficients``, redundancies removed) up to which
#: its ``solutions`` are computed. Their cost is exponential in that count (a Fourier-Motzkin
#: elimination of one multiplier per constraint) and is not predicted by the union's own size:
#: over 411 hulls of 60 random API cases, every dual of at most 18 constraints took under
#: 0.09 s, while duals of 20 to 29 took up to 15 s (fuzz case timeout_b36a885f: 18
#: constraints in two pieces, a dual of 22, 9.5 s). Beyond it there is no hull (None).
MAX_DUAL_SOLUTION_CONSTRAINTS = 16


def _n_constraints(s: isl.Set) -> int:
    return sum(len(b.get_constraints()) for b in s.get_basic_sets())


def convex_hull(s: isl.Set) -> isl.BasicSet | None:
    """The convex hull of ``s`` (a set without local variables), None when too costly.

    Small unions (at most :data:`MAX_DUAL_CONSTRAINTS` constraints in all)
    take it from the dual: by Farkas' lemma the affine forms non-negative on
    ``s`` (isl's ``coefficients``) are those non-negative on its hull, whose
    points are the ``solutions`` of that dual; the constraints are re-read so
    the result is an integer set, as isl's ``convex_hull`` gives. That is
    the same hull with 5-20 times fewer operations, and a path that survives
    an :func:`operation_budget` running out: isl 2026.2's ``convex_hull``
    dereferences a null pointer when the budget ends at some points of its
    computation (fuzz case traceback_convex_hull_budget, a SIGSEGV; with a
    budget of 30,000 operations fuzz case timeout_40e5ce02 crashed too).
    Larger unions, or a dual of more than
    :data:`MAX_DUAL_SOLUTION_CONSTRAINTS` constraints, give None: the caller
    keeps a coarser hull (the same answer on every machine, where a time
    limit would not be). isl's hull under a budget of 200,000 operations
    spent 0.08 s on each union it gave up on (22 per region analysis in fuzz
    case timeout_db5878ee), and leaving it out changed no OpenMP or OpenCL
    output of the corpus.
    """
    s = s.remove_redundancies().remove_divs()  # local variables left unused: coefficients refuses them
    if _n_constraints(s) > MAX_DUAL_CONSTRAINTS:
        return None
    dual = s.coefficients().remove_redundancies()
    if _n_constraints(dual) > MAX_DUAL_SOLUTION_CONSTRAINTS:
        return None
    points = dual.solutions()
    hull = isl.BasicSet.universe(points.get_space())
    for c in points.get_constraints():
        hull = hull.add_constraint(c)
    return hull


def out_of_operations(err: Exception) -> bool:
    """Whether an ``isl.Error`` says that an :func:`operation_budget` ran out."""
    text = str(err)
    return isinstance(err, isl.Error) and ("operations" in text or "quota" in text)


#: pieces of a ``?:`` expression's value beyond which it is not treated as affine: the bounds
#: isl generated for a strip-mined then tiled nest nested min/max eight deep (fuzz case
#: timeout_f8c910d4)
MAX_PIECES = 32

#: the largest coefficient (in absolute value) of a relation that exact refinements (lexmin,
#: singleton and emptiness tests on derived sets) are run on. Linearized subscripts
#: (``A[70 * i + 10 * j + k]``) give coefficients like 70 and 11, and isl's parametric integer
#: programming on them took 6 s per lexmin in fuzz case timeout_dd08144a; isl does not count
#: those steps against :func:`operation_budget`, so the size is checked before
HARD_COEFFICIENT = 16
#: the most disjuncts such a refinement is run on
HARD_PIECES = 16


def _constraint_dims(obj: isl.BasicMap | isl.BasicSet) -> tuple:
    if isinstance(obj, isl.BasicSet):
        return (isl.dim_type.param, isl.dim_type.set, isl.dim_type.div)
    return (isl.dim_type.param, isl.dim_type.in_, isl.dim_type.out, isl.dim_type.div)


def hard(obj: isl.Map | isl.Set) -> bool:
    """Whether an exact refinement of ``obj`` may take isl unbounded time (see HARD_COEFFICIENT).

    Callers then keep the over-approximation they already have (the memory-based relation, an
    unknown direction), which is sound and costs nothing.
    """
    pieces = obj.get_basic_sets() if isinstance(obj, isl.Set) else obj.get_basic_maps()
    if len(pieces) > HARD_PIECES:
        return True
    for piece in pieces:
        dims = _constraint_dims(piece)
        for c in piece.get_constraints():
            for dt in dims:
                for pos in range(piece.dim(dt)):
                    if abs(c.get_coefficient_val(dt, pos).to_python()) > HARD_COEFFICIENT:
                        return True
    return False


def literal_value(c: c_ast.Constant) -> tuple[int, bool] | None:
    """``(value, is_unsigned)`` of an integer or character literal, else None."""
    if c.type not in ("int", "char", "long int", "unsigned int", "long long int",
                      "unsigned long int", "unsigned long long int", "long", "unsigned long"):  # fmt: skip
        if "int" not in c.type and c.type != "char":
            return None
    text = c.value
    if c.type == "char":
        v = int_value(c)
        return None if v is None else (v, False)
    body = text.rstrip("uUlL")
    unsigned = any(ch in "uU" for ch in text[len(body):]) or "unsigned" in c.type
    try:
        if len(body) > 1 and body[0] == "0" and body[1] not in "xXbB":
            return int(body, 8), unsigned
        return int(body, 0), unsigned
    except ValueError:
        return None


def is_integer_type(t: c_ast.Node | None, types: TypeEnv | None) -> bool:
    """Whether a declared type is an integer (or enum) type."""
    if types is not None:
        return types.category(t) in _INT_CATEGORIES and not _is_float_like(types.unalias(t))
    while isinstance(t, (c_ast.Decl, c_ast.Typename)):
        t = t.type
    if isinstance(t, c_ast.TypeDecl):
        inner = t.type
        if isinstance(inner, c_ast.Enum):
            return True
        if isinstance(inner, c_ast.IdentifierType):
            return bool(set(inner.names) & _INT_TYPE_WORDS) and not set(inner.names) & {"float", "double"}
    return False


def _is_float_like(t: c_ast.Node | None) -> bool:
    return (
        isinstance(t, c_ast.TypeDecl)
        and isinstance(t.type, c_ast.IdentifierType)
        and bool(set(t.type.names) & {"float", "double"})
    )


class AffineBuilder:
    """Converts C expressions into isl objects over one set space.

    ``space`` is an isl set space (its set dimensions are what ``("dim", k)``
    symbols index; parameters may be added freely, isl aligns them).
    ``lookup`` classifies identifiers; ``types`` (optional) gives C types so
    that floating-point and unsigned expressions are refused; ``context``
    (optional, a set in ``space``) is known to hold wherever the result is
    used, and lets divisions simplify.
    """

    def __init__(
        self,
        space: isl.Space,
        lookup: Lookup,
        types: TypeEnv | None = None,
        context: isl.Set | None = None,
    ):
        self.space = space
        self.lookup = lookup
        self.types = types
        self.context = context
        self._ls = isl.LocalSpace.from_space(space)
        self._param_ls: dict[str, isl.LocalSpace] = {}
        self._ternaries: dict[str, isl.PwAff | None] = {}

    # -- atoms ---------------------------------------------------------------------
    def const(self, v: int) -> isl.PwAff:
        """The constant ``v`` on the builder's space."""
        return isl.PwAff.from_aff(isl.Aff.val_on_domain(self._ls, isl.Val.int_from_si(ctx(), v)))

    def dim(self, pos: int) -> isl.PwAff:
        """Set dimension ``pos`` as a function."""
        return isl.PwAff.from_aff(isl.Aff.var_on_domain(self._ls, isl.dim_type.set, pos))

    def param(self, name: str) -> isl.PwAff:
        """Parameter ``name`` as a function (the parameter is added to the space)."""
        ls = self._param_ls.get(name)
        if ls is None:
            sp = self.space
            k = sp.find_dim_by_name(isl.dim_type.param, name)
            if k < 0:
                sp = sp.add_dims(isl.dim_type.param, 1).set_dim_name(
                    isl.dim_type.param, sp.dim(isl.dim_type.param), name
                )
                k = sp.find_dim_by_name(isl.dim_type.param, name)
            ls = isl.LocalSpace.from_space(sp)
            self._param_ls[name] = ls
        else:
            k = ls.get_space().find_dim_by_name(isl.dim_type.param, name)
        return isl.PwAff.from_aff(isl.Aff.var_on_domain(ls, isl.dim_type.param, k))

    def universe(self) -> isl.Set:
        """The universe set of the builder's space."""
        return isl.Set.universe(self.space)

    # -- expressions -----------------------------------------------------------------
    def _category(self, e: c_ast.Node) -> str | None:
        return self.types.expr_category(e) if self.types is not None else None

    def expr(self, e: c_ast.Node | None) -> isl.PwAff | None:
        """``e`` as a piecewise quasi-affine function of the space, or None if not affine."""
        if e is None:
            return None
        try:
            out = self._expr(e)
        except isl.Error:
            return None
        if out is not None and self.context is not None:
            out = out.gist(self.context)
        return out

    def _expr(self, e: c_ast.Node) -> isl.PwAff | None:
        match e:
            case c_ast.Constant():
                lit = literal_value(e)
                return None if lit is None else self.const(lit[0])
            case c_ast.ID():
                sym = self.lookup(e)
                if sym is None:
                    return None
                kind, what = sym
                if kind == "dim":
                    return self.dim(what)
                if kind == "param":
                    return self.param(what)
                if kind == "const":
                    return self.const(what)
                return None
            case c_ast.UnaryOp(op="+"):
                return self._expr(e.expr)
            case c_ast.UnaryOp(op="-"):
                if self._category(e) == "unsigned":
                    return None
                a = self._expr(e.expr)
                return None if a is None else a.neg()
            case c_ast.Cast():
                if not is_integer_type(e.to_type, self.types):
                    return None
                if self.types is not None and self._category(e.expr) not in _INT_CATEGORIES:
                    return None
                return self._expr(e.expr)
            case c_ast.TernaryOp():
                key = to_c(e)  # generated bounds repeat the same min/max many times
                if key not in self._ternaries:
                    self._ternaries[key] = self._ternary(e)
                return self._ternaries[key]
            case c_ast.BinaryOp(op="+" | "-" | "*" | "/" | "%" | "<<"):
                return self._binary(e)
            case c_ast.BinaryOp(op="<" | "<=" | ">" | ">=" | "==" | "!=" | "&&" | "||"):
                c = self.cond(e)
                return None if c is None else c.indicator_function()
            case c_ast.UnaryOp(op="!"):
                c = self.cond(e)
                return None if c is None else c.indicator_function()
        return None

    def _ternary(self, e: c_ast.TernaryOp) -> isl.PwAff | None:
        c = self.cond(e.cond)  # also refuses a comparison C does not make over the integers
        a, b = self._expr(e.iftrue), self._expr(e.iffalse)
        if c is None or a is None or b is None:
            return None
        out = c.indicator_function().cond(a, b).coalesce()
        return None if out.n_piece() > MAX_PIECES else out

    def _binary(self, e: c_ast.BinaryOp) -> isl.PwAff | None:
        cat = self._category(e)
        if self.types is not None and cat not in _INT_CATEGORIES:
            return None
        if e.op == "-" and cat == "unsigned":
            return None
        a = self._expr(e.left)
        if a is None:
            return None
        if e.op in ("/", "%", "<<"):
            k = self._constant_of(e.right)
            if k is None:
                return None
            if e.op == "<<":
                if k < 0 or k > 62:
                    return None
                return a.scale_val(isl.Val.int_from_si(ctx(), 1 << k)) if k else a
            if k == 0:
                return None
            sign = 1 if k > 0 else -1
            d = self.const(abs(k))
            if e.op == "/":
                q = self._nonneg_div(a, abs(k)) if self._nonneg(a) else a.tdiv_q(d)
                return q if sign > 0 else q.neg()
            # C: a % -k == a % k
            return a.mod_val(isl.Val.int_from_si(ctx(), abs(k))) if self._nonneg(a) else a.tdiv_r(d)
        b = self._expr(e.right)
        if b is None:
            return None
        if e.op == "+":
            return a.add(b)
        if e.op == "-":
            return a.sub(b)
        if a.is_cst() or b.is_cst():
            return a.mul(b)
        return None

    def _constant_of(self, e: c_ast.Node) -> int | None:
        v = int_value(e)
        if v is not None:
            return v
        pa = self._expr(e)
        if pa is None or not pa.is_cst() or pa.n_piece() != 1:
            return None
        pieces = pa.get_pieces()
        val = pieces[0][1].get_constant_val()
        return val.to_python() if val.is_int() else None

    def _nonneg(self, a: isl.PwAff) -> bool:
        dom = self.context if self.context is not None else None
        if dom is None:
            return a.is_cst() and a.nonneg_set().is_equal(a.domain())
        return dom.is_subset(a.nonneg_set())

    @staticmethod
    def _nonneg_div(a: isl.PwAff, k: int) -> isl.PwAff:
        return a.scale_down_val(isl.Val.int_from_si(ctx(), k)).floor()

    # -- conditions -------------------------------------------------------------------
    def cond(self, e: c_ast.Node | None) -> isl.Set | None:
        """The set where condition ``e`` holds (C truth: non-zero), or None if not affine."""
        if e is None:
            return None
        try:
            return self._cond(e)
        except isl.Error:
            return None

    def _cond(self, e: c_ast.Node) -> isl.Set | None:
        match e:
            case c_ast.BinaryOp(op="&&" | "||"):
                a, b = self._cond(e.left), self._cond(e.right)
                if a is None or b is None:
                    return None
                return a.intersect(b) if e.op == "&&" else a.union(b).coalesce()
            case c_ast.UnaryOp(op="!"):
                a = self._cond(e.expr)
                return None if a is None else a.complement()
            case c_ast.BinaryOp(op=op) if op in _COMPARE:
                if self.types is not None and not self._comparable(e.left, e.right):
                    return None
                a, b = self._expr(e.left), self._expr(e.right)
                if a is None or b is None:
                    return None
                return getattr(a, _COMPARE[op])(b)
            case c_ast.Constant():
                lit = literal_value(e)
                if lit is None:
                    return None
                u = self.universe()
                return u if lit[0] else isl.Set.empty(self.space)
        a = self._expr(e)
        return None if a is None else a.ne_set(self.const(0))

    def _comparable(self, left: c_ast.Node, right: c_ast.Node) -> bool:
        ca, cb = self._category(left), self._category(right)
        if ca not in _INT_CATEGORIES or cb not in _INT_CATEGORIES:
            return False
        if ca == cb:
            return True
        # signed vs unsigned: the signed side converts; fine only if it cannot be negative
        signed = left if ca == "signed" else right
        v = int_value(signed)
        return v is not None and v >= 0


def instance_map(affs: list[isl.Aff], domain: isl.Set) -> isl.Map:
    """``domain``'s instances -> ``[affs[0], affs[1], ...]`` (affine forms on its space), as a map
    with an anonymous range (a schedule band's or a coordinate system's piece for one statement)."""
    m = None
    for aff in affs:
        f = isl.Map.from_aff(aff)
        m = f if m is None else m.flat_range_product(f)
    return m.reset_tuple_id(isl.dim_type.out).intersect_domain(domain)


def params_universe() -> isl.Set:
    """The universe of the parameter space with no parameters (isl aligns more in)."""
    return isl.Set.universe(isl.Space.params_alloc(ctx(), 0))


def param_names(obj: isl.Set | isl.Map) -> list[str]:
    """Names of the parameters of an isl set or map."""
    return [obj.get_dim_name(isl.dim_type.param, k) for k in range(obj.dim(isl.dim_type.param))]


def project_out_params(s: isl.Set | isl.Map, names) -> isl.Set | isl.Map:
    """``s`` with the named parameters existentially projected out (absent names are ignored)."""
    for name in names:
        k = s.find_dim_by_name(isl.dim_type.param, name)
        if k >= 0:
            s = s.project_out(isl.dim_type.param, k, 1)
    return s


def involves_param(s: isl.Set | isl.Map, name: str) -> bool:
    """Whether the constraints of ``s`` mention parameter ``name``."""
    k = s.find_dim_by_name(isl.dim_type.param, name)
    return k >= 0 and s.involves_dims(isl.dim_type.param, k, 1)


def rename_param(s: isl.Set | isl.Map, old: str, new: str) -> isl.Set | isl.Map:
    """``s`` with parameter ``old`` renamed to ``new`` (unchanged if absent)."""
    k = s.find_dim_by_name(isl.dim_type.param, old)
    if k < 0:
        return s
    return s.set_dim_name(isl.dim_type.param, k, new)


#: isl operations :func:`constant_extent` may spend on the minimum and maximum of a dimension
#: (parametric integer programming on a set of tiled code's divisions ran for minutes)
EXTENT_OPERATIONS = 500_000


def constant_extent(s: isl.Set, dim: int) -> int | None:
    """How many values set dimension ``dim`` of ``s`` spans (max - min + 1), None unless both are constants.

    None too when isl needs more than :data:`EXTENT_OPERATIONS` to tell.
    """
    try:
        with operation_budget(EXTENT_OPERATIONS):
            lo, hi = s.dim_min(dim), s.dim_max(dim)
    except isl.Error:  # unbounded, or past the budget
        return None
    if not (lo.is_cst() and hi.is_cst()):
        return None
    try:
        lo_v = lo.get_pieces()[0][1].get_constant_val().to_python()
        hi_v = hi.get_pieces()[0][1].get_constant_val().to_python()
    except (IndexError, isl.Error):
        return None
    return max(hi_v - lo_v + 1, 0)
