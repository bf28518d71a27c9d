"""Real-world C: the programs of tests/realworld/ through the ``openmp`` recipe, and GNU C.

tests/realworld/ holds programs written like everyday C (image filters with
PGM I/O, CSV parsing, n-body, hash tables with function pointers, getopt
command lines, pthread workers, unions and bitfields, a stack VM with goto
error paths, varargs, C11 features, GNU attributes, an LU solver on
posix_memalign buffers) and a PolyBench-like two-file program whose harness
uses <sys/resource.h>, <sched.h> and <sys/time.h>. Each prints a
deterministic result. The oracle: parallelized by the ``openmp`` recipe,
built by the OpenMP backend and run with two threads, each prints what the
original prints (built with gcc against the real headers), exactly, or
within ``rtol=1e-9`` where a floating-point reduction may reorder sums.

GNU C: attributes are accepted (``aligned`` and ``packed`` kept in standard
C), so are statement expressions (pycparser parses them), constructs with no standard form are refused with ``file:line:col:
error: unsupported GNU extension '...'`` and exit status 1, and a library
function with no model gets one warning.
"""

from __future__ import annotations

import os
import subprocess
import warnings
from pathlib import Path

import pytest
from pycparser import c_ast

from passman import InvalidInput, PassmanWarning, Workspace
from passman.builder import run
from passman.cli import main as cli
from passman.frontend import parse_file
from passman.printer import to_c
from passman.recipe import load_recipe
from passman.testing import outputs_match, reference_output

REALWORLD = Path(__file__).resolve().parent / "realworld"
PROGRAMS = sorted(p.stem for p in REALWORLD.glob("*.c"))
POLYBENCH = REALWORLD / "polybench_gemm"
#: programs whose printed numbers may move in the last digits when a reduction is reordered
FLOATING = {"nbody", "lu_solve", "getopt_cli", "pgm_filter"}
RTOL = 1e-9


def parallelized(files: list[Path], cppflags: list[str] = ()) -> Workspace:
    """The program after the ``openmp`` recipe (as ``passman run openmp`` applies it)."""
    ws = Workspace(*files, cppflags=list(cppflags))
    load_recipe("openmp").main(ws)
    return ws


def assert_prints_the_same(ws: Workspace, files: list[Path], out: Path, name: str, args=(),
                           cppflags: list[str] = ()) -> None:
    # threads from the first region on (guard_team_start's macro), however short the run
    built = ws.build("openmp", out, opt="-O1", cflags=["-DPASSMAN_THREADS_AFTER=0"])
    ref = reference_output(files, cppflags=list(cppflags), args=list(args))
    got = run(built.binary, list(args), env={**os.environ, "OMP_NUM_THREADS": "2"}, timeout=60)
    tol = RTOL if name in FLOATING else 0.0
    assert got.returncode == ref.returncode, got.stderr
    assert outputs_match(ref.stdout, got.stdout, rtol=tol, atol=tol), (
        f"{name} prints {got.stdout!r}, the original {ref.stdout!r}")


def test_the_corpus_is_there():
    assert len(PROGRAMS) >= 12
    for name in PROGRAMS:
        lines = (REALWORLD / f"{name}.c").read_text().count("\n")
        assert 100 <= lines <= 600, (name, lines)


@pytest.mark.parametrize("name", PROGRAMS)
def test_program_prints_the_same_after_openmp(name, tmp_path):
    files = [REALWORLD / f"{name}.c"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PassmanWarning)
        ws = parallelized(files)
    assert_prints_the_same(ws, files, tmp_path / "out", name)
    # one warning per library function with no model, however often it is called
    unknown = [str(w.message) for w in caught if "no model for function" in str(w.message)]
    names = [m.split("'")[1] for m in unknown]
    assert len(names) == len(set(names)), unknown


def test_getopt_program_reads_its_command_line(tmp_path):
    files = [REALWORLD / "getopt_cli.c"]
    args = ["-n", "24", "--iterations=30", "-m", "power", "--label", "cli", "rest"]
    assert_prints_the_same(parallelized(files), files, tmp_path / "out", "getopt_cli", args)
    assert "cli: n=24 iterations=30 method=power" in reference_output(files, args=args).stdout


def test_gnu_attributes_keep_layout():
    """aligned and packed change sizes and addresses: they survive in standard C."""
    pf = parse_file(REALWORLD / "gnu_attrs.c")
    own = [n for n in pf.ast.ext if n.coord is not None and n.coord.file == str(pf.path)]
    text = to_c(c_ast.FileAST(own))
    assert "#pragma pack(push, 1)\nstruct wire_header {" in text
    assert "#pragma pack(pop)" in text
    assert "_Alignas(32) char c;" in text  # aligned on the struct: on its first member
    assert "static _Alignas(64) double buffer_a[256];" in text
    assert "_Alignas(32) static float weights[16];" in text or "static _Alignas(32) float weights[16];" in text
    assert "_Alignas(16) float value;" in text
    assert "__attribute__" not in text
    ref = reference_output([REALWORLD / "gnu_attrs.c"]).stdout
    assert "sizeof wire_header 7 cache_line 32 align 32 sample 32" in ref
    assert "aligned 0 0 0" in ref


@pytest.mark.parametrize("name", PROGRAMS)
def test_no_op_recipe_gives_the_input_byte_for_byte(name, tmp_path):
    src = REALWORLD / f"{name}.c"
    recipe = tmp_path / "noop.py"
    recipe.write_text("def main(ws):\n    pass\n")
    rc = cli(["run", str(recipe), str(src), "-o", str(tmp_path / "out"), "-q"])
    assert rc == 0
    assert (tmp_path / "out" / src.name).read_bytes() == src.read_bytes()


def test_no_op_recipe_keeps_both_polybench_files(tmp_path):
    kernel, utilities = POLYBENCH / "gemm.c", POLYBENCH / "utilities" / "polybench.c"
    recipe = tmp_path / "noop.py"
    recipe.write_text("def main(ws):\n    pass\n")
    rc = cli(["run", str(recipe), str(kernel), str(utilities), "-I", str(POLYBENCH / "utilities"),
              "-o", str(tmp_path / "out"), "-q"])
    assert rc == 0
    for src in (kernel, utilities):
        assert (tmp_path / "out" / src.name).read_bytes() == src.read_bytes()


# ---------------------------------------------------------------------------- PolyBench-like


@pytest.mark.parametrize("dataset", ["SMALL_DATASET", "LARGE_DATASET"])
def test_polybench_two_files_build_and_run(dataset, tmp_path, capsys):
    kernel, utilities = POLYBENCH / "gemm.c", POLYBENCH / "utilities" / "polybench.c"
    include = POLYBENCH / "utilities"
    out = tmp_path / "out"
    rc = cli(["run", "openmp", str(kernel), str(utilities), "-I", str(include), f"-D{dataset}",
              "-o", str(out), "--build", "--run", "-q"])
    got = capsys.readouterr()
    assert rc == 0, got.err
    ref = reference_output([kernel, utilities], cppflags=[f"-I{include}", f"-D{dataset}"])
    assert ref.returncode == 0
    assert outputs_match(ref.stdout, got.out, rtol=RTOL, atol=RTOL), (got.out, ref.stdout)
    size = {"SMALL_DATASET": "60 70 80", "LARGE_DATASET": "200 220 240"}[dataset]
    assert f"size {size}" in got.out
    assert (out / "gemm.c").read_text().count("#pragma omp") >= 1
    assert "#include <sys/resource.h>" in (out / "polybench.c").read_text()


def test_polybench_output_selects_its_size_at_build_time(tmp_path, capsys):
    """Transformed once at the default size; ``make CPPFLAGS=-DLARGE_DATASET`` then builds the large one."""
    kernel, utilities = POLYBENCH / "gemm.c", POLYBENCH / "utilities" / "polybench.c"
    include = POLYBENCH / "utilities"
    out = tmp_path / "out"
    assert cli(["run", "openmp", str(kernel), str(utilities), "-I", str(include), "-o", str(out), "-q"]) == 0
    assert "#error" not in (out / "gemm.c").read_text()
    for dataset in ("MINI_DATASET", "LARGE_DATASET"):
        subprocess.run(["make", "-C", str(out), "clean"], capture_output=True, check=True)
        got = subprocess.run(["make", "-s", "-C", str(out), "run", f"CPPFLAGS=-I{include} -D{dataset}"],
                             capture_output=True, text=True, env={**os.environ, "OMP_NUM_THREADS": "2"})
        assert got.returncode == 0, got.stderr
        ref = reference_output([kernel, utilities], cppflags=[f"-I{include}", f"-D{dataset}"])
        assert outputs_match(ref.stdout, got.stdout, rtol=RTOL, atol=RTOL), (dataset, got.stdout, ref.stdout)


# ---------------------------------------------------------------------------- GNU C refused

UNSUPPORTED = {
    "typeof": ("int main(void)\n{\n    int x = 1;\n    typeof(x) y = x;\n    return y;\n}\n", "4:5"),
    "typeof (as __typeof__)": ("int main(void)\n{\n    int x = 1;\n    __typeof__(x) y = x;\n    return y;\n}\n",
                               "4:5"),
    "nested function": ("int main(void)\n{\n    int twice(int v) { return 2 * v; }\n    return twice(2);\n}\n",
                        "3:9"),
    "label address (&&label)": ("int main(void)\n{\n    void *p = &&done;\n    goto *p;\ndone:\n    return 0;\n}\n",
                                "3:15"),
    "computed goto": ("int main(void)\n{\n    void *p = 0;\n    goto *p;\n}\n", "4:5"),
    "__int128": ("int main(void)\n{\n    unsigned __int128 v = 1;\n    return (int)v;\n}\n", "3:14"),
    "range (...) in a case label or designator": (
        "int f(int c)\n{\n    switch (c) {\n    case 1 ... 5:\n        return 1;\n    }\n    return 0;\n}\n",
        "4:12"),
    "conditional with omitted operand (?:)": ("int f(int a, int b)\n{\n    return a ?: b;\n}\n", "3:14"),
    "asm statement": ("int main(void)\n{\n    __asm__ volatile(\"\" : : : \"memory\");\n    return 0;\n}\n",
                      "3:5"),
    "__attribute__((vector_size))": ("typedef float v4 __attribute__((vector_size(16)));\n", "1:18"),
    "__attribute__((constructor))": ("__attribute__((constructor)) static void init(void) {}\n", "1:1"),
    "__attribute__((cleanup))": (
        "void done(int *p);\nint main(void)\n{\n    int x __attribute__((cleanup(done))) = 0;\n    return x;\n}\n",
        "4:11"),
}


@pytest.mark.parametrize("what", UNSUPPORTED)
def test_unsupported_gnu_extension_is_refused_with_its_location(what, write_c, capsys):
    code, where = UNSUPPORTED[what]
    what = what.split(" (as ")[0]
    src = write_c(code, "gnu.c")
    rc = cli(["run", "-p", "ompify_code?", str(src), "-o", str(src.parent / "out")])
    err = capsys.readouterr().err
    assert rc == 1
    assert f"{src}:{where}: error: unsupported GNU extension '{what}'" in err
    assert "Traceback" not in err
    assert not (src.parent / "out").exists()


def test_typeof_message_as_the_issue_writes_it(write_c):
    src = write_c("int x;\ntypeof(x) y;\n", "t.c")
    with pytest.raises(InvalidInput, match=rf"^{src}:2:1: error: unsupported GNU extension 'typeof'$"):
        parse_file(src)


# ---------------------------------------------------------------------------- GNU C accepted

ACCEPTED = r"""
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>

struct __attribute__((packed)) rec { char tag; int len; double v; };
typedef struct { int a; } __attribute__((aligned(64))) line_t;
static int table[8] __attribute__((aligned(32))) = {1, 2, 3, 4, 5, 6, 7, 8};
extern int renamed(int) __asm__("renamed");
static __inline__ int __attribute__((always_inline, unused)) twice(int x) { return 2 * x; }
int renamed(int x) { return x + 1; }

#define kind(x) _Generic((x), int: 1, long: 2, double: 3, char *: 4, default: 0)

static long sum(int n, ...)
{
    va_list ap;
    long s = 0;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        s += va_arg(ap, long);
    va_end(ap);
    return s;
}

int main(void)
{
    __extension__ long long big = 1LL << 40;
    int *__restrict p = table;
    char *s = "x";
    printf("%zu %zu %zu %zu\n", sizeof(struct rec), sizeof(line_t), _Alignof(line_t),
           __builtin_offsetof(struct rec, v));
    printf("%d %d %d %d %d\n", kind(1), kind(2L), kind(3.0), kind(s), kind('c'));
    int se = ({ int t = p[1]; t * 3; });
    printf("%d\n", se);
    printf("%ld %lld %d %d %d\n", sum(4, 1L, 2L, 3L, 4L), big, twice(p[3]), renamed(1),
           (int)((size_t)table % 32));
    return 0;
}
"""


COMPLEX = r"""
#include <complex.h>
#include <stdio.h>

#define kind(x) _Generic((x), float: 1, double: 2, long double: 3, float _Complex: 4, \
                         double _Complex: 5, long double _Complex: 6, default: 0)

int main(void)
{
    float _Complex z = 1.0f + 2.0f * I;
    double _Complex w = 3.0 - 1.0 * I;
    float f = 0.5f;
    printf("%d %d %d %d %d %d\n", kind(z + f), kind(f * z), kind(z * 2.0), kind(w + f),
           kind((long double)1 + z), kind(f + f));
    printf("%zu %zu %.2f\n", sizeof(z + f), sizeof(w * z), cabs(z * w));
    return 0;
}
"""


def test_complex_arithmetic_has_the_types_gcc_gives(write_c, tmp_path):
    src = write_c(COMPLEX, "cplx.c")
    assert reference_output([src]).stdout.splitlines()[0] == "4 4 5 5 6 1"
    # the checker resolves each _Generic as gcc does (main is printed from the tree here)
    assert 'printf("%d %d %d %d %d %d\\n", 4, 4, 5, 5, 6, 1);' in Workspace(src)["main"].code
    ws = parallelized([src])
    assert_prints_the_same(ws, [src], tmp_path / "out", "cplx")


def test_gnu_c_is_accepted_and_behaves_the_same(write_c, tmp_path):
    src = write_c(ACCEPTED, "gnu_ok.c")
    ws = parallelized([src])
    assert_prints_the_same(ws, [src], tmp_path / "out", "gnu_ok")
    assert reference_output([src]).stdout.splitlines() == ["13 64 64 5", "1 2 3 4 1", "6", "10 1099511627776 8 2 0"]


def test_generic_resolves_to_the_chosen_association(write_c):
    src = write_c("#define f(x) _Generic((x), float: 1, double: 2, default: 3)\n"
                  "int main(void) { float a = 1; return f(a) + f(1.0) + f(a + 1.0); }\n")
    text = to_c(parse_file(src).ast)
    assert "return 1 + 2 + 2;" in text


def test_generic_without_a_matching_association_is_an_error(write_c):
    src = write_c("int main(void) { return _Generic(1.0, int: 1, long: 2); }\n")
    with pytest.raises(InvalidInput, match=r"t\.c:1:25: error: '_Generic' selector of type 'double'"):
        parse_file(src)


# ---------------------------------------------------------------------------- headers and models


def test_missing_library_header_is_named(write_c, capsys):
    src = write_c("#include <stdio.h>\n#include <netinet/sctp.h>\nint main(void) { return 0; }\n")
    rc = cli(["run", "-p", "ompify_code?", str(src), "-o", str(src.parent / "out")])
    err = capsys.readouterr().err
    assert rc == 1
    assert f"{src}:2:10: error: passman has no model of the library header <netinet/sctp.h>" in err


def test_missing_user_header_keeps_its_name(write_c):
    src = write_c('#include "mine.h"\nint main(void) { return 0; }\n')
    with pytest.raises(InvalidInput, match=rf"^{src}:1:10: error: mine\.h: no such file$"):
        parse_file(src)


def test_posix_headers_from_the_issue_parse(write_c):
    headers = """stdatomic.h complex.h stdalign.h threads.h wchar.h locale.h sys/stat.h sys/resource.h
        fcntl.h getopt.h sched.h sys/mman.h dirent.h""".split()
    src = write_c("".join(f"#include <{h}>\n" for h in headers) + "int main(void) { return 0; }\n")
    parse_file(src)


def test_function_without_model_warns_once(write_c):
    src = write_c("#include <stdio.h>\n#include <wchar.h>\n"
                  "int main(void)\n{\n    long n = 0;\n"
                  "    for (int i = 0; i < 10; i++)\n        n += (long)wcslen(L\"abc\");\n"
                  "    n += (long)wcslen(L\"de\");\n    printf(\"%ld\\n\", n);\n    return 0;\n}\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PassmanWarning)
        ws = parallelized([src])
    found = [w for w in caught if "wcslen" in str(w.message)]
    assert len(found) == 1, [str(w.message) for w in found]
    assert "no model for function 'wcslen'" in str(found[0].message)
    assert (found[0].filename, found[0].lineno) == (str(src), 7)
    assert ws.unknown_functions.keys() >= {"wcslen"}
