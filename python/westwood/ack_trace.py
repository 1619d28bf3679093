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


# iperf3 sends a 37-byte cookie before the test's data (crates/emulator/src/segments.rs,
# IPERF3_COOKIE). The testbed's simulator run sends it too (`tcp.preamble`), so both traces count
# the same bytes; a simulator trace without it (a run from before) is behind the kernel's by this.
IPERF3_COOKIE_BYTES = 37

# At or above this many segments a threshold is "infinite" (the kernel's 0x7fffffff).
INFINITE_SEGMENTS = 0x7FFF_FFFF


def _number_or_none(value) -> "float | None":
    """A float of an optional column's field (``None`` for NaN / <NA>)."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return None if number != number else number


def window_agreement(
    kernel: "pd.DataFrame", simulator: "pd.DataFrame", kernel_offset: int = 0
) -> dict:
    """How often a kernel trace and a simulator trace of the same flow agree on the window.

    Each kernel ACK row is placed in the simulator's trace by its cumulative ACK (the kernel's
    less ``kernel_offset``: 0 for the testbed's simulator run, which sends iperf3's cookie too,
    ``IPERF3_COOKIE_BYTES`` for a simulator run without it) and, for repeated ACK numbers, its
    order among the rows of that number (the n-th DUPACK of a hole after the simulator's
    n-1-th): the kernel's rows hold the window as the ACK found it (docs/ack-trace.md: taken
    before the kernel's growth or reduction for that ACK), so the row is compared with the
    simulator's state at that point, the row just before it there (any event). Two receivers
    acknowledging different segments (every one, every second one) still compare at the same
    byte. A pair agrees on cwnd (ssthresh) when the two differ by at most one segment (infinite
    thresholds are equal). Returns the counts and shares, and the first pair that disagreed on
    cwnd (``None`` if none did) with what both rows hold: time since each trace's first row,
    cwnd and ssthresh in segments (``inf`` for an unset threshold), congestion state, BWE (None
    for a control without one)."""
    from bisect import bisect_left

    def keyed(frame: "pd.DataFrame", offset: int):
        """(ack, repeat) of every row, loss rows taking the key of the ACK row before them."""
        keys, rows = [], []
        seen: dict = {}
        key = (-1, 0)
        for row in frame.itertuples(index=False):
            if row.event == "ack":
                ack = int(row.ack) - offset
                n = seen.get(ack, 0)
                seen[ack] = n + 1
                key = (ack, n)
            keys.append(key)
            rows.append(row)
        return keys, rows

    def threshold(value: int, mss: int) -> float:
        segments = value / mss
        return float("inf") if segments >= INFINITE_SEGMENTS else segments

    kernel_keys, kernel_rows = keyed(kernel, kernel_offset)
    sim_keys, sim_rows = keyed(simulator, 0)
    kernel_start = int(kernel_rows[0].time_ns) if kernel_rows else 0
    simulator_start = int(sim_rows[0].time_ns) if sim_rows else 0
    kernel_acks = [(k, r) for k, r in zip(kernel_keys, kernel_rows) if r.event == "ack"]
    matched = cwnd_ok = ssthresh_ok = both_ok = 0
    first_disagreement = None
    for key, row in kernel_acks:
        at = bisect_left(sim_keys, key) - 1
        if at < 0:
            continue
        before = sim_rows[at]
        matched += 1
        mss = int(row.mss)
        cwnd_agrees = abs(int(row.cwnd_bytes) - int(before.cwnd_bytes)) <= mss
        k_ss, s_ss = (
            threshold(int(row.ssthresh_bytes), mss),
            threshold(int(before.ssthresh_bytes), mss),
        )
        ssthresh_agrees = k_ss == s_ss or abs(k_ss - s_ss) <= 1
        cwnd_ok += cwnd_agrees
        ssthresh_ok += ssthresh_agrees
        both_ok += cwnd_agrees and ssthresh_agrees
        if not cwnd_agrees and first_disagreement is None:
            first_disagreement = {
                "ack": key[0],
                "repeat": key[1],
                "kernel_time_s": (int(row.time_ns) - kernel_start) / 1e9,
                "simulator_time_s": (int(before.time_ns) - simulator_start) / 1e9,
                "kernel_cwnd_segments": int(row.cwnd_bytes) // mss,
                "simulator_cwnd_segments": int(before.cwnd_bytes) // mss,
                "kernel_ssthresh_segments": k_ss,
                "simulator_ssthresh_segments": s_ss,
                "kernel_state": str(row.ca_state),
                "simulator_state": str(before.ca_state),
                "kernel_bwe_bps": _number_or_none(row.bwe_bps),
                "simulator_bwe_bps": _number_or_none(before.bwe_bps),
            }

    def share(n: int) -> float:
        return n / matched if matched else float("nan")

    return {
        "kernel_acks": len(kernel_acks),
        "simulator_acks": sum(1 for r in sim_rows if r.event == "ack"),
        "matched": matched,
        "cwnd_share": share(cwnd_ok),
        "ssthresh_share": share(ssthresh_ok),
        "both_share": share(both_ok),
        "first_cwnd_disagreement": first_disagreement,
    }
