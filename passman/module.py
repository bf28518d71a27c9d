"""Modules (functions) and sets of modules.

A :class:`Module` is a handle: a workspace and a function name. Its AST lives
in its compilation unit; every pass registered with ``scope="module"`` is a
method (``module.unroll`` is not, it is a loop pass: ``loop.unroll``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TextIO

from pycparser import c_ast

from .display import Display, show
from .errors import InvalidInput, PassFailed
from .loop import Loop, LoopList, iter_sites, loop_sites

if TYPE_CHECKING:
    from .unit import CompilationUnit
    from .workspace import Workspace


class Module:
    """One function of the program."""

    __slots__ = ("ws", "name")

    def __init__(self, ws: Workspace, name: str):
        self.ws = ws
        self.name = name

    # -- the IR ---------------------------------------------------------------
    @property
    def ast(self) -> c_ast.FuncDef:
        """The function's ``c_ast.FuncDef`` (read it; mutate only inside a pass)."""
        self.ws.rm.note_read(("module", self.name))
        return self.ws._funcdef(self.name)

    def edit(self) -> c_ast.FuncDef:
        """Announce that the running pass modifies this module, and return its AST.

        The pass's own target is announced automatically; call this for any
        other module a pass changes (callers adjusted by an interprocedural
        transformation, for example) so that a failure can restore it.
        """
        self.ws._touch(self.name)
        return self.ws._funcdef(self.name)

    @property
    def cu(self) -> CompilationUnit:
        """The compilation unit that defines the function."""
        return self.ws._units[self.ws._index_of(self.name)[0]]

    @property
    def workspace(self) -> Workspace:
        """The workspace this module belongs to."""
        return self.ws

    @property
    def is_stub(self) -> bool:
        """Whether the module is a library model from a broker (never transformed or printed)."""
        return self.cu.is_stub

    @property
    def code(self) -> str:
        """The function as C text; setting it re-parses and replaces the function."""
        from .printer import to_c

        return to_c(self.ast, hidden_labels=self.ws._labels.auto)

    @code.setter
    def code(self, text: str) -> None:
        self.ws._set_module_code(self.name, text)

    def new_label(self) -> str:
        """A fresh generated loop label (hidden when code is printed)."""
        return self.ws._labels.fresh()

    # -- call graph -------------------------------------------------------------
    @property
    def callees(self) -> Modules:
        """The modules this one calls (functions of the workspace called by name).

        Depends only on this module's code, so interprocedural analyses that
        walk callees are invalidated only by changes below them.
        """
        from .astutil import called_names

        self.ws.rm.note_read(("program",))
        return Modules(self.ws, [n for n in called_names(self.ast.body) if n in self.ws])

    @property
    def callers(self) -> Modules:
        """The modules that call this one by name, in the workspace's order.

        Read from each function's ``function_references`` (cached per
        function, the same calls as the ``callgraph``'s edges), not from the
        program's ``callgraph``: building that graph imports networkx, a
        tenth of a second that most commands never need otherwise.
        """
        return Modules(self.ws, [m.name for m in self.ws.modules
                                 if self.name in self.ws.rm.get("function_references", m).calls])

    # -- loops ------------------------------------------------------------------
    @property
    def loops(self) -> LoopList:
        """The outermost loops; ``module.loops("l3")`` is one loop anywhere in the function, ``loops(0)`` the first."""
        return LoopList([Loop(self, s.label) for s in loop_sites(self.ast)], f"function {self.name}", self.loop)

    @property
    def all_loops(self) -> LoopList:
        """Every loop, outer before inner, in source order."""
        return LoopList([Loop(self, s.label) for s in iter_sites(loop_sites(self.ast))],
                        f"function {self.name}", self.loop)

    @property
    def inner_loops(self) -> LoopList:
        """The innermost loops (those with no nested loop)."""
        return LoopList([Loop(self, s.label) for s in iter_sites(loop_sites(self.ast)) if not s.children],
                        f"function {self.name}", self.loop)

    def loop(self, label: str) -> Loop:
        """The loop labelled ``label``."""
        for s in iter_sites(loop_sites(self.ast)):
            if s.label == label:
                return Loop(self, label)
        raise InvalidInput(f"error: no loop '{label}' in function {self.name}")

    # -- display ----------------------------------------------------------------
    def _render(self, node: c_ast.Node, resource: str | None) -> str:
        from .printer import to_c

        annotations = None
        if resource is not None:
            producer = self.ws.registry.producer(resource, self.ws.rm.active)
            value = self.ws.rm.get(resource, self)
            if producer.display is None:
                raise InvalidInput(f"error: resource '{resource}' has no annotated display")
            annotations = producer.display(self, value)
        return to_c(
            node, annotations=annotations, hidden_labels=self.ws._labels.auto, label_comments=True
        )

    def display(self, resource: str | None = None, *, file: TextIO | None = None) -> Display:
        """The function, annotated with analysis ``resource`` as comments (generated labels shown).

        Returns a :class:`~passman.display.Display` (a ``str``): the Python
        prompt and IPython show it once, as code, and Jupyter as highlighted
        HTML. In a script it is also printed, as in PyPS (to ``file`` when
        given, wherever it runs). An unknown ``resource`` is refused with
        the known names.
        """
        return show(self._render(self.ast, resource), file)

    def annotated(self, resource: str | None = None) -> str:
        """The text :meth:`display` prints, without printing it."""
        return self._render(self.ast, resource)

    def resource(self, name: str) -> Any:
        """The value of analysis resource ``name`` for this module (computed if needed)."""
        return self.ws.rm.get(name, self)

    # -- passes -------------------------------------------------------------------
    def apply(self, pipeline: str) -> bool:
        """Run a textual pipeline on this function only (``docs/pipelines.md``).

        ``kernel.apply("(partial_eval,dead_code_elimination)*,unroll@*.inner_loops{rate=2}?")``;
        a target naming another function is refused. Returns whether the code changed.
        """
        return self.ws.apply_pipeline(pipeline, function=self.name)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        return self.ws._pass_method(name, self)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.ws._pass_names("module")))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Module) and other.ws is self.ws and other.name == self.name

    def __hash__(self) -> int:
        return hash((id(self.ws), self.name))

    def __lt__(self, other: Module) -> bool:
        return self.name < other.name

    def __repr__(self) -> str:
        if self.name not in self.ws:
            return f"<Module {self.name} (no longer there)>"
        if self.is_stub:
            return f"<Module {self.name}: library model>"
        node = self.ws._funcdef(self.name)
        coord = node.decl.coord
        where = f" ({coord.file}:{coord.line})" if coord is not None and coord.file else ""
        n = sum(1 for _ in iter_sites(loop_sites(node)))
        return f"<Module {self.name}{where}: {n} loop{'' if n == 1 else 's'}>"


class Modules:
    """A set of modules, in name order; calling a pass applies it to each member.

    The call succeeds if the pass changed at least one member; it raises
    :class:`PassFailed` (listing the reasons) if it changed none.
    """

    def __init__(self, ws: Workspace, names: Iterable[str]):
        self.ws = ws
        self._names = sorted(set(names))

    def __iter__(self) -> Iterator[Module]:
        return (Module(self.ws, n) for n in self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, item: object) -> bool:
        name = item.name if isinstance(item, Module) else item
        return name in self._names

    def __getitem__(self, i: int) -> Module:
        return Module(self.ws, self._names[i])

    @property
    def names(self) -> list[str]:
        """Member names, sorted."""
        return list(self._names)

    @property
    def loops(self) -> LoopList:
        """The outermost loops of every member."""
        return LoopList([lp for m in self for lp in m.loops], "these functions")

    @property
    def all_loops(self) -> LoopList:
        """Every loop of every member."""
        return LoopList([lp for m in self for lp in m.all_loops], "these functions")

    @property
    def inner_loops(self) -> LoopList:
        """The innermost loops of every member."""
        return LoopList([lp for m in self for lp in m.inner_loops], "these functions")

    @property
    def callers(self) -> Modules:
        """Every module calling a member."""
        return Modules(self.ws, [c.name for m in self for c in m.callers])

    @property
    def callees(self) -> Modules:
        """Every module a member calls."""
        return Modules(self.ws, [c.name for m in self for c in m.callees])

    def display(self, resource: str | None = None, *, file: TextIO | None = None) -> Display:
        """Every member, as :meth:`Module.display` shows one."""
        return show("\n".join(m.annotated(resource) for m in self), file)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        self.ws.registry.get_pass(name)

        def apply_all(*args: Any, **kwargs: Any) -> list[Any]:
            results, failures = [], []
            for m in self:
                try:
                    results.append(getattr(m, name)(*args, **kwargs))
                except PassFailed as err:
                    failures.append(f"{m.name}: {err}")
            if failures and len(failures) == len(self._names):
                raise PassFailed(f"{name} applied nowhere: " + "; ".join(failures), pass_name=name)
            return results

        return apply_all

    def __repr__(self) -> str:
        names = ", ".join(self._names[:8]) + (", ..." if len(self._names) > 8 else "")
        return f"<Modules ({len(self._names)}): {names}>"
