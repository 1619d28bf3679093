"""`westwood replay` and `westwood.replay(...)` (docs/replay.md): a per-ACK trace fed back
through the Rust estimators."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

import westwood
from conftest import REPO, assert_clean_error, cli, cli_json, dir_entries
from westwood.ack_trace import read_ack_trace
from westwood.replay import SUMMARY_COLUMNS, ReplayResult, TraceError

FIXTURES = REPO / "crates" / "simulator" / "tests" / "fixtures"
TCPW = FIXTURES / "kernel-tcpw.csv"
ABSE = FIXTURES / "kernel-tcpw_abse.csv"
OUT_FILES = ["replay.csv", "replay.json", "replay.png", "replay.svg"]


def _rows(path, event=None):
    """Rows of a fixture (of one event kind), counted from the file itself."""
    trace = read_ack_trace(path)
    return len(trace) if event is None else int((trace["event"] == event).sum())


def test_cli_prints_a_table_per_flow_and_cc():
    proc = cli("replay", str(TCPW), "--cc", "westwood,westwood-abse")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    rows, losses, acks = _rows(TCPW), _rows(TCPW, "recovery"), _rows(TCPW, "ack")
    assert f"{TCPW}: {rows:,} rows" in out
    assert f"(tcpw, kernel trace): {rows:,} rows ({losses} recovery, 0 timeout)" in out
    lines = out.splitlines()
    westwood_line = next(line for line in lines if line.strip().startswith("westwood "))
    abse_line = next(line for line in lines if line.strip().startswith("westwood-abse "))
    # westwood agrees with the kernel's tcpw; ssthresh at every loss row, every credit.
    assert f"{losses}/{losses}" in westwood_line and f"{acks}/{acks}" in westwood_line
    assert "e-08 (line" in westwood_line, westwood_line
    assert f"{losses}/{losses}" in abse_line
    assert "recovery row(s) triggered by an ACK the estimator was not fed" in out
    assert "westwood: replay:" not in proc.stderr  # a short replay reports no progress


def test_cli_json_is_the_report():
    report = cli_json("replay", str(ABSE), "--cc", "westwood-abse", "--cc", "westwood")
    assert report["ccs"] == ["westwood-abse", "westwood"]
    assert report["rows"] == _rows(ABSE)
    assert report["delivery_window"] == "max(RTTmin, 100 ms)"
    (flow,) = report["flows"]
    assert (flow["trace_cc"], flow["origin"], flow["mss"]) == ("tcpw_abse", "kernel", 1448)
    abse, tcpw = flow["replays"]
    assert abse["compared_rows"] == _rows(ABSE)
    assert abse["max_rel_diff"]["value"] < 5e-5  # kernel/README.md's ABSE error
    assert abse["ssthresh_equal"] == abse["loss_rows"] == _rows(ABSE, "recovery")
    assert abse["credit_equal"] == abse["credit_rows"]
    assert tcpw["max_rel_diff"]["value"] > 0.1  # another estimator: far off
    assert flow["mean_trace_bwe_bps"] > 1e6 and flow["mean_delivery_bps"] > 1e6


def test_cli_out_writes_every_row_and_the_figure(tmp_path: Path):
    out = tmp_path / "replayed"
    proc = cli("replay", str(TCPW), "--cc", "westwood", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert dir_entries(out) == OUT_FILES
    assert dir_entries(tmp_path) == ["replayed"]  # no staging directory left
    for name in OUT_FILES:
        assert f"wrote {out / name}" in proc.stdout
    rows = pd.read_csv(out / "replay.csv")
    assert list(rows.columns) == [
        "flow",
        "time_ns",
        "event",
        "trace_bwe_bps",
        "westwood_bwe_bps",
        "delivery_bps",
    ]
    trace = read_ack_trace(TCPW)
    assert len(rows) == len(trace)
    assert (rows["time_ns"] == trace["time_ns"]).all()
    assert (rows["trace_bwe_bps"] == trace["bwe_bps"]).all()  # written in round-trip form
    assert ((rows["westwood_bwe_bps"] - rows["trace_bwe_bps"]).abs() <= 0.11).all()
    # The delivery rate starts once one window (100 ms here) has passed.
    delivery = rows["delivery_bps"]
    assert delivery.isna().sum() > 0 and delivery.notna().sum() > _rows(TCPW) / 2
    report = json.loads((out / "replay.json").read_text(encoding="utf-8"))
    assert report["rows"] == len(trace)
    assert (out / "replay.png").stat().st_size > 10_000
    assert (out / "replay.svg").read_text(encoding="utf-8").startswith("<?xml")


@pytest.mark.parametrize(
    "args, needles",
    [
        (["--cc", "vegas"], ["--cc", 'unknown congestion control "vegas"']),
        (["--set", "westwood.m=1"], ["--set westwood.m", "out of range"]),
        (["--set", "westwood_abse={ n = 5 }"], ["--set westwood_abse", "not replayed"]),
        (["--set", "loss=1%"], ["--set loss", 'unknown key "loss"']),
        (["--set", "segment_size=400B"], ["--set segment_size", "the trace's `mss`"]),
        (["--delivery-window", "soon"], ["--delivery-window", "not a valid duration"]),
        (["--set", "nothing"], ["expected KEY=VALUE"]),
    ],
)
def test_bad_settings_exit_2_naming_the_key(tmp_path: Path, args, needles):
    out = tmp_path / "never"
    proc = cli("replay", str(TCPW), *args, "--out", str(out))
    assert_clean_error(proc, *needles)
    assert dir_entries(tmp_path) == []


def test_bad_traces_exit_2_naming_file_line_and_column(tmp_path: Path):
    text = TCPW.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.csv"
    text[5] = text[5].replace(",ack,", ",nak,", 1)
    bad.write_text("\n".join(text[:50]) + "\n", encoding="utf-8")
    assert_clean_error(cli("replay", str(bad)), f"{bad}:6: column `event`", '"nak"')
    lines = TCPW.read_text(encoding="utf-8").splitlines()[:10]
    fields = lines[7].split(",")
    fields[9] = "fast"  # rtt_us
    lines[7] = ",".join(fields)
    bad.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert_clean_error(cli("replay", str(bad)), f"{bad}:8: column `rtt_us`")
    header = tmp_path / "header.csv"
    header.write_text("time_ns,flow\n1,a\n", encoding="utf-8")
    assert_clean_error(cli("replay", str(header)), f"{header}:1:", "not a per-ACK trace")
    missing = tmp_path / "missing.csv"
    assert_clean_error(cli("replay", str(missing)), str(missing))
    out = tmp_path / "out"
    assert_clean_error(cli("replay", str(header), "--out", str(out)))
    assert not out.exists()


def test_api_returns_the_rows_as_a_dataframe_and_a_summary():
    result = westwood.replay(TCPW, cc=["westwood", "westwood-tr"])
    assert isinstance(result, ReplayResult)
    assert result.ccs == ["westwood", "westwood-tr"]
    rows = result.rows
    assert list(rows.columns) == [
        "flow",
        "time_ns",
        "event",
        "trace_bwe_bps",
        "westwood_bwe_bps",
        "westwood-tr_bwe_bps",
        "delivery_bps",
    ]
    assert len(rows) == _rows(TCPW)
    assert set(rows["event"]) == {"ack", "recovery"}
    assert ((rows["westwood_bwe_bps"] - rows["trace_bwe_bps"]).abs() <= 0.11).all()
    summary = result.summary()
    assert list(summary.columns) == list(SUMMARY_COLUMNS)
    assert list(summary["cc"]) == ["westwood", "westwood-tr"]
    first = summary.iloc[0]
    assert first["max_rel_diff"] < 1e-6
    assert first["ssthresh_equal"] == first["loss_rows"] == _rows(TCPW, "recovery")
    assert "westwood-tr" in result.table()
    assert result.paths == []
    # Without rows, only the report.
    lean = westwood.replay(TCPW, "westwood", rows=False)
    assert lean.rows is None
    assert lean.report["flows"][0]["replays"][0] == result.report["flows"][0]["replays"][0]


def test_api_overrides_and_errors(tmp_path: Path):
    slow = westwood.replay(TCPW, "westwood", {"westwood": '{ tau = "2s" }'}, rows=False)
    replay = slow.report["flows"][0]["replays"][0]
    assert replay["max_rel_diff"]["value"] > 0.01  # not the kernel's tau
    with pytest.raises(westwood.ScenarioError, match="--set westwood.tau"):
        westwood.replay(TCPW, "westwood", [("westwood.tau", "0s")])
    with pytest.raises(westwood.ScenarioError, match="--cc"):
        westwood.replay(TCPW, "cubic,vegas")
    bad = tmp_path / "bad.csv"
    bad.write_text(TCPW.read_text(encoding="utf-8").splitlines()[0] + "\n1,f\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.csv:2"):
        westwood.replay(bad)
    with pytest.raises(TraceError):
        westwood.replay(bad)
    with pytest.raises(FileNotFoundError):
        westwood.replay(tmp_path / "none.csv")


def test_a_simulated_trace_replays_bit_for_bit_through_the_front_end(tmp_path: Path):
    acks = tmp_path / "acks.csv"
    westwood.run(
        "wireless",
        overrides={"cc": "westwood-abse", "loss": "2%", "duration": "20s"},
        record=False,
        ack_trace=acks,
    )
    result = westwood.replay(acks, "westwood-abse,westwood")
    (flow,) = result.report["flows"]
    assert flow["origin"] == "simulator" and flow["recovery_rows"] > 0
    same, other = flow["replays"]
    assert same["identical_rows"] == same["compared_rows"] == flow["rows"]
    assert same["ssthresh_equal"] == same["loss_rows"]
    assert same["max_abs_diff"]["value"] == 0.0
    assert other["identical_rows"] < flow["rows"] // 2
    rows = result.rows
    assert (rows["westwood-abse_bwe_bps"] == rows["trace_bwe_bps"]).all()
    # Forced to read it as a kernel trace, the same rows no longer agree.
    forced = westwood.replay(acks, "westwood-abse", origin="kernel", rows=False)
    assert forced.report["flows"][0]["replays"][0]["identical_rows"] < flow["rows"]
    assert math.isfinite(flow["mean_delivery_bps"])
