"""The workspace API: modules, units, loops and labels, properties, code get/set."""

from __future__ import annotations

import pytest

from passman import InvalidInput, Workspace

PROG = """\
#include <stdio.h>
#define N 16
double A[N][N];

static double sq(double x) { return x * x; }

void init(int n, double B[n][n]) {
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            B[i][j] = sq(i - j);
}

int main(void) {
    double s = 0;
    init(N, A);
    outer: for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            s += A[i][j];
    printf("%.1f\\n", s);
    return 0;
}
"""


@pytest.fixture
def ws(write_c):
    return Workspace(write_c(PROG, "prog.c"))


def test_lookup_forms(ws):
    assert "main" in ws and "init" in ws and "sq" in ws
    assert "nope" not in ws
    assert ws["init"].name == "init"
    assert ws.fun.main == ws["main"]
    assert ws.cu.prog.name == "prog"
    assert [m.name for m in ws.all_functions] == ["init", "main", "sq"]
    assert [m.name for m in ws.filter(lambda m: m.name.startswith("s"))] == ["sq"]
    with pytest.raises(InvalidInput):
        ws["nope"]
    with pytest.raises(InvalidInput):
        ws.cu.nope


def test_a_pass_applied_to_a_target_of_another_scope_is_a_clean_error(ws):
    # ws.apply("outline", loop) crashed inside the pass (AttributeError: the loop has no .ws)
    before = ws.compilation_units[0].code
    loop = ws["main"].loop("outer")
    with pytest.raises(InvalidInput, match="pass outline applies to a module, not to a loop"):
        ws.apply("outline", loop, label="outer", name="k")
    with pytest.raises(InvalidInput, match="pass unroll applies to a loop, not to a module"):
        ws.apply("unroll", ws["main"])
    assert ws.compilation_units[0].code == before


def test_header_declarations_are_not_printed_and_includes_come_back(ws):
    code = ws.cu.prog.code
    assert code.startswith("#include <stdio.h>\n")
    assert "int printf" not in code  # declared by the header, not by the user
    assert "double A[N][N];" in code  # the file as written: nothing changed it
    printed = ws.cu.prog.printed
    assert "int printf" not in printed and "double A[16][16];" in printed


def test_loops_labels_and_nesting(ws):
    main = ws["main"]
    (outer,) = main.loops()
    assert outer.label == "outer"  # the user's label is honoured
    (inner,) = outer.loops()
    assert inner.label != "outer" and inner.outer == outer
    assert [lp.label for lp in main.all_loops] == ["outer", inner.label]
    assert main.inner_loops() == [inner]
    assert main.loop(inner.label) == inner
    assert len(ws["init"].all_loops) == 2
    # generated labels never collide, and are hidden in the printed code
    labels = [lp.label for m in ws.all_functions for lp in m.all_loops]
    assert len(labels) == len(set(labels))
    assert inner.label not in main.code and "outer:" in main.code
    assert f"// loop {inner.label}" in main.annotated()
    with pytest.raises(InvalidInput):
        main.loop("l999")


def test_a_loop_found_again_by_label_is_where_the_tree_says(ws):
    """Loop.site reuses the function's last walk only where each link still holds."""
    from passman import Loop

    main = ws["main"]
    (outer,) = main.loops()
    (inner,) = outer.loops()
    site = Loop(main, inner.label).site
    assert site.node is inner.node and site.outer.label == "outer"
    site.labelled.name = "renamed"  # in place: the remembered site no longer answers to its label
    with pytest.raises(InvalidInput):
        Loop(main, inner.label).site  # noqa: B018
    assert Loop(main, "renamed").site.node is site.node
    site.labelled.name = inner.label
    from pycparser import c_ast

    assert outer.node.stmt is site.labelled  # the inner loop moved out of the outer one: found at its new place
    outer.node.stmt = c_ast.Compound([])
    main.ast.body.block_items.append(site.labelled)
    moved = Loop(main, inner.label).site
    assert moved.node is site.node and moved.outer is None and moved.depth == 0


def test_labels_stable_when_other_code_changes(ws):
    init_labels = [lp.label for lp in ws["init"].all_loops]
    ws["main"].code = ws["main"].code.replace("s += A[i][j];", "s += 2 * A[i][j];")
    assert [lp.label for lp in ws["init"].all_loops] == init_labels


def test_code_setter_reparses_and_keeps_macros_working(ws):
    m = ws["sq"]
    m.code = "static double sq(double x) { return x * x * N; }"
    assert "return x * x * 16;" in m.code
    with pytest.raises(InvalidInput):
        m.code = "static double sq(double x) { return x * ; }"
    assert "return x * x * 16;" in m.code
    with pytest.raises(InvalidInput):
        m.code = "static double other(double x) { return x; }"


def test_callers_and_callees(ws):
    assert [m.name for m in ws["main"].callees if not m.is_stub] == ["init"]
    assert [m.name for m in ws["sq"].callers] == ["init"]
    assert [m.name for m in ws["init"].callers] == ["main"]


def test_properties(ws):
    with pytest.raises(InvalidInput):
        ws.props.no_such_property
    with pytest.raises(InvalidInput):
        ws.props.no_such_property = 3


def test_syntax_error_is_located(write_c):
    p = write_c("int main(void) {\n  int x = ;\n  return 0;\n}\n", "bad.c")
    with pytest.raises(InvalidInput) as info:
        Workspace(p)
    msg = str(info.value)
    assert msg.startswith(f"{p}:2:") and "error:" in msg


def test_missing_file():
    with pytest.raises(InvalidInput, match="no such file"):
        Workspace("/nonexistent/x.c")


def test_missing_header_is_located(write_c):
    p = write_c('#include "nothere.h"\nint main(void) { return 0; }\n', "m.c")
    with pytest.raises(InvalidInput) as info:
        Workspace(p)
    assert str(info.value).startswith(f"{p}:1:") and "nothere.h" in str(info.value)


def test_line_directives_are_honoured(write_c):
    p = write_c('#line 100 "orig.c"\nint main(void) {\n  return 0 +;\n}\n', "gen.c")
    with pytest.raises(InvalidInput) as info:
        Workspace(p)
    assert str(info.value).startswith("orig.c:101:")


def test_cppflags_pass_through(write_c):
    p = write_c("#ifndef SIZE\n#error SIZE needed\n#endif\nint a[SIZE];\nint main(void){return 0;}\n")
    with pytest.raises(InvalidInput, match="SIZE needed"):
        Workspace(p)
    ws = Workspace(p, cppflags=["-DSIZE=7"])
    assert "int a[7];" in ws.cu.t.printed


def test_two_units_and_duplicate_definitions(write_c, tmp_path):
    a = write_c("int f(int x) { return x + 1; }\n", "a.c")
    b = write_c("int f(int x);\nint main(void) { return f(1) - 2; }\n", "b.c")
    ws = Workspace(a, b)
    assert ws["f"].cu.name == "a" and ws["main"].cu.name == "b"
    assert [m.name for m in ws["f"].callers] == ["main"]
    c = write_c("int f(int x) { return x; }\n", "c.c")
    with pytest.raises(InvalidInput, match="defined twice"):
        Workspace(a, c)


def test_pragmas_survive(write_c):
    p = write_c(
        "void f(int n, double *a) {\n#pragma omp parallel for\n"
        "  for (int i = 0; i < n; i++) a[i] = 0;\n}\n"
    )
    ws = Workspace(p)
    (lp,) = ws["f"].loops()
    assert lp.pragma == ["omp parallel for"] and lp.parallel
    assert "#pragma omp parallel for\n    for (int i = 0;" in ws["f"].code
