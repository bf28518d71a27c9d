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
* ``transfers`` (default ``optimized``): arrays stay on the device across launches,
  loops and calls (``kernel_data_mapping``); ``naive`` copies around each launch;
* ``host``: functions kept on the host (comma-separated names);
* ``promote`` (default true): host code between a loop's kernels runs on the device as
  one-work-item kernels when that keeps the loop's arrays there (``gpu_promote_sequential``);
* ``libraries`` (default ``device``, optimized transfers only): a library call between
  kernels (CBLAS, FFTW) runs on the arrays' device buffers where its broker has a device
  implementation for the target (here the CPU library on the emulated buffers), as a launch
  that moves nothing around it (``kernel_data_mapping``'s library launches); ``host``
  keeps every library call a host call, with its arrays copied back before it;
* ``verbose`` says why each function's nests stayed on the host.
"""

from __future__ import annotations

from passman import InvalidInput, PassFailed

#: ``--build`` and ``--run`` use the emulation backend
BACKEND = "accel"


def accelerate(ws, max_dims: int = 3, verbose: bool = False, transfers: str = "optimized",
               host: str = "", promote: bool = True, libraries: str = "device", target: str = "cpu") -> int:
    """Kernels and their transfers on every function; the number of functions with kernels.

    ``transfers="optimized"``: gpu_ify on each function, then ``kernel_data_mapping`` on the
    program (arrays stay on the device across launches, loops and calls). When the program
    cannot be mapped that way (the pass says why with ``verbose``), or with
    ``transfers="naive"``: gpu_ify then kernel_load_store on each function, together: when the
    transfers of a function's launches cannot be computed (an array whose size the regions do
    not bound), the function goes back to what it was and its nests stay on the host.
    ``host``: comma-separated names of functions kept on the host (PolyBench's init functions,
    as in Amini's measurements). ``promote`` (optimized transfers only): the host statements
    between a loop's kernels that use their arrays run on the device as one-work-item kernels
    (``gpu_promote_sequential``), so the loop moves no data. ``libraries="device"`` (optimized
    transfers only): library calls run on the device buffers where the brokers have a device
    implementation for the build ``target`` (``cpu``: the emulation; ``cuda``; ``opencl`` has
    none); ``"host"``: they stay host calls.
    """
    if transfers not in ("optimized", "naive"):
        raise InvalidInput(f"error: transfers must be 'optimized' or 'naive', not '{transfers}'")
    if libraries not in ("device", "host"):
        raise InvalidInput(f"error: libraries must be 'device' or 'host', not '{libraries}'")
    kept = {h.strip() for h in host.split(",") if h.strip()}
    for m in ws.all_functions:  # kernels and transfers are shaped by the sizes: the parsed ones
        try:
            ws.apply("specialize_sizes", m)
        except PassFailed:
            pass  # no size macro chosen by the build there
    names = [m.name for m in ws.all_functions if not m.name.startswith("p4a_") and m.name not in kept]
    if transfers == "optimized":
        start = ws.checkpoint()
        done = 0
        for name in names:
            before = ws.checkpoint()
            try:
                ws.apply("gpu_ify", ws[name], max_dims=max_dims, nested_reductions=not promote)
                done += 1
            except PassFailed as why:
                if verbose:
                    print(f"{name}: {why}")
                ws.restore(before)
                continue
            if promote:
                try:  # host code between a loop's kernels: on the device, one work-item
                    ws.apply("gpu_promote_sequential", ws[name])
                except PassFailed as why:
                    if verbose:
                        print(f"{name}: {why}")
        if not done:
            return 0
        try:
            ws.apply("kernel_data_mapping", library_target=target if libraries == "device" else "")
            return done
        except PassFailed as why:
            if verbose:
                print(f"kernel_data_mapping: {why} (each launch copies its arrays)")
            ws.restore(start)
    done = 0
    for name in names:
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


def main(ws, max_dims: int = 3, verbose: bool = False, transfers: str = "optimized", host: str = "",
         promote: bool = True, libraries: str = "device") -> None:
    """Map the parallel nests of every function to kernels, with their transfers."""
    accelerate(ws, max_dims, verbose, transfers, host, promote, libraries, "cpu")
