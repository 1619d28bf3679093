"""`westwood.run`: DataFrames with the documented columns, overrides, scenario lookup."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

import westwood
from conftest import GOOD_SCENARIO, SHORT, write_scenario
from westwood.overrides import OverrideError
from westwood.report import tables

SHORT_OVERRIDES = dict([SHORT.split("=", 1)])


def test_run_returns_documented_frames():
    result = westwood.run("wireless", overrides={**SHORT_OVERRIDES, "loss": "1%"}, seed=3)
    assert isinstance(result, westwood.RunResult)
    assert result.summary["seed"] == 3
    assert result.summary["parameters"]["loss"] == "1%"
    for frame, columns in (
        (result.flows, tables.FLOW_COLUMNS),
        (result.links, tables.LINK_COLUMNS),
        (result.flow_series, tables.FLOW_SERIES_COLUMNS),
        (result.link_series, tables.LINK_SERIES_COLUMNS),
    ):
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns[: len(columns)]) == list(columns)
        assert len(frame) > 0
    assert list(result.flows["name"]) == [f["name"] for f in result.summary["flows"]]
    assert result.flows["goodput_bps"].dtype.kind == "f"
    assert result.flows["bytes_delivered"].dtype.kind in "iu"
    assert result.flow_series["time_seconds"].is_monotonic_increasing
    assert result.flow_series["time_seconds"].max() <= 5.0 + 1e-9
    assert set(result.flow_series["flow"]) == set(result.flows["name"])
    assert set(result.link_series["link"]) <= set(result.links["name"])


def test_record_false_has_no_series():
    result = westwood.run("wireless", overrides=SHORT_OVERRIDES, record=False)
    assert result.flow_series is None and result.link_series is None
    assert len(result.flows) > 0


def test_overrides_as_pairs_and_non_string_values(good_scenario: Path):
    as_dict = westwood.run(good_scenario, overrides={"loss": 0.02}, record=False)
    as_pairs = westwood.run(str(good_scenario), overrides=[("loss", "0.02")], record=False)
    assert as_dict.summary["parameters"]["loss"] == as_pairs.summary["parameters"]["loss"]
    assert as_dict.flows.equals(as_pairs.flows)
    clean = westwood.run(good_scenario, record=False)
    assert not clean.flows.equals(as_dict.flows)


def test_check_invariants_runs(good_scenario: Path):
    result = westwood.run(good_scenario, overrides={"loss": "3%"}, check_invariants=True)
    assert result.summary["flows"][0]["bytes_delivered"] > 0


def test_scenario_error_is_value_error(tmp_path: Path):
    path = write_scenario(tmp_path, "broken", GOOD_SCENARIO.replace('"10Mbps"', '"fast"'))
    with pytest.raises(westwood.ScenarioError) as info:
        westwood.run(path)
    assert isinstance(info.value, ValueError)
    assert "broken.toml" in str(info.value) and "links.wired.rate" in str(info.value)


def test_missing_scenario_raises_file_not_found(tmp_path: Path):
    with pytest.raises(FileNotFoundError):
        westwood.run(tmp_path / "absent.toml")
    with pytest.raises(FileNotFoundError):
        westwood.run("absent_scenario_name")


def test_bare_name_uses_westwood_scenarios(tmp_path: Path, monkeypatch):
    write_scenario(tmp_path, "mine", GOOD_SCENARIO)
    monkeypatch.setenv("WESTWOOD_SCENARIOS", str(tmp_path))
    result = westwood.run("mine", record=False)
    assert result.summary["scenario"] == "mine"


def test_nan_free_summary():
    result = westwood.run("wireless", overrides=SHORT_OVERRIDES, record=False)
    for flow in result.summary["flows"]:
        assert all(not (isinstance(v, float) and math.isnan(v)) for v in flow.values())


def test_seed_validation(good_scenario: Path):
    import numpy as np

    assert westwood.run(good_scenario, seed=np.int64(5), record=False).summary["seed"] == 5
    with pytest.raises(ValueError):
        westwood.run(good_scenario, seed=-1)
    with pytest.raises(TypeError):
        westwood.run(good_scenario, seed=1.5)


@pytest.mark.parametrize("seed", [True, False, "2", 1.0])
def test_seed_must_be_an_integer_not_a_bool_or_string(good_scenario: Path, seed):
    """``True`` is an int to Python; as a seed it would silently run seed 1."""
    with pytest.raises(TypeError, match=r"seed must be an integer, not (bool|str|float)"):
        westwood.run(good_scenario, seed=seed, record=False)


def test_overrides_as_one_key_value_string(good_scenario: Path):
    """A string is one ``--set``-style assignment, not a sequence of one-letter overrides."""
    as_text = westwood.run(good_scenario, overrides="loss=2%", record=False)
    as_dict = westwood.run(good_scenario, overrides={"loss": "2%"}, record=False)
    as_list = westwood.run(good_scenario, overrides=["loss=2%"], record=False)
    assert as_text.summary["parameters"]["loss"] == "2%"
    assert as_text.flows.equals(as_dict.flows) and as_text.flows.equals(as_list.flows)


def test_malformed_overrides_are_named_whole(good_scenario: Path):
    with pytest.raises(OverrideError, match=r"override 'loss': expected KEY=VALUE"):
        westwood.run(good_scenario, overrides="loss", record=False)
    with pytest.raises(TypeError, match="overrides must be a mapping"):
        westwood.run(good_scenario, overrides=5, record=False)


def test_a_runs_seed_draws_its_sources_exponential_on_off_periods(tmp_path):
    """`seed=` changes every random draw of the run, the ON/OFF schedule drawn when the file
    is loaded included (it used to keep the file's seed)."""
    scenario = tmp_path / "onoff.toml"
    scenario.write_text(
        """[scenario]
duration = "20s"
seed = 1
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "10Mbps"
delay = "5ms"
queue = 50
[sources.u]
kind = "cbr"
from = "a"
to = "b"
rate = "1Mbps"
on = { mean_on = "1s", mean_off = "1s" }
"""
    )
    on = [westwood.run(str(scenario), seed=s).summary["sources"][0]["on"] for s in (1, 2, 2)]
    assert on[0] != on[1] and on[1] == on[2]
    by_file = westwood.run(str(scenario), overrides={"scenario.seed": "2"})
    assert by_file.summary["sources"][0]["on"] == on[1]
