"""``westwood run --out DIR``: the files describing one run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, List, Tuple

from . import tables
from .api import RawResult
from .files import PathLike, staged_directory, write_columns_csv, writing

RUN_FILES = ("summary.json", "flows.csv", "links.csv", "flow_series.csv", "link_series.csv")
# Written with `westwood run --ack-trace` (docs/ack-trace.md).
ACK_TRACE_FILE = "acks.csv"


def _write_files(stage: Path, raw: RawResult) -> None:
    with writing(stage / "summary.json"):
        summary = json.dumps(raw.summary, indent=2) + "\n"
        (stage / "summary.json").write_text(summary, encoding="utf-8")
    write_columns_csv(stage / "flows.csv", tables.flow_columns(raw.summary))
    write_columns_csv(stage / "links.csv", tables.link_columns(raw.summary))
    write_columns_csv(
        stage / "flow_series.csv",
        tables.series_columns(raw.flow_series, tables.FLOW_SERIES_COLUMNS),
    )
    write_columns_csv(
        stage / "link_series.csv",
        tables.series_columns(raw.link_series, tables.LINK_SERIES_COLUMNS),
    )


def _drop_stale_trace(out_dir: PathLike) -> None:
    """A trace left by an earlier run in the same directory would not match this run's files."""
    trace = Path(out_dir) / ACK_TRACE_FILE
    with writing(trace):
        trace.unlink(missing_ok=True)


def write_run(out_dir: PathLike, raw: RawResult) -> List[Path]:
    """Write ``RUN_FILES`` into ``out_dir`` all at once (see ``files.staged_directory``)."""
    with staged_directory(out_dir) as stage:
        _write_files(stage, raw)
    _drop_stale_trace(out_dir)
    return [Path(out_dir) / name for name in RUN_FILES]


def run_with_ack_trace(
    out_dir: PathLike, run: Callable[[Path], RawResult]
) -> Tuple[RawResult, List[Path]]:
    """Call ``run(trace_path)`` and write ``RUN_FILES`` plus the per-ACK trace it streamed into
    ``out_dir``, all at once. The trace goes straight into the staging directory while the run
    writes it (it is too large to hold in memory), so a failed or interrupted run leaves neither
    it nor ``out_dir`` behind."""
    with staged_directory(out_dir) as stage:
        raw = run(stage / ACK_TRACE_FILE)
        _write_files(stage, raw)
    return raw, [Path(out_dir) / name for name in RUN_FILES + (ACK_TRACE_FILE,)]
