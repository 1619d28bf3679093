"""`westwood run`: JSON summary, overrides, seeds, --out files, the readable table."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from conftest import SHORT, cli, cli_json, without_wall

FLOW_FIELDS = {
    "name": str,
    "cc": str,
    "recovery": str,
    "src": str,
    "dst": str,
    "goodput_bps": float,
    "throughput_bps": float,
    "bytes_delivered": int,
    "segments_sent": int,
    "retransmits": int,
    "timeouts": int,
    "fast_retransmits": int,
    "active_seconds": float,
    "min_rtt_seconds": float,
}
LINK_FIELDS = {
    "name": str,
    "from": str,
    "to": str,
    "rate_bps": int,
    "delay_seconds": float,
    "queue_limit": str,
    "packets_sent": int,
    "bytes_sent": int,
    "drops_overflow": int,
    "drops_error": int,
    "utilization": float,
}


def _numeric(value, kind) -> bool:
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind) and not isinstance(value, bool)


def test_json_summary_fields_and_types():
    s = cli_json("run", "wireless", "--set", SHORT)
    assert s["scenario"] == "wireless"
    assert isinstance(s["seed"], int)
    assert isinstance(s["parameters"], dict)
    assert all(isinstance(v, str) for v in s["parameters"].values())
    assert s["sim_seconds"] == pytest.approx(5.0)
    assert _numeric(s["wall_seconds"], float) and s["wall_seconds"] >= 0
    assert isinstance(s["events"], int) and s["events"] > 0
    assert isinstance(s["packets"], int) and s["packets"] > 0
    assert s["flows"] and s["links"]
    for flow in s["flows"]:
        for field, kind in FLOW_FIELDS.items():
            assert _numeric(flow[field], kind), (field, flow[field])
        assert flow["bytes_delivered"] > 0
        assert 0 < flow["goodput_bps"] <= flow["throughput_bps"]
    for link in s["links"]:
        for field, kind in LINK_FIELDS.items():
            assert _numeric(link[field], kind), (field, link[field])


def test_loss_override_changes_the_result():
    clean = cli_json("run", "wireless", "--set", SHORT, "--set", "loss=0%")
    lossy = cli_json("run", "wireless", "--set", SHORT, "--set", "loss=1%")
    assert clean["parameters"]["loss"] == "0%"
    assert lossy["parameters"]["loss"] == "1%"
    assert sum(link["drops_error"] for link in clean["links"]) == 0
    assert sum(link["drops_error"] for link in lossy["links"]) > 0
    assert without_wall(lossy)["flows"] != without_wall(clean)["flows"]


def test_loss_lowers_goodput_over_the_default_duration():
    clean = cli_json("run", "wireless", "--set", "loss=0%")
    lossy = cli_json("run", "wireless", "--set", "loss=1%")
    assert lossy["flows"][0]["goodput_bps"] < clean["flows"][0]["goodput_bps"]


def test_same_seed_is_deterministic():
    args = ("run", "wireless", "--set", SHORT, "--set", "loss=2%", "--seed", "11")
    first, second = cli_json(*args), cli_json(*args)
    assert first["seed"] == 11
    assert without_wall(first) == without_wall(second)


def test_different_seeds_differ_under_loss():
    base = ("run", "wireless", "--set", SHORT, "--set", "loss=2%", "--seed")
    a, b = cli_json(*base, "1"), cli_json(*base, "2")
    assert (a["seed"], b["seed"]) == (1, 2)
    assert without_wall(a)["flows"] != without_wall(b)["flows"]


def test_readable_table(tmp_path: Path):
    proc = cli("run", "wireless", "--set", SHORT)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for heading in (
        "flow",
        "cc",
        "goodput Mbps",
        "throughput Mbps",
        "bytes delivered",
        "retransmits",
        "timeouts",
        "fast retransmits",
    ):
        assert heading in lines[0]
    summary = cli_json("run", "wireless", "--set", SHORT)
    for flow in summary["flows"]:
        row = next(line for line in lines[1:] if line.split()[0] == flow["name"])
        assert f"{flow['goodput_bps'] / 1e6:.3f}" in row
        assert str(flow["bytes_delivered"]) in row
    assert "simulated" in lines[-1] and "events" in lines[-1]


def _csv_header(path: Path):
    with open(path, newline="") as f:
        return next(csv.reader(f))


def _csv_rows(path: Path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_out_writes_all_files_with_expected_columns(tmp_path: Path):
    out = tmp_path / "nested" / "run1"
    proc = cli("run", "wireless", "--set", SHORT, "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    printed = json.loads(proc.stdout)
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["summary.json", "flows.csv", "links.csv", "flow_series.csv", "link_series.csv"]
    )
    assert without_wall(json.loads((out / "summary.json").read_text())) == without_wall(printed)
    assert _csv_header(out / "flows.csv")[: len(FLOW_FIELDS)] == list(FLOW_FIELDS)
    assert _csv_header(out / "links.csv")[: len(LINK_FIELDS)] == list(LINK_FIELDS)
    assert _csv_header(out / "flow_series.csv")[:8] == [
        "time_seconds",
        "flow",
        "cwnd_bytes",
        "ssthresh_bytes",
        "srtt_seconds",
        "bwe_bps",
        "bytes_delivered",
        "snd_max",
    ]
    assert _csv_header(out / "link_series.csv")[:4] == [
        "time_seconds",
        "link",
        "queue_packets",
        "queue_bytes",
    ]
    flows = _csv_rows(out / "flows.csv")
    assert [r["name"] for r in flows] == [f["name"] for f in printed["flows"]]
    series = _csv_rows(out / "flow_series.csv")
    assert len(series) > 10
    times = [float(r["time_seconds"]) for r in series]
    assert times == sorted(times) and times[-1] <= 5.0 + 1e-9
    assert {r["link"] for r in _csv_rows(out / "link_series.csv")} <= {
        link["name"] for link in printed["links"]
    }
    # No staging directory is left behind.
    assert sorted(p.name for p in out.parent.iterdir()) == ["run1"]


def test_python_dash_m_and_help():
    proc = cli("--help")
    assert proc.returncode == 0
    for command in ("run", "reproduce", "bench"):
        assert command in proc.stdout


def test_version_names_package_and_engine_build():
    """``--version``: the package version and the engine's ``git describe`` (or "unknown")."""
    from westwood import __version__

    proc = cli("--version")
    assert proc.returncode == 0, proc.stderr
    assert re.fullmatch(rf"westwood {re.escape(__version__)} \(engine \S+\)\n", proc.stdout)


def test_a_run_directory_uses_one_line_ending(tmp_path):
    """Issue 32: flows.csv and links.csv (Python's csv module) ended lines in CRLF, the series
    files (the Rust writer) in LF, side by side in one directory."""
    out = tmp_path / "r"
    proc = cli("run", "wireless", "--set", "duration=2s", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    files = sorted(out.glob("*.csv"))
    assert {p.name for p in files} >= {"flows.csv", "links.csv", "flow_series.csv"}
    for path in files:
        data = path.read_bytes()
        assert b"\r" not in data and data.endswith(b"\n"), path.name


@pytest.mark.parametrize("scenario", ["wireless", "udp_onoff", "multipath", "seed004_lan"])
def test_the_cores_tables_are_what_pythons_csv_module_wrote(scenario):
    """flows.csv and links.csv come from the core's one writer (the emulator's too) since issue
    32; before, from Python's csv module. Byte for byte what that module writes (with the `\\n`
    line end the run files now share), on real summaries."""
    import io

    from westwood import _core
    from westwood.raw import run_raw
    from westwood.report import tables

    raw = run_raw(scenario, overrides={"duration": "3s"})
    flows, links = _core.run_tables_csv(json.dumps(raw.summary))
    for text, columns in (
        (flows, tables.flow_columns(raw.summary)),
        (links, tables.link_columns(raw.summary)),
    ):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(list(columns))
        writer.writerows(tables.column_rows(columns))
        assert text == buffer.getvalue()
