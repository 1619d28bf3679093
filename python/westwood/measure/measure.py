"""``westwood measure HOST``: the papers' Internet measurements as one command.

Seed 000 §6 (table 1) alternated FTP transfers with TCPW and Reno between UCLA and remote
hosts; seed 004 §4 alternated iperf transfers with TCPW ABSE and NewReno, captured them with
tcpdump and analysed them with tcptrace (rates per day, figs. 7-8; rate vs. RTT, fig. 10), and
measured n sessions of one protocol, or n vs. 10 - n of two, at once (§3, figs. 2-5). This
command does the same against an iperf3 server at HOST (`iperf3 -s` there).

* rounds interleave the congestion controls (round 1: tcpw, reno; round 2: tcpw, reno; ...), so
  slow changes of the path hit each alike;
* ``--parallel N``: each transfer is N sessions of one cc (iperf3 -P N): Jain's index;
* ``--mix N``: N sessions of the first cc and ``--total`` - N of the second at once, to two
  server ports (``--port P1,P2``: one iperf3 server each): friendliness;
* the congestion controls are made available as the testbed does, through ``westwood-emu
  hold``: the kernel's tcpw* registered when missing (and unregistered afterwards), other ccs
  through ``modprobe tcp_NAME``;
* ``--pcap`` captures every transfer with tcpdump (``pcap/``) and analyses it
  (``westwood analyze``): RTT samples, retransmissions, DUPACK runs per connection.

It records what the path showed (RTT, retransmissions, the loss they imply) beside the rates,
in ``westwood run``'s column names where they mean the same: ``transfers.csv`` (one row per
transfer), ``streams.csv`` (one per connection), ``summary.json``/``summary.md`` (per cc mean
and standard deviation), ``rates.png`` and ``rate_vs_rtt.png``. Each transfer's raw record goes
to ``runs/`` as it finishes: measuring again into the same directory (another day) adds rounds,
and the summary covers them all (``day`` column).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .. import units
from ..errors import UsageError
from ..files import make_directory, write_bytes_atomic, write_json_atomic, write_text_atomic
from ..kernel_names import ebpf_kernel_names, scenario_to_kernel

DEFAULT_PORT = 5201
AVAILABLE = Path("/proc/sys/net/ipv4/tcp_available_congestion_control")
POLL = 0.1  # seconds between checks of children: Ctrl-C is seen within that
# How long iperf3 may take past its --time to end the test: its last data and the control
# connection's closing exchange cross the same path, and on a congested one a segment lost
# again and again waits out RFC 6298's doubling timer (1 + 2 + ... + 64 s = 127 s).
END_GRACE_SECONDS = 180
# How long a busy iperf3 server is waited for. A client that went away (its control connection
# reset on a lossy path) leaves the server in that test until the server's receive timeout,
# iperf3's --rcv-timeout (120 s by default), ends it: the transfer tried again meets it busy.
BUSY_WAIT_SECONDS = 150
BUSY_POLL_SECONDS = 5


class MeasureFailed(RuntimeError):
    """A transfer could not be done (the server refused, iperf3 failed)."""


def parse_seconds(text: str) -> float:
    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ms|s|min|m)?\s*", text)
    if not m:
        raise UsageError(f"--duration {text!r}: expected seconds, e.g. 30s, 30, 2min")
    value = (
        float(m.group(1)) * {"ms": 1e-3, "s": 1.0, None: 1.0, "min": 60.0, "m": 60.0}[m.group(2)]
    )
    if value < 1:
        raise UsageError(f"--duration {text!r}: at least 1 s (iperf3 runs whole seconds)")
    return value


def kernel_cc(name: str) -> str:
    """The kernel congestion control of a name: a scenario's (``westwood``) through the
    registry, a kernel's as it is."""
    return scenario_to_kernel().get(name, name)


def available_ccs() -> List[str]:
    try:
        return AVAILABLE.read_text().split()
    except OSError:
        return []


def _preexec():
    from ..binaries import parent_death_signal

    return parent_death_signal(signal.SIGTERM)


# --- congestion controls -----------------------------------------------------------------------


@dataclass
class Held:
    """The ``westwood-emu hold`` child that keeps this measurement's congestion controls
    available (``None``: nothing needed holding)."""

    process: Optional[subprocess.Popen] = None


def ensure_ccs(ccs: Sequence[str]) -> Held:
    """Make every cc available for the measurement, as the testbed does: ``westwood-emu hold``
    registers the missing tcpw* (the papers' parameters; registered ones as they are) and
    ``modprobe``s the kernel's own, and holds them until ``unload``. Also as root with all of
    them there: while it holds the tcpw*, the kernel tests (which unload them) wait. A cc that
    cannot be made available: ``UsageError`` with the reason."""
    have = available_ccs()
    missing = [c for c in ccs if c not in have]
    uses_ebpf = any(c in ebpf_kernel_names() for c in ccs)
    if not missing and not (uses_ebpf and os.geteuid() == 0):
        return Held()
    from ..testbed import find_binary

    try:
        binary = find_binary()
    except FileNotFoundError as e:
        raise UsageError(f"{', '.join(missing) or ', '.join(ccs)}: {e}") from None
    proc = subprocess.Popen(
        [str(binary), "hold", ",".join(ccs)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=_preexec(),
    )
    # Its standard error is ours: what it waits for (the kernel tests' lock), or why it failed.
    assert proc.stdout is not None
    if proc.stdout.readline().strip() != "ready":
        code = proc.wait()
        raise UsageError(
            f"cannot make {', '.join(ccs)} available (`westwood-emu hold` exited with "
            f"status {code}; its reason is above)"
        )
    return Held(proc)


def unload(held: Held) -> None:
    """Let go of what ``ensure_ccs`` holds: ``westwood-emu hold`` unregisters what it
    registered when its standard input closes."""
    proc, held.process = held.process, None
    if proc is None:
        return
    try:
        proc.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        _stop(proc)


# --- children -----------------------------------------------------------------------------------


def _stop(proc: Optional[subprocess.Popen], sig: int = signal.SIGTERM, wait: float = 5.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    try:
        proc.send_signal(sig)
        proc.wait(timeout=wait)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    except ProcessLookupError:
        pass


def _collect(procs: Sequence[subprocess.Popen], timeout: float) -> List[Tuple[str, str]]:
    """Every process's (stdout, stderr), read while they run: iperf3 -J with many parallel
    streams writes more JSON than a pipe holds, and blocks until it is read (waiting first and
    reading after was a deadlock with --parallel 20). Polls so that Ctrl-C is seen at once;
    kills them at ``timeout``."""
    deadline = time.monotonic() + timeout
    outputs: List[Optional[Tuple[str, str]]] = [None] * len(procs)
    while any(o is None for o in outputs):
        if time.monotonic() > deadline:
            for p in procs:
                _stop(p, signal.SIGKILL)
            raise MeasureFailed(f"iperf3 had not finished {timeout:.0f} s after it started")
        for i, p in enumerate(procs):
            if outputs[i] is None:
                # communicate() keeps what it has read when it times out, and goes on next time.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    outputs[i] = p.communicate(timeout=POLL / len(procs))
    return [o for o in outputs if o is not None]


class Capture:
    """tcpdump writing ``path`` (as ``.NAME.partial``, renamed when it stops cleanly)."""

    def __init__(self, interface: str, path: Path, snaplen: int, expression: str):
        self.path = path
        self.partial = path.with_name(f".{path.name}.partial")
        tcpdump = shutil.which("tcpdump")
        if tcpdump is None:
            raise UsageError("--pcap needs tcpdump: apt-get install tcpdump")
        # --immediate-mode: every packet reaches the file at once (with the default ring-buffer
        # timeout the packets of the last block would be lost when it stops).
        args = [tcpdump, "-i", interface, "-s", str(snaplen), "-n", "-U", "--immediate-mode"]
        args += ["-w", str(self.partial)]
        self.err = open(path.with_name(f".{path.name}.stderr"), "w+b")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [*args, expression],
            stdout=subprocess.DEVNULL,
            stderr=self.err,
            preexec_fn=_preexec(),
        )
        # Ready once it says it listens (or it failed).
        deadline = time.monotonic() + 10
        while True:
            self.err.seek(0)
            text = self.err.read().decode(errors="replace")
            if "listening on" in text:
                break
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise UsageError(
                    f"tcpdump did not start on {interface}: {text.strip() or 'timed out'}"
                )
            time.sleep(0.05)

    def stop(self) -> Dict[str, int]:
        """Stop it, keep the file, and return its counts (captured, dropped by the kernel)."""
        time.sleep(0.2)  # the last packets (FIN, the final ACKs)
        _stop(self.proc, signal.SIGINT)
        self.err.seek(0)
        text = self.err.read().decode(errors="replace")
        counts = {}
        for key, pattern in (
            ("captured", r"(\d+) packets? captured"),
            ("dropped_by_kernel", r"(\d+) packets? dropped by kernel"),
        ):
            m = re.search(pattern, text)
            counts[key] = int(m.group(1)) if m else -1
        os.replace(self.partial, self.path)
        self.close()
        return counts

    def close(self) -> None:
        _stop(self.proc)
        self.err.close()
        for p in (self.partial, Path(self.err.name)):
            try:
                p.unlink()
            except FileNotFoundError:
                pass


# --- one transfer -------------------------------------------------------------------------------


@dataclass
class Plan:
    """What each transfer runs: ``sessions`` = [(cc, count, port)] at once."""

    label: str
    sessions: List[Tuple[str, int, int]]


def iperf3_client(host: str, port: int, seconds: int, cc: str, streams: int) -> subprocess.Popen:
    iperf3 = shutil.which("iperf3")
    if iperf3 is None:
        raise UsageError("measure needs iperf3: apt-get install iperf3")
    args = [iperf3, "-c", host, "-p", str(port), "-t", str(seconds), "-C", cc, "-J"]
    if streams > 1:
        args += ["-P", str(streams)]
    return subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=_preexec(), text=True
    )


def run_transfer(
    host: str,
    plan: Plan,
    seconds: int,
    capture: Optional[Tuple[str, Path, int]],
    busy_wait: float = BUSY_WAIT_SECONDS,
) -> Dict[str, Any]:
    """One transfer: every session of ``plan`` at once, captured when asked. Returns the raw
    record (iperf3's JSON per session, capture counts, times). A failed transfer is tried once
    more; a busy server is waited for up to ``busy_wait`` seconds."""
    failed_before = False
    busy_since: Optional[float] = None
    while True:
        cap = None
        procs: List[subprocess.Popen] = []
        try:
            if capture is not None:
                interface, path, snaplen = capture
                ports = " or ".join(f"tcp port {p}" for _, _, p in plan.sessions)
                cap = Capture(interface, path, snaplen, f"host {host} and ({ports})")
            started = _dt.datetime.now(_dt.timezone.utc)
            procs = [iperf3_client(host, port, seconds, cc, n) for cc, n, port in plan.sessions]
            outputs = _collect(procs, seconds + END_GRACE_SECONDS)
            counts = cap.stop() if cap is not None else None
            cap = None
        finally:
            for p in procs:
                _stop(p)
            if cap is not None:
                cap.close()
        results = []
        busy = False
        failure = None
        for (cc, n, port), (out, err) in zip(plan.sessions, outputs):
            try:
                data = json.loads(out)
            except json.JSONDecodeError:
                failure = (
                    f"iperf3 to {host}:{port} ({cc}) gave no JSON: {(err or out).strip()[:300]}"
                )
                break
            if "error" in data:
                if "busy" in data["error"]:
                    busy = True
                else:
                    failure = f"iperf3 to {host}:{port} ({cc}): {data['error']}"
                    break
            results.append({"cc": cc, "streams": n, "port": port, "iperf3": data})
        if failure is not None:
            # A transfer that failed once (on a lossy path iperf3's control connection can be
            # reset: seen once in 10 transfers over the emulated NASA path) is tried again
            # once, so that one failure does not end a day's campaign; a second ends it.
            if not failed_before:
                print(f"transfer failed, trying it again: {failure}", file=sys.stderr)
                failed_before = True
                time.sleep(2)
                continue
            raise MeasureFailed(failure)
        if busy:
            now = time.monotonic()
            busy_since = now if busy_since is None else busy_since
            if now - busy_since >= busy_wait:
                raise MeasureFailed(
                    f"the iperf3 server at {host} stayed busy for {busy_wait:.0f} s (another "
                    "client is testing)"
                )
            time.sleep(min(BUSY_POLL_SECONDS, busy_wait))
            continue
        return {
            "label": plan.label,
            "started": started.isoformat(),
            "seconds": seconds,
            "sessions": results,
            "capture": None
            if capture is None
            else {"file": capture[1].name, "tcpdump": counts, "snaplen": capture[2]},
        }


# --- rows ---------------------------------------------------------------------------------------

STREAM_COLUMNS = (
    "name",
    "cc",
    "src",
    "dst",
    "goodput_bps",
    "throughput_bps",
    "bytes_delivered",
    "segments_sent",
    "retransmits",
    "active_seconds",
    "min_rtt_seconds",
    "mean_rtt_seconds",
    "max_rtt_seconds",
    "bytes_sent",
    "retransmission_rate",
    "pcap_retransmits",
    "pcap_min_rtt_seconds",
    "pcap_mean_rtt_seconds",
    "pcap_max_rtt_seconds",
    "pcap_rtt_samples",
    "pcap_dupack_runs_3",
    "pcap_out_of_order",
    "pcap_bytes_delivered",
    "round",
    "transfer",
    "started",
    "day",
    "local_port",
    "remote_port",
)
TRANSFER_COLUMNS = (
    "transfer",
    "round",
    "label",
    "cc",
    "sessions",
    "goodput_bps",
    "rate_per_session_bps",
    "bytes_delivered",
    "retransmits",
    "retransmission_rate",
    "rtt_seconds",
    "min_rtt_seconds",
    "jain_index",
    "started",
    "day",
    "capture",
)


def _f(v: Any) -> float:
    return math.nan if v is None else float(v)


def stream_rows(
    record: Dict[str, Any], analysis: Optional[Dict[int, Dict[str, Any]]]
) -> List[Dict[str, Any]]:
    """One row per data connection of a transfer record (``analysis``: pcap rows by local
    port)."""
    rows = []
    day = record["started"][:10]
    for s in record["sessions"]:
        data = s["iperf3"]
        connected = {c["socket"]: c for c in data.get("start", {}).get("connected", [])}
        for i, st in enumerate(data.get("end", {}).get("streams", [])):
            snd, rcv = st.get("sender", {}), st.get("receiver", {})
            conn = connected.get(snd.get("socket"), {})
            seconds = _f(rcv.get("seconds") or snd.get("seconds"))
            delivered = int(rcv.get("bytes", 0))
            sent = int(snd.get("bytes", 0))
            a = (analysis or {}).get(conn.get("local_port"))
            mss = (a or {}).get("segment_size") or 1448
            retx = int(snd.get("retransmits", 0) or 0)
            row = {
                # Transfer number, cc, session: "3/tcpw.0".
                "name": f"{record['transfer']}/{s['cc']}.{i}",
                "cc": s["cc"],
                "src": conn.get("local_host", ""),
                "dst": conn.get("remote_host", ""),
                "goodput_bps": delivered * 8 / seconds if seconds > 0 else math.nan,
                "throughput_bps": a["throughput_bps"] if a else math.nan,
                "bytes_delivered": delivered,
                "segments_sent": a["segments_sent"] if a else math.nan,
                "retransmits": retx,
                "active_seconds": seconds,
                "min_rtt_seconds": _f(snd.get("min_rtt")) / 1e6,
                "mean_rtt_seconds": _f(snd.get("mean_rtt")) / 1e6,
                "max_rtt_seconds": _f(snd.get("max_rtt")) / 1e6,
                "bytes_sent": sent,
                "retransmission_rate": (
                    retx / a["segments_sent"]
                    if a and a["segments_sent"]
                    else (retx * mss / sent if sent else math.nan)
                ),
                "pcap_retransmits": a["retransmits"] if a else math.nan,
                "pcap_min_rtt_seconds": a["min_rtt_seconds"] if a else math.nan,
                "pcap_mean_rtt_seconds": a["mean_rtt_seconds"] if a else math.nan,
                "pcap_max_rtt_seconds": a["max_rtt_seconds"] if a else math.nan,
                "pcap_rtt_samples": a["rtt_samples"] if a else math.nan,
                "pcap_dupack_runs_3": a["dupack_runs_3"] if a else math.nan,
                "pcap_out_of_order": a["out_of_order"] if a else math.nan,
                "pcap_bytes_delivered": a["bytes_delivered"] if a else math.nan,
                "round": record["round"],
                "transfer": record["transfer"],
                "started": record["started"],
                "day": day,
                "local_port": conn.get("local_port", ""),
                "remote_port": conn.get("remote_port", ""),
            }
            rows.append(row)
    return rows


def transfer_rows(record: Dict[str, Any], streams: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """One row per cc of a transfer (a mix has two)."""
    from .. import _core

    rows = []
    everyone = [r["goodput_bps"] for r in streams]
    for cc in dict.fromkeys(r["cc"] for r in streams):
        mine = [r for r in streams if r["cc"] == cc]
        good = [r["goodput_bps"] for r in mine]
        retx = sum(r["retransmits"] for r in mine)
        segs = [r["segments_sent"] for r in mine]
        sent = sum(r["bytes_sent"] for r in mine)
        rate = (
            retx / sum(segs)
            if all(not math.isnan(s) for s in segs) and sum(segs) > 0
            else (retx * 1448 / sent if sent else math.nan)
        )
        rtts = [r["mean_rtt_seconds"] for r in mine if not math.isnan(r["mean_rtt_seconds"])]
        mins = [r["min_rtt_seconds"] for r in mine if not math.isnan(r["min_rtt_seconds"])]
        rows.append(
            {
                "transfer": record["transfer"],
                "round": record["round"],
                "label": record["label"],
                "cc": cc,
                "sessions": len(mine),
                "goodput_bps": sum(good),
                "rate_per_session_bps": sum(good) / len(good) if good else math.nan,
                "bytes_delivered": sum(r["bytes_delivered"] for r in mine),
                "retransmits": retx,
                "retransmission_rate": rate,
                "rtt_seconds": sum(rtts) / len(rtts) if rtts else math.nan,
                "min_rtt_seconds": min(mins) if mins else math.nan,
                "jain_index": _core.jain_index(everyone) if len(everyone) > 1 else math.nan,
                "started": record["started"],
                "day": record["started"][:10],
                "capture": (record.get("capture") or {}).get("file", ""),
            }
        )
    return rows


def summarize(transfers: List[Dict[str, Any]], baseline: Optional[str]) -> Dict[str, Any]:
    """Per cc: mean and standard deviation over transfers; ratios to ``baseline``; the path."""

    def mean_sd(values: List[float]) -> Dict[str, float]:
        v = [x for x in values if not math.isnan(x)]
        if not v:
            return {"mean": math.nan, "sd": math.nan, "n": 0}
        m = sum(v) / len(v)
        sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else math.nan
        return {"mean": m, "sd": sd, "n": len(v)}

    per_cc = {}
    for cc in dict.fromkeys(t["cc"] for t in transfers):
        mine = [t for t in transfers if t["cc"] == cc]
        per_cc[cc] = {
            "transfers": len(mine),
            "goodput_bps": mean_sd([t["goodput_bps"] for t in mine]),
            "rate_per_session_bps": mean_sd([t["rate_per_session_bps"] for t in mine]),
            "retransmits": mean_sd([float(t["retransmits"]) for t in mine]),
            "retransmission_rate": mean_sd([t["retransmission_rate"] for t in mine]),
            "rtt_seconds": mean_sd([t["rtt_seconds"] for t in mine]),
            "min_rtt_seconds": mean_sd([t["min_rtt_seconds"] for t in mine]),
            "jain_index": mean_sd([t["jain_index"] for t in mine]),
            "days": sorted(set(t["day"] for t in mine)),
        }
    ratios = {}
    if baseline in per_cc:
        base = per_cc[baseline]["rate_per_session_bps"]["mean"]
        for cc, s in per_cc.items():
            if cc != baseline and base and not math.isnan(base):
                ratios[f"{cc}/{baseline}"] = s["rate_per_session_bps"]["mean"] / base
    # Friendliness (mixes): per transfer, the mean session rate of one cc over the other's.
    friendly = []
    by_transfer: Dict[int, List[Dict[str, Any]]] = {}
    for t in transfers:
        by_transfer.setdefault(t["transfer"], []).append(t)
    for rows in by_transfer.values():
        if len(rows) == 2:
            a, b = rows
            if b["rate_per_session_bps"] > 0:
                friendly.append(a["rate_per_session_bps"] / b["rate_per_session_bps"])
    out: Dict[str, Any] = {"per_cc": per_cc, "ratios": ratios}
    if friendly:
        out["friendliness"] = {
            "pair": f"{by_transfer[next(iter(by_transfer))][0]['cc']}/"
            f"{by_transfer[next(iter(by_transfer))][1]['cc']}",
            **mean_sd(friendly),
        }
    return out


def format_summary(summary: Dict[str, Any], path: Dict[str, Any]) -> str:
    lines = [
        "| cc | transfers | rate per session (Mb/s) | total goodput (Mb/s) | retransmits | "
        "retransmission rate | RTT (ms) | min RTT (ms) | Jain |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]

    def mean_sd(d: Dict[str, float], show) -> str:
        if d["n"] == 0:
            return "-"
        sd = "" if math.isnan(d["sd"]) else f" ± {show(d['sd'])}"
        return f"{show(d['mean'])}{sd}"

    def fixed(scale: float, digits: int):
        return lambda v: f"{v * scale:.{digits}f}"

    for cc, s in summary["per_cc"].items():
        lines.append(
            f"| {cc} | {s['transfers']} | {mean_sd(s['rate_per_session_bps'], units.mbps)} | "
            f"{mean_sd(s['goodput_bps'], units.mbps)} | {mean_sd(s['retransmits'], fixed(1, 0))} | "
            f"{mean_sd(s['retransmission_rate'], fixed(100, 2))} % | "
            f"{mean_sd(s['rtt_seconds'], units.ms)} | {mean_sd(s['min_rtt_seconds'], units.ms)} | "
            f"{mean_sd(s['jain_index'], fixed(1, 3))} |"
        )
    for k, v in summary["ratios"].items():
        lines.append(f"\nrate ratio {k}: {v:.3f}")
    if "friendliness" in summary:
        f = summary["friendliness"]
        lines.append(
            f"\nfriendliness ({f['pair']} mean session rate): {f['mean']:.3f} (n = {f['n']})"
        )
    lines.append(
        f"\npath: {path.get('host')} ({path.get('address')}), via {path.get('interface')}; "
        f"kernel {path.get('kernel')}"
    )
    return "\n".join(lines) + "\n"


# --- the command --------------------------------------------------------------------------------


def _route(address: str) -> Tuple[str, str]:
    """(interface, source address) of the route to ``address``."""
    ip = shutil.which("ip")
    if ip is None:
        return "any", ""
    out = subprocess.run([ip, "-j", "route", "get", address], capture_output=True, text=True)
    try:
        r = json.loads(out.stdout)[0]
        return r.get("dev", "any"), r.get("prefsrc", "")
    except (ValueError, IndexError, KeyError):
        return "any", ""


def _reachable(address: str, port: int) -> Optional[str]:
    try:
        with socket.create_connection((address, port), timeout=5):
            return None
    except OSError as e:
        return str(e)


def add_parser(sub) -> None:
    p = sub.add_parser(
        "measure",
        help="alternate iperf3 transfers per congestion control to HOST (the papers' Internet "
        "method), captured and analysed",
        description=__doc__.split("\n\n")[1] if __doc__ else None,
    )
    p.add_argument("host", metavar="HOST", help="host running `iperf3 -s` (name or address)")
    p.add_argument(
        "--cc",
        default="tcpw,reno",
        metavar="CC[,CC...]",
        help="congestion controls to alternate (kernel names: tcpw, tcpw_abse, reno, cubic, ...; "
        "scenario names such as westwood-abse are mapped); default tcpw,reno",
    )
    p.add_argument("--duration", default="30s", help="length of each transfer (default 30s)")
    p.add_argument("--rounds", type=int, default=1, help="rounds of transfers (default 1)")
    p.add_argument(
        "--parallel",
        type=int,
        default=1,
        metavar="N",
        help="N sessions of one cc per transfer (seed 004 figs. 2-3): Jain's index",
    )
    p.add_argument(
        "--mix",
        type=int,
        metavar="N",
        help="N sessions of the first cc and TOTAL - N of the second at once (seed 004 figs. "
        "4-5), to two server ports (--port P1,P2)",
    )
    p.add_argument("--total", type=int, default=10, help="sessions in all with --mix (default 10)")
    p.add_argument(
        "--port",
        default=str(DEFAULT_PORT),
        metavar="P[,P2]",
        help="iperf3 server port(s) (default 5201; --mix needs two: one server each)",
    )
    p.add_argument(
        "--pcap", action="store_true", help="capture each transfer (tcpdump) and analyse it"
    )
    p.add_argument("--snaplen", type=int, default=128, help="bytes kept per packet (default 128)")
    p.add_argument("--interface", help="where tcpdump listens (default: the route's interface)")
    p.add_argument("--pause", type=float, default=1.0, help="seconds between transfers (default 1)")
    p.add_argument(
        "--out",
        metavar="DIR",
        help="results directory (default measure-HOST); measuring into it again adds rounds",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=cmd_measure)


def _plans(args, ccs: List[str], ports: List[int]) -> List[Plan]:
    if args.mix is not None:
        if len(ccs) != 2:
            raise UsageError("--mix N compares two congestion controls: give --cc A,B")
        if not 0 <= args.mix <= args.total or args.total < 1:
            raise UsageError(f"--mix {args.mix}: between 0 and --total ({args.total})")
        if len(ports) < 2:
            raise UsageError(
                "--mix runs two iperf3 clients at once: give two server ports, --port P1,P2 "
                "(start `iperf3 -s -p P1` and `iperf3 -s -p P2` on HOST)"
            )
        sessions = [(ccs[0], args.mix, ports[0]), (ccs[1], args.total - args.mix, ports[1])]
        sessions = [s for s in sessions if s[1] > 0]
        return [Plan(f"{ccs[0]}x{args.mix}+{ccs[1]}x{args.total - args.mix}", sessions)]
    return [Plan(cc, [(cc, args.parallel, ports[0])]) for cc in ccs]


def cmd_measure(args) -> int:
    ccs = [kernel_cc(c.strip()) for c in args.cc.split(",") if c.strip()]
    if not ccs:
        raise UsageError("--cc: give at least one congestion control")
    seconds = parse_seconds(args.duration)
    if args.rounds < 1 or args.parallel < 1:
        raise UsageError("--rounds and --parallel must be at least 1")
    if not 64 <= args.snaplen <= 262144:
        raise UsageError(f"--snaplen {args.snaplen}: 64 to 262144 bytes")
    try:
        ports = [int(p) for p in args.port.split(",") if p.strip()]
    except ValueError:
        raise UsageError(f"--port {args.port!r}: port numbers, comma-separated") from None
    plans = _plans(args, ccs, ports)
    if shutil.which("iperf3") is None:
        raise UsageError("measure needs iperf3 (apt-get install iperf3)")
    if args.pcap:
        if shutil.which("tcpdump") is None:
            raise UsageError("--pcap needs tcpdump (apt-get install tcpdump)")
        if os.geteuid() != 0:
            raise UsageError(
                "--pcap captures with tcpdump, which needs root (or CAP_NET_RAW): run with sudo"
            )
    try:
        address = socket.getaddrinfo(args.host, None, proto=socket.IPPROTO_TCP)[0][4][0]
    except socket.gaierror as e:
        raise UsageError(f"cannot resolve {args.host}: {e}") from None
    for p in sorted({s[2] for plan in plans for s in plan.sessions}):
        why = _reachable(address, p)
        if why is not None:
            raise UsageError(
                f"no iperf3 server at {args.host}:{p} ({why}): start one there with "
                f"`iperf3 -s -p {p}`"
            )
    interface, source = _route(address)
    interface = args.interface or interface
    out = make_directory(args.out or f"measure-{args.host}")
    runs_dir = make_directory(out / "runs")
    pcap_dir = make_directory(out / "pcap") if args.pcap else None
    held = ensure_ccs(sorted(set(ccs)))
    done = len(list(runs_dir.glob("*.json")))
    first_round = 1 + max(
        (json.loads(f.read_text()).get("round", 0) for f in runs_dir.glob("*.json")), default=0
    )
    path_info = {
        "host": args.host,
        "address": address,
        "interface": interface,
        "source": source,
        "kernel": os.uname().release,
    }
    failed = None
    total, started = args.rounds * len(plans), 0
    try:
        for r in range(first_round, first_round + args.rounds):
            for plan in plans:
                if started:
                    time.sleep(max(0.0, args.pause))
                started += 1
                done += 1
                stem = f"{done:04d}-r{r}-{plan.label}"
                capture = (interface, pcap_dir / f"{stem}.pcap", args.snaplen) if pcap_dir else None
                print(
                    f"round {r}: {plan.label} "
                    f"({', '.join(f'{n} x {cc}' for cc, n, _ in plan.sessions)}), "
                    f"{int(seconds)} s ...",
                    file=sys.stderr,
                )
                record = run_transfer(address, plan, int(seconds), capture)
                record.update({"round": r, "transfer": done, "path": path_info})
                if capture is not None:
                    from .analyze import analyze

                    # The connections of the capture (data and iperf3's control ones), table
                    # rows without the plot data.
                    record["analysis"] = analyze([capture[1]], plots=False).flows
                write_json_atomic(runs_dir / f"{stem}.json", record)
    except MeasureFailed as err:
        failed = f"transfer {started} of {total} failed: {err}"
    finally:
        unload(held)
    code = report(
        out, baseline=ccs[-1] if args.mix is None and len(ccs) > 1 else None, as_json=args.json
    )
    if failed:
        print(
            f"westwood: error: {failed} (finished transfers are kept in {runs_dir})",
            file=sys.stderr,
        )
        return 1
    return code


def load_records(out: Path) -> List[Dict[str, Any]]:
    records = []
    for f in sorted(Path(out, "runs").glob("*.json")):
        try:
            records.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, ValueError) as e:
            raise UsageError(f"{f}: not a measure record ({e}): remove it or fix it") from None
    return records


def tables(
    records: Sequence[Dict[str, Any]],
) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """The rows of ``streams.csv`` and ``transfers.csv`` of these records (``load_records``):
    what the report writes, and what a reproduction through ``measure`` reads."""
    streams: List[Dict[str, Any]] = []
    transfers: List[Dict[str, Any]] = []
    for rec in records:
        by_port = {}
        for row in rec.get("analysis") or []:
            by_port[row["src_port"]] = row
        s = stream_rows(rec, by_port if rec.get("analysis") is not None else None)
        streams += s
        transfers += transfer_rows(rec, s)
    return streams, transfers


def report(out: Path, baseline: Optional[str], as_json: bool = False) -> int:
    """Write the tables, summary and figures of every record in ``out/runs``."""
    from . import plots
    from .analyze import _csv, _json_safe

    records = load_records(out)
    streams, transfers = tables(records)
    for name, rows, columns in (
        ("streams.csv", streams, STREAM_COLUMNS),
        ("transfers.csv", transfers, TRANSFER_COLUMNS),
    ):
        write_bytes_atomic(
            out / name, lambda tmp, rows=rows, columns=columns: _csv(Path(tmp), rows, columns)
        )
    summary = summarize(transfers, baseline)
    path = records[-1]["path"] if records else {}
    summary["path"] = path
    summary["records"] = len(records)
    write_json_atomic(out / "summary.json", _json_safe(summary))
    write_text_atomic(out / "summary.md", format_summary(summary, path))
    if transfers:
        plots.rates_per_transfer(
            transfers, out / "rates", f"Rates per transfer to {path.get('host')}"
        )
        plots.rate_vs_rtt(transfers, out / "rate_vs_rtt")
    if as_json:
        print(json.dumps(_json_safe(summary)))
    else:
        print(format_summary(summary, path), end="")
        print(
            f"wrote {out}/ (transfers.csv, streams.csv, summary.json, summary.md, rates.png, "
            "rate_vs_rtt.png)"
        )
    return 0
