"""passman behaves like the tools its users know: the build gets what the user said, the command
line has --version, -v/-q anywhere and documented exit codes, warnings are Python warnings, and the
Python API is consistent and shows itself well in a REPL and a notebook."""

from __future__ import annotations

import subprocess
import sys
import warnings
from importlib import metadata
from pathlib import Path

import pytest

import passman
from passman import Display, InvalidInput, LoopList, PassmanWarning, Workspace
from passman.builder import have_make
from passman.cli import main

# ----------------------------------------------------------------------------- helpers


def passman_cmd(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """The real ``passman`` command, in a subprocess."""
    return subprocess.run([sys.executable, "-m", "passman.cli", *args], capture_output=True, text=True, cwd=cwd)


NOOP = "def main(ws):\n    pass\n"

HELLO = """\
#include <stdio.h>
int main(void)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += i;
    printf("sum=%d\\n", s);
    return 0;
}
"""


@pytest.fixture
def noop(tmp_path):
    r = tmp_path / "noop.py"
    r.write_text(NOOP)
    return r


# ------------------------------------------------------------- the build knows what the user said

BENCH_H = """\
#ifndef BENCH_H
#define BENCH_H
#ifndef SCALE
#error "build with -DSCALE=..."
#endif
#ifdef BROKEN
#error "BROKEN must be undefined"
#endif
static inline int scale(void) { return SCALE; }
int helper(int x);
#endif
"""

KERNEL = """\
#include <stdio.h>
#include "bench.h"

int main(void)
{
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += i * scale();
    printf("s=%d h=%d\\n", s, helper(s));
    return 0;
}
"""

#: GNU C passman does not parse (typeof, a statement expression): it must be built, never read
EXTRA = """\
#include "bench.h"
#include "extra_impl.h"
int helper(int x) { return ({ typeof(x) y = x; y + EXTRA_OFFSET; }); }
"""


@pytest.fixture
def polybench_like(tmp_path, monkeypatch):
    """A kernel whose header is found only through -I and needs -DSCALE at build time."""
    (tmp_path / "utilities").mkdir()
    (tmp_path / "utilities" / "bench.h").write_text(BENCH_H)
    (tmp_path / "kernel.c").write_text(KERNEL)
    (tmp_path / "extra.c").write_text(EXTRA)
    (tmp_path / "extra_impl.h").write_text("#define EXTRA_OFFSET 1\n")
    monkeypatch.chdir(tmp_path)  # the -I path is relative, as a user types it
    return tmp_path


def makefile_vars(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text().splitlines():
        name, eq, value = line.partition(" = ")
        if eq and name.isupper():
            out[name] = value
    return out


def test_cpp_options_reach_the_makefile_and_the_build_needs_them(polybench_like, capsys):
    args = ["run", "openmp", "kernel.c", "-I", "utilities", "-DSCALE=3", "-DBROKEN", "-UBROKEN",
            "--extra-source", "extra.c", "-o", "out"]
    assert main([*args, "--run"]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "s=135 h=136\n"
    cpp = makefile_vars(polybench_like / "out" / "Makefile")["CPPFLAGS"].split()
    assert "-DSCALE=3" in cpp and "-UBROKEN" in cpp
    assert str(polybench_like / "utilities") in cpp  # absolute: make runs in out/
    if have_make():  # the folder builds by itself, and -D on make's command line still selects
        subprocess.run(["make", "-C", "out", "clean"], check=True, capture_output=True)
        proc = subprocess.run(["make", "-C", "out", "run"], capture_output=True, text=True)
        assert proc.returncode == 0 and "s=135 h=136" in proc.stdout, proc.stderr
        without_d = f"CPPFLAGS=-I{polybench_like / 'utilities'}"
        proc = subprocess.run(["make", "-B", "-C", "out", without_d], capture_output=True, text=True)
        assert proc.returncode != 0 and "build with -DSCALE" in proc.stderr


def test_extra_source_is_built_not_parsed(polybench_like, capsys):
    assert main(["run", "openmp", "kernel.c", "-I", "utilities", "-DSCALE=1",
                 "--no-parse", "extra.c", "-o", "out"]) == 0
    out = polybench_like / "out"
    assert (out / "extra.c").read_text() == EXTRA  # copied as it is
    assert (out / "extra_impl.h").is_file()  # with the header it includes beside it
    assert "typeof" not in (out / "kernel.c").read_text()
    err = capsys.readouterr().err
    assert "no model for function 'helper'" in err  # a library function to the analyses
    assert "passman: wrote out (openmp; build and run it with: make -C out run)" in err
    # parsing extra.c would have failed
    assert main(["run", "openmp", "kernel.c", "extra.c", "-I", "utilities", "-DSCALE=1"]) == 1


def test_cflags_ldflags_ldlibs_from_the_command_line_and_the_recipe(polybench_like, capsys):
    lib = polybench_like / "lib"
    lib.mkdir()
    (lib / "offset.c").write_text("int lib_offset(void) { return 40; }\n")
    subprocess.run(["gcc", "-c", "offset.c", "-o", "offset.o"], cwd=lib, check=True)
    subprocess.run(["ar", "rcs", "liboffset.a", "offset.o"], cwd=lib, check=True)
    (polybench_like / "flags.h").write_text(  # read again at build time, with the Makefile's flags
        "#ifndef FROM_RECIPE\n#define FROM_RECIPE 100\n#endif\n"
        "static int from_flags(void) { return FROM_CFLAGS + FROM_RECIPE; }\n")
    (polybench_like / "uses_lib.c").write_text(
        '#include <stdio.h>\n#include "flags.h"\nint lib_offset(void);\n'
        'int main(void) { printf("%d %d\\n", lib_offset(), from_flags()); return 0; }\n')
    recipe = polybench_like / "r.py"
    recipe.write_text('CFLAGS = "-DFROM_RECIPE=2"\n\ndef main(ws):\n    ws.build_flags.cflags.append("-g")\n')
    rc = main(["run", str(recipe), "uses_lib.c", "-DFROM_CFLAGS=0", "--cflags=-UFROM_CFLAGS -DFROM_CFLAGS=1",
               f"--ldflags=-L{lib}", "--ldlibs=-loffset", "-o", "out", "--run"])
    assert rc == 0, capsys.readouterr().err
    assert capsys.readouterr().out == "40 3\n"
    v = makefile_vars(polybench_like / "out" / "Makefile")
    assert v["CFLAGS"].split() == ["-O2", "-DFROM_RECIPE=2", "-UFROM_CFLAGS", "-DFROM_CFLAGS=1", "-g"]
    assert v["LDFLAGS"] == f"-L{lib}" and v["LDLIBS"].split() == ["-lm", "-loffset"]


def test_the_python_api_has_the_same_build_flags(polybench_like):
    ws = Workspace("kernel.c", cppflags=["-I", "utilities", "-DSCALE=2"], extra_sources=["extra.c"])
    assert ws.build_flags.extra_sources == [Path("extra.c")]
    clone = ws.clone()
    clone.build_flags.cflags.append("-DONLY_IN_THE_CLONE")
    assert ws.build_flags.cflags == []
    ws.build("c", polybench_like / "api")
    assert ws.run().stdout == "s=90 h=91\n"
    with pytest.raises(InvalidInput, match="already has a file named kernel.c"):
        ws.add_extra_source("kernel.c")


# --------------------------------------------------------------------------- the command line


def test_version():
    expected = f"passman {metadata.version('passman')}"
    assert passman.__version__ == metadata.version("passman")
    for args in (["--version"], ["run", "--version"], ["-v", "passes", "--version"]):
        proc = passman_cmd(*args)
        assert proc.returncode == 0 and proc.stdout.strip() == expected, (args, proc.stderr)


def test_verbose_and_quiet_anywhere_on_the_line(tmp_path, noop, capsys):
    src = tmp_path / "hello.c"
    src.write_text(HELLO)
    reproducer = "passman: reproducer: passman run -p"
    for args in (["-v", "run", str(noop), str(src)], ["run", str(noop), str(src), "-v"],
                 ["run", "-v", str(noop), str(src)], ["run", str(noop), "--verbose", str(src)]):
        assert main(args) == 0
        assert reproducer in capsys.readouterr().err, args
    assert main(["run", str(noop), str(src)]) == 0
    assert reproducer not in capsys.readouterr().err
    out = tmp_path / "out"
    assert main(["run", str(noop), str(src), "-o", str(out)]) == 0
    assert f"passman: wrote {out / 'hello.c'}" in capsys.readouterr().err
    assert main(["run", str(noop), str(src), "-o", str(out), "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_exit_codes(tmp_path, noop):
    src = tmp_path / "hello.c"
    src.write_text(HELLO)
    assert passman_cmd("run", str(noop), str(src)).returncode == 0
    usage = passman_cmd("run", "--no-such-option", str(noop), str(src))
    assert usage.returncode == 1 and "unrecognized arguments" in usage.stderr
    assert passman_cmd("run", str(noop)).returncode == 1  # no C file
    assert passman_cmd("frobnicate").returncode == 1
    assert passman_cmd("run", str(noop), str(tmp_path / "missing.c")).returncode == 1
    bug = tmp_path / "bug.py"
    bug.write_text("from passman import InternalError\ndef main(ws):\n    raise InternalError('boom')\n")
    proc = passman_cmd("run", str(bug), str(src))
    assert proc.returncode == 3 and "Traceback" in proc.stderr and "please report it" in proc.stderr
    exits = tmp_path / "exits.c"
    exits.write_text("int main(void) { return 7; }\n")
    assert passman_cmd("run", str(noop), str(exits), "--run").returncode == 7  # the program's own
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "exit status 1" in readme and "exits with 3" in readme


# -------------------------------------------------------------------------------------- warnings

UNKNOWN = """\
int mystery(int *p);
int main(void)
{
    int x = 1;
    mystery(&x);
    return x;
}
"""


def test_warnings_are_python_warnings_of_a_passman_category(write_c):
    src = write_c(UNKNOWN, "u.c")
    with pytest.warns(PassmanWarning, match="^no model for function 'mystery'") as record:
        ws = Workspace(src)
    (w,) = [r for r in record if issubclass(r.category, PassmanWarning)]
    assert w.filename == str(src) and w.lineno == 5  # shown at the C line, as a compiler would
    assert w.message.where == f"{src}:5:5"
    assert w.message.line == ws.warnings[0]  # the text the command line prints
    assert ws.warnings[0].startswith(f"{src}:5:5: warning: no model for function 'mystery'")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=PassmanWarning)
        Workspace(src)  # filtered like any Python warning


def test_the_command_line_prints_a_warning_as_one_line(write_c):
    src = write_c(UNKNOWN, "u.c")
    proc = passman_cmd("show", str(src))
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        f"{src}:5:5: warning: no model for function 'mystery'; assuming it reads and writes "
        "everything reachable from its arguments and globals"]
    proc = passman_cmd("show", str(src), "-qq")
    assert proc.returncode == 0 and proc.stderr == ""


# ------------------------------------------------------------------------------------ the API

NESTS = """\
#include <stdio.h>
#define N 64
double A[N][N], B[N][N], x[N];

double dot(int n, double *u, double *v)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += u[i] * v[i];
    return s;
}

void shift(int n, double *a)
{
    for (int i = 1; i < n; i++)
        a[i] = a[i - 1] + 1;
}

void scale3(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            for (int k = 0; k < N; k++)
                A[i][j] += B[i][k] * (A[k][j] < 2 && B[j][k] > 1);
}

int main(void)
{
    for (int i = 0; i < N; i++) {
        x[i] = i;
        for (int j = 0; j < N; j++)
            B[i][j] = i - j;
    }
    scale3();
    shift(N, x);
    printf("%g %g\\n", dot(N, x, x), A[3][5]);
    return 0;
}
"""


@pytest.fixture
def nests(write_c):
    return Workspace(write_c(NESTS, "nests.c"))


def test_loop_sets_are_properties_and_calls_alike(nests):
    m = nests["scale3"]
    outer = m.loops[0]
    middle, inner = outer.loops[0], outer.loops[0].loops[0]
    assert isinstance(m.loops, LoopList) and isinstance(m.all_loops, LoopList)
    assert m.loops == m.loops() == [outer]
    assert m.all_loops == m.all_loops() == [outer, middle, inner]
    assert m.inner_loops == m.inner_loops() == [inner]
    assert m.loops(inner.label) == inner and m.loops(0) == outer  # PyPS's selection
    assert outer.loops == outer.loops() == [middle]
    assert outer.all_loops == [middle, inner] and outer.inner_loops == [inner] and inner.inner_loops == []
    assert outer.loops(middle.label) == middle
    with pytest.raises(InvalidInput, match="no loop number 3"):
        m.loops(3)
    everything = nests.all_functions
    assert everything.all_loops == [lp for f in everything for lp in f.all_loops]
    assert everything.inner_loops() == [lp for f in everything for lp in f.inner_loops]
    assert everything.loops == [lp for f in everything for lp in f.loops]


def test_a_pass_accepts_the_shapes_passman_passes_documents(nests, capsys):
    assert main(["passes"]) == 0
    assert "tile_sizes (tuple)" in capsys.readouterr().out
    codes = set()
    for call in (lambda lp: lp.tile(8, 8), lambda lp: lp.tile((8, 8)), lambda lp: lp.tile([8, 8]),
                 lambda lp: lp.tile(sizes=(8, 8)), lambda lp: lp.tile(tile_sizes="8,8")):
        ws = nests.clone()
        call(ws["scale3"].loops[0])
        codes.add(ws["scale3"].code)
    assert len(codes) == 1 and "8" in codes.pop()


def test_verdict_beside_the_pyps_parallel(nests):
    dot = nests["dot"].loops[0]
    assert dot.parallel is False  # no OpenMP pragma yet: PyPS's meaning
    v = dot.verdict
    assert v.parallel and [r.var for r in v.reductions] == ["s"] and v.reasons == ()
    shift = nests["shift"].loops[0].verdict
    assert not shift.parallel and "a[i - 1]" in shift.reasons[0]
    middle = nests["scale3"].loops[0].loops[0]
    assert middle.verdict.parallel


def test_an_unknown_resource_lists_the_known_ones(nests):
    with pytest.raises(InvalidInput) as err:
        nests["dot"].display("dependencies")
    text = str(err.value)
    assert "did you mean 'dependences'?" in text
    assert "known: " in text and "parallel_loops" in text and "callgraph" in text


def test_display_returns_code_that_shows_once(nests, capsys):
    d = nests["dot"].display("parallel_loops")
    printed = capsys.readouterr().out
    assert isinstance(d, Display) and isinstance(d, str)
    assert printed == d  # a script prints it, as PyPS does
    assert "// parallel, reductions: sum[s]" in d
    assert repr(d) == d.rstrip("\n")  # what the prompt shows: the code, not a quoted string
    loop = nests["dot"].loops[0].display()
    assert capsys.readouterr().out == loop and loop.startswith("// loop l")


def test_display_in_an_interactive_session_prints_once(write_c):
    src = write_c(NESTS, "nests.c")
    session = f"from passman import Workspace\nws = Workspace({str(src)!r})\nws['dot'].display()\n"
    proc = subprocess.run([sys.executable, "-i", "-q"], input=session, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("double dot(int n, double *u, double *v)") == 1, proc.stdout
    assert "'double dot" not in proc.stdout  # not a quoted str either


def test_html_repr_for_notebooks(nests, monkeypatch):
    """What Jupyter calls to render ``ws["scale3"].display()``: escaped, highlighted when Pygments is there."""
    d = nests["scale3"].display()
    assert "A[k][j] < 2 && B[j][k] > 1" in d
    html = d._repr_html_()
    assert "< 2 &&" not in html and "&lt;" in html and "&amp;&amp;" in html
    pytest.importorskip("pygments")
    assert "<span" in html and "style=" in html  # highlighted
    monkeypatch.setitem(sys.modules, "pygments", None)  # as if it were not installed
    plain = d._repr_html_()
    assert plain.startswith("<pre") and plain.endswith("</pre>")
    assert "A[k][j] &lt; 2 &amp;&amp; B[j][k] &gt; 1" in plain and "<span" not in plain
    pretty = []
    d._repr_pretty_(type("P", (), {"text": lambda self, t: pretty.append(t)})(), False)
    assert pretty == [repr(d)]


def test_reprs_are_short_and_useful(nests):
    r = repr(nests)
    assert r == "<Workspace nests: nests.c; 4 functions>"
    for cu in nests.compilation_units:
        if cu.is_stub:
            assert cu.name not in r
    m = repr(nests["dot"])
    assert m.startswith("<Module dot (") and "nests.c:5" in m and m.endswith(": 1 loop>")
    assert repr(nests["scale3"]).endswith(": 3 loops>")
    lp = nests["dot"].loops[0]
    assert repr(lp).startswith(f"<Loop {lp.label} of dot at ") and repr(lp).endswith(
        "nests.c:8: for (int i = 0; i < n; i++)>")
    assert repr(nests.all_functions) == "<Modules (4): dot, main, scale3, shift>"
    stubs = [m for m in nests.modules if m.is_stub]
    assert stubs and repr(stubs[0]).endswith(": library model>")
