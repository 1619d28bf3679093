"""The per-ACK trace from the front end: `westwood run --out DIR --ack-trace` and
`westwood.run(..., ack_trace=...)` (docs/ack-trace.md)."""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path

import numpy as np
import pytest

import westwood
from conftest import GOOD_SCENARIO, REPO, assert_clean_error, cli, dir_entries, write_scenario
from westwood.ack_trace import ACK_TRACE_COLUMNS, read_ack_trace
from westwood.api import run_raw
from westwood.errors import WriteError
from westwood.output import ACK_TRACE_FILE, RUN_FILES

TRACED = {"duration": "10s", "cc": "westwood", "loss": "2%"}
SETS = [arg for key, value in TRACED.items() for arg in ("--set", f"{key}={value}")]


def documented_columns() -> list:
    """The column names of docs/ack-trace.md's format table, in order."""
    text = (REPO / "docs" / "ack-trace.md").read_text(encoding="utf-8")
    return re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.MULTILINE)


def test_columns_are_the_documented_ones():
    assert list(ACK_TRACE_COLUMNS) == documented_columns()


def test_cli_writes_acks_csv_into_the_run_directory(tmp_path: Path):
    out = tmp_path / "run"
    proc = cli("run", "wireless", *SETS, "--out", str(out), "--ack-trace")
    assert proc.returncode == 0, proc.stderr
    assert dir_entries(out) == sorted(RUN_FILES + (ACK_TRACE_FILE,))
    trace = out / ACK_TRACE_FILE
    assert f"per-ACK trace: {trace}" in proc.stdout
    header = trace.read_text(encoding="utf-8").splitlines()[0]
    assert header == ",".join(documented_columns())
    acks = read_ack_trace(trace)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    flow = summary["flows"][0]
    assert set(acks["flow"]) == {flow["name"]}
    assert set(acks["cc"]) == {"westwood"}
    events = acks["event"].value_counts()
    assert events.get("recovery", 0) == flow["fast_retransmits"] > 0
    assert events.get("timeout", 0) + events.get("timeout_held", 0) == flow["timeouts"]
    assert acks["acked_bytes"].sum() == acks["ack"].iloc[-1]
    assert acks["credited_bytes"].notna().all()
    assert acks["time_ns"].is_monotonic_increasing
    assert dir_entries(tmp_path) == ["run"]  # no staging directory left

    # The same run again without --ack-trace: the directory no longer holds a trace of another run.
    proc = cli("run", "wireless", *SETS, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert dir_entries(out) == sorted(RUN_FILES)
    assert "per-ACK trace" not in proc.stdout


def test_cli_ack_trace_needs_out(tmp_path: Path):
    proc = cli("run", "wireless", "--set", "duration=1s", "--ack-trace", cwd=tmp_path)
    assert_clean_error(proc, "--ack-trace", "--out DIR")
    assert dir_entries(tmp_path) == []


def test_cli_bad_scenario_with_ack_trace_leaves_nothing(tmp_path: Path):
    text = GOOD_SCENARIO.replace('"10Mbps"', '"10Mbsp"')
    path = write_scenario(tmp_path, "bad", text)
    out = tmp_path / "out"
    proc = cli("run", str(path), "--out", str(out), "--ack-trace")
    assert_clean_error(proc, "bad.toml", "links.wired.rate")
    assert dir_entries(tmp_path) == ["bad.toml"]


def test_api_ack_trace_true_gives_a_dataframe_and_removes_its_file(tmp_path: Path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = westwood.run("wireless", overrides=TRACED)
    assert result.ack_trace is None
    result = westwood.run("wireless", overrides=TRACED, ack_trace=True)
    assert dir_entries(tmp_path) == []
    acks = result.ack_trace
    assert list(acks.columns) == list(ACK_TRACE_COLUMNS)
    assert acks["dupack"].dtype == bool
    assert acks["credited_bytes"].dtype == "Int64"
    assert acks["time_ns"].dtype.kind == "i" and acks["bwe_bps"].dtype.kind == "f"
    assert set(acks["ca_state"]) <= {"open", "disorder", "recovery", "loss"}
    assert (acks.loc[acks["dupack"], "acked_bytes"] == 0).all()
    flow = result.summary["flows"][0]
    assert (acks["event"] == "recovery").sum() == flow["fast_retransmits"]
    # Bytes as the summary counts them: the final ACK is at most what was delivered.
    assert 0 < acks["ack"].iloc[-1] <= flow["bytes_delivered"]
    # The series sample the estimate the trace shows at the last row before each sample (a row
    # at the sample's own time may come before or after it: those samples are left out).
    series = result.flow_series
    sample_ns = (series["time_seconds"] * 1e9).round().astype("int64").to_numpy()
    row_before = acks["time_ns"].searchsorted(sample_ns, side="left") - 1
    tie = np.isin(sample_ns, acks["time_ns"].to_numpy())
    for bwe, row, at_row_time in zip(series["bwe_bps"], row_before, tie):
        if row >= 0 and not at_row_time:
            assert acks["bwe_bps"].iloc[row] == bwe
    # Ratios of AckedCount's credit to what was acknowledged (seed 000 §2.3): close to 1.
    credited = acks["credited_bytes"].sum() / acks["ack"].iloc[-1]
    assert credited == pytest.approx(1.0, abs=0.05)


def test_api_ack_trace_path_writes_the_file(tmp_path: Path):
    path = tmp_path / "traces" / "w.csv"
    result = westwood.run("wireless", overrides=TRACED, record=False, ack_trace=path)
    assert result.ack_trace is None
    assert dir_entries(path.parent) == ["w.csv"]
    again = westwood.run("wireless", overrides=TRACED, record=False, ack_trace=True)
    assert read_ack_trace(path).equals(again.ack_trace)


def test_api_failed_run_writes_no_trace(tmp_path: Path):
    scenario = write_scenario(tmp_path, "bad", GOOD_SCENARIO.replace('"10Mbps"', '"-10Mbps"'))
    path = tmp_path / "acks.csv"
    with pytest.raises(westwood.ScenarioError, match="links.wired.rate"):
        westwood.run(scenario, ack_trace=path)
    assert dir_entries(tmp_path) == ["bad.toml"]


def test_reading_something_else_names_the_file(tmp_path: Path):
    path = tmp_path / "flows.csv"
    path.write_text("name,cc\nftp,reno\n", encoding="utf-8")
    with pytest.raises(ValueError, match="flows.csv: not a per-ACK trace: the header lacks time"):
        read_ack_trace(path)
    bad = tmp_path / "bad.csv"
    bad.write_text(",".join(ACK_TRACE_COLUMNS) + "\n" + ",".join(["x"] * 17) + "\n")
    with pytest.raises(ValueError, match="bad.csv: not a valid per-ACK trace"):
        read_ack_trace(bad)


def test_api_trace_that_cannot_be_written_names_the_file(good_scenario: Path, tmp_path: Path):
    """The core's OSError names neither the trace's file nor errno; the API names the file."""
    where = tmp_path / "missing" / "acks.csv"
    with pytest.raises(WriteError, match=f"^cannot write {re.escape(str(where))}: No such file"):
        run_raw(good_scenario, ack_trace=where)


def _as_the_kernel_writes_it(trace):
    """A simulator trace rewritten as the kernel's rows are: each ACK row with the window the
    row before it left (the kernel's rows are taken before its growth), the ACK numbers
    shifted by iperf3's cookie."""
    from westwood.ack_trace import IPERF3_COOKIE_BYTES

    kernel = trace.copy()
    kernel["cwnd_bytes"] = trace["cwnd_bytes"].shift(1)
    kernel["ssthresh_bytes"] = trace["ssthresh_bytes"].shift(1)
    kernel = kernel.iloc[1:].copy()
    kernel["cwnd_bytes"] = kernel["cwnd_bytes"].astype("int64")
    kernel["ssthresh_bytes"] = kernel["ssthresh_bytes"].astype("int64")
    kernel["ack"] = kernel["ack"] + IPERF3_COOKIE_BYTES
    return kernel


def _shifted(trace, by):
    shifted = trace.copy()
    shifted["ack"] = shifted["ack"] + by
    return shifted


def test_window_agreement_pairs_the_kernels_rows_with_the_simulators_row_before():
    from westwood.ack_trace import IPERF3_COOKIE_BYTES, window_agreement

    trace = westwood.run("wireless", overrides=TRACED, ack_trace=True).ack_trace
    kernel = _as_the_kernel_writes_it(trace)
    same = window_agreement(kernel, trace, kernel_offset=IPERF3_COOKIE_BYTES)
    acks = int((trace["event"] == "ack").sum())
    assert same["matched"] >= acks - 1 and same["kernel_acks"] >= acks - 1
    assert same["cwnd_share"] == 1.0 and same["ssthresh_share"] == 1.0
    assert same["first_cwnd_disagreement"] is None
    # Two segments more on every fourth kernel ACK row: a quarter disagree, the first named.
    mss = int(trace["mss"].iloc[0])
    bumped = kernel.copy()
    rows = bumped.index[bumped["event"] == "ack"][::4]
    bumped.loc[rows, "cwnd_bytes"] += 2 * mss
    off = window_agreement(bumped, trace, kernel_offset=IPERF3_COOKIE_BYTES)
    assert abs(off["cwnd_share"] - 0.75) < 0.01, off
    assert off["ssthresh_share"] == 1.0
    assert off["first_cwnd_disagreement"]["repeat"] >= 0
    # One segment is within the tolerance.
    nudged = kernel.copy()
    nudged.loc[rows, "cwnd_bytes"] += mss
    assert window_agreement(nudged, trace, kernel_offset=IPERF3_COOKIE_BYTES)["cwnd_share"] == 1.0
    # A simulator trace that sends the cookie too (the testbed's, `tcp.preamble`) needs none.
    assert window_agreement(kernel, _shifted(trace, IPERF3_COOKIE_BYTES))["cwnd_share"] == 1.0
