"""Loops of a module, addressed by label.

Every ``for`` loop carries a C label in the AST: the one the user wrote, or a
generated one (``l1``, ``l2`` …) that passman hides when it prints code. A
generated label is created once and moves with its loop, so it is stable
across passes that do not touch that loop. :class:`Loop` is a handle (module,
label) resolved against the current AST each time it is used.

Sets of loops are data, so they are properties, the same on a module, a set
of modules and a loop: ``loops`` (outermost, or directly nested),
``all_loops`` (every one, outer before inner) and ``inner_loops`` (those
with no loop inside). Each is a :class:`LoopList`, which can also be called
as PyPS's methods are: ``module.loops()`` is ``module.loops``, and
``module.loops("l3")`` or ``module.loops(0)`` picks one.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from .astutil import child_nodes
from .display import Display, show
from .errors import InvalidInput

if TYPE_CHECKING:
    from .module import Module

#: the resource holding each loop's verdict (the parallel-loop analysis): ``{label: verdict}``
VERDICTS = "parallel_loops"


@dataclass
class LoopSite:
    """Where a loop sits in the AST."""

    label: str
    labelled: c_ast.Label  # the Label node wrapping the For
    node: c_ast.For
    parent: c_ast.Node  # the node holding ``labelled``
    depth: int
    children: list[LoopSite] = field(default_factory=list)
    outer: LoopSite | None = None
    #: the nodes from the function down to ``parent``, when found by :func:`located_sites`
    path: tuple = ()


def loop_sites(root: c_ast.Node) -> list[LoopSite]:
    """The outermost labelled ``for`` loops under ``root``, each with its nested loops."""
    top: list[LoopSite] = []
    _visit(root, root, None, top, None)
    return top


def _visit(node: c_ast.Node, parent: c_ast.Node, enclosing: LoopSite | None, top: list[LoopSite],
           path: list[c_ast.Node] | None) -> None:
    """Sites under ``node`` (``path``: its ancestors, kept in each site's :attr:`LoopSite.path` when given)."""
    if path is not None:
        path.append(parent)
    if isinstance(node, c_ast.Label) and isinstance(node.stmt, c_ast.For):
        site = LoopSite(
            node.name, node, node.stmt, parent, enclosing.depth + 1 if enclosing else 0,
            outer=enclosing,
        )
        if path is not None:
            site.path = tuple(path[1:])
        (enclosing.children if enclosing else top).append(site)
        for c in child_nodes(node.stmt):
            if path is not None:
                path.append(node)
            _visit(c, node.stmt, site, top, path)
            if path is not None:
                path.pop()
    else:
        for c in child_nodes(node):
            _visit(c, node, enclosing, top, path)
    if path is not None:
        path.pop()


def located_sites(root: c_ast.Node) -> list[LoopSite]:
    """:func:`loop_sites` with each site's :attr:`LoopSite.path` (for handles that remember it)."""
    top: list[LoopSite] = []
    _visit(root, root, None, top, [])
    return top


def _still_there(root: c_ast.Node, site: LoopSite) -> LoopSite | None:
    """``site`` as the AST is now, if its loop is still where it was (every link of its path)."""
    path = site.path
    if not path or path[0] is not root or not isinstance(site.labelled.stmt, c_ast.For) \
            or site.labelled.name != site.label:
        return None
    chain = path + (site.labelled,)
    for up, down in zip(chain, chain[1:]):
        if not any(c is down for c in child_nodes(up)):
            return None
    fresh = LoopSite(site.label, site.labelled, site.labelled.stmt, path[-1], site.depth, outer=site.outer)
    fresh.path = path
    for c in child_nodes(fresh.node):
        _visit(c, fresh.node, fresh, [], None)
    return fresh


def iter_sites(sites: list[LoopSite]) -> Iterator[LoopSite]:
    """All sites of a forest, outer before inner, in source order."""
    for s in sites:
        yield s
        yield from iter_sites(s.children)


def unlabelled_fors(root: c_ast.Node) -> list[tuple[c_ast.Node, c_ast.For]]:
    """``(parent, for)`` pairs of loops that carry no label."""
    out = []
    stack: list[tuple[c_ast.Node, c_ast.Node]] = [(root, c) for c in child_nodes(root)]
    while stack:
        parent, node = stack.pop()
        if isinstance(node, c_ast.For) and not isinstance(parent, c_ast.Label):
            out.append((parent, node))
        stack.extend((node, c) for c in child_nodes(node))
    return out


class LoopList(list):
    """A list of loops that also answers a call, as PyPS's ``loops()`` does.

    ``module.loops`` and ``module.loops()`` are the same list;
    ``module.loops("l3")`` is the loop labelled ``l3`` (for a module: anywhere
    in it), ``module.loops(0)`` the first one.
    """

    def __init__(self, items: list[Loop] | tuple = (), where: str = "", find: Any = None):
        super().__init__(items)
        self.where = where
        self.find = find

    def __call__(self, label: str | int | None = None) -> Any:
        if label is None:
            return self
        if isinstance(label, str) and self.find is not None:
            return self.find(label)
        return select_items(self, label, self.where)


class Loop:
    """A handle on one ``for`` loop: ``module.loop("l3")``.

    Loop-level passes are methods: ``loop.unroll(4)``, ``loop.tile(32, 32)``.
    """

    __slots__ = ("module", "label", "_at")

    def __init__(self, module: Module, label: str, at: LoopSite | None = None):
        self.module = module
        self.label = label
        #: where the loop was found (a site with its path), checked link by link before use
        self._at = at

    # -- resolution ---------------------------------------------------------------
    @property
    def site(self) -> LoopSite:
        """The loop's current place in the AST.

        Found by a walk of the function, or, for a handle made from a walk
        that kept the path (:func:`located_sites`), at the same place when
        every link of that path still holds: a pass asking ten questions of
        each of 50 loops of a 2,000-line function walked it 500 times
        (fuzz case timeout_40e5ce02).
        """
        root = self.module.ast
        if self._at is not None:
            site = _still_there(root, self._at)
            if site is not None:
                self._at = site
                return site
            self._at = None
        # the sites of the function's last walk, each checked link by link before use: passes ask
        # for loops by label again and again (marker, pragmas_of), each time a walk of the function
        sites = self.module.ws.__dict__.setdefault("_loop_sites", {})
        known = sites.get(self.module.name)
        if known is not None and known[0] is root and self.label in known[1]:
            site = _still_there(root, known[1][self.label])
            if site is not None:
                return site
        table: dict[str, LoopSite] = {}
        for s in iter_sites(located_sites(root)):
            table.setdefault(s.label, s)
        sites[self.module.name] = (root, table)
        if self.label in table:
            return table[self.label]
        raise InvalidInput(f"error: no loop '{self.label}' in function {self.module.name}")

    @property
    def node(self) -> c_ast.For:
        """The ``c_ast.For`` node."""
        return self.site.node

    @property
    def workspace(self):
        """The workspace the loop belongs to."""
        return self.module.ws

    @property
    def loops(self) -> LoopList:
        """The loops directly nested in this one (``loop.loops("l4")``, ``loop.loops(0)``: one of them)."""
        return LoopList([Loop(self.module, s.label) for s in self.site.children], f"loop {self.label}")

    @property
    def all_loops(self) -> LoopList:
        """Every loop nested in this one, outer before inner, in source order."""
        return LoopList([Loop(self.module, s.label) for s in iter_sites(self.site.children)], f"loop {self.label}")

    @property
    def inner_loops(self) -> LoopList:
        """The innermost loops nested in this one (empty when it is innermost itself)."""
        return LoopList([Loop(self.module, s.label) for s in iter_sites(self.site.children) if not s.children],
                        f"loop {self.label}")

    @property
    def generated(self) -> bool:
        """Whether the label was generated by passman (hidden in printed code)."""
        return self.label in self.module.ws._labels.auto

    @property
    def depth(self) -> int:
        """Nesting depth: 0 for an outermost loop."""
        return self.site.depth

    @property
    def outer(self) -> Loop | None:
        """The loop this one is nested in, if any."""
        o = self.site.outer
        return Loop(self.module, o.label) if o else None

    @property
    def pragma(self) -> list[str]:
        """Text of the ``#pragma`` lines right before the loop."""
        site = self.site
        items = getattr(site.parent, "block_items", None)
        if not items:
            return []
        i = next(k for k, n in enumerate(items) if n is site.labelled)
        out = []
        while i > 0 and isinstance(items[i - 1], c_ast.Pragma):
            i -= 1
            out.insert(0, items[i].string)
        return out

    @property
    def parallel(self) -> bool:
        """Whether an OpenMP work-sharing pragma marks the loop as parallel (PyPS's meaning).

        What the analysis proves is :attr:`verdict`.
        """
        return any(p.split()[:1] == ["omp"] and " for" in f" {p} " for p in self.pragma)

    @property
    def verdict(self) -> Any:
        """The parallel-loop analysis on this loop, whatever its pragmas say.

        ``.parallel`` (may its iterations run in any order?), ``.private`` and
        ``.lastprivate`` (what each iteration must own), ``.reductions`` (what
        it must combine), ``.reasons`` (why not parallel, in source terms),
        ``.trip_count``. Computed on demand, cached until the function changes
        (``module.display("parallel_loops")`` shows every loop's).
        """
        verdicts = self.module.resource(VERDICTS)
        if self.label not in verdicts:
            raise InvalidInput(f"error: no verdict for loop '{self.label}' in function {self.module.name}")
        return verdicts[self.label]

    @property
    def coord(self) -> Any:
        """Source position of the loop."""
        return self.node.coord

    @property
    def code(self) -> str:
        """The loop printed as C."""
        from .printer import to_c

        return to_c(self.site.labelled, hidden_labels=self.module.ws._labels.auto)

    def display(self, resource: str | None = None, *, file: Any = None) -> Display:
        """The loop, annotated with ``resource`` if given (see :meth:`Module.display`)."""
        return show(self.module._render(self.site.labelled, resource), file)

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return self.module.ws._pass_method(name, self)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.module.ws._pass_names("loop")))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Loop) and other.module == self.module and other.label == self.label

    def __hash__(self) -> int:
        return hash((self.module, self.label))

    def __repr__(self) -> str:
        try:
            node = self.node
        except InvalidInput:
            return f"<Loop {self.label} of {self.module.name} (no longer there)>"
        from .printer import to_c

        header = to_c(c_ast.For(node.init, node.cond, node.next, c_ast.EmptyStatement())).strip()
        where = f" at {node.coord.file}:{node.coord.line}" if node.coord is not None and node.coord.file else ""
        return f"<Loop {self.label} of {self.module.name}{where}: {header.removesuffix(' ;')}>"


def select_items(items: list, key: str | int | None, where: str):
    if key is None:
        return items
    if isinstance(key, int):
        try:
            return items[key]
        except IndexError:
            raise InvalidInput(f"error: {where} has no loop number {key}") from None
    for it in items:
        if it.label == key:
            return it
    raise InvalidInput(f"error: {where} has no loop labelled '{key}'")
