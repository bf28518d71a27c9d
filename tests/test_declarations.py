"""Passes declare what they read: ``requires`` (computed first) and ``reads`` (asked for as they run).

Every built-in transformation runs, with its defaults, on every function (and
the first loops) of a few corpus programs;
every resource a pass or an analysis asks the consistency manager for while it
runs must be in its declaration, and every resource it says it preserves must
equal, after the pass, the same resource computed again. ``passman passes NAME`` shows them.
"""

from __future__ import annotations

import collections

import pytest
from conftest import CORPUS

from passman import PassmanError, Workspace
from passman.cli import main
from passman.consistency import ResourceManager
from passman.registry import REGISTRY

PROGRAMS = ["gemm.c", "multi_function.c", "control_flow.c"]


@pytest.fixture(scope="module")
def observed():
    """``{pass name: resources it read directly}`` over the programs."""
    reads: dict[str, set[str]] = collections.defaultdict(set)
    stale: list[str] = []
    running: list[str] = []
    original = ResourceManager.get

    def get(self, resource, owner):
        if self._computing:  # read by the analysis being computed
            reader = self.ws.registry.producer(self._computing[-1][0], self.active).name
            reads[reader].add(resource)
        elif running:  # read by the transformation running
            reads[running[-1]].add(resource)
        return original(self, resource, owner)

    mp = pytest.MonkeyPatch()
    mp.setattr(ResourceManager, "get", get)
    try:
        import passman.passes  # noqa: F401 - registers the built-in passes

        transformations = sorted(n for n, i in REGISTRY.passes.items()
                                 if i.kind == "transformation" and i.func.__module__.startswith("passman.passes"))
        for program in PROGRAMS:
            for name in transformations:
                info = REGISTRY.passes[name]
                ws = Workspace(CORPUS / program)
                if info.scope == "module":
                    targets = list(ws.all_functions)
                elif info.scope == "loop":
                    targets = [lp for m in ws.all_functions for lp in m.all_loops][:3]
                else:
                    continue
                for target in targets:
                    kept = {r: _value(ws, r) for r in info.preserves}
                    running.append(name)
                    try:
                        getattr(target, name)()
                    except (PassmanError, TypeError):  # refused, or a parameter has no default
                        continue
                    finally:
                        running.pop()
                    for r in info.preserves:  # what the pass says it keeps, against a fresh computation
                        carried = _value(ws, r)
                        ws.rm.forget(r)
                        fresh = _value(ws, r)
                        if _shape(carried) != _shape(fresh):
                            stale.append(f"{name} on {program}: {r} {_shape(kept[r])} -> carried "
                                         f"{_shape(carried)}, recomputed {_shape(fresh)}")
    finally:
        mp.undo()
    return reads, stale


def _value(ws, resource: str) -> object:
    """A resource for every owner of its scope: the program, each unit, each function."""
    scope = ws.registry.producer(resource, ws.rm.active).scope
    if scope == "program":
        return ws.resource(resource)
    owners = [cu for cu in ws.compilation_units if not cu.is_stub] if scope == "unit" else list(ws.all_functions)
    return [ws.resource(resource, owner) for owner in owners]


def _shape(value) -> object:
    """A comparable form of a resource value (graphs: nodes and edges)."""
    if hasattr(value, "edges") and hasattr(value, "nodes"):
        return (sorted(value.nodes), sorted(value.edges))
    return repr(value)


def test_the_observation_sees_reads(observed):
    """The harness itself: the analyses everything builds on were seen reading."""
    observed, _ = observed
    assert "scops" in observed["dependences"] or "scops" in REGISTRY.passes["dependences"].requires
    assert observed["auto_schedule"] and observed["parallel_loops"]


def _builtin(name: str) -> bool:
    """A pass of passman's own (other tests register passes of their own in the registry)."""
    return REGISTRY.passes[name].func.__module__.startswith("passman.passes")


def test_every_resource_a_pass_reads_is_declared(observed):
    observed, _ = observed
    undeclared = {
        name: sorted(got - set(REGISTRY.passes[name].requires) - set(REGISTRY.passes[name].reads))
        for name, got in observed.items()
        if _builtin(name)
    }
    undeclared = {k: v for k, v in undeclared.items() if v}
    assert not undeclared, f"undeclared reads: {undeclared}"


def test_every_declared_resource_exists():
    import passman.passes  # noqa: F401

    provided = {i.provides for i in REGISTRY.passes.values() if i.kind == "analysis"}
    for info in REGISTRY.passes.values():
        if not info.func.__module__.startswith("passman.passes"):
            continue
        for r in info.requires + info.reads + info.preserves:
            assert r in provided, f"{info.name} declares {r}, which no analysis provides"


def test_passman_passes_shows_the_declarations(capsys):
    assert main(["passes", "parallel_loops"]) == 0
    out = capsys.readouterr().out
    assert "reads:" in out and "private_variables" in out and "dependences" in out


def test_what_a_pass_preserves_is_what_a_fresh_analysis_computes(observed):
    """``preserves`` is sound: the value carried over equals the one computed again after the pass."""
    _, stale = observed
    assert not stale, "\n".join(stale)
