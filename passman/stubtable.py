"""Stub resolution: the library models a workspace uses, found eagerly.

When a workspace is created, and again after every transformation that
changed code, each function called by name with no definition in the
workspace is looked up in the enabled brokers (:mod:`passman.brokers`). A
found stub is parsed (once per process: the parsed trees are shared by every
workspace, which never modify them) and its function joins the workspace in a
compilation unit flagged ``is_stub``; stubs whose code is the same text share
one unit, with the helpers they call. A function nobody models gets one
warning, at its first call site, and the analyses assume the worst for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from .astutil import called_names, func_name, walk
from .brokers import BROKERS, Broker, Stub, includes_of
from .errors import InvalidInput
from .stubcache import ParsedStub, parse_stub_code

if TYPE_CHECKING:
    from .workspace import Workspace

UNKNOWN_WARNING = ("no model for function '{name}'; assuming it reads and writes everything "
                   "reachable from its arguments and globals")


@dataclass
class _Group:
    """The workspace unit holding the stubs parsed from one code text."""

    unit: str
    parsed: ParsedStub
    names: list[str] = field(default_factory=list)

    def nodes(self) -> list[c_ast.Node]:
        keep = set(self.names)
        return [n for n in self.parsed.ast.ext
                if not isinstance(n, c_ast.FuncDef) or func_name(n) in keep]


class StubTable:
    """A workspace's view of the brokers: enabled ones, resolved stubs, unknown functions."""

    def __init__(self, explicit: Iterable[str] = ()):
        #: brokers enabled by name (``--broker``, ``Workspace(brokers=...)``, ``enable_broker``)
        self.explicit: list[str] = list(explicit)
        #: function name -> its stub (helpers included)
        self.stubs: dict[str, Stub] = {}
        #: unknown function -> where it is first called (``file:line:col``)
        self.unknown: dict[str, str] = {}
        self.groups: dict[tuple, _Group] = {}

    def copy(self) -> StubTable:
        """An independent copy (for clones and checkpoints)."""
        new = StubTable(self.explicit)
        new.stubs = dict(self.stubs)
        new.unknown = dict(self.unknown)
        new.groups = {k: dataclasses.replace(g, names=list(g.names)) for k, g in self.groups.items()}
        return new


_HEADER_INCLUDES: dict[Path, list[str]] = {}


def program_includes(ws: Workspace) -> list[str]:
    """Headers the program includes: each unit's ``#include`` lines and those of its own headers."""
    found: list[str] = []
    for cu in ws.compilation_units:
        if cu.is_stub:
            continue
        found += includes_of(cu.directives)
        for h in cu.local_headers:
            if h not in _HEADER_INCLUDES:
                try:
                    _HEADER_INCLUDES[h] = includes_of(h.read_text().splitlines())
                except (OSError, UnicodeDecodeError):
                    _HEADER_INCLUDES[h] = []
            found += _HEADER_INCLUDES[h]
    return list(dict.fromkeys(found))


def enabled_brokers(ws: Workspace) -> list[Broker]:
    """The brokers that answer for ``ws``, in the handler's order."""
    includes = program_includes(ws)
    explicit = set(ws._stubs.explicit)
    return [b for b in BROKERS if b.always or b.name in explicit or b.detect(includes)]


def _where(coord: Any) -> str | None:
    if coord is None or not getattr(coord, "file", None):
        return None
    return f"{coord.file}:{coord.line}:{coord.column}"


def _variables_of_unit(ws: Workspace, unit: str, cache: dict[str, set[str]]) -> set[str]:
    if unit not in cache:
        cache[unit] = {
            n.name for n in ws._units[unit].ast.ext
            if isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl)
        }
    return cache[unit]


def call_sites(fd: c_ast.FuncDef, globals_: set[str] = frozenset()) -> list[tuple[str, str | None]]:
    """``(name, "file:line:col")`` of the direct calls in ``fd`` to names that are not variables.

    A call through a parameter, local or (in ``globals_``) global variable (a
    function pointer) reaches no particular function and is left out.
    """
    calls: list[tuple[str, Any]] = []
    variables: set[str] = set()
    for n in walk(fd):
        if isinstance(n, c_ast.FuncCall):
            if isinstance(n.name, c_ast.ID):
                calls.append((n.name.name, n.coord or n.name.coord))
        elif isinstance(n, c_ast.Decl) and n.name and not isinstance(n.type, c_ast.FuncDecl):
            variables.add(n.name)
    return [(name, _where(coord)) for name, coord in calls
            if name not in variables and name not in globals_]


def resolve(ws: Workspace, modules: Iterable[str] | None = None, *, retry_unknown: bool = False) -> None:
    """Find stubs for the functions called in ``modules`` (default: all) and not defined.

    Found stubs join ``ws`` in stub units; the others are recorded as
    unknown and warned about once. ``retry_unknown`` asks again for the
    functions already known to be unknown (after a broker was enabled).
    """
    table = ws._stubs
    names = list(ws._all_module_names()) if modules is None else list(modules)
    globals_cache: dict[str, set[str]] = {}
    pending: list[tuple[str, str | None]] = []
    provided = {n for g in table.groups.values() for n in g.names}
    for m in names:
        if m not in ws:
            continue
        calls = [c for c in call_sites(ws._funcdef(m)) if c[0] not in provided
                 and c[0] not in ws and (retry_unknown or c[0] not in table.unknown)]
        if calls:  # rare: only then look for global function pointers
            globals_ = _variables_of_unit(ws, ws._index_of(m)[0], globals_cache)
            pending += [c for c in calls if c[0] not in globals_]
    if retry_unknown:
        pending += list(table.unknown.items())
    if not pending:
        return
    enabled: list[str] | None = None
    changed: dict[tuple, _Group] = {}
    warn: list[tuple[str, str | None]] = []
    for name, where in pending:
        if name in provided or name in ws or (name in table.unknown and not retry_unknown):
            continue
        if enabled is None:
            enabled = [b.name for b in enabled_brokers(ws)]
        stub = BROKERS.find_stub(name, enabled)
        if stub is None:
            if name not in table.unknown:
                table.unknown[name] = where or ""
                warn.append((name, where))
            continue
        table.unknown.pop(name, None)
        parsed = parse_stub_code(stub.code, stub.origin, stub.include_dirs)
        if name not in parsed.funcs:
            raise InvalidInput(f"error: broker {stub.broker}: the stub of {name} does not define it")
        key = (stub.code, str(stub.origin), tuple(str(d) for d in stub.include_dirs))
        group = table.groups.get(key)
        if group is None:
            group = table.groups[key] = _Group(_unit_name(ws, stub), parsed)
        table.stubs[name] = stub
        for f in parsed.closure(name):
            if f in provided or f in ws:
                continue
            provided.add(f)
            group.names.append(f)
            changed[key] = group
            if f != name:
                table.stubs[f] = dataclasses.replace(stub, name=f, pure=False, model={})
            # what the stub itself calls outside its own code
            pending.extend((c, _where(parsed.funcs[f].coord)) for c in parsed.calls[f]
                           if c not in parsed.funcs)
    for group in changed.values():
        order = list(group.parsed.funcs)
        group.names.sort(key=order.index)
        ws._set_stub_unit(group.unit, group.nodes(), group.parsed.coord_name)
    for name, where in warn:
        text = UNKNOWN_WARNING.format(name=name)
        ws.warn(f"{where}: warning: {text}" if where else f"warning: {text}")


def _unit_name(ws: Workspace, stub: Stub) -> str:
    stem = stub.origin.stem if stub.origin is not None else stub.name
    base = f"__stub_{stub.broker}_{stem}".replace("-", "_").replace(" ", "_")
    name, k = base, 1
    while name in ws._units:
        k += 1
        name = f"{base}{k}"
    return name


def forget(ws: Workspace, names: Iterable[str]) -> None:
    """Drop the stubs of ``names`` (the program now defines them itself)."""
    table = ws._stubs
    drop = set(names)
    for group in table.groups.values():
        if drop & set(group.names):
            group.names = [n for n in group.names if n not in drop]
            ws._set_stub_unit(group.unit, group.nodes(), group.parsed.coord_name)
    for n in drop:
        table.stubs.pop(n, None)


def used_stubs(ws: Workspace) -> list[Stub]:
    """The stubs reachable from the program's own functions through calls, in a stable order."""
    table = ws._stubs
    seen: set[str] = set()
    todo = [c for m in ws._all_module_names() if not ws._units[ws._index_of(m)[0]].is_stub
            for c in called_names(ws._funcdef(m).body)]
    while todo:
        n = todo.pop()
        if n in seen or n not in table.stubs:
            continue
        seen.add(n)
        if n in ws:
            todo.extend(called_names(ws._funcdef(n).body))
    return [table.stubs[n] for n in table.stubs if n in seen]
