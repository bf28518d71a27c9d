"""The workspace: a C program's compilation units, functions and loops.

It owns the AST, the versions the consistency manager relies on, the property
values, the history of applied passes, and the transactions that make every
transformation all-or-nothing. Cloning is cheap: top-level AST nodes are
shared between clones and copied the first time one of them is modified.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from . import frontend
from .astutil import copy_node, func_name, same_tree
from .builder import BuildFlags, absolute_paths
from .consistency import ResourceManager
from .errors import InternalError, InvalidInput, PassFailed, PassmanError, warn
from .history import SET_CODE, History, Step
from .instrument import Instrumentation, PassCall
from .loop import Loop, unlabelled_fors
from .module import Module, Modules
from .pipeline import run_pipeline
from .registry import REGISTRY, PassInfo, Property, Registry
from .state import LabelState, Namespace, Props
from .unit import CompilationUnit

if TYPE_CHECKING:
    from .brokers import Implementation, Stub


class _Transaction:
    """State of a workspace before a transformation, to restore on failure."""

    def __init__(self, ws: Workspace):
        self.ws = ws
        self.units = dict(ws._units)
        self.ext = {name: list(cu.ast.ext) for name, cu in ws._units.items()}
        self.versions = dict(ws._versions)
        self.labels = ws._labels.copy()
        self.owned = dict(ws._owned)
        #: module -> (node before the pass, pristine copy or None when copied-on-write)
        self.touched: dict[str, tuple[c_ast.FuncDef, c_ast.FuncDef | None]] = {}
        #: modules changed or created (set by commit)
        self.changed_modules: list[str] = []

    def touch(self, name: str) -> None:
        if name in self.touched:
            return
        ws = self.ws
        node = ws._funcdef(name)
        if id(node) in ws._owned:
            self.touched[name] = (node, copy_node(node))
        else:  # shared with a clone or checkpoint: copy on write
            new = copy_node(node)
            ws._replace_funcdef(name, new)
            ws._owned[id(new)] = new
            ws._versions[("module", name)] = ws._tick()
            self.touched[name] = (node, None)

    def rollback(self) -> None:
        ws = self.ws
        live = {n: ws._funcdef(n) for n in self.touched if n in ws}
        ws._units = self.units
        for name, cu in ws._units.items():
            cu.ast.ext[:] = self.ext[name]
        ws._versions = self.versions
        ws._tick()  # versions went back: entries checked meanwhile must be checked again
        ws._labels = self.labels
        ws._owned = self.owned
        ws._index = None
        for name, (node, pristine) in self.touched.items():
            if pristine is None or same_tree(live.get(name), pristine):
                continue
            # mutated in place: put the pristine copy back, under a new version
            ws._replace_funcdef(name, pristine)
            ws._owned.pop(id(node), None)
            ws._owned[id(pristine)] = pristine
            ws._versions[("module", name)] = ws._tick()

    def commit(self, preserves: tuple[str, ...]) -> bool:
        """Bump the versions of what changed; return whether anything did."""
        ws = self.ws
        ws._index = None
        bumped: dict[tuple, tuple[int, int]] = {}
        structural = set(ws._units) != set(self.units)
        for name, cu in ws._units.items():
            before = self.ext.get(name)
            if before is None or len(before) != len(cu.ast.ext) or any(
                a is not b and not _same_function_slot(a, b) for a, b in zip(before, cu.ast.ext)
            ):
                structural = True
                key = ("cu", name)
                bumped[key] = (ws._versions.get(key, -1), ws._tick())
        names_now = set(ws._all_module_names())
        names_before = {n for n, _ in ws._index_snapshot_names(self.ext)}
        changed_modules = []
        before_of: dict[str, c_ast.FuncDef | None] = {}
        defined_before: dict[str, c_ast.FuncDef] = {}  # each name's first definition, found in one pass
        for nodes in self.ext.values():
            for n in nodes:
                if isinstance(n, c_ast.FuncDef):
                    defined_before.setdefault(func_name(n), n)
        for name in names_now:
            node = ws._funcdef(name)
            if name in self.touched:
                orig, pristine = self.touched[name]
                ref = pristine if pristine is not None else orig
                if not same_tree(node, ref):
                    changed_modules.append(name)
                    before_of[name] = ref
            elif name not in names_before:
                changed_modules.append(name)
                before_of[name] = None
            else:
                ref = defined_before.get(name)
                if node is not ref:
                    changed_modules.append(name)
                    before_of[name] = ref
        for name in names_before - names_now:
            ws._versions.pop(("module", name), None)
            structural = True
        self.changed_modules = changed_modules
        for name in changed_modules:
            ws._ensure_labels(name)
            key = ("module", name)
            bumped[key] = (self.versions.get(key, -1), ws._tick())
            ref = before_of[name]
            if ref is None or not same_tree(ref.decl, ws._funcdef(name).decl):
                # a new signature changes what the unit declares (file-scope names, types)
                ukey = ("cu", ws._index_of(name)[0])
                if ukey not in bumped:
                    bumped[ukey] = (ws._versions.get(ukey, -1), ws._tick())
        if structural or names_now != names_before:
            key = ("program",)
            bumped[key] = (ws._versions.get(key, -1), ws._tick())
        for key, (_, new) in bumped.items():
            ws._versions[key] = new
        if bumped and names_now == names_before:
            # (a pass that added or removed a function preserved nothing: auto_schedule's trapezoids
            # add functions and calls to a pass that otherwise keeps the call graph)
            ws.rm.carry_over(preserves, {k: (self.versions.get(k, old), new) for k, (old, new) in bumped.items()})
        return bool(changed_modules) or structural


def _check_scope(info: PassInfo, target: Any) -> None:
    """Refuse (InvalidInput) a pass on a target of another scope (``outline`` on a loop)."""
    want = next((scope for cls, scope in ((Module, "module"), (Loop, "loop"), (CompilationUnit, "unit"))
                 if isinstance(target, cls)), "program")
    if info.scope != want and not (info.kind == "analysis" and want == "loop" and info.scope == "module"):
        raise InvalidInput(f"error: pass {info.name} applies to a {info.scope}, not to a {want}")


class Workspace:
    """A C program under transformation.

    ``Workspace("a.c", "b.c", cppflags=["-DN=100"], unroll_rate=8)`` parses the
    files (keyword arguments set properties). It is a context manager.
    ``brokers=["fftw"]`` enables library brokers beyond those always on and
    those detected from the includes; the library functions the program calls
    join it as stub modules (see ``docs/brokers.md``). ``extra_sources`` are
    C files built with the program but never parsed (:meth:`add_extra_source`);
    :attr:`build_flags` holds them, the ``cppflags`` and the user's
    ``CFLAGS``/``LDLIBS``, which every backend's Makefile gets.
    """

    def __init__(
        self,
        *sources: str | os.PathLike[str],
        cppflags: Iterable[str] = (),
        name: str | None = None,
        registry: Registry | None = None,
        verbose: bool = False,
        brokers: Iterable[str] = (),
        extra_sources: Iterable[str | os.PathLike[str]] = (),
        **properties: Any,
    ):
        from .brokers import BROKERS
        from .plugins import load_plugins
        from .stubtable import StubTable

        load_plugins()
        self._stubs = StubTable(BROKERS.check(brokers))
        self._stubs_deferred = True
        self.registry = registry or REGISTRY
        self.name = name or (Path(sources[0]).stem if sources else "workspace")
        self.cppflags = list(cppflags)
        #: what the Makefile gets besides the backend's flags (``passman run -I/-D/-U/--cflags/...``)
        self.build_flags = BuildFlags(cppflags=absolute_paths(self.cppflags))
        self.verbose = verbose
        self._clock = 0
        self._versions: dict[tuple, int] = {("program",): 0}
        self._units: dict[str, CompilationUnit] = {}
        self._owned: dict[int, c_ast.Node] = {}
        self._index: dict[str, tuple[str, int]] | None = None
        self._labels = LabelState()
        self._txns: list[_Transaction] = []
        self.rm = ResourceManager(self)
        self.props = Props(self)
        self.history = History()
        #: instrumentations called before and after each pass and analysis (:meth:`instrument`)
        self.instruments: list[Instrumentation] = []
        self._calls: list[PassCall] = []
        self.build_result = None
        self.warnings: list[str] = []
        for src in sources:
            self.add_source(src)
        for extra in extra_sources:
            self.add_extra_source(extra)
        for k, v in properties.items():
            setattr(self.props, k, v)
        self._stubs_deferred = False
        self._resolve_stubs()

    # -- construction -------------------------------------------------------------
    @classmethod
    def from_code(cls, code: str, filename: str = "input.c", **kwargs: Any) -> Workspace:
        """A workspace from C text (written to a temporary file and preprocessed)."""
        tmp = Path(tempfile.mkdtemp(prefix="passman-"))
        path = tmp / filename
        path.write_text(code)
        try:
            return cls(path, **kwargs)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def add_source(self, path: str | os.PathLike[str]) -> CompilationUnit:
        """Parse one more C file into the workspace."""
        parsed = frontend.parse_file(path, self.cppflags)
        base = parsed.path.stem.replace(" ", "_") or "unit"
        name, k = base, 1
        while name in self._units:
            k += 1
            name = f"{base}{k}"
        cu = CompilationUnit(
            self, name, parsed.ast, path=parsed.path, coord_name=parsed.coord_name,
            directives=parsed.directives, local_headers=parsed.local_headers, macros=parsed.macros,
            source=parsed.source,
        )
        self._add_unit(cu)
        if not self._stubs_deferred:
            self._resolve_stubs([func_name(n) for n in cu.ast.ext if isinstance(n, c_ast.FuncDef)])
        return cu

    def add_extra_source(self, path: str | os.PathLike[str]) -> None:
        """Build ``path`` with the program without parsing it (``passman run --extra-source FILE``).

        It is copied into the output folder with the headers it includes
        with quotes from its own folder, compiled with the backend's C
        compiler (nvcc for ``.cu``) and linked; passman never reads its code,
        so its functions are library functions to the analyses.
        """
        p = Path(path)
        if not p.is_file():
            raise InvalidInput(f"{path}: error: no such file")
        if any(p.name == cu.filename for cu in self._units.values()) or any(
                p.name == q.name for q in self.build_flags.extra_sources):
            raise InvalidInput(f"{path}: error: the output already has a file named {p.name}")
        self.build_flags.extra_sources.append(p)
        try:
            text = p.read_text()
        except (OSError, UnicodeDecodeError) as err:
            raise InvalidInput(f"{path}: error: cannot read: {err}") from None
        for header in frontend.local_includes(text, p.parent):
            if header not in self.build_flags.extra_files:
                self.build_flags.extra_files.append(header)

    def add_unit_from_ast(self, name: str, ast: c_ast.FileAST, **kw: Any) -> CompilationUnit:
        """Add a compilation unit built in memory (stubs, generated code)."""
        if name in self._units:
            raise InvalidInput(f"error: compilation unit '{name}' already exists")
        cu = CompilationUnit(self, name, ast, **kw)
        self._add_unit(cu)
        return cu

    def _add_unit(self, cu: CompilationUnit) -> None:
        clash = [func_name(n) for n in cu.ast.ext if isinstance(n, c_ast.FuncDef) and func_name(n) in self]
        if clash and not cu.is_stub and all(Module(self, n).is_stub for n in clash):
            from .stubtable import forget

            forget(self, clash)  # the program defines these library functions itself
            clash = []
        if clash:
            raise InvalidInput(f"error: function {clash[0]} is defined twice ({cu.filename})")
        for node in cu.ast.ext:
            if isinstance(node, c_ast.FuncDef):
                for lab in _labels_in(node):
                    self._labels.taken.add(lab)
        self._units[cu.name] = cu
        self._index = None
        self._versions[("cu", cu.name)] = self._tick()
        for node in cu.ast.ext:
            if isinstance(node, c_ast.FuncDef):
                name = func_name(node)
                if not cu.is_stub:  # stub trees are shared by every workspace: never owned
                    self._owned[id(node)] = node
                    self._ensure_labels(name)
                self._versions[("module", name)] = self._tick()
        self._versions[("program",)] = self._tick()
        cu.mark_original()

    def _set_stub_unit(self, name: str, nodes: list[c_ast.Node], coord_name: str) -> None:
        """Create the stub unit ``name``, or give it new top-level ``nodes`` (stubs resolved later)."""
        cu = self._units.get(name)
        if cu is None:
            self._add_unit(CompilationUnit(self, name, c_ast.FileAST(nodes), coord_name=coord_name,
                                           is_stub=True))
            return
        before = {func_name(n) for n in cu.ast.ext if isinstance(n, c_ast.FuncDef)}
        cu.ast = c_ast.FileAST(list(nodes))
        self._index = None
        self._versions[("cu", name)] = self._tick()
        for node in nodes:
            if isinstance(node, c_ast.FuncDef):
                fname = func_name(node)
                if fname not in before:
                    for lab in _labels_in(node):
                        self._labels.taken.add(lab)
                    self._versions[("module", fname)] = self._tick()
        now = {func_name(n) for n in nodes if isinstance(n, c_ast.FuncDef)}
        for gone in before - now:
            self._versions.pop(("module", gone), None)
        self._versions[("program",)] = self._tick()

    def _resolve_stubs(self, modules: Iterable[str] | None = None, retry_unknown: bool = False) -> None:
        from .stubtable import resolve

        resolve(self, modules, retry_unknown=retry_unknown)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Forget cached analyses (the workspace stays usable)."""
        self.rm.forget()

    # -- versions and the AST index ---------------------------------------------------
    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _build_index(self) -> dict[str, tuple[str, int]]:
        if self._index is None:
            idx: dict[str, tuple[str, int]] = {}
            for cname, cu in self._units.items():
                for i, node in enumerate(cu.ast.ext):
                    if isinstance(node, c_ast.FuncDef):
                        idx[func_name(node)] = (cname, i)
            self._index = idx
        return self._index

    def _index_of(self, name: str) -> tuple[str, int]:
        idx = self._build_index()
        if name not in idx:
            raise InvalidInput(f"error: no function '{name}' in the workspace")
        cname, i = idx[name]
        ext = self._units[cname].ast.ext
        if i >= len(ext) or not isinstance(ext[i], c_ast.FuncDef) or func_name(ext[i]) != name:
            self._index = None  # a pass moved things around: rebuild
            return self._index_of(name)
        return cname, i

    def _funcdef(self, name: str) -> c_ast.FuncDef:
        cname, i = self._index_of(name)
        return self._units[cname].ast.ext[i]

    @staticmethod
    def _index_snapshot_names(ext: dict[str, list]) -> list[tuple[str, str]]:
        return [
            (func_name(n), cname)
            for cname, nodes in ext.items()
            for n in nodes
            if isinstance(n, c_ast.FuncDef)
        ]

    def _replace_funcdef(self, name: str, node: c_ast.FuncDef) -> None:
        cname, i = self._index_of(name)
        self._units[cname].ast.ext[i] = node

    def _all_module_names(self) -> list[str]:
        return list(self._build_index())

    def _ensure_labels(self, name: str) -> None:
        """Label every unlabelled loop of a module, and rename duplicated generated labels."""
        fd = self._funcdef(name)
        seen: set[str] = set()
        for lab in _label_nodes(fd):
            if lab.name in seen and lab.name in self._labels.auto:
                lab.name = self._labels.fresh()
            seen.add(lab.name)
        pending = unlabelled_fors(fd)
        pending.sort(key=lambda pf: _coord_key(pf[1]))
        for parent, loop in pending:
            from .astutil import replace_child

            replace_child(parent, loop, c_ast.Label(self._labels.fresh(), loop, loop.coord))

    # -- owners and scopes (for the consistency manager) -------------------------------
    def _owner_key(self, owner: Any) -> tuple:
        if owner is self:
            return ("program",)
        if isinstance(owner, Module):
            return ("module", owner.name)
        if isinstance(owner, Loop):
            return ("loop", owner.module.name, owner.label)
        if isinstance(owner, CompilationUnit):
            return ("cu", owner.name)
        raise InternalError(f"not a resource owner: {owner!r}")

    def _base_entities(self, okey: tuple) -> list[tuple]:
        if okey[0] == "loop":
            return [("module", okey[1])]
        return [okey]

    def _owner_for_scope(self, owner: Any, scope: str) -> Any:
        if scope == "program":
            return self
        if scope == "module":
            if isinstance(owner, Loop):
                return owner.module
            if isinstance(owner, Module):
                return owner
        if scope == "loop" and isinstance(owner, Loop):
            return owner
        if scope == "unit":
            if isinstance(owner, CompilationUnit):
                return owner
            if isinstance(owner, Module):
                return owner.cu
            if isinstance(owner, Loop):
                return owner.module.cu
        raise InvalidInput(f"error: a {scope}-level resource cannot be computed for {owner!r}")

    # -- the PyPS-style API ------------------------------------------------------------
    def __getitem__(self, name: str) -> Module:
        if name not in self:
            raise InvalidInput(f"error: no function '{name}' in the workspace")
        return Module(self, name)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._build_index()

    def __iter__(self) -> Iterator[Module]:
        return iter(self.all_functions)

    @property
    def fun(self) -> Namespace:
        """``ws.fun.kernel`` is ``ws["kernel"]``."""
        return Namespace(self.__getitem__, self._all_module_names)

    @property
    def cu(self) -> Namespace:
        """``ws.cu.main`` is the compilation unit read from ``main.c``."""

        def get(name: str) -> CompilationUnit:
            if name not in self._units:
                raise InvalidInput(f"error: no compilation unit '{name}'")
            return self._units[name]

        return Namespace(get, lambda: list(self._units))

    @property
    def compilation_units(self) -> list[CompilationUnit]:
        """Every compilation unit, in the order the files were given."""
        return list(self._units.values())

    @property
    def modules(self) -> Modules:
        """Every function, library stubs included."""
        self.rm.note_read(("program",))
        return Modules(self, self._all_module_names())

    @property
    def all_functions(self) -> Modules:
        """Every function of the program (library stubs excluded)."""
        self.rm.note_read(("program",))
        return Modules(self, [m for m in self._all_module_names() if not Module(self, m).is_stub])

    all = all_functions

    def filter(self, pred: Callable[[Module], bool]) -> Modules:
        """The functions for which ``pred(module)`` is true."""
        return Modules(self, [m.name for m in self.all_functions if pred(m)])

    def callee(self, name: str) -> Module | None:
        """The module a call to ``name`` reaches: a function of the program, a
        library model (stub) supplied by a broker (``.is_stub``), or None when
        nobody knows it: the analyses then assume it reads and writes everything
        reachable from its arguments and globals (it was warned about once,
        see :attr:`unknown_functions`)."""
        if name in self:
            return Module(self, name)
        return None

    def stub_info(self, name: str) -> Stub | None:
        """The broker's metadata for library function ``name`` (header, purity,
        ``model`` facts, implementations per target), or None when ``name`` is
        not a modelled library function."""
        return self._stubs.stubs.get(name)

    def library_stub(self, name: str) -> Stub | None:
        """The stub the program's enabled brokers give library function ``name``, whether the
        program calls it or not (a device entry point a pass may call instead), or None."""
        from .brokers import find_stub

        return find_stub(name, self.brokers)

    @property
    def unknown_functions(self) -> dict[str, str]:
        """Called functions that no broker models, with their first call site ``file:line:col``."""
        return dict(self._stubs.unknown)

    @property
    def brokers(self) -> list[str]:
        """The brokers enabled for this program (always on, detected from its includes, or named)."""
        from .stubtable import enabled_brokers

        return [b.name for b in enabled_brokers(self)]

    def enable_broker(self, name: str) -> None:
        """Enable broker ``name`` for this program (``--broker NAME``) and resolve again."""
        from .brokers import BROKERS

        BROKERS.check([name])
        if name not in self._stubs.explicit:
            self._stubs.explicit.append(name)
        self._resolve_stubs(retry_unknown=True)

    def used_stubs(self) -> list[Stub]:
        """The stubs the program's own functions reach through calls."""
        from .stubtable import used_stubs

        return used_stubs(self)

    def link_requirements(self, target: str = "cpu") -> Implementation:
        """What the libraries the program uses need at build time on ``target``."""
        from .brokers import link_requirements

        return link_requirements(self, target)

    def function_names(self) -> list[str]:
        """Every function defined in the workspace, library stubs included."""
        return self._all_module_names()

    def is_cached(self, resource: str, owner: Any = None) -> bool:
        """Whether ``resource`` of ``owner`` is cached and still valid (nothing is computed)."""
        return self.rm.is_cached(resource, self if owner is None else owner)

    @property
    def generated_labels(self) -> frozenset[str]:
        """The loop labels passman generated (hidden when code is printed)."""
        return frozenset(self._labels.auto)

    def resource(self, name: str, owner: Any = None) -> Any:
        """The value of resource ``name`` for ``owner`` (default: the program)."""
        return self.rm.get(name, self if owner is None else owner)

    def activate(self, analysis_name: str) -> None:
        """Choose the analysis that computes its resource from now on."""
        self.rm.activate(analysis_name)

    @property
    def computations(self):
        """How many times each resource has been computed (a ``Counter``)."""
        return self.rm.computations

    def warn(self, message: str) -> None:
        """Record a warning in :attr:`warnings` and give it as a :class:`~passman.PassmanWarning`.

        Once per workspace and message. A message ``file:line:col: warning:
        text`` is located at that line of the C file (the command line prints
        it as it is; other messages as ``passman: warning: text``).
        """
        if message not in self.warnings:
            self.warnings.append(message)
            warn(message)

    # -- applying passes ---------------------------------------------------------------
    def _pass_names(self, scope: str) -> list[str]:
        return [n for n, p in self.registry.passes.items() if p.scope == scope]

    def _pass_method(self, name: str, target: Any) -> Callable[..., Any]:
        info = self.registry.passes.get(name)
        if info is None:
            raise AttributeError(f"{type(target).__name__} has no attribute or pass '{name}'")
        _check_scope(info, target)

        def method(*args: Any, **kwargs: Any) -> Any:
            return self.apply(info.name, target, *args, **kwargs)

        method.__name__ = name
        method.__doc__ = info.doc
        return method

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or "registry" not in self.__dict__:
            raise AttributeError(name)
        return self._pass_method(name, self)

    def _resolve_target(self, target: Any) -> Any:
        if isinstance(target, (Module, Loop, CompilationUnit)) or target is self:
            return target
        if isinstance(target, tuple) and len(target) == 2:
            kind, name = target
            if kind == "program":
                return self
            if kind == "module":
                return self[name]
            if kind == "loop":
                return self[name[0]].loop(name[1])
            if kind == "unit":
                return self.cu[name]
        if isinstance(target, str):
            return self[target]
        raise InvalidInput(f"error: cannot apply a pass to {target!r}")

    def _target_id(self, target: Any) -> tuple[str, Any]:
        if target is self:
            return ("program", None)
        if isinstance(target, Module):
            return ("module", target.name)
        if isinstance(target, Loop):
            return ("loop", (target.module.name, target.label))
        return ("unit", target.name)

    def _touch(self, name: str) -> None:
        if not self._txns:
            raise InternalError(f"module {name} modified outside a transformation")
        if Module(self, name).is_stub:
            raise PassFailed(f"{name} is a library model (stub) and is never transformed")
        for txn in self._txns:
            txn.touch(name)

    def apply(self, pass_name: str, target: Any = None, *args: Any, **kwargs: Any) -> Any:
        """Apply pass ``pass_name`` to ``target`` (a Module, Loop, unit or the workspace).

        Keyword arguments are properties set for this call only. A
        transformation is a transaction: on any exception the workspace is as
        before. A transformation that changes nothing raises :class:`PassFailed`.

        With a text alone that is not the name of a program-level pass,
        ``ws.apply("auto_schedule{fusion=max},ompify_code?")`` runs a textual
        pipeline (:meth:`apply_pipeline`).
        """
        if target is None and not args and not kwargs and not self._is_program_pass(pass_name):
            return self.apply_pipeline(pass_name)
        info = self.registry.get_pass(pass_name)
        target = self._resolve_target(self if target is None else target)
        _check_scope(info, target)
        bound = info.bind(args, kwargs)
        values = self._scoped_values(info, bound)
        if info.kind == "analysis":
            return self.rm.get(info.provides, target)
        return self._run_transformation(info, target, bound, values)

    def _is_program_pass(self, name: str) -> bool:
        info = self.registry.passes.get(name)
        return info is not None and info.scope == "program"

    def apply_pipeline(self, text: str, *, function: str | None = None) -> bool:
        """Run a textual pipeline (``docs/pipelines.md``); whether it changed the code.

        ``function`` restricts it to one function (``module.apply(text)``).
        A malformed pipeline raises :class:`InvalidInput` naming the column
        before any pass runs; a step that refuses without ``?`` raises
        :class:`PassFailed` naming the step (the steps before it stay applied).
        """
        return run_pipeline(self, text, function=function)

    # -- instrumentation ------------------------------------------------------------------
    def instrument(self, instrumentation: Instrumentation) -> Instrumentation:
        """Call ``instrumentation``'s hooks around every pass and analysis computation from now on.

        Clones and checkpoints taken afterwards share it (their passes are
        part of the same compilation); returns it.
        """
        self.instruments.append(instrumentation)
        return instrumentation

    def uninstrument(self, instrumentation: Instrumentation) -> None:
        """Stop calling ``instrumentation``'s hooks (clones keep theirs); no-op if not registered."""
        if instrumentation in self.instruments:
            self.instruments.remove(instrumentation)

    def stat(self, name: str, amount: int = 1) -> None:
        """Report a counter of the running pass (``module.ws.stat("loops tiled")``).

        The instrumentations receive it (``passman run --stats`` sums them per
        pass, dropping those of a pass that refused); without one it costs a
        test.
        """
        if self.instruments:
            call = self._calls[-1] if self._calls else None
            for inst in self.instruments:
                inst.on_stat(call, name, amount)

    def describe(self, target: Any) -> str:
        """``function f``, ``loop l3 of f``, ``unit u`` or ``the program``."""
        return _describe(target)

    def _scoped_values(self, info: PassInfo, bound: dict[str, Any]) -> dict[str, Any]:
        values: dict[str, Any] = {}
        for p in info.params:
            short = info.param_name(p)
            raw = bound[short] if short in bound else getattr(self.props, p.name)
            values[short] = p.convert(raw) if short in bound else raw
        if info.varargs is not None:
            raw = bound.get("*", getattr(self.props, info.varargs.name))
            values["*"] = info.varargs.convert(raw)
        return values

    def _step_options(self, info: PassInfo, bound: dict, values: dict, props: dict) -> tuple:
        """What a call runs with that a fresh workspace would not give it (:attr:`Step.options`)."""
        out: dict[str, Any] = {}
        own = [(info.param_name(p), p, info.param_name(p)) for p in info.params]
        if info.varargs is not None:
            own.append((info.param_name(info.varargs), info.varargs, "*"))
        for short, p, key in own:
            if key in values and (key in bound or not _is_default(p, values[key])):
                out[short] = values[key]
        for name, value in props.items():
            p = self.registry.properties.get(name)
            if p is not None and p.owner is None and not _is_default(p, value):
                out[name] = value
        return tuple(sorted(out.items()))

    def _run_transformation(self, info: PassInfo, target: Any, bound: dict, values: dict) -> Any:
        saved = dict(self.props._values)
        for p in info.params:
            self.props._values[p.name] = values[info.param_name(p)]
        step_args = tuple(sorted((k, v) for k, v in bound.items() if k != "*"))
        if "*" in bound:
            step_args = (("*", values["*"]),) + step_args
        options = self._step_options(info, bound, values, saved)
        depth = len(self._txns)
        call = self._before_pass(info, target, step_args, depth) if self.instruments else None
        txn = _Transaction(self)
        self._txns.append(txn)
        start = time.perf_counter()
        error = None
        failure: BaseException | None = None
        changed = False
        try:
            if isinstance(target, Module):
                self._touch(target.name)
            elif isinstance(target, Loop):
                target.site  # noqa: B018 - raise InvalidInput early for a stale label
                self._touch(target.module.name)
            for req in info.requires:
                self.rm.get(req, target)
            posargs = values.pop("*", ())
            result = info.func(target, *posargs, **values)
            self._txns.pop()
            changed = txn.commit(info.preserves)
            if not changed and info.changes_code:
                self._txns.append(txn)
                raise PassFailed(f"{info.name} changed nothing on {_describe(target)}", pass_name=info.name)
            if changed and not self._txns:
                self._resolve_stubs(txn.changed_modules)  # calls the pass introduced
            return result
        except PassmanError as err:
            if self._txns and self._txns[-1] is txn:
                self._txns.pop()
                txn.rollback()
            error = str(err)
            if isinstance(err, PassFailed) and err.pass_name is None:
                err.pass_name = info.name
            failure = err
            raise
        except RecursionError as err:
            self._abort(txn)
            error = "recursion too deep"
            failure = InternalError(f"pass {info.name} recursed too deeply on {_describe(target)}")
            raise failure from err
        except Exception as err:
            self._abort(txn)
            error = repr(err)
            failure = InternalError(f"pass {info.name} crashed on {_describe(target)}: {err!r}")
            raise failure from err
        except BaseException as err:  # KeyboardInterrupt: recorded, not handled
            failure = err
            raise
        finally:
            self.props._values.clear()
            self.props._values.update(saved)
            seconds = time.perf_counter() - start
            self.history.steps.append(
                Step(info.name, self._target_id(target), step_args, changed and error is None,
                     seconds, error, options, depth)
            )
            if call is not None:
                self._after_pass(call, changed and error is None, seconds, failure)

    def _before_pass(self, info: PassInfo, target: Any, args: tuple, depth: int) -> PassCall:
        call = PassCall(info.name, target, _describe(target), args, depth,
                        self._calls[-1] if self._calls else None, self)
        self._calls.append(call)
        for inst in list(self.instruments):
            inst.before_pass(call)
        return call

    def _after_pass(self, call: PassCall, changed: bool, seconds: float, failure: BaseException | None) -> None:
        if self._calls and self._calls[-1] is call:
            self._calls.pop()
        for inst in list(self.instruments):
            if failure is None:
                inst.after_pass(call, changed, seconds)
            else:
                inst.after_pass_failed(call, failure, seconds)

    def _abort(self, txn: _Transaction) -> None:
        if self._txns and self._txns[-1] is txn:
            self._txns.pop()
        txn.rollback()

    def fixpoint(self, *steps: Callable[[], Any], max_rounds: int = 1000) -> int:
        """Repeat ``steps`` (callables, run in order) until one raises :class:`PassFailed`.

        The PyPS idiom ``try: while True: a(); b()  except: pass`` as a call;
        returns the number of complete rounds.
        """
        rounds = 0
        try:
            while rounds < max_rounds:
                for step in steps:
                    step()
                rounds += 1
        except PassFailed:
            return rounds
        raise PassFailed(f"no fix point after {max_rounds} rounds")

    def _set_module_code(self, name: str, text: str) -> None:
        info = self.registry.passes.get("__set_code__") or _SET_CODE
        self._run_transformation(info, self[name], {"code": "<text>"}, {"text": text})

    # -- state: checkpoints and clones ----------------------------------------------------
    def checkpoint(self) -> Any:
        """Save the program and its analyses; ``restore(token)`` goes back to it."""
        snap = self.clone()
        return snap

    def restore(self, token: Workspace) -> None:
        """Go back to a state saved by :meth:`checkpoint` (the token stays reusable)."""
        if not isinstance(token, Workspace):
            raise InvalidInput("error: not a checkpoint token")
        other = token.clone()
        self._units = {n: cu._copy_for(self) for n, cu in other._units.items()}
        self._versions = dict(other._versions)
        self._clock = max(self._clock, other._clock) + 1
        self._owned = {}
        self._index = None
        self._labels = other._labels.copy()
        self.rm = other.rm.copy_for(self)
        self.props = other.props._copy_for(self)
        self.history = other.history.copy()
        self._stubs = other._stubs.copy()

    def clone(self) -> Workspace:
        """An independent copy, cheap enough for hundreds in a search.

        Top-level nodes are shared until one side modifies them (copy on
        write), cached analyses are shared as long as they stay valid.
        """
        new = Workspace.__new__(Workspace)
        new.registry = self.registry
        new.name = self.name
        new.cppflags = list(self.cppflags)
        new.build_flags = self.build_flags.copy()
        new.verbose = self.verbose
        new._clock = self._clock
        new._versions = dict(self._versions)
        new._units = {n: cu._copy_for(new) for n, cu in self._units.items()}
        new._owned = {}
        self._owned = {}
        new._index = None
        new._labels = self._labels.copy()
        new._txns = []
        new.rm = self.rm.copy_for(new)
        new.props = self.props._copy_for(new)
        new.history = self.history.copy()
        new.instruments = list(self.instruments)
        new._calls = []
        new.build_result = None
        new.warnings = list(self.warnings)
        new._stubs = self._stubs.copy()
        new._stubs_deferred = False
        return new

    # -- output ---------------------------------------------------------------------------
    def save(self, directory: str | os.PathLike[str]) -> list[Path]:
        """Write the transformed sources (and the user's headers) into ``directory``.

        The directory is replaced atomically; input files are never touched.
        Returns the paths of the written C files.
        """
        from .fsutil import atomic_directory

        dest = Path(directory)
        for cu in self._units.values():
            if cu.path is not None and _same_dir(cu.path.parent, dest):
                raise InvalidInput(f"error: output folder {dest} holds the input {cu.path}")
        written: list[Path] = []
        names = self._output_names()
        texts = {names[cu.name]: cu.code for cu in self._units.values() if not cu.is_stub}
        try:
            with atomic_directory(dest) as tmp:
                for fname, text in texts.items():
                    (Path(tmp) / fname).write_text(text)
                    written.append(dest / fname)
                for cu in self._units.values():
                    for h in cu.local_headers:
                        target = Path(tmp) / h.name
                        if not target.exists():
                            shutil.copyfile(h, target)
        except FileExistsError as err:
            raise InvalidInput(f"{dest}: error: {err.strerror or err}") from None
        except OSError as err:
            raise InvalidInput(f"{dest}: error: cannot write output: {err.strerror or err}") from None
        return written

    def _output_names(self) -> dict[str, str]:
        out, used = {}, set()
        for cu in self._units.values():
            fname = cu.filename
            if fname in used:
                fname = f"{cu.name}.c"
            used.add(fname)
            out[cu.name] = fname
        return out

    def render(self, backend: str, directory: str | os.PathLike[str], **options: Any):
        """Write the program for ``backend`` into ``directory`` with its Makefile; return the build plan.

        The plan is the backend's, plus :attr:`build_flags` (the user's
        ``-I``/``-D``/``-U``, ``CFLAGS``, ``LDLIBS``, extra sources).
        """
        from .builder import write_makefile

        be = self._backend(backend)()
        plan = self.build_flags.apply(be.render(self, Path(directory), **options))
        write_makefile(plan, Path(directory))
        return plan

    def _backend(self, name: str) -> Any:
        if name not in self.registry.backends:
            known = ", ".join(sorted(self.registry.backends)) or "none"
            raise InvalidInput(f"error: unknown backend '{name}' (known: {known})")
        return self.registry.backends[name]

    def build(self, backend: str = "c", directory: str | os.PathLike[str] | None = None, **options: Any):
        """Render the program with ``backend`` into ``directory``, write its Makefile and compile.

        Returns the builder's result (``.binary`` is the executable).
        """
        from .builder import compile as compile_plan

        self._backend(backend)  # an unknown one is refused before a folder is made
        if directory is None:
            directory = Path(tempfile.mkdtemp(prefix=f"passman-{self.name}-"))
        plan = self.render(backend, directory, **options)
        self.build_result = compile_plan(plan, Path(directory))
        return self.build_result

    def run(self, args: Iterable[str] = (), **kwargs: Any):
        """Run the binary of the last :meth:`build` (building with the C backend if none)."""
        from .builder import run as run_binary

        if self.build_result is None:
            self.build()
        return run_binary(self.build_result.binary, list(args), **kwargs)

    def __repr__(self) -> str:
        units = [cu for cu in self._units.values() if not cu.is_stub]
        n = sum(1 for cu in units for node in cu.ast.ext if isinstance(node, c_ast.FuncDef))
        files = ", ".join(cu.filename for cu in units) or "no file"
        return f"<Workspace {self.name}: {files}; {n} function{'' if n == 1 else 's'}>"


def _is_default(p: Property, value: Any) -> bool:
    """Whether ``value`` is property ``p``'s default (as given, or converted to its type)."""
    if value == p.default:
        return True
    try:
        return value == p.convert(p.default)
    except InvalidInput:
        return False


def _same_function_slot(a: c_ast.Node, b: c_ast.Node) -> bool:
    """Whether two top-level nodes are the same function (one replaced by a new version)."""
    return (
        isinstance(a, c_ast.FuncDef) and isinstance(b, c_ast.FuncDef) and func_name(a) == func_name(b)
    )


def _describe(target: Any) -> str:
    if isinstance(target, Loop):
        return f"loop {target.label} of {target.module.name}"
    if isinstance(target, Module):
        return f"function {target.name}"
    if isinstance(target, CompilationUnit):
        return f"unit {target.name}"
    return "the program"


def _same_dir(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False


def _label_nodes(node: c_ast.Node) -> list[c_ast.Label]:
    from .astutil import find_all

    return find_all(node, c_ast.Label)


def _labels_in(node: c_ast.Node) -> list[str]:
    return [lab.name for lab in _label_nodes(node)]


def _coord_key(node: c_ast.Node) -> tuple[int, int]:
    c = node.coord
    return (getattr(c, "line", 0) or 0, getattr(c, "column", 0) or 0)


def _set_code(module: Module, text: str) -> None:
    """Replace a function by new C text (``module.code = text``)."""
    ws = module.ws
    cu = module.cu
    context = [n for n in cu.ast.ext if not isinstance(n, c_ast.FuncDef) and cu.is_own(n)]
    from .printer import to_c

    prelude = "\n".join(cu.macros)
    decls = to_c(c_ast.FileAST(context)) if context else ""
    tag = f"<code of {module.name}>"
    source = f'{prelude}\n{decls}\n#line 1 "{tag}"\n{text}\n'
    tmp = Path(tempfile.mkdtemp(prefix="passman-code-"))
    try:
        f = tmp / (cu.filename if cu.path else "unit.c")
        f.write_text(source)
        flags = list(ws.cppflags)
        if cu.path is not None:
            flags += ["-I", str(cu.path.parent)]
        pre = frontend.preprocess(f, flags)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ast = frontend.parse_text(pre, tag)
    funcs = [n for n in ast.ext if isinstance(n, c_ast.FuncDef) and n.decl.coord and n.decl.coord.file == tag]
    if len(funcs) != 1 or func_name(funcs[0]) != module.name:
        got = ", ".join(func_name(f) for f in funcs) or "none"
        raise InvalidInput(f"error: the new code of {module.name} must define exactly that function (got: {got})")
    new = funcs[0]
    # coordinates of the new text point into the module's own file
    for lab in _labels_in(new):
        ws._labels.taken.add(lab)
    _retarget_coords(new, cu.coord_name)
    ws._replace_funcdef(module.name, new)
    ws._owned[id(new)] = new
    ws._ensure_labels(module.name)


def _retarget_coords(node: c_ast.Node, fname: str | None) -> None:
    from pycparser.c_parser import Coord

    from .astutil import walk

    for n in walk(node):
        c = n.coord
        if c is not None:
            n.coord = Coord(fname, c.line, c.column)


_SET_CODE = PassInfo(
    name=SET_CODE, func=_set_code, kind="transformation", scope="module",
    params=[], doc="Replace a function by new C text.",
)
