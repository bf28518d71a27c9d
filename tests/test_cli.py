"""The command line: recipes by path and by name, output, build and run, bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from passman.cli import main

HELLO = """\
#include <stdio.h>
int main(void) {
    int s = 0;
    for (int i = 0; i < 10; i++)
        s += i;
    printf("sum=%d\\n", s);
    return 0;
}
"""

RECIPE = """\
from passman import PassFailed

def main(ws, label_prefix: str = "k", verbose: bool = False):
    ws.marker = label_prefix
    for m in ws.all_functions:
        print("function", m.name)
"""


def passman(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run the real ``passman`` command in a subprocess."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from passman.cli import main; sys.exit(main())", *args],
        capture_output=True, text=True, cwd=cwd,
    )


@pytest.fixture
def hello(write_c):
    return write_c(HELLO, "hello.c")


def test_run_recipe_file_prints_code(tmp_path, hello, capsys):
    r = tmp_path / "r.py"
    r.write_text(RECIPE)
    assert main(["run", str(r), str(hello)]) == 0
    out = capsys.readouterr().out
    assert "function main" in out and "#include <stdio.h>" in out and "sum=%d" in out


def test_run_with_output_dir_and_build_and_run(tmp_path, hello, capsys):
    r = tmp_path / "r.py"
    r.write_text(RECIPE)
    out = tmp_path / "out"
    assert main(["run", str(r), str(hello), "-o", str(out)]) == 0
    assert (out / "hello.c").is_file()
    assert main(["run", str(r), str(hello), "-o", str(out), "--run"]) == 0
    assert "sum=45" in capsys.readouterr().out
    assert (out / "Makefile").is_file()


def test_program_arguments_after_double_dash(tmp_path, write_c, capsys):
    src = write_c('#include <stdio.h>\nint main(int c, char **v) { printf("%d %s\\n", c, v[c-1]); return 0; }\n', "args.c")
    r = tmp_path / "r.py"
    r.write_text("def main(ws):\n    pass\n")
    assert main(["run", str(r), str(src), "--run", "--", "a b", "c'd"]) == 0
    assert capsys.readouterr().out == "3 c'd\n"


def test_names_with_spaces_and_quotes_end_to_end(tmp_path, capsys):
    d = tmp_path / "my dir's"
    d.mkdir()
    src = d / "my 'odd' file.c"
    src.write_text(HELLO)
    r = d / "my recipe.py"
    r.write_text("def main(ws):\n    pass\n")
    out = d / "out dir"
    assert main(["run", str(r), str(src), "-o", str(out), "--run"]) == 0
    assert "sum=45" in capsys.readouterr().out
    assert (out / "my 'odd' file.c").is_file()
    if (out / "Makefile").is_file() and subprocess.run(["which", "make"], capture_output=True).returncode == 0:
        proc = subprocess.run(["make", "-C", str(out), "run"], capture_output=True, text=True)
        assert proc.returncode == 0 and "sum=45" in proc.stdout


def test_set_options_and_properties(tmp_path, hello, capsys):
    r = tmp_path / "r.py"
    r.write_text("def main(ws, times: int = 1):\n    print('times', times * 2)\n")
    assert main(["run", str(r), str(hello), "--set", "times=21"]) == 0
    assert "times 42" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, expect",
    [
        (["run", "R", "/nonexistent/x.c"], "/nonexistent/x.c: error: no such file"),
        (["run", "no_such_recipe", "F"], "error: no recipe 'no_such_recipe'"),
        (["run", "R", "F", "--set", "oops"], "error: bad --set 'oops'"),
        (["run", "R", "F", "--set", "no_such_prop=3"], "error: unknown property 'no_such_prop'"),
        (["run", "R", "F", "--set", "times=abc"], "error: property times expects an integer"),
        (["passes", "no_such_pass"], "error: unknown pass 'no_such_pass'"),
        (["run", "R", "F", "--build", "--backend", "nope"], "error: unknown backend 'nope'"),
    ],
)
def test_bad_input_one_line_no_traceback(tmp_path, hello, args, expect):
    r = tmp_path / "r.py"
    r.write_text("def main(ws, times: int = 1):\n    pass\n")
    args = [str(r) if a == "R" else str(hello) if a == "F" else a for a in args]
    out = tmp_path / "never"
    proc = passman(*args, "-o", str(out)) if args[0] == "run" else passman(*args)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expect in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()


def test_syntax_error_reports_file_line_col(write_c, tmp_path):
    bad = write_c("int main(void) {\n    return 1 +;\n}\n", "bad.c")
    before = bad.read_text()
    r = tmp_path / "r.py"
    r.write_text("def main(ws):\n    pass\n")
    out = tmp_path / "out"
    proc = passman("run", str(r), str(bad), "-o", str(out))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{bad}:2:") and "error:" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert bad.read_text() == before and not out.exists()


def test_error_in_recipe_points_at_the_recipe_line(tmp_path, hello):
    r = tmp_path / "r.py"
    r.write_text("def main(ws):\n    x = 1\n    return ws.nothing_here_at_all\n")
    proc = passman("run", str(r), str(hello))
    assert proc.returncode == 1
    assert proc.stderr.startswith(f"{r}:3: error:") and "Traceback" not in proc.stderr


def test_passfailed_escaping_a_recipe_is_one_line(tmp_path, hello):
    r = tmp_path / "r.py"
    r.write_text("from passman import PassFailed\ndef main(ws):\n    raise PassFailed('nope here')\n")
    proc = passman("run", str(r), str(hello))
    assert proc.returncode == 1 and proc.stderr.strip() == "passman: error: nope here"


def test_output_dir_that_is_not_ours_is_refused(tmp_path, hello):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = tmp_path / "r.py"
    r.write_text("def main(ws):\n    pass\n")
    proc = passman("run", str(r), str(hello), "-o", str(out))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert (out / "keep.txt").read_text() == "mine"


def test_passes_lists_registered_passes(capsys):
    assert main(["passes"]) == 0
    out = capsys.readouterr().out
    assert "callgraph" in out


def test_show_annotates_with_a_resource(hello, capsys):
    assert main(["show", str(hello), "--resource", "callgraph"]) == 0
    out = capsys.readouterr().out
    assert "// callers: (none)" in out and "// loop l" in out


def test_the_command_exits_at_once_with_its_output_whole_and_its_exit_handlers_run(tmp_path, hello):
    """``passman`` (``passman.cli:run``) ends the process once the command is done, without tearing the
    interpreter down: what it printed to a pipe is all there, the exit handlers (a recipe's, here) ran,
    and the exit status is the command's."""
    marker = tmp_path / "exit-handler-ran"
    recipe = tmp_path / "loud.py"
    recipe.write_text(
        "import atexit\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('ran'))\n"
        "def main(ws):\n"
        "    for k in range(20000):\n"
        "        print('line', k)\n"
    )
    cmd = [sys.executable, "-c", "from passman.cli import run; run()"]
    proc = subprocess.run([*cmd, "run", str(recipe), str(hello)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[:1] == ["line 0"] and "line 19999" in lines
    assert marker.read_text() == "ran"
    bad = subprocess.run([*cmd, "run", str(recipe), str(tmp_path / "missing.c")], capture_output=True, text=True)
    assert bad.returncode == 1 and "no such file" in bad.stderr
