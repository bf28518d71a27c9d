"""The limits that keep isl from running unbounded, and the sound answers past them.

isl does not count every step against its operation budget (parametric
lexmin, the difference of sets with existential variables, convex hulls), so
the analyses check the size of what they hand it first and, past a limit,
keep an over-approximation (a MAY answer). Each test checks that the coarse
answer is on the sound side of the exact one, and that the analyses built on
it decide as they did before where it matters. The programs that took
minutes are in ``tests/corpus/fuzz/timeout_*.c`` (run by test_fuzz.py).
"""

from __future__ import annotations

import time

import islpy as isl
import pytest
from passman.passes.poly import affine, dependences, region_sets, scop_build
from passman.passes.poly.affine import AffineBuilder, hard
from pycparser import c_parser

from passman import PassFailed, Workspace

# Linearized subscripts (as linearize_array writes them): coefficients past HARD_COEFFICIENT.
FLAT = r"""
void kernel(int n, double A[1000], double B[1000])
{
    for (int i = 1; i < n; i++)
        for (int j = 0; j < n; j++) {
            A[20 * i + j] = 0.5 * A[20 * (i - 1) + j + 1];
            B[j] = B[j] + A[20 * i + j];
        }
}
"""


def test_hard_sees_large_coefficients_and_many_pieces():
    assert not hard(isl.Map("[n] -> { S[i, j] -> S[i', j'] : i' = i + 1 and j' = 2j and 0 <= i < n }"))
    assert hard(isl.Map("[n] -> { S[i, j] -> S[i', j'] : 70i' = 70i + 11j and 0 <= i < n }"))
    assert hard(isl.Set("{ A[x] : exists (e : x = 17e) }"))  # an existential's coefficient counts
    many = isl.Set("{ [x] : x = 0 }")
    for v in range(2, 2 * affine.HARD_PIECES + 4, 2):
        many = many.union(isl.Set(f"{{ [x] : x = {v} }}"))
    assert hard(many)


def test_linearized_subscripts_keep_the_levels_of_the_exact_analysis(monkeypatch):
    """The memory-based relation stands for the direct one: same carried levels, no distance."""
    coarse_module = Workspace.from_code(FLAT, "k.c")["kernel"]
    coarse = coarse_module.resource("dependences")
    hard_ones = [d for d in coarse if hard(d.relation)]
    monkeypatch.setattr(affine, "HARD_COEFFICIENT", 10**6)
    exact_module = Workspace.from_code(FLAT, "k.c")["kernel"]
    exact = exact_module.resource("dependences")
    verdicts = [coarse.is_parallel(lp) for lp in coarse_module.all_loops]
    assert verdicts == [exact.is_parallel(lp) for lp in exact_module.all_loops] == [False, False]
    key = lambda d: (d.kind, d.source.stmt, d.source.index, d.sink.stmt, d.sink.index, d.level)  # noqa: E731
    assert sorted(map(key, coarse)) == sorted(map(key, exact))
    by_key = {key(d): d for d in exact}
    assert any(d.vector is not None for d in exact)
    assert hard_ones
    for d in hard_ones:
        assert d.vector is None
        assert by_key[key(d)].direct.is_subset(d.direct)  # never fewer pairs than the exact ones
        k, m = d.level, len(d.loops)
        assert d.direction == (("=",) * m if k == 0 else ("=",) * (k - 1) + ("<",) + ("*",) * (m - k))


def test_conflicts_of_accesses_with_many_pieces_are_a_superset(monkeypatch):
    ws = Workspace.from_code(FLAT, "k.c")
    part = ws["kernel"].resource("scops").parts[0]
    accesses = [a for s in part.statements for a in s.accesses if a.array == "A"]
    write = next(a for a in accesses if a.is_write)
    exact, coarse = dependences._conflicts(write, write)
    assert not coarse
    monkeypatch.setattr(dependences, "MAX_CONFLICT_PIECES", 0)
    rough, coarse = dependences._conflicts(write, write)
    assert coarse and exact.is_subset(rough)


def test_difference_past_its_limits_is_on_the_sound_side():
    box = isl.Set("{ A[x, y] : 0 <= x <= 30 and 0 <= y <= 30 }")
    # a subtrahend with an existential variable of large coefficients (a projected hull)
    y = isl.Set("{ A[x, y] : exists (e : 0 <= 17e - x <= 3 and 0 <= y <= 20) }")
    exact = box.subtract(y)
    over, over_exact = region_sets._difference(box, y, over=True)
    under, under_exact = region_sets._difference(box, y, over=False)
    assert not over_exact and not under_exact
    assert exact.is_subset(over) and under.is_subset(exact)
    assert under.is_subset(box.subtract(isl.Set("{ A[x, y] : 0 <= y <= 20 }")))  # dropped e: y grew


def test_difference_of_too_many_pieces_is_coarse(monkeypatch):
    monkeypatch.setattr(region_sets, "MAX_DIFFERENCE_PIECES", 1)
    box = isl.Set("{ A[x] : 0 <= x <= 30 }")
    holes = isl.Set("{ A[x] : x = 3 or x = 9 or x = 20 }")
    over, ok1 = region_sets._difference(box, holes, over=True)
    under, ok2 = region_sets._difference(box, holes, over=False)
    assert (ok1, ok2) == (False, False)
    assert over.is_equal(box) and under.is_empty()
    monkeypatch.setattr(region_sets, "MAX_DIFFERENCE_PIECES", 64)
    exact, ok = region_sets._difference(box, holes, over=True)
    assert ok and exact.is_equal(box.subtract(holes))


def test_scalar_region_hull_is_the_simple_hull():
    s = isl.Set("[n, m] -> { c[] : (n >= 2 and m <= 3) or (n >= 5 and m >= 7) or (n <= -4 and m = 0) }")
    hull, same = region_sets._hull(s)
    assert s.is_subset(hull) and not same
    assert hull.is_equal(isl.Set.from_basic_set(s.simple_hull()).coalesce())


def parse_expression(text: str):
    unit = c_parser.CParser().parse(f"void f(int a, int b) {{ int x = {text}; }}")
    return unit.ext[0].body.block_items[0].init


def _builder(names: list[str]) -> AffineBuilder:
    space = isl.Space.set_alloc(affine.ctx(), 0, len(names))
    for k, n in enumerate(names):
        space = space.set_dim_name(isl.dim_type.set, k, n)
    return AffineBuilder(space, lambda ident: ("dim", names.index(ident.name)) if ident.name in names else None)


def _nested_max(depth: int) -> str:
    e = "a"
    for k in range(depth):
        other = f"b + {k}"
        e = f"(({e}) > ({other}) ? ({e}) : ({other}))"
    return e


def test_repeated_ternaries_are_built_once_and_right():
    """isl's generated bounds repeat each min/max in both arms: built once, the value is exact."""
    text = _nested_max(12)  # 2^12 copies of the innermost max if nothing is shared
    b = _builder(["a", "b"])
    pa = b.expr(parse_expression(text))
    assert pa is not None
    assert len(b._ternaries) == 12
    for a in range(-3, 20, 4):
        for bb in range(-5, 5, 3):
            expected = max([a] + [bb + k for k in range(12)])
            point = isl.Set(f"{{ [{a}, {bb}] }}").set_dim_name(isl.dim_type.set, 0, "a").set_dim_name(
                isl.dim_type.set, 1, "b")
            value = isl.Map.from_pw_aff(pa).intersect_domain(point.reset_tuple_id())
            assert value.range().sample_point().get_coordinate_val(isl.dim_type.set, 0).to_python() == expected


def test_a_ternary_of_too_many_pieces_is_not_affine(monkeypatch):
    monkeypatch.setattr(affine, "MAX_PIECES", 1)
    assert _builder(["a", "b"]).expr(parse_expression(_nested_max(4))) is None
    monkeypatch.setattr(affine, "MAX_PIECES", 32)
    assert _builder(["a", "b"]).expr(parse_expression(_nested_max(4))) is not None


def test_a_part_past_its_domain_limit_is_not_static_and_inner_parts_remain(monkeypatch):
    code = r"""
    void f(int n, double A[n][n])
    {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < (i % 2 == 0 ? n : 5); j++)
                A[i][j] = 0.5 * A[i][j];
    }
    """
    parts = Workspace.from_code(code, "f.c")["f"].resource("scops")
    assert parts.for_loop(Workspace.from_code(code, "f.c")["f"].all_loops[0].label) is not None
    monkeypatch.setattr(scop_build, "MAX_DOMAIN_PIECES", 1)
    module = Workspace.from_code(code, "f.c")["f"]
    parts = module.resource("scops")
    outer = module.all_loops[0]
    assert parts.for_loop(outer) is None
    assert "pieces" in parts.reason(outer.label)


@pytest.mark.parametrize("flows", [1, dependences.FLOW_OPERATIONS])
def test_flow_budget_keeps_parallel_verdicts_of_the_linearized_kernel(monkeypatch, flows):
    monkeypatch.setattr(dependences, "FLOW_OPERATIONS", flows)
    flat = Workspace.from_code(FLAT, "k.c")["kernel"].resource("dependences")
    nested = Workspace.from_code(FLAT, "k.c")["kernel"].resource("dependences")
    assert [flat.is_parallel(lp.label) for lp in flat.scops.parts[0].loops] == [
        nested.is_parallel(lp.label) for lp in nested.scops.parts[0].loops
    ]


def test_hull_of_a_set_with_large_coefficients_is_the_simple_hull():
    """The convex hull of 3 pieces with coefficients up to 70 took 2.5 s (fuzz seed 70240)."""
    s = isl.Set("[n] -> { A[x, y] : 0 <= x <= n and 0 <= 70y - 3x <= 140; A[x, y] : 0 <= x <= n and y = 5 }")
    assert hard(s)
    hull, same = region_sets._hull(s)
    assert s.is_subset(hull) and not same
    assert hull.is_equal(isl.Set.from_basic_set(s.simple_hull()).coalesce())


# ---------------------------------------------------------------- hulls and element boxes

HULL_SLOW = ("[i, n, t] -> { A[PHI1, PHI2, PHI3] : 0 <= t <= 1 and ((2PHI3 = 3 + 2t + PHI2 and "
             "2 + t <= PHI1 <= 12 + t and PHI1 <= n + t and PHI2 >= 3 + 2i and 5 <= PHI2 <= 23) or "
             "(2PHI2 = 2 + PHI1 and 4 <= PHI1 <= 22 and PHI1 <= 2i and 0 < PHI3 <= 11 and PHI3 < n)) }")


def test_a_costly_dual_gives_no_hull_and_regions_keep_a_coarser_one():
    # 18 constraints in two pieces, a dual of 22: its solutions took 9.5 s (fuzz case
    # timeout_ompify_without_marker); a small union still gets the exact hull
    s = isl.Set(HULL_SLOW)
    assert affine.convex_hull(s) is None
    hull, same = region_sets._hull(s)
    assert s.is_subset(hull) and not same
    small = isl.Set("{ A[x, y] : (0 <= x <= 4 and y = 0) or (x = 0 and 0 <= y <= 4) }")
    exact = affine.convex_hull(small)
    assert exact is not None
    assert isl.Set.from_basic_set(exact).is_equal(isl.Set("{ A[x, y] : x >= 0 and y >= 0 and x + y <= 4 }"))


@pytest.mark.parametrize("relation, box", [
    ("{ S[i] -> A[2i + 1] : 0 <= i < 10 }", ((1, 19),)),
    ("[n] -> { S[i] -> A[i] : 0 <= i < n }", ((0, None),)),
    ("[n] -> { S[i, j] -> A[i, j + 3] : 0 <= i < 5 and 0 <= j <= i }", ((0, 4), (3, 7))),
    ("{ S[i] -> A[i, 7] : 2 <= i <= 4 }", ((2, 4), (7, 7))),
    ("{ S[i] -> A[x] : 0 <= i < 9 and 2x = i }", ((0, 4),)),  # the existential is dropped: a superset
])
def test_element_boxes_bound_every_element(relation, box):
    rel = isl.Map(relation)
    got = dependences._element_box(rel)
    assert got == box
    rng = rel.range()
    for k, (lo, hi) in enumerate(got):  # every element inside (the box is sound)
        if lo is not None:
            assert rng.lower_bound_val(isl.dim_type.set, k, lo).is_equal(rng)
        if hi is not None:
            assert rng.upper_bound_val(isl.dim_type.set, k, hi).is_equal(rng)


def test_disjoint_boxes_and_ranges_skip_pairs_and_keep_every_dependence(monkeypatch):
    assert dependences._apart(((0, 4),), ((5, 9),))
    assert not dependences._apart(((0, 5),), ((5, 9),))
    assert not dependences._apart(((0, None),), ((5, 9),))
    assert dependences._apart(((0, 9), (0, 3)), ((0, 9), (4, None)))
    code = r"""
void kernel(double A[40], double B[40])
{
    for (int i = 0; i < 10; i++) {
        A[i] = B[i] + 1.0;
        A[i + 20] = A[i] * 2.0;
        B[i + 10] = A[i + 20] + A[19 - i];
    }
}
"""
    ws = Workspace.from_code(code, "k.c")
    part = ws["kernel"].resource("scops").parts[0]

    def summary(deps):
        return sorted((d.kind, d.source_stmt.name, d.sink_stmt.name, d.source.index, d.sink.index, d.level,
                       str(d.direct), d.direction) for d in deps)

    filtered = dependences.scop_dependences(part)
    tested = []
    real = dependences._conflicts
    monkeypatch.setattr(dependences, "_conflicts", lambda a, b: tested.append(1) or real(a, b))
    dependences.scop_dependences(part)
    skipped = len(tested)
    tested.clear()
    monkeypatch.setattr(dependences, "_apart", lambda x, y: False)
    monkeypatch.setattr(dependences, "_disjoint", lambda a, b, r: False)
    unfiltered = dependences.scop_dependences(part)
    assert summary(filtered) == summary(unfiltered)  # the same dependences, fewer pairs composed
    assert skipped < len(tested)
    assert any(d.kind == "flow" and d.source.array == "A" for d in filtered)


def test_code_that_repeats_a_statement_too_often_is_refused_and_the_part_kept():
    # isl separated this skewed nest into 26 guarded copies of each statement (fuzz case
    # timeout_statement_copies); the part keeps its code, the other parts are rescheduled
    from conftest import CORPUS

    ws = Workspace(str(CORPUS / "fuzz" / "timeout_statement_copies.c"))
    ws.apply("auto_schedule", ws["main"], tile=False)
    code = ws["main"].code
    assert "for (k = j; k < 14; k++) {" in code  # the nest as written
    assert code.count("B[i + 3][j + 1] = 0.3 * A[j + 3][i + 1][9]") == 1
    assert "#pragma passman parallel" in code  # the initialisation nests were rescheduled


# A Jacobi-like nest: i is parallel, j carries; exact distances known.
STENCIL = r"""
void kernel(int n, int m, double A[n][m], double B[n][m])
{
    for (int t = 1; t < n; t++)
        for (int j = 1; j < m - 1; j++)
            A[t][j] = 0.3 * (A[t - 1][j - 1] + A[t - 1][j] + A[t - 1][j + 1]) + B[t][j];
}
"""


def test_a_pair_past_its_budget_depends_at_every_ordered_level(monkeypatch):
    """Past PAIR_OPERATIONS (25 s of isl on the pairs of a fuzzed stencil's tiled wavefront) a pair
    depends at every level the execution order allows, on every ordered pair of instances: a
    superset of the exact pairs, so a loop is parallel afterwards only if it was before."""
    module = Workspace.from_code(STENCIL, "k.c")["kernel"]
    exact = module.resource("dependences")
    monkeypatch.setattr(dependences, "PAIR_OPERATIONS", 1)
    coarse_module = Workspace.from_code(STENCIL, "k.c")["kernel"]
    coarse = coarse_module.resource("dependences")
    assert all(d.vector is None and not d.uniform for d in coarse)
    assert any(d.vector is not None for d in exact)
    assert [exact.is_parallel(lp) for lp in module.all_loops] == [False, True]
    assert [coarse.is_parallel(lp) for lp in coarse_module.all_loops] == [False, False]
    for d in exact:
        same = [c for c in coarse if (c.kind, c.source.index, c.sink.index, c.level)
                == (d.kind, d.source.index, d.sink.index, d.level)]
        assert same and d.relation.is_subset(same[0].relation) and d.direct.is_subset(same[0].direct)


def test_dependences_past_the_functions_time_depend_at_every_ordered_level(monkeypatch):
    """Past FUNCTION_SECONDS the pairs left depend at every ordered level, domains not even
    consulted: a superset of the exact pairs (fuzz case timeout_tiled_init_dependences)."""
    module = Workspace.from_code(STENCIL, "k.c")["kernel"]
    exact = module.resource("dependences")
    monkeypatch.setattr(dependences, "FUNCTION_SECONDS", 0.0)
    coarse_module = Workspace.from_code(STENCIL, "k.c")["kernel"]
    coarse = coarse_module.resource("dependences")
    assert [coarse.is_parallel(lp) for lp in coarse_module.all_loops] == [False, False]
    for d in exact:
        same = [c for c in coarse if (c.kind, c.source.index, c.sink.index, c.level)
                == (d.kind, d.source.index, d.sink.index, d.level)]
        assert same and d.relation.is_subset(same[0].relation) and same[0].vector is None


def test_a_model_past_its_time_is_not_static(monkeypatch):
    monkeypatch.setattr(scop_build, "MODEL_SECONDS", 0.0)
    module = Workspace.from_code(STENCIL, "k.c")["kernel"]
    parts = module.resource("scops")
    assert not list(parts)
    assert "took over 0 s" in parts.reason(module.all_loops[0].label)


TWO_STATEMENTS = r"""
void kernel(int n, double A[n][n], double B[n][n])
{
    for (int i = 1; i < n; i++)
        for (int j = 1; j < n; j++) {
            A[i][j] = A[i - 1][j] + B[i][j - 1];
            B[i][j] = A[i][j] * 0.5;
        }
}
"""


def _policies_tried(monkeypatch, delay):
    """Run schedule_part on TWO_STATEMENTS with isl's scheduler taking ``delay(policy)`` seconds more
    per policy: the policies whose schedule was weighed, and the seconds it all took."""
    from passman.passes.poly import schedule

    from passman.deadline import Child

    real_start, real_finish = schedule.start_schedule, schedule.finish_schedule
    weighed = []  # the policies whose schedule came in time (a schedule another gave already is not tiled again)

    def slow_start(scop, rel, fusion):
        def compute():
            time.sleep(delay(fusion))
            child = real_start(scop, rel, fusion)
            return child.result(time.monotonic() + 60)

        return Child(compute, "isl's scheduler")

    def finish(child, scop, fusion, until, seconds):
        text = real_finish(child, scop, fusion, until, seconds)
        weighed.append(fusion)
        return text

    monkeypatch.setattr(schedule, "start_schedule", slow_start)
    monkeypatch.setattr(schedule, "finish_schedule", finish)
    ws = Workspace.from_code(TWO_STATEMENTS, "k.c")
    module = ws["kernel"]
    part = module.resource("scops")[0]
    deps = module.resource("dependences").of_scop(part)
    options = schedule.TilingOptions(tile=True, sizes=(), wavefront=True, pragma="passman parallel")
    started = time.monotonic()
    try:
        schedule.schedule_part(part, deps, "smart", options)
    except PassFailed:
        pass
    return len(weighed), time.monotonic() - started


def test_a_fast_part_weighs_every_policy(monkeypatch):
    weighed, _ = _policies_tried(monkeypatch, lambda p: 0.0)
    assert weighed == 3  # smart, pluto, none


def test_a_slow_first_schedule_leaves_the_others_no_more_time(monkeypatch):
    # fuzz case timeout_slow_scheduler_policies: "smart" took 7 s, then "pluto" and "none" spent
    # the function's budget and no time was left to generate the code. Side by side, the others
    # get until the first schedule comes, or EXPLORE_SECONDS after the start if later
    from passman.passes.poly import schedule

    monkeypatch.setattr(schedule, "EXPLORE_SECONDS", 0.2)
    weighed, seconds = _policies_tried(monkeypatch, lambda p: 1.0 if p == "smart" else 30.0)
    assert weighed == 1 and seconds < 10


def test_a_policy_past_its_time_is_dropped_and_the_others_weighed(monkeypatch):
    from passman.passes.poly import schedule

    monkeypatch.setattr(schedule, "POLICY_SECONDS", 1.5)
    weighed, seconds = _policies_tried(monkeypatch, lambda p: 30.0 if p == "smart" else 0.0)
    assert weighed == 2 and seconds < 10


def test_an_extent_past_its_budget_is_unknown(monkeypatch):
    # fuzz case timeout_extent_of_tiled_code: dim_min / dim_max of a tiled band took 97 s
    s = isl.Set("[n] -> { [i] : 3 <= i < 3 + 8 and n > 0 }")
    assert affine.constant_extent(s, 0) == 8
    assert affine.constant_extent(isl.Set("[n] -> { [i] : 0 <= i < n }"), 0) is None
    monkeypatch.setattr(affine, "EXTENT_OPERATIONS", 1)
    assert affine.constant_extent(s, 0) is None  # not known within the budget: never a wrong size


def test_a_projection_past_the_region_time_limit_is_a_superset_and_nothing_sure():
    # fuzz case timeout_analyses_of_tiled_code: 599 projections of tiled code's regions, 28 s
    r = region_sets.exact(isl.Set("[i, n] -> { [a] : i <= a < i + 4 and 0 <= i < n }"))
    domain = isl.Set("[i, n] -> { : 0 <= i < n }")
    exact = region_sets.project(r, "i", domain, True)
    with region_sets.time_limit(-1.0):  # already spent
        coarse = region_sets.project(r, "i", domain, True)
    assert exact.over.is_subset(coarse.over) and not coarse.over.is_equal(exact.over)
    assert coarse.under.is_empty() and not coarse.exact


def test_preconditions_past_their_time_know_nothing(monkeypatch):
    from passman.passes.poly import preconditions

    code = "void f(int n, double a[100]) { int i; for (i = 0; i < n; i++) a[i] = 0; }"
    ws = Workspace.from_code(code, "p.c")
    body = ws["f"].all_loops[0].site.labelled.stmt.stmt
    assert not ws["f"].resource("preconditions").at(body).is_equal(affine.params_universe())
    monkeypatch.setattr(preconditions, "FUNCTION_SECONDS", -1.0)
    ws = Workspace.from_code(code, "p.c")
    body = ws["f"].all_loops[0].site.labelled.stmt.stmt
    assert ws["f"].resource("preconditions").at(body).is_equal(affine.params_universe())


def test_a_functions_pool_bounds_its_analyses_over_a_sequence_of_passes(monkeypatch):
    from passman import deadline

    class Ws:  # a workspace stand-in (weakly referable)
        pass

    class Mod:
        ws = Ws()
        name = "f"

    monkeypatch.setattr(deadline, "POOL_SECONDS", 3.0)
    monkeypatch.setattr(deadline, "CHEAP_SECONDS", 0.0)
    clock = [100.0]
    monkeypatch.setattr(deadline.time, "monotonic", lambda: clock[0])
    granted = []
    for _ in range(3):
        with deadline.function_budget(Mod, 2.0) as seconds:
            granted.append(seconds)
            clock[0] += seconds  # each analysis runs out of its time
    assert granted == [2.0, 1.0, deadline.FLOOR_SECONDS]  # 3 s in all, then the floor
    other = type("Other", (), {"ws": Mod.ws, "name": "g"})
    with deadline.function_budget(other, 2.0) as seconds:
        assert seconds == 2.0  # another function has its own pool
