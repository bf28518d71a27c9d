"""GNU C for pycparser: what can be mapped is mapped, what cannot is refused.

pycparser parses standard C. GNU C adds spellings that mean a standard
thing (``__restrict``, ``__inline__``, ``__const``, ``__signed__``,
``__alignof__``, ``__thread``, ``__builtin_offsetof``), markers that change
nothing (``__extension__``, ``__asm__("name")`` labels on declarations) and
attributes. :class:`GnuLexer` filters pycparser's token stream: it maps the
first kind to the standard token, drops the second, and takes every
``__attribute__((...))`` out, remembering where it stood
(:class:`Attribute`). After parsing, :func:`apply_attributes` puts back
those that change what the program means, in standard C:

* ``aligned(N)`` on a variable or member: ``_Alignas(N)``; on a struct or
  union type: ``_Alignas(N)`` on its first member (the same alignment,
  size and member offsets);
* ``packed`` on a struct or union: ``#pragma pack(push, 1)`` before the
  declaration that defines it and ``#pragma pack(pop)`` after (gcc's
  equivalent spelling);
* attributes that only inform the compiler (``noreturn``, ``unused``,
  ``format``, ``always_inline``, ``hot`` ... see :data:`HARMLESS`) are
  dropped: the program behaves the same without them.

Statement expressions ``({ ...; value; })`` are no standard C either, but
pycparser parses them and passman's printer and checks know them: they
are accepted. What no standard C can say is refused with ``file:line:col: error:
unsupported GNU extension 'typeof'`` (:class:`UnsupportedExtension`):
``typeof``, nested functions, computed goto (label addresses), case and designator ranges, ``?:`` without its middle operand,
``__int128``, ``_Float128``, ``__real__``/``__imag__``, local labels,
``asm`` statements, and attributes that change behaviour with no standard
spelling (``vector_size``, ``mode``, ``constructor``, ``cleanup`` ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pycparser import c_ast
from pycparser.c_lexer import CLexer

#: attributes that tell the compiler something it may use, without changing what the program does
HARMLESS = frozenset("""
    noreturn unused used noinline always_inline gnu_inline artificial flatten hot cold const pure
    format format_arg nonnull returns_nonnull malloc alloc_size alloc_align assume_aligned
    warn_unused_result deprecated unavailable leaf nothrow optimize target sentinel visibility
    noclone no_instrument_function externally_visible no_sanitize no_sanitize_address
    no_sanitize_thread no_sanitize_undefined no_stack_protector access nonstring designated_init
    warning error fallthrough section weak noipa no_icf no_reorder returns_twice no_split_stack
    retain noplt copy tainted_args zero_call_used_regs uninitialized nocommon common
    may_be_unused cdecl
""".split())

#: attributes put back in standard C by :func:`apply_attributes`
MAPPED = frozenset(("aligned", "packed"))

#: GNU spellings of standard tokens: name -> (pycparser token type, standard spelling)
SPELLINGS = {
    "__restrict": ("RESTRICT", "restrict"), "__restrict__": ("RESTRICT", "restrict"),
    "__inline": ("INLINE", "inline"), "__inline__": ("INLINE", "inline"),
    "__const": ("CONST", "const"), "__const__": ("CONST", "const"),
    "__volatile": ("VOLATILE", "volatile"), "__volatile__": ("VOLATILE", "volatile"),
    "__signed": ("SIGNED", "signed"), "__signed__": ("SIGNED", "signed"),
    "__alignof": ("_ALIGNOF", "_Alignof"), "__alignof__": ("_ALIGNOF", "_Alignof"),
    "__thread": ("_THREAD_LOCAL", "_Thread_local"),
    "__builtin_offsetof": ("OFFSETOF", "offsetof"),
}

#: identifiers that start a GNU construct with no standard spelling: name -> what the error calls it
UNSUPPORTED_NAMES = {
    "typeof": "typeof", "__typeof": "typeof", "__typeof__": "typeof", "__auto_type": "__auto_type",
    "__int128": "__int128", "__int128_t": "__int128", "__uint128_t": "__int128",
    "_Float128": "_Float128", "__float128": "__float128", "_Float64x": "_Float64x",
    "_Float16": "_Float16", "__fp16": "__fp16", "__bf16": "__bf16", "_Decimal32": "_Decimal32",
    "_Decimal64": "_Decimal64", "_Decimal128": "_Decimal128",
    "__real__": "__real__", "__imag__": "__imag__", "__label__": "local label (__label__)",
    "__builtin_types_compatible_p": "__builtin_types_compatible_p",
    "__builtin_choose_expr": "__builtin_choose_expr",
}

_ASM = ("asm", "__asm", "__asm__")
_ATTRIBUTE = ("__attribute__", "__attribute")
#: tokens that end an operand: after one, ``&&`` is the logical and, elsewhere a label address
_OPERAND_END = frozenset((
    "ID", "TYPEID", "RPAREN", "RBRACKET", "PLUSPLUS", "MINUSMINUS", "INT_CONST_DEC", "INT_CONST_OCT",
    "INT_CONST_HEX", "INT_CONST_BIN", "INT_CONST_CHAR", "FLOAT_CONST", "HEX_FLOAT_CONST", "CHAR_CONST",
    "WCHAR_CONST", "U8CHAR_CONST", "U16CHAR_CONST", "U32CHAR_CONST", "STRING_LITERAL",
    "WSTRING_LITERAL", "U8STRING_LITERAL", "U16STRING_LITERAL", "U32STRING_LITERAL",
))
#: tokens that can end the declaration specifiers of a function's return type
_TYPE_END = frozenset((
    "VOID", "CHAR", "SHORT", "INT", "LONG", "FLOAT", "DOUBLE", "SIGNED", "UNSIGNED", "_BOOL",
    "TYPEID", "TIMES",
))


class UnsupportedExtension(Exception):
    """A GNU construct with no standard C form: the message is ``file:line:col: error: ...``."""


def unsupported(where: str, what: str) -> UnsupportedExtension:
    """The refusal of GNU construct ``what`` at ``where`` (``file:line:col``)."""
    return UnsupportedExtension(f"{where}: error: unsupported GNU extension '{what}'")


@dataclass
class Attribute:
    """One ``__attribute__((name(args)))`` the lexer took out of the token stream."""

    name: str
    #: the argument tokens' text, joined by spaces ("" when none)
    args: str
    #: where ``__attribute__`` stood: file, line, column
    where: tuple[str, int, int]
    #: what it applies to: ("record", file, line, col) of a struct/union/enum's name or brace,
    #: ("decl", file, line, col) of a declarator's name, or None (nothing found)
    anchor: tuple | None = None

    @property
    def location(self) -> str:
        """``file:line:col`` of the attribute."""
        file, line, col = self.where
        return f"{file}:{line}:{col}"


@dataclass
class _Brace:
    """An open ``{``: the record whose body it opens (its anchor), if any."""

    record: tuple | None


@dataclass
class _State:
    """What the filter remembers of the tokens it has passed on."""

    prev: list = field(default_factory=lambda: [None, None])  # the last two tokens passed on
    braces: list[_Brace] = field(default_factory=list)
    #: open parentheses and brackets: (token type, the two tokens before it)
    parens: list[tuple] = field(default_factory=list)
    #: the opener context of the last closed parenthesis
    closed: tuple | None = None
    #: the record whose body the last ``}`` closed (when it is the previous token)
    closed_record: tuple | None = None
    #: the last declarator-name candidate: an ID outside parentheses at this brace depth
    last_name: tuple | None = None
    #: attributes waiting for the name of the declarator they precede
    pending_decl: list[Attribute] = field(default_factory=list)
    #: attributes waiting for the name or brace of the record whose keyword they follow
    pending_record: list[Attribute] = field(default_factory=list)


class GnuLexer(CLexer):
    """pycparser's lexer, with GNU spellings mapped and attributes taken out (see the module doc)."""

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        #: the attributes taken out, in source order
        self.attributes: list[Attribute] = []
        self._st = _State()

    def input(self, text: str, filename: str = "") -> None:  # noqa: D102 - CLexer's
        super().input(text, filename)
        self.attributes = []
        self._st = _State()

    def _where(self, tok) -> str:
        return f"{self.filename}:{tok.lineno}:{tok.column}"

    def _key(self, tok) -> tuple:
        return (self.filename, tok.lineno, tok.column)

    def _raw(self):
        tok = super().token()
        while tok is not None and tok.type in ("ID", "TYPEID") and tok.value == "__extension__":
            tok = super().token()
        return tok

    def _group(self, opener) -> list:
        """The tokens of a parenthesized group after ``opener`` (its parentheses excluded)."""
        tok = self._raw()
        if tok is None or tok.type != "LPAREN":
            raise UnsupportedExtension(f"{self._where(opener)}: error: expected '(' after '{opener.value}'")
        depth, out = 1, []
        while True:
            tok = self._raw()
            if tok is None:
                raise UnsupportedExtension(f"{self._where(opener)}: error: unterminated '{opener.value}'")
            depth += {"LPAREN": 1, "RPAREN": -1}.get(tok.type, 0)
            if depth == 0:
                return out
            out.append(tok)

    def token(self):  # noqa: D102 - CLexer's
        while True:
            tok = self._raw()
            if tok is None:
                return None
            if tok.type == "__INT128":
                raise unsupported(self._where(tok), "__int128")
            if tok.type in ("ID", "TYPEID"):
                v = tok.value
                if v in _ATTRIBUTE:
                    self._attributes(tok)
                    continue
                if v in _ASM:
                    self._asm(tok)
                    continue
                if v in UNSUPPORTED_NAMES:
                    raise unsupported(self._where(tok), UNSUPPORTED_NAMES[v])
                if v == "__builtin_va_list":  # gcc's own type name: a typedef name for pycparser
                    tok.type = "TYPEID"
                if v in SPELLINGS:
                    tok.type, tok.value = SPELLINGS[v]
                    if v == "__builtin_offsetof":
                        tok.value = v
            self._check(tok)
            self._track(tok)
            return tok

    # -- what cannot be represented ---------------------------------------------------------
    def _check(self, tok) -> None:
        prev = self._st.prev[-1]
        ptype = prev.type if prev is not None else None
        t = tok.type
        if t == "TIMES" and ptype == "GOTO":
            raise unsupported(self._where(prev), "computed goto")
        if t == "LAND" and ptype not in _OPERAND_END:
            raise unsupported(self._where(tok), "label address (&&label)")
        if t == "COLON" and ptype == "CONDOP":
            raise unsupported(self._where(prev), "conditional with omitted operand (?:)")
        if t == "ELLIPSIS" and ptype != "COMMA":
            raise unsupported(self._where(tok), "range (...) in a case label or designator")
        if t == "LBRACE" and ptype == "RPAREN" and self._st.braces and self._st.closed is not None:
            before_name, name = self._st.closed
            if name is not None and name.type == "ID" and before_name is not None \
                    and before_name.type in _TYPE_END:
                raise unsupported(self._where(name), "nested function")

    def _asm(self, tok) -> None:
        """An ``asm`` label after a declarator is dropped; an ``asm`` statement is refused."""
        st = self._st
        prev = st.prev[-1]
        label_here = prev is not None and (
            prev.type == "ID" or (not st.braces and prev.type in ("RPAREN", "RBRACKET")))
        if not label_here:
            raise unsupported(self._where(tok), "asm statement")
        self._group(tok)

    # -- attributes -------------------------------------------------------------------------
    def _attributes(self, tok) -> None:
        """Take ``__attribute__((a, b(x)))`` out and record each attribute with its anchor."""
        inner = self._group(tok)
        if not inner or inner[0].type != "LPAREN" or inner[-1].type != "RPAREN":
            raise UnsupportedExtension(f"{self._where(tok)}: error: malformed '__attribute__'")
        items: list[list] = [[]]
        depth = 0
        for t in inner[1:-1]:
            if t.type == "COMMA" and depth == 0:
                items.append([])
                continue
            depth += {"LPAREN": 1, "RPAREN": -1}.get(t.type, 0)
            items[-1].append(t)
        st = self._st
        prev = st.prev[-1]
        ptype = prev.type if prev is not None else None
        for item in items:
            if not item:
                continue
            name = item[0].value.strip("_") if item[0].value.startswith("__") else item[0].value
            args = " ".join(t.value for t in item[2:-1]) if len(item) > 1 else ""
            attr = Attribute(name, args, self._key(tok))
            self.attributes.append(attr)
            if ptype in ("STRUCT", "UNION", "ENUM"):
                st.pending_record.append(attr)
            elif ptype == "RBRACE" and st.closed_record is not None:
                attr.anchor = st.closed_record
            elif ptype in ("ID", "RBRACKET", "RPAREN") and st.last_name is not None:
                attr.anchor = st.last_name
            else:
                st.pending_decl.append(attr)

    # -- context ----------------------------------------------------------------------------
    def _track(self, tok) -> None:
        st = self._st
        p1, p2 = st.prev[-1], st.prev[-2]
        t = tok.type
        if st.pending_record and t in ("ID", "TYPEID", "LBRACE"):
            for a in st.pending_record:
                a.anchor = ("record", *self._key(tok))
            st.pending_record = []
        if t in ("ID", "TYPEID") and not st.parens:
            after_tag = p1 is not None and p1.type in ("STRUCT", "UNION", "ENUM")
            if t == "ID" and not after_tag:
                st.last_name = ("decl", *self._key(tok))
                for a in st.pending_decl:
                    a.anchor = st.last_name
                st.pending_decl = []
        if t == "LBRACE":
            record = None
            if p1 is not None and p1.type in ("STRUCT", "UNION", "ENUM"):
                record = ("record", *self._key(tok))
            elif p1 is not None and p1.type in ("ID", "TYPEID") and p2 is not None \
                    and p2.type in ("STRUCT", "UNION", "ENUM"):
                record = ("record", self.filename, p1.lineno, p1.column)
            st.braces.append(_Brace(record))
            st.last_name = None
        elif t == "RBRACE":
            st.closed_record = st.braces.pop().record if st.braces else None
            st.last_name = None
        elif t in ("LPAREN", "LBRACKET"):
            st.parens.append((t, p2, p1))
        elif t in ("RPAREN", "RBRACKET"):
            if st.parens:
                kind, before_name, name = st.parens.pop()
                st.closed = (before_name, name) if kind == "LPAREN" else None
        elif t == "SEMI":
            st.last_name = None
            st.pending_decl = []
        if t != "RBRACE":
            st.closed_record = None
        st.prev = [p1, tok]


# -- after parsing: put back what changes meaning ---------------------------------------------


def _alignment(args: str, where: tuple) -> c_ast.Alignas:
    """``_Alignas(args)`` (16, gcc's largest alignment on x86-64, when ``aligned`` has no argument)."""
    text = args.strip() or "16"
    if re.fullmatch(r"\d+[uUlL]*", text):
        return c_ast.Alignas(c_ast.Constant("int", text))
    return c_ast.Alignas(c_ast.Constant("int", f"({text})"))


def _index(ast: c_ast.FileAST) -> dict[tuple, list]:
    """Records and declarators by their anchor, each with the list and position holding its declaration."""
    out: dict[tuple, list] = {}

    def visit(node: c_ast.Node, holder: list | None, pos: int | None) -> None:
        key = None
        if isinstance(node, (c_ast.Struct, c_ast.Union, c_ast.Enum)):
            key = "record"
        elif isinstance(node, (c_ast.Decl, c_ast.Typedef)) and node.name is not None:
            key = "decl"
        if key is not None and node.coord is not None:
            c = node.coord
            out.setdefault((key, c.file, c.line, c.column), [node, holder, pos])
        if isinstance(node, (c_ast.FileAST, c_ast.Compound)):
            items = (node.ext if isinstance(node, c_ast.FileAST) else node.block_items) or []
            for i, child in enumerate(items):
                visit(child, items, i)
            return
        for _, child in node.children():
            visit(child, holder, pos)

    visit(ast, None, None)
    return out


def apply_attributes(ast: c_ast.FileAST, attributes: list[Attribute]) -> None:
    """Put back ``aligned`` and ``packed`` in standard C; refuse what cannot be put back."""
    meaningful = [a for a in attributes if a.name not in HARMLESS]
    if not meaningful:
        return
    for a in meaningful:
        if a.name not in MAPPED:
            raise unsupported(a.location, f"__attribute__(({a.name}))")
    index = _index(ast)
    packs: list[tuple[list, c_ast.Node]] = []
    for a in meaningful:
        hit = index.get(a.anchor) if a.anchor is not None else None
        if hit is None:
            raise unsupported(a.location, f"__attribute__(({a.name})) here")
        node, holder, pos = hit
        if isinstance(node, c_ast.Typedef):  # on a typedef: only of a record defined there
            inner = node.type
            while isinstance(inner, c_ast.TypeDecl):
                inner = inner.type
            if not isinstance(inner, (c_ast.Struct, c_ast.Union)) or inner.decls is None:
                raise unsupported(a.location, f"__attribute__(({a.name})) on a typedef")
            node = inner
        if isinstance(node, c_ast.Enum):
            raise unsupported(a.location, f"__attribute__(({a.name})) on an enum")
        if a.name == "aligned":
            if isinstance(node, (c_ast.Struct, c_ast.Union)):
                first = (node.decls or [None])[0]
                if first is None or not isinstance(first, c_ast.Decl) or first.bitsize is not None:
                    raise unsupported(a.location, "__attribute__((aligned)) on this struct")
                first.align = [*(first.align or []), _alignment(a.args, a.where)]
            elif isinstance(node, c_ast.Decl) and node.bitsize is None:
                node.align = [*(node.align or []), _alignment(a.args, a.where)]
            else:
                raise unsupported(a.location, "__attribute__((aligned)) here")
        else:  # packed
            if not isinstance(node, (c_ast.Struct, c_ast.Union)) or holder is None or pos is None:
                raise unsupported(a.location, "__attribute__((packed)) on a member")
            packs.append((holder, holder[pos]))
    done: set[int] = set()
    for holder, item in packs:
        if id(item) in done:
            continue
        done.add(id(item))
        pos = next(i for i, x in enumerate(holder) if x is item)
        coord = item.coord
        holder[pos:pos + 1] = [c_ast.Pragma("pack(push, 1)", coord), item, c_ast.Pragma("pack(pop)", coord)]
