"""The stubs broker: protocol, manifests, resolution into the workspace, unknown
functions, the builder's side (real libraries on the CPU, wrappers on CUDA),
plugins found by entry point, and the ``passman stubs`` listing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from passman import InvalidInput, PassFailed, PassmanWarning, Workspace, transformation
from passman import brokers as B
from passman.builder import have_nvcc
from passman.testing import assert_same_output, build_and_run, outputs_match

TESTS = Path(__file__).resolve().parent
LIBS = TESTS / "libraries"
STUBS = TESTS.parent / "stubs"
FFT = LIBS / "fft_roundtrip.c"
BLAS = LIBS / "blas_calls.c"


def links(*libs: str) -> bool:
    """Whether gcc can link a program with ``libs`` here."""
    if shutil.which("gcc") is None:
        return False
    proc = subprocess.run(["gcc", "-x", "c", "-", "-o", os.devnull, *libs],
                          input="int main(void) { return 0; }\n", capture_output=True, text=True)
    return proc.returncode == 0


def has_header(name: str) -> bool:
    proc = subprocess.run(["gcc", "-x", "c", "-E", "-", "-o", os.devnull],
                          input=f"#include <{name}>\n", capture_output=True, text=True)
    return shutil.which("gcc") is not None and proc.returncode == 0


needs_fftw = pytest.mark.skipif(
    not (has_header("fftw3.h") and links("-lfftw3", "-lfftw3f")),
    reason="FFTW 3 is not installed (Debian: apt-get install libfftw3-dev)")
needs_blas = pytest.mark.skipif(
    not (has_header("cblas.h") and links("-lopenblas")),
    reason="OpenBLAS is not installed (Debian: apt-get install libopenblas-dev)")


class Answers(B.Broker):
    """A test broker that models the functions it is given, with a recognisable body."""

    def __init__(self, name: str, functions: list[str], always: bool = False, tag: int = 0):
        self.name = name
        self.feature = name
        self.always = always
        self._functions = functions
        self.tag = tag
        self.asked: list[str] = []

    def functions(self) -> list[str]:
        return list(self._functions)

    def stub(self, name: str) -> B.Stub | None:
        self.asked.append(name)
        if name not in self._functions:
            return None
        code = f"int {name}(int x) {{ return x + {self.tag}; }}\n"
        return B.Stub(name=name, code=code, broker=self.name, pure=True,
                      targets={"cpu": B.Implementation(libs=[f"-l{self.name}"])})


@pytest.fixture
def temp_brokers():
    """Register test brokers for one test, and remove them afterwards."""
    added: list[str] = []

    def add(broker: B.Broker) -> B.Broker:
        B.register_broker(broker)
        added.append(broker.name)
        return broker

    yield add
    for name in added:
        B.unregister_broker(name)


# ---------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------


def test_handler_asks_in_order_and_first_answer_wins(temp_brokers):
    first = temp_brokers(Answers("t_first", ["twin_fn", "only_first"], tag=1))
    second = temp_brokers(Answers("t_second", ["twin_fn", "only_second"], tag=2))
    assert B.find_stub("twin_fn").broker == "t_first"
    assert "twin_fn" not in second.asked  # the first answer ends the search
    assert B.find_stub("only_second").broker == "t_second"
    assert first.asked[-1] == "only_second"  # asked first, had nothing
    assert B.find_stub("twin_fn", enabled=["t_second"]).broker == "t_second"
    assert B.find_stub("twin_fn", enabled=[]) is None
    assert B.find_stub("no_such_function_anywhere") is None


def test_broker_names_are_unique(temp_brokers):
    temp_brokers(Answers("t_unique", []))
    with pytest.raises(InvalidInput, match="already registered"):
        B.register_broker(Answers("t_unique", []))
    B.register_broker(Answers("t_unique", ["f"]), replace=True)
    assert B.find_stub("f", enabled=["t_unique"]) is not None


def test_builtin_brokers_are_registered():
    from passman.plugins import load_plugins

    load_plugins()
    assert {"libc", "math", "fftw", "blas"} <= set(B.BROKERS.names())
    assert B.BROKERS.names().index("libc") < B.BROKERS.names().index("math")


def test_stub_metadata_of_shipped_brokers():
    sqrt = B.find_stub("sqrt")
    assert sqrt.broker == "math" and sqrt.pure and sqrt.header == "math.h"
    assert sqrt.implementation("cpu").libs == ["-lm"]
    assert not B.find_stub("frexp").pure  # writes through its pointer argument
    printf = B.find_stub("printf")
    assert printf.broker == "libc" and not printf.pure
    assert printf.model["varargs"] == "read" and printf.model["state"] == ["__passman_io_state"]
    assert B.find_stub("scanf").model["varargs"] == "write"
    assert B.find_stub("malloc").model["allocates"] is True
    assert B.find_stub("free").model["frees"] == 0
    assert B.find_stub("exit").model["noreturn"] is True
    assert B.find_stub("strlen").pure and not B.find_stub("memcpy").pure
    plan = B.find_stub("fftwf_plan_dft_3d")
    assert plan.model["captures"] == {"in": 3, "out": 4, "count": "n0 * n1 * n2",
                                      "in_count": "n0 * n1 * n2", "out_count": "n0 * n1 * n2"}
    assert B.find_stub("fftw_plan_dft_r2c_1d").model["captures"]["out_count"] == "n / 2 + 1"
    assert B.find_stub("fftwf_execute").model == {"executes_plan": 0}
    assert plan.implementation("cpu").libs == ["-lfftw3f"]
    assert B.find_stub("fftw_execute").implementation("cpu").libs == ["-lfftw3"]
    assert B.find_stub("fftw_execute").implementation("openmp").libs == ["-lfftw3"]
    cuda = B.find_stub("fftw_execute").implementation("cuda")
    assert [p.name for p in cuda.sources] == ["fftw_cufft.cu"] and cuda.libs == ["-lcufft"]
    assert not B.find_stub("fftw_execute").implementation("opencl").available
    gemm = B.find_stub("cblas_sgemm")
    assert gemm.broker == "blas" and gemm.implementation("cpu").libs == ["-lopenblas"]
    assert gemm.implementation("cuda").libs == ["-lcublas"]
    assert B.find_stub("cblas_ddot").pure and not B.find_stub("cblas_daxpy").pure
    assert B.find_stub("__passman_read_string") is None  # helpers are nobody's answer


# ---------------------------------------------------------------------------
# Manifests
# ---------------------------------------------------------------------------

MANIFEST = """\
name = "t_lib"
feature = "widgets"
detect = ["widget.h"]
include = ["include"]
header = "widget.h"

[[stubs]]
file = "widgets.c"
functions = ["widget_*"]
pure = ["widget_size"]
[stubs.targets.cpu]
libs = ["-lwidget"]

[targets.cpu]
cflags = ["-DWIDGETS"]
[targets.openmp]
like = "cpu"
[targets.cuda]
sources = ["cuda/widgets.cu"]
libs = ["-lcuwidget"]
[targets.opencl]
unavailable = "no OpenCL widgets"

[model."widget_make"]
allocates = true
"""


def write_manifest(root: Path, text: str = MANIFEST) -> Path:
    (root / "include").mkdir(parents=True, exist_ok=True)
    (root / "include" / "widget.h").write_text(
        "int widget_make(int n);\nint widget_size(int w);\nint other_thing(int x);\n")
    (root / "widgets.c").write_text(
        "#include <widget.h>\nint __passman_widgets;\n"
        "int widget_make(int n) { __passman_widgets = __passman_widgets + n; return n; }\n"
        "int widget_size(int w) { return w; }\n"
        "int other_thing(int x) { return x; }\n")
    path = root / "manifest.toml"
    path.write_text(text)
    return path


def test_manifest_broker(tmp_path):
    b = B.ManifestBroker(write_manifest(tmp_path / "widgets"))
    assert (b.name, b.feature, b.detect_includes) == ("t_lib", "widgets", ("widget.h",))
    assert b.functions() == ["widget_make", "widget_size"]  # the glob, not other_thing
    assert b.stub("other_thing") is None and b.stub("nothing") is None
    make, size = b.stub("widget_make"), b.stub("widget_size")
    assert size.pure and not make.pure and make.model == {"allocates": True}
    assert make.header == "widget.h" and make.origin == tmp_path / "widgets" / "widgets.c"
    cpu = make.implementation("cpu")
    assert cpu.cflags == ["-DWIDGETS"] and cpu.libs == ["-lwidget"]
    assert make.implementation("openmp").libs == ["-lwidget"]  # like = "cpu", group flags too
    cuda = make.implementation("cuda")
    assert cuda.libs == ["-lcuwidget"] and cuda.sources[0].name == "widgets.cu"
    assert make.implementation("opencl").unavailable == "no OpenCL widgets"
    assert b.targets() == ["cpu", "openmp", "cuda"]
    assert b.detect(["stdio.h", "widget.h"]) and not b.detect(["stdio.h"])


@pytest.mark.parametrize("bad, message", [
    ("[targets.gpu]\n", "unknown target 'gpu'"),
    ("[targets.cuda]\nlike = \"cpu\"\n", "names no target"),
    ("[[stubs]]\nfunctions = [\"x\"]\n", "has no 'file'"),
    ("detect = 3\n", "'detect' must be"),
    ("name = \n", "bad broker manifest"),
])
def test_bad_manifest_is_one_clear_error(tmp_path, bad, message):
    path = tmp_path / "manifest.toml"
    path.write_text(bad)
    with pytest.raises(InvalidInput, match=message) as err:
        B.ManifestBroker(path)
    assert str(err.value).startswith(f"{path}: error:")


def test_manifest_broker_resolves_into_a_workspace(tmp_path, write_c, temp_brokers):
    b = temp_brokers(B.ManifestBroker(write_manifest(tmp_path / "widgets")))
    assert (tmp_path / "widgets" / "include").resolve() in __import__("passman").frontend.SYSTEM_INCLUDE_DIRS
    src = write_c("#include <widget.h>\nint main(void) { return widget_size(widget_make(3)); }\n")
    ws = Workspace(src)
    assert b.name in ws.brokers
    assert ws.callee("widget_make").is_stub and ws.stub_info("widget_size").pure
    assert ws.link_requirements("cpu").libs == ["-lwidget"]


# ---------------------------------------------------------------------------
# Stub modules in the workspace
# ---------------------------------------------------------------------------

PROG = """\
#include <math.h>
#include <stdio.h>
#include <string.h>

double a[100], b[100];

void kernel(int n) {
    for (int i = 0; i < n; i++)
        a[i] = sqrt(b[i]) + exp(-b[i]);
    memcpy(b, a, sizeof a);
}

int main(void) {
    for (int i = 0; i < 100; i++)
        b[i] = i;
    kernel(100);
    printf("%.6f\\n", a[10] + b[99]);
    return 0;
}
"""


@pytest.fixture
def prog(write_c):
    return write_c(PROG, "prog.c")


def test_stubs_join_the_workspace_flagged(prog, tmp_path):
    ws = Workspace(prog)
    assert ws.warnings == []
    for name, broker in [("sqrt", "math"), ("exp", "math"), ("memcpy", "libc"), ("printf", "libc")]:
        m = ws.callee(name)
        assert m is not None and m.is_stub and ws.stub_info(name).broker == broker
    assert ws.callee("kernel").is_stub is False
    # visible to analyses (callees, the call graph), invisible as program functions
    assert [m.name for m in ws["kernel"].callees] == ["exp", "memcpy", "sqrt"]
    assert "sqrt" in ws.modules and "sqrt" not in ws.all_functions
    assert set(ws.resource("callgraph").successors("kernel")) == {"sqrt", "exp", "memcpy"}
    # the stub body models the effects: memcpy's loop over its size argument
    assert "for (i = 0; i < n; i++)" in ws["memcpy"].code
    assert "__passman_io_state" in ws["printf"].code
    # never printed or saved
    saved = ws.save(tmp_path / "out")
    assert [p.name for p in saved] == ["prog.c"]
    assert "sqrt(double x)" not in saved[0].read_text()
    assert_same_output([prog], ws)


def test_stubs_of_one_file_share_a_unit_and_helpers_come_along(write_c):
    ws = Workspace(write_c('#include <stdio.h>\nint main(void) { puts("a"); printf("b"); return 0; }\n'))
    assert ws["puts"].cu is ws["printf"].cu
    assert "__passman_read_string" in ws.modules  # the helper both call
    assert ws.stub_info("__passman_read_string").broker == "libc"


def test_stubs_are_never_transformed(prog):
    ws = Workspace(prog)
    before = ws["sqrt"].code
    with pytest.raises(PassFailed, match="library model"):
        ws["sqrt"].code = "double sqrt(double x) { return x * x; }"
    with pytest.raises(PassFailed, match="library model"):
        ws["memcpy"].loops()[0].unroll(2)
    assert ws["sqrt"].code == before
    assert ws.history.steps[-1].error is not None


@transformation(scope="module")
def t_add_call(module, callee: str = "puts"):
    """Append a call ``callee("x")`` to the function (a test pass introducing a new callee)."""
    from pycparser import c_ast

    call = c_ast.FuncCall(c_ast.ID(callee), c_ast.ExprList([c_ast.Constant("string", '"x"')]))
    module.ast.body.block_items.insert(0, call)


def test_calls_introduced_by_a_pass_are_resolved(prog):
    ws = Workspace(prog)
    assert "puts" not in ws
    ws["kernel"].t_add_call(callee="puts")
    assert ws.callee("puts").is_stub
    ws["kernel"].t_add_call(callee="made_up_fn")
    assert ws.callee("made_up_fn") is None
    assert len(ws.warnings) == 1 and "'made_up_fn'" in ws.warnings[0]


def test_clones_and_checkpoints_keep_their_own_stubs(prog):
    ws = Workspace(prog)
    token = ws.checkpoint()
    clone = ws.clone()
    ws["kernel"].t_add_call(callee="puts")
    assert "puts" in ws and "puts" not in clone and clone.callee("sqrt").is_stub
    ws.restore(token)
    assert "puts" not in ws and ws.stub_info("puts") is None
    assert ws["sqrt"].ast is clone["sqrt"].ast  # the trees are shared, never copied


def test_program_may_define_a_library_function_itself(write_c):
    main = write_c('#include <math.h>\ndouble f(double x) { return sqrt(x); }\n'
                   'int main(void) { return (int) f(4.0); }\n', "main.c")
    ws = Workspace(main)
    assert ws["sqrt"].is_stub
    own = write_c("double sqrt(double x) { return x / 2; }\n", "mysqrt.c")
    ws.add_source(own)
    assert not ws["sqrt"].is_stub and ws.stub_info("sqrt") is None


# ---------------------------------------------------------------------------
# Unknown functions
# ---------------------------------------------------------------------------

UNKNOWN = """\
#include <stdio.h>
void mystery(double *p, int n);
int main(void) {
    double v[4] = {0};
    int (*fp)(const char *) = puts;
    mystery(v, 4);
    for (int i = 0; i < 3; i++)
        mystery(v, i);
    fp("indirect calls reach no particular function");
    printf("%f\\n", v[0]);
    return 0;
}
"""


def test_unknown_function_warns_once_with_its_call_site(write_c, recwarn):
    src = write_c(UNKNOWN, "unknown.c")
    ws = Workspace(src)
    expected = (f"{src}:6:5: warning: no model for function 'mystery'; assuming it reads and "
                "writes everything reachable from its arguments and globals")
    assert ws.warnings == [expected]

    def warned() -> int:  # a Python warning (passman run prints it as one line on stderr)
        return sum("'mystery'" in str(w.message) for w in recwarn if issubclass(w.category, PassmanWarning))

    assert warned() == 1
    assert ws.unknown_functions == {"mystery": f"{src}:6:5"}
    assert ws.callee("mystery") is None  # the analyses' cue for the conservative model
    assert "fp" not in ws.unknown_functions  # a call through a pointer is not a function
    # analyses still complete; clones and later passes do not warn again
    graph = ws.resource("callgraph")
    assert graph.nodes["mystery"]["defined"] is False
    ws.clone()["main"].t_add_call(callee="mystery")
    assert len(ws.warnings) == 1 and warned() == 1


# ---------------------------------------------------------------------------
# Enabling brokers: always, by include, by name
# ---------------------------------------------------------------------------

NO_INCLUDE_FFT = """\
typedef double fftw_complex[2];
typedef struct fftw_plan_s *fftw_plan;
fftw_plan fftw_plan_dft_1d(int n, fftw_complex *in, fftw_complex *out, int sign, unsigned flags);
void fftw_execute(const fftw_plan p);
fftw_complex x[8];
int main(void) {
    fftw_plan p = fftw_plan_dft_1d(8, x, x, -1, 64);
    fftw_execute(p);
    return 0;
}
"""


def test_brokers_detected_from_includes(write_c):
    ws = Workspace(FFT)
    assert ws.brokers == ["libc", "math", "fftw"]
    assert ws.stub_info("fftw_execute").broker == "fftw"
    assert Workspace(BLAS).brokers == ["libc", "math", "blas"]
    assert Workspace(write_c("int main(void) { return 0; }\n")).brokers == ["libc", "math"]


def test_brokers_enabled_by_name(write_c):
    src = write_c(NO_INCLUDE_FFT, "noinc.c")
    ws = Workspace(src)
    assert set(ws.unknown_functions) == {"fftw_plan_dft_1d", "fftw_execute"}
    ws = Workspace(src, brokers=["fftw"])
    assert ws.unknown_functions == {} and ws.warnings == []
    assert ws.callee("fftw_execute").is_stub
    later = Workspace(src)
    later.enable_broker("fftw")
    assert later.unknown_functions == {} and later.callee("fftw_plan_dft_1d").is_stub
    with pytest.raises(InvalidInput, match="unknown broker 'nope'"):
        Workspace(src, brokers=["nope"])
    with pytest.raises(InvalidInput, match="unknown broker 'nope'"):
        later.enable_broker("nope")


def test_broker_registered_by_a_recipe_at_run_time(write_c, temp_brokers):
    src = write_c("int shout(int x);\nint main(void) { return shout(2); }\n")
    ws = Workspace(src)
    assert ws.callee("shout") is None
    temp_brokers(Answers("t_recipe", ["shout"], tag=5))
    ws.enable_broker("t_recipe")
    assert ws.callee("shout").is_stub and "x + 5" in ws["shout"].code
    assert ws.link_requirements().libs[0] == "-lt_recipe"


# ---------------------------------------------------------------------------
# Builds: the CPU links the real libraries, CUDA gets the wrappers
# ---------------------------------------------------------------------------


@needs_fftw
def test_fftw_program_builds_and_runs_like_the_original(tmp_path):
    ws = Workspace(FFT)
    assert set(ws.link_requirements("cpu").libs) == {"-lfftw3", "-lfftw3f", "-lm"}
    got = assert_same_output([FFT], ws, libs=["-lfftw3", "-lfftw3f", "-lm"])
    assert "3d filtered" in got.stdout
    # the backend takes the link flags from the broker, nobody passes them
    result = ws.build("c", tmp_path / "build")
    link = result.commands[-1]
    assert "-lfftw3" in link and "-lfftw3f" in link
    assert link.index("-lfftw3") < link.index("-lm")
    assert "-lfftw3" in (tmp_path / "build" / "Makefile").read_text()
    assert ws.run().stdout == got.stdout


@needs_blas
def test_cblas_program_builds_and_runs_like_the_original(tmp_path):
    ws = Workspace(BLAS)
    assert ws.link_requirements("cpu").libs == ["-lopenblas"]
    got = assert_same_output([BLAS], ws, libs=["-lopenblas", "-lm"])
    assert got.stdout.startswith("dgemm ")
    ws.build("c", tmp_path / "build")
    assert ws.run().stdout == got.stdout


@needs_blas
def test_blas_stub_bodies_compute_what_the_blas_computes():
    check = LIBS / "blas_check.c"
    real = build_and_run([check], libs=["-lopenblas", "-lm"])
    stubs = build_and_run([check, STUBS / "blas" / "cblas_double.c", STUBS / "blas" / "cblas_single.c"],
                          cppflags=["-I", str(STUBS / "blas" / "include")], libs=["-lm"])
    assert real.returncode == stubs.returncode == 0
    assert len(real.stdout.splitlines()) > 100
    assert outputs_match(real.stdout, stubs.stdout, rtol=1e-6, atol=1e-6), stubs.stdout


def test_single_precision_stubs_are_up_to_date():
    from passman.stubs import precision

    for src, (dst, _) in precision.DERIVED.items():
        assert (STUBS / dst).read_text() == precision.single_from_double(src), \
            f"run python -m passman.stubs.precision to regenerate {dst}"


@needs_fftw
def test_model_headers_agree_with_the_real_ones(tmp_path):
    """Our fftw3.h and cblas.h prototypes redeclare the real ones without conflict."""
    for header, inc in [("fftw3.h", STUBS / "fftw" / "include"), ("cblas.h", STUBS / "blas" / "include")]:
        if not has_header(header):
            continue
        model = subprocess.run(["cpp", "-P", "-nostdinc", "-I", str(inc), str(inc / header)],
                               capture_output=True, text=True, check=True).stdout
        protos = [ln for ln in model.replace("\n", " ").split(";") if "(" in ln and "typedef" not in ln]
        src = tmp_path / f"check_{header}.c"
        src.write_text(f"#include <{header}>\n" + ";\n".join(protos) + ";\n")
        proc = subprocess.run(["gcc", "-std=c11", "-Werror", "-c", str(src), "-o", os.devnull],
                              capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def cuda_library_includes() -> list[str] | None:
    """``-I`` flags for cufft.h and cublas_v2.h (CUDA toolkit, PASSMAN_CUDA_INCLUDE,
    or NVIDIA's pip wheels), or None when a header is missing."""
    nvcc = shutil.which("nvcc")
    dirs = [Path(d) for d in os.environ.get("PASSMAN_CUDA_INCLUDE", "").split(os.pathsep) if d]
    if nvcc:
        real = Path(os.path.realpath(nvcc))
        dirs += [real.parent.parent / "include", Path("/usr/local/cuda/include")]
    for site in sys.path:
        dirs += list(Path(site).glob("nvidia/*/include"))
    found = {}
    for header in ("cufft.h", "cublas_v2.h"):
        for d in dirs:
            if (d / header).is_file():
                found[header] = d
                break
    if len(found) < 2:
        return None
    flags: list[str] = []
    for d in dict.fromkeys(found.values()):
        flags += ["-I", str(d)]
    return flags


def test_cuda_plan_has_the_wrappers_and_compiles_with_nvcc(tmp_path):
    ws = Workspace(FFT)
    plan = B.plan_for(ws, "cuda")
    assert [(str(s.path), s.compiler) for s in plan.sources] == [("passman_lib/fftw_cufft.cu", "nvcc")]
    assert "-lcufft" in plan.libs and "-lfftw3" not in plan.libs
    blas = B.plan_for(Workspace(BLAS), "cuda")
    assert [s.path.name for s in blas.sources] == ["cblas_cublas.cu"] and "-lcublas" in blas.libs
    with pytest.raises(InvalidInput, match="no opencl implementation"):
        B.plan_for(ws, "opencl")
    assert B.plan_for(ws, "openmp").libs == B.plan_for(ws, "cpu").libs
    if not have_nvcc():
        pytest.skip("nvcc is not installed: the CUDA plan was checked, not compiled")
    flags = cuda_library_includes()
    if flags is None:
        pytest.skip("cufft.h/cublas_v2.h not found (CUDA toolkit without cuFFT/cuBLAS; "
                    "set PASSMAN_CUDA_INCLUDE): the CUDA plan was checked, not compiled")
    for p in (plan, blas):
        for name, text in p.extra_files.items():
            src = tmp_path / name
            src.parent.mkdir(parents=True, exist_ok=True)
            src.write_text(text)
            proc = subprocess.run(["nvcc", *flags, "-c", str(src), "-o", str(src.with_suffix(".o"))],
                                  capture_output=True, text=True)
            assert proc.returncode == 0, proc.stderr


# ---------------------------------------------------------------------------
# Plugins: a broker package found through the passman.brokers entry point
# ---------------------------------------------------------------------------

VEC = """\
#include <stdio.h>
#include <vecops.h>
double x[10];
int main(void) {
    vec_fill(x, 10, 0.5);
    printf("%.2f\\n", vec_sum(x, 10));
    return 0;
}
"""


def test_entry_points_are_read_as_importlib_metadata_reads_them():
    """plugins.entry_points reads the dist-info folders itself (importlib.metadata costs 15-25 ms of imports)."""
    from passman import plugins

    groups = ("passman.passes", "passman.backends", "passman.brokers", "console_scripts")
    eps = metadata.entry_points()
    # the same entry points; in the folders' sorted order (importlib.metadata's is the file system's)
    assert {g: sorted(v) for g, v in plugins.entry_points(groups).items()} == \
        {g: sorted(ep.value for ep in eps.select(group=g)) for g in groups}
    assert plugins._load_value("os.path:join") is os.path.join
    assert plugins._entries("# c\n[a.b]\nx = m.n:o [extra]\n\n[c]\ny=z\n") == [("a.b", "m.n:o [extra]"), ("c", "z")]


def test_broker_from_an_entry_point_is_found_and_used(monkeypatch, write_c, tmp_path):
    from passman import plugins

    monkeypatch.syspath_prepend(str(TESTS))
    monkeypatch.delitem(sys.modules, "plugin_pkg.broker", raising=False)
    # an installed distribution, as pip leaves it: a dist-info folder with its entry points
    info = tmp_path / "site" / "vecops_plugin-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "entry_points.txt").write_text("[console_scripts]\nvec = x:y\n\n[passman.brokers]\nvecops = plugin_pkg.broker\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert plugins.entry_points(plugins.GROUPS)["passman.brokers"][0] == "plugin_pkg.broker"
    assert [ep.value for ep in metadata.entry_points().select(group="passman.brokers")][0] == "plugin_pkg.broker"
    try:
        plugins.load_plugins(force=True)
        assert "vecops" in B.BROKERS.names()
        src = write_c(VEC, "vec.c")
        ws = Workspace(src)
        assert "vecops" in ws.brokers and ws.warnings == []
        assert ws.callee("vec_fill").is_stub and ws.stub_info("vec_sum").pure
        assert ws.stub_info("vec_fill").broker == "vecops"
        ws.build("c", tmp_path / "build")  # links the plugin's implementation
        assert ws.run().stdout == "5.00\n"
    finally:
        B.unregister_broker("vecops")


# ---------------------------------------------------------------------------
# The command line
# ---------------------------------------------------------------------------


def passman(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "passman.cli", *args], capture_output=True,
                          text=True, cwd=TESTS.parent)


def test_passman_stubs_lists_brokers_functions_and_targets():
    proc = passman("stubs")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    heads = [ln.split()[0] for ln in lines if not ln.startswith(" ")]
    assert heads[:4] == ["libc", "math", "fftw", "blas"]
    assert any(ln.startswith("fftw") and "detected by <fftw3.h>" in ln for ln in lines)
    assert any(ln.startswith("libc") and "always" in ln for ln in lines)
    text = proc.stdout
    assert "fftw_cufft.cu -lcufft" in text and "-lfftw3" in text and "-lopenblas" in text
    assert "opencl  unavailable:" in text
    one = passman("stubs", "blas")
    assert "cblas_dgemm" in one.stdout and "cblas_isamax" in one.stdout
    assert "__passman" not in one.stdout
    bad = passman("stubs", "nope")
    assert bad.returncode == 1 and bad.stderr.strip() == (
        "passman: error: unknown broker 'nope' (known: libc, math, fftw, blas, accel)")


def test_cli_broker_option(write_c):
    src = write_c(NO_INCLUDE_FFT, "noinc.c")
    proc = passman("show", str(src), "-m", "main")
    assert proc.returncode == 0 and proc.stderr.count("warning: no model") == 2
    proc = passman("show", str(src), "-m", "main", "--broker", "fftw")
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    proc = passman("run", "unroll", str(src), "--broker", "nope")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "passman: error: unknown broker 'nope' (known: libc, math, fftw, blas, accel)"


def test_corpus_programs_need_no_unknown_function():
    """The libc and math brokers cover every library call of the project's C corpus."""
    from conftest import corpus_programs

    for files in corpus_programs():
        ws = Workspace(*files)
        assert ws.unknown_functions == {}, (files, ws.unknown_functions)


def test_output_of_passman_run_has_no_stub(prog):
    proc = passman("run", "unroll", str(prog))
    assert proc.returncode == 0, proc.stderr
    assert "double sqrt(" not in proc.stdout and "__passman" not in proc.stdout

