"""A compilation unit of a workspace: one C source file, its AST and directives."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pycparser import c_ast

from .astutil import func_name
from .module import Modules
from .printer import to_c

if TYPE_CHECKING:
    from .workspace import Workspace


class CompilationUnit:
    """One C source file: its AST (own and header declarations) and directives."""

    def __init__(
        self,
        ws: Workspace,
        name: str,
        ast: c_ast.FileAST,
        *,
        path: Path | None = None,
        coord_name: str | None = None,
        directives: list[str] | None = None,
        local_headers: list[Path] | None = None,
        macros: list[str] | None = None,
        is_stub: bool = False,
        target: str = "cpu",
    ):
        self.ws = ws
        self.name = name
        self.ast = ast
        self.path = path
        self.coord_name = coord_name
        self.directives = directives or []
        self.local_headers = local_headers or []
        self.macros = macros if macros is not None else self.directives
        self.is_stub = is_stub
        #: which backend target this unit is compiled for
        self.target = target

    def _copy_for(self, ws: Workspace) -> CompilationUnit:
        return CompilationUnit(
            ws, self.name, c_ast.FileAST(list(self.ast.ext), self.ast.coord), path=self.path,
            coord_name=self.coord_name, directives=self.directives,
            local_headers=self.local_headers, macros=self.macros, is_stub=self.is_stub,
            target=self.target,
        )

    def is_own(self, node: c_ast.Node) -> bool:
        """Whether a top-level node belongs to this file (not to an included header)."""
        coord = node.coord
        if isinstance(node, c_ast.FuncDef):
            coord = node.decl.coord or coord
        return coord is None or coord.file == self.coord_name or self.coord_name is None

    @property
    def own_nodes(self) -> list[c_ast.Node]:
        """The top-level declarations and functions written in this file."""
        self.ws.rm.note_read(("cu", self.name))
        return [n for n in self.ast.ext if self.is_own(n)]

    @property
    def modules(self) -> Modules:
        """The functions this unit defines."""
        return Modules(
            self.ws, [func_name(n) for n in self.ast.ext if isinstance(n, c_ast.FuncDef)]
        )

    @property
    def filename(self) -> str:
        """The file name used when the unit is saved."""
        return self.path.name if self.path else f"{self.name}.c"

    @property
    def code(self) -> str:
        """The unit as C text: its directives, then its own declarations and functions."""

        body = to_c(c_ast.FileAST(self.own_nodes), hidden_labels=self.ws._labels.auto)
        head = "\n".join(self.directives)
        return f"{head}\n\n{body}" if head else body

    def __repr__(self) -> str:
        return f"<CompilationUnit {self.name}>"
