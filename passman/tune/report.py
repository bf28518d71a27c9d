"""Pictures of a study: Optuna's matplotlib plots as PNG files, and an HTML report.

``passman tune plot NAME -o DIR`` writes

- ``history.png``: the objective of each trial and the best so far
  (``plot_optimization_history``);
- ``importance.png``: how much each parameter explains the objective
  (``plot_param_importances``, fANOVA), when there are two trials or more;
- ``parallel.png``: every trial as a line across its parameters
  (``plot_parallel_coordinate``);
- ``pareto.png`` for a study with two objectives (time and code size);
- ``report.html``: the pictures, the best variants as a table with their
  pipelines, and each best variant's code as a diff against the original.
"""

from __future__ import annotations

import difflib
import html
import os
import warnings
from pathlib import Path
from typing import Any

from ..errors import InvalidInput, PassmanError
from ..fsutil import atomic_write_text
from .study import Study, Variant

__all__ = ["plot_study", "write_report"]


def plot_study(study: Study, directory: str | os.PathLike[str]) -> list[Path]:
    """Write the study's PNG plots into ``directory``; their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import optuna.visualization.matplotlib as ovm
    from optuna.trial import TrialState

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    done = study.study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    if not done:
        raise InvalidInput(f"error: study {study.name} has no measured variant to plot")
    multi = len(study.objectives) > 1
    time_only = (lambda t: t.values[0]) if multi else None
    plots: list[tuple[str, Any]] = [
        ("history", lambda: ovm.plot_optimization_history(study.study, target=time_only, target_name="time (s)")),
        ("parallel", lambda: ovm.plot_parallel_coordinate(study.study, target=time_only, target_name="time (s)")),
    ]
    if len(done) >= 2 and done[0].params:
        plots.insert(1, ("importance", lambda: ovm.plot_param_importances(
            study.study, target=time_only, target_name="time (s)")))
    if multi:
        plots.append(("pareto", lambda: ovm.plot_pareto_front(study.study, target_names=["time (s)", "bytes"])))
    written = []
    for name, make in plots:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                ax = make()
            except (ValueError, RuntimeError) as err:  # e.g. importance of a parameter that never varied
                warnings.warn(f"{name}.png not drawn: {err}", stacklevel=2)
                continue
        fig = (ax.flat[0] if hasattr(ax, "flat") else ax).figure
        fig.set_size_inches(8, 5)
        fig.tight_layout()
        path = out / f"{name}.png"
        tmp = out / f".{name}.png.tmp"
        fig.savefig(tmp, format="png", dpi=100)
        os.replace(tmp, path)
        plt.close(fig)
        written.append(path)
    return written


def write_report(study: Study, directory: str | os.PathLike[str], top: int = 5) -> Path:
    """Write the PNGs and ``report.html`` (pictures, best variants, their diffs) into ``directory``."""
    out = Path(directory)
    pictures = plot_study(study, out)
    best = study.best(top)
    base, default = study.baseline, study.default_value
    parts = [f"<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>passman tune: "
             f"{html.escape(study.name)}</title>\n<style>{_CSS}</style></head><body>",
             f"<h1>Study {html.escape(study.name)}</h1>",
             f"<pre>{html.escape(study.table(top))}</pre>"]
    if best:
        parts.append(f"<p>Best variant: <code class='best'>{html.escape(_text(best[0]))}</code> "
                     f"({best[0].value:.4g} s" + (f", {base / best[0].value:.2f}x the original"
                                                   if base else "")
                     + (f", {default / best[0].value:.2f}x the default" if default else "") + ").</p>")
    for p in pictures:
        parts.append(f"<h2>{p.stem}</h2><img src='{p.name}' alt='{p.stem}'>")
    for rank, v in enumerate(best, start=1):
        parts.append(f"<h2>#{rank}: trial {v.number}, {v.value:.4g} s</h2>"
                     f"<p><code>{html.escape(_text(v))}</code></p>{_diff(study, v)}")
    parts.append("</body></html>\n")
    path = out / "report.html"
    atomic_write_text(path, "\n".join(parts))
    return path


def _text(v: Variant) -> str:
    return v.key if not v.key.startswith("main{") or v.pipeline is None else f"{v.key}: {v.pipeline}"


def _diff(study: Study, v: Variant) -> str:
    """The variant's code against the original's, unit by unit, as HTML."""
    if study.program is None:
        return "<p>(the study does not hold its program)</p>"
    try:
        original = study.program.workspace()
        variant = study.variant_workspace(v)
    except PassmanError as err:
        return f"<p>(cannot rebuild the variant: {html.escape(str(err))})</p>"
    before = {cu.filename: cu.code for cu in original.compilation_units if not cu.is_stub}
    lines: list[str] = []
    for cu in variant.compilation_units:
        if cu.is_stub:
            continue
        lines += difflib.unified_diff(before.get(cu.filename, "").splitlines(), cu.code.splitlines(),
                                      f"a/{cu.filename}", f"b/{cu.filename}", lineterm="")
    if not lines:
        return "<p>(same code as the original)</p>"
    rows = []
    for ln in lines:
        cls = "add" if ln.startswith("+") else "del" if ln.startswith("-") else "ctx"
        rows.append(f"<span class='{cls}'>{html.escape(ln)}</span>")
    return "<pre class='diff'>" + "\n".join(rows) + "</pre>"


_CSS = """body{font-family:sans-serif;max-width:1000px;margin:auto}img{max-width:100%}
pre{background:#f6f8fa;padding:8px;overflow-x:auto}.add{color:#22863a}.del{color:#b31d28}
.ctx{color:#444}code.best{font-weight:bold}"""
