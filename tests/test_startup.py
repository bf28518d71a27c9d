"""Lazy registration: the command line starts without importing passes, islpy or networkx.

Start-up times are measured in ``benchmarks/bench_startup.py``, not asserted here.
"""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("islpy", "networkx")


def imported_modules(*argv: str) -> set[str]:
    """The modules a fresh interpreter has imported once it ran ``passman ARGV``."""
    code = (
        "import sys\n"
        "from passman.cli import main\n"
        "try:\n"
        "    rc = main(sys.argv[1:])\n"
        "except SystemExit as e:\n"
        "    rc = e.code\n"
        "real = [n for n, m in sys.modules.items() if type(m).__name__ != '_Deferred']  # not lazy stand-ins\n"
        "print('MODULES', ' '.join(sorted(real)))\n"
        "sys.exit(rc)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("MODULES "))
    return set(line.split()[1:])


def pass_modules(mods: set[str]) -> set[str]:
    return {m for m in mods if m.startswith("passman.passes.") and m != "passman.passes.manifest"}


def test_help_imports_no_pass_and_no_heavy_library():
    mods = imported_modules("--help")
    assert not pass_modules(mods)
    assert not any(m.split(".")[0] in HEAVY for m in mods)


def test_listing_the_passes_imports_none_of_them():
    mods = imported_modules("passes")
    assert "passman.passes.manifest" in mods  # the listing comes from the manifest
    assert not pass_modules(mods), sorted(pass_modules(mods))
    assert not any(m.split(".")[0] in HEAVY for m in mods)


def test_one_pass_imports_its_own_module_only_when_used():
    mods = imported_modules("passes", "unroll")
    assert "passman.passes.loops.unroll" in mods
    assert "passman.passes.poly.schedule" not in mods


def test_the_manifest_is_up_to_date():
    proc = subprocess.run([sys.executable, "-m", "passman.passes.manifest_build", "--check"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, "passes/manifest.py is stale: run python -m passman.passes.manifest_build"


def test_a_plugin_pass_keeps_its_name_over_a_lazily_imported_builtin():
    code = """
from passman import REGISTRY, transformation

@transformation(scope="loop")
def unroll(loop, rate: int = 4):
    '''the plugin's unroll'''

import passman.passes  # the built-ins, lazily
assert REGISTRY.passes["unroll"].doc == "the plugin's unroll"
REGISTRY.passes["full_unroll"]  # imports the built-in module that defines unroll too
import passman.passes.loops.unroll
assert REGISTRY.passes["unroll"].doc == "the plugin's unroll", REGISTRY.passes["unroll"].doc
assert REGISTRY.passes["full_unroll"].func.__module__ == "passman.passes.loops.unroll"
print("ok")
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0 and "ok" in proc.stdout, proc.stderr[-2000:]


def test_scheduling_a_program_imports_islpy_but_not_networkx_nor_importlib_metadata(tmp_path):
    """jacobi_2d's time loop is tried for distribution (allen_kennedy) and its nests scheduled by isl:
    neither needs networkx (0.09 s), and islpy's version comes without ``importlib.metadata`` (12 ms)."""
    from conftest import CORPUS

    mods = imported_modules("run", "openmp", str(CORPUS / "jacobi_2d.c"), "-o", str(tmp_path / "out"))
    assert "islpy" in mods and "passman.passes.loops.fusion" in mods
    assert "networkx" not in mods
    assert "importlib.metadata" not in mods and "email" not in mods


def test_islpy_version_stand_in_says_what_islpy_says():
    code = (
        "import sys\n"
        "from passman.lazy import install\n"
        "install()\n"
        "import islpy\n"
        "islpy.Set\n"
        "ours = sys.modules['islpy.version']\n"
        "print(ours.VERSION_TEXT, ours.VERSION, ours.VERSION_STATUS, islpy.__version__)\n"
        "del sys.modules['islpy.version']\n"
        "import importlib\n"
        "real = importlib.import_module('islpy.version')\n"
        "print(real.VERSION_TEXT, real.VERSION, real.VERSION_STATUS, real.VERSION_TEXT)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    ours, real = proc.stdout.splitlines()
    assert ours == real
