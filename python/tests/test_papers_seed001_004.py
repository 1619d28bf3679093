"""Seeds 001-004: every scenario file parses and runs for a few simulated seconds, and every
run of every experiment (full and quick points) is accepted by its scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from westwood.api import run_raw
from westwood.experiments.registry import EXPERIMENTS
from westwood.papers import seed001, seed002, seed003, seed004

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = sorted(
    p
    for prefix in ("seed001_", "seed002_", "seed003_", "seed004_")
    for p in (REPO / "scenarios").glob(prefix + "*.toml")
)
OURS = [e for m in (seed001, seed002, seed003, seed004) for e in m.EXPERIMENTS]
SHORT = "3s"


def test_scenarios_found():
    names = {p.stem for p in SCENARIOS}
    assert {
        "seed001_onoff",
        "seed001_bursty",
        "seed002_fourpath",
        "seed003_wireless",
        "seed003_geo",
        "seed004_lan",
        "seed004_lan_single",
    } <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_runs(path):
    # 10 s: the measured transfer of the Internet paths starts at 5 s, after its cross traffic.
    result = run_raw(path, overrides={"duration": "10s"})
    summary = result.summary
    assert summary["flows"] or summary.get("arrivals")
    for flow in summary["flows"]:
        assert flow["bytes_delivered"] > 0, flow["name"]


def test_registered():
    for e in OURS:
        assert EXPERIMENTS[e.id] is e
        assert e.claims, e.id


@pytest.mark.parametrize("experiment", OURS, ids=lambda e: e.id)
def test_experiment_overrides_accepted(experiment):
    points = {(x, s.label): (x, s) for quick in (False, True) for x, s in experiment.points(quick)}
    for x, series in points.values():
        for quick in (False, True):
            overrides = experiment.run_overrides(
                x, series, quick, [(experiment.duration_parameter, SHORT)]
            )
            summary = run_raw(experiment.scenario, overrides=overrides).summary
            value = experiment.metric.value(summary) if hasattr(experiment, "metric") else 0.0
            assert isinstance(value, float), (experiment.id, x, series.label)


def test_complement_experiment_sets_both_counts():
    e = seed004.FIG5_NEWRENO
    overrides = dict(e.run_overrides(3, e.series[0], False))
    assert overrides["n_b"] == "3" and overrides["n_a"] == "7"
    summary = run_raw(e.scenario, overrides={**overrides, "duration": SHORT}).summary
    assert summary["per_cc"]["newreno"]["flows"] == 3
    assert summary["per_cc"]["westwood-abse"]["flows"] == 7


def test_equal_mix_sets_both_counts():
    e = seed004.FIG4
    overrides = dict(e.run_overrides(4, e.series[0], False))
    assert overrides["n_a"] == "4" and overrides["n_b"] == "4"
    summary = run_raw(e.scenario, overrides={**overrides, "duration": SHORT}).summary
    assert summary["per_cc"]["newreno"]["flows"] == 4
    assert summary["per_cc"]["westwood-abse"]["flows"] == 4
