"""A small model of C types, for checking what a program does with its values.

:class:`CType` says what kind of value an expression has (an integer, a
floating-point number, a pointer, an array, a function, a struct or union,
``void``) with enough detail to apply C's constraints: which operands an
operator takes, what may be assigned to what, whether two declarations of a
name agree. A type the model cannot follow is ``UNKNOWN``, and every check
accepts it: the model says "wrong" only when it is sure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from pycparser import c_ast


@dataclass(eq=False)
class Record:
    """A struct, union or enum tag; members are known once it is defined."""

    kind: str
    name: str | None
    #: member name -> type, in order; None while the tag is incomplete
    members: dict[str, CType] | None = None
    #: members of anonymous structs or unions were merged in (positions differ)
    flat: bool = False

    @property
    def spelled(self) -> str:
        """The tag as C writes it (``struct s``, ``union <anonymous>``)."""
        return f"{self.kind} {self.name or '<anonymous>'}"


@dataclass(frozen=True)
class CType:
    """A C type: ``kind`` is int, float, void, pointer, array, function, record or unknown."""

    kind: str
    #: canonical name of an arithmetic type (``unsigned long``, ``double``)
    name: str = ""
    #: pointed-to type, element type or return type
    of: CType | None = None
    #: number of elements of an array, when a known constant
    size: int | None = None
    #: parameter types of a prototype; None for ``int f()`` (no prototype)
    params: tuple[CType, ...] | None = None
    variadic: bool = False
    record: Record | None = field(default=None, compare=False)
    const: bool = False
    #: an enumerated type (an integer whose exact type the model does not track)
    enum: bool = False
    #: an array whose size is not a constant (a variable-length array)
    variable: bool = field(default=False, compare=False)
    #: an array declared without a size (``int a[]``): incomplete until initialized
    unsized: bool = field(default=False, compare=False)

    @property
    def spelled(self) -> str:
        """The type as a C programmer would write it (for messages)."""
        q = "const " if self.const and self.kind not in ("pointer", "array") else ""
        match self.kind:
            case "int" | "float" | "void":
                return q + (self.name or self.kind)
            case "record":
                return q + (self.record.spelled if self.record else "struct")
            case "pointer":
                inner = self.of.spelled if self.of else "void"
                ptr = " *const" if self.const else " *"
                return f"{inner}{ptr}" if not inner.endswith("*") else f"{inner[:-1]}*{ptr.strip()}"
            case "array":
                n = "" if self.size is None else str(self.size)
                return f"{self.of.spelled if self.of else '?'}[{n}]"
            case "function":
                ps = "..." if self.params is None else ", ".join(p.spelled for p in self.params) or "void"
                return f"{self.of.spelled if self.of else 'int'}({ps})"
        return "<unknown>"


UNKNOWN = CType("unknown")
VOID = CType("void", "void")
INT = CType("int", "int")
UNSIGNED_LONG = CType("int", "unsigned long")
DOUBLE = CType("float", "double")
CHAR = CType("int", "char")


def pointer_to(t: CType) -> CType:
    """The type of a pointer to ``t``."""
    return CType("pointer", of=t)


def is_known(t: CType) -> bool:
    """Whether the model knows what ``t`` is."""
    return t.kind != "unknown"


def is_integer(t: CType) -> bool:
    """An integer type (``char``, ``_Bool`` and enumerations included)."""
    return t.kind == "int"


def is_arithmetic(t: CType) -> bool:
    """An integer or floating-point type."""
    return t.kind in ("int", "float")


def is_pointer_like(t: CType) -> bool:
    """A pointer, or an array or function that decays to one."""
    return t.kind in ("pointer", "array", "function")


def is_scalar(t: CType) -> bool:
    """A type allowed where C wants a scalar (conditions, ``!``, ``&&``)."""
    return is_arithmetic(t) or is_pointer_like(t)


def decay(t: CType) -> CType:
    """``t`` as a value: arrays become pointers to their first element, functions pointers."""
    if t.kind == "array":
        return CType("pointer", of=t.of or UNKNOWN)
    if t.kind == "function":
        return CType("pointer", of=t)
    return unqualified(t) if t.const else t


def unqualified(t: CType) -> CType:
    """``t`` without its top-level ``const``."""
    return replace(t, const=False) if t.const else t


def is_complete_object(t: CType) -> bool | None:
    """Whether an object of type ``t`` has a known size (None: the model cannot tell)."""
    if t.kind == "void":
        return False
    if t.kind == "record":
        return None if t.record is None else t.record.members is not None
    if t.kind == "array":
        return False if t.unsized else None if t.of is None else is_complete_object(t.of)
    return None if t.kind == "unknown" else True


def arithmetic_result(a: CType, b: CType) -> CType:
    """The type of ``a op b`` for arithmetic operands (the usual conversions, roughly)."""
    if a.kind == "float" or b.kind == "float":
        floats = [t.name for t in (a, b) if t.kind == "float"]
        bases = {n.removesuffix(" _Complex") for n in floats}
        suffix = " _Complex" if any(n.endswith("_Complex") for n in floats) else ""
        for n in ("long double", "double", "float"):
            if n in bases:
                return CType("float", n + suffix)
        return DOUBLE
    if a.kind == b.kind == "int":
        return INT
    return UNKNOWN


_COMPARISONS = frozenset(("<", ">", "<=", ">=", "==", "!="))


def binary_result(op: str, a: CType, b: CType) -> CType | None:
    """The type of ``a op b`` for known operand types (values: arrays decayed); None if invalid."""
    arith = is_arithmetic(a) and is_arithmetic(b)
    if op in ("*", "/"):
        return arithmetic_result(a, b) if arith else None
    if op in ("%", "<<", ">>", "&", "|", "^"):
        return INT if is_integer(a) and is_integer(b) else None
    ptr_a, ptr_b = a.kind == "pointer", b.kind == "pointer"
    if op == "+":
        if arith:
            return arithmetic_result(a, b)
        if ptr_a and is_integer(b) or ptr_b and is_integer(a):
            return a if ptr_a else b
        return None
    if op == "-":
        if arith:
            return arithmetic_result(a, b)
        if ptr_a and is_integer(b):
            return a
        if ptr_a and ptr_b:
            same = compatible(unqualified(a.of or UNKNOWN), unqualified(b.of or UNKNOWN))
            return None if same is False else CType("int", "long")
        return None
    if op in _COMPARISONS:
        if arith or ptr_a and ptr_b or ptr_a and is_integer(b) or ptr_b and is_integer(a):
            return INT
        return None
    if op in ("&&", "||"):
        return INT if is_scalar(a) and is_scalar(b) else None
    return UNKNOWN


def compatible(a: CType, b: CType) -> bool | None:
    """Whether two declarations of one name may have types ``a`` and ``b`` (None: cannot tell)."""
    if not is_known(a) or not is_known(b) or a.enum or b.enum:
        return None
    if a.kind != b.kind:
        return False
    match a.kind:
        case "int" | "float":
            return a.name == b.name if a.name and b.name else None
        case "void":
            return True
        case "record":
            if a.record is None or b.record is None:
                return None
            return a.record is b.record
        case "pointer":
            if a.of is None or b.of is None:
                return None
            if a.of.const != b.of.const and is_known(a.of) and is_known(b.of):
                return False
            return compatible(a.of, b.of)
        case "array":
            if a.size is not None and b.size is not None and a.size != b.size:
                return False
            return compatible(a.of or UNKNOWN, b.of or UNKNOWN)
        case "function":
            return _compatible_functions(a, b)
    return None


def _compatible_functions(a: CType, b: CType) -> bool | None:
    ret = compatible(a.of or INT, b.of or INT)
    if ret is False:
        return False
    if a.params is None and b.params is None:
        return ret
    if a.params is None or b.params is None:
        proto = a if a.params is not None else b
        if proto.variadic or any(_changed_by_promotion(p) for p in proto.params or ()):
            return False
        return ret
    if len(a.params) != len(b.params) or a.variadic != b.variadic:
        return False
    verdicts = [compatible(parameter_type(p), parameter_type(q)) for p, q in zip(a.params, b.params)]
    if False in verdicts:
        return False
    return None if None in verdicts or ret is None else True


def _changed_by_promotion(t: CType) -> bool:
    return t.kind == "float" and t.name == "float" or t.kind == "int" and t.name in (
        "char", "signed char", "unsigned char", "short", "unsigned short", "_Bool")


def parameter_type(t: CType) -> CType:
    """A parameter's type as the function sees it: arrays and functions become pointers."""
    if t.kind in ("array", "function"):
        return decay(t)
    return unqualified(t)


# -- declaration specifiers ----------------------------------------------------

_SPECIFIERS = frozenset(
    "void char short int long float double signed unsigned _Bool _Complex".split()
)


class SpecifierError(ValueError):
    """Type specifiers that do not make a type (``int int``, ``unsigned double``)."""


def arithmetic_type(names: list[str]) -> CType | None:
    """The type that basic type specifiers name; None for a typedef name.

    Raises :class:`SpecifierError` with gcc's wording for an invalid combination.
    """
    if any(n not in _SPECIFIERS for n in names):
        if len(names) != 1:
            raise SpecifierError("two or more data types in declaration specifiers")
        return None
    c = Counter(names)
    for word in ("signed", "unsigned", "short", "_Complex", "char", "int", "float", "double",
                 "void", "_Bool"):
        if c[word] > 1:
            if word in ("signed", "unsigned", "short", "_Complex"):
                raise SpecifierError(f"duplicate '{word}'")
            raise SpecifierError("two or more data types in declaration specifiers")
    if c["long"] > 2:
        raise SpecifierError("'long long long' is too long for GCC")
    sign = "unsigned" if c["unsigned"] else "signed" if c["signed"] else ""
    if c["signed"] and c["unsigned"]:
        raise SpecifierError("both 'signed' and 'unsigned' in declaration specifiers")
    bases = [w for w in ("void", "_Bool", "char", "int", "float", "double") if c[w]]
    if len(bases) > 1 and set(bases) != {"int"}:
        raise SpecifierError("two or more data types in declaration specifiers")
    base = bases[0] if bases else "int"
    if c["short"] and c["long"]:
        raise SpecifierError("both 'long' and 'short' in declaration specifiers")
    if base in ("void", "_Bool", "float", "double", "char") and (c["short"] or (c["long"] and base != "double")):
        raise SpecifierError(
            f"both '{'short' if c['short'] else 'long'}' and '{base}' in declaration specifiers")
    if base == "double" and c["long"] > 1:
        raise SpecifierError("both 'long long' and 'double' in declaration specifiers")
    if sign and base in ("void", "_Bool", "float", "double"):
        raise SpecifierError(f"both '{sign}' and '{base}' in declaration specifiers")
    if c["_Complex"]:
        if base == "void" or base == "_Bool":
            raise SpecifierError(f"both 'complex' and '{base}' in declaration specifiers")
        return CType("float", " ".join(w for w in ("long", base, "_Complex") if c[w])) \
            if base in ("float", "double") or not (bases or sign or c["short"] or c["long"]) else UNKNOWN
    if base in ("float", "double"):
        return CType("float", "long double" if c["long"] else base)
    if base == "void":
        return VOID
    if base == "_Bool":
        return CType("int", "_Bool")
    if base == "char":
        return CType("int", f"{sign} char".strip())
    width = "short" if c["short"] else "long long" if c["long"] == 2 else "long" if c["long"] else "int"
    return CType("int", f"unsigned {width}" if sign == "unsigned" else width)


STORAGE_CLASSES = ("typedef", "extern", "static", "auto", "register")


def storage_problem(storage: list[str]) -> str | None:
    """gcc's complaint about a list of storage-class specifiers, if any."""
    seen: set[str] = set()
    for s in storage:
        if s in seen:
            return f"duplicate '{s}'"
        seen.add(s)
    if len(seen & set(STORAGE_CLASSES)) > 1:
        return "multiple storage classes in declaration specifiers"
    return None


# -- integer constant expressions ----------------------------------------------


def constant_type(c: c_ast.Constant) -> CType:
    """The type of a literal."""
    kind = c.type or ""
    if kind == "string":
        return CType("array", of=CHAR, size=len(c.value) - 1)
    if kind == "char":
        return INT
    if "float" in kind or "double" in kind:
        return CType("float", "float" if kind == "float" else "long double" if "long" in kind else "double")
    return CType("int", kind.replace(" int", "") if kind not in ("int", "unsigned int") else kind)


def literal_value(c: c_ast.Constant) -> int | None:
    """The value of an integer or character literal."""
    text = c.value
    if c.type == "char":
        body = text[1:-1] if text.startswith("'") else None
        if body is None:
            return None
        if len(body) == 1:
            return ord(body)
        simple = {"n": 10, "t": 9, "0": 0, "\\": 92, "'": 39, '"': 34, "r": 13, "a": 7, "b": 8,
                  "f": 12, "v": 11, "?": 63}
        if len(body) == 2 and body[0] == "\\" and body[1] in simple:
            return simple[body[1]]
        return None
    if c.type is None or "float" in c.type or "double" in c.type or c.type == "string":
        return None
    digits = text.rstrip("uUlL")
    try:
        if digits.lower().startswith("0x"):
            return int(digits, 16)
        if digits.lower().startswith("0b"):
            return int(digits, 2)
        if len(digits) > 1 and digits.startswith("0"):
            return int(digits, 8)
        return int(digits)
    except ValueError:
        return None


_INTEGER_SPECIFIERS = frozenset("char short int long signed unsigned".split())

_BINARY: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
    "<<": lambda a, b: a << b if 0 <= b < 64 else 0, ">>": lambda a, b: a >> b if 0 <= b < 64 else 0,
    "&": lambda a, b: a & b, "|": lambda a, b: a | b, "^": lambda a, b: a ^ b,
    "<": lambda a, b: int(a < b), ">": lambda a, b: int(a > b), "<=": lambda a, b: int(a <= b),
    ">=": lambda a, b: int(a >= b), "==": lambda a, b: int(a == b), "!=": lambda a, b: int(a != b),
    "&&": lambda a, b: int(bool(a and b)), "||": lambda a, b: int(bool(a or b)),
}


def constant_value(e: c_ast.Node | None, enumerator: Callable[[str], int | None]) -> int | None:
    """The value of an integer constant expression, or None when it is not one the model folds.

    ``enumerator(name)`` gives the value of an enumeration constant (None otherwise).
    """
    match e:
        case c_ast.Constant():
            return literal_value(e)
        case c_ast.ID():
            return enumerator(e.name)
        case c_ast.UnaryOp(op="-" | "+" | "~" | "!"):
            v = constant_value(e.expr, enumerator)
            if v is None:
                return None
            return {"-": -v, "+": v, "~": ~v, "!": int(not v)}[e.op]
        case c_ast.BinaryOp(op="/" | "%"):
            a, b = constant_value(e.left, enumerator), constant_value(e.right, enumerator)
            if a is None or not b:
                return None
            q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)
            return q if e.op == "/" else a - q * b
        case c_ast.BinaryOp() if e.op in _BINARY:
            a, b = constant_value(e.left, enumerator), constant_value(e.right, enumerator)
            return None if a is None or b is None else _BINARY[e.op](a, b)
        case c_ast.TernaryOp():
            c = constant_value(e.cond, enumerator)
            return None if c is None else constant_value(e.iftrue if c else e.iffalse, enumerator)
        case c_ast.Cast(to_type=c_ast.Typename(type=c_ast.TypeDecl(type=c_ast.IdentifierType(names=n)))):
            if not set(n) <= _INTEGER_SPECIFIERS:
                return None
            return constant_value(e.expr, enumerator)
    return None
