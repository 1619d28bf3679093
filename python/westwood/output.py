"""``westwood run --out DIR``: the files describing one run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, List, Optional, Tuple

from . import _core
from .files import PathLike, staged_directory, write_text_in_place, writing
from .raw import RawResult

RUN_FILES = ("summary.json", "flows.csv", "links.csv", "flow_series.csv", "link_series.csv")
# Written with `westwood run --ack-trace` (docs/ack-trace.md).
ACK_TRACE_FILE = "acks.csv"


def _write_summary_files(stage: Path, raw: RawResult) -> None:
    """summary.json, flows.csv and links.csv; the run streamed the series into ``stage``. The
    tables come from the core's writer, the one the emulator's runs use too."""
    summary = json.dumps(raw.summary, indent=2) + "\n"
    with writing(stage / "summary.json"):
        (stage / "summary.json").write_text(summary, encoding="utf-8")
    flows, links = _core.run_tables_csv(summary)  # the same text: one serialisation
    write_text_in_place(stage / "flows.csv", flows)
    write_text_in_place(stage / "links.csv", links)


def _drop_stale_trace(out_dir: PathLike) -> None:
    """A trace left by an earlier run in the same directory would not match this run's files."""
    trace = Path(out_dir) / ACK_TRACE_FILE
    with writing(trace):
        trace.unlink(missing_ok=True)


def run_into(
    out_dir: PathLike, run: Callable[[Path, Optional[Path]], RawResult], ack_trace: bool
) -> Tuple[RawResult, List[Path]]:
    """Call ``run(stage, trace_path)`` and leave ``RUN_FILES`` (plus the per-ACK trace with
    ``ack_trace``) in ``out_dir``, all at once. ``run`` streams the time series, and the trace
    when ``trace_path`` is not None, straight into the staging directory as the simulation goes:
    a long or wide run is never held in memory, and a failed or interrupted one leaves neither
    them nor ``out_dir`` behind. A trace left by an earlier run in ``out_dir`` is removed, since
    it would not match this run's files."""
    with staged_directory(out_dir) as stage:
        raw = run(stage, stage / ACK_TRACE_FILE if ack_trace else None)
        _write_summary_files(stage, raw)
    names = RUN_FILES + ((ACK_TRACE_FILE,) if ack_trace else ())
    if not ack_trace:
        _drop_stale_trace(out_dir)
    return raw, [Path(out_dir) / name for name in names]
