"""The fault campaign's reproducers through the CLI and the API: Ctrl-C ends a run at once,
oversized runs are refused with the number, ``--out`` streams its series, goodput stays within
the links."""

from __future__ import annotations

import csv
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from westwood._core import ScenarioError

from conftest import assert_clean_error, cli, cli_json
from westwood import run
from westwood.api import run_raw
from westwood.report import tables


def test_ctrl_c_ends_a_long_run_within_a_second_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["run", "wireless", "--set", "duration=100000s", "--out", str(out)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "westwood", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # Ctrl-C must reach it even when the suite runs in the background, where a shell starts
        # processes with SIGINT ignored and Python then leaves it ignored (as test_sweep does).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(2.0)  # well into the simulation (a 100 000 s run takes about 40 s)
    assert proc.poll() is None, proc.communicate()
    sent = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert time.monotonic() - sent < 1.0
    assert proc.returncode == 130, stderr
    assert b"Traceback" not in stderr
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".run.")], "no staging left"


def test_a_run_too_large_for_memory_is_refused_with_the_estimate() -> None:
    proc = cli("run", "dumbbell", "--set", "flows=1000", "--set", "duration=60s", "--json")
    # Without --out the series are not recorded, so this fits...
    assert proc.returncode == 0, proc.stderr
    # ...but the API keeps them in memory by default: 6 million rows, refused up front.
    with pytest.raises(ScenarioError, match=r"3\.6 GB.*limit is 1\.0 GB"):
        run("dumbbell", overrides={"flows": 1000})
    # A lower --max-memory refuses even the summary-only run, naming the limit.
    proc = cli("run", "dumbbell", "--set", "flows=1000", "--max-memory", "1MB")
    assert_clean_error(proc, "limit is 1.0 MB", "--max-memory")
    assert_clean_error(cli("run", "wireless", "--max-memory", "lots"), "--max-memory", "4GB")


def test_out_streams_the_same_series_the_api_records(tmp_path: Path) -> None:
    overrides = {"duration": "5s", "loss": "1%"}
    streamed = tmp_path / "streamed"
    proc = cli(
        "run", "wireless", "--set", "duration=5s", "--set", "loss=1%", "--out", str(streamed)
    )
    assert proc.returncode == 0, proc.stderr
    # The series as the front end wrote them from memory before they were streamed.
    kept = tmp_path / "kept"
    kept.mkdir()
    raw = run_raw("wireless", overrides=overrides, record=True)
    for name, data, columns in (
        ("flow_series.csv", raw.flow_series, tables.FLOW_SERIES_COLUMNS),
        ("link_series.csv", raw.link_series, tables.LINK_SERIES_COLUMNS),
    ):
        columns_of = tables.series_columns(data, columns)
        with open(kept / name, "w", newline="") as f:
            writer = csv.writer(f, lineterminator="\n")
            writer.writerow(list(columns_of))
            writer.writerows(tables.column_rows(columns_of))
    for name in ("flow_series.csv", "link_series.csv"):
        with open(streamed / name, newline="") as a, open(kept / name, newline="") as b:
            rows_a, rows_b = list(csv.reader(a)), list(csv.reader(b))
        assert rows_a[0] == rows_b[0]
        assert len(rows_a) == len(rows_b) > 100
        for x, y in zip(rows_a[1:], rows_b[1:]):
            assert [float(v) if i != 1 else v for i, v in enumerate(x)] == pytest.approx(
                [float(v) if i != 1 else v for i, v in enumerate(y)], nan_ok=True
            )


@pytest.mark.parametrize("stop", ["0.001s", "0.5s"])
def test_goodput_of_a_flow_stopped_early_stays_within_the_link(stop: str) -> None:
    summary = cli_json(
        "run", "wireless", "--set", f"flows.ftp.stop={stop}", "--set", "duration=20s"
    )
    flow = summary["flows"][0]
    assert flow["goodput_bps"] <= flow["throughput_bps"] <= 2e6, flow


def test_the_wrapping_delay_is_refused() -> None:
    proc = cli("run", "wireless", "--set", "wired_delay=18446744073s", "--set", "duration=10s")
    assert_clean_error(proc, "wired", "at most 1000000s")


def test_sizes_and_directories_that_cannot_be_meant_are_refused(tmp_path: Path) -> None:
    # A limit past 64 bits once ended in an OverflowError traceback.
    assert_clean_error(
        cli("run", "wireless", "--max-memory", "20000000TB"), "--max-memory", "64-bit"
    )
    # A packet size that wrapped modulo 2^32 once gave a run with impossible link bytes, exit 0.
    proc = cli("run", "wireless", "--set", "tcp.header_size=5GB", "--set", "duration=1s")
    assert_clean_error(proc, "tcp.header_size", "1GiB")
    # An empty --out once wrote nothing (run) or wrote into the current directory (reproduce).
    for command in (["run", "wireless"], ["reproduce", "fig9", "--quick"], ["sweep", "wireless"]):
        proc = cli(*command, "--out", "", cwd=tmp_path)
        assert proc.returncode == 2, (command, proc.stderr)
        assert "Traceback" not in proc.stderr and "empty string" in proc.stderr, proc.stderr
    assert not list(tmp_path.iterdir()), "nothing written where the command ran"


def test_run_directories_of_killed_workers_are_removed(tmp_path: Path, monkeypatch) -> None:
    """A sweep's Ctrl-C kills its workers mid-run (SIGKILL: nothing runs in them), which left
    each one's TMPDIR/westwood-run-* behind; whoever knows the PID is gone removes them."""
    import os
    import tempfile

    from westwood.runs.store import remove_run_directories

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.Popen(["true"])
    dead.wait()
    live = os.getppid()
    for pid in (dead.pid, live):
        (tmp_path / f"westwood-run-{pid}-abc123").mkdir()
    (tmp_path / "westwood-run-nopid").mkdir()  # not one of ours: left alone
    assert remove_run_directories() == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        f"westwood-run-{live}-abc123",
        "westwood-run-nopid",
    ]
    # The PIDs of workers the driver has just killed go whether or not the PID was reused.
    assert remove_run_directories([live]) == 1


def test_ctrl_c_of_a_sweep_leaves_no_run_directory(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    args = ["sweep", "wireless", "--vary", "loss=1%,2%", "--seeds", "2", "--jobs", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "westwood", *args, "--set", "duration=100000s"]
        + ["--out", str(tmp_path / "sweep")],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**__import__("os").environ, "TMPDIR": str(tmp)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while not list(tmp.glob("westwood-run-*")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert list(tmp.glob("westwood-run-*")), "the workers were running"
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert b"Traceback" not in stderr and b"Exception ignored" not in stderr, stderr
    assert not list(tmp.glob("westwood-run-*"))


def test_a_killed_run_leaves_its_staging_directory_only_until_the_next_run(
    tmp_path: Path,
) -> None:
    """kill -9 of ``run --out D`` left a hidden ``.D.XXXX.tmp`` with the series' ``.partial``
    files (190 MB for the 1000-flow dumbbell) that no later run removed."""
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [sys.executable, "-m", "westwood", "run", "wireless", "--set", "duration=100000s"]
        + ["--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while not list(tmp_path.glob(".run.*.tmp/*.partial")) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert list(tmp_path.glob(".run.*.tmp/*.partial")), "the run was writing its series"
    proc.kill()
    proc.wait()
    assert list(tmp_path.glob(".run.*.tmp"))
    assert cli("run", "wireless", "--set", "duration=1s", "--out", str(out)).returncode == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]
