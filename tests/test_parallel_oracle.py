"""The oracle for parallel verdicts: a loop reported parallel gives the same output in any iteration order.

For a loop reported parallel, :func:`reordered_code` rewrites the normalised
loop ``for (i = lb; cond; i += s)`` into an iteration over a permutation of
its iteration numbers computed at run time: the original header counts the
iterations (``n``, and leaves ``i`` at its exit value), then ``k = 0 .. n-1``
runs iteration ``p(k)`` with ``i = lb + s * p(k)``, where ``p`` reverses
(``n - 1 - k``) or shuffles (``(a * k + n / 3) % n``, ``a`` coprime with ``n``
near ``0.62 n``: a fixed pseudo-random permutation). The body runs inside
``do { ... } while (0)`` so that ``continue`` still ends one iteration;
lastprivate variables take the value of the sequentially last iteration
(saved when ``p(k) == n - 1``, assigned after the loop), and the index gets
its exit value back. Private variables need nothing: each iteration writes
them before reading them and they are dead after the loop.

Every loop reported parallel without reductions must print the same output
in reverse and in shuffled order; a loop parallel with reductions, in
reverse order, within a relative tolerance of 1e-9 (reassociated floating
point). Variants are compiled with ``-O0`` (one compile per program, loop
and order); a default subset of representative programs always runs, the
whole corpus is marked ``slow`` and runs with ``-m slow`` or
``PASSMAN_SLOW=1``.
"""

from __future__ import annotations

import os
import re

import pytest
from conftest import CORPUS, corpus_programs, program_id
from passman.passes.analysis.effect_model import function_scope
from passman.passes.parallel.verdicts import LoopVerdict, loop_header, loop_verdict
from pycparser import c_ast

from passman import PassmanError, Workspace
from passman.astutil import copy_node, walk
from passman.printer import to_c
from passman.testing import assert_same_output

CFLAGS = ["-O0"]
RTOL = 1e-9
#: representative programs whose every parallel loop is checked on each run
DEFAULT = ("gemm", "jacobi_2d", "dot", "histogram", "libm_calls", "control_flow", "multi_function", "trisolv")

_MARKER = "__pm_loop_goes_here"


# ------------------------------------------------------------------ the reordering


def reordered_code(ws: Workspace, function: str, label: str, order: str, lastprivate=()) -> str:
    """The text of ``function`` with loop ``label`` running its iterations in ``order``.

    ``order`` is ``"reverse"`` or ``"shuffle"``; ``lastprivate`` names the
    variables whose value after the loop must be that of the sequentially
    last iteration (the loop index is always restored to its exit value).
    """
    module = ws[function]
    loop = module.loop(label)
    node = loop.node
    hdr, why = loop_header(node, module)
    assert hdr is not None, why
    func = copy_node(module.ast)
    for n in list(walk(func)):
        if isinstance(n, c_ast.Compound):
            n.block_items = _replaced(n.block_items or [], label)
        elif isinstance(n, (c_ast.Case, c_ast.Default)):
            n.stmts = _replaced(n.stmts or [], label)
        elif isinstance(n, (c_ast.If, c_ast.For, c_ast.While, c_ast.DoWhile, c_ast.Label)):
            for attr in ("iftrue", "iffalse", "stmt"):
                if _is_loop(getattr(n, attr, None), label):
                    setattr(n, attr, c_ast.Compound([_marker()]))
    hidden = ws._labels.auto
    text = to_c(func, hidden_labels=hidden)
    block = _block(module, node, hdr, order, [v for v in lastprivate if v != hdr.index], hidden)
    assert text.count(_MARKER) == 1
    lines = [block if _MARKER in line else line for line in text.splitlines()]
    return "\n".join(lines) + "\n"


def _replaced(items: list[c_ast.Node], label: str) -> list[c_ast.Node]:
    """``items`` with the loop replaced by the marker (its ``#pragma`` lines dropped: they need a loop)."""
    out: list[c_ast.Node] = []
    for x in items:
        if _is_loop(x, label):
            while out and isinstance(out[-1], c_ast.Pragma):
                out.pop()
            x = _marker()
        out.append(x)
    return out


def _marker() -> c_ast.Node:
    return c_ast.FuncCall(c_ast.ID(_MARKER), None)


def _is_loop(n: object, label: str) -> bool:
    return isinstance(n, c_ast.Label) and n.name == label and isinstance(n.stmt, c_ast.For)


def _block(module, node: c_ast.For, hdr, order: str, lastprivate: list[str], hidden) -> str:
    i = hdr.index
    init = node.init
    if isinstance(init, c_ast.DeclList):
        start = "".join(to_c(d) for d in init.decls)
    else:
        start = to_c(init) + ";\n"
    saves, restores, decls = [], [], []
    scope = function_scope(module)
    for v in lastprivate:
        decl = _decl_of(scope, node, v)
        d = copy_node(decl)
        d.init = None
        d.storage = []
        d.quals = []
        _rename(d, f"__pm_last_{v}")
        decls.append(to_c(d))
        saves.append(f"__pm_last_{v} = {v};")
        restores.append(f"{v} = __pm_last_{v};")
    if order == "reverse":
        perm = "__pm_j = __pm_n - 1 - __pm_k;"
    else:
        perm = "__pm_j = (__pm_a * __pm_k + __pm_n / 3) % __pm_n;"
    stmt = node.stmt if isinstance(node.stmt, c_ast.Compound) else c_ast.Compound([node.stmt] if node.stmt else [])
    body = to_c(stmt, hidden_labels=hidden)
    return f"""{{
{start}long long __pm_n = 0, __pm_k, __pm_j, __pm_a, __pm_lb = {i}, __pm_exit;
{"".join(decls)}for (; {to_c(node.cond)}; {to_c(node.next)})
    __pm_n++;
__pm_exit = {i};
__pm_a = __pm_n / 2 + __pm_n / 8 + 1;
for (;;) {{
    long long __pm_x = __pm_a, __pm_y = __pm_n, __pm_t;
    while (__pm_y) {{ __pm_t = __pm_x % __pm_y; __pm_x = __pm_y; __pm_y = __pm_t; }}
    if (__pm_x == 1) break;
    __pm_a++;
}}
for (__pm_k = 0; __pm_k < __pm_n; __pm_k++) {{
    {perm}
    {i} = __pm_lb + ({hdr.step}) * __pm_j;
    do {{
{body}    }} while (0);
    if (__pm_j == __pm_n - 1) {{ {" ".join(saves)} }}
}}
{i} = __pm_exit;
if (__pm_n > 0) {{ {" ".join(restores)} }}
}}"""


def _decl_of(scope, node: c_ast.Node, name: str) -> c_ast.Decl:
    for n in walk(node):
        if isinstance(n, c_ast.ID) and n.name == name:
            d = scope.names.decl_of(n)
            if isinstance(d, c_ast.Decl):
                return d
    raise AssertionError(f"no declaration of {name}")


def _rename(decl: c_ast.Decl, name: str) -> None:
    decl.name = name
    t = decl.type
    while t is not None and not isinstance(t, c_ast.TypeDecl):
        t = getattr(t, "type", None)
    if t is not None:
        t.declname = name
        t.quals = []


# ------------------------------------------------------------------ the checks


def parallel_loops_of(ws: Workspace) -> list[tuple[str, str, LoopVerdict]]:
    """``(function, label, verdict)`` of every loop reported parallel."""
    out = []
    for m in ws.all_functions:
        for lp in m.all_loops:
            v = loop_verdict(lp)
            if v.parallel:
                out.append((m.name, lp.label, v))
    return out


def check_program(files) -> tuple[int, list[str]]:
    """Run every reordered variant of a program; return the number of variants and the failures."""
    ws = Workspace(*files)
    failures = []
    count = 0
    for func, label, v in parallel_loops_of(ws):
        orders = ("reverse",) if v.reductions else ("reverse", "shuffle")
        for order in orders:
            variant = ws.clone()
            variant[func].code = reordered_code(ws, func, label, order, v.lastprivate)
            count += 1
            try:
                assert_same_output(files, variant, cflags=CFLAGS, rtol=RTOL if v.reductions else 0.0)
            except (AssertionError, PassmanError) as err:
                failures.append(f"{func}/{label} {order}: {str(err)[:300]}")
    return count, failures


_PROGRAMS = {program_id(p): p for p in corpus_programs()}


@pytest.mark.parametrize("name", DEFAULT)
def test_parallel_loops_survive_reordering(name):
    count, failures = check_program(_PROGRAMS[name])
    assert count > 0
    assert not failures, "\n".join(failures)


def _slow_enabled(config) -> bool:
    return "slow" in (config.getoption("-m") or "") or os.environ.get("PASSMAN_SLOW") == "1"


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(_PROGRAMS) - set(DEFAULT)))
def test_parallel_loops_survive_reordering_whole_corpus(name, request):
    if not _slow_enabled(request.config):
        pytest.skip("exhaustive oracle: run with -m slow or PASSMAN_SLOW=1")
    count, failures = check_program(_PROGRAMS[name])
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_every_loop_not_parallel_has_a_reason(files):
    ws = Workspace(*files)
    for m in ws.all_functions:
        for lp in m.all_loops:
            v = loop_verdict(lp)
            assert v.parallel == (not v.reasons), (m.name, lp.label, v.reasons)
            if not v.parallel:
                why = lp.why_not_parallel()
                assert why.startswith(f"loop {lp.label} of {m.name} (")
                assert all(re.search(r"\.c:\d+", r) for r in v.reasons), v.reasons  # a source line each


def test_reordering_changes_the_output_of_a_sequential_loop():
    """The oracle can fail: reversing a recurrence changes what it prints."""
    files = [CORPUS / "prefix_sum.c"]
    ws = Workspace(*files)
    loop = ws["inclusive_scan"].loops()[0]
    assert not loop_verdict(loop).parallel
    variant = ws.clone()
    variant["inclusive_scan"].code = reordered_code(ws, "inclusive_scan", loop.label, "reverse")
    with pytest.raises(AssertionError, match="outputs differ"):
        assert_same_output(files, variant, cflags=CFLAGS)
