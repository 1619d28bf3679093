"""Packet captures from the simulator (`westwood run --pcap`) and `westwood analyze`
(docs/measurement.md): tcpdump and tshark read every file without a warning, the analysis of a
flow's endpoint captures gives the simulator's own summary back, and bad input is refused."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import cli, cli_json

TCPDUMP = shutil.which("tcpdump")
TSHARK = shutil.which("tshark")


def _run_with_pcap(tmp_path: Path, name: str, scenario: str, *args: str) -> dict:
    out = tmp_path / name
    summary = cli_json("run", scenario, "--pcap", str(out), *args)
    return summary


@pytest.fixture(scope="module")
def captures(tmp_path_factory):
    """Captures of every kind: TCP without and with SACK, UDP CBR, pcap and pcapng."""
    tmp = tmp_path_factory.mktemp("captures")
    made = {}
    made["newreno"] = _run_with_pcap(
        tmp,
        "newreno",
        "wireless",
        "--set",
        "duration=20s",
        "--set",
        "loss=2%",
        "--set",
        "cc=newreno",
        "--pcap-links",
        "ftp.sender",
        "ftp.receiver",
        "wireless",
        "wired.reverse",
    )
    made["sack"] = _run_with_pcap(
        tmp,
        "sack",
        "wireless",
        "--set",
        "duration=20s",
        "--set",
        "loss=2%",
        "--set",
        "cc=sack",
        "--pcap-links",
        "ftp.sender",
        "ftp.receiver",
    )
    made["udp"] = _run_with_pcap(
        tmp, "udp", "udp_onoff", "--set", "duration=60s", "--pcap-format", "pcap"
    )
    files = sorted(p for p in tmp.rglob("*") if p.suffix in (".pcap", ".pcapng"))
    assert len(files) == 7, files
    return tmp, made, files


def test_run_prints_and_writes_the_captures(tmp_path):
    r = cli("run", "wireless", "--set", "duration=3s", "--pcap", str(tmp_path / "c"))
    assert r.returncode == 0, r.stderr
    assert f"capture: {tmp_path / 'c' / 'wireless.pcapng'}" in r.stdout
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["wireless.pcapng"]


def test_bad_capture_points_and_options_are_refused(tmp_path):
    r = cli("run", "wireless", "--pcap", str(tmp_path / "c"), "--pcap-links", "nope")
    assert r.returncode == 2
    assert "'nope'" in r.stderr and "wired" in r.stderr and "FLOW.sender" in r.stderr
    assert not (tmp_path / "c").exists()
    r = cli("run", "wireless", "--pcap-links", "wired")
    assert r.returncode == 2 and "--pcap-links needs --pcap DIR" in r.stderr
    r = cli("run", "wireless", "--pcap", str(tmp_path / "c"), "--pcap-snaplen", "10")
    assert r.returncode == 2 and "64 to 262144" in r.stderr


@pytest.mark.skipif(TCPDUMP is None, reason="tcpdump is not installed (make deps installs it)")
def test_tcpdump_reads_every_capture_without_a_warning(captures):
    _, _, files = captures
    for f in files:
        r = subprocess.run([TCPDUMP, "-nn", "-v", "-r", str(f)], capture_output=True, text=True)
        assert r.returncode == 0, (f, r.stderr)
        # Its only line on stderr says what it reads.
        assert r.stderr.strip().startswith("reading from file"), (f, r.stderr)
        assert len(r.stderr.strip().splitlines()) == 1, (f, r.stderr)
        assert r.stdout.count("\n") > 10
        assert "(correct)" in r.stdout or f.suffix == ".pcap", "checksums verified"
        for bad in ("truncated", "bad cksum", "incorrect", "[|"):
            assert bad not in r.stdout, (f, bad, [x for x in r.stdout.splitlines() if bad in x][:3])


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed (make deps installs it)")
def test_tshark_reads_every_capture_without_a_warning(captures):
    _, _, files = captures
    for f in files:
        r = subprocess.run(
            [TSHARK, "-r", str(f), "-q", "-z", "expert,note"], capture_output=True, text=True
        )
        assert r.returncode == 0, (f, r.stderr)
        stderr = [x for x in r.stderr.splitlines() if "Running as user" not in x and x.strip()]
        assert stderr == [], (f, stderr)
        # The expert information holds what the network did (retransmissions, DUPACKs, lost
        # segments), nothing about the file: no malformed packet, no checksum, no error.
        assert "Malformed" not in r.stdout and "checksum" not in r.stdout.lower(), (f, r.stdout)
        assert "Errors (" not in r.stdout, (f, r.stdout)
    # TCP with SACK: tshark sees the blocks; UDP CBR is UDP.
    sack = next(f for f in files if f.parent.name == "sack" and f.name == "ftp.receiver.pcapng")
    r = subprocess.run(
        [
            TSHARK,
            "-r",
            str(sack),
            "-Y",
            "tcp.options.sack_le",
            "-T",
            "fields",
            "-e",
            "frame.number",
        ],
        capture_output=True,
        text=True,
    )
    assert r.stdout.split(), "SACK blocks decoded"
    udp = next(f for f in files if f.suffix == ".pcap")
    r = subprocess.run(
        [TSHARK, "-r", str(udp), "-q", "-z", "conv,udp"], capture_output=True, text=True
    )
    assert r.stdout.count("<->") == 2, r.stdout


def test_analyze_gives_the_simulators_summary_back(captures):
    tmp, made, _ = captures
    for name in ("newreno", "sack"):
        d = tmp / name
        got = cli_json("analyze", str(d / "ftp.sender.pcapng"), str(d / "ftp.receiver.pcapng"))
        flows = [f for f in got["flows"] if f["name"] == "ftp"]
        assert len(flows) == 1
        f, want = flows[0], made[name]["flows"][0]
        for key in (
            "goodput_bps",
            "throughput_bps",
            "bytes_delivered",
            "segments_sent",
            "retransmits",
            "active_seconds",
        ):
            assert f[key] == want[key], (name, key, f[key], want[key])
        assert f["min_rtt_seconds"] == pytest.approx(want["min_rtt_seconds"], abs=1e-9)
        assert f["retransmits"] > 0 and f["dupack_runs_3"] > 0
        assert f["cc"] == want["cc"]


def test_analyze_writes_tables_json_parquet_and_plots(captures, tmp_path):
    tmp, _, _ = captures
    out = tmp_path / "an"
    r = cli("analyze", *map(str, sorted((tmp / "newreno").iterdir())), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "ftp" in r.stdout and "goodput Mbps" in r.stdout
    names = {p.name for p in out.iterdir()}
    for want in (
        "flows.csv",
        "connections.csv",
        "flows.parquet",
        "connections.parquet",
        "analysis.json",
        "throughput.png",
        "throughput.svg",
        "tseq_ftp.png",
        "tseq_ftp.svg",
    ):
        assert want in names, (want, names)
    doc = json.loads((out / "analysis.json").read_text())
    assert len(doc["captures"]) == 4
    # Four captures of the one connection: one combined row; four per-capture rows.
    assert [f["name"] for f in doc["flows"]] == ["ftp"]
    assert len(doc["connections"]) == 4
    import pandas as pd

    frame = pd.read_parquet(out / "flows.parquet")
    assert list(frame.columns[:11]) == [
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
    assert frame.loc[0, "src"] == "src" and frame.loc[0, "dst"] == "mobile"  # node names


def test_analyze_reads_udp(captures):
    tmp, made, _ = captures
    (f,) = (tmp / "udp").iterdir()
    got = cli_json("analyze", str(f))
    # Classic pcap has no comment to name them: by address and port (udp1 is source 0).
    ports = sorted((u["src_port"], u["dst_port"]) for u in got["udp"])
    assert ports == [(49152, 9), (49153, 9)]
    sent = [s["packets_sent"] for s in made["udp"]["sources"]]
    for u in got["udp"]:
        n = sent[u["src_port"] - 49152]
        assert 0.9 * n < u["packets"] <= n


def test_analyze_refuses_what_is_not_a_capture(tmp_path):
    bad = tmp_path / "x.pcap"
    bad.write_text("hello, world\n")
    r = cli("analyze", str(bad))
    assert r.returncode == 2
    assert f"{bad}: byte 0: not a pcap or pcapng capture" in r.stderr
    r = cli("analyze", str(tmp_path / "missing.pcap"))
    assert r.returncode == 2 and "no such capture file" in r.stderr


def test_a_capture_cut_short_is_read_with_a_warning(captures, tmp_path):
    tmp, _, _ = captures
    whole = (tmp / "newreno" / "ftp.sender.pcapng").read_bytes()
    cut = tmp_path / "cut.pcapng"
    cut.write_bytes(whole[: len(whole) // 2 + 3])
    r = cli("analyze", str(cut), "--json")
    assert r.returncode == 0, r.stderr
    assert "cut short" in r.stderr
    assert json.loads(r.stdout)["flows"][0]["name"] == "ftp"


def _many_connections(path: Path, n: int, gap_us: int, fin: bool) -> None:
    """A classic pcap of ``n`` connections of one 20-byte segment each (10.x.y.z:port ->
    10.255.0.1:5001), ``gap_us`` apart, each with a FIN when ``fin``."""
    import struct

    def checksum(b: bytes) -> int:
        s = sum(struct.unpack(f"!{len(b) // 2}H", b))
        s = (s >> 16) + (s & 0xFFFF)
        return ~(s + (s >> 16)) & 0xFFFF

    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for k in range(n):
            src = bytes([10, (k >> 16) & 255, (k >> 8) & 255, k & 255])
            flags = 0x11 if fin else 0x10
            tcp = struct.pack("!HHIIBBHHH", 1024 + k % 60000, 5001, 1000, 1, 0x50, flags, 100, 0, 0)
            tcp += b"x" * 20
            ip = struct.pack(
                "!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0, 64, 6, 0, src, b"\n\xff\0\1"
            )
            ip = ip[:10] + struct.pack("!H", checksum(ip)) + ip[12:]
            frame = b"\2" * 6 + b"\4" * 6 + b"\x08\x00" + ip + tcp
            t = k * gap_us
            f.write(struct.pack("<IIII", t // 10**6, t % 10**6, len(frame), len(frame)) + frame)


def test_analyze_memory_follows_the_connections_open_at_once(tmp_path):
    """Issue 30: analyze held ~10 KB per connection of the whole capture (200 000 one-segment
    connections: 1.9 GB). Now connections are reported once over, and what is open at once is
    bounded by --max-memory."""
    # 60 000 connections, each closed at once, two seconds apart: a few dozen open at any time
    # (a closed one is over after 60 s), so 20 MB is plenty ...
    closed = tmp_path / "closed.pcap"
    _many_connections(closed, 60_000, 2_000_000, fin=True)
    out = tmp_path / "closed"
    r = cli("analyze", str(closed), "--max-memory", "20MB", "--out", str(out), "--no-plots")
    assert r.returncode == 0, r.stderr
    rows = (out / "flows.csv").read_text().splitlines()
    assert len(rows) == 1 + 60_000
    assert "... and 59000 more row(s), not printed: every one is in" in r.stdout
    import pandas as pd

    frame = pd.read_parquet(out / "connections.parquet")
    assert len(frame) == 60_000 and (frame["data_bytes"] == 20).all() and frame["closed"].all()
    doc = json.loads((out / "analysis.json").read_text())
    assert len(doc["flows"]) == len(doc["connections"]) == 60_000
    # ... while the same connections left open (no FIN, all within ten minutes) are refused at
    # the bound, naming it, exit 2 and one line, nothing written.
    opened = tmp_path / "open.pcap"
    _many_connections(opened, 60_000, 1_000, fin=False)
    out = tmp_path / "open"
    r = cli("analyze", str(opened), "--max-memory", "20MB", "--out", str(out))
    assert r.returncode == 2
    assert "needs more than --max-memory 20000000 bytes" in r.stderr, r.stderr
    assert "open at once" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not out.exists()
    # With the default (1 GiB) they fit; the figures are of the 20 with the most data.
    r = cli("analyze", str(opened), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert len(list(out.glob("tseq_*.png"))) == 20
    r = cli("analyze", str(opened), "--json")
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["flows"]) == 60_000


def test_analyze_refuses_bad_bounds(tmp_path):
    capture = tmp_path / "c.pcap"
    _many_connections(capture, 3, 1_000, fin=True)
    for args, says in (
        (["--max-memory", "lots"], "--max-memory 'lots': expected a size with a unit"),
        (["--max-plotted", "-1"], "--max-plotted -1: must be 0 or more"),
        (["--out", ""], "analyze --out '': give a directory"),
    ):
        r = cli("analyze", str(capture), *args)
        assert r.returncode == 2 and says in r.stderr, (args, r.stderr)


def test_analyze_on_a_full_disk_names_the_file_and_leaves_nothing(tmp_path, monkeypatch, capsys):
    import builtins
    import importlib

    from conftest import ENOSPC_TEXT, _FullDiskFile
    from westwood.cli import main

    module = importlib.import_module("westwood.measure.analyze")  # the module, not its function

    capture = tmp_path / "c.pcap"
    _many_connections(capture, 5_000, 1_000, fin=True)
    real_open = builtins.open

    def full_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        return _FullDiskFile(handle) if set(mode) & set("wa+") else handle

    monkeypatch.setattr(module, "open", full_open, raising=False)
    out = tmp_path / "an"
    assert main(["analyze", str(capture), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == f"westwood: error: cannot write {out / 'connections.csv'}: {ENOSPC_TEXT}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.pcap"]
