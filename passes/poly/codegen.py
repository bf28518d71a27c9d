"""isl schedules back to C: code generation for a static control part.

A scheduling pass (``auto_schedule``) computes a new :class:`isl.Schedule`
over the statement domains of a :class:`~.scop.Scop`; :func:`generate`
turns it into C statements (``c_ast``) through isl's AST generator, and
:func:`replace_part` splices them in place of the part. Before (the part,
scheduled with ``band_tile`` by 32 through :func:`tile_band`)::

    for (i = 0; i < n; i++)
        a[i] = b[i + 1];

After::

    for (int c0 = 0; c0 < n; c0 += 32)
        for (int c1 = c0; c1 < (n < c0 + 32 ? n : c0 + 32); c1++)
            a[c1] = b[c1 + 1];

The isl AST becomes C in :mod:`.isl_ast` (loops with fresh ``int``/``long``
iterators ``c0``, ``c1`` ... declared in the for-init, downward loops where
every statement runs over ``-c``, ``<`` bounds, ``min``/``max`` as ``?:``,
floor divisions guarded for the sign only where isl cannot prove the
dividend non-negative, statement copies with their loop variables replaced,
pragma *marks* such as ``"omp parallel for"`` or ``"passman parallel"`` as
``#pragma`` lines before the loops under them). Here:

* :func:`identity_schedule`: the part's original order as a schedule tree
  (sequences and one-member bands), to start from or to test with;
* :func:`tile_band`: ``band_tile`` with the options this shape needs: tile
  loops are scaled (``c0 += 32`` runs over the first point of each tile)
  and point loops are not shifted (``c1`` runs over original iterator
  values); isl's defaults shift point loops to ``0..31`` and write
  ``c0 + c1`` in every subscript;
* bands are generated ``atomic`` (each statement once per band iteration,
  compact code, no separated full/partial tile copies), except the
  innermost loop of several statements, generated ``separate`` (no guard
  in its body); guards are simplified against the part's context;
* a declaration at the top level of the part is hoisted to its start,
  without initialiser, and its initialisation scheduled as an assignment
  (``double s; ... s = 0.0;``), unless it can stay where it is;
* the ``if`` of a data-dependent condition is copied whole where its
  condition is scheduled, provided the schedule puts the instances of its
  branches right after it (same iteration, nothing in between);
* :func:`replace_part` splices the result in place of the part and drops
  the ``#pragma`` lines that were right before it (they applied to a loop
  that no longer exists; the schedule's marks say what is parallel now).

Refused with :class:`PassFailed` (``generate`` never changes the module):
a loop variable of the part whose value is read outside its loops; a
branch of a data-dependent ``if`` scheduled apart from its condition; a
declaration inside a loop of the part that the generated code would no
longer put around all its uses, in the same iteration (the model gives it
one object per iteration; a declaration without initialiser there is no
statement of the model, so it is refused too).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

import islpy as isl
from pycparser import c_ast

from passman import Module, PassFailed
from passman.astutil import copy_node, parent_map, replace_child, same_tree, walk
from passman.deadline import Clock, DeadlineExceeded, run_with_deadline

from ..analysis.effect_model import current_names
from ..cfacts.control import only_loop_index, pragmas_before
from ..cfacts.names import names_in_scope, resolve_names, where
from ..cfacts.types import INT_RANGES, arith_type
from .affine import ctx
from .ast_check import Unreadable, ast_violation
from .facts import function_facts
from .isl_ast import (
    MARK_LOOP,
    TASK_COORDS,
    TASK_MARK,
    TASK_TAG,
    AstConverter,
    Instance,
    bind_mark,
    is_pragma_mark,
)
from .scop import Scop, Statement

if TYPE_CHECKING:
    from .dependences import Dependence

#: seconds isl's AST generation may take on one part (then: PassFailed); the corpus
#: needs well under one
AST_SECONDS = 8.0

# ------------------------------------------------------------------------- schedules


def identity_schedule(scop: Scop) -> isl.Schedule:
    """A schedule tree equivalent to the part's original 2d+1 order (:meth:`Scop.schedule`).

    Textual positions become sequence nodes, each loop a one-member band
    over its iterator (``-i`` for a decreasing loop).
    """
    return _subtree(list(scop.statements), 0)


def _subtree(stmts: list[Statement], k: int) -> isl.Schedule:
    """The schedule of statements sharing positions and loops up to depth ``k``."""
    groups: dict[int, list[Statement]] = {}
    for s in stmts:
        groups.setdefault(s.positions[k], []).append(s)
    out: isl.Schedule | None = None
    for pos in sorted(groups):
        g = groups[pos]
        if len(g) == 1 and g[0].depth == k:
            sub = isl.Schedule.from_domain(isl.UnionSet.from_set(g[0].domain))
        else:
            umap = isl.UnionMap.empty(isl.Space.params_alloc(ctx(), 0))
            for s in g:
                aff = isl.Aff.var_on_domain(
                    isl.LocalSpace.from_space(s.domain.get_space()), isl.dim_type.set, k
                )
                if s.loops[k].decreasing:
                    aff = aff.neg()
                umap = umap.union(
                    isl.UnionMap.from_map(isl.Map.from_aff(aff).intersect_domain(s.domain))
                )
            sub = _subtree(g, k + 1).insert_partial_schedule(
                isl.MultiUnionPwAff.from_union_map(umap)
            )
        out = sub if out is None else out.sequence(sub)
    assert out is not None
    return out


def tile_band(band: isl.ScheduleNode, sizes: Sequence[int]) -> isl.ScheduleNode:
    """``band.band_tile(sizes)`` with the tiling options :func:`generate` expects.

    Tile loops step by the tile size over original iterator values and point
    loops are not shifted (see the module docstring); isl's context options
    are restored afterwards. Returns the tile band (the point band is its child).
    """
    c = ctx()
    old = (c.get_tile_scale_tile_loops(), c.get_tile_shift_point_loops())
    vals = isl.ValList.alloc(c, len(sizes))
    for s in sizes:
        vals = vals.add(isl.Val.int_from_si(c, int(s)))
    try:
        c.set_tile_scale_tile_loops(1)
        c.set_tile_shift_point_loops(0)
        return band.band_tile(isl.MultiVal.from_val_list(band.band_get_space(), vals))
    finally:
        c.set_tile_scale_tile_loops(old[0])
        c.set_tile_shift_point_loops(old[1])


def _loop_types(schedule: isl.Schedule) -> isl.Schedule:
    """The schedule with every band member generated ``atomic``, but innermost loops of several statements.

    Bands over several statements of which one has a stride keep isl's
    default (see :func:`_mixed_strides`).

    ``atomic`` gives each statement once per iteration (compact code, no
    full/partial tile copies). The innermost loop of a band with no band
    below it, when several statements share it, is generated ``separate``
    instead: one loop per range where the same statements run, so that no
    guard is left in its body (a time-skewed Jacobi step runs its two
    statements without a test per point, and the C compiler vectorizes it).
    """

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            n = node.band_n_member()
            if not (_mixed_strides(node.get_domain()) or _strided_band(node)):
                for k in range(n):
                    node = node.band_member_set_ast_loop_type(k, isl.ast_loop_type.atomic)
            if node.get_domain().n_set() > 1 and _leaf_band(node):
                node = node.band_member_set_ast_loop_type(n - 1, isl.ast_loop_type.separate)
        return node

    return schedule.map_schedule_node_bottom_up(visit)


def _mixed_strides(domain: isl.UnionSet) -> bool:
    """Several statements under a band, one of them with a stride (``i += 2``, ``i % 2 == 0``).

    isl's ``atomic`` generation loses such a stride when another statement
    shares the loops: with ``S3[i]: i odd`` at ``(i + 1, i)`` and a statement
    of stride 2 in the second loop, isl 0.26 ran ``S3`` at even ``i`` too
    (fuzz seed 50177). Those bands keep isl's default loop type.
    """
    return domain.n_set() > 1 and _has_divs(domain)


def _has_divs(s: isl.UnionSet | isl.Set) -> bool:
    """Whether a basic set of ``s`` has an existential variable (a stride, a ``mod``)."""
    sets = s.get_basic_set_list()
    return any(sets.get_at(k).dim(isl.dim_type.div) > 0 for k in range(sets.n_basic_set()))


def _strided_band(node: isl.ScheduleNode) -> bool:
    """A band over several statements, one of which runs at strided values of the outer loops.

    isl's ``atomic`` generation of such a band can move a statement to
    another iteration of a loop below it: with the tile band of a skewed
    nest where ``S6[i, j]`` runs at ``c0 = 5i + 5``, isl 2026.2 ran
    ``t0 = A[5][j][0]`` one iteration of the ``simd`` loop early, before
    the write it must follow (fuzz seed 91966). Those bands keep isl's
    default loop type.
    """
    if node.get_domain().n_set() < 2 or node.get_schedule_depth() == 0:
        return False
    outer = node.get_prefix_schedule_union_map()
    maps = outer.get_map_list()  # one map per statement
    return any(_has_divs(maps.get_at(k).range()) for k in range(outer.n_map()))


def expand_iterators(text: str, names: Sequence[str]) -> str:
    """``text`` with each ``$k`` replaced by ``names[k]``, the iterator of the loop at schedule depth k.

    How a pragma mark refers to loop iterators before they are named
    (``omp task depend(out: a[$0][$1])``).
    """
    return re.sub(r"\$(\d+)", lambda m: names[int(m.group(1))], text)


def _bind_marks(schedule: isl.Schedule, names: Sequence[str], prefixes: list[isl.UnionMap]) -> isl.Schedule:
    """The schedule with each pragma mark bound to the iterator of the loop it marks.

    A mark sits above a band; its loop is the band's first member, at the
    band's schedule depth, so its iterator is ``names[depth]``
    (:func:`.isl_ast.bind_mark`). ``$k`` in a mark's text becomes the
    iterator at depth k (:func:`expand_iterators`), except in a task mark:
    there it stays, the mark gets a tag (:data:`.isl_ast.TASK_TAG` and the
    index of its prefix schedule, appended to ``prefixes``), and code
    generation gives each ``$k`` its value (:func:`_ast`: a loop of one
    iteration may be generated away, leaving a value and no iterator).
    """

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() != isl.schedule_node_type.mark:
            return node
        text = node.mark_get_id().get_name()
        if not is_pragma_mark(text):
            return node
        if text.startswith(TASK_MARK) and "$" in text:
            name = f"{text}{TASK_TAG}{len(prefixes)}"
            prefixes.append(node.get_prefix_schedule_union_map())
        else:
            name = expand_iterators(text, names)
        child = node.child(0)
        if child.get_type() == isl.schedule_node_type.band:
            name = bind_mark(name, names[child.get_schedule_depth()])
        elif name == text:
            return node
        return node.delete().insert_mark(isl.Id(name, context=ctx()))

    return schedule.map_schedule_node_bottom_up(visit)


def schedule_nodes(node: isl.ScheduleNode, kind: object) -> list[isl.ScheduleNode]:
    """The nodes of type ``kind`` (an ``isl.schedule_node_type``) at or below ``node``."""
    out = [node] if node.get_type() == kind else []
    for k in range(node.n_children()):
        out.extend(schedule_nodes(node.child(k), kind))
    return out


def _leaf_band(node: isl.ScheduleNode) -> bool:
    """Whether no band lies below band ``node``."""
    return len(schedule_nodes(node, isl.schedule_node_type.band)) == 1


def _band_members(schedule: isl.Schedule) -> int:
    count = [0]

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            count[0] += node.band_n_member()
        return True

    schedule.foreach_schedule_node_top_down(visit)
    return count[0]


# ------------------------------------------------------------------------- checks


def _check_part(module: Module, scop: Scop) -> set[int]:
    """Refuse what the generated code cannot reproduce (see the module docstring).

    Returns the ``id`` of the declarations of the part used after it: their
    copies must stay at the top level of the generated statements.
    """
    owner = _branch_owners(scop)
    for s in scop.statements:
        if s.conditional and s.name not in owner:
            raise PassFailed(
                f"{where(s.node)}: cannot regenerate the part at {scop.where}: statement {s.name} is under "
                "an if whose condition is not affine"
            )
    facts = function_facts(module)
    table = current_names(module)  # a pass may have rewritten a later part already
    for lp in scop.loops:
        decl = facts.decl_named(lp.iterator)
        if decl is None or _in_for_init(lp.node, decl):
            continue
        if not only_loop_index(module.ast, decl, table, scop.nodes[0]):
            raise PassFailed(
                f"{where(lp.node)}: cannot regenerate the part at {scop.where}: the value of loop "
                f"variable {lp.var} is used outside its loops"
            )
    declared = {d.name for d in _part_declarations(scop)}
    for p in scop.params:
        if scop.names.get(p, p) in declared:
            raise PassFailed(
                f"{scop.where}: cannot regenerate the part: parameter {scop.names.get(p, p)} has the name "
                "of a variable declared in the part"
            )
    live: set[int] = set()
    inside = {id(n) for top in scop.nodes for n in walk(top)}
    stmts = {id(s.node) for s in scop.statements}
    copied = _copied_whole(scop)
    for top in scop.nodes:
        for d in walk(top):
            if not isinstance(d, c_ast.Decl) or d.name is None or _is_for_init_decl(top, d):
                continue
            if id(d) in copied:
                continue
            if id(d) not in stmts and not any(d is n for n in scop.nodes):
                raise PassFailed(
                    f"{where(d)}: cannot regenerate the part at {scop.where}: declaration of {d.name} "
                    "without initialiser"
                )
            if any(isinstance(n, c_ast.ID) and table.decl_of(n) is d and id(n) not in inside
                   for n in walk(module.ast)):  # fmt: skip
                live.add(id(d))
    return live


def _hoisted_declarations(module: Module, scop: Scop) -> tuple[list[c_ast.Decl], set[str]]:
    """Declarations at the top level of the part, moved to its start without initialiser.

    Two kinds: declarations that are no statement of the model (no
    initialiser) and still used (after the part, or inside a
    data-dependent ``if``), the others only declared loop variables the
    generated code no longer uses; and declaration statements with an
    initialiser (not ``const``), whose initialisation becomes an assignment
    scheduled like the statement (so that the variable stays visible to its
    uses wherever the schedule puts them). Returns the declarations and the
    names of the statements turned into assignments. Refused when a name
    they declare is used before them in the part for another variable.
    """
    by_node = {id(s.node): s for s in scop.statements}
    table = current_names(module)  # uses after the part may be in code generated already
    inside = {id(n) for top in scop.nodes for n in walk(top)} - _copied_whole(scop)
    used = {
        id(table.decl_of(n))
        for n in walk(module.ast)
        if isinstance(n, c_ast.ID) and id(n) not in inside
    }
    out: list[c_ast.Decl] = []
    split: set[str] = set()
    for d in scop.nodes:
        if not isinstance(d, c_ast.Decl):
            continue
        s = by_node.get(id(d))
        if s is None and id(d) not in used:
            continue
        if s is not None:
            if (
                "const" in (d.quals or [])
                or d.init is None
                or not isinstance(d.type, c_ast.TypeDecl)
            ):
                continue
            split.add(s.name)
        out.append(d)
        for top in scop.nodes:
            if top is d:
                break
            for n in walk(top):
                if isinstance(n, c_ast.ID) and n.name == d.name and table.decl_of(n) is not d:
                    raise PassFailed(
                        f"{where(n)}: cannot regenerate the part at {scop.where}: {d.name} is declared "
                        f"again at {where(d)}"
                    )
    copies = [copy_node(d) for d in out]
    for c in copies:
        c.init = None
    return copies, split


def _rejoin(
    out: list[c_ast.Node], hoisted: list[c_ast.Decl], conv: AstConverter
) -> list[c_ast.Node]:
    """Put a hoisted declaration back on its assignment when that stays at the top level.

    ``double s; for (...) ...; s = 0.0;`` keeps its hoisted declaration when
    something between them uses ``s``; otherwise it reads ``double s = 0.0;``.
    """
    assigned = {i.root.lvalue.name: i for i in conv.instances if i.stmt.name in conv.split}
    for d in hoisted:
        inst = assigned.get(d.name)
        at = next((k for k, n in enumerate(out) if inst is not None and n is inst.root), None)
        start = next(k for k, n in enumerate(out) if n is d)
        if at is None or any(
            isinstance(x, c_ast.ID) and x.name == d.name
            for n in out[start + 1 : at]
            for x in walk(n)
        ):
            continue
        d.init = inst.root.rvalue
        out[at] = inst.root = d
        del out[start]
    return out


def _branch_owners(scop: Scop) -> dict[str, str]:
    """Statement name -> the outermost data-dependent ``if`` statement whose branches hold it."""
    conds = [s for s in scop.statements if isinstance(s.node, c_ast.If)]
    inner = {id(n): c.name for c in conds for n in walk(c.node) if n is not c.node}
    outer = [c for c in conds if id(c.node) not in inner]
    out: dict[str, str] = {}
    for c in outer:
        below = {id(n) for n in walk(c.node) if n is not c.node}
        out.update((s.name, c.name) for s in scop.statements if id(s.node) in below)
    return out


def _copied_whole(scop: Scop) -> set[int]:
    """``id`` of the nodes inside data-dependent ``if`` statements (copied as they are)."""
    return {
        id(n)
        for s in scop.statements
        if isinstance(s.node, c_ast.If)
        for n in walk(s.node)
        if n is not s.node
    }


def _in_for_init(loop: c_ast.For, decl: object) -> bool:
    return isinstance(loop.init, c_ast.DeclList) and any(d is decl for d in loop.init.decls)


def _is_for_init_decl(root: c_ast.Node, decl: c_ast.Decl) -> bool:
    return any(isinstance(f, c_ast.For) and _in_for_init(f, decl) for f in walk(root))


def _types(module: Module, scop: Scop) -> tuple[str, set[str], dict[str, c_ast.Node]]:
    """The iterator type, the unsigned parameters (C names) and the loop variables of another type.

    Iterators are ``int``, or ``long`` when a loop variable or parameter of
    the part does not fit an ``int``. In generated bounds an unsigned
    parameter is cast to that type (isl computes over the integers); a loop
    variable of another type than the iterators' is replaced by a cast
    (``(unsigned int)c0``), so that statements compute in their own types.
    """
    facts = function_facts(module)

    def kind(name: str) -> tuple[str | None, c_ast.Decl | None]:
        d = facts.decl_named(name)
        if not isinstance(d, c_ast.Decl):
            return None, None
        return arith_type(d.type, facts.types), d

    lo, hi = INT_RANGES["int"]
    itype = "int"
    for name in [lp.iterator for lp in scop.loops] + list(scop.params):
        r = INT_RANGES.get(kind(name)[0] or "int")
        if r is not None and (r[0] < lo or r[1] > hi):
            itype = "long"
    casts = {scop.names.get(p, p) for p in scop.params if (kind(p)[0] or "").startswith("unsigned")}
    var_types: dict[str, c_ast.Node] = {}
    for lp in scop.loops:
        t, d = kind(lp.iterator)
        if t is not None and t != itype and isinstance(d.type, c_ast.TypeDecl):
            var_types[lp.iterator] = d.type.type
    return itype, casts, var_types


# ------------------------------------------------------------------------- entry points


def generate(
    module: Module,
    scop: Scop,
    schedule: isl.Schedule,
    *,
    iterator_prefix: str = "c",
    clock: Clock | None = None,
    deps: Iterable[Dependence] | None = None,
) -> list[c_ast.Node]:
    """C statements that execute the part's statement instances in the order of ``schedule``.

    ``schedule`` is a schedule tree over the part's statement domains (for
    example :func:`identity_schedule`, or one with tiled bands and pragma
    marks). Neither ``module`` nor ``scop`` is modified; splice the result
    in place of ``scop.nodes`` with :func:`replace_part`. Raises
    :class:`PassFailed` for a part it cannot regenerate (see the module
    docstring), or whose code isl does not generate in :data:`AST_SECONDS`
    (less when ``clock`` has less left). With ``deps`` and the environment
    variable ``PASSMAN_CHECK_AST`` set, the AST isl generated is checked
    against them (:mod:`.ast_check`; seconds to minutes per part): where
    isl's ``atomic`` loops break the schedule, the default loop types are
    tried, and the part is refused if they break it too.
    """
    live = _check_part(module, scop)  # here: it reads (and caches) the function's analyses
    seconds = AST_SECONDS if clock is None else min(AST_SECONDS, clock.left())
    check = deps is not None and bool(os.environ.get("PASSMAN_CHECK_AST"))
    if check:  # the check may take minutes: only isl's generation is timed (in a child, then again here)
        return _generate(module, scop, schedule, live, iterator_prefix, deps, seconds)
    # isl's AST generation can take minutes (unequal tiles in a wavefront): a child process
    # generates the code under a time limit and sends the C statements back
    return _timed(scop, seconds, lambda: _generate(module, scop, schedule, live, iterator_prefix, None, None))


T = TypeVar("T")


def _timed(scop: Scop, seconds: float, fn: Callable[[], T]) -> T:
    """``fn()``, isl's code generation for ``scop``, in a child process given ``seconds``; PassFailed past them."""
    try:
        return run_with_deadline(fn, seconds, what="isl's code generation")
    except DeadlineExceeded:
        raise PassFailed(
            f"{scop.where}: isl's code generation did not finish in {seconds:.0f} s; "
            "the part is left as it is"
        ) from None


def _generate(
    module: Module,
    scop: Scop,
    schedule: isl.Schedule,
    live: set[int],
    iterator_prefix: str,
    deps: Iterable[Dependence] | None,
    guard: float | None,
) -> list[c_ast.Node]:
    """:func:`generate`'s work, here; with ``deps``, isl's AST is checked against them; with ``guard``,
    isl's AST generation is first tried in a child for that many seconds."""
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    names = []
    depth = max(s.depth for s in scop.statements)  # isl scans unscheduled dimensions too
    for k in range(_band_members(schedule) + depth):
        base, n = f"{iterator_prefix}{k}", 0
        name = base
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        names.append(name)
    ids = isl.IdList.alloc(ctx(), len(names))
    for n in names:
        ids = ids.add(isl.Id(n, context=ctx()))
    build = isl.AstBuild.from_context(scop.context).set_iterators(ids)
    schedule = schedule.align_params(schedule.get_map().get_space())  # parameters only bands use
    coords: list[tuple[int, list[isl.AstExpr]]] = []
    prefixes: list[isl.UnionMap] = []
    tree = _ast(build, _bind_marks(_loop_types(schedule), names, prefixes), scop, guard, coords, prefixes)
    if deps is not None:
        why = _ast_problem(tree, scop, names, deps)
        if why is not None:  # isl's atomic loops broke the schedule: its default types
            prefixes.clear()
            tree = _ast(build, _bind_marks(schedule, names, prefixes), scop, guard, coords, prefixes)
            why = _ast_problem(tree, scop, names, deps)
        if why is not None:
            raise PassFailed(f"{scop.where}: isl's code for the new schedule is wrong: {why}")
    itype, casts, var_types = _types(module, scop)
    conv = AstConverter(
        scop, set(names), itype, scop.nodes[0].coord, casts=casts, var_types=var_types
    )
    conv.owner = _branch_owners(scop)
    conv.task_coords = coords
    hoisted, conv.split = _hoisted_declarations(module, scop)
    out = _rejoin(hoisted + conv.nodes(tree), hoisted, conv)
    _check_copies(scop, conv.instances)
    if conv.holes:
        out = _fill_holes(scop, out, conv)
    _check_declarations(module, scop, out, conv.instances, hoisted)
    for inst in conv.instances:
        if (
            id(inst.stmt.node) in live
            and inst.stmt.name not in conv.split
            and not any(n is inst.root for n in out)
        ):
            raise PassFailed(
                f"{where(inst.stmt.node)}: cannot regenerate the part at {scop.where}: the declaration of "
                f"{inst.stmt.node.name}, used after the part, would move into a block"
            )
    return out


#: copies of one statement beyond which the generated code is refused: isl separated a skewed
#: nest of three statements over a parameter into 26 guarded copies of each, on which the
#: analyses of the next pass took 20 s (fuzz case timeout_statement_copies); the corpus's OpenMP and OpenCL
#: outputs repeat a statement at most 4 times
MAX_STATEMENT_COPIES = 12


def _check_copies(scop: Scop, instances: Sequence[Instance]) -> None:
    """Refuse code that repeats a statement more than :data:`MAX_STATEMENT_COPIES` times."""
    counts: dict[str, int] = {}
    for inst in instances:
        counts[inst.stmt.name] = counts.get(inst.stmt.name, 0) + 1
    for stmt in scop.statements:
        n = counts.get(stmt.name, 0)
        if n > MAX_STATEMENT_COPIES:
            raise PassFailed(
                f"{scop.where}: isl's code for the new schedule would repeat the statement at "
                f"{where(stmt.node)} {n} times (at most {MAX_STATEMENT_COPIES}: past that the code is "
                "neither readable nor cheap to analyse)"
            )


def _ast(build: isl.AstBuild, schedule: isl.Schedule, scop: Scop, guard: float | None,
         coords: list[tuple[int, list[isl.AstExpr]]], prefixes: Sequence[isl.UnionMap]) -> isl.AstNode:
    """isl's AST of ``schedule``; with ``guard``, PassFailed when a child takes longer than that many seconds.

    ``coords`` (emptied first) receives, for each tagged task mark isl generates
    (:func:`_bind_marks`), its tag and the value of every dimension of its prefix schedule
    (``prefixes[tag]``) as isl expressions over the loops around it; the mark's AST node is
    annotated with its index there (:data:`.isl_ast.TASK_COORDS`).
    """
    if guard is not None:
        _timed(scop, guard, lambda: build.node_from_schedule(schedule) and None)
    coords.clear()
    failed: list[str] = []

    def after_mark(node: isl.AstNode, at: isl.AstBuild) -> isl.AstNode:
        text, tag, index = node.mark_get_id().get_name().partition(MARK_LOOP)[0].rpartition(TASK_TAG)
        if not tag or not text.startswith(TASK_MARK) or failed:
            return node
        try:  # islpy ignores what a callback raises: keep it
            # the prefix dimensions as functions of the loops isl generated around the mark:
            # those it generated away (one value) are functions of the others
            rel = at.get_schedule().reverse().apply_range(prefixes[int(index)])
            if rel.is_empty() or not rel.is_single_valued():
                failed.append("a task's coordinates are not a function of the loops around it")
                return node
            values = isl.PwMultiAff.from_map(isl.Map.from_union_map(rel))
            coords.append((int(index), [at.expr_from_pw_aff(values.get_pw_aff(k))
                                        for k in range(values.dim(isl.dim_type.out))]))
        except Exception as err:  # noqa: BLE001 - refused below, with its text
            failed.append(f"a task's coordinates: {err}")
            return node
        # isl generates the pieces of a separated loop in its own order: the mark's annotation
        # says which coordinates are its own
        return node.set_annotation(isl.Id(f"{TASK_COORDS}{len(coords) - 1}", context=ctx()))

    marked, _handle = build.set_after_each_mark(after_mark)
    tree = marked.node_from_schedule(schedule)
    if failed:
        raise PassFailed(f"{scop.where}: cannot regenerate the part: {failed[0]}")
    return tree


def _ast_problem(
    tree: isl.AstNode, scop: Scop, names: list[str], deps: Iterable[Dependence]
) -> str | None:
    """Why ``tree`` breaks a dependence of ``deps`` (:func:`.ast_check.ast_violation`), or None."""
    rels = [(d.relation, f"{d.kind} dependence {d.why()}") for d in deps if not d.relation.is_empty()]
    try:
        return ast_violation(tree, scop.domain(), scop.context, list(scop.params), names, rels)
    except Unreadable as err:
        return f"its expression {err} cannot be checked"


def _fill_holes(scop: Scop, out: list[c_ast.Node], conv: AstConverter) -> list[c_ast.Node]:
    """Let each data-dependent ``if`` execute its branches: remove their holes that follow it.

    The copy of an ``if`` statement holds its branches as written. That is
    the scheduled order only when the instances of its branches of the same
    iteration are exactly the items that follow it in its block (holes with
    the same loop arguments, nothing else); then those items are dropped.
    Any other hole means the schedule separates a branch from its condition.
    """
    conds = {id(i.root): i for i in conv.instances if isinstance(i.stmt.node, c_ast.If)}
    roots = {id(i.root) for i in conv.instances}
    filled: set[int] = set()

    def follows(item: c_ast.Node, cond: Instance) -> bool:
        found = [n for n in walk(item) if id(n) in roots or id(n) in conv.holes]
        holes = [conv.holes.get(id(n)) for n in found]
        d = cond.stmt.depth
        if not found or any(
            h is None
            or conv.owner[h.stmt.name] != cond.stmt.name
            or not all(same_tree(a, b) for a, b in zip(h.args[:d], cond.args[:d]))
            for h in holes
        ):
            return False
        filled.update(id(n) for n in found)
        return True

    def block(items: list[c_ast.Node]) -> list[c_ast.Node]:
        kept: list[c_ast.Node] = []
        k = 0
        while k < len(items):
            n = items[k]
            k += 1
            kept.append(n)
            cond = conds.get(id(n))
            if cond is not None:
                while k < len(items) and follows(items[k], cond):
                    k += 1
                continue
            inside(n)
        return kept

    def inside(n: c_ast.Node) -> None:
        if isinstance(n, c_ast.Compound):
            n.block_items = block(n.block_items or [])
        for attr in ("stmt", "iftrue", "iffalse"):
            sub = getattr(n, attr, None) if isinstance(n, (c_ast.For, c_ast.If)) else None
            if isinstance(sub, (c_ast.Compound, c_ast.For, c_ast.If)):
                inside(sub)
            if isinstance(sub, c_ast.Compound) and len(sub.block_items) == 1:
                only = sub.block_items[0]
                dangling = attr == "iftrue" and n.iffalse is not None and isinstance(only, c_ast.If)
                if not isinstance(only, (c_ast.Decl, c_ast.Pragma)) and not dangling:
                    setattr(n, attr, only)

    out = block(out)
    for key, h in conv.holes.items():
        if key not in filled:
            cond = scop.statement(conv.owner[h.stmt.name])
            raise PassFailed(
                f"{where(h.stmt.node)}: cannot regenerate the part at {scop.where}: the new order separates "
                f"statement {h.stmt.name} from the condition of its if ({where(cond.node)}), which is not affine"
            )
    return out


def _check_declarations(
    module: Module,
    scop: Scop,
    out: list[c_ast.Node],
    instances: list[Instance],
    hoisted: list[c_ast.Decl],
) -> None:
    """Every variable of the generated code is the one of the original code, of the same iteration.

    A name declared in the part must, in each statement copy, still refer to
    the declaration it referred to (a copy of it, for the same values of its
    enclosing loops, or the same variable outside the part).
    """
    declared = _part_declarations(scop)
    if not declared:
        return
    table = function_facts(module).names
    names = {d.name for d in declared}
    outside = {name: object() for name in names}
    bound = resolve_names(c_ast.Compound(out), outside).binding
    origin: dict[int, tuple[c_ast.Decl, Instance | None]] = {
        id(i.root): (i.stmt.node, i) for i in instances if isinstance(i.root, c_ast.Decl)
    }
    originals = [d for d in scop.nodes if isinstance(d, c_ast.Decl)]
    for copy in hoisted:
        d = next(o for o in originals if o.name == copy.name)
        origin[id(copy)] = (d, None)
    part_decls = {id(d) for d in declared}
    for inst in instances:
        node = inst.stmt.node
        meant: dict[str, set[int]] = {node.name: {id(node)}} if isinstance(node, c_ast.Decl) else {}
        for n in walk(node):
            if isinstance(n, c_ast.ID) and n.name in names:
                meant.setdefault(n.name, set()).add(id(table.decl_of(n)))
        own = {id(n) for n in walk(inst.root)}
        for n in walk(inst.root):
            if not isinstance(n, c_ast.ID) or n.name not in names:
                continue
            b = bound.get(id(n))
            if id(b) in own:
                continue  # declared inside the statement itself (the branch of a copied if)
            want = meant.get(n.name, set())
            decl, made = origin.get(id(b), (None, None))
            head = f"{where(inst.stmt.node)}: cannot regenerate the part at {scop.where}: the new order"
            if decl is None and want & part_decls:
                d = next(d for d in declared if id(d) in want)
                raise PassFailed(f"{head} separates {n.name} from its declaration ({where(d)})")
            if decl is not None and id(decl) not in want:
                raise PassFailed(
                    f"{head} puts {n.name} in the scope of another declaration ({where(decl)})"
                )
            if made is not None and made is not inst:
                k = made.stmt.depth
                if not all(same_tree(a, c) for a, c in zip(made.args[:k], inst.args[:k])):
                    raise PassFailed(
                        f"{where(inst.stmt.node)}: cannot regenerate the part at {scop.where}: the new order "
                        f"reads {n.name} of another iteration than the one declaring it ({where(decl)})"
                    )


def _part_declarations(scop: Scop) -> list[c_ast.Decl]:
    """The variables declared in the part, except the loop variables declared in a for-init."""
    return [
        d
        for top in scop.nodes
        for d in walk(top)
        if isinstance(d, c_ast.Decl) and d.name and not _is_for_init_decl(top, d)
    ]


def replace_part(module: Module, scop: Scop, nodes: Iterable[c_ast.Node]) -> None:
    """Put ``nodes`` (from :func:`generate`) in place of the part's statements, inside a transformation.

    The ``#pragma`` lines right before the part applied to its first loop,
    which no longer exists: they are removed (a schedule expresses parallel
    loops with pragma marks).
    """
    nodes = list(nodes)
    first = scop.nodes[0]
    parent = parent_map(module.ast).get(id(first))
    if parent is None:
        raise PassFailed(f"{scop.where}: the part is no longer in {module.name}")
    items = getattr(parent, "block_items", None)
    if items is None and isinstance(parent, (c_ast.Case, c_ast.Default)):
        items = parent.stmts
    if items is None:
        replace_child(
            parent, first, nodes[0] if len(nodes) == 1 else c_ast.Compound(nodes, first.coord)
        )
        return
    start = next(k for k, n in enumerate(items) if n is first)
    start -= len(pragmas_before(parent, first)) if isinstance(parent, c_ast.Compound) else 0
    end = next(k for k, n in enumerate(items) if n is scop.nodes[-1]) + 1
    items[start:end] = nodes
