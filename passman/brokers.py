"""The stubs broker: library models for the analyses, real implementations for the builder.

Interprocedural analyses need a body for every function a program calls.
Library functions have none, so a *broker* supplies a **stub**: C code with
the function's signature whose body models its memory effects (on its
arguments and on library-internal state, spelled as global or static
variables), plus metadata: the header that declares it, whether it is pure,
declarative facts for the analyses (:attr:`Stub.model`) and, per target
(``cpu``, ``openmp``, ``cuda``, ``opencl``), the real implementation: extra
sources, compile flags and link flags (:class:`Implementation`).

One broker per *feature*, not per library: the ``fftw`` broker models FFTW on
every target, and maps it to FFTW on the CPU and to cuFFT on CUDA.

The handler (:func:`find_stub`) asks the registered brokers in order; the
first answer wins. Brokers register with :func:`register_broker`: from a
``passman.brokers`` entry point (a module whose import registers them), from
``stubs/<feature>/manifest.toml`` files (:class:`ManifestBroker`, see
:func:`register_manifests`), or from a recipe at run time.

The workspace resolves stubs eagerly (see :mod:`passman.stubtable`): every
called function with no definition is looked up in the *enabled* brokers
(those marked ``always``, those detected from the program's ``#include``
lines, and those named with ``--broker``/``Workspace(brokers=[...])``).
"""

from __future__ import annotations

import fnmatch
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InvalidInput
from .stubcache import defined_names

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

if TYPE_CHECKING:
    from .builder import BuildPlan

#: The targets a stub may have an implementation for.
TARGETS = ("cpu", "openmp", "cuda", "opencl")

#: Names of the helpers and state of stub code: modelled by no broker, never listed.
HELPER_PREFIX = "__passman_"

_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


# ---------------------------------------------------------------------------
# What a broker answers
# ---------------------------------------------------------------------------


def _union(*lists: Iterable[Any]) -> list[Any]:
    out: list[Any] = []
    for items in lists:
        for x in items:
            if x not in out:
                out.append(x)
    return out


@dataclass
class Implementation:
    """The real code behind some stubs for one target.

    ``sources`` are extra files to compile with the program (``.c`` with the
    C compiler, ``.cu`` with nvcc), ``cppflags``/``cflags`` go to the
    compilers, ``ldflags`` before the objects and ``libs`` after them at link
    time, ``headers`` are the headers the program includes to call them,
    ``files`` are files copied beside the sources and not compiled (the
    implementation's own headers; ``-Ipassman_lib`` finds them).
    ``unavailable`` says why there is no implementation for the target (the
    build refuses with that message).
    """

    sources: list[Path] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    cppflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    libs: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)
    unavailable: str | None = None

    @property
    def available(self) -> bool:
        """Whether the target has an implementation."""
        return self.unavailable is None

    def merged(self, *others: Implementation) -> Implementation:
        """The union of this implementation and ``others`` (order kept, duplicates dropped)."""
        every = (self, *others)
        why = [i.unavailable for i in every if i.unavailable]
        return Implementation(
            sources=_union(*(i.sources for i in every)),
            cflags=_union(*(i.cflags for i in every)),
            cppflags=_union(*(i.cppflags for i in every)),
            ldflags=_union(*(i.ldflags for i in every)),
            libs=_union(*(i.libs for i in every)),
            headers=_union(*(i.headers for i in every)),
            files=_union(*(i.files for i in every)),
            unavailable="; ".join(_union(why)) or None,
        )


@dataclass
class Stub:
    """A broker's model of one library function.

    Attributes:
        name: the function.
        code: C text defining it (and any helper it calls, and the
            library-internal state it touches as global/static variables).
            Stubs whose ``code`` is the same text share one compilation unit,
            so their static state is shared too.
        broker: the name of the broker that answered.
        header: the header that declares the function (``"fftw3.h"``).
        targets: the real implementation per target (see :data:`TARGETS`);
            a target with no entry uses the ``cpu`` one.
        pure: the function writes nothing visible to its caller (no argument
            pointee, no global or library state); it may read its arguments
            and what they point to. Calls to it never conflict.
        model: declarative facts for the analyses, beyond what the body says
            (documented in ``docs/brokers.md``): ``captures`` (a plan-creating
            call records arrays in library state), ``executes_plan``,
            ``varargs`` (``"read"``/``"write"`` through variadic pointers),
            ``allocates``, ``frees``, ``noreturn``, ``state``, ``calls``.
        origin: the file ``code`` was read from (its relative ``#include``
            lines resolve there); None for code built in memory.
        include_dirs: folders of model headers the code is parsed against.
    """

    name: str
    code: str = field(repr=False)
    broker: str = ""
    header: str | None = None
    targets: dict[str, Implementation] = field(default_factory=dict)
    pure: bool = False
    model: dict[str, Any] = field(default_factory=dict)
    origin: Path | None = None
    include_dirs: list[Path] = field(default_factory=list)

    def implementation(self, target: str = "cpu") -> Implementation:
        """The implementation for ``target`` (the ``cpu`` one when it has none of its own)."""
        if target not in TARGETS:
            raise InvalidInput(f"error: unknown target '{target}' (known: {', '.join(TARGETS)})")
        return self.targets.get(target) or self.targets.get("cpu") or Implementation()


# ---------------------------------------------------------------------------
# Brokers
# ---------------------------------------------------------------------------


class Broker:
    """A source of stubs for one feature. Subclass it and override what you need.

    ``name`` is what users type (``--broker fftw``); ``feature`` what it
    models (``"fft"``). A broker is enabled for a program when ``always`` is
    true, when :meth:`detect` recognises one of the program's includes, or
    when it is named explicitly.
    """

    name: str = ""
    feature: str = ""
    description: str = ""
    #: enabled for every program (libc, libm)
    always: bool = False
    #: headers whose inclusion enables the broker (``("fftw3.h",)``)
    detect_includes: tuple[str, ...] = ()

    def functions(self) -> list[str]:
        """The functions this broker models (for listings)."""
        return []

    def stub(self, name: str) -> Stub | None:
        """The stub of ``name``, or None when this broker does not model it."""
        return None

    def include_dirs(self) -> list[Path]:
        """Folders of model headers, added to every preprocessing run."""
        return []

    def detect(self, includes: list[str]) -> bool:
        """Whether a program including ``includes`` (header names) uses this library."""
        return any(_include_matches(inc, pat) for inc in includes for pat in self.detect_includes)

    def implementation(self, target: str = "cpu") -> Implementation:
        """What every use of this broker needs on ``target`` (stubs may add more)."""
        return Implementation()

    def full_implementation(self, target: str = "cpu") -> Implementation:
        """What a program using every function of this broker needs on ``target``."""
        return self.implementation(target)

    def targets(self) -> list[str]:
        """The targets with an implementation."""
        return [t for t in TARGETS if self.full_implementation(t).available]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


def _include_matches(include: str, pattern: str) -> bool:
    return include == pattern or include.endswith("/" + pattern) or fnmatch.fnmatchcase(include, pattern)


def includes_of(source_lines: Iterable[str]) -> list[str]:
    """The header names of the ``#include`` lines among ``source_lines``."""
    out = []
    for line in source_lines:
        m = _INCLUDE.match(line)
        if m:
            out.append(m.group(1))
    return out


# ---------------------------------------------------------------------------
# Declarative brokers: stubs/<feature>/manifest.toml
# ---------------------------------------------------------------------------


@dataclass
class _Group:
    """One ``[[stubs]]`` entry of a manifest: a C file and the functions it models."""

    file: Path
    patterns: list[str]
    pure: list[str]
    header: str | None
    targets: dict[str, Implementation]


class ManifestBroker(Broker):
    """A broker described by a ``manifest.toml`` (see ``docs/brokers.md`` for the format).

    Stub files are parsed only when one of their functions is asked for.
    """

    def __init__(self, path: str | Path):
        self.path = Path(path).resolve()
        self.root = self.path.parent
        try:
            data = tomllib.loads(self.path.read_text())
        except (OSError, tomllib.TOMLDecodeError) as err:
            raise InvalidInput(f"{self.path}: error: bad broker manifest: {err}") from None
        self._data = data
        self.name = str(data.get("name") or self.root.name)
        self.feature = str(data.get("feature", self.name))
        self.description = str(data.get("description", ""))
        self.always = bool(data.get("always", False))
        self.detect_includes = tuple(self._strings(data, "detect"))
        self.header = data.get("header")
        self._include = [self.root / d for d in self._strings(data, "include")]
        self._like: dict[str, str] = {}  # target -> the target it shares its implementation with
        self._targets = self._read_targets(data.get("targets", {}), "targets")
        self._model = data.get("model", {})
        self._groups = []
        for k, g in enumerate(data.get("stubs", [])):
            where = f"stubs[{k}]"
            if "file" not in g:
                raise InvalidInput(f"{self.path}: error: {where} has no 'file'")
            pure = g.get("pure", False)
            self._groups.append(_Group(
                file=self.root / g["file"],
                patterns=self._strings(g, "functions") or ["*"],
                pure=["*"] if pure is True else [] if pure is False else self._strings(g, "pure"),
                header=g.get("header", self.header),
                targets=self._read_targets(g.get("targets", {}), f"{where}.targets"),
            ))
        self._stubs: dict[str, Stub | None] = {}

    def _strings(self, table: dict, key: str) -> list[str]:
        value = table.get(key, [])
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InvalidInput(f"{self.path}: error: '{key}' must be a string or a list of strings")
        return list(value)

    def _read_targets(self, table: dict, where: str) -> dict[str, Implementation]:
        out: dict[str, Implementation] = {}
        for target, spec in table.items():
            if target not in TARGETS:
                raise InvalidInput(f"{self.path}: error: {where}: unknown target '{target}' "
                                   f"(known: {', '.join(TARGETS)})")
            if "like" in spec:
                continue  # resolved below, once every target is read
            out[target] = Implementation(
                sources=[self.root / s for s in self._strings(spec, "sources")],
                cflags=self._strings(spec, "cflags"),
                cppflags=self._strings(spec, "cppflags"),
                ldflags=self._strings(spec, "ldflags"),
                libs=self._strings(spec, "libs"),
                headers=self._strings(spec, "headers"),
                files=[self.root / f for f in self._strings(spec, "files")],
                unavailable=spec.get("unavailable"),
            )
        for target, spec in table.items():
            if "like" in spec:
                if spec["like"] not in out:
                    raise InvalidInput(f"{self.path}: error: {where}.{target}: like = "
                                       f"'{spec['like']}' names no target described here")
                out[target] = out[spec["like"]]
                self._like[target] = spec["like"]
        return out

    # -- the Broker protocol ------------------------------------------------------------
    def include_dirs(self) -> list[Path]:
        return list(self._include)

    def implementation(self, target: str = "cpu") -> Implementation:
        return self._targets.get(target) or self._targets.get("cpu") or Implementation()

    def full_implementation(self, target: str = "cpu") -> Implementation:
        return self.implementation(target).merged(*(self._group_impl(g, target) for g in self._groups))

    def _group_impl(self, group: _Group, target: str) -> Implementation:
        """A stub file's own additions for ``target``: its entry, else that of the target
        the broker says it is like, else (when the broker has no entry either) its cpu one."""
        if target in group.targets:
            return group.targets[target]
        if target in self._like:
            return self._group_impl(group, self._like[target])
        if target != "cpu" and target not in self._targets:
            return self._group_impl(group, "cpu")
        return Implementation()

    def functions(self) -> list[str]:
        names: list[str] = []
        for g in self._groups:
            names += [n for n in defined_functions(g.file, self._include)
                      if _matches(n, g.patterns) and not n.startswith(HELPER_PREFIX)]
        return list(dict.fromkeys(names))

    def stub(self, name: str) -> Stub | None:
        if name in self._stubs:
            return self._stubs[name]
        found = None
        for g in [] if name.startswith(HELPER_PREFIX) else self._groups:
            if _matches(name, g.patterns) and name in defined_functions(g.file, self._include):
                found = self._make_stub(name, g)
                break
        self._stubs[name] = found
        return found

    def _make_stub(self, name: str, g: _Group) -> Stub:
        model: dict[str, Any] = {}
        for pattern, facts in self._model.items():
            if fnmatch.fnmatchcase(name, pattern):
                model.update(facts)
        targets = {t: self.implementation(t).merged(self._group_impl(g, t)) for t in TARGETS}
        return Stub(
            name=name, code=_read_text(g.file), broker=self.name, header=g.header,
            targets=targets, pure=_matches(name, g.pure), model=model, origin=g.file,
            include_dirs=list(self._include),
        )


def _matches(name: str, patterns: list[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, p) for p in patterns)


_TEXTS: dict[Path, str] = {}


def _read_text(path: Path) -> str:
    if path not in _TEXTS:
        try:
            _TEXTS[path] = path.read_text()
        except OSError as err:
            raise InvalidInput(f"{path}: error: cannot read stub file: {err.strerror}") from None
    return _TEXTS[path]


def defined_functions(path: Path, include_dirs: Iterable[Path] = ()) -> list[str]:
    """The functions a stub C file defines (parsed once, then cached on disk)."""
    return defined_names(_read_text(path), path, list(include_dirs))


# ---------------------------------------------------------------------------
# The handler
# ---------------------------------------------------------------------------


class BrokerRegistry:
    """The registered brokers, in the order the handler asks them."""

    def __init__(self) -> None:
        self._brokers: list[Broker] = []

    def register(self, broker: Broker, *, replace: bool = False) -> Broker:
        """Add ``broker`` (after those already registered); its header folders join the front end.

        A broker whose name is taken is refused unless ``replace`` is true (it
        then takes the place of the old one in the order).
        """
        from .frontend import register_include_dir

        if not broker.name:
            raise InvalidInput(f"error: broker {broker!r} has no name")
        old = self.get(broker.name)
        if old is not None and not replace:
            raise InvalidInput(f"error: a broker named '{broker.name}' is already registered")
        for d in broker.include_dirs():
            register_include_dir(d)
        if old is not None:
            self._brokers[self._brokers.index(old)] = broker
        else:
            self._brokers.append(broker)
        return broker

    def unregister(self, name: str) -> None:
        """Remove the broker called ``name`` (its header folders stay registered)."""
        self._brokers = [b for b in self._brokers if b.name != name]

    def get(self, name: str) -> Broker | None:
        """The broker called ``name``, or None."""
        return next((b for b in self._brokers if b.name == name), None)

    def names(self) -> list[str]:
        """Broker names, in order."""
        return [b.name for b in self._brokers]

    def __iter__(self) -> Iterator[Broker]:
        return iter(list(self._brokers))

    def __len__(self) -> int:
        return len(self._brokers)

    def check(self, names: Iterable[str]) -> list[str]:
        """``names`` if they are all registered brokers; otherwise one clear error."""
        names = list(names)
        for n in names:
            if self.get(n) is None:
                known = ", ".join(self.names()) or "none"
                raise InvalidInput(f"error: unknown broker '{n}' (known: {known})")
        return names

    def find_stub(self, name: str, enabled: Iterable[str] | None = None) -> Stub | None:
        """Ask the brokers (only those named in ``enabled``, when given) in order; first answer wins."""
        allowed = None if enabled is None else set(enabled)
        for b in self._brokers:
            if allowed is not None and b.name not in allowed:
                continue
            stub = b.stub(name)
            if stub is not None:
                if not stub.broker:
                    stub.broker = b.name
                return stub
        return None


#: The process-wide broker registry.
BROKERS = BrokerRegistry()


def register_broker(broker: Broker, *, replace: bool = False) -> Broker:
    """Register ``broker`` with the handler (see :meth:`BrokerRegistry.register`)."""
    return BROKERS.register(broker, replace=replace)


def unregister_broker(name: str) -> None:
    """Remove a broker from the handler."""
    BROKERS.unregister(name)


def find_stub(name: str, enabled: Iterable[str] | None = None) -> Stub | None:
    """The stub of function ``name`` from the first enabled broker that has one."""
    return BROKERS.find_stub(name, enabled)


def register_manifests(directory: str | Path, *, skip_existing: bool = False) -> list[Broker]:
    """Register a :class:`ManifestBroker` for every ``<directory>/*/manifest.toml``, sorted by folder.

    A manifest may set ``order`` (default 100) to come earlier; with
    ``skip_existing``, a manifest whose broker name is taken is left out.
    """
    brokers = [ManifestBroker(p) for p in sorted(Path(directory).glob("*/manifest.toml"))]
    brokers.sort(key=lambda b: int(b._data.get("order", 100)))
    out = []
    for b in brokers:
        if skip_existing and BROKERS.get(b.name) is not None:
            continue
        out.append(register_broker(b))
    return out


# ---------------------------------------------------------------------------
# The builder's side
# ---------------------------------------------------------------------------


def link_requirements(ws: Any, target: str = "cpu", brokers: tuple[str, ...] = ()) -> Implementation:
    """What the stubs ``ws`` uses need on ``target``: the union of their implementations, and
    those of the ``brokers`` named (code a backend writes calls them: the accelerator runtime).

    Raises :class:`InvalidInput` when a used library has no implementation there.
    """
    impl = Implementation()
    for name in brokers:
        broker = BROKERS.get(name)
        if broker is not None:
            impl = impl.merged(broker.full_implementation(target))
    # libraries every program links (libc, libm) last: the others may depend on them
    always = {b.name for b in BROKERS if b.always}
    for stub in sorted(ws.used_stubs(), key=lambda s: s.broker in always):
        impl = impl.merged(stub.implementation(target))
    if impl.unavailable:
        raise InvalidInput(f"error: no {target} implementation: {impl.unavailable}")
    return impl


def extend_plan(plan: BuildPlan, ws: Any, target: str = "cpu", brokers: tuple[str, ...] = ()) -> BuildPlan:
    """Add the library part of ``ws`` for ``target`` to ``plan`` (in place; returned).

    Implementation sources are copied into the build folder under
    ``passman_lib/`` (``plan.extra_files``), so the output folder stands alone;
    ``.cu`` sources are compiled with nvcc, others with the C compiler.
    """
    from .builder import SourceFile

    impl = link_requirements(ws, target, brokers)
    have = {str(s.path) for s in plan.sources}
    for src in impl.sources:
        rel = f"passman_lib/{src.name}"
        if rel in have:
            continue
        plan.extra_files[rel] = _read_text(src)
        compiler = "nvcc" if src.suffix == ".cu" else "cc"
        plan.sources.append(SourceFile(Path(rel), compiler))
    for f in impl.files:
        plan.extra_files[f"passman_lib/{f.name}"] = _read_text(f)
    plan.cppflags = _union(plan.cppflags, impl.cppflags, ["-Ipassman_lib"] if impl.files else [])
    if impl.cflags:
        plan.cflags = _union(plan.cflags, impl.cflags)
    plan.ldflags = _union(plan.ldflags, impl.ldflags)
    plan.libs = _union(impl.libs, plan.libs)
    return plan


def plan_for(ws: Any, target: str) -> BuildPlan:
    """A build plan holding only the library part of ``ws`` for ``target``.

    For ``cuda`` it lists the wrapper sources (compiled with nvcc) and the
    link flags (``-lcufft``, ``-lcublas``); backends use :func:`extend_plan`.
    """
    from .builder import BuildPlan

    return extend_plan(BuildPlan(sources=[], output=ws.name or "a.out", libs=[]), ws, target)
