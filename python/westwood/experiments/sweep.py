"""The ``sweep`` kind: one scenario parameter swept (the x axis) for several series (each a set
of overrides, e.g. a congestion control) over several seeds, reporting one metric — a figure
such as seed 000's fig. 9 (throughput vs. packet error rate) — with its table, figure and the
paper's claims judged on the means.
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
    judge,
    skipped_verdict,
)
from ..files import write_text_atomic
from ..report import html as report
from ..report.plots import plot_experiment
from ..runs.store import RunSpec
from ..stats import MeanCI, mean_ci
from .base import (
    FLOW_FIELDS,
    Axis,
    Metric,
    Panel,
    Series,
    format_number,
    merge_overrides,
    quick_duration_override,
)
from .preconditions import STANDARD, Precondition, degenerate_points

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Experiment:
    """One figure or table of the paper: ``metric`` for every ``x`` value and ``series``."""

    id: str
    title: str
    paper: str  # where in the paper, e.g. "seed 000 §5.1, fig. 9"
    scenario: str  # scenario name (scenarios/<name>.toml) or path
    x: Axis
    series: Tuple[Series, ...]
    metric: Metric
    overrides: Mapping[str, str] = field(default_factory=dict)  # fixed for every run
    quick_duration: str = "60s"  # value of `duration_parameter` with --quick
    duration_parameter: str = "duration"  # scenario parameter (or field path) of the duration
    description: str = ""
    claims: Tuple[Claim, ...] = ()  # judged on a ``SweepResults``
    seeds: int = 3  # seeds per point in a full run (a quick run uses 1); --seeds overrides
    headline: bool = False  # part of `reproduce --quick` without IDs (the README's main job)
    # What the verdicts rest on, checked on every run (preconditions.py).
    preconditions: Tuple[Precondition, ...] = STANDARD
    # The figure in panels (one above the other, the same axes), each with some of the series;
    # none: every series in one plot. Every series should be in one at least (`panel_problems`).
    panels: Tuple[Panel, ...] = ()

    kind: ClassVar[str] = "sweep"

    def panel_problems(self) -> List[str]:
        """What is wrong with the panels: labels of no series, series in no panel."""
        labels = {s.label for s in self.series}
        drawn = {label for p in self.panels for label in p.series}
        if not self.panels:
            return []
        return [f"no series {x!r}" for x in sorted(drawn - labels)] + [
            f"series {x!r} in no panel" for x in sorted(labels - drawn)
        ]

    def drawn_panels(self) -> Tuple[Panel, ...]:
        """The panels to draw: each limited to the series the experiment has (a copy with fewer
        series, e.g. a test's, keeps the rest), empty ones left out; none (one plot) if a
        series would be in no panel."""
        labels = {s.label for s in self.series}
        kept = tuple(
            Panel(p.title, tuple(x for x in p.series if x in labels))
            for p in self.panels
            if any(x in labels for x in p.series)
        )
        covered = {x for p in kept for x in p.series}
        return kept if covered == labels else ()

    record: ClassVar[bool] = False  # runs need no time series

    def points(self, quick: bool) -> List[Tuple[float, Series]]:
        """(x, series) of every point, in x then series order."""
        return [(x, s) for x in self.x.values_for(quick) for s in self.series]

    @property
    def fewer_quick_values(self) -> bool:
        return len(self.x.values_for(True)) < len(self.x.values)

    def run_overrides(
        self, x_value: float, series: Series, quick: bool, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        """Overrides of one run: fixed, then the series', the x value, quick duration, extra."""
        return merge_overrides(
            self.overrides.items(),
            series.overrides.items(),
            self.x.overrides(x_value),
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
        return write_sweep(self, specs, summaries, out, quick, seeds, command)


# --- sweep results, as claims see them ---------------------------------------------------------


@dataclass(frozen=True)
class SweepResults:
    """What claims of a sweep experiment are judged on: ``cells[series][x]``, mean and CI of the
    metric over seeds, as ``report.aggregate`` computes them; ``samples[(series, x)]``, the
    metric of each seed; ``degenerate[(series, x)]``, why a point's runs fail the experiment's
    preconditions (reading such a point raises ``Degenerate``)."""

    experiment: "Experiment"
    xs: Sequence[float]
    cells: Sequence[Sequence[MeanCI]]
    # --quick: shorter runs, fewer seeds; a claim that cannot be judged on those may say so.
    quick: bool = False
    samples: Mapping[Tuple[str, float], Mapping[int, float]] = field(default_factory=dict)
    degenerate: Mapping[Tuple[str, float], str] = field(default_factory=dict)

    def _check(self, series: str, x: float) -> None:
        labels = [s.label for s in self.experiment.series]
        if series not in labels:
            raise ClaimUnavailable(f"no {series} series")
        if x not in self.xs:
            raise ClaimUnavailable(
                f"{self.experiment.x.parameter} = {format_number(x)}{self.experiment.x.unit} "
                "was not run"
            )
        why = self.degenerate.get((series, x))
        if why:
            raise Degenerate(f"{series} at {self.x_text(x)}: {why}")

    def mean(self, series: str, x: float) -> float:
        return self.cell(series, x).mean

    def cell(self, series: str, x: float) -> MeanCI:
        """The mean of ``series`` at ``x`` over its seeds, with its confidence interval."""
        self._check(series, x)
        labels = [s.label for s in self.experiment.series]
        cell = self.cells[labels.index(series)][list(self.xs).index(x)]
        if cell.n == 0:
            raise ClaimUnavailable(f"no result for {series} at {format_number(x)}")
        return cell

    def per_seed(self, series: str, x: float) -> Dict[int, float]:
        """The metric of ``series`` at ``x``, seed by seed (NaN values left out)."""
        self._check(series, x)
        values = {s: v for s, v in self.samples.get((series, x), {}).items() if not math.isnan(v)}
        if not values:
            raise ClaimUnavailable(f"no result for {series} at {format_number(x)}")
        return values

    def x_text(self, x: float) -> str:
        return f"{format_number(x)}{self.experiment.x.unit}"


# --- the report: one row per run, the means over seeds, table, figure, claims ----------------


def experiment_rows(
    experiment: Experiment,
    specs: Sequence[RunSpec],
    summaries: Mapping[str, Mapping[str, Any]],
    degenerate_runs: Optional[Mapping[Tuple[str, float, int], str]] = None,
) -> List[Dict[str, Any]]:
    """One CSV row per run: x, series, seed, the metric, flow counters, run cost and, when the
    run fails a precondition, why (``degenerate``)."""
    degenerate_runs = degenerate_runs or {}
    rows = []
    own = {s.label: s.metric for s in experiment.series if getattr(s, "metric", None) is not None}
    for spec in specs:
        summary = summaries[spec.key]
        flows = summary.get("flows") or []
        # runs without bulk flows (only arrivals) have no per-flow counters
        flow = flows[experiment.metric.flow] if experiment.metric.flow < len(flows) else None
        metric = own.get(spec.series, experiment.metric)
        row: Dict[str, Any] = {
            "experiment": experiment.id,
            experiment.x.parameter: spec.x,
            "series": spec.series,
            "seed": spec.seed,
            # a series with its own metric reports it under the experiment's column name
            experiment.metric.name: metric.value(summary),
        }
        for column, name, divisor in FLOW_FIELDS if flow is not None else ():
            row.setdefault(column, flow[name] / divisor if divisor != 1.0 else flow[name])
        row["sim_seconds"] = summary["sim_seconds"]
        row["events"] = summary["events"]
        row["wall_seconds"] = summary["wall_seconds"]
        row["degenerate"] = degenerate_runs.get((spec.series, spec.x, spec.seed), "")
        row["overrides"] = " ".join(f"{k}={v}" for k, v in spec.overrides)
        rows.append(row)
    return rows


def per_seed_samples(
    experiment: Experiment, rows: Sequence[Mapping[str, Any]]
) -> Dict[Tuple[str, float], Dict[int, float]]:
    """``{(series, x): {seed: metric}}`` of the rows."""
    samples: Dict[Tuple[str, float], Dict[int, float]] = {}
    for row in rows:
        point = (row["series"], row[experiment.x.parameter])
        samples.setdefault(point, {})[int(row["seed"])] = float(row[experiment.metric.name])
    return samples


def aggregate(
    experiment: Experiment, rows: Sequence[Mapping[str, Any]], extra_xs: Sequence[float] = ()
) -> Tuple[List[float], List[List[MeanCI]]]:
    """x values (in order) and ``cells[series][x]``: mean and CI of the metric over seeds.
    ``extra_xs``: x values to show although no run has them (points that were skipped)."""
    xs: List[float] = []
    for row in rows:
        if row[experiment.x.parameter] not in xs:
            xs.append(row[experiment.x.parameter])
    if any(x not in xs for x in extra_xs):
        xs = sorted(set(xs) | set(extra_xs))
    cells = []
    for series in experiment.series:
        cells.append(
            [
                mean_ci(
                    [
                        r[experiment.metric.name]
                        for r in rows
                        if r["series"] == series.label and r[experiment.x.parameter] == x
                    ],
                    CONFIDENCE,
                )
                for x in xs
            ]
        )
    return xs, cells


def _cell(c: MeanCI, skipped: Optional[str] = None, degenerate: bool = False) -> str:
    if c.n == 0:
        return f"skipped: {skipped}" if skipped else "–"
    mark = f" {report.DEGENERATE_MARK}" if degenerate else ""
    if math.isnan(c.half_width):
        return f"{c.mean:.3f}{mark}"
    return f"{c.mean:.3f} ± {c.half_width:.3f}{mark}"


def result_table(
    experiment: Experiment,
    xs: Sequence[float],
    cells,
    skipped: Optional[report.Skipped] = None,
    degenerate: Optional[Mapping[Tuple[str, float], str]] = None,
) -> Dict[str, List]:
    """The aggregated results as text cells: one row per x value, one column per series; a
    point whose runs fail the preconditions is marked (``report.DEGENERATE_MARK``)."""
    skipped = skipped or {}
    degenerate = degenerate or {}
    header = [experiment.x.axis_label] + [s.label for s in experiment.series]
    rows = [
        [format_number(x)]
        + [
            _cell(row[j], skipped.get((s.label, x)), (s.label, x) in degenerate)
            for s, row in zip(experiment.series, cells)
        ]
        for j, x in enumerate(xs)
    ]
    return {"header": header, "rows": rows}


def markdown_table(
    experiment: Experiment,
    xs: Sequence[float],
    cells,
    skipped: Optional[report.Skipped] = None,
    degenerate: Optional[Mapping[Tuple[str, float], str]] = None,
) -> str:
    table = result_table(experiment, xs, cells, skipped, degenerate)
    lines = ["| " + " | ".join(table["header"]) + " |", "|" + "---:|" * len(table["header"])]
    lines += ["| " + " | ".join(row) + " |" for row in table["rows"]]
    return "\n".join(lines)


def _degenerate_texts(
    experiment: Experiment, degenerate: Optional[Mapping[Tuple[str, float], str]]
) -> Dict[str, str]:
    """``{"TCPW at 1%": why}`` of the degenerate points, for the report."""
    return {
        f"{series} at {format_number(x)}{experiment.x.unit}": why
        for (series, x), why in (degenerate or {}).items()
    }


def write_markdown(
    path: Path,
    experiment: Experiment,
    xs,
    cells,
    seeds: int,
    quick: bool,
    command: str,
    verdicts=(),
    skipped: Optional[report.Skipped] = None,
    degenerate: Optional[Mapping[Tuple[str, float], str]] = None,
) -> None:
    stem = experiment.id
    rests_on = report.preconditions_section(
        getattr(experiment, "preconditions", ()), _degenerate_texts(experiment, degenerate)
    )
    fewer = ", fewer x values" if experiment.fewer_quick_values else ""
    mode = (
        f"quick (duration {experiment.quick_duration}{fewer})"
        if quick
        else "full (scenario duration)"
    )
    ci = (
        f"mean ± half-width of the {CONFIDENCE:.0%} confidence interval (Student t) over "
        f"{seeds} seeds"
        if seeds > 1
        else "one seed, so no confidence interval"
    )
    series_text = ", ".join(
        f"{s.label} (`{' '.join(f'{k}={v}' for k, v in s.overrides.items())}`)"
        for s in experiment.series
    )
    text = f"""# {experiment.id}: {experiment.title}

Reproduces {experiment.paper}. {experiment.description}

- Scenario: `{experiment.scenario}`; swept parameter `{experiment.x.parameter}`
- Series: {series_text}
- Mode: {mode}
- Metric: {experiment.metric.label} of flow {experiment.metric.flow}: {ci}

{markdown_table(experiment, xs, cells, skipped, degenerate)}

{rests_on}
{report.claims_section(verdicts)}
![{experiment.id}]({stem}.png)

Data: [{stem}.csv]({stem}.csv) (one row per run) ·
figure: [{stem}.png]({stem}.png), [{stem}.svg]({stem}.svg)

Rerun: `{command}`
"""
    write_text_atomic(path, text)


def write_sweep(
    experiment: Experiment,
    specs: Sequence[RunSpec],
    summaries: Mapping[str, Mapping[str, Any]],
    out: Path,
    quick: bool,
    seeds: int,
    command: str,
    skipped: Optional[report.Skipped] = None,
) -> Tuple[List[Path], Dict[str, Any]]:
    """Table, figure, claims of a sweep. ``skipped``: points with no runs and why (their cells
    say so, and a claim left without points is *skipped* with the reason, not a bare n/a)."""
    skipped = skipped or {}
    degenerate, degenerate_runs = degenerate_points(
        getattr(experiment, "preconditions", ()),
        ((spec.series, spec.x, spec.seed, summaries[spec.key]) for spec in specs),
    )
    rows = experiment_rows(experiment, specs, summaries, degenerate_runs)
    xs, cells = aggregate(experiment, rows, [x for _, x in skipped])
    results = SweepResults(
        experiment, xs, cells, quick, per_seed_samples(experiment, rows), degenerate
    )
    verdicts = [judge(c, results) for c in experiment.claims]
    if skipped:
        reasons = "; ".join(sorted(set(skipped.values())))
        verdicts = [skipped_verdict(v, reasons) for v in verdicts]
    csv_path = out / f"{experiment.id}.csv"
    md_path = out / f"{experiment.id}.md"
    report.write_csv(csv_path, rows)
    write_markdown(
        md_path, experiment, xs, cells, seeds, quick, command, verdicts, skipped, degenerate
    )
    paths = [csv_path, md_path] + plot_experiment(experiment, xs, cells, out / experiment.id)
    entry = {
        "table": result_table(experiment, xs, cells, skipped, degenerate),
        "claims": [v.as_dict() for v in verdicts],
        "files": report.default_files(experiment.id),
        **report.rests_on_entry(
            getattr(experiment, "preconditions", ()), _degenerate_texts(experiment, degenerate)
        ),
    }
    return paths, entry


class ComplementExperiment(Experiment):
    """A sweep whose x parameter has a complement: ``complement`` is set to ``total - x`` in
    every run (seed 004 fig. 5: n NewReno vs. 10 - n TCPW ABSE connections)."""

    def __init__(self, *args, complement: str, total: int, **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "complement", complement)
        object.__setattr__(self, "total", total)

    def run_overrides(self, x_value, series: Series, quick, extra=()):
        merged = dict(super().run_overrides(x_value, series, quick, ()))
        merged[self.complement] = str(int(round(self.total - x_value)))
        merged.update(dict(extra))
        return list(merged.items())
