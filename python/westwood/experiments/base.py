"""What every experiment kind shares: the protocol ``reproduce`` drives them through, the
pieces they are made of (the swept axis, the series, the metric) and how one run's overrides
are layered.

An experiment kind is a frozen dataclass with the attributes and methods of ``ExperimentKind``;
``reproduce`` plans its runs with ``points`` and ``run_overrides``, executes them, and hands
the summaries to its ``write_report``. The kinds: ``sweep.py`` (a parameter swept over series,
one metric), ``trace.py`` (BWE against the available bandwidth over time), ``window.py`` (time
series of cwnd, ssthresh, sequence numbers), ``table.py`` (fixed configurations as rows) and
``testbed.py`` (a sweep on real Linux TCP). Paper modules (``westwood.papers``) define the
experiments; ``registry.py`` collects them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    ClassVar,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
)

if TYPE_CHECKING:
    from ..claims import Claim
    from ..runs.store import RunSpec


class ExperimentKind(Protocol):
    """What ``reproduce`` needs of an experiment, whatever its kind."""

    id: str
    title: str
    paper: str
    scenario: str
    description: str
    claims: Tuple["Claim", ...]
    seeds: int  # seeds per point in a full run
    headline: bool  # part of `reproduce --quick` without IDs
    kind: ClassVar[str]  # "sweep", "trace", "window", "table", "testbed"
    record: ClassVar[bool]  # whether its runs keep their time series

    def points(self, quick: bool) -> List[Tuple[float, "Series"]]:
        """(x, series) of every point it runs (per seed)."""
        ...

    def run_overrides(
        self, x_value: float, series: "Series", quick: bool, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        """The overrides of one run."""
        ...

    def write_report(
        self,
        specs: Sequence["RunSpec"],
        summaries: Mapping[str, Mapping[str, Any]],
        out: Path,
        quick: bool,
        seeds: int,
        command: str,
    ) -> Tuple[List[Path], Dict[str, Any]]:
        """Its files (tables, figures) in ``out`` and its entry of the index."""
        ...


def format_number(value: float) -> str:
    """0.5 -> "0.5", 2.0 -> "2", no exponent for the values used as overrides."""
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def merge_overrides(*layers: Iterable[Tuple[Any, Any]]) -> List[Tuple[str, str]]:
    """One run's overrides from layers of ``(key, value)`` pairs, a later layer winning over an
    earlier one (every experiment kind: fixed, then series, then x value, quick duration, the
    user's ``--set``). Keys keep the position of their first layer."""
    merged: Dict[str, str] = {}
    for layer in layers:
        merged.update({str(k): str(v) for k, v in layer})
    return list(merged.items())


def quick_duration_override(
    quick: bool, parameter: str, duration: Optional[str]
) -> List[Tuple[str, str]]:
    """The duration override of a quick run (none when not quick or no quick duration)."""
    return [(parameter, duration)] if quick and duration is not None else []


@dataclass(frozen=True)
class Axis:
    """The swept scenario parameter."""

    parameter: str  # scenario parameter overridden, e.g. "loss"
    values: Tuple[float, ...]  # full run
    label: str  # axis label without unit, e.g. "Packet error rate"
    unit: str = ""  # appended to each value in the override ("1%") and shown in the label
    quick_values: Optional[Tuple[float, ...]] = None  # --quick; default: every other value
    # Further overrides that one x value implies (e.g. x = number of Reno flows in a mix sets
    # the cc and count of two flow groups); None: the x value sets ``parameter`` only.
    expand: Optional[Callable[[float], Mapping[str, str]]] = None

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

    def overrides(self, value: float) -> List[Tuple[str, str]]:
        """Every override of the x value: ``override`` then what ``expand`` adds."""
        pairs = [self.override(value)]
        if self.expand is not None:
            pairs += [(str(k), str(v)) for k, v in self.expand(value).items()]
        return pairs

    @property
    def axis_label(self) -> str:
        return f"{self.label} ({self.unit})" if self.unit else self.label


@dataclass(frozen=True)
class Series:
    """One line of the plot: a label and the overrides that make it."""

    label: str
    overrides: Mapping[str, str]
    # The series' own metric (default: the experiment's), e.g. the mean goodput of TCPW flows in
    # one series and of Reno flows in another, from the same runs of a mix.
    metric: Optional["Metric"] = None
    # Line style of the plot ("" solid, "dashed"), e.g. the simulator's line beside a testbed's.
    style: str = ""
    # The label of the series this one pairs with, whose colour and marker it takes (the
    # simulator's line beside the testbed's; the same protocol at another delay); None: a colour
    # of its own.
    twin_of: Optional[str] = None


@dataclass(frozen=True)
class Panel:
    """One panel of a figure with many lines: a title and the labels of the series it draws
    (a series may be in several, e.g. the reference every panel is read against)."""

    title: str
    series: Tuple[str, ...]


@dataclass(frozen=True)
class Metric:
    """A number taken from a run's summary: ``flows[flow][field] / divisor``, or, when
    ``extract`` is given, ``extract(summary) / divisor`` (e.g. the mean goodput of one cc in a
    mix, Jain's index over all flows: see ``per_cc_metric`` and ``fairness_metric``)."""

    name: str  # column name, e.g. "goodput_mbps"
    label: str  # axis label, e.g. "Throughput (Mbps)"
    field: str = "goodput_bps"  # FlowSummary field, e.g. "goodput_bps"
    flow: int = 0
    divisor: float = 1.0  # e.g. 1e6 for bits/s -> Mbps
    extract: Optional[Callable[[Mapping[str, Any]], float]] = None

    def value(self, summary: Mapping[str, Any]) -> float:
        if self.extract is not None:
            return float(self.extract(summary)) / self.divisor
        return float(summary["flows"][self.flow][self.field]) / self.divisor


def per_cc_metric(
    name: str, label: str, cc: str, key: str = "mean_goodput_bps", divisor: float = 1e6
):
    """The summary's ``per_cc[cc][key]`` (friendliness: mean goodput per protocol in a mix);
    NaN when no flow of that cc ran (e.g. 0 Reno flows in a Reno/TCPW mix)."""

    def extract(summary: Mapping[str, Any]) -> float:
        entry = summary.get("per_cc", {}).get(cc)
        return float(entry[key]) if entry else math.nan

    return Metric(name=name, label=label, divisor=divisor, extract=extract)


def fairness_metric(name: str = "fairness_index", label: str = "Jain's fairness index"):
    """Jain's index over all TCP flows of the run (the summary's ``fairness.index``)."""
    return Metric(name=name, label=label, extract=lambda s: s["fairness"]["index"])


def group_goodputs(summary: Mapping[str, Any], prefix: str) -> List[float]:
    """The goodputs of the flows named ``prefix`` or ``prefix.N`` (one flow table)."""
    return [
        float(f["goodput_bps"])
        for f in summary["flows"]
        if f["name"] == prefix or f["name"].startswith(prefix + ".")
    ]


def group_fairness_metric(
    prefix: str, name: str = "fairness_index", label: str = "Jain's fairness index"
) -> Metric:
    """Jain's index over the goodputs of the flows named ``prefix`` or ``prefix.N`` (one flow
    table: the connections measured together, without the cross traffic beside them)."""
    from .. import _core

    def extract(summary: Mapping[str, Any]) -> float:
        values = group_goodputs(summary, prefix)
        return _core.jain_index(values) if len(values) > 1 else math.nan

    return Metric(name=name, label=label, extract=extract)


def group_goodput_metric(prefix: str, name: str, label: str, divisor: float = 1e6) -> Metric:
    """Mean goodput of the flows named ``prefix`` or ``prefix.N`` (one flow table)."""

    def extract(summary: Mapping[str, Any]) -> float:
        values = group_goodputs(summary, prefix)
        return math.fsum(values) / len(values) if values else math.nan

    return Metric(name=name, label=label, divisor=divisor, extract=extract)


def all_flows_goodput_metric(
    name: str = "mean_goodput_mbps", label: str = "Goodput per connection (Mbps)"
) -> Metric:
    """Mean goodput over every bulk flow of the run (the papers' "average goodput")."""

    def extract(summary: Mapping[str, Any]) -> float:
        values = [float(f["goodput_bps"]) for f in summary["flows"]]
        return math.fsum(values) / len(values) if values else math.nan

    return Metric(name=name, label=label, divisor=1e6, extract=extract)


def arrivals_goodput_metric() -> Metric:
    """Seed 002 fig. 17: the mean over connections of each one's goodput (arrivals table 0)."""
    return Metric(
        name="mean_goodput_mbps",
        label="Average throughput per connection (Mbps)",
        divisor=1e6,
        extract=lambda s: s["arrivals"][0]["mean_goodput_bps"],
    )


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
