"""Kernel and simulator ACK by ACK: what the two per-ACK traces of one testbed run show.

A testbed run with ``--ack-trace`` leaves the kernel's trace (``acks.csv``: the tcpw* program's
rows, or ``tcp:tcp_probe``'s for the kernel's own controls) and the simulator's
(``simulator/acks.csv``), both in the format of docs/ack-trace.md. This module compares them
for the report (issue 29, item 4): the share of the kernel's ACK rows whose cwnd and ssthresh
agree within one segment with the simulator's state at the same cumulative ACK
(``ack_trace.window_agreement``), the loss reactions on each side (fast recoveries, RTOs) and
when each loss episode ended, where the two first disagreed and what each held there, and a
figure with both windows over each other.

Where a loss episode ends: the simulator's rows hold the state *after* their ACK, the kernel's
the state the previous event left (docs/ack-trace.md), so the ACK that ended an episode is the
simulator's first row back in Open (or Disorder), and the row before the kernel's first such
row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..ack_trace import INFINITE_SEGMENTS, read_ack_trace, window_agreement

if TYPE_CHECKING:
    import pandas as pd

KERNEL_TRACE = "acks.csv"
SIMULATOR_TRACE = Path("simulator") / "acks.csv"

# Rows that start a loss episode, and the states that mean it is over.
_LOSS_EVENTS = ("recovery", "timeout", "timeout_held")
_TIMEOUT_EVENTS = ("timeout", "timeout_held")
_CALM_STATES = ("open", "disorder")


@dataclass(frozen=True)
class LossReactions:
    """One side's loss reactions, read from its trace."""

    recoveries: int  # `recovery` rows: fast retransmits (or CWR)
    timeouts: int  # `timeout` and `timeout_held` rows: RTOs
    episode_starts: Tuple[float, ...]  # seconds since the trace's first row, one per episode
    episode_ends: Tuple[float, ...]  # likewise
    episodes_open_at_end: int  # episodes the trace ends inside


def loss_reactions(frame: "pd.DataFrame", state_after_row: bool) -> LossReactions:
    """Count ``frame``'s loss reactions and find when each loss episode ended: at the ACK that
    brought the sender back to Open or Disorder (``state_after_row``: the row's ``ca_state`` is
    the state after its ACK, as in the simulator's trace; else the state before, as in the
    kernel's)."""
    events = list(frame["event"])
    states = list(frame["ca_state"])
    times = list(frame["time_ns"])
    start = times[0] if times else 0
    starts: List[float] = []
    ends: List[float] = []
    in_episode = False
    for i, (event, state) in enumerate(zip(events, states)):
        if event in _LOSS_EVENTS:
            if not in_episode:
                starts.append((times[i] - start) / 1e9)
            in_episode = True
            continue
        if in_episode and event == "ack" and state in _CALM_STATES:
            # The kernel's first calm row shows what the ACK before it did.
            at = i if state_after_row else max(i - 1, 0)
            ends.append((times[at] - start) / 1e9)
            in_episode = False
    return LossReactions(
        recoveries=sum(1 for e in events if e == "recovery"),
        timeouts=sum(1 for e in events if e in _TIMEOUT_EVENTS),
        episode_starts=tuple(starts),
        episode_ends=tuple(ends),
        episodes_open_at_end=int(in_episode),
    )


# One side's window over time, as the figure draws it: seconds since the trace's first row,
# cwnd and ssthresh in segments (NaN where ssthresh is unset).
Windows = Tuple[List[float], List[float], List[float]]


@dataclass(frozen=True)
class Alignment:
    """The comparison of one run's two traces (one flow)."""

    flow: str
    agreement: Mapping[str, Any]  # ack_trace.window_agreement's result
    kernel: LossReactions
    simulator: LossReactions
    # Both windows, for the figure (``plot_alignment``): kept so it need not read the traces
    # again; not part of ``as_dict``.
    kernel_windows: Windows
    simulator_windows: Windows

    @property
    def cwnd_share(self) -> float:
        return float(self.agreement["cwnd_share"])

    def as_dict(self) -> Dict[str, Any]:
        def side(r: LossReactions) -> Dict[str, Any]:
            return {
                "recoveries": r.recoveries,
                "timeouts": r.timeouts,
                "episode_ends_s": list(r.episode_ends),
                "episodes_open_at_end": r.episodes_open_at_end,
            }

        return {
            "flow": self.flow,
            **dict(self.agreement),
            "kernel": side(self.kernel),
            "simulator": side(self.simulator),
        }


class NoTraces(Exception):
    """The run left no pair of per-ACK traces to compare; the message says which file."""


def _first_flow(frame: "pd.DataFrame", flow: Optional[str]) -> Tuple[str, "pd.DataFrame"]:
    names = list(dict.fromkeys(frame["flow"]))
    if not names:
        raise NoTraces("the trace has no rows")
    name = flow if flow is not None else names[0]
    return name, frame[frame["flow"] == name].reset_index(drop=True)


def read_traces(run_dir: Path, flow: Optional[str] = None):
    """The kernel's and the simulator's rows of ``flow`` (default: the kernel trace's first) in
    a testbed run's directory; ``NoTraces`` naming the missing or empty file."""
    paths = (run_dir / KERNEL_TRACE, run_dir / SIMULATOR_TRACE)
    for path in paths:
        if not path.is_file():
            raise NoTraces(f"{path} is missing (was the run made with --ack-trace?)")
    kernel_all, simulator_all = (read_ack_trace(p) for p in paths)
    try:
        name, kernel = _first_flow(kernel_all, flow)
    except NoTraces as err:
        raise NoTraces(f"{paths[0]}: {err}") from None
    simulator = simulator_all[simulator_all["flow"] == name].reset_index(drop=True)
    if kernel.empty or simulator.empty:
        empty = paths[0] if kernel.empty else paths[1]
        raise NoTraces(f"{empty} has no rows of flow {name!r}")
    return name, kernel, simulator


def align(run_dir: Path, flow: Optional[str] = None) -> Alignment:
    """Compare the two traces of a testbed run (``--ack-trace``) in ``run_dir``."""
    name, kernel, simulator = read_traces(run_dir, flow)
    return Alignment(
        flow=name,
        agreement=window_agreement(kernel, simulator),
        kernel=loss_reactions(kernel, state_after_row=False),
        simulator=loss_reactions(simulator, state_after_row=True),
        kernel_windows=_window_series(kernel),
        simulator_windows=_window_series(simulator),
    )


# --- words and tables --------------------------------------------------------------------------


def _segments(value: Any) -> str:
    if value is None:
        return "?"
    number = float(value)
    return "unset" if math.isinf(number) else f"{number:.0f}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def describe_disagreement(first: Optional[Mapping[str, Any]]) -> str:
    """What both traces hold where they first disagree on cwnd, in words (no interpretation)."""
    if not first:
        return "none"
    row = "" if first["repeat"] == 0 else f" ({_ordinal(int(first['repeat']))} repeat)"
    text = (
        f"ACK {first['ack']}{row}, {first['kernel_time_s']:.3f} s / "
        f"{first['simulator_time_s']:.3f} s: kernel cwnd {first['kernel_cwnd_segments']}, "
        f"ssthresh {_segments(first['kernel_ssthresh_segments'])} ({first['kernel_state']}); "
        f"simulator {first['simulator_cwnd_segments']}, "
        f"{_segments(first['simulator_ssthresh_segments'])} ({first['simulator_state']})"
    )
    k_bwe, s_bwe = first.get("kernel_bwe_bps"), first.get("simulator_bwe_bps")
    if k_bwe is not None and s_bwe is not None:
        text += f"; BWE {k_bwe / 1e6:.3f} / {s_bwe / 1e6:.3f} Mb/s"
    return text


def _ends(r: LossReactions) -> str:
    ends = ", ".join(f"{t:.3f}" for t in r.episode_ends) or "none"
    return ends + (" (+1 open at the end)" if r.episodes_open_at_end else "")


ALIGNMENT_HEADER = (
    "Case",
    "ACK rows compared",
    "cwnd within 1 segment",
    "ssthresh within 1 segment",
    "Fast recoveries (kernel / sim.)",
    "RTOs (kernel / sim.)",
    "Retransmitted segments (kernel / sim.)",
    "Loss episodes ended at, s (kernel / sim.)",
    "Goodput, Mb/s (kernel / sim.)",
    "First cwnd disagreement (kernel / sim.)",
)


@dataclass(frozen=True)
class CaseRow:
    """One run of the table: its label, the comparison and the two summaries' numbers."""

    case: str
    alignment: Alignment
    retransmits: Tuple[float, float]
    goodput_bps: Tuple[float, float]


def alignment_table(rows: Sequence[CaseRow]) -> str:
    """The per-case table of an experiment's runs, as Markdown."""

    def cells(r: CaseRow) -> List[str]:
        a = r.alignment.agreement
        return [
            r.case,
            f"{a['matched']} of {a['kernel_acks']}",
            f"{a['cwnd_share']:.1%}",
            f"{a['ssthresh_share']:.1%}",
            f"{r.alignment.kernel.recoveries} / {r.alignment.simulator.recoveries}",
            f"{r.alignment.kernel.timeouts} / {r.alignment.simulator.timeouts}",
            f"{r.retransmits[0]:.0f} / {r.retransmits[1]:.0f}",
            f"{_ends(r.alignment.kernel)} / {_ends(r.alignment.simulator)}",
            f"{r.goodput_bps[0] / 1e6:.3f} / {r.goodput_bps[1] / 1e6:.3f}",
            describe_disagreement(a.get("first_cwnd_disagreement")),
        ]

    lines = [
        "| " + " | ".join(ALIGNMENT_HEADER) + " |",
        "|" + "---|" * len(ALIGNMENT_HEADER),
    ]
    lines += ["| " + " | ".join(cells(r)) + " |" for r in rows]
    return "\n".join(lines)


# --- the figure --------------------------------------------------------------------------------


def _window_series(frame: "pd.DataFrame") -> Windows:
    """Seconds since the first row, cwnd and ssthresh in segments (NaN for an unset one)."""
    start = int(frame["time_ns"].iloc[0])
    mss = frame["mss"].astype(float)
    times = [(int(t) - start) / 1e9 for t in frame["time_ns"]]
    cwnd = list(frame["cwnd_bytes"].astype(float) / mss)
    ssthresh = [
        s if s < INFINITE_SEGMENTS else math.nan
        for s in frame["ssthresh_bytes"].astype(float) / mss
    ]
    return times, cwnd, ssthresh


def plot_alignment(alignment: Alignment, title: str, out_stem: Path) -> List[Path]:
    """Both windows over each other (``report.plots.plot_window_overlay``): the whole run and a
    zoom on the first loss reaction of either side. Writes ``out_stem``.png and .svg."""
    from ..report.plots import plot_window_overlay

    starts = alignment.kernel.episode_starts[:1] + alignment.simulator.episode_starts[:1]
    return plot_window_overlay(
        {"kernel": alignment.kernel_windows, "simulator": alignment.simulator_windows},
        min(starts) if starts else None,
        title,
        out_stem,
    )
