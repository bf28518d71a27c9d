"""Size macros chosen by the build, as values again (:mod:`passman.size_macros`)."""

from __future__ import annotations

from passman import Module, PassFailed, specialize_size_macros, transformation


@transformation(scope="module", preserves=["callgraph"])
def specialize_sizes(module: Module) -> None:
    """Give each size macro the build chooses (``-DLARGE_DATASET``, ``#ifndef N``) the value parsed.

    The front end leaves such a macro as a name the passes know nothing
    about, so that the output is right at any size. A pass that needs
    the sizes (the accelerator recipes: transfers and kernels are shaped by
    them) calls this first; the output still writes the macro's name, and
    the file ends with a guard that stops a build at other sizes.

    Before::

        for (i = 0; i < _PB_N; i++)       /* _PB_N unknown to the passes */

    After::

        for (i = 0; i < _PB_N; i++)       /* the passes see 60 */

    Refuses when the function names no such macro.
    """
    done = specialize_size_macros(module.ast, module.cu.ast)
    if not done:
        raise PassFailed(f"{module.name} names no size macro that the build chooses")
