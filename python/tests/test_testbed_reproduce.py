"""The testbed sections of `westwood reproduce` (westwood/experiments/testbed.py).

The runner, the store, the report and the skipped path are tested with a fake `westwood-emu`
that writes canned summaries (no privileges). One test runs a real two-point testbed
reproduction for a few seconds when this machine can (root, iperf3, the built binary); it is
skipped with the reason otherwise.
"""

from __future__ import annotations

import csv
import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fake_emu_binary
from westwood.claims import NOT_AVAILABLE, REPRODUCED, Claim, between, judge
from westwood.experiments import testbed as tbx
from westwood.experiments.base import GOODPUT_MBPS, Axis, Series
from westwood.experiments.sweep import SweepResults
from westwood.report import html as report
from westwood.reproduce import reproduce
from westwood.stats import mean_ci


def _summary(goodputs, cc_names, **extra):
    flows = [
        {
            "name": f"f{i}",
            "cc": cc,
            "goodput_bps": g,
            "throughput_bps": g,
            "retransmits": 0,
            "timeouts": 0,
            "fast_retransmits": 0,
        }
        for i, (g, cc) in enumerate(zip(goodputs, cc_names))
    ]
    per_cc = {}
    for f in flows:
        e = per_cc.setdefault(f["cc"], {"flows": 0, "total_goodput_bps": 0.0})
        e["flows"] += 1
        e["total_goodput_bps"] += f["goodput_bps"]
    for e in per_cc.values():
        e["mean_goodput_bps"] = e["total_goodput_bps"] / e["flows"]
    return {
        "flows": flows,
        "per_cc": per_cc,
        "fairness": {"index": 1.0},
        "sim_seconds": 5.0,
        "events": 10,
        "wall_seconds": 5.0,
        **extra,
    }


def tiny_experiment(**changes):
    fields = dict(
        id="tb_tiny",
        title="tiny",
        paper="test",
        scenario="wireless",
        x=Axis("loss", (0, 1), "Packet error rate", unit="%"),
        series=(Series("TCPW", {"cc": "westwood"}), Series("Reno", {"cc": "reno"})),
        metric=GOODPUT_MBPS,
        seconds=3,
        quick_seconds=2,
        seeds=1,
        claims=(
            Claim(
                "agreement",
                tbx.agreement("TCPW", "Reno"),
                target=between(0.75, 1.25),
                partly=between(0.5, 1.5),
                paper="",
            ),
        ),
    )
    fields.update(changes)
    return tbx.TestbedExperiment(**fields)


def _calls(log):
    return fake_emu_binary.calls(log)


def test_a_testbed_experiment_reports_both_sides_and_judges_agreement(tmp_path, fake_emu):
    out = tmp_path / "results"
    reproduce([tiny_experiment()], out, progress_stream=open("/dev/null", "w"))
    assert len(_calls(fake_emu)) == 4  # 2 losses x 2 ccs
    manifest = json.loads((out / "index.json").read_text())
    entry = manifest["tb_tiny"]
    assert entry["kind"] == "testbed"
    assert entry["table"]["header"][1:] == ["TCPW", "TCPW (simulator)", "Reno", "Reno (simulator)"]
    assert entry["table"]["rows"][0][1:] == ["2.000", "2.200", "1.000", "1.000"]
    (claim,) = entry["claims"]
    assert claim["verdict"] == REPRODUCED  # 2/1 over 2.2/1 = 0.91
    assert math.isclose(claim["value"], 2 / 2.2, rel_tol=1e-9)
    rows = (out / "tb_tiny.csv").read_text().splitlines()
    assert rows[0].split(",")[:4] == ["experiment", "loss", "series", "seed"]
    assert len(rows) == 1 + 8
    md = (out / "tb_tiny.md").read_text()
    assert "0 dropped or not sent by the emulator" in md
    assert (out / "tb_tiny.png").stat().st_size > 0
    index = (out / "index.md").read_text()
    assert f"## {report.TESTBED_HEADING}" in index
    assert report.TESTBED_HEADING in (out / "index.html").read_text()
    for key_file in (out / tbx.STORE).glob("*.json"):
        stored = json.loads(key_file.read_text())
        assert stored["status"] == "ok"
        assert (out / stored["files"] / "testbed.log").is_file()


def test_repeated_runs_give_each_point_its_mean_and_interval(tmp_path, fake_emu):
    out = tmp_path / "results"
    reproduce([tiny_experiment(seeds=3)], out, progress_stream=open("/dev/null", "w"))
    assert len(_calls(fake_emu)) == 12  # 2 losses x 2 ccs x 3 runs
    entry = json.loads((out / "index.json").read_text())["tb_tiny"]
    # TCPW's three runs: 2.00, 2.02, 2.04 Mb/s: mean 2.02, t(0.975, 2) x 0.02 / sqrt(3) = 0.050
    assert entry["table"]["rows"][0][1] == "2.020 ± 0.050"
    md = (out / "tb_tiny.md").read_text()
    assert "3 seed(s) per point" in md or "3 seeds" in md


def test_the_lab_figures_rest_on_five_runs_a_point_and_quick_on_one():
    from westwood.papers import testbed as papers

    for e in (
        papers.FIG7,
        papers.SEED004_FIG2,
        papers.SEED004_FIG3,
        papers.SEED004_FIG4,
        papers.SEED004_FIG5,
    ):
        assert e.seeds >= 5, e.id
        seeds = {run.seed for run in e.plan(False, e.seeds, [], "x")}
        assert seeds == set(range(1, e.seeds + 1)), e.id
        assert {run.seed for run in e.plan(True, 1, [], "x")} == {1}, e.id


def test_finished_runs_are_not_run_again(tmp_path, fake_emu):
    out = tmp_path / "results"
    null = open("/dev/null", "w")
    reproduce([tiny_experiment()], out, progress_stream=null)
    reproduce([tiny_experiment()], out, progress_stream=null)
    assert len(_calls(fake_emu)) == 4
    # a longer run is another run
    reproduce([tiny_experiment(seconds=4)], out, progress_stream=null)
    assert len(_calls(fake_emu)) == 8


def test_a_missing_prerequisite_skips_the_experiment_with_its_reason(
    tmp_path, fake_emu, monkeypatch
):
    monkeypatch.setenv("FAKE_MODE", "missing")
    out = tmp_path / "results"
    reproduce([tiny_experiment()], out, progress_stream=open("/dev/null", "w"))
    entry = json.loads((out / "index.json").read_text())["tb_tiny"]
    assert entry["skipped"] == "iperf3 not found: apt-get install iperf3"
    assert entry["runs_text"].startswith("skipped: ")
    assert "Skipped: this machine cannot run the testbed." in (out / "tb_tiny.md").read_text()
    assert "skipped: iperf3 not found" in (out / "index.html").read_text()


def test_points_a_kernel_cannot_run_are_skipped_with_the_reason_and_the_rest_reported(
    tmp_path, fake_emu, monkeypatch
):
    monkeypatch.setenv("FAKE_MODE", "no_tcpw")
    out = tmp_path / "results"
    null = open("/dev/null", "w")
    reproduce([tiny_experiment()], out, progress_stream=null)
    entry = json.loads((out / "index.json").read_text())["tb_tiny"]
    assert "skipped" not in entry  # the Reno points ran
    reason = "tcpw unavailable on this kernel: EPERM at load"
    for row in entry["table"]["rows"]:
        assert row[1:3] == [f"skipped: {reason}"] * 2  # TCPW and its simulator twin
        assert row[3] == "1.000"  # Reno
    (claim,) = entry["claims"]
    assert claim["verdict"] == "skipped" and claim["measured"] == f"skipped: {reason}"
    md = (out / "tb_tiny.md").read_text()
    assert "2 run(s) skipped (this machine cannot run them)" in md and reason in md
    assert "n/a" not in json.dumps(entry["table"])
    # Skipped runs are not stored: a machine that can run them later does.
    monkeypatch.setenv("FAKE_MODE", "ok")
    reproduce([tiny_experiment()], out, progress_stream=null)
    assert len(_calls(fake_emu)) == 4 + 2
    entry = json.loads((out / "index.json").read_text())["tb_tiny"]
    assert entry["claims"][0]["verdict"] == REPRODUCED


def test_a_machine_without_root_gets_a_skipped_note(tmp_path, monkeypatch):
    monkeypatch.setattr(tbx, "unavailable_reason", lambda: "the testbed needs root")
    out = tmp_path / "results"
    reproduce([tiny_experiment()], out, progress_stream=open("/dev/null", "w"))
    entry = json.loads((out / "index.json").read_text())["tb_tiny"]
    assert entry["skipped"] == "the testbed needs root"


def test_a_failing_run_is_retried_once_then_reported_missing(tmp_path, fake_emu, monkeypatch):
    monkeypatch.setenv("FAKE_MODE", "fail")
    out = tmp_path / "results"
    exp = tiny_experiment(x=Axis("loss", (1,), "Packet error rate", unit="%"))
    reproduce([exp], out, progress_stream=open("/dev/null", "w"))
    assert len(_calls(fake_emu)) == 2 * tbx.ATTEMPTS
    md = (out / "tb_tiny.md").read_text()
    assert "2 run(s) failed and are missing from the table" in md
    assert "iperf3 byte counts disagree" in md
    # failed runs are tried again by the next invocation
    monkeypatch.setenv("FAKE_MODE", "ok")
    reproduce([exp], out, progress_stream=open("/dev/null", "w"))
    assert len(_calls(fake_emu)) == 2 * tbx.ATTEMPTS + 2


def test_keys_depend_on_what_is_asked_and_on_the_binary():
    exp = tiny_experiment()
    a = exp.plan(False, 1, [], "bin1")
    assert [r.key for r in a] == [r.key for r in exp.plan(False, 1, [], "bin1")]
    assert len({r.key for r in a}) == 4
    assert a[0].key != exp.plan(False, 1, [], "bin2")[0].key
    assert a[0].key != exp.plan(False, 1, [("tcp.rto_min", "200ms")], "bin1")[0].key
    assert exp.plan(True, 1, [], "bin1")[0].seconds == 2
    assert "--duration" in a[0].argv(tbx.Path("/x"), tbx.Path("/o"))


def test_the_kernel_cc_names_read_as_the_scenario_s():
    summary = _summary([1e6, 2e6], ["reno", "tcpw"])
    summary["testbed"] = {
        "flows": [
            {"kernel_cc": "reno", "scenario_cc": "newreno"},
            {"kernel_cc": "tcpw", "scenario_cc": "westwood"},
        ]
    }
    view = tbx.scenario_view(summary)
    assert set(view["per_cc"]) == {"newreno", "westwood"}
    assert [f["cc"] for f in view["flows"]] == ["newreno", "westwood"]
    assert set(tbx.scenario_view(_summary([1e6], ["tcpw_plus"]))["per_cc"]) == {"westwood-plus"}


def test_agreement_picks_the_ratio_farthest_from_one():
    exp = tiny_experiment(x=Axis("loss", (0, 1, 2), "loss", unit="%")).as_sweep(False)

    def cells(*values):
        return [[mean_ci([v]) for v in row] for row in values]

    # series order: TCPW, TCPW (simulator), Reno, Reno (simulator)
    r = SweepResults(exp, (0, 1, 2), cells((1, 2, 3), (1, 2, 3), (1, 1, 1), (1, 2, 1)))
    m = tbx.agreement("TCPW", "Reno")(r)
    assert math.isclose(m.value, 2.0)  # at 1%: testbed 2 / simulator 1
    assert judge(tiny_experiment().claims[0], r).verdict == "not reproduced"
    # Quick runs are not judged: n/a, with what was measured and what to do.
    quick = judge(tiny_experiment().claims[0], SweepResults(exp, r.xs, r.cells, quick=True))
    assert quick.verdict == NOT_AVAILABLE, quick
    assert "too short" in quick.measured and "2.00" in quick.measured, quick.measured
    assert "without --quick" in quick.measured


def test_testbed_experiments_are_registered_and_listed():
    from westwood.experiments import registry as experiments

    testbed = [e for e in experiments.EXPERIMENTS.values() if e.kind == "testbed"]
    assert {e.id for e in testbed} >= {
        "testbed_fig9",
        "testbed_fig7",
        "testbed_seed004_fig2",
        "testbed_seed004_fig3",
        "testbed_seed004_fig4",
        "testbed_seed004_fig5",
    }
    quick = experiments.get([], quick=True)
    assert {"testbed_fig9", "testbed_fig7"} <= {e.id for e in quick}
    for e in testbed:
        if getattr(e, "measured_with", "") == "measure":  # test_measurement_reproduce.py
            continue
        for run in e.plan(True, 1, [], "x") + e.plan(False, e.seeds, [], "x"):
            assert run.scenario_path.endswith(".toml")


def test_a_real_testbed_reproduction(tmp_path):
    reason = tbx.unavailable_reason()
    if reason is not None:
        pytest.skip(f"cannot run the testbed here: {reason}")
    out = tmp_path / "results"
    exp = tiny_experiment(
        x=Axis("loss", (1,), "Packet error rate", unit="%"), seconds=3, simulator_seeds=3
    )
    # The simulator's seeds 2 and 3 are plain simulator runs with the overrides the testbed
    # recorded; its seed 1 is run again and must equal the testbed's own simulator run (the
    # reproduction raises otherwise).
    reproduce([exp], out, progress_stream=open("/dev/null", "w"))
    entry = json.loads((out / "index.json").read_text())["tb_tiny"]
    assert "skipped" not in entry, entry.get("skipped")
    stored = [json.loads(p.read_text()) for p in (out / tbx.STORE).glob("*.json")]
    assert len(stored) == 2 and all(s["status"] == "ok" for s in stored), stored
    for s in stored:
        (flow,) = s["testbed"]["flows"]
        assert flow["goodput_bps"] > 0
        assert all(f["ok"] for f in s["testbed"]["testbed"]["integrity"])
        assert s["simulator"]["flows"][0]["goodput_bps"] > 0
    assert entry["table"]["rows"][0][1] != "–"
    rows = list(csv.DictReader((out / "tb_tiny.csv").open()))
    for series in ("TCPW", "Reno"):
        seeds = sorted(int(r["seed"]) for r in rows if r["series"] == series + " (simulator)")
        assert seeds == [1, 2, 3], (series, seeds)
        assert [int(r["seed"]) for r in rows if r["series"] == series] == [1]


def test_the_extra_simulator_seeds_use_what_the_testbed_recorded():
    entry = {
        "overrides": [["cc", "westwood"], ["loss", "1%"]],
        "seconds": 60,
        tbx.TESTBED: {
            "testbed": {
                "simulator_overrides": {
                    "profile": "linux",
                    "changed": {"tcp.window_growth": "linux", "tcp.quick_acks": "16"},
                }
            }
        },
    }
    assert tbx.simulator_overrides(entry) == [
        ("cc", "westwood"),
        ("loss", "1%"),
        ("scenario.duration", "60s"),
        ("tcp.window_growth", "linux"),
        ("tcp.quick_acks", "16"),
    ]
    # Flows that differ, or a run that did not record what it changed: no extra seeds.
    entry[tbx.TESTBED]["testbed"]["simulator_overrides"]["changed"]["tcp.recovery"] = "newreno,sack"
    assert tbx.simulator_overrides(entry) is None
    del entry[tbx.TESTBED]["testbed"]["simulator_overrides"]
    assert tbx.simulator_overrides(entry) is None


def test_runs_with_per_ack_traces_are_compared_ack_by_ack(tmp_path, fake_emu, monkeypatch):
    from westwood.papers.testbed_linux import CWND_AGREEMENT, _agreement_claim

    monkeypatch.setenv("FAKE_ACKS", "differ")  # the kernel's recovery window 2 segments larger
    experiment = tiny_experiment(
        id="tb_acks",
        x=Axis("loss", (1,), "Packet error rate", unit="%"),
        series=(Series("Reno", {"cc": "reno"}),),
        metric=CWND_AGREEMENT,
        claims=(_agreement_claim("Reno"),),
        ack_trace=True,
        alignment_report=True,
    )
    out = tmp_path / "results"
    reproduce([experiment], out, progress_stream=open("/dev/null", "w"))
    (call,) = _calls(fake_emu)
    assert call.endswith("--ack-trace")
    entry = json.loads((out / "index.json").read_text())["tb_acks"]
    # 13 kernel rows have a simulator row before them; the 3 DUPACKs of the recovery disagree.
    assert entry["table"]["rows"][0][1:] == [f"{10 / 13:.3f}", "–"]
    (claim,) = entry["claims"]
    assert math.isclose(claim["value"], 10 / 13)
    md = (out / "tb_acks.md").read_text()
    assert "## ACK by ACK" in md
    assert "| Reno, loss 1% | 13 of 14 | 76.9% | 100.0% | 1 / 1 | 0 / 0 | 1 / 1 |" in md
    assert "ACK 10000 (1st repeat)" in md and "kernel cwnd 8, ssthresh 6 (recovery)" in md
    assert (out / "tb_acks-acks-1.png").stat().st_size > 0
    # Traces are part of what a run is: the same point without them is another run.
    plain = tiny_experiment(x=experiment.x, series=experiment.series).plan(False, 1, (), "b")
    traced = experiment.plan(False, 1, (), "b")
    assert plain[0].key != traced[0].key and "--ack-trace" not in plain[0].argv(Path("e"), out)


SLOW_CLEANUP = r"""#!/usr/bin/env python3
import os, signal, sys, time
out = sys.argv[sys.argv.index("--out") + 1]
marker = os.environ["FAKE_MARKER"]
def stop(*_):
    time.sleep(1.0)  # tearing down namespaces takes a while: longer than 0.25 s
    open(marker, "w").write("cleaned up")
    sys.exit(130)
signal.signal(signal.SIGTERM, stop)
signal.signal(signal.SIGINT, stop)
open(marker + ".started", "w").write("running")
time.sleep(60)
"""


def test_an_interrupted_testbed_run_is_given_time_to_clean_up(tmp_path: Path):
    """A SIGINT sent to reproduce alone (not its process group) once got the testbed binary
    killed 0.25 s later, mid-way through tearing down its namespaces: now it is asked to stop
    and waited for."""
    import textwrap

    fake = tmp_path / "westwood-emu"
    fake.write_text(SLOW_CLEANUP)
    fake.chmod(0o755)
    marker = tmp_path / "cleaned"
    driver = textwrap.dedent(
        f"""
        from pathlib import Path
        from westwood.experiments.testbed import TestbedRun, run_one
        run = TestbedRun(experiment="x", scenario_path="wireless", scenario_sha256="0",
                         overrides=(), seed=1, seconds=5, x=0.0, series="s", binary_sha256="0")
        try:
            run_one(run, Path({str(fake)!r}), Path({str(tmp_path / "store")!r}))
        except KeyboardInterrupt:
            raise SystemExit(130)
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", driver],
        env={**os.environ, "FAKE_MARKER": str(marker)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 30
    while not Path(str(marker) + ".started").exists():
        assert time.monotonic() < deadline, "the fake testbed never started"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # to the driver alone, as `kill -INT PID` sends it
    assert proc.wait(timeout=30) == 130
    assert marker.read_text() == "cleaned up"
