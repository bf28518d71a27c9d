"""The accelerator backend's CPU emulation (``accel``): each launch runs on the runtime's emulation.

``ws.build("accel", "out")`` (or ``passman run accel app.c -o out --build``)
writes the program after ``gpu_ify`` and ``kernel_load_store`` with every
launcher (a function holding ``#pragma passman launch K``) rendered through
``templates/launcher.c.j2``: a structure holding the launcher's arguments and
the box bounds, a work-item function that rebuilds the indices from
``PASSMAN_INDEX(d)`` (the innermost loop on dimension 0), skips the points
outside the box (the global range is rounded up to whole work-groups) and
calls the kernel, and a call to ``passman_accel_emu_launch``. The build links
the runtime's emulation (``backends/runtime/passman_accel_omp.c``, the
``accel`` broker's ``cpu`` implementation) with ``-fopenmp``: work-items run
on OpenMP threads, or one after another in a shuffled order when
``PASSMAN_ACCEL_SHUFFLE=1`` (``PASSMAN_ACCEL_SEED`` picks the order), which
exposes a kernel that depends on the order of its work-items; device buffers
are separate from the host arrays and start as garbage, so a missing
transfer shows as a wrong result.

Options: ``cc`` (default ``gcc``), ``cflags`` (default ``["-O2"]``),
``ldflags``, ``libs`` (default ``["-lm"]``), ``output``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from passman.astutil import copy_node, walk
from passman.brokers import extend_plan
from passman.builder import BuildPlan, SourceFile, package_template
from passman.errors import InvalidInput
from passman.fsutil import atomic_write_text
from passman.printer import to_c

if TYPE_CHECKING:  # jinja2 is imported when a template is first rendered (passman.templating)
    import jinja2

HEADER = "#include <passman_accel.h>"


def _template(name: str) -> jinja2.Template:
    return package_template(__package__, name)


@dataclass
class Launch:
    """What a launcher does: the kernel, the mapped loops (outermost first), the call's arguments."""

    function: c_ast.FuncDef
    kernel: str
    loops: list[tuple[str, c_ast.Node, c_ast.Node]]  # (index, lowest, highest)
    args: list[c_ast.Node]
    #: the block the recipe chose (``#pragma passman launch K block(32,8)``), dimension 0 first
    block: tuple[int, ...] = ()

    @property
    def block_c(self) -> str:
        """The block as a C argument: ``(const size_t []){32, 8}``, or ``NULL``."""
        return f"(const size_t []){{{', '.join(map(str, self.block))}}}" if self.block else "NULL"


_BLOCK = re.compile(r"\bblock\(\s*(\d+(?:\s*,\s*\d+){0,2})\s*\)")


def _launch_pragma(items: list[c_ast.Node]) -> tuple[int, str] | None:
    for k, n in enumerate(items):
        if isinstance(n, c_ast.Pragma) and n.string.startswith("passman launch "):
            return k, n.string.split()[2]
    return None


def launch_block(func: c_ast.FuncDef) -> tuple[int, ...]:
    """The ``block(...)`` clause of a launcher's pragma (empty: none)."""
    for n in walk(func.body):
        if isinstance(n, c_ast.Pragma) and n.string.startswith("passman launch "):
            m = _BLOCK.search(n.string)
            return tuple(int(x) for x in m.group(1).split(",")) if m else ()
    return ()


def parse_launcher(func: c_ast.FuncDef) -> Launch | None:
    """The launch a launcher function describes (None: not a launcher)."""
    items = func.body.block_items or []
    found = _launch_pragma(items)
    if found is None:
        return None
    k, kernel = found
    node = items[k + 1]
    loops = []
    while True:
        while isinstance(node, c_ast.Label):
            node = node.stmt
        if isinstance(node, c_ast.Compound) and len(node.block_items or []) == 1:
            node = node.block_items[0]
            continue
        if not isinstance(node, c_ast.For):
            break
        init = node.init
        if isinstance(init, c_ast.DeclList):
            index, lo = init.decls[0].name, init.decls[0].init
        elif isinstance(init, c_ast.Assignment):
            index, lo = init.lvalue.name, init.rvalue
        else:
            raise InvalidInput(f"error: launcher {func.decl.name}: loop header not understood")
        loops.append((index, lo, node.cond.right))
        node = node.stmt
    if not (isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.ID) and node.name.name == kernel):
        raise InvalidInput(f"error: launcher {func.decl.name}: the launch of {kernel} is not a loop nest around "
                           "one call (was it edited after gpu_ify?)")
    return Launch(func, kernel, loops, list(node.args.exprs) if node.args else [], launch_block(func))


def parameters(func: c_ast.FuncDef) -> list[c_ast.Decl]:
    """A function's parameter declarations (none for ``(void)``)."""
    args = func.decl.type.args
    return [p for p in (args.params if args else []) if isinstance(p, c_ast.Decl)]


def is_buffer(param: c_ast.Decl) -> bool:
    """Whether a launcher's parameter is an array or a pointer: a device buffer at the launch."""
    return isinstance(param.type, (c_ast.ArrayDecl, c_ast.PtrDecl))


def handle_declaration(param: c_ast.Decl) -> str:
    """A launcher's parameter as device code holds it: buffers as ``void *`` handles, scalars
    with their type and no qualifier (an argument structure is filled member by member)."""
    if is_buffer(param):
        return f"void *{param.name}"
    t = copy_node(param.type)
    if isinstance(t, c_ast.TypeDecl):
        t.quals = []
    return to_c(c_ast.Decl(param.name, [], [], [], [], t, None, None)).rstrip(";\n ")


def render_launcher(launch: Launch) -> str:
    """The launcher's C text: argument structure, work-item function, emulated launch."""
    func = launch.function
    name = func.decl.name
    params = parameters(func)
    param_names = {p.name for p in params}
    fields = [handle_declaration(p) for p in params]
    assigns = [f"passman_args.{p.name} = {'(void *) ' if is_buffer(p) else ''}{p.name}" for p in params]
    m = len(launch.loops)
    dims = []
    for k, (index, lo, hi) in enumerate(launch.loops):
        fields += [f"long lo{k}", f"long hi{k}"]
        assigns += [f"passman_args.lo{k} = {to_c(lo)}", f"passman_args.hi{k} = {to_c(hi)}"]
        dims.append({"index": index, "k": k, "axis": m - 1 - k})
    indices = {index for index, _, _ in launch.loops}

    def arg(e: c_ast.Node) -> str:
        if isinstance(e, c_ast.ID) and e.name in param_names and e.name not in indices:
            return f"passman_args->{e.name}"
        return to_c(e)

    guard = " && ".join(f"{d['index']} <= passman_args->hi{d['k']}" for d in dims)
    signature = to_c(func.decl).rstrip(";\n ")
    return _template("launcher.c.j2").render(
        name=name, kernel=launch.kernel, ndims=m, fields=fields, dims=dims, guard=guard,
        args=", ".join(arg(e) for e in launch.args), signature=signature, assigns=assigns,
        block=launch.block_c,
    )


def unit_launches(cu: Any) -> Iterator[tuple[int, Launch]]:
    """``(position in the unit, launch)`` of every launcher the unit defines."""
    for k, node in enumerate(cu.ast.ext):
        if isinstance(node, c_ast.FuncDef) and cu.is_own(node):
            launch = parse_launcher(node)
            if launch is not None:
                yield k, launch


def render_unit(cu: Any, render: Callable[[Launch], str] = render_launcher,
                drop: Collection[str] = ()) -> tuple[str, list[Launch]]:
    """A unit's text with each launcher replaced by ``render(launch)`` and the functions named in
    ``drop`` left out (kernels that a device file holds); and the unit's launches, in order."""
    ext = cu.ast.ext
    rendered: dict[str, str] = {}
    launches = []
    saved = list(ext)
    try:
        for k, launch in list(unit_launches(cu)):
            marker = f"passman_launcher_goes_here {len(rendered)}"
            rendered[f"#pragma {marker}\n"] = render(launch) + "\n"
            launches.append(launch)
            ext[k] = c_ast.Pragma(marker, launch.function.coord)
        ext[:] = [n for n in ext if not (isinstance(n, c_ast.FuncDef) and n.decl.name in drop)]
        text = cu.code
    finally:
        ext[:] = saved
    for marker, code in rendered.items():
        text = text.replace(marker, code, 1)
    if rendered and HEADER not in text:
        text = HEADER + "\n" + text
    return text, launches


class AccelEmulationBackend:
    """Writes the program with its launches on the runtime's CPU emulation (see the module docstring)."""

    name = "accel"

    def render(self, ws: Any, directory: Path, **options: Any) -> BuildPlan:
        """Write the sources into ``directory`` and return the build plan."""
        texts = {cu.name: render_unit(cu)[0] for cu in ws.compilation_units if not cu.is_stub}
        plan = host_plan(ws, directory, texts, options)
        launches = any("passman_accel_emu_launch_for(" in t for t in texts.values())
        if launches:
            ws.enable_broker("accel")
        return extend_plan(plan, ws, "cpu", ("accel",) if launches else ())  # the launches call it


def host_plan(ws: Any, directory: Path, texts: dict[str, str], options: dict[str, Any]) -> BuildPlan:
    """Save ``ws`` into ``directory`` with each unit's text replaced by ``texts[unit name]``.

    The build plan compiles them with the C compiler; the accelerator backends add their
    device files and the runtime. Options: ``cc``, ``cflags``, ``ldflags``, ``libs``, ``output``.
    """
    files = ws.save(directory)
    units = [cu for cu in ws.compilation_units if not cu.is_stub]
    sources = []
    for cu, path in zip(units, files, strict=True):
        atomic_write_text(path, texts[cu.name])
        sources.append(SourceFile(Path(path.name), options.get("cc", "gcc")))
    return BuildPlan(
        sources=sources,
        output=options.get("output", ws.name.replace(" ", "_") or "a.out"),
        cc=options.get("cc", "gcc"),
        cflags=list(options.get("cflags", ["-O2"])),
        ldflags=list(options.get("ldflags", [])),
        libs=list(options.get("libs", ["-lm"])),
    )
