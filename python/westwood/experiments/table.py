"""Tables of fixed configurations: a ``TableExperiment`` (kind ``table``) runs each row (a set of
overrides) for every seed and reports several metrics per row (e.g. seed 000 §4.3: mean goodput
per TCPW and per Reno flow with 20 TCPW, 20 Reno, or 10 + 10 flows; the Snoop and BA-TCP points
of §5.1). Claims are judged on ``TableResults``: the mean over seeds of a metric in a row.
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
from ..stats import MeanCI, mean_ci
from .base import Metric, Series, merge_overrides, quick_duration_override
from .preconditions import STANDARD, Precondition, degenerate_series


@dataclass(frozen=True)
class TableResults:
    experiment: "TableExperiment"
    cells: Mapping[str, Mapping[str, MeanCI]]  # row label -> metric name -> mean over seeds
    # row label -> metric name -> {seed: value}
    samples: Mapping[str, Mapping[str, Mapping[int, float]]] = field(default_factory=dict)
    degenerate: Mapping[str, str] = field(default_factory=dict)  # row label -> why

    def _check(self, row: str, metric: str) -> None:
        if row not in self.cells:
            raise ClaimUnavailable(f"no row {row!r}")
        if metric not in self.cells[row]:
            raise ClaimUnavailable(f"no metric {metric!r}")
        if row in self.degenerate:
            raise Degenerate(f"{row}: {self.degenerate[row]}")

    def mean(self, row: str, metric: str) -> float:
        self._check(row, metric)
        cell = self.cells[row][metric]
        if cell.n == 0 or math.isnan(cell.mean):
            raise ClaimUnavailable(f"{row}: no value of {metric}")
        return cell.mean

    def per_seed(self, row: str, metric: str) -> Dict[int, float]:
        self._check(row, metric)
        values = {
            s: v for s, v in self.samples.get(row, {}).get(metric, {}).items() if not math.isnan(v)
        }
        if not values:
            raise ClaimUnavailable(f"{row}: no value of {metric}")
        return values


def cell_ratios(row_a: str, metric_a: str, row_b: str, metric_b: Optional[str] = None):
    """Claim measure for a comparison (``claims.compare``): ``metric_a`` in ``row_a`` over
    ``metric_b`` (default the same) in ``row_b``, seed by seed (rows may be equal, e.g. TCPW's
    over Reno's mean goodput in one mix)."""
    metric_b = metric_b or metric_a

    def measure(r: TableResults) -> Measurement:
        ratios, note = paired_ratios(r.per_seed(row_a, metric_a), r.per_seed(row_b, metric_b))
        if not ratios:
            raise ClaimUnavailable(f"{row_b}: {metric_b} is 0")
        a, b = r.mean(row_a, metric_a), r.mean(row_b, metric_b)
        return mean_of_ratios(
            ratios, f"{row_a} {metric_a} {a:.4f} / {row_b} {metric_b} {b:.4f}", note
        )

    return measure


@dataclass(frozen=True)
class TableExperiment:
    id: str
    title: str
    paper: str
    scenario: str
    rows: Tuple[Series, ...]  # one configuration per row: a label and its overrides
    metrics: Tuple[Metric, ...]
    overrides: Mapping[str, str] = field(default_factory=dict)
    quick_duration: Optional[str] = None
    duration_parameter: str = "duration"
    description: str = ""
    claims: Tuple[Claim, ...] = ()  # judged on a ``TableResults``
    seeds: int = 5
    headline: bool = False
    preconditions: Tuple[Precondition, ...] = STANDARD  # preconditions.py

    kind: ClassVar[str] = "table"
    record: ClassVar[bool] = False
    fewer_quick_values: ClassVar[bool] = False

    @property
    def series(self) -> Tuple[Series, ...]:  # what the runner labels runs with
        return self.rows

    def points(self, quick: bool) -> List[Tuple[float, Series]]:
        return [(0.0, s) for s in self.rows]

    def run_overrides(
        self, x_value: float, series: Series, quick: bool, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        return merge_overrides(
            self.overrides.items(),
            series.overrides.items(),
            quick_duration_override(quick, self.duration_parameter, self.quick_duration),
            extra,
        )

    def write_report(self, specs, summaries, out: Path, quick: bool, seeds: int, command: str):
        from ..claims import judge
        from ..files import write_text_atomic
        from ..report.html import (
            DEGENERATE_MARK,
            claims_section,
            preconditions_section,
            rests_on_entry,
            write_csv,
        )

        degenerate, failing_runs = degenerate_series(self.preconditions, specs, summaries)
        values: Dict[str, Dict[str, Dict[int, float]]] = {
            r.label: {m.name: {} for m in self.metrics} for r in self.rows
        }
        csv_rows: List[Dict[str, Any]] = []
        for spec in specs:
            summary = summaries[spec.key]
            row: Dict[str, Any] = {"experiment": self.id, "row": spec.series, "seed": spec.seed}
            for m in self.metrics:
                v = m.value(summary)
                values[spec.series][m.name][spec.seed] = v
                row[m.name] = v
            row["sim_seconds"] = summary.get("sim_seconds")
            row["degenerate"] = failing_runs.get((spec.series, 0.0, spec.seed), "")
            row["overrides"] = " ".join(f"{k}={v}" for k, v in spec.overrides)
            csv_rows.append(row)
        cells = {
            label: {name: mean_ci(list(vs.values())) for name, vs in by_metric.items()}
            for label, by_metric in values.items()
        }
        results = TableResults(self, cells, values, degenerate)
        verdicts = [judge(c, results) for c in self.claims]
        header = ["Configuration"] + [m.label for m in self.metrics]
        rows = [
            [r.label + (f" {DEGENERATE_MARK}" if r.label in degenerate else "")]
            + [_fmt(cells[r.label][m.name]) for m in self.metrics]
            for r in self.rows
        ]
        table = {"header": header, "rows": rows}
        csv_path = out / f"{self.id}.csv"
        write_csv(csv_path, csv_rows)
        md = "\n".join(
            ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
            + ["| " + " | ".join(r) + " |" for r in rows]
        )
        configs = "\n".join(
            f"  - {r.label}: `{' '.join(f'{k}={v}' for k, v in r.overrides.items())}`"
            for r in self.rows
        )
        mode = (
            f"quick (duration {self.quick_duration})"
            if quick and self.quick_duration
            else ("quick (scenario duration)" if quick else "full (scenario duration)")
        )
        ci = f"mean ± 95% CI (Student t) over {seeds} seeds" if seeds > 1 else "one seed"
        text = f"""# {self.id}: {self.title}

Reproduces {self.paper}. {self.description}

- Scenario: `{self.scenario}`; mode: {mode}; {ci}
- Configurations:
{configs}

{md}

{preconditions_section(self.preconditions, degenerate)}
{claims_section(verdicts)}
Data: [{self.id}.csv]({self.id}.csv) (one row per run)

Rerun: `{command}`
"""
        md_path = out / f"{self.id}.md"
        write_text_atomic(md_path, text)
        entry = {
            "table": table,
            "claims": [v.as_dict() for v in verdicts],
            "files": [("table", f"{self.id}.md"), ("csv", f"{self.id}.csv")],
            **rests_on_entry(self.preconditions, degenerate),
        }
        return [csv_path, md_path], entry


def _fmt(c: MeanCI) -> str:
    if c.n == 0 or math.isnan(c.mean):
        return "–"
    if math.isnan(c.half_width):
        return f"{c.mean:.4f}"
    return f"{c.mean:.4f} ± {c.half_width:.4f}"
