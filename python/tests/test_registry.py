"""The registry of congestion controls as Python sees it (``westwood._core``): one list of names
for the simulator, the testbed's kernel names and the front end."""

from __future__ import annotations

import westwood
from westwood import _core
from westwood.kernel_names import ebpf_kernel_names, kernel_to_scenario, scenario_to_kernel


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
    names = kernel_to_scenario()
    assert names["tcpw"] == "westwood"
    assert names["tcpw_plus"] == "westwood-plus"
    # Linux reno stands for reno, newreno and sack: as a name it is plain reno.
    assert names["reno"] == "reno"
    assert scenario_to_kernel()["newreno"] == "reno"
    # This project's eBPF programs; Linux's own controls are not among them.
    assert ebpf_kernel_names() == ("tcpw", "tcpw_tr", "tcpw_abse", "tcpw_plus")
    assert "cubic" not in ebpf_kernel_names()


def test_a_scenario_may_name_a_control_by_its_kernel_name():
    result = westwood.run("wireless", overrides={"cc": "TCPW_TR", "duration": "2s"})
    assert [f["cc"] for f in result.summary["flows"]] == ["westwood-tr"]
    assert result.summary["flows"][0]["recovery"] == "reno"


def test_kernel_names_are_spelled_only_in_the_registry():
    # The registry (crates/algorithms/src/registry.rs) is the one table of the kernel twins:
    # their names, record ids and parameters. Everything else, the loader included, asks it
    # (crates/linux/src/pins.rs checks it against kernel/tcpw.bpf.c). Tests, comments and the
    # kernel's C (kernel/) may spell the names.
    import re
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    names = "|".join(re.escape(n) for n in ebpf_kernel_names())
    quoted = re.compile(rf"""["']({names})["']""")
    allowed = {"crates/algorithms/src/registry.rs"}
    found = []
    sources = [*(repo / "crates").rglob("*.rs"), *(repo / "python" / "westwood").rglob("*.py")]
    for path in sources:
        relative = path.relative_to(repo).as_posix()
        if relative in allowed or "/tests/" in relative or "/target/" in relative:
            continue
        text = path.read_text()
        if path.suffix == ".rs" and "#[cfg(test)]" in text:
            text = text[: text.index("#[cfg(test)]")]
        for number, line in enumerate(text.splitlines(), 1):
            code = line.strip()
            if code.startswith(("//", "#")):
                continue
            if quoted.search(line):
                found.append(f"{relative}:{number}: {code}")
    assert not found, "kernel names outside the registry:\n" + "\n".join(found)
