"""Tests for passman.builder and passman.fsutil."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from passman import fsutil
from passman.builder import (
    BuildError,
    BuildPlan,
    BuildResult,
    RunResult,
    SourceFile,
    build_and_run,
    compile,
    have_nvcc,
    make_escape,
    plan_commands,
    render_makefile,
    run,
    which,
    write_makefile,
)
from passman.fsutil import (
    MARKER_NAME,
    atomic_copy,
    atomic_directory,
    atomic_write_bytes,
    atomic_write_text,
)

CC = "gcc" if which("gcc") else "cc"
needs_cc = pytest.mark.skipif(which(CC) is None, reason="no C compiler")
needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

HELLO = textwrap.dedent(
    """\
    #include <stdio.h>
    int main(int argc, char **argv) {
        printf("hello, world\\n");
        for (int i = 1; i < argc; i++) printf("arg[%d]=%s\\n", i, argv[i]);
        return 0;
    }
    """
)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def make(directory: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-C", str(directory), *targets], capture_output=True, text=True, check=False
    )


def leftovers(directory: Path) -> list[str]:
    """Temporary files/directories that the fsutil functions may have left behind."""
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


# ---------------------------------------------------------------------------
# compile + run
# ---------------------------------------------------------------------------


@needs_cc
def test_hello_world(tmp_path: Path) -> None:
    write(tmp_path / "hello.c", HELLO)
    plan = BuildPlan([SourceFile(Path("hello.c"))], output="hello", cc=CC)
    result = compile(plan, tmp_path)
    assert isinstance(result, BuildResult)
    assert result.ok and result.binary == tmp_path / "hello"
    assert result.binary.is_file() and os.access(result.binary, os.X_OK)
    assert all(isinstance(cmd, list) for cmd in result.commands)
    assert result.commands == plan_commands(plan)
    assert result.commands[0] == [CC, "-O2", "-c", "hello.c", "-o", "hello.o"]
    assert result.commands[-1] == [CC, "hello.o", "-o", "hello", "-lm"]
    assert result.seconds >= 0

    out = run(result.binary, ["a b", "$HOME", "'q'"])
    assert isinstance(out, RunResult)
    assert out.ok and out.returncode == 0 and not out.timed_out
    assert out.stdout == "hello, world\narg[1]=a b\narg[2]=$HOME\narg[3]='q'\n"
    assert out.stderr == ""


@needs_cc
def test_two_files_with_header(tmp_path: Path) -> None:
    write(
        tmp_path / "main.c",
        '#include <stdio.h>\n#include "util.h"\n'
        'int main(void) { printf("%d %d\\n", square(7), SCALE); return 0; }\n',
    )
    write(tmp_path / "util.c", '#include "util.h"\nint square(int x) { return x * x * SCALE; }\n')
    plan = BuildPlan(
        sources=[SourceFile(Path("main.c")), SourceFile(Path("util.c"), flags=["-Wall"])],
        output="prog",
        cc=CC,
        extra_files={"util.h": "#define SCALE 2\nint square(int x);\n"},
    )
    result = build_and_run(plan, tmp_path)
    assert result.stdout == "98 2\n"
    assert result.build is not None and result.build.ok
    assert (tmp_path / "util.h").read_text() == "#define SCALE 2\nint square(int x);\n"
    assert result.build.commands[1] == [CC, "-O2", "-Wall", "-c", "util.c", "-o", "util.o"]
    assert result.build.commands[2] == [CC, "main.o", "util.o", "-o", "prog", "-lm"]

    # Same result sequentially, and with the Makefile.
    assert compile(plan, tmp_path, jobs=1).ok
    if shutil.which("make"):
        write_makefile(plan, tmp_path)
        assert make(tmp_path, "clean").returncode == 0
        proc = make(tmp_path, "run")
        assert proc.returncode == 0, proc.stderr
        assert "98 2\n" in proc.stdout


NASTY_MAIN = textwrap.dedent(
    """\
    #include <stdio.h>
    #include "lib header.h"
    int main(int argc, char **argv) {
        printf("%s|%d|%s\\n", GREETING, helper(20), argc > 1 ? argv[1] : "-");
        return 0;
    }
    """
)


def nasty_project(root: Path) -> tuple[BuildPlan, Path]:
    """A program whose paths and flags contain spaces, quotes, '#', '$', ':' and '='."""
    build = root / "my build dir"
    inc = root / "include dir #1"
    other = root / "other src"
    write(build / "it's my file.c", NASTY_MAIN)
    write(inc / "lib header.h", "int helper(int);\n")
    helper = write(other / "weird #1 $HOME:a=b.c", "int helper(int x) { return x + 22; }\n")
    plan = BuildPlan(
        sources=[SourceFile(Path("it's my file.c")), SourceFile(helper)],
        output="my prog",
        cc=CC,
        cppflags=["-I", str(inc), '-DGREETING="hi #1 $HOME it\'s"'],
    )
    return plan, build


@needs_cc
def test_spaces_and_quotes_via_compile(tmp_path: Path) -> None:
    plan, build = nasty_project(tmp_path)
    result = compile(plan, build)
    assert result.binary == build / "my prog"
    assert (build / "it's my file.o").is_file()
    out = run(result.binary, ["x y"])
    assert out.stdout == "hi #1 $HOME it's|42|x y\n"


@needs_cc
@needs_make
def test_spaces_and_quotes_via_make(tmp_path: Path) -> None:
    plan, build = nasty_project(tmp_path)
    makefile = write_makefile(plan, build)
    assert makefile == build / "Makefile"
    text = makefile.read_text()
    assert "it's\\ my\\ file.o:" in text
    assert "all run clean" in text

    proc = make(build)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (build / "my prog").is_file()
    assert run(build / "my prog").stdout == "hi #1 $HOME it's|42|-\n"

    # Nothing to do the second time; touching a source rebuilds.
    assert make(build, "-q").returncode == 0
    future = time.time() + 100
    os.utime(build / "it's my file.c", (future, future))
    assert make(build, "-q").returncode == 1

    proc = make(build, "run", "ARGS='a b'")
    assert proc.returncode == 0, proc.stderr
    assert "hi #1 $HOME it's|42|a b\n" in proc.stdout

    assert make(build, "clean").returncode == 0
    assert not (build / "my prog").exists()
    assert not (build / "it's my file.o").exists()
    assert (build / "it's my file.c").exists()


@needs_cc
@needs_make
def test_makefile_runs_same_commands_as_compile(tmp_path: Path) -> None:
    write(tmp_path / "hello.c", HELLO)
    plan = BuildPlan([SourceFile(Path("hello.c"))], output="hello", cc=CC, cflags=["-O1", "-g"])
    write_makefile(plan, tmp_path)
    proc = make(tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = [line.split() for line in proc.stdout.splitlines() if line.startswith(CC)]
    assert lines == plan_commands(plan)


@needs_cc
def test_dash_and_duplicate_names(tmp_path: Path) -> None:
    write(tmp_path / "-main.c", "int f(void); int g(void);\nint main(void) { return f() + g(); }\n")
    write(tmp_path / "a" / "x.c", "int f(void) { return 1; }\n")
    write(tmp_path / "b" / "x.c", "int g(void) { return 2; }\n")
    plan = BuildPlan(["-main.c", "a/x.c", Path("b/x.c")], cc=CC)
    result = compile(plan, tmp_path)
    assert [c[-1] for c in result.commands[:-1]] == ["./-main.o", "x.o", "x.1.o"]
    assert run(result.binary).returncode == 3
    if shutil.which("make"):
        write_makefile(plan, tmp_path)
        assert make(tmp_path, "clean").returncode == 0
        assert make(tmp_path).returncode == 0
        assert run(result.binary).returncode == 3


# ---------------------------------------------------------------------------
# failures
# ---------------------------------------------------------------------------


@needs_cc
def test_compile_error_raises_build_error(tmp_path: Path) -> None:
    write(tmp_path / "ok.c", "int ok(void) { return 0; }\n")
    write(tmp_path / "bad.c", "int main(void) { return undeclared_thing; }\n")
    plan = BuildPlan([SourceFile(Path("ok.c")), SourceFile(Path("bad.c"))], cc=CC)
    (tmp_path / "a.out").write_text("stale")
    with pytest.raises(BuildError) as info:
        compile(plan, tmp_path)
    err = info.value
    assert isinstance(err, RuntimeError)
    assert "undeclared_thing" in str(err) and "bad.c" in str(err)
    assert err.command == [CC, "-O2", "-c", "bad.c", "-o", "bad.o"]
    assert err.returncode not in (0, None)
    assert "undeclared_thing" in err.stderr
    assert err.result is not None and not err.result.ok
    assert not (tmp_path / "a.out").exists(), "a stale binary must not survive a failed build"

    result = compile(plan, tmp_path, check=False)
    assert not result.ok and result.binary is None
    assert result.failed_command == err.command
    assert "undeclared_thing" in result.stderr
    assert len(result.commands) == 2  # no link attempted


@needs_cc
def test_link_error(tmp_path: Path) -> None:
    write(tmp_path / "main.c", "int missing(void);\nint main(void) { return missing(); }\n")
    with pytest.raises(BuildError, match="missing"):
        compile(BuildPlan(["main.c"], cc=CC), tmp_path)


def test_missing_compiler(tmp_path: Path) -> None:
    write(tmp_path / "main.c", "int main(void) { return 0; }\n")
    plan = BuildPlan(["main.c"], cc="no-such-compiler-passman")
    with pytest.raises(BuildError, match="no-such-compiler-passman") as info:
        compile(plan, tmp_path)
    assert info.value.returncode is None
    assert not compile(plan, tmp_path, check=False).ok


def test_empty_plan(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        compile(BuildPlan([]), tmp_path)


@needs_cc
def test_timeout_and_partial_output(tmp_path: Path) -> None:
    write(
        tmp_path / "spin.c",
        textwrap.dedent(
            """\
            #include <stdio.h>
            #include <unistd.h>
            int main(void) {
                printf("started\\n");
                fflush(stdout);
                fork();              /* a child that also keeps the pipes open */
                for (;;) sleep(1);
            }
            """
        ),
    )
    binary = compile(BuildPlan(["spin.c"], cc=CC), tmp_path).binary
    start = time.monotonic()
    result = run(binary, timeout=0.5)
    assert time.monotonic() - start < 10
    assert result.timed_out and result.returncode is None and not result.ok
    assert result.stdout == "started\n"


@needs_cc
def test_run_input_env_exit_status_and_signal(tmp_path: Path) -> None:
    write(
        tmp_path / "t.c",
        textwrap.dedent(
            """\
            #include <signal.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            int main(int argc, char **argv) {
                char buf[64] = "";
                if (argc > 1 && strcmp(argv[1], "crash") == 0) raise(SIGSEGV);
                if (!fgets(buf, sizeof buf, stdin)) strcpy(buf, "<eof>");
                const char *v = getenv("PASSMAN_TEST");
                printf("%s|%s\\n", buf, v ? v : "unset");
                fprintf(stderr, "err\\n");
                return 3;
            }
            """
        ),
    )
    binary = compile(BuildPlan(["t.c"], cc=CC), tmp_path).binary
    r = run(binary, input="line", env={"PASSMAN_TEST": "yes"})
    assert (r.returncode, r.stdout, r.stderr, r.timed_out) == (3, "line|yes\n", "err\n", False)
    r = run(binary)
    assert r.stdout.startswith("<eof>|")
    assert run(binary, ["crash"]).returncode == -11
    # A relative path is relative to the current directory, not to cwd.
    rel = os.path.relpath(binary)
    assert run(Path(rel), cwd="/").returncode == 3
    with pytest.raises(FileNotFoundError):
        run(tmp_path / "does-not-exist")


# ---------------------------------------------------------------------------
# Makefile rendering
# ---------------------------------------------------------------------------


def test_makefile_contents(tmp_path: Path) -> None:
    plan = BuildPlan(
        sources=[SourceFile(Path("main.c")), SourceFile(Path("kern.cu"), "nvcc", ["-arch=sm_90"])],
        output="app",
        cflags=["-O3", "-DX=#1"],
        extra_files={"rt.h": "/* runtime */\n"},
    )
    path = write_makefile(plan, tmp_path)
    text = path.read_text()
    assert (tmp_path / "rt.h").read_text() == "/* runtime */\n"
    assert "\nCC = gcc\n" in text
    assert "\nCFLAGS = -O3 '-DX=\\#1'\n" in text
    assert "\nNVCC = nvcc\n" in text
    assert "\nLINK = $(NVCC)\n" in text
    assert "\nLDLIBS = -lm\n" in text
    assert ".PHONY: all run clean" in text
    assert (
        "main.o: main.c rt.h Makefile\n\t$(CC) $(CPPFLAGS) $(CFLAGS) -c main.c -o main.o\n" in text
    )
    assert (
        "kern.o: kern.cu rt.h Makefile\n\t$(NVCC) $(CPPFLAGS) -arch=sm_90 -c kern.cu -o kern.o\n"
        in text
    )
    assert "app: main.o kern.o\n\t$(LINK) $(LDFLAGS) main.o kern.o -o app $(LDLIBS)\n" in text
    assert "run: app\n\t./app $(ARGS)\n" in text
    assert text.endswith("\n")
    assert plan_commands(plan)[1] == ["nvcc", "-arch=sm_90", "-c", "kern.cu", "-o", "kern.o"]
    assert plan_commands(plan)[2][0] == "nvcc"

    # Unchanged plans do not touch the file (so make does not rebuild everything).
    before = path.stat().st_mtime_ns
    os.utime(path, ns=(before - 10**9, before - 10**9))
    write_makefile(plan, tmp_path)
    assert path.stat().st_mtime_ns == before - 10**9


def test_makefile_rejects_impossible_names() -> None:
    with pytest.raises(ValueError, match="Makefile"):
        render_makefile(BuildPlan(["a;b.c"]))
    with pytest.raises(ValueError):
        render_makefile(BuildPlan(["main.c"], output="clean"))


@needs_cc
@pytest.mark.skipif(not have_nvcc(), reason="nvcc is not installed")
def test_nvcc_source(tmp_path: Path) -> None:
    # Host-only code: compiles and runs without a GPU.
    write(
        tmp_path / "main.c", "int twice(int);\nint main(void) { return twice(21) == 42 ? 0 : 1; }\n"
    )
    write(tmp_path / "k.cu", 'extern "C" int twice(int x) { return 2 * x; }\n')
    plan = BuildPlan([SourceFile(Path("main.c")), SourceFile(Path("k.cu"), "nvcc")], cc=CC)
    assert build_and_run(plan, tmp_path, timeout=120).returncode == 0


# ---------------------------------------------------------------------------
# make_escape
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("plain.c", "plain.c"),
        ("my kernel.c", "my\\ kernel.c"),
        ("it's.c", "it's.c"),
        ("a$b.c", "a$$b.c"),
        ("a#b.c", "a\\#b.c"),
        ("c:d.c", "c\\:d.c"),
        ("a=b.c", "a$(if ,,=)b.c"),
        ("a*b.c", "a\\*b.c"),
        ("a?[x].c", "a\\?\\[x].c"),
        ("a%b.c", "a%b.c"),
        ("back\\slash.c", "back\\slash.c"),
        ("back\\ slash.c", "back\\\\\\ slash.c"),
        ("star\\*.c", "star\\\\\\*.c"),
        ("/abs/dir with space/f.c", "/abs/dir\\ with\\ space/f.c"),
        (Path("p q.c"), "p\\ q.c"),
    ],
)
def test_make_escape(name: str, expected: str) -> None:
    assert make_escape(name) == expected


@pytest.mark.parametrize(
    "name",
    [
        "",
        "a\nb.c",
        "tab\there.c",
        "a;b.c",
        "a|b.c",
        "~/x.c",
        "trailing ",
        "end\\",
        "x\\%.c",
        "lib(m)",
    ],
)
def test_make_escape_rejects(name: str) -> None:
    with pytest.raises(ValueError):
        make_escape(name)


NASTY_NAMES = [
    "my kernel",
    "it's",
    "a$b",
    "$(x)",
    "a#b",
    "a:b",
    "a=b",
    "a%b",
    "a*b",
    "a?b",
    "a[1]b",
    "a\\b",
    "a\\ b",
    "a\\#b",
    "a\\:b",
    "a\\*b",
    '"quoted"',
    "`tick`",
    "a&b",
    "-dash",
    "(paren)x",
    "ünïcode",
]


@needs_make
def test_make_escape_round_trip_with_make(tmp_path: Path) -> None:
    """make builds each escaped target exactly once, even with glob decoys present."""
    for i, name in enumerate(NASTY_NAMES):
        d = tmp_path / str(i)
        d.mkdir()
        src, out = name + ".in", name + ".out"
        (d / src).write_text(name)
        for decoy in ("ab.in", "a.in", "axb.in", "a1b.in", "a b.in", "a\\.in"):
            if decoy != src:
                (d / decoy).write_text("decoy")
        qsrc, qout = (("'" + s.replace("'", "'\\''") + "'").replace("$", "$$") for s in (src, out))
        (d / "Makefile").write_text(
            f"all: {make_escape(out)}\n{make_escape(out)}: {make_escape(src)}\n\tcp -- {qsrc} {qout}\n"
        )
        first = make(d)
        assert first.returncode == 0, (name, first.stderr)
        assert (d / out).read_text() == name
        assert make(d, "-q").returncode == 0, name
        future = time.time() + 100
        os.utime(d / src, (future, future))
        assert make(d, "-q").returncode == 1, name


# ---------------------------------------------------------------------------
# fsutil
# ---------------------------------------------------------------------------


def test_atomic_write_text_and_bytes(tmp_path: Path) -> None:
    target = tmp_path / "f.txt"
    assert atomic_write_text(target, "héllo\n") == target
    assert target.read_bytes() == "héllo\n".encode()
    atomic_write_bytes(target, b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"
    target.chmod(0o640)
    atomic_write_text(str(target), "again")
    assert target.read_text() == "again"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_atomic_write_failure_leaves_destination(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("original")
    new = tmp_path / "new.txt"

    def boom(*args: object, **kwargs: object) -> None:
        raise OSError("simulated failure")

    monkeypatch.setattr(fsutil.os, "replace", boom)
    with pytest.raises(OSError, match="simulated"):
        atomic_write_text(target, "changed")
    with pytest.raises(OSError, match="simulated"):
        atomic_write_bytes(new, b"data")
    src = write(tmp_path / "src.bin", "payload")
    with pytest.raises(OSError, match="simulated"):
        atomic_copy(src, target)
    monkeypatch.undo()

    assert target.read_text() == "original"
    assert not new.exists()
    assert leftovers(tmp_path) == []


def test_atomic_write_failure_while_writing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f.txt"
    target.write_text("original")

    def interrupted(fd: int, data: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(fsutil.os, "write", interrupted)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new contents")
    monkeypatch.undo()
    assert target.read_text() == "original"
    assert leftovers(tmp_path) == []


def test_atomic_copy(tmp_path: Path) -> None:
    src = write(tmp_path / "tool.sh", "#!/bin/sh\necho hi\n")
    src.chmod(0o755)
    dst = atomic_copy(src, tmp_path / "copy.sh")
    assert dst.read_text() == src.read_text()
    assert stat.S_IMODE(dst.stat().st_mode) == 0o755
    with pytest.raises(FileNotFoundError):
        atomic_copy(tmp_path / "missing", tmp_path / "x")
    assert not (tmp_path / "x").exists()
    assert leftovers(tmp_path) == []


def test_atomic_directory_create_and_replace(tmp_path: Path) -> None:
    dest = tmp_path / "out dir"
    with atomic_directory(dest) as tmp:
        assert tmp.is_dir() and tmp.parent == tmp_path and not dest.exists()
        (tmp / "a.c").write_text("one")
    assert (dest / "a.c").read_text() == "one"
    assert (dest / MARKER_NAME).is_file()
    assert fsutil.is_passman_output(dest)

    with atomic_directory(dest) as tmp:
        (tmp / "b.c").write_text("two")
    assert sorted(p.name for p in dest.iterdir()) == sorted([MARKER_NAME, "b.c"])
    assert leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out dir"]


def test_atomic_directory_exception_leaves_dest(tmp_path: Path) -> None:
    dest = tmp_path / "out"
    with atomic_directory(dest) as tmp:
        (tmp / "keep.c").write_text("keep")
    with pytest.raises(RuntimeError, match="midway"):
        with atomic_directory(dest) as tmp:
            (tmp / "half.c").write_text("half")
            raise RuntimeError("midway")
    assert sorted(p.name for p in dest.iterdir()) == sorted([MARKER_NAME, "keep.c"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]

    fresh = tmp_path / "fresh"
    with pytest.raises(RuntimeError):
        with atomic_directory(fresh):
            raise RuntimeError("midway")
    assert not fresh.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_atomic_directory_refuses_foreign_directories(tmp_path: Path) -> None:
    foreign = tmp_path / "foreign"
    write(foreign / "precious.txt", "do not delete")
    with pytest.raises(FileExistsError):
        with atomic_directory(foreign):
            pytest.fail("the body must not run")
    assert (foreign / "precious.txt").read_text() == "do not delete"

    a_file = write(tmp_path / "file", "x")
    with pytest.raises(FileExistsError):
        with atomic_directory(a_file):
            pass
    assert a_file.read_text() == "x"

    link = tmp_path / "link"
    link.symlink_to(foreign)
    with pytest.raises(FileExistsError):
        with atomic_directory(link):
            pass

    # A foreign file appearing while we work is not clobbered either.
    dest = tmp_path / "racy"
    with pytest.raises(FileExistsError):
        with atomic_directory(dest) as tmp:
            (tmp / "x").write_text("x")
            write(dest / "theirs", "theirs")
    assert (dest / "theirs").read_text() == "theirs"

    empty = tmp_path / "empty"
    empty.mkdir()
    with atomic_directory(empty) as tmp:
        (tmp / "x").write_text("x")
    assert (empty / "x").read_text() == "x"
    assert leftovers(tmp_path) == []


def test_atomic_directory_without_rename_exchange(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fsutil, "_exchange", lambda a, b: False)
    dest = tmp_path / "out"
    with atomic_directory(dest) as tmp:
        (tmp / "one").write_text("1")
    with atomic_directory(dest) as tmp:
        (tmp / "two").write_text("2")
    assert sorted(p.name for p in dest.iterdir()) == sorted([MARKER_NAME, "two"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]

    # If moving the new directory in fails, the old one is put back.
    real_rename = os.rename
    calls = []

    def flaky_rename(a: object, b: object) -> None:
        calls.append((a, b))
        if len(calls) == 2:
            raise OSError("simulated failure")
        real_rename(a, b)

    monkeypatch.setattr(fsutil.os, "rename", flaky_rename)
    with pytest.raises(OSError, match="simulated"):
        with atomic_directory(dest) as tmp:
            (tmp / "three").write_text("3")
    assert sorted(p.name for p in dest.iterdir()) == sorted([MARKER_NAME, "two"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


@pytest.mark.skipif(sys.platform != "linux", reason="renameat2 is Linux's")
def test_rename_exchange_swaps_two_paths_with_the_loaded_libc(tmp_path: Path) -> None:
    """renameat2 is taken from the symbols the process has loaded (no ldconfig run): it swaps a folder
    and a file in one step."""
    folder = tmp_path / "a"
    folder.mkdir()
    (folder / "inside").write_text("x")
    file = write(tmp_path / "b", "b")
    assert fsutil._exchange(folder, file)
    assert (tmp_path / "a").read_text() == "b" and (tmp_path / "b" / "inside").read_text() == "x"
