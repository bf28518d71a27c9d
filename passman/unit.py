"""A compilation unit of a workspace: one C source file, its AST and directives."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from pycparser import c_ast

from .astutil import copy_node, func_name, same_tree, walk
from .frontend import scan_directives
from .macro_constants import MacroCoord
from .module import Modules
from .printer import to_c
from .size_macros import specialized
from .source_text import Item, assign_items, splice, tokenize, top_level_items

if TYPE_CHECKING:
    from .workspace import Workspace


_INTEGER = re.compile(r"^(?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*$")
_INCLUDE = re.compile(r"#\s*include\b")
_DEFINED = re.compile(r"#\s*(?:define|undef)\s+(\w+)")


@dataclass
class OriginalSource:
    """A parsed file as the user wrote it, and its own top-level nodes as they were parsed.

    Shared by the clones of a workspace; nothing in it changes after
    :meth:`CompilationUnit.mark_original`.
    """

    text: str
    #: the unit's own top-level nodes right after parsing (the objects themselves)
    nodes: list[c_ast.Node] = field(default_factory=list)
    #: a copy of each, to tell a node that was modified in place or copied from an unchanged one
    pristine: list[c_ast.Node] = field(default_factory=list)
    #: the version of each function right after parsing (None for other nodes)
    versions: list[int | None] = field(default_factory=list)
    #: the unit's directives right after parsing (a pass may add ``#include`` lines)
    directives: tuple[str, ...] = ()

    @cached_property
    def index(self) -> dict[int, int]:
        """``id(node) -> position`` in :attr:`nodes`."""
        return {id(n): k for k, n in enumerate(self.nodes)}

    @cached_property
    def layout(self) -> tuple[list[Item], list[int]] | None:
        """The text's top-level items and the item of each original node; None if they cannot be matched."""
        items = top_level_items(self.text)
        if items is None:
            return None
        keys = []
        for node in self.nodes:
            coord = node.decl.coord if isinstance(node, c_ast.FuncDef) else node.coord
            if coord is None:
                return None
            keys.append((coord.line, _node_name(node)))
        owner = assign_items(items, keys)
        return None if owner is None else (items, owner)

    @cached_property
    def macro_lines(self) -> dict[str, list[int]]:
        """The lines that define or undefine each macro; under ``""``, the ``#include`` lines."""
        out: dict[str, list[int]] = {}
        for tok in tokenize(self.text):
            if tok.kind != "directive":
                continue
            if tok.value == "include":
                out.setdefault("", []).append(tok.line)
            elif tok.value in ("define", "undef"):
                m = _DEFINED.match(self.text, tok.start, tok.end)
                if m:
                    out.setdefault(m.group(1), []).append(tok.line)
        return out

    @cached_property
    def macro_values(self) -> dict[str, str]:
        """The integer value each macro gave a constant of the original nodes (one value per macro)."""
        return macro_values(self.pristine)

    def same_meaning(self, macro: str, a: int, b: int) -> bool:
        """Whether ``macro`` means the same on lines ``a`` and ``b``: nothing between (re)defines it."""
        lo, hi = min(a, b), max(a, b)
        return not any(lo <= n <= hi for key in (macro, "") for n in self.macro_lines.get(key, ()))


def macro_values(nodes: list[c_ast.Node]) -> dict[str, str]:
    """The integer value each macro gave a constant under ``nodes`` (macros with one value only)."""
    seen: dict[str, set[str]] = {}
    for node in nodes:
        for n in walk(node):
            c = n.coord
            if isinstance(n, c_ast.Constant) and isinstance(c, MacroCoord) and _INTEGER.match(c.expansion):
                seen.setdefault(c.macro, set()).add(c.expansion)
    return {m: v.pop() for m, v in sorted(seen.items()) if len(v) == 1}


class CompilationUnit:
    """One C source file: its AST (own and header declarations) and directives."""

    def __init__(
        self,
        ws: Workspace,
        name: str,
        ast: c_ast.FileAST,
        *,
        path: Path | None = None,
        coord_name: str | None = None,
        directives: list[str] | None = None,
        local_headers: list[Path] | None = None,
        macros: list[str] | None = None,
        is_stub: bool = False,
        target: str = "cpu",
        source: str | None = None,
        original: OriginalSource | None = None,
    ):
        self.ws = ws
        self.name = name
        self.ast = ast
        self.path = path
        self.coord_name = coord_name
        self.directives = directives or []
        self.local_headers = local_headers or []
        self.macros = macros if macros is not None else self.directives
        self.is_stub = is_stub
        #: which backend target this unit is compiled for
        self.target = target
        #: the file as the user wrote it, once :meth:`mark_original` has recorded its nodes
        self.original = original
        self._source = source

    def _copy_for(self, ws: Workspace) -> CompilationUnit:
        return CompilationUnit(
            ws, self.name, c_ast.FileAST(list(self.ast.ext), self.ast.coord), path=self.path,
            coord_name=self.coord_name, directives=self.directives,
            local_headers=self.local_headers, macros=self.macros, is_stub=self.is_stub,
            target=self.target, original=self.original,
        )

    def include(self, header: str) -> None:
        """Add ``#include <header>`` to the unit's directives unless it is there (a pass's new code needs it)."""
        line = f"#include <{header}>"
        if line not in self.directives:
            self.directives.append(line)

    def mark_original(self) -> None:
        """Record the parsed nodes as the user's: :attr:`code` keeps their text where they stay unchanged.

        The workspace calls it once the unit is in place (its loops
        labelled, its functions versioned); a unit built without source text
        (stubs, generated code) has nothing to record.
        """
        if self._source is None or self.is_stub:
            return
        nodes = [n for n in self.ast.ext if self.is_own(n)]
        versions = self.ws._versions
        self.original = OriginalSource(
            self._source, nodes, [copy_node(n) for n in nodes],
            [versions.get(("module", func_name(n))) if isinstance(n, c_ast.FuncDef) else None for n in nodes],
            tuple(self.directives),
        )
        self._source = None

    def is_own(self, node: c_ast.Node) -> bool:
        """Whether a top-level node belongs to this file (not to an included header)."""
        coord = node.coord
        if isinstance(node, c_ast.FuncDef):
            coord = node.decl.coord or coord
        return coord is None or coord.file == self.coord_name or self.coord_name is None

    @property
    def own_nodes(self) -> list[c_ast.Node]:
        """The top-level declarations and functions written in this file."""
        self.ws.rm.note_read(("cu", self.name))
        return [n for n in self.ast.ext if self.is_own(n)]

    @property
    def modules(self) -> Modules:
        """The functions this unit defines."""
        return Modules(
            self.ws, [func_name(n) for n in self.ast.ext if isinstance(n, c_ast.FuncDef)]
        )

    @property
    def filename(self) -> str:
        """The file name used when the unit is saved."""
        return self.path.name if self.path else f"{self.name}.c"

    @property
    def code(self) -> str:
        """The unit as C text.

        A parsed file gives its own text where passman changed nothing:
        byte for byte when nothing changed at all; otherwise each top-level
        declaration or function that changed is printed in its place, new
        ones are printed before the first original one that follows them,
        removed ones disappear, and ``#include`` lines that a pass added go
        before the file's first declaration. Comments, blank lines and
        directives between declarations stay as written, and so do the
        comments inside a function printed again, above the statements they
        were attached to (:mod:`passman.statement_comments`). A unit with no text
        (stubs, generated code) or whose text cannot be matched with its nodes
        is printed whole: its directives, then its own declarations and
        functions.
        """
        own = self.own_nodes
        orig = self.original
        if orig is not None:
            if (len(own) == len(orig.nodes) and tuple(self.directives) == orig.directives
                    and all(n is orig.nodes[k] and self._unchanged(n, k) for k, n in enumerate(own))):
                return orig.text
            text = self._spliced(own, orig)
            if text is not None:
                return text
        return self._printed(own, source_comments=True)

    @property
    def printed(self) -> str:
        """The whole unit as passman's printer writes it: its directives, then its own nodes.

        What :attr:`code` gives for a unit without source text; for one with,
        the printer's view of all of it (macros expanded, comments gone).
        """
        return self._printed(self.own_nodes)

    def _printed(self, own: list[c_ast.Node], source_comments: bool = False) -> str:
        body = to_c(c_ast.FileAST(own), hidden_labels=self.ws._labels.auto, source_comments=source_comments)
        head = "\n".join(self.directives)
        return f"{head}\n\n{body}" if head else body

    def _unchanged(self, node: c_ast.Node, k: int) -> bool:
        """Whether ``node`` (the original node ``k``, or a copy in its place) is as it was parsed."""
        orig = self.original
        assert orig is not None
        if node is orig.nodes[k] and orig.versions[k] is not None:
            if self.ws._versions.get(("module", func_name(node))) == orig.versions[k]:
                return True
        return same_tree(node, orig.pristine[k])

    def _spliced(self, own: list[c_ast.Node], orig: OriginalSource) -> str | None:
        """The original text with what changed printed in place; None when the nodes cannot be placed."""
        layout = orig.layout
        if layout is None:
            return None
        items, owner = layout
        slot = _match_slots(own, orig)
        placed = [owner[k] for k in slot if k is not None]
        if placed != sorted(placed):
            return None  # a pass reordered the file's declarations
        members: dict[int, list[c_ast.Node]] = {}  # item -> its nodes now, in order
        changed: set[int] = set()
        for n, k in zip(own, slot):
            if k is not None:
                members.setdefault(owner[k], []).append(n)
                if not self._unchanged(n, k):
                    changed.add(owner[k])
        kept = set(slot)
        changed |= {j for k, j in enumerate(owner) if k not in kept}  # an item that lost a node
        insertions: dict[int, list[str]] = {}
        added = [d for d in self.directives if d not in orig.directives]
        if added:
            at = items[min(owner)].lead if owner else len(orig.text)
            insertions.setdefault(at, []).append("\n".join(added) + "\n")
        self._place_new(own, slot, owner, items, members, changed, insertions)
        replacements = {}
        for j in sorted(changed):
            text = self._print_nodes(members.get(j, []), items[j].first_line).rstrip("\n")
            replacements[j] = text + _directives_inside(orig.text, items[j])
        if not replacements and not insertions:
            return orig.text  # copies of the parsed nodes, all unchanged
        text = splice(orig.text, replacements, items, insertions)
        text = text if text.endswith("\n") or not text else text + "\n"
        return text + self._size_guard(orig)

    def _size_guard(self, orig: OriginalSource) -> str:
        """Lines that stop a build with other values of the file's size macros than passman saw.

        The passes read the values (``N`` is 1000 to the dependence tests, to
        the polyhedral scheduler, to the clauses they write), so code they
        changed is right for those values only, even where it says ``N``:
        every macro whose value was in the file as parsed, or is in it now
        (:func:`passman.size_macros.specialize`). A size macro the build
        chooses is a name to the passes where C allows one
        (:mod:`passman.size_macros`), so it is in the guard only where C
        wanted its value (a file-scope array, a ``case``) or a pass put it back.
        """
        found = {**orig.macro_values, **macro_values(self.own_nodes), **specialized(self.ast)}
        values = dict(sorted(found.items()))
        if not values:
            return ""
        test = " || ".join(f"(defined({m}) && {m} != {v})" for m, v in values.items())
        sizes = ", ".join(f"{m} == {v}" for m, v in values.items())
        name = self.path.name if self.path else self.filename
        return (f"\n#if {test}\n#error \"passman transformed {name} for {sizes}: "
                f"run it again with the -D options of this build\"\n#endif\n")

    def _place_new(self, own: list[c_ast.Node], slot: list[int | None], owner: list[int], items: list[Item],
                   members: dict[int, list[c_ast.Node]], changed: set[int],
                   insertions: dict[int, list[str]]) -> None:
        """Place the nodes no original one matches: into the item around them, into a removed item
        between their neighbours, or before the next original item (at the end when none follows)."""
        assert self.original is not None
        text = self.original.text
        i = 0
        while i < len(own):
            if slot[i] is not None:
                i += 1
                continue
            j = i
            while j < len(own) and slot[j] is None:
                j += 1
            run = own[i:j]
            before = next((owner[k] for k in reversed(slot[:i]) if k is not None), None)
            after = next((owner[k] for k in slot[j:] if k is not None), None)
            lo = -1 if before is None else before
            hi = len(items) if after is None else after
            removed = [r for r in sorted(set(owner)) if lo < r < hi and not members.get(r)]
            if before is not None and before == after:
                members[before] = _insert_after(members[before], own[i - 1], run)
                changed.add(before)
            elif removed:
                members[removed[0]] = run
                changed.add(removed[0])
            elif after is not None:
                printed = self._print_nodes(run, items[after].first_line)
                insertions.setdefault(items[after].lead, []).append(printed + "\n")
            else:
                sep = "" if not text or text.endswith("\n") else "\n"
                printed = self._print_nodes(run, text.count("\n") + 1)
                insertions.setdefault(len(text), []).append(sep + "\n" + printed)
            i = j

    def _print_nodes(self, nodes: list[c_ast.Node], line: int) -> str:
        """Top-level nodes printed as the printer prints a file, to go at ``line`` of the original text.

        A constant the user wrote as a macro name is printed as that name
        where it kept the macro's value and the macro means the same at
        ``line`` as where the user wrote it.
        """
        if not nodes:
            return ""
        orig = self.original

        def macro_name(const: c_ast.Constant) -> str | None:
            c = const.coord
            if (isinstance(c, MacroCoord) and orig is not None and c.file == self.coord_name
                    and const.value == c.expansion and orig.same_meaning(c.macro, c.line, line)):
                return c.macro
            return None

        return to_c(c_ast.FileAST(nodes), hidden_labels=self.ws._labels.auto, macro_names=macro_name,
                    source_comments=True)

    def __repr__(self) -> str:
        return f"<CompilationUnit {self.name}>"


def _node_name(node: c_ast.Node) -> str | None:
    """The name a top-level node declares (None for a pragma or an unnamed struct)."""
    if isinstance(node, c_ast.FuncDef):
        return node.decl.name
    return getattr(node, "name", None) if isinstance(node, (c_ast.Decl, c_ast.Typedef)) else None


def _match_slots(own: list[c_ast.Node], orig: OriginalSource) -> list[int | None]:
    """For each current node, the original node it is (or replaces), or None for a new one."""
    slot: list[int | None] = [orig.index.get(id(n)) for n in own]
    slot = [k if k is not None and orig.nodes[k] is n else None for n, k in zip(own, slot)]
    present = {k for k in slot if k is not None}
    free: dict[tuple[type, str], list[int]] = {}
    for k, n in enumerate(orig.nodes):
        name = _node_name(n)
        if k not in present and name is not None:
            free.setdefault((type(n), name), []).append(k)
    for i, n in enumerate(own):
        if slot[i] is None:
            name = _node_name(n)
            ks = free.get((type(n), name)) if name is not None else None
            if ks:
                slot[i] = ks.pop(0)
    return slot


def _directives_inside(text: str, item: Item) -> str:
    """The ``#define``/``#undef`` lines written inside ``item`` (with their ``#if``\\s), to keep after it.

    Printing an item again loses the preprocessor lines inside it; those
    that change macros for the rest of the file go after it, on lines of
    their own.
    """
    lines = [text[a:b] for a, b in item.directives]
    kept = scan_directives("\n".join(x for x in lines if not _INCLUDE.match(x)), everything=True)
    if not kept:
        return ""
    eol = text.find("\n", item.end)
    rest = text[item.end:eol if eol >= 0 else len(text)]
    return "\n" + "\n".join(kept) + ("\n" if rest.strip() else "")


def _insert_after(nodes: list[c_ast.Node], anchor: c_ast.Node, run: list[c_ast.Node]) -> list[c_ast.Node]:
    """``nodes`` with ``run`` inserted after ``anchor``."""
    k = next(i for i, n in enumerate(nodes) if n is anchor)
    return nodes[:k + 1] + run + nodes[k + 1:]
