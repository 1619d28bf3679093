"""``westwood replay``: a per-ACK trace fed back through the Rust estimators (docs/replay.md).

>>> import westwood.replay
>>> result = westwood.replay("run/acks.csv", cc="westwood,westwood-plus")
>>> result.summary()            # one row per (flow, cc): means, largest differences, ssthresh
>>> result.rows                 # one row per trace row: trace BWE, replayed BWE per cc, delivery

The trace is any file in the format of docs/ack-trace.md: the simulator's ``acks.csv``
(``westwood run --ack-trace``), the kernel's (``westwood linux watch --acks``) or the testbed's.
Each flow is replayed through each named congestion control, resolved as a scenario's ``[tcp]``
table resolves it (``overrides`` take the same keys and values as ``--set``), with the trace's
``mss`` as the segment size. The work is done by the Rust core (``westwood._core.replay``); the
rows stream through it, so a long trace costs memory only for what is returned: the rows
(``rows=True``, the default) and, with ``out``, a plot thinned to a few thousand points per flow.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Sequence, Union

from . import _core
from .errors import UsageError, WriteError
from .files import PathLike, failure_reason, staged_directory, write_json_atomic
from .overrides import OverridesLike, normalize

if TYPE_CHECKING:
    import pandas as pd

CSV_FILE = "replay.csv"
JSON_FILE = "replay.json"
PLOT_STEM = "replay"
# The plot keeps between PLOT_POINTS and 2 * PLOT_POINTS evenly spread rows per flow (the CSV
# has every row).
PLOT_POINTS = 2000
# Flows drawn in the figure (one panel each); the others are only in the CSV and the summary.
MAX_PLOTTED_FLOWS = 6

TraceError = _core.TraceError

SUMMARY_COLUMNS = (
    "flow",
    "trace_cc",
    "origin",
    "cc",
    "rows",
    "duration_s",
    "mean_trace_bwe_bps",
    "mean_bwe_bps",
    "mean_delivery_bps",
    "compared_rows",
    "identical_rows",
    "max_abs_diff_bps",
    "max_abs_diff_line",
    "max_rel_diff",
    "max_rel_diff_line",
    "loss_rows",
    "ssthresh_equal",
    "credit_rows",
    "credit_equal",
)


def bwe_column(cc: str) -> str:
    """The rows' column of the BWE replayed with ``cc``."""
    return f"{cc}_bwe_bps"


@dataclass
class ReplayResult:
    """A replayed trace.

    * ``report``: what ``westwood replay --json`` prints: ``trace``, ``rows``, ``ccs``,
      ``delivery_window`` and per flow its counts, means, and per cc the largest absolute and
      relative BWE differences with where they happen, ssthresh and AckedCount agreement.
    * ``rows``: one row per trace row (``flow``, ``time_ns``, ``event``, ``trace_bwe_bps``,
      ``<cc>_bwe_bps`` per cc, ``delivery_bps``; NaN for none), or None with ``rows=False``.
    * ``paths``: the files written with ``out``.
    """

    report: Dict[str, Any]
    rows: Optional["pd.DataFrame"] = None
    paths: List[Path] = field(default_factory=list)

    @property
    def ccs(self) -> List[str]:
        return list(self.report["ccs"])

    def summary(self) -> "pd.DataFrame":
        """One row per (flow, cc): ``SUMMARY_COLUMNS``."""
        import pandas as pd

        return pd.DataFrame(summary_records(self.report), columns=list(SUMMARY_COLUMNS))

    def table(self) -> str:
        return format_report(self.report)


def summary_records(report: Dict[str, Any]) -> List[Dict[str, Any]]:
    records = []
    for f in report["flows"]:
        for r in f["replays"]:
            largest = r.get("max_abs_diff") or {}
            relative = r.get("max_rel_diff") or {}
            records.append(
                {
                    "flow": f["flow"],
                    "trace_cc": f["trace_cc"],
                    "origin": f["origin"],
                    "cc": r["cc"],
                    "rows": f["rows"],
                    "duration_s": f["duration_s"],
                    "mean_trace_bwe_bps": _nan(f["mean_trace_bwe_bps"]),
                    "mean_bwe_bps": _nan(r["mean_bwe_bps"]),
                    "mean_delivery_bps": _nan(f["mean_delivery_bps"]),
                    "compared_rows": r["compared_rows"],
                    "identical_rows": r["identical_rows"],
                    "max_abs_diff_bps": _nan(largest.get("value")),
                    "max_abs_diff_line": largest.get("line"),
                    "max_rel_diff": _nan(relative.get("value")),
                    "max_rel_diff_line": relative.get("line"),
                    "loss_rows": r["loss_rows"],
                    "ssthresh_equal": r["ssthresh_equal"],
                    "credit_rows": r["credit_rows"],
                    "credit_equal": r["credit_equal"],
                }
            )
    return records


def _nan(value: Optional[float]) -> float:
    return math.nan if value is None else float(value)


def parse_ccs(values: Union[str, Iterable[str], None]) -> List[str]:
    """``"westwood,westwood-plus"`` or a list of such strings, as a list of names."""
    if values is None:
        return ["westwood"]
    texts = [values] if isinstance(values, str) else list(values)
    names = [n.strip() for text in texts for n in str(text).split(",") if n.strip()]
    if not names:
        raise UsageError("replay: --cc names no congestion control (e.g. --cc westwood)")
    return names


@contextlib.contextmanager
def _core_write_errors(csv_path: Path) -> Iterator[None]:
    """The core reports a failed write of the rows' CSV as an OSError with only a message,
    "cannot write CSV_PATH: ..." (its other OSErrors are about reading the trace): make that a
    ``WriteError`` naming the file, which ``staged_directory`` then names as in ``out``."""
    try:
        yield
    except WriteError:
        raise
    except OSError as err:
        if not str(err).startswith(f"cannot write {csv_path}"):
            raise
        raise WriteError(err.errno, failure_reason(err, csv_path), os.fspath(csv_path)) from err


def replay(
    trace: PathLike,
    cc: Union[str, Sequence[str], None] = "westwood",
    overrides: OverridesLike = None,
    *,
    origin: Optional[str] = None,
    delivery_window: Optional[str] = None,
    out: Optional[PathLike] = None,
    rows: bool = True,
    progress: bool = False,
) -> ReplayResult:
    """Replay the per-ACK trace ``trace`` through the congestion controls ``cc`` (a name, a
    comma-separated list or a sequence of names, as a scenario names them).

    ``overrides``: ``[tcp]`` settings as ``--set`` takes them, e.g.
    ``{"westwood": '{ tau = "1s", m = 4 }'}`` or ``[("westwood_abse.n", "5")]``; a variant's
    parameter table applies to that variant only. ``origin``: ``"simulator"`` or ``"kernel"``
    (default: per flow from its ``cc`` column, ``tcpw*`` being the kernel's). ``delivery_window``:
    a fixed window for the delivery rate (e.g. ``"250ms"``; default max(RTTmin, 100 ms)).
    ``out``: a directory to write ``replay.csv`` (every row), ``replay.json`` (the report) and
    ``replay.png`` / ``replay.svg`` (BWE vs time) into, all at once. ``rows=False`` keeps no row
    in memory. ``progress``: a line on stderr every second once the replay has taken one.

    Raises ``ScenarioError`` for an unknown cc or a bad override (naming it), ``TraceError`` (a
    ValueError) for a trace that is not valid (naming the file, line and column),
    ``FileNotFoundError`` / ``OSError`` for files that cannot be read or written.
    """
    ccs = parse_ccs(cc)
    pairs = normalize(overrides)
    trace_path = os.fspath(trace)
    plot_points = PLOT_POINTS if out is not None else 0
    if not Path(trace_path).exists():
        raise FileNotFoundError(f"{trace_path}: no such per-ACK trace")

    def run(csv_path: Optional[str]):
        return _core.replay(
            trace_path,
            ccs,
            pairs,
            origin,
            delivery_window,
            csv_path,
            rows,
            plot_points,
            progress,
        )

    paths: List[Path] = []
    if out is None:
        report_json, columns, _ = run(None)
        report = json.loads(report_json)
    else:
        with staged_directory(out) as stage:
            with _core_write_errors(stage / CSV_FILE):
                report_json, columns, plot = run(os.fspath(stage / CSV_FILE))
            report = json.loads(report_json)
            write_json_atomic(stage / JSON_FILE, report)
            names = [CSV_FILE, JSON_FILE]
            names += [p.name for p in plot_replay(report, plot or {}, stage / PLOT_STEM)]
        paths = [Path(out) / name for name in names]
    frame = None
    if columns is not None:
        import pandas as pd

        frame = pd.DataFrame(columns)
    return ReplayResult(report=report, rows=frame, paths=paths)


# --- the table --------------------------------------------------------------------------------


def _mbps(value: Optional[float]) -> str:
    return "-" if value is None else f"{value / 1e6:.3f}"


def _where(extreme: Optional[Dict[str, Any]], start_s: float, relative: bool) -> str:
    if not extreme:
        return "-"
    value = f"{extreme['value']:.3g}" if relative else f"{extreme['value']:.4g}"
    return f"{value} (line {extreme['line']}, +{extreme['time_s'] - start_s:.3f} s)"


def format_report(report: Dict[str, Any]) -> str:
    """The report as text: per flow a line of counts and means, then one line per cc."""
    header = [
        "cc",
        "mean BWE Mb/s",
        "identical rows",
        "max |replay - trace| b/s",
        "max relative difference",
        "ssthresh at losses",
        "credits",
    ]
    out: List[str] = [f"{report['trace']}: {report['rows']:,} rows"]
    for f in report["flows"]:
        out.append("")
        out.append(
            f"flow {f['flow']} ({f['trace_cc']}, {f['origin']} trace): {f['rows']:,} rows "
            f"({f['recovery_rows']} recovery, {f['timeout_rows']} timeout), "
            f"{f['duration_s']:.3f} s"
        )
        out.append(
            f"  mean BWE in the trace {_mbps(f['mean_trace_bwe_bps'])} Mb/s, delivery rate "
            f"{_mbps(f['mean_delivery_bps'])} Mb/s (over {report['delivery_window']}; "
            "time-weighted means)"
        )
        rows = []
        for r in f["replays"]:
            rows.append(
                [
                    r["cc"],
                    _mbps(r["mean_bwe_bps"]),
                    f"{r['identical_rows']}/{r['compared_rows']}" if r["compared_rows"] else "-",
                    _where(r.get("max_abs_diff"), f["start_s"], False),
                    _where(r.get("max_rel_diff"), f["start_s"], True),
                    f"{r['ssthresh_equal']}/{r['loss_rows']}",
                    f"{r['credit_equal']}/{r['credit_rows']}" if r["credit_rows"] else "-",
                ]
            )
        widths = [max(len(x[i]) for x in [header] + rows) for i in range(len(header))]
        for cells in [header] + rows:
            out.append(
                "  "
                + "  ".join(
                    c.ljust(w) if i == 0 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(cells, widths))
                ).rstrip()
            )
        for note in f["notes"]:
            out.append(f"  note: {note}")
    return "\n".join(out)


# --- the figure -------------------------------------------------------------------------------


def plot_replay(report: Dict[str, Any], plot: Dict[str, Dict[str, list]], stem: Path) -> List[Path]:
    """BWE vs time per flow (at most ``MAX_PLOTTED_FLOWS`` panels): the trace's, each replayed
    cc's and the delivery rate, as steps (a row's value holds until the flow's next row). Writes
    ``stem``.png and .svg."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from .report.plots import _save_both

    flows = [f for f in report["flows"] if f["flow"] in plot][:MAX_PLOTTED_FLOWS]
    panels = max(1, len(flows))
    fig = Figure(figsize=(7.5, 2.6 * panels + 0.6), layout="constrained")
    axes = fig.subplots(panels, 1, squeeze=False)[:, 0]
    for ax, f in zip(axes, flows):
        series = plot[f["flow"]]
        t = [x - f["start_s"] for x in series["time_seconds"]]

        def mbps(values: list) -> list:
            return [v / 1e6 for v in values]

        ax.plot(
            t,
            mbps(series["delivery_bps"]),
            color="0.6",
            linestyle="--",
            linewidth=0.9,
            drawstyle="steps-post",
            label=f"delivery rate ({report['delivery_window']})",
        )
        ax.plot(
            t,
            mbps(series["trace_bwe_bps"]),
            color="black",
            linewidth=1.6,
            drawstyle="steps-post",
            label=f"trace BWE ({f['trace_cc']})",
        )
        for i, cc in enumerate(report["ccs"]):
            ax.plot(
                t,
                mbps(series[bwe_column(cc)]),
                color=f"C{i % 10}",
                linewidth=0.9,
                drawstyle="steps-post",
                label=f"replayed {cc}",
            )
        ax.set_title(f"{f['flow']} ({f['origin']} trace)", fontsize=9)
        ax.set_ylabel("Mb/s")
        ax.set_ylim(bottom=0)
        ax.grid(True, linestyle=":", linewidth=0.6)
        ax.legend(loc="lower right", fontsize=7)
    axes[-1].set_xlabel("Time since the flow's first row (s)")
    if not flows:
        axes[0].text(0.5, 0.5, "no rows", ha="center", va="center", transform=axes[0].transAxes)
    left = len(report["flows"]) - len(flows)
    title = f"BWE replayed from {Path(report['trace']).name}"
    if left > 0:
        title += f" (first {len(flows)} flows; {left} more in {CSV_FILE})"
    fig.suptitle(title, fontsize=10)
    with matplotlib.rc_context({"svg.hashsalt": "replay"}):
        return _save_both(fig, stem)


# --- the command ------------------------------------------------------------------------------


def main(args) -> int:
    """``westwood replay`` (arguments parsed by cli.py)."""
    from .overrides import parse_assignments

    try:
        result = replay(
            args.trace,
            parse_ccs(args.cc),
            parse_assignments(args.overrides),
            origin=args.origin,
            delivery_window=args.delivery_window,
            out=args.out,
            rows=False,
            progress=True,
        )
    except TraceError as err:  # a ValueError: report it as bad input (exit 2)
        raise UsageError(str(err)) from None
    if args.json:
        print(json.dumps(result.report))
    else:
        print(result.table())
        for path in result.paths:
            print(f"wrote {path}")
    return 0
