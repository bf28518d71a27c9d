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
    """gpu_ify and kernel_load_store on every function; the number of functions with kernels."""
    done = 0
    for module in list(ws.all_functions):
        if module.name.startswith("p4a_"):
            continue
        try:
            ws.apply("gpu_ify", module, max_dims=max_dims)
        except PassFailed as why:
            if verbose:
                print(f"{module.name}: {why}")
            continue
        ws.apply("kernel_load_store", module)
        done += 1
    return done


def main(ws, max_dims: int = 3, verbose: bool = False) -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose)
