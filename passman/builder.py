"""Build and run the C programs that passman generates.

A :class:`BuildPlan` lists the sources of one program together with the
compilers and flags to use.  From a plan this module can

* write a readable, standalone ``Makefile`` (:func:`write_makefile`),
* compile and link the program directly (:func:`compile`), running each
  compiler as an argument list (never through a shell), and
* run the resulting executable with a timeout (:func:`run`).

Path conventions
----------------
Relative source paths, ``output`` and the keys of ``extra_files`` are relative
to the *build directory* (the ``directory`` argument), which is also the
working directory of every compiler command and of ``make``.  Object files are
written into the build directory.  Absolute source paths are used as they are.

Compilers and flags
-------------------
A :class:`SourceFile` whose ``compiler`` is ``"cc"`` (the default) or equal to
``plan.cc`` is compiled with the plan's C compiler as
``cc CPPFLAGS CFLAGS file.flags -c SRC -o OBJ``.  A file with any other
compiler (``nvcc``, ``g++``, ...) is compiled as
``compiler CPPFLAGS file.flags -c SRC -o OBJ``: ``plan.cflags`` hold C compiler
options that other compilers often reject, so they are not passed on.
The program is linked as ``linker LDFLAGS OBJS -o OUTPUT LIBS``.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import InvalidInput, PassmanError
from .fsutil import atomic_write_text
from .templating import template

if TYPE_CHECKING:  # jinja2 is imported when a template is first rendered (templating)
    import jinja2

__all__ = [
    "BuildError",
    "BuildFlags",
    "BuildPlan",
    "BuildResult",
    "RunResult",
    "SourceFile",
    "build_and_run",
    "compile",
    "have_make",
    "have_nvcc",
    "make_escape",
    "plan_commands",
    "render_makefile",
    "run",
    "which",
    "write_extra_files",
    "write_makefile",
    "absolute_paths",
]

#: ``SourceFile.compiler`` value meaning "the plan's C compiler" (``plan.cc``).
DEFAULT_COMPILER = "cc"

StrPath = str | os.PathLike[str]


# ---------------------------------------------------------------------------
# Data classes
# ---------------------------------------------------------------------------


@dataclass
class SourceFile:
    """One translation unit of a :class:`BuildPlan`.

    ``compiler`` is the program that compiles this file; the default ``"cc"``
    means the plan's C compiler (``BuildPlan.cc``).  Use e.g. ``"nvcc"`` for a
    ``.cu`` file.  ``flags`` are extra options for this file only; they are
    added after the plan's flags.  A relative ``path`` is relative to the build
    directory.
    """

    path: Path
    compiler: str = DEFAULT_COMPILER
    flags: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.path = Path(self.path)
        self.flags = list(self.flags)


@dataclass
class BuildPlan:
    """Everything needed to build one executable.

    Attributes:
        sources: the translation units (plain paths are accepted and turned
            into :class:`SourceFile` objects using the default compiler).
        output: name of the executable, relative to the build directory.
        cc: the C compiler (a program name or path, one word).
        cflags: options for the C compiler (``CFLAGS``); not given to other
            compilers.
        cppflags: preprocessor options (``CPPFLAGS``: ``-I``, ``-D``), given
            to every compiler.
        ldflags: options for the linker placed before the objects (``LDFLAGS``).
        libs: libraries placed after the objects (``LDLIBS``).
        linker: program used to link.  ``None`` picks ``cc`` if every source
            uses the C compiler, ``nvcc`` if some source uses ``nvcc``, and
            otherwise the first other compiler (e.g. ``g++`` for C++).
        extra_files: files to write into the build directory before building,
            as ``{relative name: text}`` (runtime headers and the like).
    """

    sources: list[SourceFile]
    output: str = "a.out"
    cc: str = "gcc"
    cflags: list[str] = field(default_factory=lambda: ["-O2"])
    cppflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    libs: list[str] = field(default_factory=lambda: ["-lm"])
    linker: str | None = None
    extra_files: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.sources = [
            s if isinstance(s, SourceFile) else SourceFile(Path(s)) for s in self.sources
        ]
        self.output = os.fspath(self.output)


@dataclass
class BuildResult:
    """Outcome of :func:`compile`.

    ``commands`` lists the argument lists that were run, compile commands in
    source order followed by the link command.  ``stdout``/``stderr`` are the
    compilers' outputs concatenated in the same order.  When the build failed,
    ``failed_command`` and ``returncode`` describe the first failing command
    (``returncode`` is ``None`` if the program could not be started).
    """

    ok: bool
    binary: Path | None
    commands: list[list[str]]
    stdout: str
    stderr: str
    seconds: float
    failed_command: list[str] | None = None
    returncode: int | None = None


@dataclass
class RunResult:
    """Outcome of :func:`run`.

    ``returncode`` is negative (``-signal``) if the program was killed by a
    signal, and ``None`` if it timed out (then ``timed_out`` is true and
    ``stdout``/``stderr`` hold whatever it printed before being killed).
    :func:`build_and_run` also fills in ``build``.
    """

    returncode: int | None
    stdout: str
    stderr: str
    seconds: float
    timed_out: bool = False
    build: BuildResult | None = field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        """True if the program exited with status 0."""
        return self.returncode == 0


class BuildError(PassmanError, RuntimeError):
    """A compiler or linker command failed.

    The message names the failing command and includes the compiler's error
    output.  Attributes: ``command`` (argument list), ``returncode`` (``None``
    if the program could not be started), ``stderr``, and ``result`` (the
    :class:`BuildResult`, when raised by :func:`compile`).
    """

    def __init__(
        self,
        message: str,
        *,
        command: Sequence[str] | None = None,
        returncode: int | None = None,
        stderr: str = "",
        result: BuildResult | None = None,
    ) -> None:
        super().__init__(message)
        self.command = list(command) if command is not None else None
        self.returncode = returncode
        self.stderr = stderr
        self.result = result


#: preprocessor options followed by a path (``-I dir`` or ``-Idir``)
_PATH_OPTIONS = ("-I", "-isystem", "-iquote", "-idirafter", "-include", "-imacros")


def absolute_paths(cppflags: Iterable[str], base: StrPath | None = None) -> list[str]:
    """``cppflags`` with the paths of ``-I``, ``-isystem``, ``-include`` ... made absolute.

    The user's ``-I utilities`` is relative to where passman runs (``base``,
    by default the current folder); the Makefile runs in the output folder.
    """
    root = os.fspath(base) if base is not None else os.getcwd()
    out: list[str] = []
    pending = False
    for flag in cppflags:
        if pending:
            out.append(os.path.abspath(os.path.join(root, flag)))
            pending = False
            continue
        option = next((o for o in _PATH_OPTIONS if flag.startswith(o)), None)
        if option is None:
            out.append(flag)
        elif flag == option:
            out.append(flag)
            pending = True
        else:
            out.append(option + os.path.abspath(os.path.join(root, flag[len(option):])))
    return out


@dataclass
class BuildFlags:
    """What the user said about the build, added to every backend's plan by :meth:`apply`.

    ``passman run ... -I DIR -D NAME -U NAME --cflags=... --ldlibs=...
    --extra-source FILE`` and ``ws.build_flags`` in a recipe (or the
    recipe's ``CFLAGS``/``LDFLAGS``/``LDLIBS`` constants) fill it.

    Attributes:
        cppflags: the preprocessor options the program was parsed with
            (``-I`` paths absolute), first in the Makefile's ``CPPFLAGS``.
        cflags: added after the backend's ``CFLAGS`` (so ``-O2`` there wins
            over the backend's ``-O3``).
        ldflags: added after the backend's ``LDFLAGS``.
        ldlibs: added after the backend's ``LDLIBS`` (``-lpthread``).
        extra_sources: files compiled and linked with the program but never
            parsed, copied into the build folder.
        extra_files: files copied beside them (the headers they include).
    """

    cppflags: list[str] = field(default_factory=list)
    cflags: list[str] = field(default_factory=list)
    ldflags: list[str] = field(default_factory=list)
    ldlibs: list[str] = field(default_factory=list)
    extra_sources: list[Path] = field(default_factory=list)
    extra_files: list[Path] = field(default_factory=list)

    def copy(self) -> BuildFlags:
        """An independent copy (for a cloned workspace)."""
        return BuildFlags(*(list(getattr(self, f)) for f in (
            "cppflags", "cflags", "ldflags", "ldlibs", "extra_sources", "extra_files")))

    def apply(self, plan: BuildPlan) -> BuildPlan:
        """Add these flags and files to ``plan`` (in place; returned)."""
        plan.cppflags = [*self.cppflags, *plan.cppflags]
        plan.cflags = [*plan.cflags, *self.cflags]
        plan.ldflags = [*plan.ldflags, *self.ldflags]
        plan.libs = [*plan.libs, *self.ldlibs]
        taken = {s.path.as_posix() for s in plan.sources} | set(plan.extra_files)
        for src in self.extra_sources:
            if src.name in taken:
                raise InvalidInput(f"{src}: error: the output already has a file named {src.name}")
            taken.add(src.name)
            plan.extra_files[src.name] = _read_source(src)
            plan.sources.append(SourceFile(Path(src.name), "nvcc" if src.suffix == ".cu" else DEFAULT_COMPILER))
        for f in self.extra_files:
            plan.extra_files.setdefault(f.name, _read_source(f))
        return plan


def _read_source(path: Path) -> str:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidInput(f"{path}: error: cannot read: {err}") from None


# ---------------------------------------------------------------------------
# Tools
# ---------------------------------------------------------------------------


def which(name: str) -> str | None:
    """Return the full path of the program *name* on ``PATH``, or ``None``."""
    return shutil.which(name)


def have_nvcc() -> bool:
    """True if the CUDA compiler ``nvcc`` is on ``PATH`` (a GPU may still be absent)."""
    return which("nvcc") is not None


def have_make() -> bool:
    """True if ``make`` is on ``PATH``."""
    return which("make") is not None


# ---------------------------------------------------------------------------
# Make and shell quoting
# ---------------------------------------------------------------------------

_GLOB_CHARS = "*?["
_MAKE_SPECIAL = " #:"


def make_escape(name: StrPath) -> str:
    """Escape a file name for use as a target or prerequisite in a GNU Makefile.

    Spaces, ``#`` and ``:`` are backslash-escaped, ``$`` becomes ``$$``, the
    wildcard characters ``*``, ``?`` and ``[`` are escaped so that make does
    not glob them, ``=`` is written as ``$(if ,,=)`` (so that the rule is not
    read as a variable assignment), and runs of backslashes are doubled where
    make would otherwise take them as escapes.  ``%`` is left alone: a rule
    whose target contains ``%`` is a pattern rule that only matches itself.
    The result is for rule lines only; recipes need shell quoting instead.

    Names that GNU make cannot express are rejected with :class:`ValueError`:
    empty names, control characters (newline, tab, ...), ``;`` and ``|``,
    a leading ``~`` (tilde expansion), a trailing space or backslash, a
    backslash before ``%``, and names of the form ``archive(member)``.

    >>> make_escape("my kernel.c")
    'my\\\\ kernel.c'
    >>> make_escape("a$b#c:d")
    'a$$b\\\\#c\\\\:d'
    """
    s = os.fspath(name)
    if not isinstance(s, str):
        raise TypeError(f"make_escape() needs a str path, not {type(s).__name__}")
    problem = _make_name_problem(s)
    if problem:
        raise ValueError(f"file name {s!r} cannot be used in a Makefile: {problem}")
    if any(c in s for c in _GLOB_CHARS):
        # make will pass the name to glob(), which treats every backslash as an escape.
        s = re.sub(r"([\\*?\[])", r"\\\1", s)
    # make itself only un-escapes backslashes that precede a special character
    # (or end a word); double those runs so that they survive.
    s = re.sub(r"(\\+)(?=[ #:]|$)", lambda m: m.group(1) * 2, s)
    out = []
    for ch in s:
        if ch in _MAKE_SPECIAL:
            out.append("\\" + ch)
        elif ch == "$":
            out.append("$$")
        elif ch == "=":
            out.append("$(if ,,=)")
        else:
            out.append(ch)
    return "".join(out)


def _make_name_problem(s: str) -> str | None:
    """Return why *s* cannot be a make target/prerequisite, or ``None`` if it can."""
    if not s:
        return "the name is empty"
    bad = sorted({c for c in s if ord(c) < 32 or ord(c) == 127})
    if bad:
        return "it contains the control character(s) " + ", ".join(repr(c) for c in bad)
    for c in ";|":
        if c in s:
            return f"it contains {c!r}"
    if s.startswith("~"):
        return "it starts with '~' (make would expand it to a home directory)"
    if s.endswith((" ", "\\")):
        return "it ends with a space or a backslash"
    if "\\%" in s:
        return "it contains a backslash before '%'"
    if s.endswith(")") and "(" in s:
        return "make would read it as archive(member)"
    return None


def _sh(word: str) -> str:
    """Quote *word* for a shell command line inside a make recipe."""
    return shlex.quote(word).replace("$", "$$")


def _sh_words(words: Iterable[str]) -> str:
    """Quote *words* for a make recipe and join them with spaces."""
    return " ".join(_sh(w) for w in words)


def _make_value(words: Iterable[str]) -> str:
    """Render *words* as the value of a make variable that is used in recipes.

    Words are shell-quoted, ``$`` is doubled and ``#`` (which would start a
    comment) is backslash-escaped together with any backslashes before it.
    """
    text = _sh_words(words)
    return re.sub(r"(\\*)#", lambda m: m.group(1) * 2 + "\\#", text)


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Compile:
    """One compile step: ``argv`` turns ``source`` into ``obj`` (both as on the command line)."""

    source: str
    obj: str
    compiler: str
    uses_cc: bool
    flags: tuple[str, ...]
    argv: tuple[str, ...]


@dataclass(frozen=True)
class _Layout:
    compiles: tuple[_Compile, ...]
    linker: str
    link_argv: tuple[str, ...]
    output: str


def _arg_path(path: StrPath) -> str:
    """Spell *path* for a command line; relative names starting with '-' get './'."""
    s = os.fspath(path)
    if s.startswith("-"):
        s = "./" + s
    return s


def _uses_cc(plan: BuildPlan, src: SourceFile) -> bool:
    return src.compiler in (DEFAULT_COMPILER, plan.cc)


def _is_nvcc(compiler: str) -> bool:
    return os.path.basename(compiler) == "nvcc"


def _pick_linker(plan: BuildPlan) -> str:
    if plan.linker:
        return plan.linker
    others = [s.compiler for s in plan.sources if not _uses_cc(plan, s)]
    for c in others:
        if _is_nvcc(c):
            return c
    return others[0] if others else plan.cc


def _object_names(plan: BuildPlan) -> list[str]:
    """Unique object file names (in the build directory), one per source."""
    reserved = {plan.output, "Makefile", *plan.extra_files}
    used: set[str] = set()
    names = []
    for src in plan.sources:
        stem = src.path.stem if src.path.suffix else src.path.name
        candidate, n = f"{stem}.o", 0
        while candidate in used or candidate in reserved:
            n += 1
            candidate = f"{stem}.{n}.o"
        used.add(candidate)
        names.append(candidate)
    return names


def _layout(plan: BuildPlan) -> _Layout:
    if not plan.sources:
        raise ValueError("the build plan has no sources")
    if not plan.output:
        raise ValueError("the build plan has an empty output name")
    compiles = []
    for src, obj in zip(plan.sources, _object_names(plan), strict=True):
        uses_cc = _uses_cc(plan, src)
        compiler = plan.cc if uses_cc else src.compiler
        flags = [*plan.cppflags, *(plan.cflags if uses_cc else ()), *src.flags]
        source, obj_arg = _arg_path(src.path), _arg_path(obj)
        argv = (compiler, *flags, "-c", source, "-o", obj_arg)
        compiles.append(_Compile(source, obj_arg, compiler, uses_cc, tuple(src.flags), argv))
    linker = _pick_linker(plan)
    output = _arg_path(plan.output)
    link_argv = (linker, *plan.ldflags, *(c.obj for c in compiles), "-o", output, *plan.libs)
    return _Layout(tuple(compiles), linker, link_argv, output)


def plan_commands(plan: BuildPlan) -> list[list[str]]:
    """Return the commands :func:`compile` would run: one per source, then the link.

    The commands are to be run in the build directory.
    """
    layout = _layout(plan)
    return [list(c.argv) for c in layout.compiles] + [list(layout.link_argv)]


def write_extra_files(plan: BuildPlan, directory: StrPath) -> list[Path]:
    """Write ``plan.extra_files`` into *directory* (atomically) and return their paths.

    Files whose contents are already right are not rewritten, so their
    modification times (and hence ``make``'s view of them) stay unchanged.
    Names must be relative and stay inside *directory*.
    """
    base = Path(directory)
    written = []
    for name, text in plan.extra_files.items():
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts or not rel.parts:
            raise ValueError(
                f"extra file name {name!r} must be a relative path inside the build directory"
            )
        dest = base / rel
        dest.parent.mkdir(parents=True, exist_ok=True)
        _write_if_changed(dest, text)
        written.append(dest)
    return written


def _write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_bytes() == text.encode("utf-8"):
            return
    except OSError:
        pass
    atomic_write_text(path, text)


# ---------------------------------------------------------------------------
# Makefile
# ---------------------------------------------------------------------------

_RESERVED_VARS = {
    "CC",
    "CFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "LDLIBS",
    "LINK",
    "ARGS",
    "MAKE",
    "SHELL",
    "RM",
}
_PHONY = ("all", "run", "clean")


@functools.lru_cache(maxsize=1)
def _makefile_template() -> jinja2.Template:
    return package_template(__package__ or "passman", "Makefile.j2")


@functools.cache
def package_template(package: str, name: str) -> jinja2.Template:
    """The Jinja template ``templates/<name>`` of ``package`` (backends keep theirs beside them).

    Undefined variables are errors; block tags leave no blank lines; nothing is escaped (C).
    """
    source = (importlib.resources.files(package) / "templates" / name).read_text("utf-8")
    return template(f"{package}/templates/{name}", source)


def _compiler_variables(plan: BuildPlan, layout: _Layout) -> dict[str, str]:
    """Map each compiler other than ``plan.cc`` to a make variable name (``nvcc`` -> ``NVCC``)."""
    names: dict[str, str] = {}
    taken = set(_RESERVED_VARS)
    for c in layout.compiles:
        if c.uses_cc or c.compiler in names:
            continue
        base = re.sub(r"[^A-Za-z0-9]", "_", os.path.basename(c.compiler).replace("+", "X")).upper()
        if not base or base[0].isdigit():
            base = "COMPILER_" + base
        name, n = base, 1
        while name in taken:
            n += 1
            name = f"{base}_{n}"
        taken.add(name)
        names[c.compiler] = name
    return names


def _rule_head(target: str, prereqs: Iterable[str]) -> str:
    """Format ``target: prereqs`` with already-escaped names."""
    # "x&:" would be read as a grouped target, so keep '&' away from the colon.
    colon = " :" if target.endswith("&") else ":"
    deps = " ".join(prereqs)
    return f"{target}{colon} {deps}" if deps else f"{target}{colon}"


def render_makefile(plan: BuildPlan, *, makefile_name: str = "Makefile") -> str:
    """Return the text of the Makefile for *plan* (see :func:`write_makefile`)."""
    layout = _layout(plan)
    if plan.output in _PHONY or plan.output == makefile_name:
        raise ValueError(f"output name {plan.output!r} clashes with a Makefile target")
    compiler_vars = _compiler_variables(plan, layout)
    extra_deps = [make_escape(_arg_path(n)) for n in plan.extra_files]
    output_target = make_escape(layout.output)

    variables = [
        ("CC", _make_value([plan.cc])),
        ("CPPFLAGS", _make_value(plan.cppflags)),
        ("CFLAGS", _make_value(plan.cflags)),
        ("LDFLAGS", _make_value(plan.ldflags)),
        ("LDLIBS", _make_value(plan.libs)),
    ]
    variables += [(var, _make_value([compiler])) for compiler, var in compiler_vars.items()]
    if layout.linker == plan.cc:
        link_value = "$(CC)"
    elif layout.linker in compiler_vars:
        link_value = f"$({compiler_vars[layout.linker]})"
    else:
        link_value = _make_value([layout.linker])
    variables.append(("LINK", link_value))

    compile_rules = []
    for c in layout.compiles:
        if c.uses_cc:
            words = ["$(CC)", "$(CPPFLAGS)", "$(CFLAGS)"]
        else:
            words = [f"$({compiler_vars[c.compiler]})", "$(CPPFLAGS)"]
        words += [_sh(f) for f in c.flags]
        words += ["-c", _sh(c.source), "-o", _sh(c.obj)]
        prereqs = [make_escape(c.source), *extra_deps, make_escape(makefile_name)]
        compile_rules.append(
            {"head": _rule_head(make_escape(c.obj), prereqs), "recipe": " ".join(words)}
        )

    link_recipe = []
    parent = os.path.dirname(plan.output)
    if parent and not os.path.isabs(plan.output):
        link_recipe.append(f"mkdir -p -- {_sh(parent)}")
    link_recipe.append(
        " ".join(
            [
                "$(LINK)",
                "$(LDFLAGS)",
                *(_sh(c.obj) for c in layout.compiles),
                "-o",
                _sh(layout.output),
                "$(LDLIBS)",
            ]
        )
    )
    run_path = layout.output if "/" in layout.output else "./" + layout.output
    return _makefile_template().render(
        output=plan.output,
        variables=variables,
        output_target=output_target,
        link_head=_rule_head(output_target, [make_escape(c.obj) for c in layout.compiles]),
        link_recipe=link_recipe,
        compile_rules=compile_rules,
        run_command=_sh(run_path),
        clean_files=_sh_words([*(c.obj for c in layout.compiles), layout.output]),
    )


def write_makefile(plan: BuildPlan, directory: StrPath, *, name: str = "Makefile") -> Path:
    """Write a Makefile for *plan* into *directory* and return its path.

    The Makefile has the targets ``all`` (the default: build the program),
    ``run`` (build and run it; pass arguments as ``make run ARGS='...'``) and
    ``clean``, and the variables ``CC``, ``CPPFLAGS``, ``CFLAGS``,
    ``LDFLAGS``, ``LDLIBS`` and ``LINK`` (plus one per extra compiler, such
    as ``NVCC``), which can be overridden on make's command line.  The commands
    are the same as those of :func:`compile`.  Objects depend on their source,
    on the extra files and on the Makefile itself.

    The directory is created if needed, ``plan.extra_files`` are written too
    (the Makefile depends on them), and the Makefile is written atomically
    (and not rewritten when unchanged).  Raises :class:`ValueError` for file
    names that make cannot handle (see :func:`make_escape`).
    """
    text = render_makefile(plan, makefile_name=name)
    base = Path(directory)
    base.mkdir(parents=True, exist_ok=True)
    write_extra_files(plan, base)
    path = base / name
    _write_if_changed(path, text)
    return path


# ---------------------------------------------------------------------------
# Compiling
# ---------------------------------------------------------------------------


@dataclass
class _Outcome:
    argv: list[str]
    returncode: int | None
    stdout: str
    stderr: str


def _run_tool(argv: Sequence[str], cwd: Path) -> _Outcome:
    """Run one compiler/linker command (no shell) and capture its output."""
    try:
        proc = subprocess.run(
            list(argv),
            cwd=cwd,
            capture_output=True,
            text=True,
            errors="replace",
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except OSError as exc:  # not found, not executable, ...
        return _Outcome(list(argv), None, "", f"{argv[0]}: cannot run: {exc.strerror or exc}\n")
    return _Outcome(list(argv), proc.returncode, proc.stdout, proc.stderr)


def compile(  # noqa: A001 - the name is part of the public API
    plan: BuildPlan,
    directory: StrPath,
    *,
    verbose: bool = False,
    check: bool = True,
    jobs: int = 2,
) -> BuildResult:
    """Compile and link *plan* in *directory*.

    The directory is created if needed and ``plan.extra_files`` are written
    into it.  A previous executable of the same name is removed first, so a
    failed build never leaves a stale program behind.  Each source is
    compiled to an object file (up to *jobs* at a time); if all succeed the
    objects are linked.  Commands are argument lists run with
    ``cwd=directory``, never through a shell.

    With *verbose*, each command and its output are echoed to ``sys.stderr``.
    On failure :class:`BuildError` is raised, unless *check* is false, in
    which case a :class:`BuildResult` with ``ok=False`` is returned.
    """
    base = Path(directory)
    layout = _layout(plan)
    start = time.perf_counter()
    base.mkdir(parents=True, exist_ok=True)
    write_extra_files(plan, base)
    binary = base / plan.output
    if binary.is_file() or binary.is_symlink():
        binary.unlink()

    steps = [c.argv for c in layout.compiles]
    if jobs > 1 and len(steps) > 1:
        # 4 ms of imports: only for a parallel build
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(jobs, len(steps))) as pool:
            outcomes = list(pool.map(lambda argv: _run_tool(argv, base), steps))
    else:
        outcomes = [_run_tool(argv, base) for argv in steps]
    failed = next((o for o in outcomes if o.returncode != 0), None)
    if failed is None:
        if binary.parent != base:
            binary.parent.mkdir(parents=True, exist_ok=True)
        link = _run_tool(layout.link_argv, base)
        outcomes.append(link)
        if link.returncode != 0:
            failed = link

    if verbose:
        for o in outcomes:
            print(shlex.join(o.argv), file=sys.stderr)
            sys.stderr.write(o.stdout + o.stderr)
        sys.stderr.flush()

    result = BuildResult(
        ok=failed is None,
        binary=binary if failed is None else None,
        commands=[o.argv for o in outcomes],
        stdout="".join(o.stdout for o in outcomes),
        stderr="".join(o.stderr for o in outcomes),
        seconds=time.perf_counter() - start,
        failed_command=failed.argv if failed else None,
        returncode=failed.returncode if failed else None,
    )
    if failed is not None and check:
        status = (
            "could not be started"
            if failed.returncode is None
            else f"failed with exit status {failed.returncode}"
        )
        message = f"build failed: {shlex.join(failed.argv)} {status} (in {base})"
        details = failed.stderr.strip() or failed.stdout.strip()
        if details:
            message += "\n" + details
        raise BuildError(
            message,
            command=failed.argv,
            returncode=failed.returncode,
            stderr=failed.stderr,
            result=result,
        )
    return result


# ---------------------------------------------------------------------------
# Running
# ---------------------------------------------------------------------------


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """Kill *proc* and every process in its process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError, AttributeError):
        proc.kill()


def run(
    binary: StrPath,
    args: Iterable[str] = (),
    *,
    cwd: StrPath | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = 60,
    input: str | None = None,  # noqa: A002 - mirrors subprocess.run
) -> RunResult:
    """Run the executable *binary* with *args* and capture its output.

    A :class:`~pathlib.Path`, or a string containing a ``/``, names a file
    (relative to the current directory, not to *cwd*); a bare string is looked
    up on ``PATH``.  *env* replaces the environment (as in
    :func:`subprocess.run`); *input* is sent to the program's standard input
    (otherwise it reads from ``/dev/null``).  Output is decoded as UTF-8 with
    invalid bytes replaced.

    If the program runs longer than *timeout* seconds (``None``: no limit), it
    and any children it started are killed and a result with
    ``returncode=None`` and ``timed_out=True`` is returned; no exception is
    raised.  :class:`FileNotFoundError`/:class:`PermissionError` are raised if
    the program cannot be started.
    """
    program = os.fspath(binary)
    if isinstance(binary, os.PathLike) or os.sep in program:
        program = os.path.abspath(program)
    argv = [program, *(os.fspath(a) for a in args)]
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdin=subprocess.PIPE if input is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,
    )
    try:
        stdout, stderr = proc.communicate(input, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        try:
            stdout, stderr = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:  # a descendant escaped the group and holds the pipes
            proc.kill()
            stdout, stderr = "", ""
        proc.wait()
        return RunResult(
            None, stdout or "", stderr or "", time.perf_counter() - start, timed_out=True
        )
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    return RunResult(proc.returncode, stdout, stderr, time.perf_counter() - start)


def build_and_run(
    plan: BuildPlan,
    directory: StrPath,
    args: Iterable[str] = (),
    *,
    verbose: bool = False,
    jobs: int = 2,
    cwd: StrPath | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = 60,
    input: str | None = None,  # noqa: A002 - mirrors subprocess.run
) -> RunResult:
    """Compile *plan* in *directory* and run the program with *args*.

    Raises :class:`BuildError` if the build fails.  The program runs in
    *cwd*, by default the build directory.  Returns the :class:`RunResult`,
    whose ``build`` attribute holds the :class:`BuildResult`.
    """
    build = compile(plan, directory, verbose=verbose, jobs=jobs)
    assert build.binary is not None
    result = run(
        build.binary,
        args,
        cwd=directory if cwd is None else cwd,
        env=env,
        timeout=timeout,
        input=input,
    )
    result.build = build
    return result
