"""``westwood run --out DIR``: the files describing one run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import List

from . import tables
from .api import RawResult
from .files import PathLike, staged_directory, write_columns_csv

RUN_FILES = ("summary.json", "flows.csv", "links.csv", "flow_series.csv", "link_series.csv")


def write_run(out_dir: PathLike, raw: RawResult) -> List[Path]:
    """Write ``RUN_FILES`` into ``out_dir`` all at once (see ``files.staged_directory``)."""
    with staged_directory(out_dir) as stage:
        (stage / "summary.json").write_text(
            json.dumps(raw.summary, indent=2) + "\n", encoding="utf-8"
        )
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
    return [Path(out_dir) / name for name in RUN_FILES]
