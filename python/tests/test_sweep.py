"""`westwood sweep`: grid x seeds on local processes and on Dask, resumable, loss-free."""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

import pyarrow.parquet as pq
import pytest

from conftest import ENOSPC_TEXT, SHORT, assert_clean_error, cli, dir_entries, fill_disk
from westwood import sweeps
from westwood.cli import main
from westwood.errors import UsageError
from westwood.locks import LOCK_FILE, DirectoryInUse, output_lock
from westwood.progress import Progress
from westwood.runs import store
from westwood.runs.executors import LocalExecutor, make_executor

# Dask is an optional extra (pip install 'westwood[dask]'); `make test` installs it.
DASK_REASON = "dask[distributed] is not installed"

# 2 axes x 2 seeds of 5 s runs of the wireless scenario: 8 runs of a few ms each.
GRID = ("--vary", "loss=0%,1%", "--vary", "cc=reno,westwood", "--seeds", "2", "--set", SHORT)


def rows_of(out: Path) -> List[Dict]:
    return pq.read_table(out / "results.parquet").to_pylist()


def comparable(rows: List[Dict]) -> List[Dict]:
    """Result rows without the measured wall time (everything else is deterministic)."""
    return [{k: v for k, v in r.items() if k != "wall_seconds"} for r in rows]


def run_files(out: Path) -> Dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((out / "runs").glob("*.json"))}


def assert_store_sound(out: Path) -> None:
    """Every run file is a complete JSON entry for its key; the Parquet file, if any, reads."""
    for name, data in run_files(out).items():
        entry = json.loads(data)
        assert entry["key"] == name[: -len(".json")]
        assert entry["status"] in ("ok", "failed")
        assert "summary" in entry if entry["status"] == "ok" else entry["error"]
    if (out / "results.parquet").exists():
        pq.read_table(out / "results.parquet")


# --- syntax and planning -----------------------------------------------------------------------


def test_split_and_parse_vary():
    assert sweeps.split_values("0%, 1% ,2%") == ["0%", "1%", "2%"]
    assert sweeps.split_values('{ model = "ber", rate = "1e-6" },{ model = "bernoulli" }') == [
        '{ model = "ber", rate = "1e-6" }',
        '{ model = "bernoulli" }',
    ]
    assert sweeps.split_values('"a,b",[1, 2]') == ['"a,b"', "[1, 2]"]
    axis = sweeps.parse_vary("links.wired.delay=10ms,100ms")
    assert axis == sweeps.Axis("links.wired.delay", ("10ms", "100ms"))
    assert sweeps.numeric_axis(axis) == ([10.0, 100.0], "ms")
    assert sweeps.numeric_axis(sweeps.Axis("cc", ("reno", "westwood"))) is None
    assert sweeps.numeric_axis(sweeps.Axis("rate", ("1Mbps", "1Gbps"))) is None


def test_plan_is_the_cartesian_product():
    axes = [sweeps.parse_vary("loss=0%,1%,2%"), sweeps.parse_vary("cc=reno,westwood")]
    plan = sweeps.plan_sweep("wireless", axes, seeds=2, overrides=[("duration", "5s")])
    assert len(plan.runs) == 3 * 2 * 2
    assert len({r.spec.key for r in plan.runs}) == 12
    assert plan.runs[0].values == ("0%", "reno") and plan.runs[0].seed == 1
    assert plan.runs[1].values == ("0%", "reno") and plan.runs[1].seed == 2
    assert plan.runs[2].values == ("0%", "westwood")
    assert plan.runs[0].spec.overrides == (("duration", "5s"), ("loss", "0%"), ("cc", "reno"))
    # The key depends on the overrides and seed, not on the sweep the run belongs to.
    other = sweeps.plan_sweep("wireless", axes[1:], 1, [("loss", "0%"), ("duration", "5s")])
    assert other.runs[0].spec.key == plan.runs[0].spec.key


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--vary", "loss"), "expected KEY=V1,V2"),
        (("--vary", "=1%,2%"), "expected KEY=V1,V2"),
        (("--vary", "loss="), "no values"),
        (("--vary", "loss=1%,,2%"), "empty value"),
        (("--vary", "loss=1%,1%"), "given twice"),
        (("--vary", "loss=0%", "--vary", "loss=1%"), "given twice"),
        (("--vary", "loss=0%,1%", "--set", "loss=1%"), "both set"),
        (("--vary", "tcp_flows=1,2"), "clashes"),
        ((), "at least one --vary"),
        (("--vary", "loss=0%", "--seeds", "0"), "--seeds"),
        (("--vary", "loss=0%", "--jobs", "0"), "--jobs"),
        (("--vary", "loss=0%", "--executor", "local", "--scheduler", "tcp://x:1"), "dask"),
    ],
)
def test_vary_syntax_is_validated(tmp_path: Path, args, needle):
    out = tmp_path / "s"
    proc = cli("sweep", "wireless", *args, "--out", str(out))
    assert_clean_error(proc, needle)
    assert not (out / "runs").exists()


def test_api_vary_string_is_one_axis():
    """A string is one ``--vary``, not an axis per character; a lone value is a one-value axis."""
    assert sweeps._axes("loss=0%,1%") == [sweeps.Axis("loss", ("0%", "1%"))]
    assert sweeps._axes(["loss=0%,1%", ("cc", "reno,westwood")]) == [
        sweeps.Axis("loss", ("0%", "1%")),
        sweeps.Axis("cc", ("reno", "westwood")),
    ]
    assert sweeps._axes({"flows": 4}) == [sweeps.Axis("flows", ("4",))]
    with pytest.raises(UsageError, match="expected a .key, values. pair"):
        sweeps._axes([("loss",)])
    with pytest.raises(TypeError, match="vary must be"):
        sweeps._axes(5)


@pytest.mark.parametrize(
    "kwargs, error, needle",
    [
        ({"seeds": True}, TypeError, "seeds must be an integer, not bool"),
        ({"seeds": "2"}, TypeError, "seeds must be an integer, not str"),
        ({"seeds": 0}, UsageError, "seeds must be at least 1"),
        ({"jobs": True}, TypeError, "jobs must be an integer, not bool"),
        ({"jobs": "2"}, TypeError, "jobs must be an integer, not str"),
        ({"overrides": 5}, TypeError, "overrides must be"),
    ],
)
def test_api_arguments_are_checked_before_anything_runs(tmp_path: Path, kwargs, error, needle):
    out = tmp_path / "s"
    with pytest.raises(error, match=needle):
        sweeps.sweep("wireless", {"loss": ["0%"]}, out=out, **kwargs)
    assert not (out / "runs").exists()


def test_sweep_needs_out_and_scenario(tmp_path: Path):
    assert_clean_error(cli("sweep", "wireless", "--vary", "loss=0%"), "--out")
    assert_clean_error(cli("sweep", "--vary", "loss=0%", "--out", str(tmp_path)), "SCENARIO")
    assert_clean_error(cli("sweep", "nosuchscenario", "--vary", "a=1", "--out", str(tmp_path)))
    assert cli("sweep", "wireless", "--executor", "nope", "--out", str(tmp_path)).returncode == 2


# --- local vs Dask -----------------------------------------------------------------------------


def test_local_and_dask_sweeps_give_identical_rows(tmp_path: Path):
    local, dask = tmp_path / "local", tmp_path / "dask"
    first = cli("sweep", "wireless", *GRID, "--jobs", "2", "--out", str(local))
    assert first.returncode == 0, first.stderr
    assert "8 runs: 8 ok, 0 failed (0 from the store, 8 run now)" in first.stdout
    assert "8/8 runs" in first.stderr and "ETA" in first.stderr
    assert len(first.stderr.splitlines()) <= 8  # not a terminal: a few lines only

    # A real Dask LocalCluster: a scheduler and 2 worker processes with one thread each.
    pytest.importorskip("distributed", reason=DASK_REASON)
    second = cli(
        "sweep", "wireless", *GRID, "--executor", "dask", "--jobs", "2", "--out", str(dask)
    )
    assert second.returncode == 0, second.stderr
    assert "dask, local cluster of 2 worker processes" in second.stderr

    rows = rows_of(local)
    assert len(rows) == 8
    assert comparable(rows) == comparable(rows_of(dask))
    assert [(r["loss"], r["cc"], r["seed"]) for r in rows[:3]] == [
        ("0%", "reno", 1),
        ("0%", "reno", 2),
        ("0%", "westwood", 1),
    ]
    assert all(r["status"] == "ok" and r["error"] is None for r in rows)
    assert all(r["sim_seconds"] == 5.0 and r["goodput_mbps"] > 0 for r in rows)
    lossy = {r["goodput_mbps"] for r in rows if r["loss"] == "1%" and r["cc"] == "reno"}
    assert len(lossy) == 2  # the seeds differ under loss

    # The summary: one line per grid point with mean and CI over the 2 seeds.
    summary = (local / "summary.csv").read_text().splitlines()
    assert summary[0].startswith("loss,cc,runs,failed,goodput_mbps_mean,goodput_mbps_ci95")
    assert len(summary) == 1 + 4
    md = (local / "summary.md").read_text()
    assert "| loss | cc | runs |" in md and "±" in md and "Student t" in md
    assert (local / "sweep.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (local / "sweep.svg").read_text()
    meta = pq.read_schema(local / "results.parquet").metadata[b"westwood.sweep"]
    assert json.loads(meta)["axes"][0] == {"key": "loss", "values": ["0%", "1%"]}

    # Rerunning does nothing new; --rebuild rewrites the Parquet file from the run files alone.
    again = cli("sweep", "wireless", *GRID, "--jobs", "2", "--out", str(local))
    assert again.returncode == 0, again.stderr
    assert "(8 from the store, 0 run now)" in again.stdout
    (local / "results.parquet").unlink()
    rebuilt = cli("sweep", "--rebuild", "--out", str(local))
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert rows_of(local) == rows


def test_dask_scheduler_address(tmp_path: Path):
    """--scheduler: a client of an existing cluster (here a LocalCluster of 2 processes)."""
    distributed = pytest.importorskip("distributed", reason=DASK_REASON)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as cluster:
        axes = [("loss", ["0%", "2%"])]
        remote = sweeps.sweep(
            "wireless",
            axes,
            out=tmp_path / "remote",
            seeds=2,
            overrides={"duration": "5s"},
            executor="dask",
            scheduler=cluster.scheduler_address,
            progress_stream=io.StringIO(),
        )
    local = sweeps.sweep(
        "wireless",
        axes,
        out=tmp_path / "local",
        seeds=2,
        overrides={"duration": "5s"},
        jobs=1,
        progress_stream=io.StringIO(),
    )
    assert remote.ran == 4 and not remote.failed
    assert comparable(remote.rows) == comparable(local.rows)
    pids = {json.loads(d)["pid"] for d in run_files(tmp_path / "remote").values()}
    assert os.getpid() not in pids  # run by the workers, not by this process


def test_worker_needs_only_the_scenario_text(tmp_path: Path):
    """A job carries the scenario text: the file may be gone on the worker; messages name the
    driver's file, and a worker with another build refuses the run."""
    scenario = tmp_path / "mine.toml"
    scenario.write_text((Path(sweeps.__file__).parents[2] / "scenarios/wireless.toml").read_text())
    spec = store.RunSpec("", str(scenario), (("duration", "2s"),), 3)
    bad = store.RunSpec("", str(scenario), (("duration", "2s"), ("cc", "nosuchcc")), 3)
    job, bad_job = store.make_jobs([spec, bad])
    scenario.unlink()
    entry = store.run_job(job)
    assert entry["status"] == "ok" and entry["summary"]["scenario"] == "wireless"
    assert entry["summary"]["sim_seconds"] == 2.0 and entry["run"] == spec.identity()
    failed = store.run_job(bad_job)
    assert failed["status"] == "failed" and failed["error_type"] == "ScenarioError"
    assert str(scenario) in failed["error"] and "nosuchcc" in failed["error"]
    other = store.Job(**{**job.__dict__, "code": {"core_sha256": "0" * 64, "version": "9"}})
    mismatch = store.run_job(other)
    assert mismatch["status"] == "failed" and "another westwood build" in mismatch["error"]


def test_edited_scenario_is_a_new_run(tmp_path: Path):
    """Keys follow the scenario's content, also within one Python session; a file edited
    between planning and running is refused rather than run under the old key."""
    scenario = tmp_path / "mine.toml"
    text = (Path(sweeps.__file__).parents[2] / "scenarios/wireless.toml").read_text()
    scenario.write_text(text)
    axes = [sweeps.parse_vary("loss=0%,1%")]
    before = sweeps.plan_sweep(str(scenario), axes, 1, [("duration", "1s")])
    scenario.write_text(text.replace('wired_delay = "45ms"', 'wired_delay = "40ms"'))
    after = sweeps.plan_sweep(str(scenario), axes, 1, [("duration", "1s")])
    assert before.runs[0].spec.key != after.runs[0].spec.key
    with pytest.raises(store.UsageError, match="changed after the runs were planned"):
        store.make_jobs([before.runs[0].spec])
    assert store.make_jobs([after.runs[0].spec])[0].text == scenario.read_text()


# --- failures ----------------------------------------------------------------------------------


def test_failing_runs_are_recorded_and_the_sweep_goes_on(tmp_path: Path):
    out = tmp_path / "s"
    args = ("sweep", "wireless", "--vary", "loss=0%,150%", "--vary", "cc=reno,westwood")
    args += ("--seeds", "2", "--set", SHORT, "--jobs", "2", "--out", str(out))
    proc = cli(*args)
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "4 of 8 runs failed" in proc.stderr
    assert "loss=150%, cc=reno, seed 1:" in proc.stderr and "not a valid probability" in proc.stderr
    assert "8 runs: 4 ok, 4 failed" in proc.stdout
    rows = rows_of(out)
    assert len(rows) == 8
    bad = [r for r in rows if r["status"] == "failed"]
    assert {r["loss"] for r in bad} == {"150%"} and len(bad) == 4
    assert all("150%" in r["error"] and r["goodput_mbps"] is None for r in bad)
    good = [r for r in rows if r["status"] == "ok"]
    assert len(good) == 4 and all(r["error"] is None and r["goodput_mbps"] > 0 for r in good)
    md = (out / "summary.md").read_text()
    assert "## Failed runs" in md and "not a valid probability" in md
    assert "| 150% | reno | 0 (+2 failed) |" in md
    # Failed runs are stored (status "failed") and tried again by the next invocation.
    entries = [json.loads(d) for d in run_files(out).values()]
    assert sorted(e["status"] for e in entries) == ["failed"] * 4 + ["ok"] * 4
    again = cli(*args)
    assert again.returncode == 1
    assert "(4 from the store, 4 run now)" in again.stdout


# --- interrupts --------------------------------------------------------------------------------

# 12 runs of the 10-to-14-flow dumbbell for 40 s: a few tenths of a second each, so that a sweep
# on 2 processes is still running when the test interrupts it.
SLOW = ("--vary", "flows=6,10,14", "--vary", "cc=reno,westwood", "--seeds", "2")
SLOW += ("--set", "duration=40s", "--jobs", "2")


def start_sweep(out: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "westwood", "sweep", "dumbbell", *SLOW, *extra, "--out", str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        # Ctrl-C must reach it even when this test runs in the background (where a shell starts
        # processes with SIGINT ignored, which Python then leaves ignored).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def wait_for_runs(out: Path, count: int, proc: subprocess.Popen, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(list((out / "runs").glob("*.json"))) < count:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "no runs finished in time"
        time.sleep(0.01)


def children(pid: int) -> List[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


needs_proc = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")


@needs_proc
def test_sigkill_then_resume_runs_only_the_missing_runs(tmp_path: Path):
    out = tmp_path / "s"
    proc = start_sweep(out)
    wait_for_runs(out, 2, proc)
    workers = children(proc.pid)
    os.kill(proc.pid, signal.SIGKILL)  # the driver only: its workers must not outlive it
    proc.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert workers and not any(alive(w) for w in workers)
    assert_store_sound(out)
    before = run_files(out)
    assert 2 <= len(before) < 12, "the sweep ended before it was killed; make the runs longer"
    assert not (out / "results.parquet").exists()

    proc = cli("sweep", "dumbbell", *SLOW, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    done = len(before)
    assert f"12 runs: 12 ok, 0 failed ({done} from the store, {12 - done} run now)" in proc.stdout
    after = run_files(out)
    assert len(after) == 12
    assert all(after[name] == data for name, data in before.items())  # not run again
    executions = {json.loads(d)["execution"] for d in after.values()}
    assert len(executions) == 12
    assert_store_sound(out)
    assert len(rows_of(out)) == 12


# --- one writer per --out ----------------------------------------------------------------------


def test_a_locked_out_is_refused_at_once_naming_the_holder(tmp_path: Path):
    """Two sweeps (or a sweep and a reproduce) on one --out would both compute every run."""
    out = tmp_path / "s"
    with output_lock(out):
        for args in (("sweep", "wireless", *GRID), ("reproduce", "fig9", "--quick")):
            proc = cli(*args, "--out", str(out))
            assert_clean_error(proc, f"{out} is in use", f"(pid {os.getpid()})", "--wait")
            assert proc.stderr.count("\n") == 1
        with pytest.raises(DirectoryInUse, match=f"pid {os.getpid()}"):
            sweeps.sweep("wireless", {"loss": ["0%"]}, out=out, seeds=1, overrides=SHORT)
        assert dir_entries(out) == [LOCK_FILE]  # nothing planned, run or written
    proc = cli("sweep", "wireless", *GRID, "--out", str(out))  # released: the sweep proceeds
    assert proc.returncode == 0, proc.stderr
    assert len(rows_of(out)) == 8


def test_wait_runs_once_the_holder_is_done(tmp_path: Path):
    out = tmp_path / "s"
    log = tmp_path / "stderr.txt"
    with output_lock(out), open(log, "w") as stderr:
        proc = subprocess.Popen(
            [sys.executable, "-m", "westwood", "sweep", "wireless", *GRID, "--out", str(out)]
            + ["--wait"],
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )
        deadline = time.monotonic() + 60
        while f"waiting for pid {os.getpid()} to finish with {out}" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        time.sleep(0.2)
        assert proc.poll() is None and dir_entries(out) == [LOCK_FILE]
    assert proc.wait(timeout=120) == 0, log.read_text()
    assert len(rows_of(out)) == 8


@needs_proc
def test_a_running_sweep_holds_out_until_killed(tmp_path: Path):
    """The lock is the kernel's (flock): a sweep killed with SIGKILL leaves none behind."""
    out = tmp_path / "s"
    first = start_sweep(out)
    wait_for_runs(out, 1, first)
    second = cli("sweep", "dumbbell", *SLOW, "--out", str(out))
    assert_clean_error(second, f"{out} is in use", f"(pid {first.pid})")
    workers = children(first.pid)
    os.kill(first.pid, signal.SIGKILL)
    first.communicate(timeout=30)
    deadline = time.monotonic() + 10
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.02)
    again = cli("sweep", "dumbbell", *SLOW, "--out", str(out))
    assert again.returncode == 0, again.stderr
    assert "12 runs: 12 ok" in again.stdout


@needs_proc
def test_killed_worker_and_ctrl_c_lose_no_finished_run(tmp_path: Path):
    out = tmp_path / "s"
    # A worker killed mid-sweep: its run is retried, the sweep completes.
    proc = start_sweep(out)
    wait_for_runs(out, 1, proc)
    workers = children(proc.pid)
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "12 runs: 12 ok, 0 failed" in stdout
    assert "a worker process died; retrying" in stderr
    assert len(rows_of(out)) == 12

    # Ctrl-C (SIGINT to the whole process group, as a terminal sends it): exit 130, the finished
    # runs stay and the next invocation reuses them.
    out2 = tmp_path / "s2"
    proc = start_sweep(out2)
    wait_for_runs(out2, 2, proc)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr and "run the same command again to resume" in stderr
    assert_store_sound(out2)
    kept = run_files(out2)
    assert 2 <= len(kept) < 12
    again = cli("sweep", "dumbbell", *SLOW, "--out", str(out2))
    assert again.returncode == 0, again.stderr
    assert f"({len(kept)} from the store, {12 - len(kept)} run now)" in again.stdout


@needs_proc
def test_ctrl_c_on_a_dask_local_cluster(tmp_path: Path):
    pytest.importorskip("distributed", reason=DASK_REASON)
    out = tmp_path / "s"
    proc = start_sweep(out, "--executor", "dask")
    wait_for_runs(out, 2, proc)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr, stderr  # the workers leave Ctrl-C to the driver
    assert_store_sound(out)
    assert 2 <= len(run_files(out)) < 12


# --- pieces ------------------------------------------------------------------------------------


def test_local_executor_retries_runs_of_a_dead_worker(tmp_path: Path, monkeypatch):
    """A run whose worker dies every time is recorded as failed; the others finish."""
    path = str(Path(sweeps.__file__).parents[2] / "scenarios/wireless.toml")
    specs = [store.RunSpec("", path, (("duration", "1s"),), seed) for seed in (1, 2, 3)]
    monkeypatch.setenv("WESTWOOD_TEST_CRASH_SEED", "2")  # read by the crash hook below
    executor = LocalExecutor(2)
    jobs = store.make_jobs(specs)
    results = dict(
        (job.seed, entry) for job, entry in _run_with_crash(executor, jobs, str(tmp_path))
    )
    assert results[1]["status"] == "ok" and results[3]["status"] == "ok"
    assert results[2]["status"] == "failed" and results[2]["error_type"] == "WorkerDied"
    assert json.loads((tmp_path / f"{jobs[1].key}.json").read_text())["status"] == "failed"


def _crashing_run_job(job, commit_dir=None):
    if str(job.seed) == os.environ.get("WESTWOOD_TEST_CRASH_SEED"):
        os._exit(9)  # the worker process dies, as if killed
    return store.run_job(job, commit_dir)


def _run_with_crash(executor, jobs, store):
    import westwood.runs.executors as executors

    original = executors.run_job
    executors.run_job = _crashing_run_job
    try:
        yield from executor.execute(jobs, store)
    finally:
        executors.run_job = original


def test_make_executor():
    assert make_executor("local", 3).describe() == "local, 3 processes"
    assert make_executor("local", 1).describe() == "local, 1 process"
    assert LocalExecutor(2, inline=True).describe() == "local, in this process"
    assert "scheduler tcp://h:8786" in make_executor("dask", None, "tcp://h:8786").describe()


def test_progress_bar_and_quiet_log():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    p = Progress(4, stream=tty, redraw=0)
    p.advance()
    p.advance(failed=True)
    p.close()
    assert "\r\x1b[K[######------------------] 1/4 runs" in tty.getvalue()
    assert "2/4 runs (1 failed)" in tty.getvalue()
    log = io.StringIO()
    p = Progress(100, stream=log, title="100 runs")
    p.show(force=True)
    for _ in range(100):
        p.advance()
    lines = log.getvalue().splitlines()
    assert lines[0] == "100 runs" and len(lines) <= 7
    assert lines[-1].startswith("100/100 runs")


# --- a full disk -------------------------------------------------------------------------------

TWO_RUNS = ("--vary", "loss=0%,1%", "--seeds", "1", "--set", SHORT, "--jobs", "1")


def test_disk_full_for_parquet_names_it_and_keeps_the_old_file(tmp_path: Path, monkeypatch, capsys):
    out = tmp_path / "s"
    args = ["sweep", "wireless", *TWO_RUNS, "--out", str(out)]
    assert main(args) == 0
    before = (out / "results.parquet").read_bytes()

    def write_part_then_fail(table, where, **kwargs):
        Path(where).write_bytes(b"PAR1 and then the disk was full")
        raise OSError(errno.ENOSPC, ENOSPC_TEXT)

    monkeypatch.setattr(pq, "write_table", write_part_then_fail)
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.endswith(f"westwood: error: cannot write {out / 'results.parquet'}: {ENOSPC_TEXT}\n")
    assert "Traceback" not in err
    assert (out / "results.parquet").read_bytes() == before
    assert not [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def test_disk_full_for_the_run_store_names_the_run_file(tmp_path: Path, monkeypatch, capsys):
    """The workers (forked: they inherit the full disk) cannot commit a run, nor can the driver
    record the failure: the sweep stops with the run file's path, leaving no part of one."""
    out = tmp_path / "s"
    fill_disk(monkeypatch, out / "runs")
    assert main(["sweep", "wireless", *TWO_RUNS, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    last = err.splitlines()[-1]
    assert last.startswith(f"westwood: error: cannot write {out / 'runs'}/"), err
    assert last.endswith(f".json: {ENOSPC_TEXT}") and "Traceback" not in err
    assert sorted(p.name for p in (out / "runs").iterdir()) == []


def test_a_worker_that_cannot_commit_its_run_stops_the_sweep_with_exit_2(
    tmp_path: Path, monkeypatch, capsys
):
    """Issue 30: reproduce on a full disk exited 1 ("a run failed") when the worker could not
    write its run file but the driver could still record the failure; a full disk is the
    command's error, exit 2 naming the file, whoever hit it."""
    from westwood.errors import WriteError
    from westwood.runs import store

    driver = os.getpid()
    real_commit = store.commit_entry

    def commit(cache_dir, key, entry):
        if os.getpid() != driver:  # the forked worker: its disk is full
            path = store.cache_path(cache_dir, key)
            raise WriteError(errno.ENOSPC, ENOSPC_TEXT, str(path))
        real_commit(cache_dir, key, entry)

    monkeypatch.setattr(store, "commit_entry", commit)
    out = tmp_path / "s"
    assert main(["sweep", "wireless", *TWO_RUNS, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    last = err.splitlines()[-1]
    assert last.startswith(f"westwood: error: cannot write {out / 'runs'}/"), err
    assert last.endswith(f".json: {ENOSPC_TEXT}") and "Traceback" not in err


def test_sweep_json_reports_the_outcome(tmp_path: Path, capsys):
    out = tmp_path / "s"
    assert main(["sweep", "wireless", *TWO_RUNS, "--out", str(out), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert (got["runs"], got["ok"], got["failed"], got["run_now"], got["from_store"]) == (
        2,
        2,
        0,
        2,
        0,
    )
    assert got["failures"] == [] and any(f.endswith("results.parquet") for f in got["files"])
    assert main(["sweep", "--rebuild", "--out", str(out), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["runs"], again["ok"], again["run_now"]) == (2, 2, None)
