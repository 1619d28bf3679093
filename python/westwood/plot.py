"""Figures of reproduced experiments (matplotlib, Agg backend, no pyplot global state)."""

from __future__ import annotations

import contextlib
import math
import os
import tempfile
from pathlib import Path
from typing import List, Sequence

from .experiments import Experiment
from .stats import MeanCI

MARKERS = ("o", "s", "^", "D", "v", "x", "P", "*")


def _save_atomic(fig, path: Path, **kwargs) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=path.suffix, dir=path.parent)
    os.close(fd)
    try:
        fig.savefig(tmp, format=path.suffix.lstrip("."), **kwargs)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def plot_experiment(
    experiment: Experiment,
    xs: Sequence[float],
    cells: Sequence[Sequence[MeanCI]],
    out_stem: Path,
) -> List[Path]:
    """Draw one line per series (``cells[series][x]``) with 95% CI error bars, as in the paper:
    x = the swept parameter, y = the metric. Writes ``out_stem``.png and .svg."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.hashsalt": experiment.id, "font.size": 10}):
        fig = Figure(figsize=(6.4, 4.4), layout="constrained")
        ax = fig.add_subplot()
        for i, (series, row) in enumerate(zip(experiment.series, cells)):
            means = [c.mean for c in row]
            errors = [c.half_width if not math.isnan(c.half_width) else 0.0 for c in row]
            ax.errorbar(
                list(xs),
                means,
                yerr=errors,
                label=series.label,
                marker=MARKERS[i % len(MARKERS)],
                markersize=5,
                linewidth=1.4,
                capsize=3,
            )
        ax.set_xlabel(experiment.x.axis_label)
        ax.set_ylabel(experiment.metric.label)
        ax.set_title(f"{experiment.title}\n({experiment.paper})", fontsize=10)
        ax.set_ylim(bottom=0)
        ax.grid(True, linestyle=":", linewidth=0.6)
        ax.legend()
        out_stem.parent.mkdir(parents=True, exist_ok=True)
        png = out_stem.parent / f"{out_stem.name}.png"
        svg = out_stem.parent / f"{out_stem.name}.svg"
        _save_atomic(fig, png, dpi=150, metadata={"Software": None})
        _save_atomic(fig, svg, metadata={"Date": None})
    return [png, svg]
