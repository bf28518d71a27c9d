"""Random time-iterated stencils through the seeds' tilings: the fuzzer of issue 18's passes.

The affine-nest generator (:mod:`.generator`) rarely writes a time loop, so
the time tilings (diamond, skewed, balanced, split, hybrid, trapezoidal)
and the false-dependence elimination would see few of its programs. This
one writes only stencils, drawn from a seed::

    for (int t = 0; t < tsteps; t++) {
        for (int i = 2; i < n - 2; i++)               // 1 or 2 space dimensions
            A[i] = 0.25 * (A[i - 1] + A[i] + A[i + 2]) + 0.01;   // in place (Gauss-Seidel-like,
        for (int i = 2; i < n - 2; i++)                          // Fig. 3.4-like) or into B,
            B[i] = A[i];                                         // with a second statement
    }

(random neighbour offsets in ``[-2, 2]``, in-place or two-array updates,
one or two statements a step, random sizes; one program in five calls
libm on a neighbour, ``sqrt(fabs(A[i - 1]))``; one program in five instead
folds its storage on two buffers, ``A[(t + 1) % 2][i] = f(A[t % 2][i + o])``,
whose anti-dependences a tiling must keep, asymmetric offsets included:
Freitag's digest §5.3; and one in two spells its loops as people do:
indices declared at the top, ``i <= n - 3``, ``n - 2 > i``, ``++i``,
``i += 1``, ``i = i + 1``, a time loop ``t = 1; t <= tsteps``), and one or two transformation
steps (``time_tile`` with a random shape, schedule and tile sizes,
``trapezoid_tile``, ``dlt`` (sequential or one region), ``eliminate_false_dependences``
then balanced tiles,
``auto_schedule`` with a forced shape), then, one case in two,
``split_boundaries``; or (one case in seven) the OpenMP recipe's
coarse-grain path with one region around the time loop, then
``split_boundaries`` (its ``omp for`` sweeps split in three); one program in four runs its space loops over the
whole grid with every neighbour guarded, clamped (``A[i - 1 < 0 ? 0 : i - 1]``),
zero outside (``(i + 2 < n ? A[i + 2] : 0.0)``) or periodic (``A[(i - 1 + n) % n]``). The oracle is the API mode's
(:func:`.oracle.check_api`): the original and the result run at 1, 2 and 4
threads must print the same checksum, a refusal must leave the code as it
was, nothing may raise.

    python -m passman.fuzz.stencils --cases 200 --seed 1 --jobs 2
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from . import warm
from .oracle import FAILURES, KINDS, Verdict, check_api
from .steps import Step

KERNEL = "kernel"
#: the steps drawn (name, keyword arguments); sizes are added at random to time_tile
STEPS: list[tuple[str, dict]] = [
    ("time_tile", {"shape": "diamond", "schedule": "static"}),
    ("time_tile", {"shape": "diamond", "schedule": "tasks"}),
    ("time_tile", {"shape": "skewed", "schedule": "static"}),
    ("time_tile", {"shape": "balanced", "schedule": "static"}),
    ("time_tile", {"shape": "balanced", "schedule": "tasks"}),
    ("time_tile", {"shape": "split", "schedule": "static"}),
    ("time_tile", {"shape": "hybrid", "schedule": "static"}),
    ("trapezoid_tile", {"base_steps": 2, "base_width": "4"}),
    ("trapezoid_tile", {"execution": "graph", "base_steps": 2, "base_width": "6"}),
    ("dlt", {"vector": 2}),
    ("dlt", {"vector": 3, "parallel": True}),
    ("eliminate_false_dependences", {}),
    ("auto_schedule", {"time_tiling": "balanced"}),
    ("auto_schedule", {"time_tiling": "trapezoid"}),
]


def _offsets(rng: random.Random, dims: int, count: int) -> list[tuple[int, ...]]:
    out: list[tuple[int, ...]] = []
    while len(out) < count:
        o = tuple(rng.randint(-2, 2) for _ in range(dims))
        if o not in out:
            out.append(o)
    return out


def _ref(array: str, names: list[str], offset: tuple[int, ...]) -> str:
    idx = "".join(f"[{n} + {o}]" if o > 0 else f"[{n} - {-o}]" if o < 0 else f"[{n}]" for n, o in zip(names, offset))
    return array + idx


def _guarded(rng: random.Random, edge: str, array: str, names: list[str], offset: tuple[int, ...]) -> str:
    """A neighbour read kept inside ``[0, n)``: ``A[i - 1 < 0 ? 0 : i - 1]`` (clamped),
    ``(i + 2 < n ? A[i + 2] : 0.0)`` (zero outside) or ``A[(i - 1 + n) % n]`` (periodic), spelled one
    of several ways."""
    if edge == "wrap":  # periodic: the grid is a ring (a torus in 2-D)
        idx = ""
        for name, o in zip(names, offset):
            if o < 0:
                idx += rng.choice([f"[({name} - {-o} + n) % n]", f"[({name} + n - {-o}) % n]"])
            elif o > 0:
                idx += f"[({name} + {o}) % n]"
            else:
                idx += f"[{name}]"
        return array + idx
    if edge == "clamp":
        idx = ""
        for name, o in zip(names, offset):
            at = f"{name} + {o}" if o > 0 else f"{name} - {-o}" if o < 0 else name
            if o < 0:
                idx += rng.choice([f"[{at} < 0 ? 0 : {at}]", f"[{at} >= 0 ? {at} : 0]", f"[{name} > {-o - 1} ? {at} : 0]"])
            elif o > 0:
                idx += rng.choice([f"[{at} > n - 1 ? n - 1 : {at}]", f"[{at} < n ? {at} : n - 1]",
                                   f"[{name} < n - {o} ? {at} : n - 1]"])
            else:
                idx += f"[{name}]"
        return array + idx
    tests = []
    for name, o in zip(names, offset):
        if o < 0:
            tests.append(rng.choice([f"{name} - {-o} >= 0", f"{name} >= {-o}", f"{name} > {-o - 1}"]))
        elif o > 0:
            tests.append(rng.choice([f"{name} + {o} < n", f"{name} < n - {o}", f"{name} + {o} <= n - 1"]))
    return f"({' && '.join(tests)} ? {_ref(array, names, offset)} : 0.0)"


def generate_stencil(seed: int) -> str:
    """The C program of ``seed``: a kernel with a time loop, ``main`` printing a checksum."""
    rng = random.Random(f"stencil:{seed}")
    dims = rng.choice([1, 1, 2, 2, 2])
    n = rng.randint(12, 40) if dims == 2 else rng.randint(20, 200)
    tsteps = rng.randint(2, 14)
    form = rng.choice(["inplace", "inplace", "jacobi", "jacobi_copy"])
    names = ["i", "j"][:dims]
    shape = "".join(["[n]"] * dims)
    terms = _offsets(rng, dims, rng.randint(2, 5))
    weight = round(0.9 / len(terms), 4)
    # one in five calls libm on its first neighbour (a stream of its own: the other seeds keep their programs)
    libm = random.Random(f"stencil-libm:{seed}")
    call = libm.choice(["sqrt(fabs({}))", "sin({})", "exp(-fabs({}))", "fmax({}, 1.0)"]) if libm.random() < 0.2 else "{}"

    # one in four runs its space loops over the whole grid, every neighbour guarded as real codes do at
    # their edges (a stream of its own): clamped to the edge, or zero outside it
    edge_rng = random.Random(f"stencil-edge:{seed}")
    edge = edge_rng.choice(["clamp", "zero", "wrap"]) if edge_rng.random() < 0.25 else ""

    def ref(array: str, offset: tuple[int, ...]) -> str:
        if not edge or not any(offset):
            return _ref(array, names, offset)
        return _guarded(edge_rng, edge, array, names, offset)

    def sum_of(array: str) -> str:
        refs = [ref(array, o) for o in terms]
        return " + ".join([call.format(refs[0])] + refs[1:])

    rhs = sum_of("A")
    target = "A" if form == "inplace" else "B"
    body = [f"{_ref(target, names, (0,) * dims)} = {weight} * ({rhs}) + 0.01;"]
    if form == "jacobi_copy":
        body.append(f"{_ref('A', names, (0,) * dims)} = {_ref('B', names, (0,) * dims)};")
    elif form == "jacobi":
        back = _offsets(rng, dims, rng.randint(1, 3))
        body.append(f"{_ref('A', names, (0,) * dims)} = {round(0.9 / len(back), 4)} * ("
                    + " + ".join(ref("B", o) for o in back) + ");")
    two_nests = len(body) == 2 and rng.random() < 0.7
    # drawn from a stream of its own: the other seeds keep their programs
    folded = random.Random(f"stencil-fold:{seed}").random() < 0.2
    if folded:
        fold = "[2]" + shape
        rhs = sum_of("A[t % 2]")
        body = [f"{_ref('A[(t + 1) % 2]', names, (0,) * dims)} = {weight} * ({rhs}) + 0.01;"]
        two_nests = False

    # spellings, from a stream of their own too
    spell = random.Random(f"stencil-spell:{seed}")
    spelled = spell.random() < 0.5
    outside = spelled and spell.random() < 0.5  # indices declared at the top of the kernel

    low, high = ("0", "n") if edge else ("2", "n - 2")
    last = "n - 1" if edge else "n - 3"

    def header(name: str) -> str:
        if not spelled:
            return f"for (int {name} = {low}; {name} < {high}; {name}++)"
        cond = spell.choice([f"{name} < {high}", f"{name} <= {last}", f"{high} > {name}", f"{last} >= {name}"])
        step = spell.choice([f"{name}++", f"++{name}", f"{name} += 1", f"{name} = {name} + 1"])
        return f"for ({'' if outside else 'int '}{name} = {low}; {cond}; {step})"

    def nest(stmts: list[str], indent: str) -> str:
        text = ""
        for k, name in enumerate(names):
            text += f"{indent}{'    ' * k}{header(name)}\n"
        inner = indent + "    " * dims
        if len(stmts) == 1:
            return text + f"{inner}{stmts[0]}\n"
        return text[:-1] + " {\n" + "".join(f"{inner}{s}\n" for s in stmts) + indent + "    " * (dims - 1) + "}\n"

    loops = (nest([body[0]], "        ") + nest([body[1]], "        ")) if two_nests else nest(body, "        ")
    decl = "[N]" * dims
    a_decl, a_shape = ("[2]" + decl, fold) if folded else (decl, shape)
    a_init = "[0]" if folded else ""
    init_idx = "".join(f"[{x}]" for x in names)
    init_loops = "".join(f"{'    ' * (k + 1)}for (int {x} = 0; {x} < N; {x}++)\n" for k, x in enumerate(names))
    pad = "    " * (dims + 1)
    a_last = "[TSTEPS % 2]" if folded else ""
    fold_sum = f" + A[(TSTEPS + 1) % 2]{init_idx}" if folded else ""
    weights = " + ".join(f"{3 + 2 * k} * {x}" for k, x in enumerate(names))
    # both buffers rough: with a time loop from 1, the first step reads A[1]
    fold_init = f", A[1]{init_idx} = (({weights}) % 11) * 0.1 + 0.5" if folded else ""
    top = f"    int t, {', '.join(names)};\n" if outside else ""
    time_header = (f"for ({'' if outside else 'int '}t = 1; t <= tsteps; t++)" if spelled and spell.random() < 0.5
                   else f"for ({'' if outside else 'int '}t = 0; t < tsteps; t++)")
    return f"""#include <math.h>
#include <stdio.h>
#define N {n}
#define TSTEPS {tsteps}
static double A{a_decl};
static double B{decl};

static void {KERNEL}(int tsteps, int n, double A{a_shape}, double B{shape})
{{
{top}    {time_header} {{
{loops}    }}
}}

int main(void)
{{
{init_loops}{pad}A{a_init}{init_idx} = (({weights}) % 13) * 0.125 + 1.0, B{init_idx} = 0.5{fold_init};
    {KERNEL}(TSTEPS, N, A, B);
    double s = 0.0;
{init_loops}{pad}s += A{a_last}{init_idx} * (({weights}) % 7 + 1) + B{init_idx}{fold_sum};
    printf("%.10e\\n", s);
    return 0;
}}
"""


def stencil_steps(seed: int) -> list[Step]:
    """One or two steps on the kernel (the second after an elimination: balanced tiles), then ompify_code."""
    rng = random.Random(f"stencil-steps:{seed}")
    if random.Random(f"stencil-coarse:{seed}").random() < 0.15:  # the recipe's coarse-grain path, every
        # parallel loop kept, one region around the time loop: its sweeps become `omp for` loops to split
        return [Step("coarse_grain_parallelization_with_reduction", KERNEL, None, (), {"min_work": 0, "region_work": 0}),
                Step("ompify_code", KERNEL), Step("hoist_parallel_regions", KERNEL),
                Step("split_boundaries", KERNEL), Step("ompify_code", "main")]  # fmt: skip
    name, kwargs = rng.choice(STEPS)
    kwargs = dict(kwargs)
    if name == "time_tile" and rng.random() < 0.6:
        parts = 4 if kwargs["shape"] == "hybrid" else 3
        kwargs["tile_sizes"] = ",".join(str(rng.choice([2, 3, 4, 5, 8])) for _ in range(parts))
    steps = [Step(name, KERNEL, None, (), kwargs)]
    if name == "eliminate_false_dependences":
        steps.append(Step("time_tile", KERNEL, None, (), {"shape": "balanced",
                                                          "schedule": rng.choice(["static", "tasks"])}))
    if random.Random(f"stencil-split:{seed}").random() < 0.5:  # the interior clones of the tiles' loops
        steps.append(Step("split_boundaries", KERNEL))
    return steps + [Step("ompify_code", KERNEL), Step("ompify_code", "main")]


def check_stencil(seed: int, timeout: float = 60) -> Verdict:
    """The oracle's verdict on the stencil of ``seed`` and its steps."""
    return check_api(generate_stencil(seed), stencil_steps(seed), timeout=timeout)


def _run(seed: int, timeout: float) -> tuple[int, Verdict]:
    return seed, check_stencil(seed, timeout)


def main(argv: list[str] | None = None) -> int:
    """Entry point: a campaign; exits 1 when some case failed."""
    ap = argparse.ArgumentParser(prog="python -m passman.fuzz.stencils", description=__doc__.split("\n")[0])
    ap.add_argument("--cases", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--show", type=int, metavar="SEED", help="print the program and steps of SEED")
    ns = ap.parse_args(argv)
    if ns.show is not None:
        sys.stdout.write(generate_stencil(ns.show))
        for s in stencil_steps(ns.show):
            print(f"// step: {s.describe()}")
        return 0
    start = time.perf_counter()
    counts = dict.fromkeys(KINDS, 0)
    failed = []
    with ProcessPoolExecutor(max_workers=max(1, ns.jobs), initializer=warm.enable) as pool:
        futures = [pool.submit(_run, s, ns.timeout) for s in range(ns.seed, ns.seed + ns.cases)]
        for done, future in enumerate(as_completed(futures), 1):
            seed, v = future.result()
            counts[v.kind] += 1
            print(f"[{done}/{ns.cases}] seed {seed}: {v.kind} ({v.seconds:.1f} s) {v.detail[:160]}", flush=True)
            if v.failed:
                failed.append(seed)
                for line in v.steps:
                    print(f"    step {line}")
    print(f"\n{ns.cases} cases in {time.perf_counter() - start:.0f} s")
    print("  ".join(f"{k} {counts[k]}" for k in KINDS if counts[k] or k in FAILURES))
    if failed:
        print("failing seeds:", " ".join(map(str, sorted(failed))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
