"""Outlining (passes/interproc/outline.py): new functions, parameters, refusals, Fig. 5.7 recipe."""

from __future__ import annotations

import pytest
from conftest import CORPUS

from passman import InvalidInput, PassFailed, Workspace
from passman.testing import assert_same_output, expect

O0 = {"cflags": ["-O0"]}

ACCUMULATE = """
#include <stdio.h>

double data[100];

int main(void)
{
    int i, n = 100;
    double s = 0.0, scale = 0.5;
    for (i = 0; i < n; i++)
        data[i] = i * scale;
    for (i = 0; i < n; i++)
        s += data[i];
    printf("%.3f\\n", s);
    return 0;
}
"""


def test_outline_accumulator_by_pointer_and_dead_index_local(write_c):
    src = write_c(ACCUMULATE)
    ws = Workspace(src)
    main = ws["main"]
    loop = main.loops()[1]
    main.outline(label=loop.label, name="kernel")
    assert "kernel" in ws and ws["kernel"].loops()[0].label == loop.label
    expect(
        ws["kernel"].code,
        """
        void kernel(int n, double *s)
        {
            int i;
            for (i = 0; i < n; i++)
                *s += data[i];
        }
        """,
    )
    assert "    kernel(n, &s);\n" in main.code
    assert [lp.label for lp in main.loops()] == [main.loops()[0].label]
    assert_same_output([src], ws, **O0)


def test_index_read_after_the_loop_is_passed_by_pointer(write_c):
    src = write_c("""
        #include <stdio.h>
        int main(void)
        {
            int a[10], i;
            for (i = 0; i < 10 && i * i < 50; i++)
                a[i] = i;
            printf("%d %d\\n", i, a[i - 1]);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["main"].outline(label=ws["main"].loops()[0].label, name="fill")
    assert ws["fill"].code.startswith("void fill(int a[10], int *i)\n")
    assert "for (*i = 0; *i < 10 && *i * *i < 50; (*i)++)" in ws["fill"].code
    assert "fill(a, &i);" in ws["main"].code
    assert_same_output([src], ws, **O0)


def test_vla_sizes_come_before_arrays_and_static_is_kept():
    ws = Workspace(CORPUS / "gemm.c")
    module = ws["kernel_gemm"]
    inner = module.loops()[0].loops()[1]  # the k loop
    module.outline(label=inner.label, name="kernel")
    expect(
        ws["kernel"].code,
        """
        static void kernel(int ni, int nj, int nk, double alpha, double C[ni][nj], double A[ni][nk], double B[nk][nj], int i)
        {
            int j;
            int k;
            for (k = 0; k < nk; k++) {
                for (j = 0; j < nj; j++)
                    C[i][j] += alpha * A[i][k] * B[k][j];
            }
        }
        """,
    )
    assert ws["kernel"].loops()[0].label == inner.label
    assert_same_output([CORPUS / "gemm.c"], ws, **O0)


@pytest.mark.parametrize(
    ("program", "function"),
    [
        ("gemm", "kernel_gemm"),
        ("gemm", "main"),
        ("jacobi_2d", "kernel_jacobi_2d"),
        ("jacobi_2d", "main"),
        ("histogram", "main"),
        ("histogram", "compute_histogram"),
        ("dot", "dot"),
        ("dot", "vmax"),
        ("dot", "argmax_abs"),
        ("two_units", "matmul"),
        ("two_units", "smooth"),
        ("two_units", "frobenius"),
    ],
)
def test_outline_every_outer_loop_keeps_output(program, function):
    files = sorted((CORPUS / program).glob("*.c")) if (CORPUS / program).is_dir() else [CORPUS / f"{program}.c"]
    ws = Workspace(*files)
    module = ws[function]
    labels = [lp.label for lp in module.loops()]
    for k, label in enumerate(labels):
        module.outline(label=label, name=f"{function}_kernel{k}")
        assert ws[f"{function}_kernel{k}"].loops()[0].label == label
    assert module.loops() == []
    assert_same_output(files, ws, **O0)


def test_every_inner_loop_outlined_keeps_output():
    ws = Workspace(CORPUS / "jacobi_2d.c")
    for module in list(ws.all_functions):
        for k, loop in enumerate(module.inner_loops()):
            module.outline(label=loop.label, name=f"{module.name}_inner{k}")
    assert len(ws.all_functions) == 3 + 1 + 2 + 1  # init_array, kernel_jacobi_2d, main
    assert_same_output([CORPUS / "jacobi_2d.c"], ws, **O0)


def test_shadowing_and_for_init_declarations(write_c):
    src = write_c("""
        #include <stdio.h>
        int x = 7;
        int main(void)
        {
            int x = 1, total = 0;
            {
                int x = 40;
            body:
                for (int k = 0; k < 3; k++) {
                    int x2 = x + k;
                    total += x2;
                }
            }
            printf("%d %d\\n", x, total);
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["main"].outline(label="body", name="part")
    assert ws["part"].code.startswith("void part(int *total, int x)\n")
    assert ws["part"].loops()[0].label == "body"
    assert_same_output([src], ws, **O0)


def test_written_pointer_is_passed_by_pointer_and_user_label_on_a_block(write_c):
    src = write_c("""
        #include <stdio.h>
        int main(void)
        {
            int v[6] = {1, 2, 3, 4, 5, 6};
            int *p = v, s = 0;
        walk:
            {
                while (p < v + 6)
                    s += *p++;
            }
            printf("%d %d\\n", s, (int)(p - v));
            return 0;
        }
    """)  # fmt: skip
    ws = Workspace(src)
    ws["main"].outline(label="walk", name="walker")
    assert ws["walker"].code.startswith("void walker(int v[6], int **p, int *s)\n")
    assert "*s += *(*p)++;" in ws["walker"].code
    assert_same_output([src], ws, **O0)


def test_pragmas_move_with_the_loop():
    ws = Workspace(CORPUS / "pragmas.c")
    module = ws["scale_copy"]
    inner = module.loops()[0].loops()[0]
    module.outline(label=inner.label, name="row")
    assert "#pragma GCC ivdep" in ws["row"].code and "#pragma" not in module.code
    assert_same_output([CORPUS / "pragmas.c"], ws, **O0)


# -- refusals -------------------------------------------------------------------------------


def test_existing_names_are_invalid_input(write_c):
    ws = Workspace(write_c(ACCUMULATE))
    main = ws["main"]
    label = main.loops()[0].label
    for taken in ("main", "data", "printf", "scale"):
        with pytest.raises(InvalidInput, match=taken):
            main.outline(label=label, name=taken)
    main.outline(label=label, name="init")
    with pytest.raises(InvalidInput, match="init already exists"):
        main.outline(label=main.loops()[0].label, name="init")


@pytest.mark.parametrize(
    ("label", "name", "message"),
    [("nowhere", "k", "no statement labelled 'nowhere'"), ("", "k", "no label"), ("l", "", "no name"),
     ("l", "for", "not a valid C function name"), ("l", "2k", "not a valid")],
)  # fmt: skip
def test_bad_requests_are_invalid_input(write_c, label, name, message):
    ws = Workspace(write_c("void f(int *a) { int i; l: for (i = 0; i < 4; i++) a[i] = 0; }\n"))
    with pytest.raises(InvalidInput, match=message):
        ws["f"].outline(label=label, name=name)


REFUSED = {
    "return": ("for (i = 0; i < n; i++) if (a[i]) return;", "it contains return"),
    "break leaves": ("while (1) { l2: if (n) break; n++; }", "it contains break"),
    "continue leaves": ("for (;;) { l2: if (n--) continue; break; }", "it contains continue"),
    "goto out": ("for (i = 0; i < n; i++) if (a[i]) goto out;\nout:;", "goto out"),
    "goto in": ("goto in;\nfor (i = 0; i < n; i++) { in: a[i] = 0; }", "target of goto in"),
    "local type": ("typedef int cell;\nfor (i = 0; i < n; i++) { cell c = i; a[i] = c; }", "type cell"),
    "local struct": ("struct p { int v; } q = {1};\nfor (i = 0; i < n; i++) a[i] = q.v;", "struct p"),
    "local enum": ("enum { K = 3 };\nfor (i = 0; i < n; i++) a[i] = K;", "enumerator K"),
    "anonymous struct": ("struct { int v; } q = {1};\nfor (i = 0; i < n; i++) a[i] = q.v;", "type of q"),
    "sizeof local array": ("int t[8];\nfor (i = 0; i < n; i++) a[i] = sizeof t;", "'sizeof t'"),
    # the clause reads m, the loop does not: the new function would not declare it
    "pragma names a local": ("int m = n;\n#pragma omp parallel for if(m > 9)\nfor (i = 0; i < n; i++) a[i] = 0;",
                             "names m, which the statement does not use"),
}


@pytest.mark.parametrize("case", list(REFUSED), ids=list(REFUSED))
def test_refusals_leave_the_code_byte_identical(write_c, case):
    text, message = REFUSED[case]
    ws = Workspace(write_c(f"void f(int *a, int n)\n{{\n    int i;\n    {text}\n}}\n"))
    module = ws["f"]
    label = "l2" if "l2:" in text else module.all_loops[0].label
    cu = ws.compilation_units[0]
    before = cu.code
    with pytest.raises(PassFailed) as err:
        module.outline(label=label, name="k")
    assert message in str(err.value) and str(err.value).startswith("t.c:")
    assert cu.code == before and "k" not in ws


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("void f(void) { int n = 4; double a[n][n]; { int n = 2;\n"
         "L: for (int i = 0; i < n; i++) a[i][i] = n; } }", "two different variables named n"),
        ("int g = 3;\nvoid f(void) { double a[2][g];\nL: for (int i = 0; i < 2; i++) a[i][0] = 1; }",
         "size g of array a is a global"),
        ("void f(int n) { double a[n][n]; n = 3;\nL: for (int i = 0; i < 2; i++) a[i][0] = 1; }",
         "size n of array a is modified"),
    ],
)  # fmt: skip
def test_vla_sizes_that_may_differ_at_the_call_are_refused(write_c, source, message):
    ws = Workspace(write_c(source + "\n"))
    with pytest.raises(PassFailed, match=message):
        ws["f"].outline(label="L", name="k")


def test_assigned_array_parameter_is_refused(write_c):
    ws = Workspace(write_c("void f(int a[8], int n) { int i; for (i = 0; i < n; i++) *a++ = i; }\n"))
    before = ws.compilation_units[0].code
    with pytest.raises(PassFailed, match="assigns array parameter a"):
        ws["f"].outline(label=ws["f"].loops()[0].label, name="k")
    assert ws.compilation_units[0].code == before


def test_break_and_continue_bound_inside_the_statement_are_fine():
    ws = Workspace(CORPUS / "control_flow.c")
    module = ws["first_multiple"]
    module.outline(label=module.loops()[0].label, name="scan")
    assert ws["scan"].code.startswith("static void scan(const int *a, int n, int m, int *i)\n")
    assert_same_output([CORPUS / "control_flow.c"], ws, **O0)


def test_omp_reduction_variable_cannot_become_a_pointer():
    ws = Workspace(CORPUS / "pragmas.c")
    module = ws["count_large"]
    before = ws.compilation_units[0].code
    with pytest.raises(PassFailed, match="names cnt"):
        module.outline(label=module.loops()[0].label, name="count_kernel")
    assert ws.compilation_units[0].code == before


# -- Fig. 5.7 -------------------------------------------------------------------------------


def test_fig_5_7_terapix_recipe_collects_kernels():
    ws = Workspace(CORPUS / "two_units" / "main.c", CORPUS / "two_units" / "kernels.c")

    def terapix(module):
        counter = 0
        kernels = []
        for loop in module.loops():
            try:
                kernel = module.name + str(counter)
                counter += 1
                module.outline(label=loop.label, name=kernel)
                kernels.append(ws[kernel])
            except PassFailed:
                pass
        return kernels

    kernels = [k for name in ("matmul", "smooth", "frobenius") for k in terapix(ws[name])]
    assert [k.name for k in kernels] == ["matmul0", "matmul1", "smooth0", "frobenius0"]
    assert all(k.cu.name == "kernels" and k.loops() for k in kernels)
    assert_same_output([CORPUS / "two_units" / "main.c", CORPUS / "two_units" / "kernels.c"], ws, **O0)


def test_fig_5_7_as_printed_reuses_the_name_and_the_second_outline_raises():
    ws = Workspace(CORPUS / "two_units" / "kernels.c", CORPUS / "two_units" / "main.c")
    module = ws["matmul"]
    counter = 0  # never incremented, as in the figure
    kernels, errors = [], []
    for loop in module.loops():
        try:
            kernel = module.name + str(counter)
            module.outline(label=loop.label, name=kernel)
            kernels.append(ws[kernel])
        except InvalidInput as err:
            errors.append(str(err))
    assert [k.name for k in kernels] == ["matmul0"]
    assert errors == ["error: outline: a function named matmul0 already exists"]
