"""The registry of paper experiments that ``westwood reproduce`` runs, kept as data.

An experiment sweeps one scenario parameter (the x axis) for several series (each a set of
overrides, e.g. a congestion control) over several seeds, and reports one metric. Adding an
experiment (a Westwood variant, another figure) means adding an ``Experiment`` to
``EXPERIMENTS``; the runner, the cache and the reports need no change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import UsageError


def format_number(value: float) -> str:
    """0.5 -> "0.5", 2.0 -> "2", no exponent for the values used as overrides."""
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


@dataclass(frozen=True)
class Axis:
    """The swept scenario parameter."""

    parameter: str  # scenario parameter overridden, e.g. "loss"
    values: Tuple[float, ...]  # full run
    label: str  # axis label without unit, e.g. "Packet error rate"
    unit: str = ""  # appended to each value in the override ("1%") and shown in the label
    quick_values: Optional[Tuple[float, ...]] = None  # --quick; default: every other value

    def values_for(self, quick: bool) -> Tuple[float, ...]:
        if not quick:
            return self.values
        if self.quick_values is not None:
            return self.quick_values
        picked = self.values[::2]
        if self.values and picked[-1] != self.values[-1]:
            picked += (self.values[-1],)
        return picked

    def override(self, value: float) -> Tuple[str, str]:
        return self.parameter, f"{format_number(value)}{self.unit}"

    @property
    def axis_label(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


@dataclass(frozen=True)
class Series:
    """One line of the plot: a label and the overrides that make it."""

    label: str
    overrides: Mapping[str, str]


@dataclass(frozen=True)
class Metric:
    """A number taken from a run's summary: ``flows[flow][field] / divisor``."""

    name: str  # column name, e.g. "goodput_mbps"
    label: str  # axis label, e.g. "Throughput (Mbps)"
    field: str  # FlowSummary field, e.g. "goodput_bps"
    flow: int = 0
    divisor: float = 1.0  # e.g. 1e6 for bits/s -> Mbps

    def value(self, summary: Mapping[str, Any]) -> float:
        return float(summary["flows"][self.flow][self.field]) / self.divisor


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

    def run_overrides(
        self, x_value: float, series: Series, quick: bool, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        """Overrides of one run: fixed, then the series', the x value, quick duration, extra."""
        merged: Dict[str, str] = {}
        merged.update({str(k): str(v) for k, v in self.overrides.items()})
        merged.update({str(k): str(v) for k, v in series.overrides.items()})
        key, value = self.x.override(x_value)
        merged[key] = value
        if quick:
            merged[self.duration_parameter] = self.quick_duration
        merged.update(dict(extra))
        return list(merged.items())


# Per-flow fields recorded in every experiment's CSV besides the metric (flow = metric.flow):
# (column, FlowSummary field, divisor).
FLOW_FIELDS: Tuple[Tuple[str, str, float], ...] = (
    ("goodput_mbps", "goodput_bps", 1e6),
    ("throughput_mbps", "throughput_bps", 1e6),
    ("retransmits", "retransmits", 1.0),
    ("timeouts", "timeouts", 1.0),
    ("fast_retransmits", "fast_retransmits", 1.0),
)

GOODPUT_MBPS = Metric(
    name="goodput_mbps", label="Throughput (Mbps)", field="goodput_bps", flow=0, divisor=1e6
)

RENO_FAMILY = (
    Series("Reno", {"cc": "reno"}),
    Series("NewReno", {"cc": "newreno"}),
)

EXPERIMENTS: Dict[str, Experiment] = {
    e.id: e
    for e in [
        Experiment(
            id="fig9",
            title="Throughput vs. wireless packet error rate",
            paper="seed 000 §5.1, fig. 9",
            scenario="wireless",
            x=Axis(
                parameter="loss",
                values=(0, 0.5, 1, 1.5, 2, 3, 4, 5),
                label="Packet error rate",
                unit="%",
                quick_values=(0, 1, 3, 5),
            ),
            series=RENO_FAMILY,
            metric=GOODPUT_MBPS,
            description="Bulk transfer over a wired path with a lossy wireless last hop; "
            "goodput of the single flow as the wireless packet error rate grows.",
        ),
    ]
}


def get(ids: Sequence[str]) -> List[Experiment]:
    """The experiments named (all of them, in registry order, when ``ids`` is empty)."""
    if not ids:
        return list(EXPERIMENTS.values())
    unknown = [i for i in ids if i not in EXPERIMENTS]
    if unknown:
        known = ", ".join(EXPERIMENTS)
        raise UsageError(f"unknown experiment {', '.join(unknown)} (known: {known})")
    seen: List[Experiment] = []
    for i in ids:
        if EXPERIMENTS[i] not in seen:
            seen.append(EXPERIMENTS[i])
    return seen
