"""The check of isl's generated AST against the dependences (passes/poly/ast_check.py).

isl 2026.2's ``atomic`` loops broke a legal schedule of the fuzz case
``wrong_isl_atomic_strided_outer.c``: the check must see it. (It is
opt-in, ``PASSMAN_CHECK_AST=1``: on isl's default generation of that
schedule it takes minutes.)
"""

from pathlib import Path

import islpy as isl
import pytest
from passman.passes.poly.ast_check import ast_violation
from passman.passes.poly.schedule import TilingOptions, check_schedule, schedule_part

import passman

CASE = Path(__file__).parent / "corpus" / "fuzz" / "wrong_isl_atomic_strided_outer.c"


def _all_atomic(schedule: isl.Schedule) -> isl.Schedule:
    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            for k in range(node.band_n_member()):
                node = node.band_member_set_ast_loop_type(k, isl.ast_loop_type.atomic)
        return node

    return schedule.map_schedule_node_bottom_up(visit)


def _ast(part, schedule: isl.Schedule, names: list[str]) -> isl.AstNode:
    ids = isl.IdList.alloc(schedule.get_ctx(), len(names))
    for n in names:
        ids = ids.add(isl.Id(n, context=schedule.get_ctx()))
    build = isl.AstBuild.from_context(part.context).set_iterators(ids)
    return build.node_from_schedule(schedule)


@pytest.fixture(scope="module")
def scheduled():
    ws = passman.Workspace(str(CASE))
    module = ws["main"]
    deps = module.resource("dependences")
    part = next(p for p in module.resource("scops") if p.where.endswith(":21"))
    part_deps = deps.of_scop(part)
    options = TilingOptions(tile=True, sizes=(), wavefront=True, pragma="passman parallel")
    schedule, _ = schedule_part(part, part_deps, "smart", options)
    check_schedule(part, part_deps, schedule)  # the schedule itself is legal
    schedule = schedule.align_params(schedule.get_map().get_space())
    rels = [(d.relation, f"{d.kind} dependence {d.why()}") for d in part_deps]
    return part, schedule, rels


def _violation(part, tree, rels, names):
    return ast_violation(tree, part.domain(), part.context, list(part.params), names, rels)


def test_atomic_loops_that_break_the_schedule_are_caught(scheduled):
    part, schedule, rels = scheduled
    names = [f"c{k}" for k in range(16)]
    why = _violation(part, _ast(part, _all_atomic(schedule), names), rels, names)
    assert why is not None and "A[j][k][l] written" in why and "before its source" in why


def test_an_ast_missing_instances_is_caught(scheduled):
    part, schedule, rels = scheduled
    names = [f"c{k}" for k in range(16)]
    # generate for half the domain: instances of the part are left out
    half = schedule.intersect_domain(
        isl.UnionSet("[n, m] -> { S5[i, j, k, l] : i <= 2; S4[i]; S6[i, j] }")
    )
    why = _violation(part, _ast(part, _all_atomic(half), names), rels, names)
    assert why == "it does not execute exactly the statement instances of the part"
