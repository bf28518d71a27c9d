"""The plain C backend: the transformed sources, a Makefile, gcc."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from passman.brokers import extend_plan
from passman.builder import BuildPlan, SourceFile


class SequentialBackend:
    """Writes the workspace's sources as they are and builds them with the C compiler.

    Options: ``cc`` (default ``gcc``), ``cflags`` (default ``["-O2"]``),
    ``ldflags``, ``libs`` (default ``["-lm"]``), ``output`` (binary name).
    The libraries the program calls add their ``cpu`` implementation (extra
    sources, flags, ``-lfftw3``...), as their brokers say.
    """

    name = "c"

    def render(self, ws: Any, directory: Path, **options: Any) -> BuildPlan:
        """Save the sources into ``directory`` and return the build plan."""
        files = ws.save(directory)
        cflags = list(options.get("cflags", ["-O2"]))
        plan = BuildPlan(
            sources=[SourceFile(Path(f.name), options.get("cc", "gcc")) for f in files],
            output=options.get("output", ws.name.replace(" ", "_") or "a.out"),
            cc=options.get("cc", "gcc"),
            cflags=cflags,
            ldflags=list(options.get("ldflags", [])),
            libs=list(options.get("libs", ["-lm"])),
        )
        return extend_plan(plan, ws, "cpu")
