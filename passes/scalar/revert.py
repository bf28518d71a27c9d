"""``revert_function``: a function back as its file defined it, whatever passes did to it since.

A recipe tries transformations for what they may gain together (loops
distributed so that their parts run in parallel, say); where the gain does
not come (the program stays sequential), the function is better as the
user wrote it. The function is the copy the workspace kept when it read
the file (:attr:`passman.unit.CompilationUnit.original`), loop labels
included, so the output prints it as the user's own text.
"""

from __future__ import annotations

from pycparser import c_ast

from passman import Module, PassFailed, transformation
from passman.astutil import copy_node, func_name, same_tree, walk

__all__ = ["revert_function", "original_definition"]


def original_definition(module: Module) -> c_ast.FuncDef | None:
    """The function as its file defined it (the object kept by the unit: never modify it), or None."""
    original = module.cu.original
    if original is None:
        return None
    for node in original.pristine:
        if isinstance(node, c_ast.FuncDef) and func_name(node) == module.name:
            return node
    return None


@transformation(scope="module")
def revert_function(module: Module) -> None:
    """Put the function back as its file defined it, undoing every pass applied to it.

    Before (after ``allen_kennedy_parallelization``, its regions since removed)::

        for (i = 0; i < n; i++)
            sx += ex[i];
        for (i = 0; i < n; i++)
            sy += ey[i];

    After::

        for (i = 0; i < n; i++) {
            sx += ex[i];
            sy += ey[i];
        }

    Refuses a function no file defined (a library model, a function a pass
    created), one whose signature a pass changed otherwise than in its array
    parameters' sizes (its callers now call the new one), and one that is as
    it was.
    """
    pristine = original_definition(module)
    if pristine is None:
        raise PassFailed(f"revert_function: {module.name} was not read from a file (a pass made it)")
    fd = module.edit()
    if not same_tree(_shape(fd.decl), _shape(pristine.decl)) or not same_tree(fd.param_decls, pristine.param_decls):
        raise PassFailed(f"revert_function: the signature of {module.name} changed since it was read; "
                         "its callers use the new one")
    copy = copy_node(pristine)
    fd.decl, fd.body = copy.decl, copy.body


def _shape(decl: c_ast.Node) -> c_ast.Node:
    """``decl`` without its arrays' sizes: what callers see of a signature (constants propagated into a
    parameter's ``double a[n][n]``, making it ``double a[100][100]``, change nothing a call passes)."""
    out = copy_node(decl)
    for node in walk(out):
        if isinstance(node, c_ast.ArrayDecl):
            node.dim = None
    return out
