"""The ``trace`` kind: a flow's bandwidth estimate (BWE) against the bandwidth available to it,
step by step (seed 000 §4.1, fig. 3): the analysis, the experiment, and its report (per-step
error tables, the trace CSV, the figure and the claims).

The *available bandwidth* of a step is the bottleneck rate minus the rates of the constant-bit-
rate sources that are ON during the whole step; a step is an interval between two consecutive
ON/OFF changes (or the start and the end of the run). It is expressed on the wire (what the link
carries, the paper's "5, 4, 3, 4, 3, 4, 5 Mbps") and in TCP payload terms, times
``segment_size / (segment_size + header_size)``, because BWE counts acknowledged payload bytes.

The error of a step is the mean absolute difference between BWE samples and the payload-terms
available bandwidth over the step, **skipping the first ``settle_seconds`` after each change**:
BWE is a low-pass filter (tau = 500 ms in the paper) of a rate that TCP itself only reaches after
probing (slow start at the start of the run, congestion avoidance at about one segment per RTT
after the UDP load drops), so the first seconds after a step are the filter's and the window's
settling time, not estimation error. The default of 5 s is ten times tau and ~80 RTTs of the
fig. 3 set-up. Samples where BWE is undefined (NaN) are ignored.

The analysis is pure (plain sequences in, plain records out) so that it can be tested on
synthetic data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, ClassVar, Dict, List, Mapping, Optional, Sequence, Tuple

from ..claims import Claim, ClaimUnavailable, Degenerate, Measurement, judge
from ..errors import UsageError
from ..files import write_text_atomic
from ..report import html as report
from ..runs.store import RunSpec, load_series
from ..stats import MeanCI, mean_ci
from .base import Series, merge_overrides, quick_duration_override
from .preconditions import STANDARD, Precondition, degenerate_series

DEFAULT_SETTLE_SECONDS = 5.0


@dataclass(frozen=True)
class Source:
    """A constant-bit-rate source: its rate while ON and its ON intervals [start, stop) in s."""

    name: str
    rate_bps: float
    on: Tuple[Tuple[float, float], ...]

    @classmethod
    def from_summary(cls, record: Mapping[str, Any]) -> "Source":
        return cls(
            name=str(record["name"]),
            rate_bps=float(record["rate_bps"]),
            on=tuple((float(a), float(b)) for a, b in record.get("on", [])),
        )


@dataclass(frozen=True)
class Step:
    index: int  # 1-based
    start: float
    end: float
    active: Tuple[str, ...]  # sources ON during the step
    available_bps: float  # on the wire
    available_payload_bps: float  # in TCP payload terms

    @property
    def label(self) -> str:
        return f"{self.start:g}–{self.end:g} s"


def available_steps(
    duration: float,
    bottleneck_bps: float,
    sources: Sequence[Source],
    payload_fraction: float = 1.0,
) -> List[Step]:
    """The steps of a run of ``duration`` seconds: one per interval between ON/OFF changes."""
    if duration <= 0:
        return []
    cuts = {0.0, float(duration)}
    for source in sources:
        for start, stop in source.on:
            for t in (start, stop):
                if 0.0 < t < duration:
                    cuts.add(float(t))
    bounds = sorted(cuts)
    steps = []
    for i, (a, b) in enumerate(zip(bounds, bounds[1:]), start=1):
        active = tuple(
            s.name for s in sources if any(start <= a and b <= stop for start, stop in s.on)
        )
        load = sum(s.rate_bps for s in sources if s.name in active)
        available = max(bottleneck_bps - load, 0.0)
        steps.append(Step(i, a, b, active, available, available * payload_fraction))
    return steps


@dataclass(frozen=True)
class StepError:
    step: Step
    samples: int  # BWE samples compared (after settling)
    mean_bwe_bps: float  # NaN when no samples
    mae_bps: float  # mean |BWE - available payload bandwidth|; NaN when no samples

    @property
    def relative(self) -> float:
        """MAE over the payload-terms available bandwidth (NaN if that is 0 or no samples)."""
        if self.samples == 0 or self.step.available_payload_bps <= 0:
            return math.nan
        return self.mae_bps / self.step.available_payload_bps


def step_errors(
    times: Sequence[float],
    bwe_bps: Sequence[float],
    steps: Sequence[Step],
    settle_seconds: float = DEFAULT_SETTLE_SECONDS,
) -> List[StepError]:
    """Per step, the samples at ``start + settle_seconds <= t < end`` (the last step also
    includes ``t == end``) with a finite BWE, compared with the step's payload bandwidth."""
    out = []
    last = len(steps) - 1
    for i, step in enumerate(steps):
        lo = step.start + settle_seconds
        values = [
            float(b)
            for t, b in zip(times, bwe_bps)
            if lo <= t
            and (t < step.end or (i == last and t <= step.end))
            and b is not None
            and math.isfinite(float(b))
        ]
        if values:
            mean_bwe = math.fsum(values) / len(values)
            mae = math.fsum(abs(v - step.available_payload_bps) for v in values) / len(values)
        else:
            mean_bwe = mae = math.nan
        out.append(StepError(step, len(values), mean_bwe, mae))
    return out


def payload_fraction(segment_size: float, header_size: float) -> float:
    return segment_size / (segment_size + header_size)


# --- what the summary tells (and what we assume when it does not) ------------------------------

# The simulator's defaults (docs/scenarios.md, [tcp]): used only for summaries written before
# the flow records carried segment_size and header_size.
DEFAULT_SEGMENT_SIZE = 1000
DEFAULT_HEADER_SIZE = 40


@dataclass(frozen=True)
class PacketSizes:
    segment_size: int
    header_size: int
    origin: str  # "summary.json" or an explanation of the assumption

    @property
    def payload_fraction(self) -> float:
        return payload_fraction(self.segment_size, self.header_size)


def flow_record(summary: Mapping[str, Any], flow: str) -> Mapping[str, Any]:
    for record in summary.get("flows", []):
        if record.get("name") == flow:
            return record
    names = ", ".join(str(f.get("name")) for f in summary.get("flows", []))
    raise KeyError(f"no flow {flow!r} in the run (flows: {names or 'none'})")


def packet_sizes(summary: Mapping[str, Any], flow: str) -> PacketSizes:
    record = flow_record(summary, flow)
    segment, header = record.get("segment_size"), record.get("header_size")
    if isinstance(segment, (int, float)) and isinstance(header, (int, float)) and segment > 0:
        return PacketSizes(int(segment), int(header), "summary.json")
    return PacketSizes(
        DEFAULT_SEGMENT_SIZE,
        DEFAULT_HEADER_SIZE,
        "assumed: the summary does not give the flow's sizes, so the simulator's defaults",
    )


def bottleneck_rate(summary: Mapping[str, Any], link: Optional[str] = None) -> Tuple[str, float]:
    """(name, rate) of ``link``, or of the slowest link when ``link`` is None."""
    links = list(summary.get("links", []))
    if not links:
        raise KeyError("the run has no links")
    if link is not None:
        for record in links:
            if record.get("name") == link:
                return link, float(record["rate_bps"])
        raise KeyError(f"no link {link!r} in the run")
    slowest = min(links, key=lambda r: float(r["rate_bps"]))
    return str(slowest["name"]), float(slowest["rate_bps"])


def sources_of(summary: Mapping[str, Any]) -> List[Source]:
    return [Source.from_summary(s) for s in summary.get("sources", []) or []]


# --- aggregation over seeds and the claim ------------------------------------------------------


@dataclass(frozen=True)
class StepSummary:
    """One step of one series, over seeds."""

    step: Step
    mean_bwe_mbps: MeanCI
    mae_mbps: MeanCI
    relative_percent: MeanCI


def summarize_steps(per_seed: Sequence[Sequence[StepError]]) -> List[StepSummary]:
    """Mean and CI over seeds of each step's numbers (all seeds share the steps)."""
    if not per_seed:
        return []
    out = []
    for i, step in enumerate(per_seed[0]):
        column = [errors[i] for errors in per_seed]
        out.append(
            StepSummary(
                step.step,
                mean_ci([e.mean_bwe_bps / 1e6 for e in column]),
                mean_ci([e.mae_bps / 1e6 for e in column]),
                mean_ci([e.relative * 100 for e in column]),
            )
        )
    return out


@dataclass(frozen=True)
class TraceResults:
    """What claims of a trace experiment are judged on: step summaries per series label."""

    settle_seconds: float
    steps: Mapping[str, Sequence[StepSummary]]
    degenerate: Mapping[str, str] = field(default_factory=dict)  # series label -> why

    def series_steps(self, series: str) -> Sequence[StepSummary]:
        """The steps of ``series`` (raises ``Degenerate`` when its runs fail the
        preconditions)."""
        if series not in self.steps:
            raise ClaimUnavailable(f"no {series} series in the results")
        if series in self.degenerate:
            raise Degenerate(f"{series}: {self.degenerate[series]}")
        return self.steps[series]


def worst_step_error(series: str) -> Callable[[TraceResults], Measurement]:
    """Claim measure: the largest per-step relative error (percent, mean over seeds) of
    ``series`` among the steps that have samples after settling."""

    def measure(results: TraceResults) -> Measurement:
        steps = results.series_steps(series)
        judged = [s for s in steps if s.relative_percent.n > 0]
        if not judged:
            raise ClaimUnavailable("no step has BWE samples after settling")
        worst = max(judged, key=lambda s: s.relative_percent.mean)
        skipped = len(steps) - len(judged)
        detail = (
            f"worst of {len(judged)} steps: {worst.step.label}, "
            f"{worst.step.available_payload_bps / 1e6:.2f} Mb/s available"
        )
        if skipped:
            detail += f"; {skipped} step(s) without samples"
        return Measurement(worst.relative_percent.mean, detail)

    return measure


def step_rows(errors: Sequence[StepError]) -> List[Dict[str, Any]]:
    """CSV-ready rows of one run's step errors (series and seed added by the caller)."""
    return [
        {
            "step": e.step.index,
            "start_seconds": e.step.start,
            "end_seconds": e.step.end,
            "active_sources": " ".join(e.step.active),
            "available_mbps": e.step.available_bps / 1e6,
            "available_payload_mbps": e.step.available_payload_bps / 1e6,
            "samples": e.samples,
            "mean_bwe_mbps": e.mean_bwe_bps / 1e6,
            "mae_mbps": e.mae_bps / 1e6,
            "relative_error_percent": e.relative * 100,
        }
        for e in errors
    ]


# --- the experiment -----------------------------------------------------------------------------


# --- time-trace experiments --------------------------------------------------------------------


@dataclass(frozen=True)
class TraceExperiment:
    """A time-trace figure: ``flow``'s bandwidth estimate against the bandwidth available to it
    (bottleneck rate minus the active CBR sources, above), one run per series and
    seed, the time series recorded. Reports the per-step error of BWE."""

    id: str
    title: str
    paper: str
    scenario: str
    series: Tuple[Series, ...]
    flow: str  # the TCP flow whose BWE is traced
    bottleneck: Optional[str] = None  # link name; None: the slowest link of the run
    settle_seconds: float = DEFAULT_SETTLE_SECONDS
    overrides: Mapping[str, str] = field(default_factory=dict)
    quick_duration: Optional[str] = None  # None: the scenario's duration in quick mode too
    duration_parameter: str = "duration"
    description: str = ""
    claims: Tuple[Claim, ...] = ()  # judged on a ``TraceResults``
    seeds: int = 1  # seeds in a full run; --seeds overrides
    headline: bool = False  # part of `reproduce --quick` without IDs (the README's main job)
    preconditions: Tuple[Precondition, ...] = STANDARD  # preconditions.py

    kind: ClassVar[str] = "trace"
    record: ClassVar[bool] = True  # runs record their time series

    def points(self, quick: bool) -> List[Tuple[float, Series]]:
        return [(0.0, s) for s in self.series]

    fewer_quick_values: ClassVar[bool] = False

    def run_overrides(
        self, x_value: float, series: Series, quick: bool, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        return merge_overrides(
            self.overrides.items(),
            series.overrides.items(),
            quick_duration_override(quick, self.duration_parameter, self.quick_duration),
            extra,
        )

    def write_report(
        self,
        specs: Sequence[RunSpec],
        summaries: Mapping[str, Mapping[str, Any]],
        out: Path,
        quick: bool,
        seeds: int,
        command: str,
    ) -> Tuple[List[Path], Dict[str, Any]]:
        return write_trace_experiment(self, specs, summaries, out, quick, seeds, command)


# --- its report ---------------------------------------------------------------------------------


class TraceRun:
    """One run of a trace experiment, analysed: its steps and the traced flow's BWE."""

    def __init__(self, experiment: TraceExperiment, spec: RunSpec, summary, series) -> None:
        self.spec = spec
        self.summary = summary
        flow = experiment.flow
        try:
            self.sizes = packet_sizes(summary, flow)
            self.link, self.bottleneck_bps = bottleneck_rate(summary, experiment.bottleneck)
        except KeyError as err:
            raise UsageError(f"{experiment.id}: {err.args[0]}") from None
        self.sources = sources_of(summary)
        keep = [i for i, name in enumerate(series.get("flow", [])) if name == flow]
        if not keep:
            raise UsageError(f"{experiment.id}: flow {flow!r} has no time series samples")
        self.times = [float(series["time_seconds"][i]) for i in keep]
        self.bwe_bps = [_float(series["bwe_bps"][i]) for i in keep]
        self.steps = available_steps(
            float(summary["sim_seconds"]),
            self.bottleneck_bps,
            self.sources,
            self.sizes.payload_fraction,
        )
        self.errors = step_errors(self.times, self.bwe_bps, self.steps, experiment.settle_seconds)

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
    experiment: TraceExperiment, results: TraceResults, run: TraceRun
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
    from ..report.plots import plot_trace

    cache_dir = out / "runs"
    runs: Dict[str, List[TraceRun]] = {s.label: [] for s in experiment.series}
    for spec in specs:
        run = TraceRun(experiment, spec, summaries[spec.key], load_series(cache_dir, spec))
        runs[spec.series].append(run)

    degenerate, failing_runs = degenerate_series(experiment.preconditions, specs, summaries)
    step_summaries = {
        label: summarize_steps([r.errors for r in group]) for label, group in runs.items()
    }
    results = TraceResults(experiment.settle_seconds, step_summaries, degenerate)
    verdicts = [judge(c, results) for c in experiment.claims]
    first = runs[experiment.series[0].label][0]

    rows: List[Dict[str, Any]] = []
    for label, group in runs.items():
        for run in group:
            for row in step_rows(run.errors):
                rows.append(
                    {
                        "experiment": experiment.id,
                        "series": label,
                        "seed": run.spec.seed,
                        **row,
                        "degenerate": failing_runs.get((label, 0.0, run.spec.seed), ""),
                    }
                )
    csv_path = out / f"{experiment.id}.csv"
    report.write_csv(csv_path, rows)

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
    report.write_csv(trace_path, trace_rows)

    table = step_table(experiment, results, first)
    md_path = out / f"{experiment.id}.md"
    _write_markdown(md_path, experiment, first, table, verdicts, seeds, quick, command, degenerate)
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
    entry = {
        "table": table,
        "claims": [v.as_dict() for v in verdicts],
        "files": files,
        **report.rests_on_entry(experiment.preconditions, degenerate),
    }
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
    degenerate: Mapping[str, str],
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

{report.preconditions_section(experiment.preconditions, degenerate)}
{report.claims_section(verdicts)}
![{experiment.id}]({stem}.png)

Data: [{stem}.csv]({stem}.csv) (one row per run and step) ·
[{stem}_trace.csv]({stem}_trace.csv) (BWE and available bandwidth over time, first seed) ·
figure: [{stem}.png]({stem}.png), [{stem}.svg]({stem}.svg)

Rerun: `{command}`
"""
    write_text_atomic(path, text)
