"""Figures of reproduced experiments (matplotlib, Agg backend, no pyplot global state)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, List, Mapping, Optional, Sequence, Tuple

from ..files import make_directory, write_bytes_atomic, writing
from ..stats import MeanCI

if TYPE_CHECKING:  # the experiments draw themselves with these; only their types are needed
    from ..experiments.sweep import Experiment
    from ..experiments.trace import Step

MARKERS = ("o", "s", "^", "D", "v", "x", "P", "*")


def _save_atomic(fig, path: Path, **kwargs) -> None:
    """Save ``fig`` to ``path`` whole or not at all; a failure names ``path``."""

    def save(tmp: str) -> None:
        with writing(tmp):
            fig.savefig(tmp, format=path.suffix.lstrip("."), **kwargs)

    write_bytes_atomic(path, save, suffix=path.suffix)


def plot_experiment(
    experiment: Experiment,
    xs: Sequence[float],
    cells: Sequence[Sequence[MeanCI]],
    out_stem: Path,
) -> List[Path]:
    """Draw one line per series (``cells[series][x]``) with 95% CI error bars, as in the paper:
    x = the swept parameter, y = the metric; in the experiment's panels if it has some (one
    above the other, the same axes, a series keeping its colour in each). Writes
    ``out_stem``.png and .svg."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    panels = experiment.drawn_panels() if hasattr(experiment, "drawn_panels") else ()
    with matplotlib.rc_context({"svg.hashsalt": experiment.id, "font.size": 10}):
        rows = max(1, len(panels))
        fig = Figure(figsize=(6.4, 4.4 if rows == 1 else 1.2 + 3.0 * rows), layout="constrained")
        axes = fig.subplots(rows, 1, sharex=True, sharey=True, squeeze=False)[:, 0]
        # A colour per series, but a twin (the simulator's line beside the testbed's, the same
        # protocol at another delay) takes its twin's, dashed and hollow. matplotlib's ten
        # colours while they suffice, else tab20's twenty (fig. 9 has eleven lines: two once
        # shared a colour).
        own = [s for s in experiment.series if s.twin_of is None]
        if len(own) <= 10:
            palette = [f"C{i}" for i in range(10)]
        else:
            palette = [matplotlib.colormaps["tab20"](i) for i in range(20)]
        colour_of = {s.label: i for i, s in enumerate(own)}
        for ax, panel in zip(axes, panels or (None,)):
            drawn = [
                (series, row)
                for series, row in zip(experiment.series, cells)
                if panel is None or series.label in panel.series
            ]
            _draw_series(ax, drawn, xs, palette, colour_of)
            ax.set_ylabel(experiment.metric.label)
            ax.grid(True, linestyle=":", linewidth=0.6)
            ax.legend(fontsize=8)
            if panel is not None:
                ax.set_title(panel.title, fontsize=9)
        # Once every panel is drawn: the panels share the y axis, and a limit set earlier
        # would stop it growing for the lines drawn after.
        axes[0].set_ylim(bottom=0)
        axes[-1].set_xlabel(experiment.x.axis_label)
        title = f"{experiment.title}\n({experiment.paper})"
        if panels:
            fig.suptitle(title, fontsize=10)
        else:
            axes[0].set_title(title, fontsize=10)
        return _save_both(fig, out_stem)


def _draw_series(ax, drawn, xs, palette, colour_of) -> None:
    """The lines of ``drawn`` ((series, cells) pairs) on ``ax``."""
    for series, row in drawn:
        means = [c.mean for c in row]
        errors = [c.half_width if not math.isnan(c.half_width) else 0.0 for c in row]
        colour = colour_of.get(series.twin_of or series.label, 0)
        dashed = getattr(series, "style", "") == "dashed"
        ax.errorbar(
            list(xs),
            means,
            yerr=errors,
            label=series.label,
            color=palette[colour % len(palette)],
            linestyle="--" if dashed else "-",
            markerfacecolor="none" if series.twin_of else None,
            marker=MARKERS[colour % len(MARKERS)],
            markersize=5,
            linewidth=1.4,
            capsize=3,
        )


def plot_trace(
    experiment,
    bwe_by_series: Mapping[str, Tuple[Sequence[float], Sequence[float]]],
    steps: Sequence[Step],
    out_stem: Path,
) -> List[Path]:
    """Seed 000 fig. 3 style: per series, BWE (Mb/s) vs time with the available bandwidth (on
    the wire and in TCP payload terms) as steps, the settling windows shaded. One panel per
    series, shared time axis. Writes ``out_stem``.png and .svg."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    labels = list(bwe_by_series)
    with matplotlib.rc_context({"svg.hashsalt": experiment.id, "font.size": 9}):
        fig = Figure(figsize=(7.0, 1.2 + 2.0 * len(labels)), layout="constrained")
        axes = fig.subplots(len(labels), 1, sharex=True, squeeze=False)[:, 0]
        top = max([s.available_bps for s in steps] + [1.0]) / 1e6
        edges = [steps[0].start] + [s.end for s in steps] if steps else []
        wire = [s.available_bps / 1e6 for s in steps]
        payload = [s.available_payload_bps / 1e6 for s in steps]
        for i, (ax, label) in enumerate(zip(axes, labels)):
            times, bwe = bwe_by_series[label]
            for s in steps:
                ax.axvspan(
                    s.start,
                    min(s.start + experiment.settle_seconds, s.end),
                    color="0.9",
                    linewidth=0,
                    label="settling (not scored)" if s is steps[0] else None,
                )
            if steps:
                ax.stairs(
                    wire,
                    edges,
                    color="0.45",
                    linestyle="--",
                    linewidth=1.1,
                    label="available bandwidth (wire)",
                )
                ax.stairs(
                    payload,
                    edges,
                    color="black",
                    linewidth=1.1,
                    label="available bandwidth (TCP payload)",
                )
            ax.plot(
                list(times),
                [b / 1e6 for b in bwe],
                color=f"C{i}",
                linewidth=1.0,
                label=f"{label} BWE",
            )
            ax.set_ylabel("BWE (Mb/s)")
            ax.set_ylim(0, top * 1.25)
            ax.grid(True, linestyle=":", linewidth=0.6)
            ax.legend(loc="lower right", fontsize=7, ncol=2)
        axes[-1].set_xlabel("Time (s)")
        if steps:
            axes[-1].set_xlim(steps[0].start, steps[-1].end)
        axes[0].set_title(f"{experiment.title}\n({experiment.paper})", fontsize=10)
        return _save_both(fig, out_stem)


def plot_window_overlay(
    sides: Mapping[str, Tuple[Sequence[float], Sequence[float], Sequence[float]]],
    zoom_at: Optional[float],
    title: str,
    out_stem: Path,
) -> List[Path]:
    """Two senders' windows over each other: per side (the first solid, the others dashed)
    (seconds, cwnd, ssthresh) in segments, NaN where ssthresh is unset. A second panel zooms on
    ``zoom_at`` (0.3 s before to 1.2 s after), e.g. the first loss reaction. Writes
    ``out_stem``.png and .svg."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.hashsalt": title, "font.size": 9}):
        panels = 1 if zoom_at is None else 2
        fig = Figure(figsize=(7.0, 1.4 + 2.3 * panels), layout="constrained")
        axes = fig.subplots(panels, 1, squeeze=False)[:, 0]
        for ax in axes:
            for i, (name, (times, cwnd, ssthresh)) in enumerate(sides.items()):
                style = "-" if i == 0 else "--"
                ax.plot(times, cwnd, style, color="C0", linewidth=1.0, label=f"{name} cwnd")
                ax.plot(times, ssthresh, style, color="C3", linewidth=0.8, label=f"{name} ssthresh")
            ax.set_ylabel("Segments")
            ax.set_ylim(bottom=0)
            ax.grid(True, linestyle=":", linewidth=0.6)
        if zoom_at is not None:
            axes[1].set_xlim(max(zoom_at - 0.3, 0.0), zoom_at + 1.2)
            axes[1].set_title("around the first loss reaction", fontsize=9)
        axes[0].legend(fontsize=7, ncol=2, loc="lower right")
        axes[-1].set_xlabel("Time since the trace's first row (s)")
        axes[0].set_title(title, fontsize=10)
        return _save_both(fig, out_stem)


def _save_both(fig, out_stem: Path) -> List[Path]:
    make_directory(out_stem.parent)
    png = out_stem.parent / f"{out_stem.name}.png"
    svg = out_stem.parent / f"{out_stem.name}.svg"
    _save_atomic(fig, png, dpi=150, metadata={"Software": None})
    _save_atomic(fig, svg, metadata={"Date": None})
    return [png, svg]
