"""Reports of time-trace experiments (``TraceExperiment``): per-step BWE error tables (CSV,
Markdown), the trace CSV, the figure and the claims."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from . import traces
from .claims import judge
from .errors import UsageError
from .experiments import TraceExperiment
from .files import write_text_atomic
from .report import claims_section, write_csv
from .runner import RunSpec, load_series
from .stats import MeanCI


class TraceRun:
    """One run of a trace experiment, analysed: its steps and the traced flow's BWE."""

    def __init__(self, experiment: TraceExperiment, spec: RunSpec, summary, series) -> None:
        self.spec = spec
        self.summary = summary
        flow = experiment.flow
        try:
            self.sizes = traces.packet_sizes(summary, flow)
            self.link, self.bottleneck_bps = traces.bottleneck_rate(summary, experiment.bottleneck)
        except KeyError as err:
            raise UsageError(f"{experiment.id}: {err.args[0]}") from None
        self.sources = traces.sources_of(summary)
        keep = [i for i, name in enumerate(series.get("flow", [])) if name == flow]
        if not keep:
            raise UsageError(f"{experiment.id}: flow {flow!r} has no time series samples")
        self.times = [float(series["time_seconds"][i]) for i in keep]
        self.bwe_bps = [_float(series["bwe_bps"][i]) for i in keep]
        self.steps = traces.available_steps(
            float(summary["sim_seconds"]),
            self.bottleneck_bps,
            self.sources,
            self.sizes.payload_fraction,
        )
        self.errors = traces.step_errors(
            self.times, self.bwe_bps, self.steps, experiment.settle_seconds
        )

    def available_at(self, t: float, payload: bool) -> float:
        for step in self.steps:
            if step.start <= t < step.end or (step is self.steps[-1] and t <= step.end):
                return step.available_payload_bps if payload else step.available_bps
        return math.nan


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def _fmt(c: MeanCI, digits: int) -> str:
    if c.n == 0 or math.isnan(c.mean):
        return "–"
    if math.isnan(c.half_width):
        return f"{c.mean:.{digits}f}"
    return f"{c.mean:.{digits}f} ± {c.half_width:.{digits}f}"


def step_table(
    experiment: TraceExperiment, results: traces.TraceResults, run: TraceRun
) -> Dict[str, List]:
    """One row per step: time, active sources, available bandwidth (wire, payload) and, per
    series, the mean BWE and the relative error after settling."""
    header = ["Step", "Time (s)", "CBR ON", "Available (Mb/s)", "Available payload (Mb/s)"]
    for s in experiment.series:
        header += [f"{s.label} BWE (Mb/s)", f"{s.label} error (%)"]
    rows = []
    for i, step in enumerate(run.steps):
        row = [
            str(step.index),
            f"{step.start:g}–{step.end:g}",
            " ".join(step.active) or "none",
            f"{step.available_bps / 1e6:.2f}",
            f"{step.available_payload_bps / 1e6:.2f}",
        ]
        for s in experiment.series:
            summary = results.steps[s.label][i]
            row += [_fmt(summary.mean_bwe_mbps, 2), _fmt(summary.relative_percent, 1)]
        rows.append(row)
    return {"header": header, "rows": rows}


def _markdown(table: Mapping[str, Any]) -> str:
    lines = ["| " + " | ".join(table["header"]) + " |", "|" + "---:|" * len(table["header"])]
    lines += ["| " + " | ".join(row) + " |" for row in table["rows"]]
    return "\n".join(lines)


def write_trace_experiment(
    experiment: TraceExperiment,
    specs: Sequence[RunSpec],
    summaries: Mapping[str, Mapping[str, Any]],
    out: Path,
    quick: bool,
    seeds: int,
    command: str,
) -> Tuple[List[Path], Dict[str, Any]]:
    """Write ``<id>.csv`` (per run and step), ``<id>_trace.csv`` (BWE and available bandwidth
    over time, first seed of each series), ``<id>.md``, ``<id>.png``/``.svg``; return the
    paths and the index entry (table, claims, files)."""
    from .plot import plot_trace

    cache_dir = out / "runs"
    runs: Dict[str, List[TraceRun]] = {s.label: [] for s in experiment.series}
    for spec in specs:
        run = TraceRun(experiment, spec, summaries[spec.key], load_series(cache_dir, spec))
        runs[spec.series].append(run)

    step_summaries = {
        label: traces.summarize_steps([r.errors for r in group]) for label, group in runs.items()
    }
    results = traces.TraceResults(experiment.settle_seconds, step_summaries)
    verdicts = [judge(c, results) for c in experiment.claims]
    first = runs[experiment.series[0].label][0]

    rows: List[Dict[str, Any]] = []
    for label, group in runs.items():
        for run in group:
            for row in traces.step_rows(run.errors):
                rows.append(
                    {"experiment": experiment.id, "series": label, "seed": run.spec.seed, **row}
                )
    csv_path = out / f"{experiment.id}.csv"
    write_csv(csv_path, rows)

    trace_rows: List[Dict[str, Any]] = []
    for label, group in runs.items():
        run = group[0]
        for t, b in zip(run.times, run.bwe_bps):
            trace_rows.append(
                {
                    "series": label,
                    "seed": run.spec.seed,
                    "time_seconds": t,
                    "bwe_mbps": b / 1e6,
                    "available_mbps": run.available_at(t, payload=False) / 1e6,
                    "available_payload_mbps": run.available_at(t, payload=True) / 1e6,
                }
            )
    trace_path = out / f"{experiment.id}_trace.csv"
    write_csv(trace_path, trace_rows)

    table = step_table(experiment, results, first)
    md_path = out / f"{experiment.id}.md"
    _write_markdown(md_path, experiment, first, table, verdicts, seeds, quick, command)
    figures = plot_trace(
        experiment,
        {label: (group[0].times, group[0].bwe_bps) for label, group in runs.items()},
        first.steps,
        out / experiment.id,
    )
    files = [
        ("table", f"{experiment.id}.md"),
        ("csv", f"{experiment.id}.csv"),
        ("trace csv", f"{experiment.id}_trace.csv"),
        ("png", f"{experiment.id}.png"),
        ("svg", f"{experiment.id}.svg"),
    ]
    entry = {"table": table, "claims": [v.as_dict() for v in verdicts], "files": files}
    return [csv_path, trace_path, md_path] + figures, entry


def _write_markdown(
    path: Path,
    experiment: TraceExperiment,
    run: TraceRun,
    table: Mapping[str, Any],
    verdicts,
    seeds: int,
    quick: bool,
    command: str,
) -> None:
    stem = experiment.id
    sizes = run.sizes
    if sizes.origin == "summary.json":
        size_text = (
            f"segment_size {sizes.segment_size} B and header_size {sizes.header_size} B of flow "
            f"`{experiment.flow}` (from summary.json)"
        )
    else:
        size_text = (
            f"segment_size {sizes.segment_size} B and header_size {sizes.header_size} B "
            f"({sizes.origin})"
        )
    sources = (
        ", ".join(
            f"`{s.name}` {s.rate_bps / 1e6:g} Mb/s ON "
            + " ".join(f"[{a:g}, {b:g}) s" for a, b in s.on)
            for s in run.sources
        )
        or "none"
    )
    series_text = ", ".join(
        f"{s.label} (`{' '.join(f'{k}={v}' for k, v in s.overrides.items())}`)"
        for s in experiment.series
    )
    ci = (
        f"mean ± half-width of the 95% confidence interval over {seeds} seeds"
        if seeds > 1
        else "one seed"
    )
    duration = (
        f"quick (duration {experiment.quick_duration})"
        if quick and experiment.quick_duration
        else ("quick (scenario duration)" if quick else "full (scenario duration)")
    )
    text = f"""# {experiment.id}: {experiment.title}

Reproduces {experiment.paper}. {experiment.description}

- Scenario: `{experiment.scenario}`; traced flow `{experiment.flow}`; series: {series_text}
- Mode: {duration}; {ci}
- Bottleneck: link `{run.link}`, {run.bottleneck_bps / 1e6:g} Mb/s. CBR sources: {sources}
- *Available bandwidth* of a step: the bottleneck rate minus the rates of the CBR sources ON
  during the whole step, on the wire (all CBR sources are assumed to cross the bottleneck).
  BWE counts acknowledged payload, so it is compared with the available bandwidth in TCP
  payload terms: times segment / (segment + header) = {sizes.payload_fraction:.4f}.
- Packet sizes: {size_text}.
- *Error* of a step: mean |BWE − available payload bandwidth| over the BWE samples of the
  step, as a percentage of the available payload bandwidth,
  **skipping the first {experiment.settle_seconds:g} s after each ON/OFF change** (and after
  the start of the run): the filter's and the window's settling time. Per-run, per-step
  numbers (with the MAE in Mb/s) are in [{stem}.csv]({stem}.csv).

{_markdown(table)}

{claims_section(verdicts)}
![{experiment.id}]({stem}.png)

Data: [{stem}.csv]({stem}.csv) (one row per run and step) ·
[{stem}_trace.csv]({stem}_trace.csv) (BWE and available bandwidth over time, first seed) ·
figure: [{stem}.png]({stem}.png), [{stem}.svg]({stem}.svg)

Rerun: `{command}`
"""
    write_text_atomic(path, text)
