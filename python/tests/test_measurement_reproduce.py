"""The papers' Internet measurements in `westwood reproduce` (experiments/measurement.py):
`westwood measure` through `westwood emu path --scenario`, with the simulator beside it. A fake
`westwood-emu` (fake_emu_binary) stands for the path and the measure command inside it, writing
measure's own records, so this runs without root and in seconds; the simulator runs are real."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

import fake_emu_binary
from westwood.claims import GREATER, NOT_AVAILABLE, REPRODUCED, Claim, between, compare
from westwood.experiments import testbed as tbx
from westwood.experiments.base import Axis, Series
from westwood.experiments.measurement import (
    STORE,
    MeasurementExperiment,
    complete_rounds,
    measured_over_simulated,
)
from westwood.experiments.measures import ratios_per_seed
from westwood.reproduce import reproduce


def tiny(**changes) -> MeasurementExperiment:
    fields = dict(
        id="ms_tiny",
        title="tiny",
        paper="test",
        scenario="seed003_nasa",
        x=Axis("loss", (0.39,), "Data segments lost", unit="%"),
        series=(Series("TCPW", {"cc": "westwood"}), Series("Reno", {"cc": "reno"})),
        seconds=3,
        quick_seconds=2,
        rounds=3,
        claims=(
            compare("TCPW beats Reno", ratios_per_seed("TCPW", 0.39, "Reno", 0.39), GREATER, ""),
            Claim(
                "TCPW measured over simulated",
                measured_over_simulated("TCPW", 0.39),
                target=between(0, 100),
                paper="",
            ),
        ),
    )
    fields.update(changes)
    return MeasurementExperiment(**fields)


def _calls(log):
    return fake_emu_binary.calls(log)


def _measure_words(call: str):
    """The measure command inside a logged path call."""
    return shlex.split(shlex.split(call)[-1])


def test_a_measurement_runs_measure_through_the_scenario_s_path_and_reports_both_sides(
    tmp_path, fake_emu
):
    out = tmp_path / "results"
    reproduce([tiny()], out, progress_stream=open("/dev/null", "w"))
    (call,) = _calls(fake_emu)
    words = shlex.split(call)
    assert words[:2] == ["path", "--scenario"] and words[2].endswith("seed003_nasa.toml")
    assert words[words.index("--load") + 1] == "tcpw"
    assert "--set" in words and "loss=0.39%" in words
    measure = _measure_words(call)
    assert measure[measure.index("measure") + 1] == "$WESTWOOD_PATH_SERVER"
    assert measure[measure.index("--cc") + 1] == "tcpw,reno"
    assert measure[measure.index("--rounds") + 1] == "3"
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    assert entry["kind"] == "testbed"
    header = entry["table"]["header"][1:]
    assert header == ["TCPW", "TCPW (simulator)", "Reno", "Reno (simulator)"]
    # TCPW's three rounds: 2.00, 2.02, 2.04 Mb/s (measure's goodput of the fake's records).
    assert entry["table"]["rows"][0][1].startswith("2.020 ± ")
    verdicts = {c["claim"]: c for c in entry["claims"]}
    assert verdicts["TCPW beats Reno"]["verdict"] == REPRODUCED  # 2.0 per round
    assert "simulated" in verdicts["TCPW measured over simulated"]["measured"]
    md = (out / "ms_tiny.md").read_text()
    assert "as the papers tabled them" in md
    assert "| tcpw | 3 |" in md and "| reno | 3 |" in md
    assert "drops (both directions) by cause: error 1" in md
    # The simulator ran the scenario, as many seeds as rounds, each cc.
    rows = (out / "ms_tiny.csv").read_text().splitlines()
    assert sum(1 for r in rows if "(simulator)" in r) == 6


def test_an_interrupted_measurement_measures_only_the_rounds_missing(
    tmp_path, fake_emu, monkeypatch
):
    out = tmp_path / "results"
    null = open("/dev/null", "w")
    monkeypatch.setenv("FAKE_STOP_AFTER", "3")  # round 1 whole, round 2's tcpw, then Ctrl-C
    with pytest.raises(KeyboardInterrupt):
        reproduce([tiny()], out, progress_stream=null)
    monkeypatch.delenv("FAKE_STOP_AFTER")
    reproduce([tiny()], out, progress_stream=null)
    first, second = _calls(fake_emu)
    assert _measure_words(second)[_measure_words(second).index("--rounds") + 1] == "2"
    # Each call draws the path's losses from a seed of its own.
    assert shlex.split(first)[shlex.split(first).index("--seed") + 1] == "1"
    assert shlex.split(second)[shlex.split(second).index("--seed") + 1] == "2"
    (directory,) = [d for d in (out / STORE).iterdir() if d.is_dir()]
    # Round 2 lost its reno: the table keeps rounds 1, 3 and 4, three complete pairs.
    assert complete_rounds(directory, ("tcpw", "reno")) == [1, 3, 4]
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    assert entry["claims"][0]["verdict"] == REPRODUCED
    # Done: a third reproduction measures nothing.
    reproduce([tiny()], out, progress_stream=null)
    assert len(_calls(fake_emu)) == 2


def test_quick_is_one_round_and_a_missing_prerequisite_skips_with_the_reason(
    tmp_path, fake_emu, monkeypatch
):
    out = tmp_path / "results"
    reproduce([tiny()], out, quick=True, progress_stream=open("/dev/null", "w"))
    (call,) = _calls(fake_emu)
    assert _measure_words(call)[_measure_words(call).index("--rounds") + 1] == "1"
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    # One round: a comparison has no interval; agreement is not judged on a quick round.
    assert entry["claims"][0]["verdict"] == NOT_AVAILABLE
    assert entry["claims"][1]["verdict"] == NOT_AVAILABLE
    assert "too short to judge agreement" in entry["claims"][1]["measured"]
    monkeypatch.setenv("FAKE_MODE", "missing")
    reproduce([tiny(id="ms_other")], out, progress_stream=open("/dev/null", "w"))
    entry = json.loads((out / "index.json").read_text())["ms_other"]
    assert "iperf3 not found" in entry["skipped"]


def test_a_measurement_series_sets_only_a_cc_with_a_kernel_twin():
    with pytest.raises(ValueError, match="sets only cc"):
        tiny(series=(Series("TCPW", {"cc": "westwood", "loss": "1%"}),))
    with pytest.raises(ValueError, match="no kernel twin"):
        tiny(series=(Series("Vegas", {"cc": "vegas"}),))


def test_the_nasa_measurement_is_registered_with_the_papers_numbers():
    from westwood.experiments import registry

    nasa = registry.EXPERIMENTS["testbed_seed003_nasa"]
    assert nasa.kind == "testbed" and nasa.kernel_ccs() == ("tcpw", "reno")
    assert nasa.rounds >= 5
    (run,) = nasa.plan(False, [], "x")
    assert run.scenario_path.endswith("seed003_nasa.toml")


def test_every_registered_measurement_s_points_are_scenarios_the_simulator_runs():
    # Each point of every Internet measurement, as its simulator side runs it (its wait for the
    # cross traffic and a second of transfer):
    # the scenario loads with the point's overrides and raises none of the strict warnings
    # (a bdp queue too small to hold a burst, a sender losing most packets at its first hop).
    from westwood import api
    from westwood.experiments import registry
    from westwood.experiments.measurement import MeasurementExperiment

    measurements = [
        e for e in registry.EXPERIMENTS.values() if isinstance(e, MeasurementExperiment)
    ]
    assert {"testbed_seed000_brazil", "testbed_seed004_figs7_8"} <= {e.id for e in measurements}
    for experiment in measurements:
        (run, *_) = experiment.plan(True, [], "x")
        assert run.kernel_ccs and Path(run.scenario_path).is_file()
        for x in experiment.x.values:
            for series in experiment.series:
                duration = f"{experiment.start_seconds + 1}s"
                overrides = experiment.run_overrides(x, series, [("scenario.duration", duration)])
                api.run(run.scenario_path, overrides=overrides, record=False, strict=True)


def test_a_measured_flow_that_starts_late_waits_for_its_cross_traffic_on_both_sides(
    tmp_path, fake_emu
):
    out = tmp_path / "results"
    reproduce([tiny(start_seconds=2)], out, progress_stream=open("/dev/null", "w"))
    (call,) = _calls(fake_emu)
    assert shlex.split(call)[-1].startswith("sleep 2; exec ")
    # The simulator runs the scenario for the wait and a transfer: 2 + 3 s.
    rows = (out / "ms_tiny.csv").read_text().splitlines()
    simulated = [r for r in rows if "(simulator)" in r]
    assert simulated and all("scenario.duration=5s" in r for r in simulated)


def test_a_real_measurement_through_an_emulated_path_with_cross_traffic(tmp_path):
    """As root: westwood measure through westwood emu path --scenario for real, the measured
    transfers sharing the bottleneck with a kernel cross flow: both protocols carry data, the
    emulator dropped only what the path's queue and error model drop, and the simulator ran
    beside it."""
    reason = tbx.unavailable_reason()
    if reason is not None:
        pytest.skip(f"cannot run the testbed here: {reason}")
    out = tmp_path / "results"
    exp = tiny(
        scenario="seed000_internet",
        x=Axis("delay", (10,), "Bottleneck delay", unit="ms"),
        overrides={"cross_flows": "1"},
        seconds=4,
        rounds=1,
        start_seconds=5,  # the scenario's measured flow starts at 5 s
        claims=(),
    )
    reproduce([exp], out, progress_stream=open("/dev/null", "w"))
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    assert "skipped" not in entry, entry.get("skipped")
    (stored,) = [json.loads(p.read_text()) for p in (out / STORE).glob("*.json")]
    assert stored["status"] == "ok", stored
    (path,) = stored["paths"]
    assert [c["cc"] for c in path["cross_traffic"]] == ["reno"]
    assert path["simulator_overrides"]["profile"] == "linux"
    row = entry["table"]["rows"][0]
    measured = {"TCPW": row[1], "Reno": row[3]}
    assert all(v != "–" and float(v.split()[0]) > 0 for v in measured.values()), row
    md = (out / "ms_tiny.md").read_text()
    assert "| tcpw | 1 |" in md and "| reno | 1 |" in md


def test_parallel_connections_are_judged_by_their_fairness_on_both_sides(tmp_path, fake_emu):
    """Seed 000 fig. 20: N connections at once per transfer (measure --parallel N); the
    measured transfer's connections and the simulator's measured flows are read alike."""
    from westwood import _core
    from westwood.experiments.base import group_fairness_metric

    out = tmp_path / "results"
    exp = tiny(
        scenario="seed000_internet",
        x=Axis("delay", (10,), "Bottleneck delay", unit="ms"),
        overrides={"cross_flows": "1"},
        parallel=3,
        simulator_overrides={"transfers": "3"},
        metric=group_fairness_metric("transfer"),
        rounds=2,
        start_seconds=5,  # the scenario's transfers start at 5 s
        claims=(),
    )
    reproduce([exp], out, progress_stream=open("/dev/null", "w"))
    (call,) = _calls(fake_emu)
    assert _measure_words(call)[_measure_words(call).index("--parallel") + 1] == "3"
    # The path is the scenario as it is: one measured flow (the simulator's runs have three).
    assert "transfers=3" not in shlex.split(call)
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    # The fake's three connections run at 1, 1.1 and 1.2 times the first's rate.
    expected = _core.jain_index([1.0, 1.1, 1.2])
    assert entry["table"]["rows"][0][1].startswith(f"{expected:.3f}")
    rows = (out / "ms_tiny.csv").read_text().splitlines()
    simulated = [r for r in rows if "(simulator)" in r]
    assert simulated and all("transfers=3" in r for r in simulated)


def test_a_simulator_run_the_scenario_refuses_stops_the_reproduction_with_its_error(
    tmp_path, fake_emu
):
    from westwood._core import ScenarioError

    # The scenario's transfer starts at 5 s; a 3 s simulation without the wait cannot hold it.
    exp = tiny(scenario="seed000_internet", x=Axis("delay", (10,), "Delay", unit="ms"), claims=())
    with pytest.raises(ScenarioError, match="start 5s must be before the end"):
        reproduce([exp], tmp_path / "results", progress_stream=open("/dev/null", "w"))


def test_a_path_that_failed_part_way_reports_its_complete_rounds_and_why(
    tmp_path, fake_emu, monkeypatch
):
    out = tmp_path / "results"
    monkeypatch.setenv("FAKE_FAIL_AFTER", "4")  # rounds 1 and 2 whole, then a failure
    reproduce([tiny()], out, progress_stream=open("/dev/null", "w"))
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    assert entry["table"]["rows"][0][1].startswith("2.010 ± ")  # rounds 1 and 2 of TCPW
    (note,) = entry["notes"]
    assert "2 round(s)" in note and "Connection reset by peer" in note
    # The next reproduction measures the round still missing, and the note is gone.
    monkeypatch.delenv("FAKE_FAIL_AFTER")
    reproduce([tiny()], out, progress_stream=open("/dev/null", "w"))
    first, second = _calls(fake_emu)
    assert _measure_words(second)[_measure_words(second).index("--rounds") + 1] == "1"
    entry = json.loads((out / "index.json").read_text())["ms_tiny"]
    assert entry["notes"] == [] and entry["table"]["rows"][0][1].startswith("2.020 ± ")
