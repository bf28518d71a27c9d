"""The semantic check of the front end: C that parses but that gcc rejects is refused.

Each kind of error is refused with gcc's wording at the offending node
(``file:line:col: error: ...``), through the API (:class:`InvalidInput` from
``Workspace``) and through the command line (exit 1, one line on stderr, no
traceback, input untouched, nothing written); what gcc accepts (implicit
function declarations, integer-pointer conversions it only warns about,
well-formed OpenMP, every corpus program) goes through. OpenMP directives are
checked as ``gcc -fopenmp`` checks them, since passman's output is built so.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CORPUS, corpus_programs, program_id

from passman import InvalidInput, Workspace
from passman.cli import main
from passman.frontend import MAX_NESTING

#: (name, program, "line:col" of the error, message after "error: ")
ERRORS = [
    ('undeclared_variable', 'int main(void)\n{\n    int s = 0;\n    s = t + 1;\n    return s;\n}\n',
     "4:9", "'t' undeclared (first use in this function)"),
    ('undeclared_at_file_scope', 'double a[N];\nint main(void) { return 0; }\n',
     "1:10", "'N' undeclared here (not in a function)"),
    ('undeclared_in_parameter', 'void f(double a[n], int n);\n',
     "1:17", "'n' undeclared here (not in a function)"),
    ('parenthesized_undeclared_call', 'int main(void)\n{\n    return (unknown_t)(3);\n}\n',
     "3:13", "'unknown_t' undeclared (first use in this function)"),
    ('deref_int', 'int f(int x)\n{\n    return *x;\n}\n',
     "3:13", "invalid type argument of unary '*' (have 'int')"),
    ('deref_double', 'double f(double x)\n{\n    return *x + 1.0;\n}\n',
     "3:13", "invalid type argument of unary '*' (have 'double')"),
    ('subscript_int', 'int f(int x)\n{\n    return x[2];\n}\n',
     "3:12", 'subscripted value is neither array nor pointer nor vector'),
    ('subscript_not_integer', 'int f(int *p, double d)\n{\n    return p[d];\n}\n',
     "3:12", 'array subscript is not an integer'),
    ('increment_sum', 'void f(int a, int b)\n{\n    (a + b)++;\n}\n',
     "3:6", 'lvalue required as increment operand'),
    ('increment_constant', 'void f(void)\n{\n    --3;\n}\n',
     "3:7", 'lvalue required as decrement operand'),
    ('address_of_constant', 'int *f(void)\n{\n    return &3;\n}\n',
     "3:13", "lvalue required as unary '&' operand"),
    ('address_of_sum', 'int *f(int a)\n{\n    return &(a + 1);\n}\n',
     "3:14", "lvalue required as unary '&' operand"),
    ('assign_to_sum', 'void f(int a, int b)\n{\n    a + b = 3;\n}\n',
     "3:5", 'lvalue required as left operand of assignment'),
    ('assign_to_call', 'int g(void);\nvoid f(void)\n{\n    g() = 1;\n}\n',
     "4:5", 'lvalue required as left operand of assignment'),
    ('assign_to_array', 'void f(void)\n{\n    int a[3], b[3];\n    a = b;\n}\n',
     "4:5", 'assignment to expression with array type'),
    ('assign_to_const', 'void f(void)\n{\n    const int n = 3;\n    n = 4;\n}\n',
     "4:5", "assignment of read-only variable 'n'"),
    ('assign_through_const_pointer', 'void f(const double *v)\n{\n    v[0] = 1.0;\n}\n',
     "3:5", 'assignment of read-only location'),
    ('struct_arithmetic', 'struct pt { double x, y; };\ndouble f(struct pt p)\n{\n    return p + 1.0;\n}\n',
     "4:12", "invalid operands to binary + (have 'struct pt' and 'double')"),
    ('pointer_plus_pointer', 'int *f(int *p, int *q)\n{\n    return p + q;\n}\n',
     "3:12", "invalid operands to binary + (have 'int *' and 'int *')"),
    ('modulo_double', 'double f(double x)\n{\n    return x % 2;\n}\n',
     "3:12", "invalid operands to binary % (have 'double' and 'int')"),
    ('call_non_function', 'int f(int x)\n{\n    return x(1);\n}\n',
     "3:12", "called object 'x' is not a function or function pointer"),
    ('too_many_arguments', 'int g(int a);\nint f(void)\n{\n    return g(1, 2);\n}\n',
     "4:12", "too many arguments to function 'g'"),
    ('too_few_arguments', 'int g(int a, int b);\nint f(void)\n{\n    return g(1);\n}\n',
     "4:12", "too few arguments to function 'g'"),
    ('argument_type', 'double g(double x);\nvoid f(int *p)\n{\n    g(p);\n}\n',
     "4:7", "incompatible type for argument 1 of 'g'"),
    ('member_of_non_struct', 'int f(int x)\n{\n    return x.y;\n}\n',
     "3:12", "request for member 'y' in something not a structure or union"),
    ('arrow_on_struct', 'struct pt { int x; };\nint f(struct pt p)\n{\n    return p->x;\n}\n',
     "4:12", "invalid type argument of '->' (have 'struct pt')"),
    ('unknown_member', 'struct pt { int x; };\nint f(struct pt *p)\n{\n    return p->z;\n}\n',
     "4:15", "'struct pt' has no member named 'z'"),
    ('undefined_struct', 'struct opaque;\nint f(struct opaque *p)\n{\n    return p->x;\n}\n',
     "4:12", "invalid use of undefined type 'struct opaque'"),
    ('redeclared_local', 'void f(void)\n{\n    int i;\n    int i;\n}\n',
     "4:9", "redeclaration of 'i' with no linkage"),
    ('redefined_function', 'int f(void) { return 1; }\nint f(void) { return 2; }\n',
     "2:5", "redefinition of 'f'"),
    ('conflicting_types', 'int f(int);\ndouble f(int);\n',
     "2:8", "conflicting types for 'f'"),
    ('static_after_implicit', 'int main(void)\n{\n    return g(1);\n}\nstatic int g(int x) { return x; }\n',
     "5:12", "static declaration of 'g' follows non-static declaration"),
    ('two_data_types', 'int int x;\n',
     "1:1", 'two or more data types in declaration specifiers'),
    ('duplicate_static', 'static static int x;\n',
     "1:19", "duplicate 'static'"),
    ('break_outside_loop', 'void f(void)\n{\n    break;\n}\n',
     "3:5", 'break statement not within loop or switch'),
    ('duplicate_case', 'int f(int x)\n{\n    switch (x) {\n    case 1:\n    case 1:\n        return 1;\n    }\n    return 0;\n}\n',
     "5:5", 'duplicate case value'),
    ('duplicate_label', 'void f(void)\n{\nL:\n    ;\nL:\n    ;\n}\n',
     "5:1", "duplicate label 'L'"),
    ('goto_undefined_label', 'void f(void)\n{\n    goto out;\n}\n',
     "3:5", "label 'out' used but not defined"),
    ('incompatible_assignment', 'void f(double d)\n{\n    int *p;\n    p = d;\n}\n',
     "4:9", "incompatible types when assigning to type 'int *' from type 'double'"),
    ('void_value_used', 'void g(void);\nint f(void)\n{\n    int x = g();\n    return x;\n}\n',
     "4:13", 'void value not ignored as it ought to be'),
    ('non_constant_initializer', 'int n = 3;\nint m = n;\n',
     "2:9", 'initializer element is not constant'),
    ('variably_modified_at_file_scope', 'int n = 3;\ndouble a[n];\n',
     "2:8", "variably modified 'a' at file scope"),
    ('struct_as_condition', 'struct pt { int x; };\nvoid f(struct pt p)\n{\n    if (p)\n        return;\n}\n',
     "4:9", 'used struct type value where scalar is required'),
    ('ivdep_without_loop', 'void f(int *a)\n{\n#pragma GCC ivdep\n    a[0] = 1;\n}\n',
     "4:5", 'for, while or do statement expected'),
    ('omp_clause_undeclared', 'void f(int n, double *a)\n{\n    int i;\n#pragma omp parallel for private(j)\n    for (i = 0; i < n; i++)\n        a[i] = 0;\n}\n',
     "4:9", "'j' undeclared (first use in this function)"),
    ('omp_clause_syntax', 'void f(int n, double *a)\n{\n    int i, j;\n#pragma omp parallel for private(j j)\n    for (i = 0; i < n; i++)\n        a[i] = j;\n}\n',
     "4:9", "expected identifier before 'j' in 'private'"),
    ('omp_for_without_loop', 'void f(int n, double *a)\n{\n#pragma omp parallel for\n    a[0] = n;\n}\n',
     "4:5", 'for statement expected'),
    ('omp_loop_not_canonical', 'void f(int n, double *a)\n{\n    int i;\n#pragma omp parallel for\n    for (i = 0; i < n; i *= 2)\n        a[i] = 0;\n}\n',
     "5:24", 'invalid increment expression'),
    ('omp_break', 'void f(int n, double *a)\n{\n    int i;\n#pragma omp parallel for\n    for (i = 0; i < n; i++)\n        if (a[i] < 0)\n            break;\n}\n',
     "7:13", 'break statement used with OpenMP for loop'),
    ('omp_duplicate_clause_variable', 'double f(int n, double *a)\n{\n    int i;\n    double s = 0;\n#pragma omp parallel for reduction(+:s) private(s)\n    for (i = 0; i < n; i++)\n        s += a[i];\n    return s;\n}\n',
     "5:9", "'s' appears more than once in data clauses"),
]

#: programs gcc accepts (with warnings at most) that the check must let through
ACCEPTED = [
    ('implicit_function_declaration', 'int main(void)\n{\n    return helper(2);\n}\n'),
    ('pointer_from_integer', 'void f(int i)\n{\n    int *p;\n    p = i;\n}\n'),
    ('return_value_in_void_function', 'void f(int i)\n{\n    return i;\n}\n'),
    ('openmp_directives', 'double f(int n, double *a)\n{\n    double s = 0;\n    long cnt = 0;\n#pragma omp parallel\n    {\n#pragma omp for reduction(+:s) schedule(dynamic, 4) nowait\n        for (int i = 0; i < n; i += 2)\n            s += a[i];\n#pragma omp barrier\n#pragma omp single\n        cnt = n;\n#pragma omp atomic\n        cnt++;\n    }\n#pragma omp parallel for collapse(2) if(n > 100) num_threads(2)\n    for (int i = 0; i < n; i++)\n        for (int j = 0; j < n; j++)\n            a[i] += j;\n    return s + cnt;\n}\n'),
]

EXAMPLES = sorted((CORPUS.parent.parent / "examples").glob("*.c"))


@pytest.mark.parametrize("name, code, where, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_error_is_refused_at_its_position(write_c, name, code, where, message):
    src = write_c(code, f"{name}.c")
    with pytest.raises(InvalidInput) as info:
        Workspace(src)
    assert str(info.value) == f"{src}:{where}: error: {message}"


@pytest.mark.parametrize("name, code, where, message", ERRORS, ids=[e[0] for e in ERRORS])
def test_command_line_prints_one_error_line(write_c, tmp_path, capsys, name, code, where, message):
    src = write_c(code, f"{name}.c")
    out = tmp_path / "out"
    assert main(["run", "openmp", str(src), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [f"{src}:{where}: error: {message}"]
    assert src.read_text() == code and not out.exists()


def test_command_line_in_a_real_process_has_no_traceback(write_c, tmp_path):
    src = write_c("int main(void)\n{\n    int x = 1;\n    (x + 1)++;\n    return *x;\n}\n", "p.c")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "passman.cli", "run", "openmp", str(src), "-o", str(out)],
                          capture_output=True, text=True)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [f"{src}:4:6: error: lvalue required as increment operand"]
    assert not out.exists()


@pytest.mark.parametrize("name, code", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_what_gcc_accepts_is_accepted(write_c, name, code):
    ws = Workspace(write_c(code, f"{name}.c"))
    assert ws.compilation_units[0].code.strip()


@pytest.mark.parametrize("files", corpus_programs(), ids=program_id)
def test_corpus_program_passes_the_check(files):
    ws = Workspace(*files)
    assert len(ws.all_functions) >= 1


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_example_passes_the_check(path: Path):
    assert len(Workspace(path).all_functions) >= 1


def test_first_error_in_source_order_is_reported(write_c):
    src = write_c("int f(void)\n{\n    return a + b;\n}\n")
    with pytest.raises(InvalidInput, match=r":3:12: error: 'a' undeclared"):
        Workspace(src)


def test_error_in_a_local_header_points_into_the_header(write_c):
    write_c("static int twice(int x) { return y * 2; }\n", "h.h")
    src = write_c('#include "h.h"\nint main(void) { return twice(1); }\n', "m.c")
    with pytest.raises(InvalidInput) as info:
        Workspace(src)
    assert "h.h:1:34: error: 'y' undeclared (first use in this function)" in str(info.value)


def test_shadowing_and_scopes_are_followed(write_c):
    code = """\
typedef int T;
int x;
int f(int n)
{
    double x = n;
    {
        typedef double T;
        T y = x;
        struct x { int a; } s = { 1 };
        x = y + s.a;
    }
    for (int i = 0; i < n; i++) {
        int x = i;
        n += x;
    }
    return (T)x;
}
"""
    assert Workspace(write_c(code)).compilation_units[0].code


def test_too_deep_nesting_is_refused_cleanly(write_c, tmp_path, capsys):
    deep = "int main(void)\n{\n    int a = 1;\n    " + "{" * (MAX_NESTING + 10) + "a++;" + "}" * (MAX_NESTING + 10) + "\n    return a;\n}\n"
    src = write_c(deep, "deep.c")
    assert main(["run", "openmp", str(src), "-o", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"{src}:4:" in err and "nested" in err
    parens = write_c("int main(void) { return " + "(" * 3000 + "1" + ")" * 3000 + "; }\n", "parens.c")
    with pytest.raises(InvalidInput, match="nested too deeply"):
        Workspace(parens)
