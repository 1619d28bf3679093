"""``westwood plot RUN_DIR``: figures of one run written by ``westwood run --out RUN_DIR``.

Per TCP flow, the window dynamics of seed 000 figs. 12/13 (cwnd and ssthresh vs. time, in
segments) and, for the Westwood family, the bandwidth estimate (BWE, Mb/s) vs. time as in seed 000
fig. 3, on a second panel; and, when some link queues, the queue length of those links.

The window is shown in segments of the flow's ``segment_size`` as given by summary.json (or by
``--segment-size``); a summary without it (written by an older simulator) gives the window in KB
(1 KB = 1000 bytes), which the axis label and a note on stderr say. An "unlimited" ssthresh
(the initial value, ``u64::MAX / 4`` bytes) is not drawn.
"""

from __future__ import annotations

import csv
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from ..errors import UsageError
from ..files import PathLike, make_directory

# An ssthresh at or above this many bytes is "unlimited" (the initial value) and not drawn.
UNLIMITED_SSTHRESH = 2**40
KB = 1000.0

FLOW_REQUIRED = ("time_seconds", "flow", "cwnd_bytes", "ssthresh_bytes", "bwe_bps")
LINK_REQUIRED = ("time_seconds", "link", "queue_packets")


@dataclass
class RunData:
    directory: Path
    summary: Dict[str, Any]
    flow_series: Dict[str, Dict[str, List[float]]]  # flow -> column -> values
    link_series: Dict[str, Dict[str, List[float]]]  # link -> column -> values


@dataclass
class PlotOutput:
    paths: List[Path] = field(default_factory=list)
    figures: Dict[str, Any] = field(default_factory=dict)  # file stem -> matplotlib Figure
    notes: List[str] = field(default_factory=list)


def _not_a_run_dir(directory: Path, why: str) -> UsageError:
    return UsageError(
        f"{directory}: not a run directory ({why}); write one with "
        "`westwood run SCENARIO --out DIR`"
    )


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _read_series(
    path: Path, key: str, required: Sequence[str], directory: Path
) -> Dict[str, Dict[str, List[float]]]:
    """``{key value: {column: [floats]}}`` of a series CSV (columns ``required``)."""
    out: Dict[str, Dict[str, List[float]]] = {}
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in required if c not in (reader.fieldnames or [])]
            if missing:
                raise _not_a_run_dir(directory, f"{path.name} lacks {', '.join(missing)}")
            numeric = [c for c in required if c != key]
            width = len(reader.fieldnames or [])
            for row in reader:
                if None in row or None in row.values():
                    # DictReader files the fields beyond the header under None, and gives the
                    # missing ones as None: a row cut short, or one that is not this file's.
                    fields = width - list(row.values()).count(None) + len(row.get(None) or [])
                    raise _not_a_run_dir(
                        directory,
                        f"{path.name} line {reader.line_num} has {fields} fields where its "
                        f"header has {width}: the file is cut short or damaged",
                    )
                columns = out.setdefault(row[key], {c: [] for c in numeric})
                for c in numeric:
                    columns[c].append(_number(row[c]))
    except UnicodeDecodeError:
        raise _not_a_run_dir(directory, f"{path.name} is not a CSV file") from None
    return out


def load_run_dir(run_dir: PathLike) -> RunData:
    directory = Path(run_dir)
    if not directory.is_dir():
        raise _not_a_run_dir(directory, "no such directory")
    missing = [n for n in ("summary.json", "flow_series.csv") if not (directory / n).is_file()]
    if missing:
        raise _not_a_run_dir(directory, f"no {' or '.join(missing)}")
    try:
        summary = json.loads((directory / "summary.json").read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise _not_a_run_dir(directory, f"summary.json is not valid JSON: {err}") from None
    if not isinstance(summary, dict) or not isinstance(summary.get("flows"), list):
        raise _not_a_run_dir(directory, "summary.json has no flows list")
    flows = _read_series(directory / "flow_series.csv", "flow", FLOW_REQUIRED, directory)
    links: Dict[str, Dict[str, List[float]]] = {}
    if (directory / "link_series.csv").is_file():
        links = _read_series(directory / "link_series.csv", "link", LINK_REQUIRED, directory)
    return RunData(directory, summary, flows, links)


def parse_size(text: str) -> int:
    """A segment size for --segment-size: bytes, optionally with a unit (400, 400B, 1.5KB)."""
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(B|bytes|KB|kB|KiB)?\s*", text)
    if not m:
        raise UsageError(f"--segment-size {text!r}: expected a size in bytes, e.g. 400 or 400B")
    scale = {None: 1, "B": 1, "bytes": 1, "KB": 1000, "kB": 1000, "KiB": 1024}[m.group(2)]
    value = round(float(m.group(1)) * scale)
    if value < 1:
        raise UsageError(f"--segment-size {text!r}: must be at least 1 byte")
    return value


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name) or "flow"


def is_westwood(flow: Mapping[str, Any], series: Mapping[str, List[float]]) -> bool:
    cc = str(flow.get("cc", ""))
    return cc.startswith("westwood") or any(math.isfinite(b) for b in series["bwe_bps"])


def plot_run(
    run_dir: PathLike,
    out_dir: Optional[PathLike] = None,
    flows: Optional[Sequence[str]] = None,
    segment_size: Optional[int] = None,
) -> PlotOutput:
    """Draw the figures of a run directory; write ``flow_<name>.png``/``.svg`` per TCP flow
    and ``queues.png``/``.svg`` (links that ever queue) into ``out_dir`` (default: the run
    directory). Raises UsageError for a directory that is not a run, or unknown ``flows``."""
    run = load_run_dir(run_dir)
    records = {str(f.get("name")): f for f in run.summary["flows"]}
    names = [n for n in records if n in run.flow_series]
    if flows:
        unknown = [n for n in flows if n not in records]
        if unknown:
            raise UsageError(
                f"no flow {', '.join(unknown)} in {run.directory} "
                f"(flows: {', '.join(records) or 'none'})"
            )
        names = [n for n in dict.fromkeys(flows) if n in run.flow_series]
    out = Path(out_dir) if out_dir is not None else run.directory
    make_directory(out)

    result = PlotOutput()
    for name in names:
        record = records[name]
        size = segment_size or record.get("segment_size")
        if not (isinstance(size, (int, float)) and size > 0):
            size = None
            result.notes.append(
                f"summary.json gives no segment size for flow {name}: window plotted in KB "
                "(1 KB = 1000 bytes); use --segment-size to plot it in segments"
            )
        stem = f"flow_{_safe(name)}"
        fig = _flow_figure(name, record, run.flow_series[name], size, run.summary)
        result.figures[stem] = fig
        result.paths += _save(fig, out / stem, stem)
    queued = {
        link: s for link, s in run.link_series.items() if any(q > 0 for q in s["queue_packets"])
    }
    if queued:
        fig = _queue_figure(queued, run.summary)
        result.figures["queues"] = fig
        result.paths += _save(fig, out / "queues", "queues")
    return result


def _figure(height: float):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    return Figure(figsize=(7.0, height), layout="constrained")


def _save(fig, stem: Path, salt: str) -> List[Path]:
    import matplotlib

    from .plots import _save_both

    with matplotlib.rc_context({"svg.hashsalt": salt}):
        return _save_both(fig, stem)


def _run_title(summary: Mapping[str, Any]) -> str:
    params = summary.get("parameters") or {}
    text = ", ".join(f"{k}={v}" for k, v in params.items())
    return f"{summary.get('scenario', '?')}, seed {summary.get('seed', '?')}" + (
        f" ({text})" if text else ""
    )


def _flow_figure(
    name: str,
    record: Mapping[str, Any],
    series: Mapping[str, List[float]],
    segment_size: Optional[float],
    summary: Mapping[str, Any],
):
    westwood = is_westwood(record, series)
    fig = _figure(6.0 if westwood else 3.8)
    axes = fig.subplots(2 if westwood else 1, 1, sharex=True, squeeze=False)[:, 0]
    t = series["time_seconds"]
    unit = segment_size if segment_size else KB
    unit_text = "segments" if segment_size else "KB"
    cwnd = [c / unit for c in series["cwnd_bytes"]]
    ssthresh = [
        s / unit if math.isfinite(s) and s < UNLIMITED_SSTHRESH else math.nan
        for s in series["ssthresh_bytes"]
    ]
    ax = axes[0]
    ax.plot(t, cwnd, drawstyle="steps-post", linewidth=1.0, label="cwnd")
    ax.plot(t, ssthresh, drawstyle="steps-post", linewidth=1.0, linestyle="--", label="ssthresh")
    ax.set_ylabel(f"cwnd, ssthresh ({unit_text})")
    ax.set_ylim(bottom=0)
    ax.grid(True, linestyle=":", linewidth=0.6)
    ax.legend(loc="upper right", fontsize=8)
    size_text = (
        f"segment {segment_size:g} B" if segment_size else "segment size unknown: window in KB"
    )
    ax.set_title(
        f"Flow {name} ({record.get('cc', '?')}): window dynamics, {size_text}\n"
        f"{_run_title(summary)}",
        fontsize=9,
    )
    if westwood:
        bx = axes[1]
        bx.plot(t, [b / 1e6 for b in series["bwe_bps"]], color="C2", linewidth=1.0, label="BWE")
        bx.set_ylabel("BWE (Mb/s)")
        bx.set_ylim(bottom=0)
        bx.grid(True, linestyle=":", linewidth=0.6)
        bx.legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("Time (s)")
    if t:
        axes[-1].set_xlim(t[0], t[-1])
    return fig


def _queue_figure(links: Mapping[str, Mapping[str, List[float]]], summary: Mapping[str, Any]):
    fig = _figure(3.8)
    ax = fig.subplots()
    for i, (link, s) in enumerate(links.items()):
        ax.plot(
            s["time_seconds"],
            s["queue_packets"],
            drawstyle="steps-post",
            linewidth=1.0,
            color=f"C{i % 10}",
            label=link,
        )
    ax.set_xlabel("Time (s)")
    ax.set_ylabel("Queue length (packets)")
    ax.set_ylim(bottom=0)
    ax.grid(True, linestyle=":", linewidth=0.6)
    ax.legend(loc="upper right", fontsize=8)
    ax.set_title(f"Link queues\n{_run_title(summary)}", fontsize=9)
    return fig
