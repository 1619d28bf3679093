"""Time-trace analysis: the bandwidth available to a TCP flow, step by step, and how far the
flow's bandwidth estimate (BWE) is from it (seed 000 §4.1, fig. 3).

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

Everything here is pure (plain sequences in, plain records out) so that it can be tested on
synthetic data.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from .claims import ClaimUnavailable, Measurement
from .stats import MeanCI, mean_ci

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


def worst_step_error(series: str) -> Callable[[TraceResults], Measurement]:
    """Claim measure: the largest per-step relative error (percent, mean over seeds) of
    ``series`` among the steps that have samples after settling."""

    def measure(results: TraceResults) -> Measurement:
        if series not in results.steps:
            raise ClaimUnavailable(f"no {series} series in the results")
        judged = [s for s in results.steps[series] if s.relative_percent.n > 0]
        if not judged:
            raise ClaimUnavailable("no step has BWE samples after settling")
        worst = max(judged, key=lambda s: s.relative_percent.mean)
        skipped = len(results.steps[series]) - len(judged)
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
