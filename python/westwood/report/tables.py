"""Result tables as plain Python columns (no pandas), shared by the API and the CLI writers.

Column names are the field names of the simulator's result structs, in the order the
simulator declares (``crates/simulator/src/results/``), exported through ``westwood._core``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .. import _core

# The column order of each table, declared once by the simulator (``results/columns.rs``).
FLOW_COLUMNS: Tuple[str, ...] = _core.FLOW_COLUMNS
LINK_COLUMNS: Tuple[str, ...] = _core.LINK_COLUMNS
FLOW_SERIES_COLUMNS: Tuple[str, ...] = _core.FLOW_SERIES_COLUMNS
LINK_SERIES_COLUMNS: Tuple[str, ...] = _core.LINK_SERIES_COLUMNS

Columns = Dict[str, List[Any]]


def _columns_of(records: Sequence[Mapping[str, Any]], documented: Sequence[str]) -> List[str]:
    """Documented columns first, then any field a newer simulator added, in record order."""
    names = list(documented)
    for record in records:
        for key in record:
            if key not in names:
                names.append(key)
    return names


def records_to_columns(records: Sequence[Mapping[str, Any]], documented: Sequence[str]) -> Columns:
    names = _columns_of(records, documented)
    return {name: [record.get(name) for record in records] for name in names}


def flow_columns(summary: Mapping[str, Any]) -> Columns:
    return records_to_columns(summary.get("flows", []), FLOW_COLUMNS)


def link_columns(summary: Mapping[str, Any]) -> Columns:
    return records_to_columns(summary.get("links", []), LINK_COLUMNS)


def series_columns(
    series: Optional[Mapping[str, Sequence[Any]]], documented: Sequence[str]
) -> Columns:
    """A series dict from the core, documented columns first (empty columns if absent)."""
    series = series or {}
    names = list(documented) + [k for k in series if k not in documented]
    return {name: list(series.get(name, [])) for name in names}


def column_rows(columns: Columns) -> List[List[Any]]:
    """Columns -> rows, for csv writing."""
    return [list(row) for row in zip(*columns.values())]
