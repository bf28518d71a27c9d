"""Parallelize for OpenMP: C in, parallel C out (Amini 2012, Fig. 5.9; Par4All's OpenMP mode).

    passman run openmp app.c -o out --build --run      # prints the program's output
    OMP_NUM_THREADS=2 make -C out run                   # again, by hand

Options (``--set NAME=VALUE``): ``distribute`` (default true) falls back to
loop distribution (Allen–Kennedy) for the loops coarse grain left
sequential; ``min_work`` (default 2000) is the profitability guard: loops
whose estimated work is known and smaller stay sequential; ``constants``
(default true) first replaces integer parameters by the constant every call
passes (``propagate_constant_arguments``); ``verbose`` says why each loop
left sequential is.
"""

from passman import PassFailed

#: ``--build`` and ``--run`` use the OpenMP backend (Makefile with -fopenmp, $(OPT) = -O3)
BACKEND = "openmp"


def openmp(module, distribute: bool = True) -> bool:
    """Fig. 5.9 for one function: find parallelism, else distribute, then generate pragmas.

    Reductions and private variables are analyses the parallelizers ask
    for (``module.display("reductions")``, ``module.display("private_variables")``
    show them). Returns whether the function got an OpenMP pragma.
    """
    try:
        # whole loops, as they are, reductions included (Amini 2012 §4.3.2, §4.4)
        module.coarse_grain_parallelization_with_reduction()
    except PassFailed:
        pass  # nothing parallel as it is: distribution may find some
    if distribute:
        try:
            # the loops still sequential: one loop per dependence cycle, maximal parallel loops
            module.allen_kennedy_parallelization()
        except PassFailed:
            pass
    try:
        # one parallel region per nest: drop markers nested in another parallel loop
        module.limit_nested_parallelism()
    except PassFailed:
        pass
    try:
        # directive generation: #pragma omp parallel for private(...) reduction(...) collapse(n)
        module.ompify_code()
    except PassFailed:
        return False  # no parallel loop in this function
    try:
        module.omp_merge_pragma()  # parallel-for pragmas left nested (the user's, say)
    except PassFailed:
        pass
    return True


def propagate_constants(ws) -> None:
    """Give functions the integer constants all their calls pass (callers first, to a fix point).

    The compiler sees them in the original when it inlines a kernel into
    ``main``; in an OpenMP region outlined from the kernel it no longer does.
    """
    changed = True
    while changed:
        changed = False
        for module in ws.all_functions:
            try:
                module.propagate_constant_arguments()
                changed = True
            except PassFailed:
                pass


def main(ws, distribute: bool = True, min_work: int = 2000, constants: bool = True, verbose: bool = False):
    """Parallelize every function of the program (see the module docstring)."""
    from passman.passes.parallelize import why_sequential

    ws.props.parallel_min_work = min_work
    if constants:
        propagate_constants(ws)
    for module in ws.all_functions:
        openmp(module, distribute)
        if verbose:
            for loop in module.all_loops:
                why = why_sequential(loop)
                if why:
                    print(f"passman: sequential: {why}")
