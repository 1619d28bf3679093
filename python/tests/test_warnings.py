"""Scenarios that defeat themselves: the summary's ``warnings``, ``westwood run`` saying them on
stderr, ``--strict`` / ``strict=True`` refusing them; and the measurements beside them (the
per-flow stall, random flow starts, random outage phases) as the CLI and the API show them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import westwood
from conftest import SHORT, cli, cli_json, write_scenario

# A 20 Mbps CBR source behind a 1 Mbps access link with a one-packet queue (its first hop), and
# one FTP flow over two links of 0.01 ms: their "bdp" queues come out at one packet.
SELF_DEFEATING = """\
[scenario]
duration = "4s"

[topology]
nodes = ["src", "base", "mobile", "udp_src"]

[links.wired]
from = "src"
to = "base"
rate = "10Mbps"
delay = "0.01ms"

[links.wireless]
from = "base"
to = "mobile"
rate = "2Mbps"
delay = "0.01ms"

[links.udp_access]
from = "udp_src"
to = "base"
rate = "1Mbps"
delay = "1ms"
queue = 1

[flows.ftp]
from = "src"
to = "mobile"

[sources.udp3]
kind = "cbr"
from = "udp_src"
to = "mobile"
rate = "20Mbps"
"""

# The same with sized queues on the FTP path: only the source's first-hop loss is left, which
# only the run finds.
SIZED = ["--set", "links.wired.queue=20", "--set", "links.wireless.queue=20"]

BDP_MESSAGE = (
    "link 'wireless': queue \"bdp\" came out at 1 packet (2 Mbps x 0.04 ms round trip): it cannot "
    'absorb a burst; give the link a queue size (queue = 20) or queue = { limit = "bdp", rtt = '
    '"100ms" }'
)
LOSS_MESSAGE = (
    "source 'udp3' lost 95% of its 10000 packets to overflow at link 'udp_access', the first hop "
    "from its node 'udp_src' (queue 1 packet): the scenario defeats itself; give that link a "
    "larger queue"
)


@pytest.fixture
def self_defeating(tmp_path: Path) -> Path:
    return write_scenario(tmp_path, "selfdefeat", SELF_DEFEATING)


def test_a_healthy_run_has_an_empty_warnings_list_and_says_nothing():
    proc = cli("run", "wireless", "--set", SHORT, "--json")
    assert proc.returncode == 0, proc.stderr
    assert "warning" not in proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["warnings"] == []
    (flow,) = summary["flows"]
    assert flow["start_seconds"] == 0.0
    assert 0 < flow["longest_stall_seconds"] < 2.0


def test_run_says_each_warning_on_stderr_and_keeps_it_in_the_summary(self_defeating: Path):
    proc = cli("run", str(self_defeating), "--json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines() == [
        f"warning: {BDP_MESSAGE.replace('wireless', 'wired').replace('2 Mbps', '10 Mbps')}",
        f"warning: {BDP_MESSAGE}",
        f"warning: {LOSS_MESSAGE}",
    ]
    warnings = json.loads(proc.stdout)["warnings"]
    assert [(w["kind"], w["link"], w["origin"]) for w in warnings] == [
        ("small_bdp_queue", "wired", None),
        ("small_bdp_queue", "wireless", None),
        ("first_hop_loss", "udp_access", "udp3"),
    ]
    assert warnings[2]["message"] == LOSS_MESSAGE


def test_strict_refuses_a_build_time_warning_before_the_run(self_defeating: Path, tmp_path: Path):
    out = tmp_path / "run"
    proc = cli("run", str(self_defeating), "--strict", "--out", str(out), "--ack-trace")
    assert proc.returncode == 2
    assert proc.stdout == ""
    refused = f"westwood: error: {self_defeating}: refused (strict), 2 warnings:"
    assert proc.stderr.startswith(refused)
    assert BDP_MESSAGE in proc.stderr
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["selfdefeat.toml"], "no staging left"


def test_strict_refuses_a_loss_warning_after_the_run_and_writes_nothing(
    self_defeating: Path, tmp_path: Path
):
    out = tmp_path / "run"
    proc = cli("run", str(self_defeating), *SIZED, "--strict", "--out", str(out), "--ack-trace")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"westwood: error: {self_defeating}: refused (strict): {LOSS_MESSAGE}"
    )
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["selfdefeat.toml"], "no staging left"
    # Without --strict the same run writes its files, the warning in summary.json.
    proc = cli("run", str(self_defeating), *SIZED, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == f"warning: {LOSS_MESSAGE}\n"
    summary = json.loads((out / "summary.json").read_text())
    assert [w["kind"] for w in summary["warnings"]] == ["first_hop_loss"]


def test_strict_passes_a_healthy_run():
    assert cli_json("run", "wireless", "--set", SHORT, "--strict")["warnings"] == []


def test_the_api_reports_warnings_and_strict_raises_with_the_records(self_defeating: Path):
    overrides = {"links.wired.queue": 20, "links.wireless.queue": 20}
    result = westwood.run(self_defeating, overrides=overrides, record=False)
    assert result.warnings == result.summary["warnings"]
    assert [w["message"] for w in result.warnings] == [LOSS_MESSAGE]
    assert {"longest_stall_seconds", "start_seconds"} <= set(result.flows.columns)

    with pytest.raises(westwood.StrictError) as refused:
        westwood.run(self_defeating, overrides=overrides, record=False, strict=True)
    assert isinstance(refused.value, westwood.ScenarioError)
    assert refused.value.warnings == result.warnings
    assert LOSS_MESSAGE in str(refused.value)

    with pytest.raises(westwood.StrictError) as refused:
        westwood.run(self_defeating, record=False, strict=True)
    assert [w["kind"] for w in refused.value.warnings] == ["small_bdp_queue"] * 2

    with pytest.raises(TypeError):
        westwood.run("wireless", overrides=SHORT, record=False, strict="yes")


def test_random_flow_starts_and_outage_phases_from_the_command_line():
    start = 'flows.ftp.start={ min = "1s", max = "3s" }'
    first = cli_json("run", "wireless", "--set", SHORT, "--set", start)
    again = cli_json("run", "wireless", "--set", SHORT, "--set", start)
    other = cli_json("run", "wireless", "--set", SHORT, "--set", start, "--seed", "2")
    (flow,) = first["flows"]
    assert 1.0 <= flow["start_seconds"] <= 3.0
    assert flow["active_seconds"] == pytest.approx(5.0 - flow["start_seconds"])
    assert again["flows"][0]["start_seconds"] == flow["start_seconds"]
    assert other["flows"][0]["start_seconds"] != flow["start_seconds"]

    outage = (
        'links.wireless.errors={ model = "outage", period = "2s", duration = "200ms", '
        'offset = "random" }'
    )
    runs = [
        cli_json("run", "wireless", "--set", SHORT, "--set", outage, "--seed", str(seed))
        for seed in (1, 1, 2)
    ]
    drops = [[link["drops_outage"] for link in r["links"]] for r in runs]
    assert drops[0] == drops[1] and sum(drops[0]) > 0

    backwards = 'flows.ftp.start={ min = "3s", max = "1s" }'
    bad = cli("run", "wireless", "--set", SHORT, "--set", backwards)
    assert bad.returncode == 2
    assert "flows.ftp.start.max: max 1s is before min 3s" in bad.stderr
