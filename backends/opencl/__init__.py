"""The OpenCL backend (``opencl``): kernels in ``kernels.cl``, launchers through the runtime.

``ws.build("opencl", "out")`` (or ``passman run opencl app.c -o out --build
--run``) writes, for a program after ``gpu_ify`` and ``kernel_load_store``:

* ``kernels.cl``: ``passman_accel_cl.h`` (the kernel dialect) then every
  kernel in OpenCL C 1.2 (``templates/kernel.cl.j2``), its arrays made flat
  (``linearize_array`` on a clone: OpenCL kernels take ``__global double *``,
  not VLA types), its mapped indices rebuilt from ``get_global_id`` plus the
  box's lowest corner, and a guard for the points of the rounded-up global
  range outside the box;
* the host sources without the kernels, each launcher rendered through
  ``templates/launcher.c.j2``: the kernel object from the runtime
  (``passman_accel_kernel``, built once from ``kernels.cl`` beside the
  binary), its arguments in order (device buffers as their handles), the
  box, ``passman_accel_launch``;
* a Makefile linking the runtime's OpenCL implementation and ``-lOpenCL``
  (the ``accel`` broker's ``opencl`` target).

The runtime takes the first GPU of any platform, else the first CPU device
(PoCL on this machine); ``PASSMAN_OPENCL_DEVICE`` picks one by name.

Options: ``cc`` (default ``gcc``), ``cflags`` (default ``["-O2"]``),
``ldflags``, ``libs`` (default ``["-lm"]``), ``output``.
"""

from __future__ import annotations

import importlib.resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pycparser import c_ast

from passman.astutil import copy_node, walk
from passman.brokers import extend_plan
from passman.builder import BuildPlan, package_template
from passman.errors import InvalidInput, PassmanError
from passman.fsutil import atomic_write_text
from passman.printer import to_c

from ..accel_omp import Launch, host_plan, parameters, render_unit, unit_launches

if TYPE_CHECKING:  # jinja2 is imported when a template is first rendered (passman.templating)
    import jinja2

KERNELS = "kernels.cl"


def _template(name: str) -> jinja2.Template:
    return package_template(__package__, name)


def index_positions(launch: Launch) -> dict[int, int]:
    """Kernel parameter position -> mapped loop number (0 outermost), from the launcher's call."""
    indices = {index: k for k, (index, _, _) in enumerate(launch.loops)}
    return {pos: indices[a.name] for pos, a in enumerate(launch.args)
            if isinstance(a, c_ast.ID) and a.name in indices}


def _global(param: c_ast.Decl) -> c_ast.Decl:
    """A kernel parameter: pointers into device buffers are ``PASSMAN_GLOBAL`` (``__global`` in OpenCL)."""
    p = copy_node(param)
    p.storage, p.funcspec = [], []
    if isinstance(p.type, c_ast.ArrayDecl) and not isinstance(p.type.type, c_ast.ArrayDecl):
        p.type = c_ast.PtrDecl([], p.type.type)  # double x[n]: a pointer, as in any C call
    if isinstance(p.type, c_ast.PtrDecl):
        t = p.type.type
        while isinstance(t, (c_ast.PtrDecl, c_ast.ArrayDecl)):  # double (*u)[100] too
            t = t.type
        if isinstance(t, c_ast.TypeDecl):
            t.quals = [q for q in t.quals if q != "restrict"] + ["PASSMAN_GLOBAL"]
    return p


def render_kernel(func: c_ast.FuncDef, launch: Launch, hidden: frozenset[str] = frozenset()) -> str:
    """One kernel in the dialect of ``passman_accel.h`` (OpenCL C or CUDA; its arrays already flat)."""
    positions = index_positions(launch)
    params = parameters(func)
    kept = [_global(p) for k, p in enumerate(params) if k not in positions]
    for p in kept:
        if isinstance(p.type, c_ast.ArrayDecl):
            raise InvalidInput(f"error: opencl: kernel {func.decl.name}: parameter {p.name} is still an array")
    m = len(launch.loops)
    passed = {k: pos for pos, k in positions.items()}
    indices = [{"decl": to_c(c_ast.Decl(params[passed[k]].name, [], [], [], [], params[passed[k]].type, None,
                                        None)).rstrip(";\n "),
                "name": params[passed[k]].name, "k": k, "axis": m - 1 - k} if k in passed else
               {"decl": "", "name": f"passman_lo{k} + PASSMAN_INDEX({m - 1 - k})", "k": k, "axis": m - 1 - k}
               for k in range(m)]  # an index the kernel does not take is still guarded
    for n in walk(func.body):  # host compilers' hints (omp, clang loop, GCC ivdep): not device code
        if getattr(n, "block_items", None):
            n.block_items[:] = [x for x in n.block_items if not isinstance(x, c_ast.Pragma)]
    body = to_c(func.body, hidden_labels=hidden)
    return _template("kernel.cl.j2").render(
        name=func.decl.name, params=[to_c(p).rstrip(";\n ") for p in kept] + [
            f"long passman_lo{k}, long passman_hi{k}" for k in range(m)],
        indices=indices, body=body,
    )


def argument_variable(a: c_ast.Node) -> c_ast.Node:
    """The variable behind ``(double *) A`` or ``&A[0][0]`` (linearize_array's arguments)."""
    while True:
        if isinstance(a, c_ast.Cast):
            a = a.expr
        elif isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ArrayRef):
            base = a.expr
            while isinstance(base, c_ast.ArrayRef) and to_c(base.subscript) == "0":
                base = base.name
            if not isinstance(base, c_ast.ID):
                return a
            a = base
        else:
            return a


def render_launcher(launch: Launch) -> str:
    """A launcher's host text: arguments, box, ``passman_accel_launch``."""
    func = launch.function
    positions = index_positions(launch)
    args = []
    for pos, a in enumerate(launch.args):
        if pos in positions:
            continue
        a = argument_variable(a)
        if not isinstance(a, c_ast.ID):
            raise InvalidInput(f"error: opencl: launcher {func.decl.name}: argument {to_c(a)} is not a variable")
        args.append(a.name)
    # an array parameter is a pointer: its size said so (sizeof on it draws gcc's warning)
    arrays = {p.name for p in parameters(func) if isinstance(p.type, c_ast.ArrayDecl)}
    sizes = ["sizeof(void *)" if a in arrays else f"sizeof({a})" for a in args]
    m = len(launch.loops)
    return _template("launcher.c.j2").render(sizes=sizes,
        name=func.decl.name, kernel=launch.kernel, signature=to_c(func.decl).rstrip(";\n "),
        args=args, ndims=m, block=launch.block_c,
        dims=[{"k": k, "axis": m - 1 - k, "lo": to_c(lo), "hi": to_c(hi)}
              for k, (_, lo, hi) in enumerate(launch.loops)],
    )


def _flatten(ws: Any, kernels: list[str]) -> None:
    """linearize_array on each kernel with multi-dimensional array parameters (OpenCL takes flat pointers)."""
    for name in kernels:
        func = ws[name].ast
        if any(isinstance(p.type, c_ast.ArrayDecl) and isinstance(p.type.type, c_ast.ArrayDecl)
               for p in parameters(func)):
            try:
                ws.apply("linearize_array", ws[name])
            except PassmanError as err:
                raise InvalidInput(f"error: opencl: kernel {name} cannot take flat arrays: {err}") from None


def render(ws: Any) -> tuple[dict[str, str], str]:
    """(host text per unit name, kernels.cl text) of a workspace (a clone is changed, not ``ws``)."""
    hosts, kernels, types, _, _ = split(ws, render_launcher)
    header = (importlib.resources.files("passman.backends.runtime") / "passman_accel_cl.h").read_text("utf-8")
    return hosts, header + "\n" + "".join(types) + "\n".join(kernels)


def split(ws: Any, host_launcher) -> tuple[dict[str, str], list[str], list[str], list[Launch], dict]:
    """A program split for a device: host texts (each launcher as ``host_launcher(launch)``
    gives it, the kernels removed), the kernels in the dialect of ``passman_accel.h``, the
    typedefs they need, the launches and the (flat) kernel functions by name (a clone of
    ``ws`` is changed, never ``ws``)."""
    clone = ws.clone()
    units = [cu for cu in clone.compilation_units if not cu.is_stub]
    kernel_names = {launch.kernel for cu in units for _, launch in unit_launches(cu)}
    _flatten(clone, sorted(kernel_names))
    kernel_texts: list[str] = []
    parsed: list[Launch] = []
    hosts: dict[str, str] = {}
    for cu in units:
        hosts[cu.name], launches = render_unit(cu, host_launcher, kernel_names)
        for launch in launches:
            kernel_texts.append(render_kernel(clone[launch.kernel].ast, launch, clone.generated_labels))
        parsed += launches
    kernel_funcs = {launch.kernel: clone[launch.kernel].ast for launch in parsed}
    return hosts, kernel_texts, _typedefs(clone, list(kernel_funcs.values())), parsed, kernel_funcs


#: types the device compilers know already (OpenCL C's built-in scalars, and what CUDA's
#: headers declare): a header's typedef of them is not repeated in the kernels
DEVICE_TYPES = frozenset({"size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "bool", "half", "uchar",
                          "ushort", "uint", "ulong", "wchar_t"})


def _typedefs(ws: Any, funcs: list[c_ast.FuncDef]) -> list[str]:
    """The typedefs the kernels name, in source order: the program's own (``typedef char base;``)
    and its headers' (``typedef double fftw_complex[2];``), but not :data:`DEVICE_TYPES`."""
    defs: dict[str, c_ast.Typedef] = {}
    order: list[str] = []
    for cu in ws.compilation_units:
        if cu.is_stub:
            continue
        for node in cu.ast.ext:
            if isinstance(node, c_ast.Typedef) and node.name not in DEVICE_TYPES and node.name not in defs:
                defs[node.name] = node
                order.append(node.name)
    wanted: set[str] = set()
    todo = [n for f in funcs for n in walk(f) if isinstance(n, c_ast.IdentifierType)]
    while todo:
        for name in todo.pop().names:
            if name in defs and name not in wanted:
                wanted.add(name)
                todo.extend(n for n in walk(defs[name]) if isinstance(n, c_ast.IdentifierType))
    return [to_c(defs[name]) for name in order if name in wanted]


class OpenCLBackend:
    """Writes host sources, ``kernels.cl`` and a Makefile for OpenCL (see the module docstring)."""

    name = "opencl"

    def render(self, ws: Any, directory: Path, **options: Any) -> BuildPlan:
        """Write the sources into ``directory`` and return the build plan."""
        hosts, kernels = render(ws)
        plan = host_plan(ws, directory, hosts, options)
        atomic_write_text(directory / KERNELS, kernels)
        ws.enable_broker("accel")
        launches = any("passman_accel_launch" in t for t in hosts.values())
        return extend_plan(plan, ws, "opencl", ("accel",) if launches else ())  # the launchers call it
