"""Declarations of passes and properties, and the registry that holds them.

A pass is a plain Python function with a declaration::

    @transformation(scope="loop", requires=["dependences"], preserves=["callgraph"])
    def unroll(loop, rate: int = 4):
        '''Unroll `loop` by `rate` ...'''

    @analysis(scope="module", provides="callgraph")
    def callgraph(module): ...

The parameters after the first become *properties* named ``<pass>_<param>``
(``unroll_rate``), with the default and type taken from the signature; a
keyword argument at the call sets the property for that call only. Built-in
passes and plugins register through these same decorators.

``requires`` are computed before the pass runs; ``reads`` lists the other
resources it may ask for as it runs (only on some paths, or for other
functions, such as its callees); ``preserves`` the resources still valid
after it changed code. ``tests/test_declarations.py`` checks on the corpus
that every resource a built-in pass reads is declared in one of the first two.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from .errors import InternalError, InvalidInput

SCOPES = ("program", "unit", "module", "loop")


@dataclass
class Property:
    """A named, typed setting with a default and a one-line description.

    A type ``Literal["a", "b"]`` makes an enumerated property: any other value
    is refused when set (``--set``, ``ws.props``, a keyword argument).
    """

    name: str
    type: Any = str
    default: Any = None
    doc: str = ""
    owner: str | None = None  # the pass whose parameter this is

    def convert(self, value: Any) -> Any:
        """Check ``value`` against the property's type; strings (from the CLI) are parsed."""
        return convert_value(self.name, self.type, value)

    @property
    def choices(self) -> tuple[Any, ...] | None:
        """The allowed values of an enumerated property, else None."""
        return typing.get_args(self.type) if typing.get_origin(self.type) is typing.Literal else None


def type_name(tp: Any) -> str:
    """How a property's type reads in listings: ``int``, ``auto|off|diamond``."""
    if typing.get_origin(tp) is typing.Literal:
        return "|".join(str(a) for a in typing.get_args(tp))
    return getattr(tp, "__name__", None) or str(tp).replace("typing.", "")


def convert_value(name: str, tp: Any, value: Any) -> Any:
    """Convert ``value`` to type ``tp`` (int, float, bool, str, tuple[int, ...], Optional)."""
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if tp is Any or tp is None:
        return value
    if origin is typing.Literal:
        if value in args and all(type(a) is type(value) for a in args if a == value):
            return value
        listed = ", ".join(str(a) for a in args)
        raise InvalidInput(f"error: property {name}: {value!r} is not one of {listed}")
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None or (isinstance(value, str) and value.lower() in ("none", "")):
            if type(None) in args:
                return None
        errors = []
        for a in args:
            if a is type(None):
                continue
            try:
                return convert_value(name, a, value)
            except InvalidInput as e:
                errors.append(str(e))
        raise InvalidInput(errors[0] if errors else f"error: bad value {value!r} for property {name}")
    if origin in (tuple, list):
        elem = args[0] if args else Any
        if isinstance(value, str):
            items = [v for v in value.replace(" ", "").split(",") if v != ""]
        elif isinstance(value, Iterable):
            items = list(value)
        else:
            items = [value]
        conv = [convert_value(name, elem, v) for v in items]
        return tuple(conv) if origin is tuple else conv
    if tp is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("1", "true", "yes", "on"):
            return True
        if isinstance(value, str) and value.lower() in ("0", "false", "no", "off"):
            return False
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise InvalidInput(f"error: property {name} expects true or false, got {value!r}")
    if tp is int:
        if isinstance(value, bool):
            raise InvalidInput(f"error: property {name} expects an integer, got {value!r}")
        if isinstance(value, int):
            return value
        if isinstance(value, str):
            try:
                return int(value, 0)
            except ValueError:
                pass
        raise InvalidInput(f"error: property {name} expects an integer, got {value!r}")
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise InvalidInput(f"error: property {name} expects a number, got {value!r}")
    if tp is str:
        if isinstance(value, str):
            return value
        raise InvalidInput(f"error: property {name} expects a string, got {value!r}")
    if isinstance(tp, type) and not isinstance(value, tp):
        raise InvalidInput(f"error: property {name} expects {type_name(tp)}, got {value!r}")
    return value


@dataclass
class PassInfo:
    """The declaration of one registered pass."""

    name: str
    func: Callable[..., Any]
    kind: str  # "analysis" or "transformation"
    scope: str
    requires: tuple[str, ...] = ()
    #: resources the pass may read as it runs, besides ``requires`` (computed first)
    reads: tuple[str, ...] = ()
    provides: str | None = None
    modifies: tuple[str, ...] = ()
    preserves: tuple[str, ...] = ()
    params: list[Property] = field(default_factory=list)
    varargs: Property | None = None
    doc: str = ""
    display: Callable[..., Any] | None = None
    changes_code: bool = True

    def property_rows(self) -> tuple[tuple[str, str, str, str], ...]:
        """``(name, type name, default as written, description)`` of each property."""
        return tuple(
            (p.name, type_name(p.type), repr(p.default), p.doc)
            for p in self.params + ([self.varargs] if self.varargs else [])
        )

    @property
    def summary(self) -> str:
        """First line of the docstring."""
        return self.doc.strip().splitlines()[0] if self.doc.strip() else ""

    def bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        """Map a call's positional and keyword arguments to parameter names."""
        short = {self.param_name(p): p for p in self.params}
        out: dict[str, Any] = {}
        args = list(args)
        for p in self.params:
            if not args:
                break
            out[self.param_name(p)] = args.pop(0)
        if len(args) == 1 and self.varargs is not None and isinstance(args[0], (tuple, list)):
            args = list(args[0])  # loop.tile((32, 32)) as loop.tile(32, 32): the tuple `passman passes` lists
        if args:
            if self.varargs is None:
                raise InvalidInput(
                    f"error: {self.name}() takes {len(self.params)} argument(s), "
                    f"got {len(self.params) + len(args)}"
                )
            out["*"] = tuple(args)
        for k, v in kwargs.items():
            key = k.lower()
            if key.startswith(self.name + "_"):
                key = key[len(self.name) + 1 :]
            if key in out:
                raise InvalidInput(f"error: {self.name}() got two values for {k}")
            if key in short:
                out[key] = v
            elif self.varargs is not None and key == self.param_name(self.varargs):
                out["*"] = v
            else:
                known = ", ".join(sorted(short)) or "none"
                raise InvalidInput(f"error: unknown property '{k}' for pass {self.name} (known: {known})")
        return out

    def param_name(self, p: Property) -> str:
        """The parameter name of property ``p`` (``unroll_rate`` -> ``rate``)."""
        return p.name[len(self.name) + 1 :]


class _Lazy(dict):
    """A table of the registry whose entries may still be in modules not imported yet.

    ``pending`` maps a key to the modules that define it (from the built-in
    passes' manifest, :mod:`passman.passes.manifest`). Looking a key up imports
    its modules first; listing the table imports every pending module.
    Membership needs no import.
    """

    def __init__(self, registry: Registry) -> None:
        super().__init__()
        self.registry = registry
        self.pending: dict[str, list[str]] = {}

    def _resolve(self, key: object) -> None:
        for module in self.pending.pop(key, ()):  # type: ignore[call-overload]
            self.registry.import_module(module)

    def _resolve_all(self) -> None:
        for key in list(self.pending):
            self._resolve(key)

    def __getitem__(self, key: object) -> Any:
        self._resolve(key)
        return super().__getitem__(key)

    def get(self, key: object, default: Any = None) -> Any:
        self._resolve(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        return super().__contains__(key) or key in self.pending

    def __iter__(self):
        self._resolve_all()
        return super().__iter__()

    def __len__(self) -> int:
        self._resolve_all()
        return super().__len__()

    def keys(self):
        self._resolve_all()
        return super().keys()

    def values(self):
        self._resolve_all()
        return super().values()

    def items(self):
        self._resolve_all()
        return super().items()


class Registry:
    """Every known pass, resource producer, property and backend.

    Built-in passes are registered lazily (:meth:`install_manifest`): a pass's
    module is imported the first time the pass, a resource it provides or one
    of its properties is looked up, so that ``passman --help`` and
    ``passman passes`` import no pass module (nor islpy or networkx).
    """

    def __init__(self) -> None:
        self.passes: dict[str, PassInfo] = _Lazy(self)
        self.producers: dict[str, list[PassInfo]] = _Lazy(self)
        self.properties: dict[str, Property] = _Lazy(self)
        self.backends: dict[str, Any] = {}
        #: name -> (kind, scope, summary, property rows) of the passes not imported yet
        self.summaries: dict[str, tuple] = {}
        self._loading: list[str] = []
        #: modules of the built-in passes (from the manifest)
        self._builtin: set[str] = set()

    def install_manifest(self, passes: dict[str, tuple], properties: dict[str, str]) -> None:
        """Register built-in passes by name: ``passes[name] = (module, kind, scope, provides, summary)``.

        A name a plugin registered already keeps the plugin's pass.
        """
        for name, (module, kind, scope, provides, summary, props) in passes.items():
            self._builtin.add(module)
            if dict.__contains__(self.passes, name):
                continue
            self.passes.pending.setdefault(name, []).append(module)
            self.summaries[name] = (kind, scope, summary, tuple(props))
            if provides:
                self.producers.pending.setdefault(provides, []).append(module)
        for prop, module in properties.items():
            if not dict.__contains__(self.properties, prop):
                self.properties.pending.setdefault(prop, []).append(module)

    def import_module(self, module: str) -> None:
        """Import a module of passes (their decorators register them)."""
        if module in self._loading:
            return
        self._loading.append(module)
        try:
            importlib.import_module(module)
        finally:
            self._loading.pop()

    def listing(self) -> list[tuple]:
        """``(name, kind, scope, summary, property rows)`` of every pass, sorted, importing none.

        A property row is ``(name, type name, default as written, description)``.
        """
        rows = {n: (i.kind, i.scope, i.summary, i.property_rows()) for n, i in dict.items(self.passes)}
        for n, row in self.summaries.items():
            rows.setdefault(n, row)
        return [(n, *rows[n]) for n in sorted(rows)]

    def add(self, info: PassInfo) -> None:
        """Register a pass; a second pass of the same name replaces the first.

        Except a built-in pass, imported lazily after a plugin registered a pass
        of the same name: the plugin's stays (as when built-ins were imported
        first and plugins after).
        """
        old = dict.get(self.passes, info.name)
        if (old is not None and info.func.__module__ in self._builtin
                and old.func.__module__ not in self._builtin):
            return
        self.passes.pending.pop(info.name, None)
        self.summaries.pop(info.name, None)
        if old is not None and old.provides:
            dict.__setitem__(self.producers, old.provides,
                             [p for p in dict.get(self.producers, old.provides, []) if p is not old])
        dict.__setitem__(self.passes, info.name, info)
        if info.provides:
            prods = dict.get(self.producers, info.provides)
            if prods is None:
                prods = []
                dict.__setitem__(self.producers, info.provides, prods)
            prods.append(info)
        for p in info.params + ([info.varargs] if info.varargs else []):
            self.properties.pending.pop(p.name, None)
            dict.__setitem__(self.properties, p.name, p)

    def add_property(self, prop: Property) -> None:
        """Register a global property."""
        self.properties.pending.pop(prop.name.lower(), None)
        dict.__setitem__(self.properties, prop.name.lower(), prop)

    def get_pass(self, name: str) -> PassInfo:
        """The pass called ``name``, or :class:`InvalidInput`."""
        try:
            return self.passes[name]
        except KeyError:
            raise InvalidInput(f"error: unknown pass '{name}'") from None

    def producer(self, resource: str, active: dict[str, str] | None = None) -> PassInfo:
        """The analysis that computes ``resource`` (the activated one if several)."""
        prods = self.producers.get(resource)
        if not prods:
            raise InvalidInput(f"error: no analysis provides resource '{resource}'" + self.resource_hint(resource))
        if active and resource in active:
            for p in prods:
                if p.name == active[resource]:
                    return p
        return prods[0]


    def resource_names(self) -> list[str]:
        """Every resource some analysis provides, sorted (importing no pass module)."""
        return sorted(set(dict.keys(self.producers)) | set(self.producers.pending))

    def resource_hint(self, name: str) -> str:
        """``; did you mean 'dependences'? (known: ...)`` for an unknown resource ``name``."""
        names = self.resource_names()
        close = difflib.get_close_matches(name, names, n=1)
        guess = f"; did you mean '{close[0]}'?" if close else ""
        return f"{guess} (known: {', '.join(names)})"


#: The process-wide registry every decorator writes to.
REGISTRY = Registry()


def _properties_of(name: str, func: Callable[..., Any]) -> tuple[list[Property], Property | None]:
    sig = inspect.signature(func)
    try:
        hints = typing.get_type_hints(func)
    except Exception as err:  # noqa: BLE001 - unresolvable annotations are a plugin bug
        raise InternalError(f"pass {name}: cannot resolve type hints: {err}") from err
    params = list(sig.parameters.values())[1:]
    props: list[Property] = []
    varargs = None
    docs = _param_docs(func.__doc__ or "")
    for p in params:
        tp = hints.get(p.name, type(p.default) if p.default is not inspect.Parameter.empty else Any)
        prop_name = f"{name}_{p.name}".lower()
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            varargs = Property(prop_name, tuple[tp, ...], (), docs.get(p.name, ""), name)
            continue
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            continue
        default = None if p.default is inspect.Parameter.empty else p.default
        props.append(Property(prop_name, tp, default, docs.get(p.name, ""), name))
    return props, varargs


def _param_docs(doc: str) -> dict[str, str]:
    """Parameter descriptions from ``name: text`` lines of a docstring's Properties section."""
    out: dict[str, str] = {}
    for line in doc.splitlines():
        s = line.strip()
        if s.startswith("- ") or s.startswith("* "):
            s = s[2:]
        if ":" in s:
            key, _, text = s.partition(":")
            key = key.strip().strip("`")
            if key.isidentifier():
                out.setdefault(key, text.strip())
    return out


def _declare(kind: str, scope: str, **decl: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    if scope not in SCOPES:
        raise InternalError(f"unknown pass scope '{scope}' (one of {', '.join(SCOPES)})")
    registry = decl.pop("registry", None) or REGISTRY

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        name = decl.pop("name", None) or func.__name__
        params, varargs = _properties_of(name, func)
        info = PassInfo(
            name=name,
            func=func,
            kind=kind,
            scope=scope,
            params=params,
            varargs=varargs,
            doc=inspect.getdoc(func) or "",
            **{k: tuple(v) if isinstance(v, (list, tuple)) else v for k, v in decl.items()},
        )
        registry.add(info)
        func.passinfo = info  # type: ignore[attr-defined]
        return func

    return wrap


def transformation(
    scope: str = "module",
    *,
    requires: Iterable[str] = (),
    reads: Iterable[str] = (),
    modifies: Iterable[str] = ("code",),
    preserves: Iterable[str] = (),
    changes_code: bool = True,
    name: str | None = None,
    registry: Registry | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare a transformation pass (see the module docstring)."""
    return _declare(
        "transformation",
        scope,
        requires=tuple(requires),
        reads=tuple(reads),
        modifies=tuple(modifies),
        preserves=tuple(preserves),
        changes_code=changes_code,
        name=name,
        registry=registry,
    )


def analysis(
    scope: str = "module",
    *,
    provides: str | None = None,
    requires: Iterable[str] = (),
    reads: Iterable[str] = (),
    display: Callable[..., Any] | None = None,
    name: str | None = None,
    registry: Registry | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare an analysis: a function computing resource ``provides`` for one owner.

    ``display(module, value)`` may return ``{statement_node: [lines]}`` so that
    ``module.display(resource)`` prints the result as comments.
    """

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        return _declare(
            "analysis",
            scope,
            provides=provides or func.__name__,
            requires=tuple(requires),
            reads=tuple(reads),
            display=display,
            name=name,
            registry=registry,
            changes_code=False,
        )(func)

    return wrap


def register_property(
    name: str, type: Any = str, default: Any = None, doc: str = "", choices: Iterable[Any] | None = None
) -> Property:
    """Register a global property (not tied to one pass).

    ``choices``: its allowed values (the type becomes ``Literal[*choices]``;
    any other value is refused when set).
    """
    if choices is not None:
        type = typing.Literal[tuple(choices)]
    prop = Property(name.lower(), type, default, doc)
    REGISTRY.add_property(prop)
    return prop


def register_backend(name: str, backend: Any) -> None:
    """Register a backend class or factory under ``name`` (``ws.build(name, ...)``)."""
    REGISTRY.backends[name] = backend
