"""`westwood measure` (docs/measurement.md): the report from recorded transfers, the
prerequisite checks, transfers over loopback, and, as root with the binaries built, a
measurement through the link emulator (`westwood emu path`) checked against the emulator's own
counters, and the testbed's captures (`westwood testbed --pcap`)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from conftest import REPO, cli
from westwood.measure import measure as m

IPERF3 = shutil.which("iperf3")
ROOT = os.geteuid() == 0
EMU = REPO / "target" / "release" / "westwood-emu"


def _syn_retransmissions(paths) -> dict:
    """Per TCP source port, the SYNs (without ACK) beyond the first in classic little-endian
    Ethernet pcap files (what the emulator writes): a connection's SYN retransmissions, which
    the kernel counts among its retransmissions and the capture analysis, counting data
    segments, does not."""
    import struct

    syns: dict = {}
    for path in paths:
        data = path.read_bytes()
        assert data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"), path
        assert struct.unpack_from("<I", data, 20)[0] == 1, f"{path}: not Ethernet"
        at = 24
        while at + 16 <= len(data):
            caplen = struct.unpack_from("<I", data, at + 8)[0]
            frame = data[at + 16 : at + 16 + caplen]
            at += 16 + caplen
            if len(frame) < 34 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
                continue
            tcp = 14 + 4 * (frame[14] & 0x0F)
            if len(frame) >= tcp + 14 and frame[tcp + 13] & 0x12 == 0x02:
                port = struct.unpack_from(">H", frame, tcp)[0]
                syns[port] = syns.get(port, 0) + 1
    return {port: n - 1 for port, n in syns.items()}


def _iperf3_json(bytes_received: int, seconds: float, retransmits: int, rtt_us: int, port: int):
    return {
        "start": {
            "connected": [
                {
                    "socket": 5,
                    "local_host": "10.0.0.1",
                    "local_port": port,
                    "remote_host": "10.0.0.2",
                    "remote_port": 5201,
                }
            ]
        },
        "end": {
            "streams": [
                {
                    "sender": {
                        "socket": 5,
                        "bytes": bytes_received + 1000,
                        "seconds": seconds,
                        "retransmits": retransmits,
                        "min_rtt": rtt_us,
                        "mean_rtt": rtt_us + 1000,
                        "max_rtt": rtt_us + 5000,
                    },
                    "receiver": {"socket": 5, "bytes": bytes_received, "seconds": seconds},
                }
            ]
        },
    }


def _record(transfer: int, rnd: int, cc: str, rate_bps: float, rtt_us: int, day: str):
    return {
        "label": cc,
        "started": f"{day}T10:00:0{transfer % 10}+00:00",
        "seconds": 10,
        "sessions": [
            {
                "cc": cc,
                "streams": 1,
                "port": 5201,
                "iperf3": _iperf3_json(int(rate_bps * 10 / 8), 10.0, 3, rtt_us, 40000 + transfer),
            }
        ],
        "capture": None,
        "round": rnd,
        "transfer": transfer,
        "path": {"host": "far", "address": "10.0.0.2", "interface": "e0", "kernel": "x"},
    }


def test_report_from_recorded_transfers(tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    rates = {"tcpw": [2e6, 2.2e6, 1.8e6], "reno": [1e6, 1.1e6, 0.9e6]}
    n = 0
    for r in range(3):
        for cc in ("tcpw", "reno"):
            n += 1
            rec = _record(
                n, r + 1, cc, rates[cc][r], 100_000 + 50_000 * r, "2026-01-0" + str(r + 1)
            )
            (runs / f"{n:04d}.json").write_text(json.dumps(rec))
    assert m.report(tmp_path, baseline="reno") == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["per_cc"]["tcpw"]["transfers"] == 3
    assert summary["per_cc"]["tcpw"]["rate_per_session_bps"]["mean"] == pytest.approx(2e6)
    assert summary["per_cc"]["tcpw"]["rate_per_session_bps"]["sd"] == pytest.approx(2e5)
    assert summary["ratios"]["tcpw/reno"] == pytest.approx(2.0)
    assert summary["per_cc"]["reno"]["days"] == ["2026-01-01", "2026-01-02", "2026-01-03"]
    header = (tmp_path / "streams.csv").read_text().splitlines()[0].split(",")
    assert header[:11] == [
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
    ]
    for f in ("transfers.csv", "summary.md", "rates.png", "rates.svg", "rate_vs_rtt.png"):
        assert (tmp_path / f).is_file(), f
    assert "| tcpw | 3 |" in (tmp_path / "summary.md").read_text()


def test_options_are_checked():
    with pytest.raises(Exception, match="at least 1 s"):
        m.parse_seconds("0.5s")
    assert m.parse_seconds("2min") == 120
    assert m.kernel_cc("westwood-abse") == "tcpw_abse" and m.kernel_cc("newreno") == "reno"
    r = cli("measure", "127.0.0.1", "--mix", "5", "--cc", "tcpw_abse,reno")
    assert r.returncode == 2 and "two server ports" in r.stderr
    r = cli("measure", "127.0.0.1", "--mix", "5", "--cc", "reno")
    assert r.returncode == 2 and "--cc A,B" in r.stderr


FAKE_HOLD = """#!/usr/bin/env python3
import sys
log = open(sys.argv[0] + ".log", "a")
log.write(" ".join(sys.argv[1:]) + "\\n")
log.flush()
if "no_such_cc" in sys.argv[2]:
    print("westwood-emu: error: congestion control no_such_cc is not available", file=sys.stderr)
    sys.exit(2)
print("ready", flush=True)
sys.stdin.read()
log.write("released\\n")
"""


def test_congestion_controls_are_held_through_westwood_emu_hold(tmp_path, monkeypatch):
    """measure makes its ccs available as the testbed does (`westwood-emu hold`, which
    registers and unregisters) and lets go at its end; nothing is spawned when nothing needs
    it, and a refusal is a usage error that names the command."""
    fake = tmp_path / "westwood-emu"
    fake.write_text(FAKE_HOLD)
    fake.chmod(0o755)
    log = tmp_path / "westwood-emu.log"
    monkeypatch.setenv("WESTWOOD_EMU_BIN", str(fake))
    monkeypatch.setattr(m, "available_ccs", lambda: ["reno", "cubic"])
    held = m.ensure_ccs(["reno", "tcpw"])
    assert held.process is not None and held.process.poll() is None
    assert log.read_text().splitlines() == ["hold reno,tcpw"]
    m.unload(held)
    assert held.process is None and log.read_text().splitlines()[-1] == "released"
    # Everything there and no tcpw*: nothing to hold.
    log.unlink()
    assert m.ensure_ccs(["reno", "cubic"]).process is None and not log.exists()
    with pytest.raises(Exception, match="westwood-emu hold` exited with status 2"):
        m.ensure_ccs(["no_such_cc"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(IPERF3 is None, reason="iperf3 is not installed (make deps installs it)")
def test_no_server_is_a_clear_error(tmp_path):
    port = _free_port()
    r = cli("measure", "127.0.0.1", "--port", str(port), "--cc", "reno", "--out", str(tmp_path))
    assert r.returncode == 2
    assert f"no iperf3 server at 127.0.0.1:{port}" in r.stderr and "iperf3 -s" in r.stderr


@pytest.fixture
def loopback_server():
    if IPERF3 is None:
        pytest.skip("iperf3 is not installed (make deps installs it)")
    port = _free_port()
    proc = subprocess.Popen(
        [IPERF3, "-s", "-B", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.05)
    yield port
    proc.terminate()
    proc.wait(timeout=5)


def test_alternating_transfers_over_loopback(loopback_server, tmp_path):
    """Two ccs, one round, 1 s each, over loopback (captured as root)."""
    out = tmp_path / "m"
    args = ["measure", "127.0.0.1", "--port", str(loopback_server), "--cc", "reno,cubic"]
    args += ["--duration", "1s", "--rounds", "1", "--pause", "0", "--out", str(out), "--json"]
    if ROOT and shutil.which("tcpdump"):
        args.append("--pcap")
    r = cli(*args)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(summary["per_cc"]) == {"reno", "cubic"}
    assert summary["ratios"] and "reno/cubic" in summary["ratios"]
    records = sorted((out / "runs").glob("*.json"))
    assert [json.loads(p.read_text())["label"] for p in records] == ["reno", "cubic"]
    if "--pcap" in args:
        streams = (out / "streams.csv").read_text().splitlines()
        assert len(streams) == 3
        assert len(list((out / "pcap").glob("*.pcap"))) == 2
        for rec in records:
            analysis = json.loads(rec.read_text())["analysis"]
            assert any(
                a["dst_port"] == loopback_server and a["bytes_delivered"] > 0 for a in analysis
            )


def test_a_transfer_whose_output_outgrows_a_pipe_is_read_while_it_runs():
    """iperf3 -J -P 20 writes more than a pipe holds and blocks until it is read: measure
    reads its children while they run (with --parallel 20 it once waited for them first, and
    both sides waited for each other until the timeout)."""
    writer = [sys.executable, "-c", "import sys; sys.stdout.write('x' * 1_000_000)"]
    procs = [
        subprocess.Popen(writer, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    started = time.monotonic()
    outputs = m._collect(procs, timeout=30)
    assert time.monotonic() - started < 10
    assert [len(out) for out, _ in outputs] == [1_000_000, 1_000_000]


def test_a_transfer_that_does_not_end_is_stopped_at_the_timeout():
    sleeper = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    with pytest.raises(m.MeasureFailed, match="had not finished 1 s"):
        m._collect([sleeper], timeout=1)
    assert sleeper.poll() is not None


def _fake_iperf3(tmp_path, monkeypatch, failures: int, busy: int = 0):
    """An iperf3 on PATH whose first ``failures`` calls report an error in its JSON (as iperf3
    does when its control connection is reset), whose next ``busy`` calls find the server busy,
    and whose later calls report a transfer."""
    count = tmp_path / "calls"
    fake = tmp_path / "bin" / "iperf3"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(
        f"""#!{sys.executable}
import json, pathlib
count = pathlib.Path({str(count)!r})
n = int(count.read_text()) + 1 if count.exists() else 1
count.write_text(str(n))
if n <= {failures}:
    print(json.dumps({{"error": "unable to receive control message: Connection reset by peer"}}))
elif n <= {failures + busy}:
    print(json.dumps({{"error": "the server is busy running a test. try again later"}}))
else:
    print(json.dumps({{"start": {{}}, "end": {{"streams": []}}}}))
"""
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    count.unlink(missing_ok=True)
    return count


def test_a_transfer_that_fails_once_is_tried_again(tmp_path, monkeypatch):
    calls = _fake_iperf3(tmp_path, monkeypatch, failures=1)
    record = m.run_transfer("127.0.0.1", m.Plan("reno", [("reno", 1, 5201)]), 1, None)
    assert calls.read_text() == "2"
    assert record["sessions"][0]["iperf3"]["end"] == {"streams": []}


def test_a_transfer_that_fails_twice_ends_the_measurement(tmp_path, monkeypatch):
    calls = _fake_iperf3(tmp_path, monkeypatch, failures=2)
    with pytest.raises(m.MeasureFailed, match="Connection reset by peer"):
        m.run_transfer("127.0.0.1", m.Plan("reno", [("reno", 1, 5201)]), 1, None)
    assert calls.read_text() == "2"


def test_a_server_left_busy_by_a_failed_transfer_is_waited_for(tmp_path, monkeypatch):
    # The first try's control connection resets; the server is then busy with that test for a
    # while (until iperf3's receive timeout ends it), then free.
    monkeypatch.setattr(m, "BUSY_POLL_SECONDS", 0.01)
    monkeypatch.setattr(m.time, "sleep", lambda s: None)
    calls = _fake_iperf3(tmp_path, monkeypatch, failures=1, busy=3)
    record = m.run_transfer("127.0.0.1", m.Plan("reno", [("reno", 1, 5201)]), 1, None)
    assert calls.read_text() == "5" and record["sessions"][0]["iperf3"]["end"] == {"streams": []}
    # A server that stays busy past the wait ends the measurement, saying so.
    _fake_iperf3(tmp_path, monkeypatch, failures=1, busy=1000)
    with pytest.raises(m.MeasureFailed, match="stayed busy for 0 s"):
        m.run_transfer("127.0.0.1", m.Plan("reno", [("reno", 1, 5201)]), 1, None, busy_wait=0)


# --- as root: an emulated path, the emulator's counters -----------------------------------------

needs_path = pytest.mark.skipif(
    not (ROOT and IPERF3 and shutil.which("tcpdump") and EMU.is_file()),
    reason="needs root, iperf3, tcpdump and target/release/westwood-emu (make build)",
)


@needs_path
def test_measure_through_the_emulator_agrees_with_its_counters(tmp_path):
    out, report = tmp_path / "m", tmp_path / "path.json"
    link = (
        'rate = "10Mbps"\\ndelay = "10ms"\\nqueue = 100\\n'
        'errors = { model = "bernoulli", rate = "1%" }'
    )
    inner = (
        f"{sys.executable} -m westwood measure $WESTWOOD_PATH_SERVER --cc tcpw,reno "
        f"--duration 3s --rounds 1 --pause 0 --pcap --out {out}"
    )
    proc = subprocess.run(
        [
            str(EMU),
            "path",
            "--link",
            link,
            "--load",
            "tcpw",
            "--report",
            str(report),
            "--",
            "sh",
            "-c",
            inner,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, "PYTHONPATH": str(REPO / "python")},
    )
    assert proc.returncode == 0, proc.stderr
    path = json.loads(report.read_text())
    forward, backward = (r["counters"] for r in path["routes"])
    client, server = path["client"], path["server"]
    records = [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]
    assert [r["label"] for r in records] == ["tcpw", "reno"]
    # Every packet of the client's is in the captures, as the emulator was offered it; every
    # packet of the server's, as the emulator delivered it (the captures are at the client).
    from westwood.measure import analyze

    a = analyze(sorted((out / "pcap").glob("*.pcap")))
    hosts = {}
    for cap in a.captures:
        for h in cap["hosts"]:
            p, b = hosts.get(h["addr"], (0, 0))
            hosts[h["addr"]] = (p + h["packets"], b + h["ip_bytes"])
        assert cap["warnings"] == []
    # Before the first transfer, measure checks the server answers: that connection (a handful
    # of small packets each way) is the only traffic outside the captures.
    for (packets, ip_bytes), counters, kind in (
        (hosts[client], forward, "offered"),
        (hosts[server], backward, "delivered"),
    ):
        assert 0 <= counters[f"{kind}_packets"] - packets <= 8, (packets, counters)
        assert 0 <= counters[f"{kind}_bytes"] - ip_bytes <= 8 * 60, (ip_bytes, counters)
    assert forward["drops_error"] > 0, "the path lost packets"
    # Per data connection: the bytes the server's iperf3 received are what the ACKs say, and
    # the RTT is the path's (2 x 10 ms plus queueing).
    streams = [line.split(",") for line in (out / "streams.csv").read_text().splitlines()]
    head, rows = streams[0], streams[1:]
    col = {name: i for i, name in enumerate(head)}
    assert len(rows) == 2
    by_port = {f["src_port"]: f for f in a.raw["flows"]}
    syn_retransmissions = _syn_retransmissions(sorted((out / "pcap").glob("*.pcap")))
    retransmits = 0
    for row in rows:
        port = int(row[col["local_port"]])
        flow = by_port[port]
        stopped = float(row[col["active_seconds"]])
        # iperf3's server counts a little less than TCP delivered: not the 37-byte cookie that
        # opens the data connection, nor what arrives after it stopped counting, at the test's
        # end, `active_seconds` after its start. The connection still delivers what the
        # client's socket held then, later still if a loss hits that tail (its retransmission
        # follows): at most what the capture's ACKs cover after `active_seconds` on its clock,
        # which starts at the SYN, before the test's start (so it counts no less than the tail).
        extra = float(row[col["pcap_bytes_delivered"]]) - float(row[col["bytes_delivered"]])
        assert flow["tseq_complete"], "a 3 s transfer is captured whole"
        acks = [ack for _, ack, _ in flow["tseq_acks"]]
        acked_by_stop = max((a for t, a, _ in flow["tseq_acks"] if t < stopped), default=0)
        tail = max(acks) - acked_by_stop
        assert 37 <= extra <= 37 + max(tail, 4 * 1448), (extra, tail, stopped)
        # The path's 2 x 10 ms, and at most its 100-packet queue's drain (1.2 ms a packet at
        # 10 Mb/s) and a packet's serialisation each way on top: which samples a 3 s transfer
        # takes before its queue builds depends on timing (a loaded machine's runs had minima
        # of 31 ms), so the bound is the path's, not an empty queue's.
        most = 0.020 + 100 * 0.0012 + 2 * 0.0012
        assert 0.020 <= float(row[col["pcap_min_rtt_seconds"]]) < most
        assert 0.020 <= float(row[col["min_rtt_seconds"]]) < most
        reported = int(row[col["retransmits"]])
        retransmits += reported
        # The kernel's count includes SYN retransmissions (a lost SYN or SYN-ACK), which the
        # capture analysis, counting data segments, leaves out.
        counted = reported - syn_retransmissions.get(port, 0)
        # iperf3's count is the kernel's (TCP_INFO) when the test ends, `active_seconds` after
        # its start; the connection then still sends what its socket holds, and a loss in that
        # tail is retransmitted after the count was taken. The capture's times run from the
        # connection's SYN, which precedes the test's start: every retransmission it shows
        # before `active_seconds` was counted, and those it shows beyond iperf3's count are
        # after it.
        times = sorted(t for t, _, _ in flow["tseq_retransmits"])
        assert len(times) == flow["retransmits"] == int(float(row[col["pcap_retransmits"]]))
        before = sum(1 for t in times if t < stopped)
        assert before <= counted <= len(times), (before, counted, times[-3:], stopped)
        assert all(t >= stopped for t in times[counted:]), (counted, times[-3:], stopped)
    # Retransmissions follow what the path dropped on the way to the server (its random errors
    # and its queue's overflows; a few more are spurious, a few drops hit packets that are not
    # data).
    drops = sum(forward[k] for k in ("drops_error", "drops_overflow", "drops_red", "drops_outage"))
    assert 0.5 * drops <= retransmits <= 2 * drops + 10, (retransmits, forward)


@needs_path
def test_testbed_captures_read_like_the_simulators(tmp_path):
    scenario = tmp_path / "lan.toml"
    scenario.write_text(
        """[scenario]
duration = "3s"
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"
queue = 100
errors = { model = "bernoulli", rate = "1%" }
[tcp]
cc = "reno"
segment_size = "1448B"
header_size = "52B"
[flows.f]
from = "a"
to = "b"
"""
    )
    out = tmp_path / "tb"
    proc = subprocess.run(
        [str(EMU), "testbed", str(scenario), "--out", str(out), "--pcap", "--duration", "3"],
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["testbed"]["pcap"]["dropped"] == 0
    names = sorted(p.name for p in (out / "pcap").iterdir())
    assert names == ["f.receiver.pcapng", "f.sender.pcapng"]
    assert sorted(p.name for p in (out / "simulator" / "pcap").iterdir()) == names
    from westwood.measure import analyze

    tb = analyze(sorted((out / "pcap").iterdir()))
    sim = analyze(sorted((out / "simulator" / "pcap").iterdir()))
    (f,) = [x for x in tb.flows if x["name"] == "f"]
    (g,) = [x for x in sim.flows if x["name"] == "f"]
    assert f["vantage"] == g["vantage"] == "sender + receiver"
    flow = summary["flows"][0]
    assert f["retransmits"] == flow["retransmits"]
    # The in-order bytes at the receiver hold what iperf3's server counted (and more: the
    # cookie iperf3 sends first, what arrived after it stopped counting).
    assert f["bytes_delivered"] >= flow["bytes_delivered"] + 37
    # Every packet the sender sent is in its capture as the emulator was offered it, and in the
    # receiver's as the emulator delivered it.
    route = summary["testbed"]["emulator"]["routes"][0]
    sender_ip = "10.201.1.1"
    for cap in tb.captures:
        (count,) = [h for h in cap["hosts"] if h["addr"] == sender_ip]
        kind = "offered" if cap["file"].endswith("f.sender.pcapng") else "delivered"
        assert (count["packets"], count["ip_bytes"]) == (
            route[f"{kind}_packets"],
            route[f"{kind}_bytes"],
        )
    assert (
        g["goodput_bps"]
        == json.loads((out / "simulator" / "summary.json").read_text())["flows"][0]["goodput_bps"]
    )
    if shutil.which("tshark"):
        for p in (out / "pcap").iterdir():
            r = subprocess.run(
                ["tshark", "-r", str(p), "-q", "-z", "expert,note"], capture_output=True, text=True
            )
            assert (
                r.returncode == 0
                and "Malformed" not in r.stdout
                and "checksum" not in r.stdout.lower()
            )
