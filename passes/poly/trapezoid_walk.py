"""The C shape of Pochoir's trapezoidal walk (Frigo-Strumpen, Tang et al. 2011; Freitag 2014 §2.1).

A Jinja2 template of the recursive function ``trapezoid_tile``
(:mod:`.trapezoid_tiling`) writes, and of the call that replaces the time
loop. The function walks a hypertrapezoid ``(t0, t1; x0[i], x1[i],
s0[i], s1[i])``: the points ``t0 <= t < t1``, ``x0[i] + s0[i]*(t - t0) <=
x[i] < x1[i] + s1[i]*(t - t0)`` of the pseudo time ``t`` and the space
coordinates ``x`` of the part's instances. In that order:

1. nothing when the trapezoid misses the box of the instances, or has no
   point (both its first and its last row empty);
2. the *hyperspace cut*: every dimension whose longer base exceeds its
   width threshold and whose shorter base is at least ``2*sigma*dt``
   (Freitag's erratum E3) is trisected, upright ones at
   ``m = x0 + s0*dt + top/2`` into ``L (x0, m; s0, -sigma)``, ``C (m, m;
   -sigma, +sigma)``, ``R (m, x1; +sigma, s1)``, inverted ones at ``m = x0
   + bottom/2`` into ``L (x0, m - sigma*dt; s0, +sigma)``, ``C (m -
   sigma*dt, m + sigma*dt; +sigma, -sigma)``, ``R (m + sigma*dt, x1;
   -sigma, s1)`` (errata E1, E2); a piece's level is the number of cut
   dimensions in which it is the dependent one (``C`` upright, ``L``/``R``
   inverted); the levels run in turn, the pieces of a level as OpenMP tasks
   and a ``taskwait`` (Pochoir's ``cilk_spawn``/``cilk_sync``);
3. else the *timecut* when ``dt >= 2`` and ``dt`` exceeds the time
   threshold: the lower half, then the upper one;
4. else the base case (``NAME_base``): each row ``t`` in turn, the part's
   statements at that pseudo time, clipped to the row (the code isl
   generates from the part's domains restricted by the parameters ``tp``,
   ``lo[i]``, ``hi[i]``, placed where the template says ``BASE_CASE``).

The dynamic traversal (Freitag §3.5) of a precomputed tile dependence
graph (:class:`TileTable`) runs the same base case per tile: ``NAME_node``
runs a tile, then decrements the pending count of each successor
(``#pragma omp atomic capture seq_cst``: the task that releases a
successor has seen the writes of all its predecessors) and spawns the
successors it released as tasks; no barrier.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from passman.templating import c_environment

#: prefix of every name the walk and its call declare (refused when the function uses one)
PREFIX = "trap_"
#: the parameter standing for the kernel's parameters (replaced by them after parsing)
ARGS = PREFIX + "args"
#: the statement standing for the base case (replaced by isl's code after parsing)
BASE_CASE = PREFIX + "base_case"


class _Template:
    """A Jinja2 template compiled on its first use (compiling the four at import cost 24 ms of
    every passman start, most of which never tile a stencil)."""

    def __init__(self, source: str):
        self.source = source
        self.compiled = None

    def render(self, **values) -> str:
        if self.compiled is None:
            self.compiled = c_environment().from_string(self.source)
        return self.compiled.render(**values)


_BASE = _Template("""\
static void {{ name }}_base(int {{ args }}, long trap_t0, long trap_t1, const long *trap_x0, const long *trap_x1,
                            const long *trap_s0, const long *trap_s1)
{
    for (long trap_tp = trap_t0; trap_tp < trap_t1; trap_tp++) {
{% for i in range(d) %}
        long trap_lo{{ i }} = trap_x0[{{ i }}] + trap_s0[{{ i }}] * (trap_tp - trap_t0);
        long trap_hi{{ i }} = trap_x1[{{ i }}] + trap_s1[{{ i }}] * (trap_tp - trap_t0);
{% endfor %}
        {{ base }};
    }
}
""")

_WALK = _Template("""\
static void {{ name }}(int {{ args }}, long trap_t0, long trap_t1, const long *trap_x0, const long *trap_x1,
                       const long *trap_s0, const long *trap_s1, const long *trap_box)
{
    const long trap_sigma[{{ d }}] = { {{ sigmas | join(", ") }} };
    const long trap_width[{{ d }}] = { {{ widths | join(", ") }} };
    long trap_dt = trap_t1 - trap_t0;
    int trap_cut[{{ d }}];
    int trap_k = 0;
    if (trap_t1 <= trap_box[0] || trap_t0 >= trap_box[1])
        return;
    for (int trap_i = 0; trap_i < {{ d }}; trap_i++) {
        long trap_bottom = trap_x1[trap_i] - trap_x0[trap_i];
        long trap_grow = trap_s1[trap_i] - trap_s0[trap_i];
        long trap_top = trap_bottom + trap_grow * trap_dt;
        long trap_last = trap_bottom + trap_grow * (trap_dt - 1);
        long trap_low = trap_x0[trap_i] + (trap_s0[trap_i] < 0 ? trap_s0[trap_i] * (trap_dt - 1) : 0);
        long trap_high = trap_x1[trap_i] + (trap_s1[trap_i] > 0 ? trap_s1[trap_i] * (trap_dt - 1) : 0);
        if ((trap_bottom <= 0 && trap_last <= 0) || trap_high <= trap_box[2 + 2 * trap_i]
            || trap_low >= trap_box[3 + 2 * trap_i])
            return;
        long trap_shorter = trap_bottom < trap_top ? trap_bottom : trap_top;
        long trap_longer = trap_bottom < trap_top ? trap_top : trap_bottom;
        trap_cut[trap_i] = trap_longer > trap_width[trap_i] && trap_shorter >= 2 * trap_sigma[trap_i] * trap_dt;
        trap_k += trap_cut[trap_i];
    }
    if (trap_k > 0) {
        for (int trap_level = 0; trap_level <= trap_k; trap_level++) {
            for (int trap_p = 0; trap_p < {{ 3 ** d }}; trap_p++) {
                long trap_px0[{{ d }}], trap_px1[{{ d }}], trap_ps0[{{ d }}], trap_ps1[{{ d }}];
                int trap_q = trap_p, trap_depth = 0, trap_skip = 0;
                for (int trap_i = 0; trap_i < {{ d }}; trap_i++, trap_q /= 3) {
                    int trap_piece = trap_q % 3;
                    long trap_bottom = trap_x1[trap_i] - trap_x0[trap_i];
                    long trap_top = trap_bottom + (trap_s1[trap_i] - trap_s0[trap_i]) * trap_dt;
                    long trap_m, trap_sdt = trap_sigma[trap_i] * trap_dt;
                    trap_px0[trap_i] = trap_x0[trap_i];
                    trap_px1[trap_i] = trap_x1[trap_i];
                    trap_ps0[trap_i] = trap_s0[trap_i];
                    trap_ps1[trap_i] = trap_s1[trap_i];
                    if (!trap_cut[trap_i]) {
                        trap_skip |= trap_piece != 0;
                    } else if (trap_bottom >= trap_top) {
                        trap_m = trap_x0[trap_i] + trap_s0[trap_i] * trap_dt + trap_top / 2;
                        if (trap_piece == 0) {
                            trap_px1[trap_i] = trap_m;
                            trap_ps1[trap_i] = -trap_sigma[trap_i];
                        } else if (trap_piece == 1) {
                            trap_px0[trap_i] = trap_m;
                            trap_px1[trap_i] = trap_m;
                            trap_ps0[trap_i] = -trap_sigma[trap_i];
                            trap_ps1[trap_i] = trap_sigma[trap_i];
                            trap_depth++;
                        } else {
                            trap_px0[trap_i] = trap_m;
                            trap_ps0[trap_i] = trap_sigma[trap_i];
                        }
                    } else {
                        trap_m = trap_x0[trap_i] + trap_bottom / 2;
                        if (trap_piece == 0) {
                            trap_px1[trap_i] = trap_m - trap_sdt;
                            trap_ps1[trap_i] = trap_sigma[trap_i];
                            trap_depth++;
                        } else if (trap_piece == 1) {
                            trap_px0[trap_i] = trap_m - trap_sdt;
                            trap_px1[trap_i] = trap_m + trap_sdt;
                            trap_ps0[trap_i] = trap_sigma[trap_i];
                            trap_ps1[trap_i] = -trap_sigma[trap_i];
                        } else {
                            trap_px0[trap_i] = trap_m + trap_sdt;
                            trap_ps0[trap_i] = -trap_sigma[trap_i];
                            trap_depth++;
                        }
                    }
                }
                if (trap_skip || trap_depth != trap_level)
                    continue;
                #pragma omp task firstprivate(trap_px0, trap_px1, trap_ps0, trap_ps1)
                {{ name }}({{ args }}, trap_t0, trap_t1, trap_px0, trap_px1, trap_ps0, trap_ps1, trap_box);
            }
            #pragma omp taskwait
        }
    } else if (trap_dt >= 2 && trap_dt > {{ steps }}) {
        long trap_h = trap_dt / 2;
        long trap_ux0[{{ d }}], trap_ux1[{{ d }}];
        for (int trap_i = 0; trap_i < {{ d }}; trap_i++) {
            trap_ux0[trap_i] = trap_x0[trap_i] + trap_s0[trap_i] * trap_h;
            trap_ux1[trap_i] = trap_x1[trap_i] + trap_s1[trap_i] * trap_h;
        }
        {{ name }}({{ args }}, trap_t0, trap_t0 + trap_h, trap_x0, trap_x1, trap_s0, trap_s1, trap_box);
        {{ name }}({{ args }}, trap_t0 + trap_h, trap_t1, trap_ux0, trap_ux1, trap_s0, trap_s1, trap_box);
    } else {
        {{ name }}_base({{ args }}, trap_t0, trap_t1, trap_x0, trap_x1, trap_s0, trap_s1);
    }
}
""")

_GRAPH = _Template("""\
static const long {{ name }}_tiles[{{ tiles | length }}][{{ 2 + 4 * d }}] = {
{% for z in tiles %}
    { {{ z | join(", ") }} },
{% endfor %}
};
static const int {{ name }}_first[{{ tiles | length + 1 }}] = { {{ first | join(", ") }} };
static const int {{ name }}_next[{{ [next | length, 1] | max }}] = { {{ (next or [0]) | join(", ") }} };
static const int {{ name }}_indegree[{{ tiles | length }}] = { {{ indegree | join(", ") }} };

static void {{ name }}_node(int {{ args }}, int *trap_pending, int trap_v)
{
    const long *trap_z = {{ name }}_tiles[trap_v];
    {{ name }}_base({{ args }}, trap_z[0], trap_z[1], trap_z + 2, trap_z + {{ 2 + d }}, trap_z + {{ 2 + 2 * d }},
                    trap_z + {{ 2 + 3 * d }});
    for (int trap_e = {{ name }}_first[trap_v]; trap_e < {{ name }}_first[trap_v + 1]; trap_e++) {
        int trap_w = {{ name }}_next[trap_e];
        int trap_left;
        #pragma omp atomic capture seq_cst
        trap_left = --trap_pending[trap_w];
        if (trap_left == 0) {
            #pragma omp task firstprivate(trap_w)
            {{ name }}_node({{ args }}, trap_pending, trap_w);
        }
    }
}
""")

_CALL = _Template("""\
void {{ PREFIX }}entry(int {{ args }})
{
    if ({{ guard }}) {
        const long trap_box[{{ 2 * d + 2 }}] = { {{ box | join(", ") }} };
        const long trap_x0[{{ d }}] = { {% for i in range(d) %}trap_box[{{ 2 + 2 * i }}] - {{ sigmas[i] }}L * (trap_box[1] - trap_box[0]){{ ", " if not loop.last }}{% endfor %} };
        const long trap_x1[{{ d }}] = { {% for i in range(d) %}trap_box[{{ 3 + 2 * i }}] + {{ sigmas[i] }}L * (trap_box[1] - trap_box[0]){{ ", " if not loop.last }}{% endfor %} };
        const long trap_s0[{{ d }}] = { {{ sigmas | join(", ") }} };
        const long trap_s1[{{ d }}] = { {% for s in sigmas %}-{{ s }}{{ ", " if not loop.last }}{% endfor %} };
{% if graph %}
        if ({{ graph }}) {
            int trap_pending[{{ tiles }}];
            for (int trap_v = 0; trap_v < {{ tiles }}; trap_v++)
                trap_pending[trap_v] = {{ name }}_indegree[trap_v];
            #pragma omp parallel
            #pragma omp single
            for (int trap_v = 0; trap_v < {{ tiles }}; trap_v++)
                if ({{ name }}_indegree[trap_v] == 0) {
                    #pragma omp task firstprivate(trap_v)
                    {{ name }}_node({{ args }}, trap_pending, trap_v);
                }
        } else {
            #pragma omp parallel
            #pragma omp single
            {{ name }}({{ args }}, trap_box[0], trap_box[1], trap_x0, trap_x1, trap_s0, trap_s1, trap_box);
        }
{% else %}
        #pragma omp parallel
        #pragma omp single
        {{ name }}({{ args }}, trap_box[0], trap_box[1], trap_x0, trap_x1, trap_s0, trap_s1, trap_box);
{% endif %}
    }
}
""")


@dataclass(frozen=True)
class WalkShape:
    """What the walk's text depends on: names, slopes and thresholds of one tiling.

    ``sigmas``: per space dimension the slope (points per pseudo time
    step); ``widths``: the base widths a spacecut needs to be required
    (longer base above it); ``steps``: the height a timecut needs.
    """

    name: str
    sigmas: tuple[int, ...]
    widths: tuple[int, ...]
    steps: int

    @property
    def dims(self) -> int:
        """Number of space dimensions."""
        return len(self.sigmas)


@dataclass(frozen=True)
class TileTable:
    """A precomputed tile dependence graph for the dynamic traversal (Freitag §3.5).

    ``tiles``: per tile ``t0, t1, x0..., x1..., s0..., s1...``, in a
    topological order; ``first``/``next``: successors in CSR form;
    ``indegree``: predecessors per tile; ``condition``: C condition under
    which the table holds (the parameter values it was computed for).
    """

    tiles: tuple[tuple[int, ...], ...]
    first: tuple[int, ...]
    next: tuple[int, ...]
    indegree: tuple[int, ...]
    condition: str


def base_text(shape: WalkShape) -> str:
    """The base case, with ``int trap_args`` for the kernel's parameters and ``trap_base_case;``."""
    return _BASE.render(name=shape.name, args=ARGS, d=shape.dims, base=BASE_CASE)


def walk_text(shape: WalkShape) -> str:
    """The recursive function, with ``int trap_args`` for the kernel's parameters."""
    return _WALK.render(name=shape.name, args=ARGS, d=shape.dims, sigmas=shape.sigmas, widths=shape.widths,
                        steps=shape.steps)  # fmt: skip


def graph_text(shape: WalkShape, table: TileTable) -> str:
    """The tile tables and the task that runs one tile and releases its successors (``NAME_node``)."""
    return _GRAPH.render(name=shape.name, args=ARGS, d=shape.dims, tiles=table.tiles, first=table.first,
                         next=table.next, indegree=table.indegree)  # fmt: skip


def call_text(shape: WalkShape, guard: str, box: Sequence[str], table: TileTable | None = None) -> str:
    """A function ``trap_entry`` whose body is the code replacing the time loop.

    ``guard``: C condition under which the part has instances; ``box``:
    ``tp`` low, ``tp`` high (exclusive), then per space dimension its low
    and high (exclusive) bounds, as C expressions. With ``table``: its
    tiles as tasks released by in-degree counters when its condition
    holds, the recursive walk otherwise.
    """
    return _CALL.render(PREFIX=PREFIX, name=shape.name, args=ARGS, d=shape.dims, sigmas=shape.sigmas,
                        guard=guard, box=list(box), graph=table.condition if table else "",
                        tiles=len(table.tiles) if table else 0)  # fmt: skip
