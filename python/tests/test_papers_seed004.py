"""Seed 004 (LAN, §3): how its claims are judged, what its runs rest on, and that its seeds give
runs that differ (staggered starts). The scenarios' parse-and-run checks and the two mixes'
flow counts are in test_papers_seed001_004.py."""

from __future__ import annotations

import pytest

from westwood.api import run_raw
from westwood.claims import DEGENERATE, NOT_REPRODUCED, PARTLY, REPRODUCED, judge
from westwood.experiments.preconditions import failures
from westwood.experiments.sweep import SweepResults
from westwood.papers import seed004
from westwood.stats import mean_ci


def results_of(experiment, samples, degenerate=None):
    """SweepResults of ``experiment`` from ``{(series, x): {seed: value}}``."""
    xs = sorted({x for _, x in samples})
    cells = [
        [mean_ci(list(samples[(s.label, x)].values()), 0.95) for x in xs] for s in experiment.series
    ]
    return SweepResults(experiment, xs, cells, False, samples, degenerate or {})


def noisy(value, spread=0.01, seeds=10, phase=0):
    """``seeds`` values around ``value``, within ±``spread`` of it; another ``phase`` gives
    another pattern, so two series' per-seed ratios vary."""
    return {s: value * (1 + spread * (((s + phase) % 5) - 2) / 2) for s in range(1, seeds + 1)}


def series_noise(label):
    return {"phase": 2} if label == "NewReno" else {}


def alike_everywhere(experiment, value=10.0):
    return {
        (s.label, x): noisy(value, **series_noise(s.label))
        for x in experiment.x.values
        for s in experiment.series
    }


def test_fig2_alike_at_every_n_fails_at_its_worst_n():
    claim = seed004.FIG2.claims[0]
    samples = alike_everywhere(seed004.FIG2)
    assert judge(claim, results_of(seed004.FIG2, samples)).verdict == REPRODUCED
    # NewReno 10 % ahead at one n only: the claim is about every n, so it is not reproduced there
    samples[("NewReno", 10)] = noisy(11.0)
    v = judge(claim, results_of(seed004.FIG2, samples))
    assert v.verdict == NOT_REPRODUCED
    assert "least supported at 10" in v.measured


def test_fig2_a_tie_with_one_connection_is_not_newreno_better():
    # The audit's case: TCPW ABSE / NewReno 0.998 is a tie, not "New Reno gives a best rate".
    claim = seed004.FIG2.claims[1]
    samples = alike_everywhere(seed004.FIG2)
    samples[("TCPW ABSE", 1)] = noisy(9.98)
    assert judge(claim, results_of(seed004.FIG2, samples)).verdict == NOT_REPRODUCED
    samples[("TCPW ABSE", 1)] = noisy(9.0)
    assert judge(claim, results_of(seed004.FIG2, samples)).verdict == REPRODUCED


def test_fig3_a_degenerate_point_leaves_the_every_n_claim_unjudged():
    claim = seed004.FIG3.claims[0]
    samples = {
        (s.label, x): noisy(0.98, seeds=21, **series_noise(s.label))
        for x in seed004.FIG3.x.values
        for s in seed004.FIG3.series
    }
    r = results_of(seed004.FIG3, samples, {("NewReno", 2): "seed 3: flow ftp.1 stalled"})
    assert judge(claim, r).verdict == DEGENERATE
    assert judge(claim, results_of(seed004.FIG3, samples)).verdict == REPRODUCED


def mix_samples(experiment, newreno_at_1, abse_at_9):
    samples = {
        (s.label, x): noisy(10.0, **series_noise(s.label))
        for x in experiment.x.values
        for s in experiment.series
    }
    samples[("NewReno", 1)] = noisy(newreno_at_1)
    samples[("TCPW ABSE", 9)] = noisy(abse_at_9)
    return samples


@pytest.mark.parametrize(
    "experiment", [seed004.FIG5_NEWRENO, seed004.FIG5_ABSE], ids=lambda e: e.id
)
def test_fig5_judges_the_papers_two_numbers_against_each_other(experiment):
    claim = experiment.claims[0]
    # The paper's own numbers (KB/s) are reproduced, whatever the unit.
    r = results_of(experiment, mix_samples(experiment, 225.53, 179.15))
    assert judge(claim, r).verdict == REPRODUCED
    # The simulation before this change: NewReno 14.93 Mb/s among 9 TCPW ABSE, TCPW ABSE 4.13
    # among 9 NewReno, a ratio of 3.6 (0.28): far from the paper's 1.26 (0.79), both ways.
    r = results_of(experiment, mix_samples(experiment, 14.93, 4.13))
    v = judge(claim, r)
    assert v.verdict == NOT_REPRODUCED
    # A TCPW ABSE session well above the NewReno one is not the paper's result either
    r = results_of(experiment, mix_samples(experiment, 5.0, 10.0))
    assert judge(claim, r).verdict == NOT_REPRODUCED


def test_fig5_abse_divides_tcpw_abse_by_newreno():
    (claim,) = seed004.FIG5_ABSE.claims
    v = judge(claim, results_of(seed004.FIG5_ABSE, mix_samples(seed004.FIG5_ABSE, 14.93, 4.13)))
    assert v.value == pytest.approx(4.13 / 14.93, rel=0.01)  # 0.28, the audit's faithful value


def test_fig5_friendliness_against_tcpw_2002_over_the_nine_mixes():
    claim = seed004.FIG5_NEWRENO.claims[1]
    e = seed004.FIG5_NEWRENO
    samples = mix_samples(e, 10.0, 10.0)
    assert judge(claim, results_of(e, samples)).verdict == NOT_REPRODUCED  # a tie
    for x in e.x.values:  # NewReno gets 20 % more among TCPW ABSE than among TCPW 2002
        samples[("NewReno", x)] = noisy(12.0, phase=2)
    v = judge(claim, results_of(e, samples))
    assert v.verdict == REPRODUCED and v.value == pytest.approx(1.2, rel=0.01)
    samples[("NewReno", 9)] = noisy(10.0, phase=2)  # one mix alike: still better on average
    assert judge(claim, results_of(e, samples)).value == pytest.approx(1.178, rel=0.01)


def test_fig4_judges_the_papers_case_on_per_seed_ratios():
    (claim,) = seed004.FIG4.claims
    samples = {
        (s.label, x): noisy(10.0, **series_noise(s.label))
        for x in seed004.FIG4.x.values
        for s in seed004.FIG4.series
    }
    assert judge(claim, results_of(seed004.FIG4, samples)).verdict == REPRODUCED
    samples[("TCPW ABSE", 5)] = noisy(5.6)
    assert judge(claim, results_of(seed004.FIG4, samples)).verdict == NOT_REPRODUCED
    samples[("TCPW ABSE", 5)] = {s: 10.0 * (1.04 if s % 2 else 0.92) for s in range(1, 11)}
    assert judge(claim, results_of(seed004.FIG4, samples)).verdict == PARTLY


def link(name, utilization=0.99, sent=1000, overflow=0):
    return {
        "name": name,
        "utilization": utilization,
        "packets_sent": sent,
        "drops_overflow": overflow,
    }


def lan_summary(**changes):
    links = {
        "access1": link("access1", 0.1),
        "bottleneck": link("bottleneck", overflow=30),
        "bottleneck.reverse": link("bottleneck.reverse", 0.02),
    }
    links.update(changes)
    return {"flows": [], "warnings": [], "links": list(links.values())}


def test_lan_preconditions_hold_on_a_busy_bottleneck_and_catch_the_others():
    pre = seed004.lan_preconditions(lambda n: n)
    assert failures(pre, "NewReno", 2, lan_summary()) == []
    idle = failures(pre, "NewReno", 2, lan_summary(bottleneck=link("bottleneck", 0.5)))
    assert idle and "bottleneck busy 50%" in idle[0]
    spilled = failures(pre, "NewReno", 2, lan_summary(access1=link("access1", 0.1, 1000, 50)))
    assert spilled and "access1 overflowed" in spilled[0]


def test_a_lockout_is_degenerate_where_each_session_has_room_for_a_fast_retransmit():
    pre = seed004.lan_preconditions(lambda n: n)
    locked = lan_summary()
    locked["flows"] = [
        {"name": "ftp.6", "active_seconds": 60, "final_stall_seconds": 28.7},
        {"name": "ftp.1", "active_seconds": 60, "final_stall_seconds": 0.1},
    ]
    why = "flow ftp.6 made no progress for the last 28.7 s of its 60 s"
    assert failures(pre, "NewReno", 10, locked) == [why]  # 5.4 segments per session
    # 19 sessions in 54 segments: every one recovers by timeout; one still backing off at the
    # end is the unfairness fig. 3 measures.
    assert failures(pre, "NewReno", 19, locked) == []


def test_every_experiment_rests_on_the_lan_preconditions():
    for e in seed004.EXPERIMENTS:
        texts = [p.text for p in e.preconditions]
        assert texts == [p.text for p in seed004.lan_preconditions(lambda n: n)], e.id
        assert e.seeds >= 5, e.id
        for claim in e.claims:
            assert claim.why, (e.id, claim.text)
    assert seed004.FIG3.seeds == 21  # "Each measurement is performed twenty once"


@pytest.mark.parametrize(
    "scenario, overrides",
    [
        ("seed004_lan_single", {"n": "4"}),
        ("seed004_lan", {"n_a": "2", "n_b": "2"}),
    ],
)
def test_seeds_stagger_the_session_starts_within_100_ms(scenario, overrides):
    starts = []
    for seed in (1, 2):
        summary = run_raw(scenario, seed=seed, overrides={**overrides, "duration": "1s"}).summary
        flows = summary["flows"]
        if "start_seconds" not in flows[0]:
            pytest.skip("this build's flow summary has no start_seconds")
        starts.append([f["start_seconds"] for f in flows])
    for run in starts:
        assert all(0 <= s <= 0.1 for s in run)
        assert len(set(run)) == len(run)  # each session its own draw
    assert starts[0] != starts[1]
