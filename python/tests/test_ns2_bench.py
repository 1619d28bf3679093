"""bench/ns2/: the ns-2.35 scripts that docs/performance.md times against westwood, run only
where ``ns`` is installed. They must model the same work as the scenarios they are timed
against: the dumbbell's aggregate goodput agrees with the simulator's closely (same topology,
buffers, segment sizes and NewReno), the fig. 9 point's within the spread of two Reno
implementations on different random streams. Nothing here is timed."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, cli_json

pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns (ns-2.35) not installed")

NS2 = REPO / "bench" / "ns2"


def ns(script: str, *args: str) -> dict:
    proc = subprocess.run(
        ["ns", str(NS2 / script), *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    return dict(re.findall(r"(\w+)=([0-9.]+)", proc.stdout))


def test_the_dumbbell_script_does_the_scenarios_work():
    ns2 = ns("dumbbell.tcl", "10", "20")
    assert ns2["flows"] == "10"
    ours = cli_json("run", "dumbbell", "--set", "duration=20s")
    aggregate = sum(f["goodput_bps"] for f in ours["flows"]) / 1e6
    assert abs(float(ns2["aggregate_goodput_mbps"]) / aggregate - 1) < 0.05, (ns2, aggregate)


def test_the_fig9_script_runs_the_reno_point():
    ns2 = ns("fig9.tcl", "0.01", "100")
    assert float(ns2["rexmit_pkts"]) > 0 and float(ns2["timeouts"]) > 0  # losses happened
    ours = cli_json(
        "run", "wireless", "--set", "cc=reno", "--set", "loss=1%", "--set", "duration=100s"
    )
    ratio = float(ns2["goodput_bps"]) / ours["flows"][0]["goodput_bps"]
    assert 0.5 < ratio < 2, ratio


def test_the_comparison_runs_and_reports_both_simulators():
    proc = subprocess.run(
        [sys.executable, str(NS2 / "compare.py"), "--quick", "--rounds", "1", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["cpus"] >= 1 and len(report["load_before"]) == 3
    assert [c["case"] for c in report["cases"]] == ["dumbbell", "fig9"]
    for case in report["cases"]:
        for side in ("ns-2.35", "westwood"):
            assert case[side]["median_seconds"] > 0 and case[side]["peak_rss_bytes"] > 1_000_000
        assert case["ratio"] > 0
