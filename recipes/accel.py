"""Run the parallel loop nests as kernels on the accelerator runtime's CPU emulation.

    passman run accel app.c -o out --build --run            # prints the program's output
    PASSMAN_ACCEL_SHUFFLE=1 PASSMAN_ACCEL_STATS=1 make -C out run

Each function's outermost parallel loop nests become kernels and launchers
(``gpu_ify``), with the transfers their array regions need around each
launch (``kernel_load_store``); the ``accel`` backend renders each launch
for the runtime's OpenMP emulation (separate device buffers, optionally a
shuffled work-item order), which checks the kernels and the transfers where
no GPU exists.

Options (``--set NAME=VALUE``):

* ``max_dims`` (default 3): the most loops of a nest mapped onto device dimensions;
* ``verbose`` says why each function's nests stayed on the host.
"""

from __future__ import annotations

from passman import PassFailed

#: ``--build`` and ``--run`` use the emulation backend
BACKEND = "accel"


def accelerate(ws, max_dims: int = 3, verbose: bool = False) -> int:
    """gpu_ify then kernel_load_store on every function; the number of functions with kernels.

    The two go together: when the transfers of a function's launches cannot be computed
    (an array whose size the regions do not bound), the function goes back to what it was
    and its nests stay on the host.
    """
    done = 0
    for name in [m.name for m in ws.all_functions]:
        if name.startswith("p4a_"):
            continue
        before = ws.checkpoint()
        try:
            ws.apply("gpu_ify", ws[name], max_dims=max_dims)
            ws.apply("kernel_load_store", ws[name])
        except PassFailed as why:
            if verbose:
                print(f"{name}: {why}")
            ws.restore(before)
            continue
        done += 1
    return done


def main(ws, max_dims: int = 3, verbose: bool = False) -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose)
