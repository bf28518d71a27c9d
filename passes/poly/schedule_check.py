"""What a new schedule of a static control part must satisfy, for every scheduler of parts.

Shared by ``auto_schedule`` (:mod:`.schedule`) and ``time_tile``
(:mod:`.time_tiling`):

* :func:`part_problem`: whether a part can be regenerated at all (no
  declaration inside its loops, no statement under a non-affine condition);
* :func:`validity`: the memory-based dependences a schedule must respect;
* :func:`check_schedule`: the legality check every schedule goes through
  before code is generated (instances, order of every dependence pair,
  the loops marked independent, unordered ``set`` children);
* :func:`same_order`: whether a schedule changes anything;
* :func:`parse_sizes`: the ``"32,32,64"`` tile-size option.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import islpy as isl
from pycparser import c_ast

from passman import PassFailed

from ..cfacts.names import where
from .affine import ctx
from .codegen import schedule_nodes
from .dependences import Dependence
from .scop import Scop
from .tile_band import INDEPENDENT_MARKS, carries


def validity(deps: Iterable[Dependence]) -> isl.UnionMap:
    """The union of the memory-based relations of ``deps`` (instance pairs, source first)."""
    return _union([isl.UnionMap.from_map(d.relation) for d in deps]).coalesce()


def _violation(d: Dependence, what: str) -> PassFailed:
    return PassFailed(f"{where(d.sink_stmt.node)}: {what}: {d.kind} dependence {d.why()}")


def check_schedule(scop: Scop, deps: Iterable[Dependence], schedule: isl.Schedule) -> None:
    """Refuse (``PassFailed``) a schedule that is illegal for the part's dependences.

    Legal: the schedule covers exactly the part's statement instances; it
    executes the source of every dependence pair strictly before its sink
    (lexicographic order of ``schedule.get_map()``); and every loop under a
    mark promising independence (``passman parallel``, ``omp parallel for``,
    ``omp simd``, ``GCC ivdep``) carries no dependence: pairs reaching it with equal outer loops
    and sequence positions have equal values of its iterator; and no dependence
    links two children of a ``set`` node (isl may generate them in any order).
    """
    deps = [d for d in deps if not d.relation.is_empty()]
    domain = scop.domain()
    if not schedule.get_domain().is_equal(domain):
        raise PassFailed(
            f"{scop.where}: the schedule does not execute exactly the statement instances of the part"
        )
    smap = schedule.get_map().intersect_domain(domain)
    before = strictly_before(smap)
    rels = [isl.UnionMap.from_map(d.relation) for d in deps]
    every = _union(rels)

    def refuse_if(broken: Callable[[isl.UnionMap], bool], what: str) -> None:
        # each test is linear in the relation (a union passes iff every member does): test the
        # union of the dependences once, and look for the one to name only when it fails
        if not broken(every):
            return
        for d, rel in zip(deps, rels):
            if broken(rel):
                raise _violation(d, what)
        raise PassFailed(f"{scop.where}: {what}")

    refuse_if(lambda rel: not before(rel), "the schedule executes a dependence sink before its source")
    for mark in _marks(schedule.get_root()):
        text = mark.mark_get_id().get_name()
        band = mark.child(0)
        if band.get_type() != isl.schedule_node_type.band:
            raise PassFailed(f"{scop.where}: mark '{text}' is not on a loop")
        refuse_if(lambda rel, band=band: not carries(band, 0, rel).is_empty(),
                  f"the loop marked '{text}' carries a dependence")
    for node in schedule_nodes(schedule.get_root(), isl.schedule_node_type.set):
        # children of a set node run in any order: no dependence may link two of them
        prefix = node.get_prefix_schedule_union_map()
        same = prefix.apply_range(prefix.reverse())
        filters = [node.child(k).filter_get_filter() for k in range(node.n_children())]
        refuse_if(lambda rel, same=same, filters=filters: _links(rel, same, filters),
                  "the schedule leaves a dependence source and sink unordered")


def _links(rel: isl.UnionMap, same: isl.UnionMap, filters: list[isl.UnionSet]) -> bool:
    """Whether ``rel`` links instances of two different children (``filters``) with equal prefix."""
    rel = rel.intersect(same)
    return any(i != j and not rel.intersect_domain(fi).intersect_range(fj).is_empty()
               for i, fi in enumerate(filters) for j, fj in enumerate(filters))


def _union(rels: list[isl.UnionMap]) -> isl.UnionMap:
    out = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
    for rel in rels:
        out = out.union(rel)
    return out


def strictly_before(smap: isl.UnionMap) -> Callable[[isl.UnionMap], bool]:
    """A test: does ``smap`` execute the source of every pair of a relation strictly before its sink?

    With one time per instance, all in one space (a schedule tree's map),
    the images of the pairs are compared with the lexicographic order of
    that space (cheaper than the order of the instances, the same answer);
    otherwise the pairs are compared with the instances' order.
    """
    spaces = smap.range().get_set_list()
    if spaces.n_set() == 1 and smap.is_single_valued():
        time = spaces.get_at(0).get_space()
        lex_lt = isl.UnionMap.from_map(isl.Map.lex_lt(time))
        covered = smap.domain()

        def by_images(rel: isl.UnionMap) -> bool:
            if not (rel.domain().is_subset(covered) and rel.range().is_subset(covered)):
                return False  # an instance the schedule does not execute
            return rel.apply_domain(smap).apply_range(smap).is_subset(lex_lt)

        return by_images

    def by_instances(rel: isl.UnionMap) -> bool:
        src, snk = smap.intersect_domain(rel.domain()), smap.intersect_domain(rel.range())
        return rel.subtract(src.lex_lt_union_map(snk)).is_empty()

    return by_instances


def _marks(node: isl.ScheduleNode) -> list[isl.ScheduleNode]:
    """The mark nodes promising independence at or below ``node``."""
    marks = schedule_nodes(node, isl.schedule_node_type.mark)
    return [m for m in marks if m.mark_get_id().get_name() in INDEPENDENT_MARKS]


def same_order(scop: Scop, schedule: isl.Schedule) -> bool:
    """Whether ``schedule`` orders every pair of instances of the part as the original code does."""
    old = scop.schedule()
    new = schedule.get_map().intersect_domain(scop.domain())
    return old.lex_lt_union_map(old).is_equal(new.lex_lt_union_map(new))


def loop_declarations(scop: Scop) -> list[c_ast.Decl]:
    """The declarations of the part that sit inside one of its loops."""
    return [s.node for s in scop.statements if isinstance(s.node, c_ast.Decl) and s.depth]


def part_problem(scop: Scop) -> str | None:
    """Why a part cannot be rescheduled (None if it can)."""
    decls = loop_declarations(scop)
    if decls:
        return f"{where(decls[0])}: declaration of {decls[0].name} inside a loop of the part"
    for s in scop.statements:
        if s.conditional:
            return f"{where(s.node)}: statement under a condition that is not affine"
    if not any(s.depth for s in scop.statements):
        return f"{scop.where}: no loop"
    return None


def parse_sizes(text: str) -> tuple[int, ...]:
    """``"32,32,64"`` -> ``(32, 32, 64)``; ``""`` -> ``()`` (defaults)."""
    try:
        sizes = tuple(int(x) for x in text.replace(" ", "").split(",") if x)
    except ValueError:
        raise PassFailed(
            f"tile sizes {text!r} must be a comma-separated list of positive integers"
        ) from None
    if any(s < 1 for s in sizes):
        raise PassFailed(f"tile sizes {text!r} must be positive")
    return sizes
