"""Time-series figures of flow state: cwnd and ssthresh (seed 000 figs. 12-13, seed 001 figs. 1-6),
sequence numbers vs. time (seed 000 figs. 4-5), or any other column of the flow time series.

A ``SeriesTraceExperiment`` (kind ``window``) runs a scenario once per series and seed with the
time series recorded, and draws, for each series (one panel each), the chosen ``curves`` (columns
of the flow series, e.g. ``cwnd_bytes`` shown in segments) of the chosen ``flows`` (default: every
TCP flow) for the first seed. Claims are judged on ``WindowResults``: the time mean of a curve per
series and flow, and any per-flow summary field, both averaged over seeds.

Samples of ``ssthresh_bytes`` that are still the initial "unlimited" value (larger than
``UNLIMITED_BYTES``) are treated as undefined (NaN): not drawn, not averaged.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple

from ..claims import (
    Claim,
    ClaimUnavailable,
    Degenerate,
    Measurement,
    mean_of_ratios,
    paired_ratios,
)
from ..errors import UsageError
from ..stats import MeanCI, mean_ci
from .base import Series, merge_overrides, quick_duration_override
from .preconditions import STANDARD, Precondition, degenerate_series

UNLIMITED_BYTES = 1e12  # larger values are the initial "unlimited" ssthresh


@dataclass(frozen=True)
class Curve:
    """One column of the flow time series, drawn and averaged in ``unit``:
    ``segments`` (bytes / the flow's segment size), ``Mbps`` (bits/s / 1e6), ``KB`` or ``raw``."""

    column: str  # e.g. "cwnd_bytes", "ssthresh_bytes", "snd_max", "bwe_bps", "srtt_seconds"
    label: str  # e.g. "cwnd"
    unit: str = "segments"

    def scale(self, segment_size: float) -> float:
        return {"segments": 1.0 / segment_size, "Mbps": 1e-6, "KB": 1e-3}.get(self.unit, 1.0)


CWND = Curve("cwnd_bytes", "cwnd")
SSTHRESH = Curve("ssthresh_bytes", "ssthresh")
SEQUENCE = Curve("snd_max", "sequence number")


def _float(value: Any) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return math.nan
    return v if math.isfinite(v) else math.nan


@dataclass(frozen=True)
class TracedRun:
    """One run: per flow, the sample times and each curve's values (in the curve's unit)."""

    series: str
    seed: int
    summary: Mapping[str, Any]
    times: Mapping[str, List[float]]
    values: Mapping[str, Mapping[str, List[float]]]  # flow -> column -> values

    def mean(self, flow: str, column: str, skip_seconds: float = 0.0) -> float:
        vs = [
            v
            for t, v in zip(self.times.get(flow, []), self.values.get(flow, {}).get(column, []))
            if t >= skip_seconds and not math.isnan(v)
        ]
        return math.fsum(vs) / len(vs) if vs else math.nan

    def flow_field(self, flow: str, name: str) -> float:
        for record in self.summary.get("flows", []):
            if record.get("name") == flow:
                return _float(record.get(name))
        return math.nan


@dataclass(frozen=True)
class WindowResults:
    """What claims of a ``window`` experiment are judged on."""

    experiment: "SeriesTraceExperiment"
    runs: Mapping[str, Sequence[TracedRun]]  # series label -> runs (one per seed)
    degenerate: Mapping[str, str] = field(default_factory=dict)  # series label -> why

    def _runs(self, series: str) -> Sequence[TracedRun]:
        if not self.runs.get(series):
            raise ClaimUnavailable(f"no {series} series")
        if series in self.degenerate:
            raise Degenerate(f"{series}: {self.degenerate[series]}")
        return self.runs[series]

    def curve_per_seed(self, series: str, flow: str, column: str) -> Dict[int, float]:
        """Time mean of ``column`` (after ``skip_seconds``) of each seed's run."""
        values = {
            r.seed: r.mean(flow, column, self.experiment.skip_seconds) for r in self._runs(series)
        }
        values = {s: v for s, v in values.items() if not math.isnan(v)}
        if not values:
            raise ClaimUnavailable(f"{series}: no {column} samples of flow {flow}")
        return values

    def field_per_seed(self, series: str, flow: str, name: str) -> Dict[int, float]:
        values = {r.seed: r.flow_field(flow, name) for r in self._runs(series)}
        values = {s: v for s, v in values.items() if not math.isnan(v)}
        if not values:
            raise ClaimUnavailable(f"{series}: flow {flow} has no {name}")
        return values

    def curve_mean(self, series: str, flow: str, column: str) -> float:
        """Time mean of ``column`` (after ``skip_seconds``), mean over seeds."""
        values = [r.mean(flow, column, self.experiment.skip_seconds) for r in self._runs(series)]
        values = [v for v in values if not math.isnan(v)]
        if not values:
            raise ClaimUnavailable(f"{series}: no {column} samples of flow {flow}")
        return math.fsum(values) / len(values)

    def field_mean(self, series: str, flow: str, name: str) -> float:
        values = [r.flow_field(flow, name) for r in self._runs(series)]
        values = [v for v in values if not math.isnan(v)]
        if not values:
            raise ClaimUnavailable(f"{series}: flow {flow} has no {name}")
        return math.fsum(values) / len(values)


def curve_ratios(column: str, numerator: str, denominator: str, flow: str):
    """Claim measure for a comparison (``claims.compare``): time-mean ``column`` of ``flow`` in
    series ``numerator`` over the same in ``denominator`` (e.g. TCPW's mean cwnd over Reno's),
    seed by seed."""

    def measure(r: WindowResults) -> Measurement:
        ratios, note = paired_ratios(
            r.curve_per_seed(numerator, flow, column), r.curve_per_seed(denominator, flow, column)
        )
        if not ratios:
            raise ClaimUnavailable(f"{denominator}'s mean {column} is 0")
        a, b = r.curve_mean(numerator, flow, column), r.curve_mean(denominator, flow, column)
        return mean_of_ratios(ratios, f"{numerator} {a:.2f} / {denominator} {b:.2f}", note)

    return measure


@dataclass(frozen=True)
class SeriesTraceExperiment:
    """Flow-state time series (cwnd/ssthresh, sequence numbers, ...) per series: see module doc."""

    id: str
    title: str
    paper: str
    scenario: str
    series: Tuple[Series, ...]
    curves: Tuple[Curve, ...] = (CWND, SSTHRESH)
    flows: Tuple[str, ...] = ()  # flows drawn and tabulated; () = every TCP flow of the run
    overrides: Mapping[str, str] = field(default_factory=dict)
    quick_duration: Optional[str] = None
    duration_parameter: str = "duration"
    skip_seconds: float = 0.0  # curve means start here (e.g. to skip the initial slow start)
    description: str = ""
    claims: Tuple[Claim, ...] = ()  # judged on a ``WindowResults``
    seeds: int = 1
    headline: bool = False
    preconditions: Tuple[Precondition, ...] = STANDARD  # preconditions.py

    kind: ClassVar[str] = "window"
    record: ClassVar[bool] = True
    fewer_quick_values: ClassVar[bool] = False

    def points(self, quick: bool) -> List[Tuple[float, Series]]:
        return [(0.0, s) for s in self.series]

    def run_overrides(
        self, x_value: float, series: Series, quick: bool, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        return merge_overrides(
            self.overrides.items(),
            series.overrides.items(),
            quick_duration_override(quick, self.duration_parameter, self.quick_duration),
            extra,
        )

    # --- analysis and report ---

    def analyse(self, spec, summary, series) -> TracedRun:
        flows = list(self.flows) or [str(f["name"]) for f in summary.get("flows", [])]
        sizes = {
            str(f["name"]): float(f.get("segment_size") or 1000) for f in summary.get("flows", [])
        }
        times: Dict[str, List[float]] = {f: [] for f in flows}
        values: Dict[str, Dict[str, List[float]]] = {
            f: {c.column: [] for c in self.curves} for f in flows
        }
        names = series.get("flow", [])
        columns = {c.column: series.get(c.column) for c in self.curves}
        for c, data in columns.items():
            if data is None:
                raise UsageError(f"{self.id}: the flow time series have no column {c!r}")
        for i, name in enumerate(names):
            if name not in times:
                continue
            times[name].append(float(series["time_seconds"][i]))
            for curve in self.curves:
                v = _float(columns[curve.column][i])
                if curve.column.startswith("ssthresh") and v > UNLIMITED_BYTES:
                    v = math.nan
                values[name][curve.column].append(v * curve.scale(sizes.get(name, 1000.0)))
        missing = [f for f in flows if not times[f]]
        if missing:
            raise UsageError(f"{self.id}: no time series samples of flow(s) {', '.join(missing)}")
        return TracedRun(spec.series, spec.seed, summary, times, values)

    def write_report(self, specs, summaries, out: Path, quick: bool, seeds: int, command: str):
        from ..claims import judge
        from ..report.html import claims_section, preconditions_section, rests_on_entry, write_csv
        from ..runs.store import load_series

        degenerate, failing_runs = degenerate_series(self.preconditions, specs, summaries)
        runs: Dict[str, List[TracedRun]] = {s.label: [] for s in self.series}
        for spec in specs:
            runs[spec.series].append(
                self.analyse(spec, summaries[spec.key], load_series(out / "runs", spec))
            )
        results = WindowResults(self, runs, degenerate)
        verdicts = [judge(c, results) for c in self.claims]
        first = {label: group[0] for label, group in runs.items() if group}
        flows = list(self.flows) or list(next(iter(first.values())).times)

        header = ["Series", "Flow", "Goodput (Mb/s)"] + [
            f"mean {c.label} ({c.unit})" for c in self.curves
        ]
        rows, csv_rows = [], []
        for label, group in runs.items():
            for flow in flows:
                good = mean_ci([r.flow_field(flow, "goodput_bps") / 1e6 for r in group])
                cells = [label, flow, _fmt(good)]
                for c in self.curves:
                    cells.append(
                        _fmt(mean_ci([r.mean(flow, c.column, self.skip_seconds) for r in group]))
                    )
                rows.append(cells)
                for r in group:
                    row = {
                        "experiment": self.id,
                        "series": label,
                        "seed": r.seed,
                        "flow": flow,
                        "goodput_mbps": r.flow_field(flow, "goodput_bps") / 1e6,
                        "retransmits": r.flow_field(flow, "retransmits"),
                        "timeouts": r.flow_field(flow, "timeouts"),
                        "degenerate": failing_runs.get((label, 0.0, r.seed), ""),
                    }
                    for c in self.curves:
                        row[f"mean_{c.column}_{c.unit}"] = r.mean(flow, c.column, self.skip_seconds)
                    csv_rows.append(row)
        table = {"header": header, "rows": rows}
        csv_path = out / f"{self.id}.csv"
        write_csv(csv_path, csv_rows)
        trace_rows = []
        for label, run in first.items():
            for flow in flows:
                for i, t in enumerate(run.times[flow]):
                    row = {"series": label, "seed": run.seed, "flow": flow, "time_seconds": t}
                    for c in self.curves:
                        row[f"{c.label} ({c.unit})"] = run.values[flow][c.column][i]
                    trace_rows.append(row)
        trace_path = out / f"{self.id}_trace.csv"
        write_csv(trace_path, trace_rows)
        figures = self.plot(first, flows, out / self.id)

        md = "\n".join(
            ["| " + " | ".join(header) + " |", "|" + "---:|" * len(header)]
            + ["| " + " | ".join(r) + " |" for r in rows]
        )
        series_text = ", ".join(
            f"{s.label} (`{' '.join(f'{k}={v}' for k, v in s.overrides.items())}`)"
            for s in self.series
        )
        mode = (
            f"quick (duration {self.quick_duration})"
            if quick and self.quick_duration
            else ("quick (scenario duration)" if quick else "full (scenario duration)")
        )
        ci = f"mean ± 95% CI over {seeds} seeds" if seeds > 1 else "one seed"
        skip = f", after the first {self.skip_seconds:g} s" if self.skip_seconds else ""
        text = f"""# {self.id}: {self.title}

Reproduces {self.paper}. {self.description}

- Scenario: `{self.scenario}`; series: {series_text}
- Mode: {mode}; {ci}. Curve means are time means of the samples{skip}; the figure shows the
  first seed.

{md}

{preconditions_section(self.preconditions, degenerate)}
{claims_section(verdicts)}
![{self.id}]({self.id}.png)

Data: [{self.id}.csv]({self.id}.csv) · [{self.id}_trace.csv]({self.id}_trace.csv) (first seed)

Rerun: `{command}`
"""
        from ..files import write_text_atomic

        md_path = out / f"{self.id}.md"
        write_text_atomic(md_path, text)
        files = [
            ("table", f"{self.id}.md"),
            ("csv", f"{self.id}.csv"),
            ("trace csv", f"{self.id}_trace.csv"),
            ("png", f"{self.id}.png"),
            ("svg", f"{self.id}.svg"),
        ]
        entry = {
            "table": table,
            "claims": [v.as_dict() for v in verdicts],
            "files": files,
            **rests_on_entry(self.preconditions, degenerate),
        }
        return [csv_path, trace_path, md_path] + figures, entry

    def plot(self, first: Mapping[str, TracedRun], flows: Sequence[str], out_stem: Path):
        from matplotlib.figure import Figure

        from ..report.plots import _save_both

        n = max(len(first), 1)
        fig = Figure(figsize=(8, 2.6 * n + 0.6))
        axes = fig.subplots(n, 1, sharex=True, squeeze=False)[:, 0]
        units = sorted({c.unit for c in self.curves})
        for ax, (label, run) in zip(axes, first.items()):
            for flow in flows:
                for c in self.curves:
                    name = c.label if len(flows) == 1 else f"{flow} {c.label}"
                    ax.plot(run.times[flow], run.values[flow][c.column], lw=0.8, label=name)
            ax.set_title(label, fontsize=9)
            ax.set_ylabel(", ".join(units))
            ax.legend(fontsize=7, loc="upper left")
            ax.grid(True, alpha=0.3)
        axes[-1].set_xlabel("Time (s)")
        fig.suptitle(f"{self.title} ({self.paper})", fontsize=10)
        fig.tight_layout()
        return _save_both(fig, out_stem)


def _fmt(c: MeanCI) -> str:
    if c.n == 0 or math.isnan(c.mean):
        return "–"
    if math.isnan(c.half_width):
        return f"{c.mean:.3f}"
    return f"{c.mean:.3f} ± {c.half_width:.3f}"
