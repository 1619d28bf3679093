"""The registry of paper experiments that ``westwood reproduce`` runs, kept as data.

Two kinds of experiment:

* ``Experiment`` (kind ``sweep``) sweeps one scenario parameter (the x axis) for several series
  (each a set of overrides, e.g. a congestion control) over several seeds, and reports one
  metric: a figure such as seed 000's fig. 9 (throughput vs. packet error rate).
* ``TraceExperiment`` (kind ``trace``) runs a scenario once per seed with its time series
  recorded and compares a flow's bandwidth estimate with the bandwidth available to it over
  time: a figure such as seed 000's fig. 3 (BWE under UDP ON/OFF traffic).

Each carries the paper's ``claims`` (see ``claims.py``) judged on its results. Adding an
experiment (a Westwood variant, another figure) means adding one to ``EXPERIMENTS``; the runner,
the cache and the reports need no change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import (
    Any,
    Callable,
    ClassVar,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import traces, which_tcpw
from .claims import Claim, ClaimUnavailable, Measurement, at_least, at_most, between
from .errors import UsageError
from .stats import MeanCI


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

    kind: ClassVar[str] = "sweep"
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


# --- sweep results, as claims see them ---------------------------------------------------------


@dataclass(frozen=True)
class SweepResults:
    """What claims of a sweep experiment are judged on: ``cells[series][x]``, mean and CI of the
    metric over seeds, as ``report.aggregate`` computes them."""

    experiment: "Experiment"
    xs: Sequence[float]
    cells: Sequence[Sequence[MeanCI]]

    def mean(self, series: str, x: float) -> float:
        labels = [s.label for s in self.experiment.series]
        if series not in labels:
            raise ClaimUnavailable(f"no {series} series")
        if x not in self.xs:
            raise ClaimUnavailable(
                f"{self.experiment.x.parameter} = {format_number(x)}{self.experiment.x.unit} "
                "was not run"
            )
        cell = self.cells[labels.index(series)][list(self.xs).index(x)]
        if cell.n == 0:
            raise ClaimUnavailable(f"no result for {series} at {format_number(x)}")
        return cell.mean

    def x_text(self, x: float) -> str:
        return f"{format_number(x)}{self.experiment.x.unit}"


def ratio_at(x: float, numerator: str, denominator: str):
    """Claim measure: mean metric of ``numerator`` over ``denominator`` at ``x``."""

    def measure(r: SweepResults) -> Measurement:
        a, b = r.mean(numerator, x), r.mean(denominator, x)
        if b <= 0:
            raise ClaimUnavailable(f"{denominator} is 0 at {r.x_text(x)}")
        return Measurement(a / b, f"{numerator} {a:.3f} / {denominator} {b:.3f}")

    return measure


def x_of_largest_ratio(numerator: str, denominator: str):
    """Claim measure: the x value where ``numerator / denominator`` is largest."""

    def measure(r: SweepResults) -> Measurement:
        ratios = []
        for x in r.xs:
            b = r.mean(denominator, x)
            if b > 0:
                ratios.append((r.mean(numerator, x) / b, x))
        if not ratios:
            raise ClaimUnavailable(f"{denominator} is 0 everywhere")
        best, at = max(ratios)
        others = ", ".join(f"{r.x_text(x)}: {q:.2f}" for q, x in ratios)
        return Measurement(at, f"largest {numerator}/{denominator} {best:.2f}; ratios {others}")

    return measure


def spread_at(x: float):
    """Claim measure: (largest - smallest) / largest mean metric over all series at ``x``, %."""

    def measure(r: SweepResults) -> Measurement:
        values = [(r.mean(s.label, x), s.label) for s in r.experiment.series]
        hi, lo = max(values), min(values)
        if hi[0] <= 0:
            raise ClaimUnavailable(f"every series is 0 at {r.x_text(x)}")
        return Measurement(
            100 * (hi[0] - lo[0]) / hi[0],
            f"{lo[1]} {lo[0]:.3f} to {hi[1]} {hi[0]:.3f}",
        )

    return measure


# --- time-trace experiments --------------------------------------------------------------------


@dataclass(frozen=True)
class TraceExperiment:
    """A time-trace figure: ``flow``'s bandwidth estimate against the bandwidth available to it
    (bottleneck rate minus the active CBR sources, see ``traces.py``), one run per series and
    seed, the time series recorded. Reports the per-step error of BWE."""

    id: str
    title: str
    paper: str
    scenario: str
    series: Tuple[Series, ...]
    flow: str  # the TCP flow whose BWE is traced
    bottleneck: Optional[str] = None  # link name; None: the slowest link of the run
    settle_seconds: float = traces.DEFAULT_SETTLE_SECONDS
    overrides: Mapping[str, str] = field(default_factory=dict)
    quick_duration: Optional[str] = None  # None: the scenario's duration in quick mode too
    duration_parameter: str = "duration"
    description: str = ""
    claims: Tuple[Claim, ...] = ()  # judged on a ``traces.TraceResults``
    seeds: int = 1  # seeds in a full run; --seeds overrides
    headline: bool = False  # part of `reproduce --quick` without IDs (the README's main job)

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


AnyExperiment = Union[Experiment, TraceExperiment]

RENO_FAMILY = (
    Series("Reno", {"cc": "reno"}),
    Series("NewReno", {"cc": "newreno"}),
)
WESTWOOD_FAMILY = (
    Series("TCPW", {"cc": "westwood"}),
    Series("TCPW TR", {"cc": "westwood-tr"}),
    Series("TCPW ABSE", {"cc": "westwood-abse"}),
    Series("Westwood+", {"cc": "westwood-plus"}),
)


def tcpw_variant_series() -> Tuple[Series, ...]:
    """The TCPWs other than the paper's as series of a one-flow sweep (which_tcpw.py): fig. 9
    here and fig. 10 in seed000 compare them with TCPW."""
    return tuple(Series(v.label, dict(v.single)) for v in which_tcpw.OTHERS)


def _fig9_ratio_claim(label: str) -> Claim:
    return Claim(
        which_tcpw.fig9_claim(label),
        ratio_at(1, label, "Reno"),
        target=at_least(3),
        partly=at_least(1.5),
        paper='4.94 ("TCPW gains up to 394% over Reno", at 1%)',
    )


EXPERIMENTS: Dict[str, AnyExperiment] = {
    e.id: e
    for e in [
        TraceExperiment(
            id="fig3",
            title="Bandwidth estimate under UDP ON/OFF traffic",
            paper="seed 000 §4.1, fig. 3",
            scenario="udp_onoff",
            series=WESTWOOD_FAMILY,
            flow="tcp",
            bottleneck="bottleneck",
            headline=True,
            description="One TCP flow shares a 5 Mbps / 30 ms bottleneck with two 1 Mbps UDP "
            "ON/OFF sources; the flow's bandwidth estimate (BWE) is compared with the bandwidth "
            "the UDP sources leave, step by step. The scenario has no random component, so "
            "one seed is the default (every seed gives the same trace).",
            claims=(
                Claim(
                    "BWE within 15% of the available bandwidth in every step (after settling)",
                    traces.worst_step_error("TCPW"),
                    target=at_most(15),
                    partly=at_most(30),
                    paper="fig. 3: BWE follows the 5, 4, 3, 4, 3, 4, 5 Mb/s steps",
                    unit="%",
                    digits=1,
                ),
            ),
        ),
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
                # Runs are cheap (~0.05 s of CPU for 60 s simulated): the full axis in quick too.
                quick_values=(0, 0.5, 1, 1.5, 2, 3, 4, 5),
            ),
            series=RENO_FAMILY + WESTWOOD_FAMILY + tcpw_variant_series(),
            metric=GOODPUT_MBPS,
            seeds=10,
            headline=True,
            description="Bulk transfer over a wired path with a lossy wireless last hop; "
            "goodput of the single flow as the wireless packet error rate grows. Beside the "
            "paper's TCPW: the same with interval-weighted samples and the authors' ns-2 agents "
            "(docs/westwood.md).",
            claims=(
                _fig9_ratio_claim("TCPW"),
                Claim(
                    "TCPW's largest gain over Reno (throughput ratio) lies between 0.5% and 2% "
                    "loss",
                    x_of_largest_ratio("TCPW", "Reno"),
                    target=between(0.5, 2),
                    partly=between(0, 3),
                    paper='"This gain occurs at a realistic packet error probability of 1%"',
                    unit="%",
                    digits=1,
                ),
                Claim(
                    "At 0% loss all protocols within 10% of each other",
                    spread_at(0),
                    target=at_most(10),
                    partly=at_most(20),
                    paper="fig. 9: the curves meet at 0% loss",
                    unit="%",
                    digits=1,
                ),
            )
            + tuple(_fig9_ratio_claim(v.label) for v in which_tcpw.OTHERS),
        ),
    ]
}


# The paper reproductions live in westwood/papers/, one module per seed paper; they register here.
from . import papers  # noqa: E402  (needs the classes above)

for _experiment in papers.experiments():
    if _experiment.id in EXPERIMENTS:
        raise RuntimeError(f"experiment id {_experiment.id!r} registered twice")
    EXPERIMENTS[_experiment.id] = _experiment


def get(ids: Sequence[str], quick: bool = False) -> List[AnyExperiment]:
    """The experiments named; without ``ids``, all of them in registry order, or with ``quick``
    only the headline ones (the README's main job must stay short)."""
    if not ids:
        return [e for e in EXPERIMENTS.values() if e.headline or not quick]
    unknown = [i for i in ids if i not in EXPERIMENTS]
    if unknown:
        known = ", ".join(EXPERIMENTS)
        raise UsageError(f"unknown experiment {', '.join(unknown)} (known: {known})")
    seen: List[AnyExperiment] = []
    for i in ids:
        if EXPERIMENTS[i] not in seen:
            seen.append(EXPERIMENTS[i])
    return seen
