"""Comments inside a function body, attached to the statements they describe.

pycparser drops comments, so a function that a pass changed and passman
prints again (:attr:`passman.unit.CompilationUnit.code`) would lose them. The
front end therefore attaches each comment of a function body to a statement
(or declaration) of that body, on the statement's coordinate: it becomes a
:class:`CommentCoord` that carries the comment texts. Passes copy a node
together with its coordinate, and a statement they rebuild usually takes the
coordinate of the one it replaces, so the comments follow the statement where
the passes move it; a statement a pass deletes takes its comments with it.

Where a comment goes (``>`` marks the statement that gets it)::

    // before a statement: the statement that follows
  > for (i = 0; i < n; i++) {     // trailing: the first statement that
  >     s += a[i];                // starts on the comment's line
        // at the end of a block: the block, printed before its ``}``
    }   // after a ``}``: the block that ``}`` closes, before its ``}``

A comment inside a statement (``f(a, /* b */ b)``, a ``for`` header, a
continuation line) goes to the statement it is in. The printer writes the
comments on their own lines above the statement (``before``), or above the
block's ``}`` (``closing``), re-indented, each as written (``/* */`` or
``//``). It prints a comment once per function: the first time it meets the
coordinate, so the copies of an unrolled statement show it above the first
copy only.

Limits: comments in a function's header (before its body's ``{``) are not
kept; columns are those of the preprocessed text, so on a line where a macro
expanded to text of another length before the comment, a comment between two
statements of that line may go to the neighbouring statement; a function
whose blocks cannot be matched with its braces (a macro that opens a block)
gives its end-of-block comments to the statement before them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass

from pycparser import c_ast
from pycparser.c_parser import Coord

from .source_text import Token, tokenize, top_level_items

__all__ = ["CommentCoord", "attach_comments", "comment_lines"]

_CONTROL = frozenset({"if", "for", "while", "switch"})
_AFTER_STATEMENT = frozenset({";", "{", "}", ")", ":", "else", "do"})


@dataclass
class CommentCoord(Coord):
    """The coordinate of a statement that carries the source comments attached to it.

    ``before``: comments printed above the statement; ``closing`` (for a
    block): comments printed above its ``}``. Each is a comment's text as
    written, its lines after the first without the comment's original
    indentation.
    """

    before: tuple[str, ...] = ()
    closing: tuple[str, ...] = ()


def comment_lines(text: str, indent: str) -> list[str]:
    """The lines that print comment ``text`` at ``indent``, each ending in a newline."""
    return [(indent + line if line.strip() else "") + "\n" for line in text.split("\n")]


def attach_comments(ast: c_ast.FileAST, source: str, coord_name: str) -> int:
    """Attach the comments of each function body of ``source`` to the statements of ``ast``.

    ``source`` is the file as written, ``coord_name`` the file name of the
    coordinates of its nodes. Returns how many comments were attached.
    """
    items = top_level_items(source)
    if items is None:
        return 0
    tokens = list(tokenize(source))
    offsets = [t.start for t in tokens]
    count = 0
    for node in ast.ext:
        coord = node.decl.coord if isinstance(node, c_ast.FuncDef) else None
        if coord is None or coord.file != coord_name:
            continue
        item = next((i for i in items if i.first_line <= coord.line <= i.last_line
                     and node.decl.name in i.names), None)
        if item is not None:
            body = tokens[bisect_left(offsets, item.start):bisect_left(offsets, item.end)]
            count += _attach_function(node, body, source)
    return count


def _statements(stmt: c_ast.Node | None) -> Iterator[c_ast.Node]:
    """``stmt`` and the statements inside it, in source order (not those inside expressions)."""
    if stmt is None:
        return
    if not isinstance(stmt, c_ast.Compound):
        yield stmt
    match stmt:
        case c_ast.Compound():
            for s in stmt.block_items or ():
                yield from _statements(s)
        case c_ast.If():
            yield from _statements(stmt.iftrue)
            yield from _statements(stmt.iffalse)
        case c_ast.For() | c_ast.While() | c_ast.DoWhile() | c_ast.Switch() | c_ast.Label():
            yield from _statements(stmt.stmt)
        case c_ast.Case() | c_ast.Default():
            for s in stmt.stmts or ():
                yield from _statements(s)


def _compounds(node: c_ast.Node) -> Iterator[c_ast.Compound]:
    """The blocks under ``node`` in source order (statement expressions included)."""
    if isinstance(node, c_ast.Compound):
        yield node
    for _, child in node.children():
        yield from _compounds(child)


def _position(node: c_ast.Node) -> tuple[int, int]:
    c = node.coord
    return (c.line, c.column or 0) if c is not None else (0, 0)


def _attach_function(func: c_ast.FuncDef, tokens: list[Token], source: str) -> int:
    """Attach the comments among ``tokens`` (the function's text) to the statements of ``func``."""
    stmts = [s for s in _statements(func.body) if s.coord is not None]
    starts = [_position(s) for s in stmts]
    opener = _block_openers(tokens)
    blocks = list(_compounds(func.body))
    first = next((k for k, t in enumerate(tokens) if k in opener), None)
    if first is None:
        return 0
    # the k-th block ``{`` of the text is the k-th block of the tree, when they agree
    block_of: dict[int, c_ast.Compound] = {}
    braces = sorted(opener)
    if len(braces) == len(blocks) and all(tokens[k].line == b.coord.line for k, b in zip(braces, blocks)
                                          if b.coord is not None):
        block_of = dict(zip(braces, blocks))
    before: dict[int, list[str]] = {}
    closing: dict[int, list[str]] = {}
    nodes: dict[int, c_ast.Node] = {}
    prev: Token = tokens[first]  # the last token of code
    depth = 0  # parentheses
    count = 0
    for k in range(first + 1, len(tokens)):
        tok = tokens[k]
        if tok.kind == "directive":
            continue
        if tok.kind != "comment":
            depth += (tok.value == "(") - (tok.value == ")") if tok.kind == "punct" else 0
            prev = tok
            continue
        text = _dedented(tok, source)
        end = (tok.line + tok.value.count("\n"), tok.end - source.rfind("\n", 0, tok.end))
        target, where = None, before
        trailing = prev.line + prev.value.count("\n") == tok.line
        inside = depth > 0 or prev.value not in _AFTER_STATEMENT
        if trailing:
            on_line = [s for s, p in zip(stmts, starts) if p[0] == tok.line and p < (tok.line, _column(tok, source))]
            if on_line:
                target = on_line[0]
            elif prev.value == "}" and _closer_block(tokens, k, block_of) is not None:
                target, where = _closer_block(tokens, k, block_of), closing
            elif prev.value == "{":  # ``} else {  // ...``: the block's first statement
                target = next((s for s, p in zip(stmts, starts) if p > end), None)
        elif not inside:
            nxt = next((t for t in tokens[k + 1:] if t.kind not in ("comment", "directive")), None)
            if nxt is not None and nxt.value == "}":
                block = _closed_by(tokens, tokens.index(nxt), block_of)
                if block is not None:
                    target, where = block, closing
            if target is None:
                target = next((s for s, p in zip(stmts, starts) if p > end), None)
        if target is None:  # inside a statement, or nothing else fits: the statement it is in
            target = next((s for s, p in zip(reversed(stmts), reversed(starts)) if p < end), None)
        if target is None:
            target, where = func.body, closing
        if type(target.coord) in (Coord, CommentCoord):  # a MacroCoord keeps its mark
            where.setdefault(id(target), []).append(text)
            nodes[id(target)] = target
            count += 1
    for key, node in nodes.items():
        c = node.coord
        old_before = c.before if isinstance(c, CommentCoord) else ()
        old_closing = c.closing if isinstance(c, CommentCoord) else ()
        node.coord = CommentCoord(c.file, c.line, c.column, (*old_before, *before.get(key, ())),
                                  (*old_closing, *closing.get(key, ())))
    return count


def _column(tok: Token, source: str) -> int:
    """The 1-based column of ``tok`` in ``source``."""
    return tok.start - source.rfind("\n", 0, tok.start)


def _dedented(tok: Token, source: str) -> str:
    """A comment's text with its lines after the first shifted left by the comment's indentation."""
    line_start = source.rfind("\n", 0, tok.start) + 1
    indent = source[line_start:tok.start]
    indent = indent if not indent.strip() else " " * len(indent)
    lines = tok.value.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        cut = 0
        while cut < len(indent) and cut < len(line) and line[cut] in " \t":
            cut += 1
        out.append(line[cut:])
    return "\n".join(out)


def _block_openers(tokens: list[Token]) -> set[int]:
    """The positions in ``tokens`` of the ``{`` that open blocks (not initializers or literals)."""
    out: set[int] = set()
    stack: list[bool] = []  # for each open brace: is it a block
    parens: list[bool] = []  # for each open parenthesis: does it hold a control header
    prev = ""
    header_closed = False
    for k, tok in enumerate(tokens):
        if tok.kind in ("comment", "directive"):
            continue
        v = tok.value if tok.kind == "punct" else (tok.value if tok.value in _CONTROL or tok.value in
                                                   ("else", "do") else tok.kind)
        closed, header_closed = header_closed, False
        if v == "(":
            parens.append(prev in _CONTROL)
        elif v == ")":
            header_closed = parens.pop() if parens else False
        elif v == "{":
            in_block = not stack or stack[-1]
            block = (not stack and prev == ")") or (in_block and (
                (prev == ")" and closed) or prev in (";", "{", "}", ":", "else", "do", "(")))
            stack.append(block)
            if block:
                out.add(k)
        elif v == "}" and stack:
            stack.pop()
        prev = v
    return out


def _closed_by(tokens: list[Token], k: int, block_of: dict[int, c_ast.Compound]) -> c_ast.Compound | None:
    """The block whose ``}`` is token ``k``."""
    depth = 0
    for j in range(k, -1, -1):
        v = tokens[j].value if tokens[j].kind == "punct" else ""
        if v == "}":
            depth += 1
        elif v == "{":
            depth -= 1
            if depth == 0:
                return block_of.get(j)
    return None


def _closer_block(tokens: list[Token], k: int, block_of: dict[int, c_ast.Compound]) -> c_ast.Compound | None:
    """The block closed by the last ``}`` before token ``k``."""
    j = next((j for j in range(k - 1, -1, -1) if tokens[j].kind == "punct" and tokens[j].value == "}"), None)
    return None if j is None else _closed_by(tokens, j, block_of)
