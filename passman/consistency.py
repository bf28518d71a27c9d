"""The consistency manager: resources computed on demand, cached, invalidated.

Every entity of a workspace (the program, each compilation unit, each module)
has a version drawn from one clock. A cached resource remembers the versions
of everything it was computed from: its owner, every module whose AST it read
(recorded automatically when an analysis reads ``module.ast``) and the
dependencies of every resource it asked for (so interprocedural resources
follow the call graph). A cached value is reused while all those versions are
unchanged; a transformation bumps the versions of what it modified, and the
resources it declares it ``preserves`` are carried over to the new versions.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import InternalError, InvalidInput, PassFailed, PassmanError

if TYPE_CHECKING:
    from .workspace import Workspace

EntityKey = tuple  # ("program",) | ("cu", name) | ("module", name)
OwnerKey = tuple  # an EntityKey, or ("loop", module, label)


@dataclass
class Entry:
    """A cached resource value and the entity versions it was computed from."""

    value: Any
    deps: dict[EntityKey, int]
    #: the workspace clock when the entry was last found valid (a shortcut:
    #: nothing changed since, so no need to check every dependency again)
    checked: int = -1


class ResourceManager:
    """Caches resources per owner and decides when to recompute them."""

    def __init__(self, ws: Workspace) -> None:
        self.ws = ws
        self.cache: dict[tuple[str, OwnerKey], Entry] = {}
        #: how many times each resource was computed (tests count these)
        self.computations: Counter[str] = Counter()
        #: resource -> name of the activated producer
        self.active: dict[str, str] = {}
        self._frames: list[dict[EntityKey, int]] = []
        self._computing: list[tuple[str, OwnerKey]] = []

    # -- dependency recording -------------------------------------------------
    def note_read(self, key: EntityKey) -> None:
        """Record that the resource being computed read entity ``key``."""
        if self._frames:
            self._frames[-1][key] = self.ws._versions.get(key, -1)

    def _merge(self, deps: dict[EntityKey, int]) -> None:
        if self._frames:
            self._frames[-1].update(deps)

    def valid(self, entry: Entry) -> bool:
        """Whether every version ``entry`` was computed from is still current."""
        clock = self.ws._clock
        if entry.checked == clock:
            return True
        versions = self.ws._versions
        if all(versions.get(k, -2) == v for k, v in entry.deps.items()):
            entry.checked = clock
            return True
        return False

    def is_cached(self, resource: str, owner: Any) -> bool:
        """Whether ``resource`` for ``owner`` is cached and still valid (nothing is computed)."""
        producer = self.ws.registry.producer(resource, self.active)
        okey = self.ws._owner_key(self.ws._owner_for_scope(owner, producer.scope))
        entry = self.cache.get((resource, okey))
        return entry is not None and self.valid(entry)

    # -- access ---------------------------------------------------------------
    def get(self, resource: str, owner: Any) -> Any:
        """The value of ``resource`` for ``owner`` (a Workspace, unit, Module or Loop)."""
        producer = self.ws.registry.producer(resource, self.active)
        target = self.ws._owner_for_scope(owner, producer.scope)
        okey = self.ws._owner_key(target)
        ckey = (resource, okey)
        entry = self.cache.get(ckey)
        if entry is not None and self.valid(entry):
            self._merge(entry.deps)
            return entry.value
        if ckey in self._computing:
            chain = " -> ".join(f"{r}({'/'.join(map(str, o[1:]))})" for r, o in self._computing)
            raise PassFailed(f"recursive dependence while computing {chain} -> {resource}")
        instruments = self.ws.instruments
        if not instruments:
            return self._compute(resource, producer, target, okey, ckey)
        for inst in list(instruments):
            inst.before_analysis(resource, target)
        start = time.perf_counter()
        try:
            value = self._compute(resource, producer, target, okey, ckey)
        except BaseException as err:
            seconds = time.perf_counter() - start
            for inst in list(instruments):
                inst.after_analysis_failed(resource, target, err, seconds)
            raise
        seconds = time.perf_counter() - start
        for inst in list(instruments):
            inst.after_analysis(resource, target, seconds)
        return value

    def _compute(self, resource: str, producer: Any, target: Any, okey: OwnerKey, ckey: tuple) -> Any:
        """Compute ``resource`` for ``target`` (its required resources first) and cache it."""
        for req in producer.requires:
            self.get(req, target)
        self._computing.append(ckey)
        self._frames.append({})
        for k in self.ws._base_entities(okey):
            self.note_read(k)
        try:
            value = producer.func(target)
        except PassmanError:
            raise
        except Exception as err:
            raise InternalError(f"analysis {producer.name} crashed on {okey}: {err!r}") from err
        finally:
            deps = self._frames.pop()
            self._computing.pop()
        self.computations[resource] += 1
        entry = Entry(value, deps, self.ws._clock)
        self.cache[ckey] = entry
        self._merge(deps)
        return value

    def activate(self, resource_or_pass: str) -> None:
        """Choose which producer computes a resource (``activate("must_regions")``)."""
        reg = self.ws.registry
        if resource_or_pass in reg.passes and reg.passes[resource_or_pass].provides:
            info = reg.passes[resource_or_pass]
            resource = info.provides
        else:
            raise InvalidInput(f"error: no analysis named '{resource_or_pass}' to activate")
        if self.active.get(resource) != info.name:
            self.active[resource] = info.name
            self.forget(resource)

    def forget(self, resource: str | None = None) -> None:
        """Drop cached values (of one resource, or all)."""
        if resource is None:
            self.cache.clear()
        else:
            for k in [k for k in self.cache if k[0] == resource]:
                del self.cache[k]

    def carry_over(self, preserved: tuple[str, ...], bumped: dict[EntityKey, tuple[int, int]]) -> None:
        """Keep preserved resources valid across the version bumps of a transformation."""
        if not preserved or not bumped:
            return
        for (res, _), entry in self.cache.items():
            if res not in preserved:
                continue
            # only entries that were valid just before the change are carried
            ok = True
            for k, v in entry.deps.items():
                if k in bumped:
                    ok = ok and v == bumped[k][0]
                else:
                    ok = ok and self.ws._versions.get(k, -2) == v
            if ok:
                for k in entry.deps:
                    if k in bumped:
                        entry.deps[k] = bumped[k][1]
                entry.checked = -1

    def copy_for(self, ws: Workspace) -> ResourceManager:
        """An independent manager for a clone: same cached values, separate bookkeeping."""
        rm = ResourceManager(ws)
        rm.cache = {k: Entry(e.value, dict(e.deps)) for k, e in self.cache.items()}
        rm.active = dict(self.active)
        return rm
