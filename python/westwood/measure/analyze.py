"""``westwood analyze PCAP... [--out DIR]``: what tcptrace reports per TCP connection, from
captures of the simulator (``westwood run --pcap``), the testbed (``westwood testbed --pcap``)
or a real path (tcpdump, ``westwood measure --pcap``), with the result columns of
``westwood run`` where the quantities coincide (docs/measurement.md).

The files are read and analysed by the Rust core (``_core.analyze_pcap``: streamed, bounded
memory); this module makes the tables, the JSON/Parquet/CSV files and the plots.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Sequence

from .. import _core
from ..errors import UsageError
from ..files import PathLike, staged_directory, write_bytes_atomic, writing

# The columns of a connection row and of a UDP flow row, in order, declared with the rows
# (``westwood_pcap::analyze::COLUMNS``): first ``westwood run``'s flow columns where the quantity
# is the same (name, cc, src, dst, goodput_bps, throughput_bps, bytes_delivered, segments_sent,
# retransmits, active_seconds, min_rtt_seconds), then the analysis' own.
COLUMNS = tuple(_core.CONNECTION_COLUMNS)
UDP_COLUMNS = tuple(_core.UDP_COLUMNS)
# Per-connection plot data, kept out of the tables.
SERIES_KEYS = (
    "bin_start_ns",
    "bin_seconds",
    "sent_per_bin",
    "acked_per_bin",
    "tseq_data",
    "tseq_retransmits",
    "tseq_acks",
    "tseq_complete",
)

FLOWS_CSV = "flows.csv"
CONNECTIONS_CSV = "connections.csv"
UDP_CSV = "udp.csv"
ANALYSIS_JSON = "analysis.json"


def _nan(value: Any) -> Any:
    return math.nan if value is None else value


def _row(raw: Dict[str, Any]) -> Dict[str, Any]:
    """A connection as a table row (times in seconds, None -> NaN)."""
    row = {k: _nan(raw.get(k)) for k in COLUMNS if k in raw}
    row["cc"] = raw.get("cc") or ""
    row["start_seconds"] = raw["first_ns"] / 1e9
    row["end_seconds"] = raw["end_ns"] / 1e9
    return {k: row[k] for k in COLUMNS}


@dataclass
class Analysis:
    """The analysis of one or more captures.

    * ``flows``: one row per connection direction over all the captures (a sender-side and a
      receiver-side capture of the same connection give one row: retransmissions, RTT and
      flight from the sender's, in-order bytes from the receiver's); columns ``COLUMNS``.
    * ``connections``: one row per capture and connection direction.
    * ``udp``: UDP flows (``UDP_COLUMNS``).
    * ``captures``: what each file held (interfaces, packet counts, comments, warnings).
    * ``raw``: the core's answer, with the plot data of each connection.
    """

    flows: List[Dict[str, Any]]
    connections: List[Dict[str, Any]]
    udp: List[Dict[str, Any]]
    captures: List[Dict[str, Any]]
    raw: Dict[str, Any] = field(repr=False)

    @property
    def warnings(self) -> List[str]:
        out = []
        for c in self.captures:
            out += [f"{c['file']}: {w}" for w in c["warnings"]]
            if c.get("unknown_link_types"):
                types = ", ".join(str(t) for t in c["unknown_link_types"])
                out.append(
                    f"{c['file']}: link type(s) {types} not understood: those packets skipped"
                )
        return out

    def frame(self, which: str = "flows"):
        """``flows``, ``connections`` or ``udp`` as a pandas DataFrame."""
        import pandas as pd

        columns = UDP_COLUMNS if which == "udp" else COLUMNS
        return pd.DataFrame(getattr(self, which), columns=list(columns))

    def series(self, which: str = "flows") -> List[Dict[str, Any]]:
        """The raw rows of ``flows`` or ``connections``, with their plot data."""
        return self.raw[which]


def analyze(
    paths: Sequence[PathLike], plots: bool = True, max_bins: int = 2000, max_points: int = 5000
) -> Analysis:
    """Analyse the captures at ``paths`` (pcap or pcapng, any link type tcpdump writes). With
    ``plots``, each connection keeps the data of its figures (at most ``max_bins`` throughput
    bins and about 2 x ``max_points`` points of each kind of its time-sequence graph);
    without, only the tables.

    Raises ``UsageError`` for a missing file or one that is not a capture (the message names the
    file and the byte offset), ``KeyboardInterrupt`` on Ctrl-C."""
    if not paths:
        raise UsageError("analyze: give at least one capture file (pcap or pcapng)")
    files = []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise UsageError(f"{path}: no such capture file")
        files.append(os.fspath(path))
    try:
        text = _core.analyze_pcap(files, max_bins if plots else 2, max_points if plots else 0)
    except _core.CaptureError as err:
        raise UsageError(str(err)) from None
    raw = json.loads(text)
    udp = []
    for u in raw["udp"]:
        row = {k: u.get(k) for k in UDP_COLUMNS if k in u}
        row["start_seconds"] = u["first_ns"] / 1e9
        row["end_seconds"] = u["last_ns"] / 1e9
        udp.append({k: row[k] for k in UDP_COLUMNS})
    return Analysis(
        flows=[_row(r) for r in raw["flows"]],
        connections=[_row(r) for r in raw["connections"]],
        udp=udp,
        captures=raw["captures"],
        raw=raw,
    )


# --- writing ------------------------------------------------------------------------------------


def _csv(path: Path, rows: List[Dict[str, Any]], columns: Sequence[str]) -> None:
    import csv

    def cell(v: Any) -> Any:
        if isinstance(v, float):
            return "" if math.isnan(v) else repr(v)
        if isinstance(v, bool):
            return int(v)
        return v

    with writing(path), open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for r in rows:
            w.writerow([cell(r[c]) for c in columns])


def write(result: Analysis, out_dir: PathLike, plots: bool = True) -> List[Path]:
    """Write ``flows.csv``, ``connections.csv``, ``udp.csv`` (if any), ``flows.parquet``,
    ``connections.parquet``, ``analysis.json`` (the tables and the captures' descriptions) and,
    with ``plots``, per connection direction that carried data ``tseq_NAME.png/.svg`` (the
    time-sequence graph) and ``throughput.png/.svg`` (goodput over time of every flow). All
    or nothing: files appear in ``out_dir`` only once every one is written."""
    from . import plots as plotting

    out = Path(out_dir)
    names: List[str] = []
    with staged_directory(out) as stage:
        _csv(stage / FLOWS_CSV, result.flows, COLUMNS)
        _csv(stage / CONNECTIONS_CSV, result.connections, COLUMNS)
        names += [FLOWS_CSV, CONNECTIONS_CSV]
        if result.udp:
            _csv(stage / UDP_CSV, result.udp, UDP_COLUMNS)
            names.append(UDP_CSV)
        for which in ("flows", "connections"):
            name = f"{which}.parquet"

            def to_parquet(tmp: str, which: str = which) -> None:
                with writing(tmp):
                    result.frame(which).to_parquet(tmp, index=False)

            write_bytes_atomic(stage / name, to_parquet)
            names.append(name)
        document = {
            "captures": result.captures,
            "flows": result.flows,
            "connections": result.connections,
            "udp": result.udp,
            "warnings": result.warnings,
        }
        with writing(stage / ANALYSIS_JSON):
            text = json.dumps(_json_safe(document), indent=2) + "\n"
            (stage / ANALYSIS_JSON).write_text(text, encoding="utf-8")
        names.append(ANALYSIS_JSON)
        if plots:
            for path in plotting.analysis_plots(result, stage):
                names.append(path.name)
    return [out / n for n in names]


def _json_safe(value: Any) -> Any:
    """NaN as null (JSON has no NaN)."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


# --- the table ----------------------------------------------------------------------------------


def _ms(v: float) -> str:
    return "-" if v is None or math.isnan(v) else f"{v * 1e3:.1f}"


def format_table(rows: List[Dict[str, Any]]) -> str:
    """The connections as a text table, the columns tcptrace users look at first."""
    header = [
        "connection",
        "vantage",
        "goodput Mbps",
        "bytes delivered",
        "segments",
        "retx",
        "RTT min/avg/max ms",
        "ooo",
        "dupacks (runs>=3)",
        "max flight KB",
    ]
    body = []
    for r in rows:
        rtt = (
            f"{_ms(r['min_rtt_seconds'])}/{_ms(r['mean_rtt_seconds'])}/{_ms(r['max_rtt_seconds'])}"
        )
        flight = r["max_flight_bytes"]
        body.append(
            [
                str(r["name"]),
                str(r["vantage"]),
                f"{r['goodput_bps'] / 1e6:.3f}",
                str(r["bytes_delivered"]),
                str(r["segments_sent"]),
                str(r["retransmits"]),
                rtt,
                str(r["out_of_order"]),
                f"{r['dupacks']} ({r['dupack_runs_3']})",
                "-" if not flight else f"{flight / 1e3:.1f}",
            ]
        )
    widths = [max(len(x[i]) for x in [header] + body) for i in range(len(header))]

    def line(cells: List[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    return "\n".join([line(header)] + [line(b) for b in body])


# --- the command --------------------------------------------------------------------------------


def add_parser(sub) -> None:
    """``westwood analyze``."""
    p = sub.add_parser(
        "analyze",
        help="per-connection analysis of packet captures (pcap/pcapng), tcptrace-like",
        description="Analyse packet captures (pcap or pcapng: `westwood run --pcap`, `westwood "
        "testbed --pcap`, tcpdump, `westwood measure --pcap`): per TCP connection and direction, "
        "bytes, goodput, retransmitted segments and bytes, RTT samples (min/avg/max, from ACKs "
        "of segments not retransmitted), out-of-order segments, DUPACK runs, window and flight "
        "size, with the result columns of `westwood run` where they coincide. Captures of the "
        "same connection at several points (a sender's and a receiver's) are combined into one "
        "row. See docs/measurement.md.",
    )
    p.add_argument("captures", nargs="+", metavar="PCAP", help="capture files")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="write flows.csv, connections.csv, flows.parquet, connections.parquet, "
        "analysis.json, tseq_NAME.png/.svg (time-sequence graphs) and throughput.png/.svg",
    )
    p.add_argument(
        "--per-capture",
        action="store_true",
        help="print one row per capture and connection (default: combined over the captures)",
    )
    p.add_argument("--json", action="store_true", help="print the rows as one JSON object")
    p.add_argument("--no-plots", action="store_true", help="with --out: no figures")
    p.set_defaults(func=cmd_analyze)


def cmd_analyze(args) -> int:
    import sys

    result = analyze(args.captures, plots=bool(args.out) and not args.no_plots)
    for w in result.warnings:
        print(f"westwood: warning: {w}", file=sys.stderr)
    rows = result.connections if args.per_capture else result.flows
    if args.json:
        print(json.dumps(_json_safe({"flows": rows, "udp": result.udp})))
    else:
        if rows:
            print(format_table(rows))
        else:
            print("no TCP connection in the capture(s)")
        for u in result.udp:
            print(
                f"udp {u['name']}: {u['packets']} packets, {u['rate_bps'] / 1e6:.3f} Mbps "
                f"({u['src']} -> {u['dst']})"
            )
    if args.out:
        written = write(result, args.out, plots=not args.no_plots)
        if not args.json:
            print(f"wrote {len(written)} files to {args.out}/")
    return 0
