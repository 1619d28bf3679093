"""What an experiment's verdicts rest on, checked on every run.

A claim of a paper is only worth judging on a run of the set-up the paper describes: a run in
which a flow stalled for good, a UDP load that never reached the bottleneck, or a buffer that
cannot hold a burst describes another scenario. Each experiment lists its ``preconditions``;
every run is checked against each of them, and a point (series, x) with a failing run is
*degenerate*: the results raise ``claims.Degenerate`` when a claim reads it, so the claim reads
*n/a: degenerate* with the reason instead of a verdict, and the report's tables mark the point.

``STANDARD`` holds for every simulated experiment unless it says otherwise: the simulator raised
no self-defeat warning (a ``bdp`` queue of a packet or two, a source losing most of its packets
at its own first hop: ``warnings`` in the run summary, docs/scenarios.md), and no bulk flow ends
its run locked out, without progress for the last quarter or more of its active time (seed 000
fig. 18 before its fix: a retransmission timer in step with the handoff period, so that from
11.8 s on every retransmission met a handoff; such a run measures its own length, not its
protocol). A long stall the flow recovers from is not degenerate: RTO backoff under heavy or
bursty loss is how TCP answers the papers' lossy channels, and it stays in the sample
(``no_long_stall`` checks it where an experiment's claims need it). Experiments add what their
claims need: the bottleneck kept busy where the paper's set-up saturates it, the UDP load
delivered, no queue overflow at links that are not the bottleneck.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

Summary = Mapping[str, Any]
Point = Tuple[str, float]  # (series label, x); x is 0 for kinds without an x axis

# A flow that makes no progress for the last quarter of its active time or more is locked out:
# a run whose end falls inside an ordinary backoff episode (1 + 2 + 4 + 8 s = 15 s of a 60 s run)
# stays below it, a connection shut out for the rest of the run does not.
STALL_FRACTION = 0.25


@dataclass(frozen=True)
class Precondition:
    """``text``: what must hold, as the report says it; ``check``: None when a run satisfies it,
    else why not (a short phrase naming the flow, link or source and the number);
    ``where``: the points it applies to (default: every point)."""

    text: str
    check: Callable[[Summary], Optional[str]]
    where: Optional[Callable[[str, float], bool]] = None

    def applies(self, series: str, x: float) -> bool:
        return self.where is None or bool(self.where(series, x))

    def failure(self, series: str, x: float, summary: Summary) -> Optional[str]:
        return self.check(summary) if self.applies(series, x) else None


def _flows(summary: Summary) -> List[Mapping[str, Any]]:
    return list(summary.get("flows") or [])


def _number(record: Mapping[str, Any], key: str) -> float:
    try:
        return float(record.get(key))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def no_simulator_warning() -> Precondition:
    """The simulator's own self-defeat checks (summary ``warnings``) found nothing."""

    def check(summary: Summary) -> Optional[str]:
        warnings = summary.get("warnings") or []
        if not warnings:
            return None
        first = warnings[0]
        message = first.get("message", str(first)) if isinstance(first, Mapping) else str(first)
        more = f" (and {len(warnings) - 1} more)" if len(warnings) > 1 else ""
        return f"simulator warning: {message}{more}"

    return Precondition("the simulator raises no self-defeat warning", check)


def _stall_check(key: str, fraction: float, what: str) -> Callable[[Summary], Optional[str]]:
    """A check that no flow's ``key`` (a stall in seconds) exceeds ``fraction`` of its active
    time; the failure names the worst flow."""

    def check(summary: Summary) -> Optional[str]:
        worst: Optional[Tuple[float, str, float, float]] = None
        for flow in _flows(summary):
            stall = _number(flow, key)
            active = _number(flow, "active_seconds")
            if math.isnan(stall) or math.isnan(active) or active <= 0:
                continue
            if stall > fraction * active and (worst is None or stall / active > worst[0]):
                worst = (stall / active, str(flow.get("name")), stall, active)
        if worst is None:
            return None
        _, name, stall, active = worst
        return f"flow {name} {what} {stall:.1f} s of its {active:.0f} s"

    return check


def no_locked_out_flow(
    fraction: float = STALL_FRACTION,
    where: Optional[Callable[[str, float], bool]] = None,
    exempt: str = "",
) -> Precondition:
    """No bulk flow's stall still open at the end of its run (``final_stall_seconds``: no
    cumulative ACK progress from some time to the end) exceeds ``fraction`` of its active
    time: the flow is not locked out. ``where``: the points it applies to, ``exempt`` the
    report's words for why the others are left out."""
    text = (
        f"no flow is locked out: none makes no progress for the last {fraction:.0%} or more of "
        "its active time"
    )
    return Precondition(
        text + (f" ({exempt})" if exempt else ""),
        _stall_check("final_stall_seconds", fraction, "made no progress for the last"),
        where=where,
    )


def no_long_stall(fraction: float = STALL_FRACTION) -> Precondition:
    """No bulk flow's longest stall (``longest_stall_seconds``, recovered or not) exceeds
    ``fraction`` of its active time: for claims about runs that must flow steadily."""
    return Precondition(
        f"no flow stalls (no ACK progress) for more than {fraction:.0%} of its active time",
        _stall_check("longest_stall_seconds", fraction, "made no progress for"),
    )


def link_busy(link: str, floor: float, why: str = "") -> Precondition:
    """Link ``link`` carries traffic at least ``floor`` of the time (summary ``utilization``)."""

    def check(summary: Summary) -> Optional[str]:
        for record in summary.get("links") or []:
            if record.get("name") == link:
                used = _number(record, "utilization")
                if math.isnan(used) or used >= floor:
                    return None
                return f"link {link} busy {used:.0%} of the run (needs ≥ {floor:.0%})"
        return f"no link {link} in the run"

    text = f"link {link} busy at least {floor:.0%} of the run" + (f" ({why})" if why else "")
    return Precondition(text, check)


def sources_deliver(fraction: float, why: str = "") -> Precondition:
    """Every CBR source delivers at least ``fraction`` of the packets it sent."""

    def check(summary: Summary) -> Optional[str]:
        for source in summary.get("sources") or []:
            sent = _number(source, "packets_sent")
            received = _number(source, "packets_received")
            if sent > 0 and received < fraction * sent:
                return (
                    f"source {source.get('name')} delivered {received / sent:.0%} of its "
                    f"{sent:.0f} packets (needs ≥ {fraction:.0%})"
                )
        return None

    text = f"every UDP source delivers at least {fraction:.0%} of what it sends" + (
        f" ({why})" if why else ""
    )
    return Precondition(text, check)


def no_overflow_outside(bottlenecks: Iterable[str], fraction: float = 0.001) -> Precondition:
    """Links other than ``bottlenecks`` (and their reverse directions) drop at most ``fraction``
    of the packets offered to them to queue overflow."""
    names = tuple(bottlenecks)

    def check(summary: Summary) -> Optional[str]:
        for record in summary.get("links") or []:
            name = str(record.get("name"))
            if name in names or name.split(".")[0] in names:
                continue
            dropped = _number(record, "drops_overflow")
            offered = _number(record, "packets_sent") + dropped
            if dropped > 0 and dropped > fraction * offered:
                return f"link {name} overflowed: {dropped:.0f} of {offered:.0f} packets dropped"
        return None

    return Precondition(
        f"no queue overflow outside {', '.join(names)} (≤ {fraction:.1%} of a link's packets)",
        check,
    )


# The mean packet loss (percent, each direction) at which a long run of failed retransmissions
# stops being a broken set-up and becomes chance (``lockout_where_channel_cannot_explain_it``).
CHANCE_LOCKOUT_ABOVE = 2.0


def lockout_where_channel_cannot_explain_it(
    mean_loss_percent: Callable[[float], float], threshold: float = CHANCE_LOCKOUT_ABOVE
) -> Precondition:
    """``no_locked_out_flow`` at the x values whose channel loses at most ``threshold`` % of the
    packets on average (``mean_loss_percent(x)``), for experiments that sweep a heavy random or
    bursty loss. A flow still stalled at the end of its run has failed several retransmissions
    in a row while RFC 6298 §5.5 doubled its timer (Karn keeps the backed-off value until a new
    RTT sample): at 2 % loss each way a retransmission's round trip fails with a chance of about
    4 %, so the 4-5 failures of a 25 % stall (1 + 2 + 4 + 8 + 16 s of a 100 s run) have a chance
    of a few in a million per timeout, and such a stall is a broken set-up; at 8 % (15 % a round
    trip) or in a two-state channel's bad state at 20-30 % it is what the channel does to TCP, the
    throughput the claims are about, and stays in the sample."""
    return no_locked_out_flow(
        where=lambda series, x: mean_loss_percent(x) <= threshold,
        exempt=f"where the channel loses at most {threshold:g} % of the packets on average; "
        "above, a run of failed retransmissions is the channel's doing, not a broken set-up",
    )


STANDARD: Tuple[Precondition, ...] = (no_simulator_warning(), no_locked_out_flow())


def failures(
    preconditions: Sequence[Precondition], series: str, x: float, summary: Summary
) -> List[str]:
    """Why the run of ``series`` at ``x`` fails its preconditions (empty: it holds them)."""
    out = []
    for p in preconditions:
        why = p.failure(series, x, summary)
        if why:
            out.append(why)
    return out


def degenerate_points(
    preconditions: Sequence[Precondition],
    runs: Iterable[Tuple[str, float, int, Summary]],
) -> Tuple[Dict[Point, str], Dict[Tuple[str, float, int], str]]:
    """Check every run ``(series, x, seed, summary)``; return the degenerate points with the
    reason (which seeds failed, and the first one's why) and each failing run's reasons."""
    per_run: Dict[Tuple[str, float, int], str] = {}
    per_point: Dict[Point, List[Tuple[int, str]]] = {}
    for series, x, seed, summary in runs:
        why = failures(preconditions, series, x, summary)
        if why:
            per_run[(series, x, seed)] = "; ".join(why)
            per_point.setdefault((series, x), []).append((seed, why[0]))
    points = {}
    for point, failed in per_point.items():
        seeds = ", ".join(str(s) for s, _ in failed)
        points[point] = f"seed {seeds}: {failed[0][1]}"
    return points, per_run


def degenerate_series(
    preconditions: Sequence[Precondition], specs: Iterable[Any], summaries: Mapping[str, Summary]
) -> Tuple[Dict[str, str], Dict[Tuple[str, float, int], str]]:
    """``degenerate_points`` of the runs of a kind without an x axis (table, window, trace:
    every run at x = 0), keyed by series: ``({series: why}, {(series, 0.0, seed): why})``."""
    points, per_run = degenerate_points(
        preconditions, ((spec.series, spec.x, spec.seed, summaries[spec.key]) for spec in specs)
    )
    return {series: why for (series, _), why in points.items()}, per_run
