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
from typing import Any, Callable, Dict, List, Optional, Sequence

from .. import _core
from ..errors import UsageError
from ..files import PathLike, staged_directory, writing
from ..units import mbps, ms

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
# Rows whose figures are drawn: the flows with the most data (the core's default).
MAX_PLOTTED = 20
# Rows printed as a table; the rest are counted (all of them are in --out DIR's tables).
MAX_PRINTED = 1000


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
    """The analysis of one or more captures, every row kept (``analyze``).

    * ``flows``: one row per connection direction over all the captures (a sender-side and a
      receiver-side capture of the same connection give one row: retransmissions, RTT and
      flight from the sender's, in-order bytes from the receiver's); columns ``COLUMNS``.
    * ``connections``: one row per capture and connection direction.
    * ``udp``: UDP flows (``UDP_COLUMNS``).
    * ``captures``: what each file held (interfaces, packet counts, comments, warnings).
    * ``plots``: the rows to plot, with their plot data (the ``max_plotted`` flows with the
      most data).
    * ``raw``: the core's rows (``flows``, ``connections``, ``udp``; the plotted ones with their
      data), the rows to plot (``plots``) and the ``captures``.
    """

    flows: List[Dict[str, Any]]
    connections: List[Dict[str, Any]]
    udp: List[Dict[str, Any]]
    captures: List[Dict[str, Any]]
    plots: List[Dict[str, Any]] = field(default_factory=list)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def warnings(self) -> List[str]:
        return capture_warnings(self.captures)

    def frame(self, which: str = "flows"):
        """``flows``, ``connections`` or ``udp`` as a pandas DataFrame."""
        import pandas as pd

        columns = UDP_COLUMNS if which == "udp" else COLUMNS
        return pd.DataFrame(getattr(self, which), columns=list(columns))

    def series(self, which: str = "flows") -> List[Dict[str, Any]]:
        """The raw rows of ``flows`` or ``connections``; the plotted ones with their data."""
        return self.raw[which]


def capture_warnings(captures: Sequence[Dict[str, Any]]) -> List[str]:
    """What the captures' readers and the analysis warned of, each naming its file."""
    out = []
    for c in captures:
        out += [f"{c['file']}: {w}" for w in c["warnings"]]
        if c.get("unknown_link_types"):
            types = ", ".join(str(t) for t in c["unknown_link_types"])
            out.append(f"{c['file']}: link type(s) {types} not understood: those packets skipped")
    return out


def _udp_row(u: Dict[str, Any]) -> Dict[str, Any]:
    row = {k: u.get(k) for k in UDP_COLUMNS if k in u}
    row["start_seconds"] = u["first_ns"] / 1e9
    row["end_seconds"] = u["last_ns"] / 1e9
    return {k: row[k] for k in UDP_COLUMNS}


def _files(paths: Sequence[PathLike]) -> List[str]:
    if not paths:
        raise UsageError("analyze: give at least one capture file (pcap or pcapng)")
    files = []
    for p in paths:
        path = Path(p)
        if not path.is_file():
            raise UsageError(f"{path}: no such capture file")
        files.append(os.fspath(path))
    return files


def stream(
    paths: Sequence[PathLike],
    handle: Callable[[str, Dict[str, Any]], None],
    plots: bool = True,
    max_bins: int = 2000,
    max_points: int = 5000,
    max_plotted: int = MAX_PLOTTED,
    max_memory: Optional[int] = None,
) -> None:
    """Analyse the captures at ``paths``, calling ``handle(kind, row)`` as the core hands rows
    out (``westwood_pcap::analyze::Event``): ``connection`` (a connection direction of one
    capture, once it is over: closed, quiet for ten minutes, or open at the capture's end;
    without plot data), ``udp``, ``capture`` (after each file), ``flow`` (with several
    captures, at the end: the combined rows) and ``plot`` (at the end: the rows to plot, with
    their data). With one capture the ``connection`` rows are the flows. Memory: what the core
    holds, at most ``max_memory`` bytes (default 1 GiB), and what ``handle`` keeps.

    Raises ``UsageError`` for a missing file, one that is not a capture (the message names the
    file and the byte offset) or one that needs more than ``max_memory``;
    ``KeyboardInterrupt`` on Ctrl-C; what ``handle`` raises."""
    files = _files(paths)

    def on_events(text: str) -> None:
        for kind, row in json.loads(text):
            handle(kind, row)

    limits = {} if max_memory is None else {"max_memory": max_memory}
    try:
        _core.analyze_pcap(
            files,
            on_events,
            max_bins if plots else 2,
            max_points if plots else 0,
            max_plotted if plots else 0,
            **limits,
        )
    except _core.CaptureError as err:
        raise UsageError(str(err)) from None


def _row_key(row: Dict[str, Any]) -> tuple:
    """What tells rows apart (the core's ``same_row``): capture, ends, first packet."""
    return tuple(
        row[k] for k in ("capture", "src_addr", "src_port", "dst_addr", "dst_port", "first_ns")
    )


def analyze(
    paths: Sequence[PathLike],
    plots: bool = True,
    max_bins: int = 2000,
    max_points: int = 5000,
    max_plotted: int = MAX_PLOTTED,
    max_memory: Optional[int] = None,
) -> Analysis:
    """Analyse the captures at ``paths`` (pcap or pcapng, any link type tcpdump writes) and keep
    every row (memory grows with the connections; ``westwood analyze --out`` streams them to
    its files instead, ``stream``). With ``plots``, the ``max_plotted`` rows with the most data
    keep the data of their figures (at most ``max_bins`` throughput bins and about
    2 x ``max_points`` points of each kind of the time-sequence graph); without, none.

    Raises ``UsageError`` for a missing file or one that is not a capture (the message names the
    file and the byte offset), ``KeyboardInterrupt`` on Ctrl-C."""
    raw: Dict[str, List[Dict[str, Any]]] = {"connections": [], "flows": [], "udp": [], "plots": []}
    captures: List[Dict[str, Any]] = []

    def handle(kind: str, row: Dict[str, Any]) -> None:
        if kind == "capture":
            captures.append(row)
        elif kind == "plot":
            raw["plots"].append(row)
        else:
            raw[{"connection": "connections", "flow": "flows", "udp": "udp"}[kind]].append(row)

    stream(paths, handle, plots, max_bins, max_points, max_plotted, max_memory)
    if len(paths) == 1:
        raw["flows"] = raw["connections"]
    plotted = {_row_key(p): p for p in raw["plots"]}
    for rows in (raw["flows"], raw["connections"]):
        for i, r in enumerate(rows):
            rows[i] = plotted.get(_row_key(r), r)
    raw["captures"] = captures
    flows = [_row(r) for r in raw["flows"]]
    return Analysis(
        flows=flows,
        connections=flows if len(paths) == 1 else [_row(r) for r in raw["connections"]],
        udp=[_udp_row(u) for u in raw["udp"]],
        captures=captures,
        plots=raw["plots"],
        raw=raw,
    )


# --- writing ------------------------------------------------------------------------------------


def _cell(v: Any) -> Any:
    if isinstance(v, float):
        return "" if math.isnan(v) else repr(v)
    if isinstance(v, bool):
        return int(v)
    return v


def _csv(path: Path, rows: List[Dict[str, Any]], columns: Sequence[str]) -> None:
    import csv

    with writing(path), open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(columns)
        for r in rows:
            w.writerow([_cell(r[c]) for c in columns])


class _Table:
    """One table written as its rows come: ``NAME.csv``, ``NAME.parquet`` (in batches, the
    types fixed by the first) and a spool of JSON lines for ``analysis.json``."""

    BATCH = 4096

    def __init__(self, stage: Path, name: str, columns: Sequence[str]) -> None:
        self.stage, self.name, self.columns = stage, name, list(columns)
        self.csv_path = stage / f"{name}.csv"
        self.parquet_path = stage / f"{name}.parquet"
        self.jsonl_path = stage / f".{name}.jsonl"
        self.rows = 0
        self._batch: List[Dict[str, Any]] = []
        self._parquet = None
        self._schema = None
        import csv

        with writing(self.csv_path):
            self._csv_file = open(self.csv_path, "w", encoding="utf-8", newline="")
            self._csv = csv.writer(self._csv_file, lineterminator="\n")
            self._csv.writerow(self.columns)
        with writing(self.jsonl_path):
            self._jsonl = open(self.jsonl_path, "w", encoding="utf-8")

    def add(self, row: Dict[str, Any]) -> None:
        with writing(self.csv_path):
            self._csv.writerow([_cell(row[c]) for c in self.columns])
        with writing(self.jsonl_path):
            self._jsonl.write(json.dumps(_json_safe(row)) + "\n")
        self._batch.append(row)
        self.rows += 1
        if len(self._batch) >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        if not self._batch and self._parquet is not None:
            return
        import pandas as pd
        import pyarrow as pa
        import pyarrow.parquet as pq

        frame = pd.DataFrame(self._batch, columns=self.columns)
        with writing(self.parquet_path):
            if self._parquet is None:
                table = pa.Table.from_pandas(frame, preserve_index=False)
                self._schema = table.schema
                self._parquet = pq.ParquetWriter(self.parquet_path, self._schema)
            else:
                table = pa.Table.from_pandas(frame, schema=self._schema, preserve_index=False)
            self._parquet.write_table(table)
        self._batch = []

    def close(self) -> List[str]:
        """Finish the files; their names."""
        self._flush()
        with writing(self.parquet_path):
            self._parquet.close()
        with writing(self.csv_path):
            self._csv_file.close()
        with writing(self.jsonl_path):
            self._jsonl.close()
        return [self.csv_path.name, self.parquet_path.name]

    def abandon(self) -> None:
        """Close whatever is open (after ``close``, nothing)."""
        for f in (self._csv_file, self._jsonl):
            f.close()
        if self._parquet is not None and self._parquet.is_open:
            self._parquet.close()

    def json_array(self, out) -> None:
        """The rows as a JSON array, into the open text file ``out``; the spool is removed."""
        out.write("[")
        with open(self.jsonl_path, encoding="utf-8") as f:
            for i, line in enumerate(f):
                out.write(("," if i else "") + "\n    " + line.rstrip("\n"))
        out.write("\n  ]" if self.rows else "]")
        self.jsonl_path.unlink()


class Shown:
    """What ``westwood analyze`` prints, kept as the rows come: the flows (or with
    ``per_capture`` the connections) and UDP flows, at most ``keep`` of each for the table,
    all of them spooled to a temporary file for ``--json``; the captures; the rows to plot."""

    def __init__(self, captures: int, keep: int, per_capture: bool, spool: bool) -> None:
        self.several = captures > 1
        self.keep, self.per_capture = keep, per_capture
        self.rows: List[Dict[str, Any]] = []
        self.udp_rows: List[Dict[str, Any]] = []
        self.count = {"rows": 0, "udp": 0}
        self.captures: List[Dict[str, Any]] = []
        self.plots: List[Dict[str, Any]] = []
        self._spools: Dict[str, Any] = {}
        if spool:
            import tempfile

            self._spools = {k: tempfile.TemporaryFile("w+", encoding="utf-8") for k in self.count}

    def _keep(self, which: str, row: Dict[str, Any]) -> None:
        kept = self.rows if which == "rows" else self.udp_rows
        if len(kept) < self.keep:
            kept.append(row)
        self.count[which] += 1
        if self._spools:
            self._spools[which].write(json.dumps(_json_safe(row)) + "\n")

    def handle(self, kind: str, raw: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Take one of the core's rows; the table row made of it, if any."""
        if kind == "capture":
            self.captures.append(raw)
        elif kind == "plot":
            self.plots.append(raw)
        elif kind == "udp":
            row = _udp_row(raw)
            self._keep("udp", row)
            return row
        else:
            row = _row(raw)
            # One capture: its connections are the flows; several: flows come combined.
            if (kind == "connection") == (self.per_capture or not self.several):
                self._keep("rows", row)
            return row
        return None

    def print_json(self, out) -> None:
        """``{"flows": [...], "udp": [...]}`` from the spools, closed after."""
        out.write('{"flows": [')
        for n, which in enumerate(("rows", "udp")):
            if n:
                out.write('], "udp": [')
            f = self._spools[which]
            f.seek(0)
            for i, line in enumerate(f):
                out.write(("," if i else "") + line.rstrip("\n"))
            f.close()
        out.write("]}\n")

    def close(self) -> None:
        for f in self._spools.values():
            f.close()

    @property
    def not_shown(self) -> int:
        return self.count["rows"] - len(self.rows)


class Streamed(Shown):
    """``westwood analyze --out DIR``: also the tables, written into ``stage`` as the rows come;
    ``finish`` closes them and writes ``analysis.json``. Memory does not grow with the rows."""

    def __init__(
        self,
        stage: Path,
        captures: int,
        keep: int = 0,
        per_capture: bool = False,
        spool: bool = False,
    ) -> None:
        super().__init__(captures, keep, per_capture, spool)
        self.stage = stage
        self.tables = {
            "connections": _Table(stage, "connections", COLUMNS),
            "flows": _Table(stage, "flows", COLUMNS),
        }
        self.udp: Optional[_Table] = None

    def handle(self, kind: str, raw: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        row = super().handle(kind, raw)
        if kind == "udp":
            self.udp_table().add(row)
        elif kind == "connection":
            self.tables["connections"].add(row)
            if not self.several:
                self.tables["flows"].add(row)
        elif kind == "flow":
            self.tables["flows"].add(row)
        return row

    def udp_table(self) -> _Table:
        if self.udp is None:
            self.udp = _Table(self.stage, "udp", UDP_COLUMNS)
        return self.udp

    def _all(self) -> Dict[str, _Table]:
        tables = dict(self.tables)
        if self.udp is not None:
            tables["udp"] = self.udp
        return tables

    def finish(self) -> List[str]:
        """Close the tables, write ``analysis.json``; the names of the files written."""
        names: List[str] = []
        tables = self._all()
        for t in tables.values():
            names += t.close()
        path = self.stage / ANALYSIS_JSON
        with writing(path), open(path, "w", encoding="utf-8") as out:
            out.write('{\n  "captures": ' + json.dumps(_json_safe(self.captures)))
            for key in ("flows", "connections", "udp"):
                out.write(f',\n  "{key}": ')
                if key in tables:
                    tables[key].json_array(out)
                else:
                    out.write("[]")
            out.write(',\n  "warnings": ' + json.dumps(capture_warnings(self.captures)) + "\n}\n")
        names.append(ANALYSIS_JSON)
        return names

    def close(self) -> None:
        super().close()
        for t in self._all().values():
            t.abandon()


def write(result: Analysis, out_dir: PathLike, plots: bool = True) -> List[Path]:
    """Write ``flows.csv``, ``connections.csv``, ``udp.csv`` (if any), ``flows.parquet``,
    ``connections.parquet``, ``analysis.json`` (the tables and the captures' descriptions) and,
    with ``plots``, the figures of ``result.plots`` (``plots.analysis_plots``). All or nothing:
    files appear in ``out_dir`` only once every one is written."""
    from . import plots as plotting

    out = Path(out_dir)
    with staged_directory(out) as stage:
        tables = Streamed(stage, captures=len(result.captures))
        try:
            for r in result.connections:
                tables.tables["connections"].add(r)
            if tables.several:
                for r in result.flows:
                    tables.tables["flows"].add(r)
            else:
                for r in result.connections:
                    tables.tables["flows"].add(r)
            for u in result.udp:
                tables.udp_table().add(u)
            tables.captures = result.captures
            names = tables.finish()
        finally:
            tables.close()
        if plots:
            names += [p.name for p in plotting.analysis_plots(result.plots, stage)]
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
        rtt = f"{ms(r['min_rtt_seconds'])}/{ms(r['mean_rtt_seconds'])}/{ms(r['max_rtt_seconds'])}"
        flight = r["max_flight_bytes"]
        body.append(
            [
                str(r["name"]),
                str(r["vantage"]),
                mbps(r["goodput_bps"]),
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
    p.add_argument(
        "--max-plotted",
        type=int,
        default=MAX_PLOTTED,
        metavar="N",
        help=f"with --out: figures of the N connection directions with the most data (default "
        f"{MAX_PLOTTED}); the tables have every one",
    )
    p.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="memory the analysis may hold (default 1GiB), e.g. 4GB: the connections open at "
        "once (a connection is over when closed for 60 s or quiet for 10 min), and with several "
        "captures the rows kept to combine them; beyond, exit 2 naming it",
    )
    p.set_defaults(func=cmd_analyze)


def cmd_analyze(args) -> int:
    import sys

    from ..run_command import parse_memory

    if args.max_plotted < 0:
        raise UsageError(f"--max-plotted {args.max_plotted}: must be 0 or more")
    max_memory = parse_memory(args.max_memory) if args.max_memory is not None else None
    plots = bool(args.out) and not args.no_plots
    options = dict(plots=plots, max_plotted=args.max_plotted, max_memory=max_memory)
    keep = 0 if args.json else MAX_PRINTED
    written: List[str] = []
    if args.out is not None and not args.out:
        raise UsageError("analyze --out '': give a directory")
    if args.out:
        from . import plots as plotting

        with staged_directory(Path(args.out)) as stage:
            shown: Shown = Streamed(stage, len(args.captures), keep, args.per_capture, args.json)
            try:
                stream(args.captures, shown.handle, **options)
                written = shown.finish()
                if plots:
                    written += [p.name for p in plotting.analysis_plots(shown.plots, stage)]
            except BaseException:
                shown.close()
                raise
    else:
        shown = Shown(len(args.captures), keep, args.per_capture, args.json)
        try:
            stream(args.captures, shown.handle, **options)
        except BaseException:
            shown.close()
            raise
    for w in capture_warnings(shown.captures):
        print(f"westwood: warning: {w}", file=sys.stderr)
    if args.json:
        shown.print_json(sys.stdout)
    else:
        if shown.rows:
            print(format_table(shown.rows))
        else:
            print("no TCP connection in the capture(s)")
        if shown.not_shown:
            where = f"{args.out}/flows.csv" if args.out else "the tables of --out DIR"
            print(f"... and {shown.not_shown} more row(s), not printed: every one is in {where}")
        for u in shown.udp_rows:
            print(
                f"udp {u['name']}: {u['packets']} packets, {mbps(u['rate_bps'])} Mbps "
                f"({u['src']} -> {u['dst']})"
            )
        if shown.count["udp"] > len(shown.udp_rows):
            print(f"... and {shown.count['udp'] - len(shown.udp_rows)} more UDP flow(s)")
    shown.close()
    if args.out and not args.json:
        print(f"wrote {len(written)} files to {args.out}/")
    return 0
