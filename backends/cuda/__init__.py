"""The CUDA backend (``cuda``): kernels and their launchers in ``kernels.cu``, host code in C.

``ws.build("cuda", "out")`` (or ``passman run cuda app.c -o out --build``)
writes, for a program after ``gpu_ify`` and ``kernel_load_store``:

* ``kernels.cu``: ``passman_accel.h``, the typedefs the kernels name, every
  kernel (the same text as the OpenCL backend's, in the dialect of
  ``passman_accel.h``: flat arrays, indices from ``PASSMAN_INDEX``, a guard
  for the rounded-up grid), then every launcher
  (``templates/launcher.cu.j2``): the box, ``passman_accel_config_cuda_strips``
  (block sizes for the device, ``PASSMAN_ACCEL_BLOCK`` to override), an empty
  grid skipped, ``kernel<<<grid, block>>>`` once per strip of at most the
  device's ``maxGridSize`` blocks (``PASSMAN_CUDA_MAX_GRID`` lowers it), every
  launch checked and timed;
* the host sources in C, each launcher replaced by its prototype (arrays as
  ``void *``: device buffers);
* a Makefile that compiles ``kernels.cu`` and the runtime's CUDA
  implementation with nvcc (``-arch=`` the ``arch`` option, default
  ``sm_90``) and links with nvcc.

Options: ``cc`` (default ``gcc``), ``cflags`` (default ``["-O2"]``),
``nvcc_flags`` (default ``["-O2"]``), ``arch`` (default ``sm_90``),
``ldflags``, ``libs`` (default ``["-lm"]``), ``output``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pycparser import c_ast

from passman.astutil import copy_node
from passman.brokers import extend_plan
from passman.builder import BuildPlan, SourceFile, package_template
from passman.errors import InvalidInput
from passman.fsutil import atomic_write_text
from passman.printer import to_c

from ..accel_omp import Launch, handle_declaration, host_plan, is_buffer, parameters
from ..opencl import argument_variable, index_positions, split

KERNELS = "kernels.cu"


def prototype(launch: Launch) -> str:
    """The host file's declaration of a launcher that kernels.cu defines."""
    params = [handle_declaration(p) for p in parameters(launch.function)]
    return f"void {launch.function.decl.name}({', '.join(params) or 'void'});"


def _cast(param: c_ast.Decl) -> str:
    """``(double *)``: the type of a (flat) kernel parameter, for the launcher's argument."""
    t = copy_node(param.type)
    if isinstance(t, c_ast.ArrayDecl):
        t = c_ast.PtrDecl([], t.type)
    inner = t
    while not isinstance(inner, c_ast.TypeDecl):
        inner = inner.type
    inner.declname = None
    inner.quals = [q for q in inner.quals if q != "PASSMAN_GLOBAL"]
    return f"({to_c(c_ast.Typename(None, [], None, t))})"


def render_launcher(launch: Launch, kernel: c_ast.FuncDef) -> str:
    """A launcher in CUDA: configuration, ``<<<grid, block>>>`` per strip, check, count.

    A grid with more blocks in a dimension than the device takes in one launch (CUDA's
    ``maxGridSize``: 65535 in y and z; fewer with env ``PASSMAN_CUDA_MAX_GRID``) is cut into
    strips (``passman_accel_strip``), launched one after another: each passes the kernel its
    ``passman_lo`` plus the strip's offset and the same ``passman_hi``, so the kernel's indices
    (``passman_lo + PASSMAN_INDEX(axis)``) and guard (``> passman_hi``) need no change, and the
    block stays the one the rule chose. The launch counts once.
    """
    positions = index_positions(launch)
    kparams = parameters(kernel)
    buffers = {p.name for p in parameters(launch.function) if is_buffer(p)}
    args = []
    for pos, a in enumerate(launch.args):
        if pos in positions:
            continue
        a = argument_variable(a)
        if not isinstance(a, c_ast.ID):
            raise InvalidInput(f"error: cuda: launcher {launch.function.decl.name}: argument {to_c(a)} "
                               "is not a variable")
        args.append(f"{_cast(kparams[pos])} {a.name}" if a.name in buffers else a.name)
    m = len(launch.loops)
    for k in range(m):  # a strip's items start at its offset: the kernel's indices start there
        args += [f"passman_box[{2 * k}] + (long) passman_offset[{m - 1 - k}]", f"passman_box[{2 * k + 1}]"]
    return package_template(__package__, "launcher.cu.j2").render(
        name=launch.function.decl.name, kernel=launch.kernel,
        params=[handle_declaration(p) for p in parameters(launch.function)],
        args=args, ndims=m, block=launch.block_c,
        dims=[{"k": k, "axis": m - 1 - k, "lo": to_c(lo), "hi": to_c(hi)} for k, (_, lo, hi) in enumerate(launch.loops)],
    )


def render(ws: Any) -> tuple[dict[str, str], str]:
    """(host text per unit name, kernels.cu text); a clone of ``ws`` is changed, never ``ws``."""
    hosts, kernels, types, launches, funcs = split(ws, prototype)
    launchers = [render_launcher(launch, funcs[launch.kernel]) for launch in launches]
    text = '#include "passman_accel.h"\n\n' + "".join(types) + "\n".join(kernels) + "\n" + "\n".join(launchers)
    return hosts, text


class CUDABackend:
    """Writes host sources, ``kernels.cu`` and a Makefile for CUDA (see the module docstring)."""

    name = "cuda"

    def render(self, ws: Any, directory: Path, **options: Any) -> BuildPlan:
        """Write the sources into ``directory`` and return the build plan."""
        hosts, kernels = render(ws)
        plan = host_plan(ws, directory, hosts, options)
        if "<<<" in kernels:  # else nothing runs on the device: a plain C program
            atomic_write_text(directory / KERNELS, kernels)
            nvcc = list(options.get("nvcc_flags", ["-O2"])) + [f"-arch={options.get('arch', 'sm_90')}"]
            plan.sources.append(SourceFile(Path(KERNELS), "nvcc", nvcc))
        ws.enable_broker("accel")
        return extend_plan(plan, ws, "cuda", ("accel",) if "<<<" in kernels else ())  # the launchers call it
