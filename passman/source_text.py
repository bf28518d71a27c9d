"""The text of a C file as the user wrote it: its tokens, its top-level items, and splicing.

The way back from the AST keeps what passman did not change byte for byte
(:attr:`passman.unit.CompilationUnit.code`). For that it needs to know where
each top-level declaration or function definition lies in the original text.
A small scanner finds them without preprocessing: it skips comments, string
and character literals and preprocessor lines, and cuts the text at each
``;`` and each function body's closing ``}`` outside braces and parentheses.
A top-level ``#pragma`` line is an item of its own (pycparser gives it a
node). The text between items, the *gaps*, holds the comments, blank lines
and directives; it is never re-printed.

Example::

    /* sizes */            <- gap (comment, directive)
    #define N 100
    static double          <- item 0 (one function definition)
    f(int n)
    {
        return n + N;
    }
    int a, b; int c;       <- items 1 and 2 (``a`` and ``b`` share item 1)

An item's *lead* is where the comment block directly above it begins (no
blank line between): code inserted before the item goes there, so that the
item keeps its comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

__all__ = ["Item", "Token", "assign_items", "splice", "tokenize", "top_level_items"]

_TOKEN = re.compile(
    r"""
    (?P<space>(?:[ \t\f\v\r]|\\\r?\n)+)
  | (?P<newline>\n)
  | (?P<comment>//(?:[^\n\\]|\\.|\\\n)*|/\*.*?\*/)
  | (?P<string>(?:u8|[uUL])?"(?:[^"\\\n]|\\.|\\\n)*")
  | (?P<char>(?:u8|[uUL])?'(?:[^'\\\n]|\\.|\\\n)*')
  | (?P<ident>[A-Za-z_$][\w$]*)
  | (?P<number>\.?\d(?:[eEpP][+-]|[\w.])*)
  | (?P<punct>\.\.\.|<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|\#\#|.)
    """,
    re.VERBOSE | re.DOTALL,
)


@dataclass(frozen=True)
class Token:
    """One token of C text: its kind, text, offsets and 1-based line.

    ``kind`` is ``ident``, ``number``, ``string``, ``char``, ``punct``,
    ``comment`` or ``directive``; a directive is a whole preprocessor line
    (with its continuations and comments) and its ``value`` is the directive's
    name (``include``, ``pragma``, ``define``, ... or ``""``).
    """

    kind: str
    value: str
    start: int
    end: int
    line: int


def tokenize(text: str) -> Iterator[Token]:
    """The tokens of ``text``, comments and whole preprocessor lines included, spaces left out."""
    pos, line, at_line_start = 0, 1, True
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any character
        kind, value = m.lastgroup or "punct", m.group()
        if kind == "punct" and value == "#" and at_line_start:
            end, name = _directive_end(text, m.end())
            yield Token("directive", name, pos, end, line)
            line += text.count("\n", pos, end)
            pos = end
            continue
        if kind == "newline":
            at_line_start = True
        elif kind != "space" and not (kind == "comment" and value.startswith("/*")):
            at_line_start = False
        if kind not in ("space", "newline"):
            yield Token(kind, value, pos, m.end(), line)
        line += value.count("\n")
        pos = m.end()


def _directive_end(text: str, pos: int) -> tuple[int, str]:
    """Where the preprocessor line whose ``#`` ends at ``pos`` ends (before its newline), and its name."""
    name = ""
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None
        if m.lastgroup == "newline":
            break
        if m.lastgroup == "ident" and not name:
            name = m.group()
        elif m.lastgroup not in ("space", "comment"):
            name = name or " "  # a directive whose first token is not a name (``# 12 "f.c"``)
        pos = m.end()
    return pos, name.strip()


@dataclass(frozen=True)
class Item:
    """A top-level declaration, function definition or ``#pragma`` line of the original text."""

    #: offsets of its first and (one past) its last character
    start: int
    end: int
    #: where the comment block directly above it begins (``start`` when there is none)
    lead: int
    #: its first and last line (1-based)
    first_line: int
    last_line: int
    #: the identifiers it contains (to tell apart items that share a line)
    names: frozenset[str]
    is_pragma: bool = False
    #: the offsets of the preprocessor lines inside it (``#define`` in a function body, ...)
    directives: tuple[tuple[int, int], ...] = ()


def top_level_items(text: str) -> list[Item] | None:
    """The top-level items of ``text`` in order, or None when its braces or parentheses do not balance.

    Preprocessor conditionals are not evaluated: both branches of an
    ``#if`` are scanned, so a file whose branches open or close braces
    differently gives None (or items that :func:`assign_items` refuses).
    """
    items: list[Item] = []
    depth = parens = 0
    start = first_line = lead = -1
    names: set[str] = set()
    prev = ""
    assignment = function = False
    comments: list[Token] = []  # the comments since the last token of code
    inside: list[tuple[int, int]] = []  # the directives since the item began
    for tok in tokenize(text):
        if tok.kind == "comment":
            if start < 0:
                comments.append(tok)
            continue
        if tok.kind == "directive":
            if start < 0:
                if depth == 0 and tok.value == "pragma":
                    at = _lead(text, tok.start, comments)
                    items.append(Item(tok.start, tok.end, at, tok.line, tok.line, frozenset(), True))
                comments = []
            else:
                inside.append((tok.start, tok.end))
            continue
        if start < 0:
            start, first_line, lead = tok.start, tok.line, _lead(text, tok.start, comments)
            names, assignment, function, comments, inside = set(), False, False, [], []
        if tok.kind == "ident":
            names.add(tok.value)
        value = tok.value if tok.kind == "punct" else tok.kind
        closes = False
        if value in ("(", "["):
            parens += 1
        elif value in (")", "]"):
            parens -= 1
        elif value == "{":
            if depth == 0 and parens == 0 and prev == ")" and not assignment:
                function = True
            depth += 1
        elif value == "}":
            depth -= 1
            closes = depth == 0 and function
        elif value == "=" and depth == 0 and parens == 0:
            assignment = True
        elif value == ";" and depth == 0 and parens == 0:
            closes = True
        if depth < 0 or parens < 0:
            return None
        if closes:
            items.append(Item(start, tok.end, lead, first_line, tok.line, frozenset(names), False, tuple(inside)))
            start = -1
        prev = value
    if start >= 0 or depth or parens:
        return None
    return items


def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _lead(text: str, start: int, comments: list[Token]) -> int:
    """Where the comments directly above the code at ``start`` begin (``start`` when there are none)."""
    begin = _line_start(text, start)
    if text[begin:start].strip():
        return start  # something else precedes it on its line
    for c in reversed(comments):
        between = text[c.end:begin]
        if between.strip() or between.count("\n") > 1:
            break  # code, or a blank line, between the comment and what follows
        line = _line_start(text, c.start)
        if text[line:c.start].strip():
            break  # a comment that follows code on its line belongs to that code
        begin = line
    return begin


def assign_items(items: Sequence[Item], nodes: Sequence[tuple[int, str | None]]) -> list[int] | None:
    """The item each node belongs to, given each node's ``(line, name)`` in order; None if one fits none.

    Nodes come in source order, so each belongs to the item of the node before
    it or to a later one: the first whose lines hold the node's line and,
    where several do (``int a; int b;`` on one line), which names it.
    """
    out: list[int] = []
    k = 0
    for line, name in nodes:
        found = None
        for j in range(k, len(items)):
            item = items[j]
            if item.first_line > line:
                break
            if item.last_line < line:
                continue
            if found is None:
                found = j
            if name is None or name in item.names:
                found = j
                break
        if found is None:
            return None
        out.append(found)
        k = found
    return out


def splice(text: str, replacements: dict[int, str], items: Sequence[Item],
           insertions: dict[int, list[str]]) -> str:
    """``text`` with item ``k``'s text replaced by ``replacements[k]`` and ``insertions[offset]`` put at offsets.

    An empty replacement removes the item, with the rest of its line when
    only spaces remain there. Inserted texts are placed in order, before
    any replacement starting at the same offset.
    """
    edits: list[tuple[int, int, int, str]] = []  # (start, order, end, new text)
    for offset, texts in insertions.items():
        edits.append((offset, 0, offset, "".join(texts)))
    for k, new in replacements.items():
        item = items[k]
        start, end = item.start, item.end
        if not new:
            eol = text.find("\n", end)
            eol = len(text) if eol < 0 else eol
            line = _line_start(text, start)
            if not text[end:eol].strip() and not text[line:start].strip():
                start, end = line, min(eol + 1, len(text))
        edits.append((start, 1, end, new))
    out, pos = [], 0
    for start, _, end, new in sorted(edits):
        out.append(text[pos:start])
        out.append(new)
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)
