"""Seed 000 reproductions: the scenario files parse and run, the experiment kinds the paper needs
(window traces, tables, mixes with per-series metrics) compute what their claims read."""

from __future__ import annotations

from pathlib import Path

import pytest

import westwood
from conftest import REPO
from westwood.experiments import registry
from westwood.papers import seed000, seed000_wireless
from westwood.reproduce import reproduce

SCENARIOS = sorted((REPO / "scenarios").glob("seed000_*.toml"))


def test_there_are_seed000_scenarios():
    names = {p.stem for p in SCENARIOS}
    assert {
        "seed000_rtt_fairness",
        "seed000_friendliness",
        "seed000_gilbert",
        "seed000_leo",
    } <= names


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_scenario_parses_and_runs(path: Path):
    text = path.read_text()
    assert "seed 000" in text.lower() and "leaves open" in text  # paper, figure, open choices
    # 10 s: the Internet path's measured transfer starts at 5 s, after its cross traffic.
    r = westwood.run(str(path), seed=1, overrides={"duration": "10s"})
    assert len(r.flows) > 0, "every seed 000 scenario has TCP flows"
    assert (r.flows["goodput_bps"] >= 0).all()
    assert r.summary["sim_seconds"] == 10.0


def test_every_seed000_experiment_is_registered_with_claims():
    for e in seed000.EXPERIMENTS + seed000_wireless.EXPERIMENTS:
        assert registry.EXPERIMENTS[e.id] is e
        assert e.claims and e.paper.startswith("seed 000")


def test_fig7_mix_expands_to_two_groups():
    axis = seed000.FIG7.x
    for n in range(6):
        o = dict(axis.overrides(n))
        assert o["reno_flows"] == str(n)
        ccs = [o["cc_a"]] * int(o["count_a"]) + [o["cc_b"]] * int(o["count_b"])
        assert len(ccs) == 5 and ccs.count("reno") == n


def test_blackout_zero_is_the_channel_without_blackouts():
    fig17 = seed000_wireless.FIG17
    series = fig17.series[0]
    o = dict(fig17.run_overrides(0, series, quick=False))
    assert o["loss_bad"] == o["loss_good"] and o["mean_bad"] != "0s"
    o = dict(fig17.run_overrides(0.1, series, quick=False))
    assert o["loss_bad"] == "100%" and o["mean_bad"] == "0.1s"


def test_section5_claims_quote_the_paper_and_say_why():
    """Every §5 claim quotes the paper (test_claim_quotes.py checks the words) and says why it
    is judged as it is."""
    for e in seed000_wireless.EXPERIMENTS:
        for c in e.claims:
            assert c.paper.count('"') >= 2, (e.id, c.text)
            assert len(c.why) > 40, (e.id, c.text)


def _warnings(summary):
    return [w["kind"] for w in summary.get("warnings") or []]


def test_fig10_buffers_are_a_bdp_with_a_floor():
    """At 0 ms the BDP of both links is one packet: the scenario's floor of 4 packets applies
    there, and every delay of the sweep runs without a small-queue warning."""
    fig10 = seed000_wireless.FIG10
    tcpw = next(s for s in fig10.series if s.label == "TCPW")
    for x in fig10.x.values:
        overrides = dict(fig10.run_overrides(x, tcpw, quick=True, extra=[("duration", "1s")]))
        r = westwood.run("wireless", seed=1, overrides=overrides, record=False)
        assert not _warnings(r.summary), (x, r.summary["warnings"])
        limits = {link["name"]: link["queue_limit"] for link in r.summary["links"]}
        assert int(limits["wireless"].split()[0]) >= seed000_wireless.BDP_FLOOR_PACKETS, x
        if x == 0:
            assert limits["wired"] == "4 packets"
    # The literal BDP at 0 ms: the simulator says the scenario defeats itself.
    literal = {
        "wired_delay": "0ms",
        "duration": "1s",
        "links.wired.queue": "bdp",
        "links.wireless.queue": "bdp",
    }
    r = westwood.run("wireless", seed=1, overrides=literal, record=False)
    assert "small_bdp_queue" in _warnings(r.summary)


def test_leo_handoffs_no_longer_lock_a_flow_out():
    """Fig. 18's lock-in (issue 28): with RFC 6298's 1 s floor and handoffs at a fixed phase,
    TCPW at 1 Mbps stops for good after a few backoffs (seed 1: from 11.8 s on); with ns-2's
    200 ms floor and the handoff phase drawn from the seed, no flow stalls for long."""
    base = {"cc": "westwood", "rate": "1Mbps"}
    old = {
        "tcp.rto_min": "1s",
        "links.satellite.errors": '[{ model = "bernoulli", rate = "0.1%" }, '
        '{ model = "outage", period = "4s", duration = "100ms" }]',
    }
    locked = westwood.run("seed000_leo", seed=1, overrides={**base, **old}, record=False)
    stall = locked.summary["flows"][0]["longest_stall_seconds"]
    assert stall > 150, "the old set-up locks seed 1 out: the check below can fail"
    for seed in (1, 2, 3):
        r = westwood.run("seed000_leo", seed=seed, overrides=base, record=False)
        flow = r.summary["flows"][0]
        assert flow["longest_stall_seconds"] < 0.25 * flow["active_seconds"], seed
        assert flow["goodput_bps"] > 0.2e6, seed  # TCPW uses a fifth of the link or more


def test_fig16_checks_the_wired_link_only_where_it_is_the_faster():
    """At 10 Mbps the wireless hop is as fast as the wired link: the pair is one bottleneck
    whose queue builds at the wired link, and its overflow there is no second bottleneck."""
    p = seed000_wireless.FIG16.preconditions[-1]
    overflow = {"links": [{"name": "wired", "drops_overflow": 257, "packets_sent": 1e5}]}
    assert p.failure("TCPW", 8, overflow) and not p.failure("TCPW", 10, overflow)
    assert seed000_wireless.FIG11.x.values[-1] < seed000_wireless.WIRED_MBPS


def test_window_table_and_mix_reports(tmp_path: Path):
    """fig12_13 (window), sec4_3 (table), fig7 (mix, per-series metrics) on 5 s runs."""
    import dataclasses

    exps = [
        dataclasses.replace(seed000_wireless.FIG12_13, quick_duration="5s"),
        dataclasses.replace(seed000.SEC4_3, quick_duration="5s"),
        dataclasses.replace(
            seed000.FIG7,
            quick_duration="5s",
            x=dataclasses.replace(seed000.FIG7.x, quick_values=(0, 2, 5)),
        ),
    ]
    out = tmp_path / "r"
    reproduce(exps, out, quick=True, seeds=1, jobs=2)
    for e in exps:
        assert (out / f"{e.id}.md").is_file() and (out / f"{e.id}.csv").is_file()
    assert (out / "fig12_13.png").is_file() and (out / "fig12_13_trace.csv").is_file()
    trace = (out / "fig12_13_trace.csv").read_text().splitlines()
    assert trace[0].startswith("series,seed,flow,time_seconds,cwnd (segments)")
    md = (out / "sec4_3.md").read_text()
    # (5 s runs may be marked degenerate: a start-up timeout is a long stall of a short run)
    assert "| 10 TCPW + 10 Reno" in md and "Mean per Reno flow" in md
    fig7 = (out / "fig7.md").read_text()
    # no Reno flow in the 0-Reno mix: the Reno cell is empty, the TCPW one is not
    row0 = next(line for line in fig7.splitlines() if line.startswith("| 0 |"))
    cells = [c.strip() for c in row0.strip("|").split("|")]
    assert cells[1] != "–" and cells[2] == "–"
    assert "| 5 |" in fig7


def test_the_lossy_sweeps_check_for_lockouts_only_where_chance_cannot_explain_them():
    """Figs. 9, 15 and 17 sweep the channel's loss: a flow still backing off when its run ends
    is degenerate at a mean loss of 2 % or less, and the channel's doing above it."""
    locked = {
        "flows": [{"name": "ftp", "active_seconds": 100, "final_stall_seconds": 40}],
        "links": [],
    }
    expected = {
        "fig9": {1: True, 2: True, 5: False},  # Bernoulli loss in %
        "fig15": {5: True, 10: False},  # Bad 4 s of 12 at x %: 1.7 %, 3.3 % on average
        "fig17": {0.05: True, 0.3: False},  # blackouts of 0.05 s, 0.3 s every 4 s
    }
    for exp_id, points in expected.items():
        e = registry.EXPERIMENTS[exp_id]
        for x, degenerate in points.items():
            why = [p.failure("TCPW", x, locked) for p in e.preconditions]
            assert any(why) is degenerate, (exp_id, x, why)
    # Fig. 18 keeps the check everywhere: its handoffs are no random loss (the lock-in it caught).
    fig18 = registry.EXPERIMENTS["fig18"]
    assert any(p.failure("TCPW", 10, locked) for p in fig18.preconditions)
