"""Multi-layer SOR (Di 2013, ch. 6): Gauss-Seidel/SOR sweeps reordered into parallel tiles.

    passman run mlsor app.c -o out --build --run
    passman run mlsor app.c --set size=16 --set layers=8 -o out

**This recipe changes the program's results.** MLSOR does not preserve the
dependences of the sweep: the new values are those of the same iterative
method with its updates in another order, which converges to the same
solution but is not bit-identical to the sequential sweeps. Running this
recipe is the opt-in; no other recipe or pass applies it. Check the result as
one checks a solver: by its residual (``tests/corpus/sor_2d.c`` prints it).

What it applies to: a time loop of in-place sweeps over a 2-D grid, exactly
(every loop counted with step 1, the space bounds invariant)::

    for (t = 0; t < sweeps; t++)
        for (i = 1; i < n - 1; i++)
            for (j = 1; j < n - 1; j++)
                u[i][j] = (1.0 - omega) * u[i][j]
                          + omega * 0.25 * (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1] - f[i][j]);

one assignment to ``u[i][j]`` in a static control part, reading ``u`` only
at its nearest neighbours (offsets in ``{-1, 0, 1}``, the four of the
5-point stencil among them: 9-point Gauss-Seidel qualifies), other arrays
and scalars it does not write, and not the time index (distinct arrays are assumed not
to overlap, as in the polyhedral passes). The time loop may sit in other
loops; the indices ``i`` and ``j`` must be dead after the nest. Anything else is refused with
``PassFailed`` and a reason, and the workspace is unchanged; the recipe
transforms every sweep it recognizes and refuses when there is none.

After (``size=P``, ``layers=K``; shape)::

    for (t = 0; t < sweeps; t += (sweeps - t < K ? sweeps - t : K)) {
        const long layers = sweeps - t < K ? sweeps - t : K;
        for (long phase = 0; phase < 4; phase++) {         // T11, T12, T21, T22
            #pragma omp parallel for collapse(2) schedule(static) private(i, j)
            for (long si = 0; si < (n - 1 - 1 + P - 1) / P; si++)
                for (long sj = 0; sj < ...; sj++)            // every subdomain at once
                    for (long k = 0; k < layers; k++) {      // its tile, layer by layer
                        const long i_cut = ..., i_mid = ..., i_next = ...;
                        const long j_cut = ..., j_mid = ..., j_next = ...;
                        for (i = phase < 2 ? i_cut : i_mid; i < (phase < 2 ? i_mid : i_next); i++)
                            for (j = phase % 2 == 0 ? j_cut : j_mid; ...; j++)
                                u[i][j] = ...;               // the statement as it was
                    }
        }
    }

The order (Di §6.4, with P the subdomain side): K consecutive sweeps are one
block of layers ``k = 0 .. K-1``. In each dimension subdomain ``s`` covers,
at layer ``k``, ``[lo + s*P + k, lo + (s+1)*P + k)`` (it drifts one point per
layer; the first starts at ``lo``, everything is clipped to the grid) and is
cut at ``lo + s*P + P - 1 - k`` into tile 1 (shrinking by two points a
layer) and tile 2 (the strip around the next cut, growing). The 2x2 tiles of
every subdomain run in four phases, T11, T12, T21, T22; the tiles of a
phase run in parallel, each tile all its layers in the original order.
Points whose neighbour belongs to a later phase read that neighbour's value
from the previous layer, which their own subdomain computed (the drift makes
it so); the others read what the sequential sweeps read, or newer values.

Determinism (checked with isl each time, :func:`check_tiling`): in one
dimension the tiles partition every layer of the grid, and within a phase
no tile writes a point another tile of that phase reads or writes (reads
reach one point beyond a tile). A 2-D tile is a product of two 1-D tiles,
so two tiles of one phase differ in some dimension, where their written and
read intervals are disjoint: the parallel code computes what the four
phases compute sequentially, for any number of threads. That needs
``K <= P/2`` (Di's choice, ``K = floor(P/2)``, is the default).

Options (``--set NAME=VALUE``):

* ``size`` (default 32): the subdomain side P, in points;
* ``layers`` (default 0: ``size // 2``): the sweeps per block K, 1 to ``size // 2``;
* ``loop``: the label of the time loop to transform (default: every one recognized);
* ``verbose``: say what was transformed and why the other nests were not.

Not done: the backward sweeps of Di's symmetric MLSOR (K forward then K
backward layers), the multi-GPU halo exchanges and a GPU kernel; a
convergence test inside the time loop (``while (r > tol) { sweep; r = ...; }``)
is not recognized: check every few sweeps around a time loop instead, as
``sor_2d.c`` does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache

import islpy as isl
from passman.passes.analysis.effect_model import current_scope
from passman.passes.analysis.liveness import liveness
from passman.passes.cfacts.names import fresh_name, names_in_scope, where
from passman.passes.cfacts.sideeffects import variables
from passman.passes.loops.counted import CountedLoop, check_invariant_bounds, counted_loop
from passman.passes.poly.scop import Access, Scop, Statement
from pycparser import c_ast, c_parser

from passman import InvalidInput, Loop, Module, PassFailed
from passman.astutil import copy_node, replace_child, strip_labels, walk
from passman.printer import to_c

#: ``--build`` and ``--run`` use the OpenMP backend (-fopenmp)
BACKEND = "openmp"

#: what refusals say the recipe looks for
VERB = "not an SOR sweep"

#: the neighbours every recognized sweep reads (the 5-point stencil's, besides the centre)
AXIS_NEIGHBOURS = frozenset({(-1, 0), (1, 0), (0, -1), (0, 1)})


@dataclass(frozen=True)
class Sweep:
    """A recognized time loop of in-place sweeps: its three counted loops and the statement."""

    module: Module
    time: CountedLoop
    rows: CountedLoop
    cols: CountedLoop
    statement: c_ast.Node
    array: str
    #: the ``(di, dj)`` offsets at which the statement reads the array
    offsets: frozenset[tuple[int, int]]
    #: indices ``i``, ``j`` declared outside the nest (reused and made private)
    outer_indices: tuple[str, ...]


@dataclass
class Done:
    """What the recipe did: ``function/loop`` of the sweeps transformed, and why the others were not."""

    transformed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------ recognition


def only_statement(node: c_ast.Node) -> c_ast.Node | None:
    """The single statement of a loop body (``{ s; }`` or ``s``), None if there are several."""
    if isinstance(node, c_ast.Compound):
        items = node.block_items or []
        return only_statement(items[0]) if len(items) == 1 else None
    return strip_labels(node)


def nest_of(loop: Loop) -> tuple[Loop, Loop] | None:
    """The two loops of a perfect 3-deep nest under ``loop`` (its only child, and that one's), or None."""
    rows = loop.loops()
    if len(rows) != 1 or only_statement(loop.node.stmt) is not rows[0].node:
        return None
    cols = rows[0].loops()
    if len(cols) != 1 or only_statement(rows[0].node.stmt) is not cols[0].node or cols[0].loops():
        return None
    return rows[0], cols[0]


def fail(loop: Loop, what: str) -> PassFailed:
    """``file:line: loop L of f: not an SOR sweep: <what>``."""
    return PassFailed(f"{where(loop.node)}: loop {loop.label} of {loop.module.name}: {VERB}: {what}")


def offset(write: Access, read: Access) -> tuple[int, int] | None:
    """The constant ``(di, dj)`` from the element written (``a[i][j]``) to the one read (None: not constant)."""
    delta = write.relation.reverse().apply_range(read.relation).deltas()
    if delta.is_empty() or not delta.is_singleton():
        return None
    point = delta.sample_point()
    return tuple(point.get_coordinate_val(isl.dim_type.set, k).to_python() for k in range(2))


def scop_statement(module: Module, time: Loop, node: c_ast.Node) -> Statement:
    """The statement of the static control part holding the time loop, or a refusal saying why not."""
    scops = module.resource("scops")
    part: Scop | None = scops.for_loop(time.label)
    if part is None:
        raise fail(time, f"not a static control part ({scops.reason(time.label)})")
    stmt = scops.statement(node)
    if stmt is None or stmt.depth < 3 or stmt.loops[-3].node is not time.node:
        raise fail(time, "the sweep's statement is not in its static control part")
    return stmt


def recognize(time: Loop) -> Sweep:
    """Read ``time`` as a time loop of in-place 2-D sweeps (module docstring), or refuse."""
    nest = nest_of(time)
    if nest is None:
        raise fail(time, "its body is not a 2-deep perfect nest of one statement")
    loops = [counted_loop(lp, VERB) for lp in (time, *nest)]
    for cl in loops:
        if cl.step != 1:
            raise fail(cl.loop, f"loop {cl.index} steps by {cl.step}, not 1")
        check_invariant_bounds(cl, VERB)
    tl, rl, cl_ = loops
    module = time.module
    scope = current_scope(module)
    env, table = scope.types, scope.names
    for inner, outer in ((rl, [tl]), (cl_, [tl, rl])):
        for bound in (inner.lb, inner.ub_source):
            used = {v.name for v in variables(bound)} & {o.index for o in outer}
            if used:
                raise fail(inner.loop, f"bound {to_c(bound)} of {inner.index} uses {sorted(used)[0]}: "
                           "the grid is not a rectangle")
            if env.expr_category(bound) != "signed":
                raise fail(inner.loop, f"bound {to_c(bound)} of {inner.index} is not a signed integer")
    node = only_statement(cl_.node.stmt)
    target = f"{rl.index}][{cl_.index}"
    match node:
        case c_ast.Assignment(op="=", lvalue=c_ast.ArrayRef(
                name=c_ast.ArrayRef(name=c_ast.ID(name=array), subscript=c_ast.ID(name=i)),
                subscript=c_ast.ID(name=j))) if (i, j) == (rl.index, cl_.index):
            pass
        case _:
            raise fail(time, f"{where(node)}: the statement is not an assignment to a[{target}]")
    if tl.index in {v.name for v in variables(node)}:
        raise fail(time, f"{where(node)}: the statement uses the time index {tl.index}")
    stmt = scop_statement(module, time, node)
    writes = stmt.writes()
    if len(writes) != 1 or writes[0].may:
        raise fail(time, f"{where(node)}: the statement writes more than {array}[{target}]")
    offsets = set()
    for read in stmt.reads():
        if read.var != array:
            continue
        d = offset(writes[0], read) if read.affine and not read.may else None
        if d is None or max(abs(x) for x in d) > 1:
            raise fail(time, f"{where(node)}: reads {read.text}, not a nearest neighbour of {array}[{target}]")
        offsets.add(d)
    missing = sorted(AXIS_NEIGHBOURS - offsets)
    if missing:
        ref = "".join(f"[{index_text(x, d)}]" for x, d in zip((rl.index, cl_.index), missing[0]))
        raise fail(time, f"{where(node)}: no read of {array}{ref} (not an in-place 5-point sweep)")
    live = liveness(module.ast, table, env)
    outer = []
    for cl in (rl, cl_):
        if cl.index_decl is not None:
            continue
        decl = table.decl_of(cl.index_ref)
        if live.live_after(time.node, decl):
            raise fail(time, f"index {cl.index} is read after the nest: its final value would change")
        outer.append(cl.index)
    return Sweep(module, tl, rl, cl_, node, array, frozenset(offsets), tuple(outer))


def index_text(index: str, d: int) -> str:
    """``i``, ``i + 1`` or ``i - 1``."""
    return index if d == 0 else f"{index} {'+' if d > 0 else '-'} {abs(d)}"


def candidates(module: Module) -> list[Loop]:
    """The loops heading a perfect 3-deep nest (the only shape :func:`recognize` accepts)."""
    return [lp for lp in module.all_loops if nest_of(lp) is not None]


# ------------------------------------------------------------------------ the tiles


@cache
def check_tiling(size: int, layers: int) -> None:
    """Check with isl that the 1-D tiles partition every layer and race within no phase (or InvalidInput).

    Tile ``a`` (1 or 2) of subdomain ``s`` at layer ``k`` over ``lo <= i <
    hi``, parametric in ``lo`` and ``hi``, as :func:`dimension_bounds`
    generates it; a tile reads one point beyond what it writes on either side.
    """
    P, K = size, layers
    grid = f"0 <= k < {K} and s >= 0 and lo + {P}*s < hi and lo <= i < hi"
    tiles = {
        1: f"{grid} and (s = 0 or i >= lo + {P}*s + k) and i < lo + {P}*s + {P - 1} - k",
        2: f"{grid} and i >= lo + {P}*s + {P - 1} - k and i < lo + {P}*s + {P} + k",
    }
    layer = isl.Set(f"[lo, hi] -> {{ [k, i] : 0 <= k < {K} and lo <= i < hi }}")
    owner = isl.Map(f"[lo, hi] -> {{ [k, i] -> [a, s] : (a = 1 and {tiles[1]}) or (a = 2 and {tiles[2]}) }}")
    if not owner.domain().is_equal(layer) or not owner.is_single_valued():
        raise InvalidInput(f"error: size={P}, layers={K}: the tiles do not partition every layer")
    for a, tile in tiles.items():
        writes = isl.Map(f"[lo, hi] -> {{ [s] -> [i] : exists (k : {tile}) }}")
        reads = isl.Map(f"[lo, hi] -> {{ [s] -> [r] : exists (k, i : {tile} and i - 1 <= r <= i + 1) }}")
        clash = writes.apply_range(reads.reverse())
        if not clash.subtract(isl.Map("[lo, hi] -> { [s] -> [s] }")).is_empty():
            raise InvalidInput(f"error: size={P}, layers={K}: two tiles of phase {a} touch the same point "
                               f"(layers must be at most size // 2 = {P // 2})")


def grouped(e: c_ast.Node) -> str:
    """``e`` as C text, parenthesized unless it is a name or a constant."""
    text = to_c(e).strip()
    return text if isinstance(e, (c_ast.ID, c_ast.Constant)) else f"({text})"


def dimension_bounds(cl: CountedLoop, size: int, s: str, k: str) -> tuple[str, str, str, str]:
    """C text of the subdomain count and, for subdomain ``s`` at layer ``k``, its cut, split and next cut.

    Tile 1 is ``[cut, mid)``, tile 2 ``[mid, next)``; clipped to the loop's
    range ``[lo, hi)``, the first subdomain starting at ``lo`` (see
    :func:`check_tiling`).
    """
    lo, hi = grouped(cl.lb), grouped(cl.ub)

    def clip(e: str) -> str:
        return f"{e} < {hi} ? {e} : {hi}"

    base = f"{lo} + {size} * {s}"
    count = f"({hi} - {lo} + {size - 1}) / {size}"
    cut = f"{s} == 0 ? {lo} : ({clip(f'{base} + {k}')})"
    return count, cut, clip(f"{base} + {size - 1} - {k}"), clip(f"{base} + {size} + {k}")


PLACEHOLDER = "passman_mlsor_statement"


def mlsor_loop(sweep: Sweep, size: int, layers: int, taken: set[str]) -> c_ast.For:
    """The MLSOR time loop replacing ``sweep.time`` (module docstring), as a new AST."""
    fresh = {base: fresh_name(base, taken) for base in ("layers", "phase", "si", "sj", "k")}
    n_layers, phase, si, sj, k = fresh.values()
    rows, cols, time = sweep.rows, sweep.cols, sweep.time
    t, ub = time.index, grouped(time.ub)
    names = {}
    for cl, s, tag in ((rows, si, rows.index), (cols, sj, cols.index)):
        count, cut, mid, nxt = dimension_bounds(cl, size, s, k)
        names[tag] = [fresh_name(f"{tag}_{what}", taken) for what in ("cut", "mid", "next")]
        names[tag + "#"] = (count, cut, mid, nxt)
    i, j = rows.index, cols.index
    ic, im, inx = names[i]
    jc, jm, jnx = names[j]
    icount, icut, imid, inext = names[i + "#"]
    jcount, jcut, jmid, jnext = names[j + "#"]
    private = f" private({', '.join(sweep.outer_indices)})" if sweep.outer_indices else ""
    decl_i = "" if i in sweep.outer_indices else "int "
    decl_j = "" if j in sweep.outer_indices else "int "
    text = f"""
void passman_mlsor(void)
{{
    for ({t} = 0; {t} < {ub}; {t} += {ub} - {t} < {layers} ? {ub} - {t} : {layers})
    {{
        const long {n_layers} = {ub} - {t} < {layers} ? {ub} - {t} : {layers};
        for (long {phase} = 0; {phase} < 4; {phase}++)
        {{
            #pragma omp parallel for collapse(2) schedule(static){private}
            for (long {si} = 0; {si} < {icount}; {si}++)
                for (long {sj} = 0; {sj} < {jcount}; {sj}++)
                    for (long {k} = 0; {k} < {n_layers}; {k}++)
                    {{
                        const long {ic} = {icut}, {im} = {imid}, {inx} = {inext};
                        const long {jc} = {jcut}, {jm} = {jmid}, {jnx} = {jnext};
                        for ({decl_i}{i} = {phase} < 2 ? {ic} : {im}; {i} < ({phase} < 2 ? {im} : {inx}); {i}++)
                            for ({decl_j}{j} = {phase} % 2 == 0 ? {jc} : {jm}; {j} < ({phase} % 2 == 0 ? {jm} : {jnx}); {j}++)
                                {PLACEHOLDER};
                    }}
        }}
    }}
}}
"""
    func = c_parser.CParser().parse(text).ext[0]
    loop = func.body.block_items[0]
    loop.init, loop.cond = copy_node(time.node.init), copy_node(time.node.cond)
    holes = [(node, child) for node in walk(loop) for _, child in node.children()
             if isinstance(child, c_ast.ID) and child.name == PLACEHOLDER]
    for node, child in holes:
        replace_child(node, child, copy_node(sweep.statement))
    return loop


def transform(module: Module, sweeps: list[Sweep], size: int, layers: int) -> None:
    """Replace every sweep of ``module`` by its MLSOR loop (one change of the function's code)."""
    func = copy_node(module.ast)
    where_in = {id(n): k for k, n in enumerate(walk(module.ast))}
    copies = list(walk(func))
    parents = {id(child): node for node in copies for _, child in node.children()}
    taken = names_in_scope(module.ast, module.cu.ast.ext)
    for sweep in sweeps:
        old = copies[where_in[id(sweep.time.node)]]
        replace_child(parents[id(old)], old, mlsor_loop(sweep, size, layers, taken))
    module.code = to_c(func, hidden_labels=module.ws.generated_labels)


# ------------------------------------------------------------------------ the recipe


def main(ws, size: int = 32, layers: int = 0, loop: str = "", verbose: bool = False) -> Done:
    """Reorder every recognized SOR time loop into MLSOR's parallel tiles (module docstring); opt-in."""
    layers = layers or size // 2
    if size < 2 or not 1 <= layers <= size // 2:
        raise InvalidInput(f"error: mlsor needs size >= 2 and 1 <= layers <= size // 2, not size={size}, "
                           f"layers={layers}")
    check_tiling(size, layers)
    done = Done()
    found: dict[str, list[Sweep]] = {}
    named = False
    for module in ws.all_functions:
        if module.is_stub:
            continue
        for time in candidates(module):
            if loop and time.label != loop:
                continue
            named = True
            try:
                sweep = recognize(time)
            except PassFailed as why:
                done.kept.append(str(why))
                continue
            found.setdefault(module.name, []).append(sweep)
            done.transformed.append(f"{module.name}/{time.label}")
    if loop and not named:
        raise InvalidInput(f"error: no 3-deep loop nest labelled '{loop}' (the time loop of a sweep)")
    if not found:
        reasons = "; ".join(done.kept) or "no time loop around a 2-deep nest of one statement"
        raise PassFailed(f"mlsor: no SOR sweep to reorder: {reasons}")
    for name, sweeps in found.items():
        transform(ws[name], sweeps, size, layers)
    if verbose:
        for what in done.transformed:
            print(f"passman: mlsor: {what}: {size}x{size} subdomains, {layers} layers")
        for why in done.kept:
            print(f"passman: mlsor: kept {why}")
    return done
