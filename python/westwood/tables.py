"""Result tables as plain Python columns (no pandas), shared by the API and the CLI writers.

Column names are the field names of the simulator's result structs (``results.rs``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

FLOW_COLUMNS = (
    "name",
    "cc",
    "recovery",
    "src",
    "dst",
    "goodput_bps",
    "throughput_bps",
    "bytes_delivered",
    "segments_sent",
    "retransmits",
    "timeouts",
    "fast_retransmits",
    "active_seconds",
    "min_rtt_seconds",
)
LINK_COLUMNS = (
    "name",
    "from",
    "to",
    "rate_bps",
    "delay_seconds",
    "queue_limit",
    "packets_sent",
    "bytes_sent",
    "drops_overflow",
    "drops_error",
    "utilization",
    "queue_type",
    "drops_red",
    "drops_outage",
)
FLOW_SERIES_COLUMNS = (
    "time_seconds",
    "flow",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_seconds",
    "bwe_bps",
    "bytes_delivered",
    "snd_max",
    "snd_una",
)
LINK_SERIES_COLUMNS = (
    "time_seconds",
    "link",
    "queue_packets",
    "queue_bytes",
    "queue_avg_packets",
    "drops_overflow",
    "drops_red",
    "drops_error",
    "drops_outage",
)

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
