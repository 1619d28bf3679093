"""The per-ACK trace (docs/ack-trace.md) as a pandas DataFrame.

The simulator writes it (``westwood run --out DIR --ack-trace`` → ``DIR/acks.csv``,
``westwood.run(..., ack_trace=True)``); so do ``westwood linux watch --acks`` and the testbed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .files import PathLike

if TYPE_CHECKING:
    import pandas as pd

# The header, in order: ``westwood_trace::COLUMNS``.
ACK_TRACE_COLUMNS = (
    "time_ns",
    "flow",
    "cc",
    "event",
    "ack",
    "acked_bytes",
    "dupack",
    "sacked_bytes",
    "credited_bytes",
    "rtt_us",
    "bwe_bps",
    "rtt_min_us",
    "cwnd_bytes",
    "ssthresh_bytes",
    "mss",
    "ca_state",
    "in_flight_bytes",
)

# Empty means "none" only in these; a flow named "NA" stays a name.
_OPTIONAL = ("credited_bytes", "rtt_us", "bwe_bps", "rtt_min_us")
# Byte counts fit in int64 (an "infinite" ssthresh is far below 2^63); credited_bytes is a
# nullable integer, as controls without an estimator leave it empty.
_DTYPES = {
    "time_ns": "int64",
    "flow": "str",
    "cc": "str",
    "event": "str",
    "ack": "int64",
    "acked_bytes": "int64",
    "dupack": "int64",
    "sacked_bytes": "int64",
    "credited_bytes": "Int64",
    "rtt_us": "float64",
    "bwe_bps": "float64",
    "rtt_min_us": "float64",
    "cwnd_bytes": "int64",
    "ssthresh_bytes": "int64",
    "mss": "int64",
    "ca_state": "str",
    "in_flight_bytes": "int64",
}


def read_ack_trace(path: PathLike) -> "pd.DataFrame":
    """Read a per-ACK trace CSV (``dupack`` as bool, empty fields as NaN / <NA>); ValueError
    naming the file when its header is not the format's."""
    import pandas as pd

    with open(path, encoding="utf-8") as f:
        header = f.readline().rstrip("\r\n").split(",")
    missing = [c for c in ACK_TRACE_COLUMNS if c not in header]
    if missing:
        raise ValueError(
            f"{path}: not a per-ACK trace: the header lacks {', '.join(missing)} "
            f"(expected {','.join(ACK_TRACE_COLUMNS)})"
        )
    try:
        frame = pd.read_csv(
            path, dtype=_DTYPES, keep_default_na=False, na_values={c: [""] for c in _OPTIONAL}
        )
    except ValueError as err:  # a field that is not of its column's type
        raise ValueError(f"{path}: not a valid per-ACK trace: {err}") from None
    frame["dupack"] = frame["dupack"].astype(bool)
    return frame[list(ACK_TRACE_COLUMNS)]
