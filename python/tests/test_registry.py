"""The registry of congestion controls as Python sees it (``westwood._core``): one list of names
for the simulator, the testbed's kernel names and the front end."""

from __future__ import annotations

import westwood
from westwood import _core
from westwood.experiments.testbed import kernel_to_scenario_cc


def test_every_control_with_its_kernel_name_and_defaults():
    ccs = {cc["name"]: cc for cc in _core.congestion_controls()}
    assert list(ccs)[:5] == ["reno", "newreno", "tahoe", "sack", "cubic"]
    assert ccs["westwood"]["kernel"] == "tcpw"
    assert ccs["westwood-abse"]["default_recovery"] == "newreno"
    assert ccs["westwood-ucla"]["reference_tcp"]["fast_recovery_inflation"] == "false"
    assert ccs["westwood-ucla-nr"]["reference_tcp"]["partial_ack_timer"] == "every"
    assert ccs["westwood"]["reference_tcp"] == {}
    assert ccs["westwood-ucla-nr"]["parameter_table"] == "westwood_ucla"
    assert "tau" in ccs["westwood"]["parameters"]
    assert ccs["reno"]["parameter_table"] is None and ccs["reno"]["parameters"] == []


def test_kernel_names_map_to_the_scenario_names():
    names = kernel_to_scenario_cc()
    assert names["tcpw"] == "westwood"
    assert names["tcpw_plus"] == "westwood-plus"
    # Linux reno stands for reno, newreno and sack: as a name it is plain reno.
    assert names["reno"] == "reno"


def test_a_scenario_may_name_a_control_by_its_kernel_name():
    result = westwood.run("wireless", overrides={"cc": "TCPW_TR", "duration": "2s"})
    assert [f["cc"] for f in result.summary["flows"]] == ["westwood-tr"]
    assert result.summary["flows"][0]["recovery"] == "reno"
