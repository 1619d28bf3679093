"""Seed 001 (§V): the bursty scenario runs the paper's UDP load, the preconditions catch the set-up
that did not (issue 28), the seeds give runs that differ, and fig. 1's convergence and pulse
measures and figs 7-12's comparisons read what they should. The scenarios' parse-and-run checks
are in test_papers_seed001_004.py."""

from __future__ import annotations

import dataclasses

import pytest

from westwood.api import run_raw
from westwood.claims import DEGENERATE, NOT_REPRODUCED, PARTLY, REPRODUCED, judge
from westwood.experiments import trace as traces
from westwood.experiments.preconditions import failures
from westwood.experiments.sweep import SweepResults
from westwood.papers import seed001
from westwood.stats import mean_ci

# --- the bursty scenario: the paper's 90 % UDP load ---------------------------------------------


@pytest.mark.parametrize("bw", seed001.BANDWIDTH.values)
def test_bandwidth_axis_sets_the_udp_rate_to_90_percent(bw):
    overrides = dict(seed001.FIG8.run_overrides(bw, seed001.TCPW, False))
    assert overrides["bw"] == f"{bw:g}"
    rate = float(overrides["udp_rate"].removesuffix("Mbps"))
    assert rate == pytest.approx(0.9 * bw)


@pytest.mark.parametrize("experiment", [seed001.FIG7, seed001.FIG9, seed001.FIG10, seed001.FIG12])
def test_fixed_bandwidth_experiments_set_the_udp_rate_too(experiment):
    overrides = dict(experiment.run_overrides(experiment.x.values[0], seed001.TCPW, False))
    assert overrides["bw"] == "45" and overrides["udp_rate"] == "40.5Mbps"


def test_bursty_run_delivers_the_udp_load_and_holds_its_preconditions():
    # 130 s: the first ON period (60-120 s) and time for its last packets to arrive; 10 Mb/s.
    overrides = dict(seed001.FIG8.run_overrides(10, seed001.TCPW, False))
    summary = run_raw("seed001_bursty", overrides={**overrides, "duration": "130s"}).summary
    [udp] = summary["sources"]
    assert udp["rate_bps"] == pytest.approx(9e6)
    assert 0.8 <= seed001.udp_on_share(summary) <= 0.9 + 1e-9
    assert failures(seed001.BURSTY_PRECONDITIONS, "TCPW", 10, summary) == []


def test_the_nine_source_set_up_of_issue_28_fails_the_preconditions():
    # What the old file delivered: two of nine in-step 4.5 Mb/s sources got through a one-packet
    # queue (about 20 % of 45 Mb/s), the rest overflowed at udp_access.
    sources = [
        {
            "name": f"udp{i}",
            "rate_bps": 4.5e6,
            "packet_size": 1040,
            "on": [[60.0, 120.0]],
            "packets_sent": 32452,
            "packets_received": 32450 if i <= 2 else 0,
        }
        for i in range(1, 10)
    ]
    summary = {
        "sim_seconds": 130.0,
        "sources": sources,
        "links": [
            {"name": "bottleneck", "rate_bps": 45e6, "packets_sent": 5e5, "drops_overflow": 8e3},
            {
                "name": "udp_access",
                "rate_bps": 1e9,
                "packets_sent": 64904,
                "drops_overflow": 227164,
            },
        ],
        "flows": [],
    }
    assert seed001.udp_on_share(summary) == pytest.approx(0.2, abs=0.01)
    why = failures(seed001.BURSTY_PRECONDITIONS, "TCPW", 45, summary)
    assert any("delivered 20%" in w for w in why)
    assert any("udp_access overflowed" in w for w in why)


def test_seeds_draw_different_connection_starts():
    starts = []
    for seed in (1, 2):
        summary = run_raw("seed001_bursty", seed=seed, overrides={"duration": "3s"}).summary
        starts.append([f["start_seconds"] for f in summary["flows"]])
        assert all(0 <= s <= 2 for s in starts[-1])
    assert starts[0] != starts[1]
    onoff = [
        run_raw("seed001_onoff", seed=s, overrides={"duration": "3s"}).summary["flows"][0][
            "start_seconds"
        ]
        for s in (1, 2)
    ]
    assert onoff[0] != onoff[1] and all(0 <= s <= 1 for s in onoff)


# --- fig. 1: convergence and the pulse -----------------------------------------------------------

SOURCES = [
    traces.Source("udp1", 9e6, ((50.0, 400.0), (459.0, 461.0))),
    traces.Source("udp2", 9e6, ((100.0, 150.0), (250.0, 350.0))),
]
STEPS = traces.available_steps(500.0, 45e6, SOURCES)  # wire terms: payload fraction 1


def _available(t):
    return next(s.available_payload_bps for s in STEPS if s.start <= t < s.end or t == s.end)


def synthetic_bwe(up_lag=10.0, down_lag=0.3, spike_at=None):
    """BWE samples every 100 ms: the available bandwidth, reached ``down_lag`` s after a
    downward change and ``up_lag`` s after an upward one (the old level until then)."""
    times = [i / 10 for i in range(5001)]
    bwe = []
    for t in times:
        value = _available(t)
        for prev, step in zip(STEPS, STEPS[1:]):
            lag = up_lag if step.available_payload_bps > prev.available_payload_bps else down_lag
            if step.start <= t < min(step.start + lag, step.end):
                value = prev.available_payload_bps
        if spike_at is not None and abs(t - spike_at) < 0.05:
            value *= 1.3
        bwe.append(value)
    return times, bwe


def test_transitions_measure_the_lag_of_each_change():
    times, bwe = synthetic_bwe(up_lag=10.0, down_lag=0.3)
    found = seed001.transitions(times, bwe, STEPS)
    assert [t.time for t in found] == [50, 100, 150, 250, 350, 400, 459, 461]
    assert [t.upward for t in found] == [False, False, True, False, True, True, False, True]
    for t in found:
        assert t.converged
        assert t.seconds == pytest.approx(10.0 if t.upward else 0.3, abs=0.11), t


def test_one_overestimate_spike_does_not_undo_convergence():
    times, bwe = synthetic_bwe(up_lag=0.3, down_lag=0.3, spike_at=101.0)
    [_, at100, *_] = seed001.transitions(times, bwe, STEPS)
    assert at100.seconds == pytest.approx(0.3, abs=0.11)


def test_a_change_that_never_converges_counts_the_whole_step():
    times, bwe = synthetic_bwe(up_lag=1000.0, down_lag=0.3)
    at150 = seed001.transitions(times, bwe, STEPS)[2]
    assert at150.upward and not at150.converged and at150.seconds == pytest.approx(100.0)


def test_pulse_followed_share():
    times, bwe = synthetic_bwe(up_lag=0.3, down_lag=0.3)
    [pulse] = seed001.pulses(times, bwe, STEPS)
    assert (pulse.start, pulse.end) == (459.0, 461.0)
    assert pulse.followed == pytest.approx(1.0)
    # a BWE that ignores the burst follows none of it
    flat = [b if not 459 <= t < 461 else 45e6 for t, b in zip(times, bwe)]
    assert seed001.pulses(times, flat, STEPS)[0].followed == pytest.approx(0.0)


def _trace_results(degenerate=None):
    step = traces.StepSummary(STEPS[0], mean_ci([1.0]), mean_ci([1.0]), mean_ci([1.0]))
    return traces.TraceResults(5.0, {"TCPW": [step]}, degenerate or {})


def _analyses(up_lags, down_lag=0.3):
    out = []
    for seed, lag in enumerate(up_lags, start=1):
        times, bwe = synthetic_bwe(up_lag=lag, down_lag=down_lag)
        out.append(
            seed001.RunAnalysis(
                seed,
                tuple(seed001.transitions(times, bwe, STEPS)),
                tuple(seed001.pulses(times, bwe, STEPS)),
            )
        )
    return {"TCPW": out}


def _fig1_claim(text_start):
    return next(c for c in seed001.FIG1.claims if c.text.startswith(text_start))


def test_asymmetry_claim_reads_slow_upward_changes_as_reproduced():
    claim = _fig1_claim("TCPW's BWE converges more slowly")
    bound = dataclasses.replace(claim, measure=claim.measure.bind(_analyses([5, 8, 11])))
    assert judge(bound, _trace_results()).verdict == REPRODUCED
    symmetric = claim.measure.bind(_analyses([0.3, 0.4, 0.3]))
    bound = dataclasses.replace(claim, measure=symmetric)
    assert judge(bound, _trace_results()).verdict in (NOT_REPRODUCED, PARTLY)


def test_run_measures_are_degenerate_on_a_failing_series_and_need_binding():
    claim = _fig1_claim("TCPW's BWE follows the 2 s burst")
    assert judge(claim, _trace_results()).verdict == "n/a"  # unbound: no runs to read
    bound = dataclasses.replace(claim, measure=claim.measure.bind(_analyses([1])))
    assert judge(bound, _trace_results()).verdict == REPRODUCED
    assert judge(bound, _trace_results({"TCPW": "stalled"})).verdict == DEGENERATE


# --- figs 7-12: comparisons over the x values ----------------------------------------------------


def results_of(experiment, samples, degenerate=None):
    xs = sorted({x for _, x in samples})
    cells = [
        [mean_ci(list(samples[(s.label, x)].values()), 0.95) for x in xs] for s in experiment.series
    ]
    return SweepResults(experiment, xs, cells, False, samples, degenerate or {})


def noisy(value, seeds=4, phase=0):
    return {s: value * (1 + 0.01 * (((s + phase) % 3) - 1)) for s in range(1, seeds + 1)}


def fig7_samples(tcpw_over_reno, tcpw_over_sack):
    out = {}
    for x in seed001.CONNECTIONS.values:
        out[("TCPW", x)] = noisy(10.0)
        out[("Reno", x)] = noisy(10.0 / tcpw_over_reno(x), phase=1)
        out[("SACK", x)] = noisy(10.0 / tcpw_over_sack(x), phase=2)
    return out


def _claim(experiment, text_start):
    return next(c for c in experiment.claims if c.text.startswith(text_start))


def test_outperforms_reno_fails_at_its_worst_point():
    everywhere = results_of(seed001.FIG7, fig7_samples(lambda x: 2.0, lambda x: 2.0))
    claim = _claim(seed001.FIG7, "TCPW/Reno goodput at every x")
    assert judge(claim, everywhere).verdict == REPRODUCED
    one_tie = results_of(seed001.FIG7, fig7_samples(lambda x: 1.0 if x == 5 else 2.0, lambda x: 2))
    v = judge(claim, one_tie)
    assert v.verdict == NOT_REPRODUCED and "least supported at 5" in v.measured


def test_edge_over_sack_counts_the_significant_wins():
    claim = _claim(seed001.FIG7, "Share of the points where TCPW's goodput is ahead of SACK")
    five_of_six = results_of(
        seed001.FIG7, fig7_samples(lambda x: 2.0, lambda x: 1.0 if x == 30 else 1.5)
    )
    v = judge(claim, five_of_six)
    assert v.value == pytest.approx(5 / 6) and v.verdict == REPRODUCED
    half = results_of(seed001.FIG7, fig7_samples(lambda x: 2.0, lambda x: 1.5 if x < 10 else 0.9))
    assert judge(claim, half).verdict == PARTLY


def test_a_degenerate_point_makes_the_share_degenerate():
    claim = _claim(seed001.FIG7, "Share of the points where TCPW's goodput is ahead of SACK")
    samples = fig7_samples(lambda x: 2.0, lambda x: 2.0)
    r = results_of(seed001.FIG7, samples, {("SACK", 20): "seed 1: UDP delivered 20%"})
    assert judge(claim, r).verdict == DEGENERATE


def test_leftover_share_of_one_connection():
    claim = _claim(seed001.FIG7, "One TCPW connection's goodput")
    leftover = 45 * (1 - 0.9 * 0.5) * 1000 / 1040
    samples = fig7_samples(lambda x: 2.0, lambda x: 2.0)
    samples[("TCPW", 1)] = {s: 0.8 * leftover for s in range(1, 5)}
    v = judge(claim, results_of(seed001.FIG7, samples))
    assert v.value == pytest.approx(0.8) and v.verdict == REPRODUCED


def test_fig9_sack_claims_read_their_side_of_200_ms():
    samples = {}
    for x in seed001.DELAY.values:
        samples[("TCPW", x)] = noisy(10.0)
        samples[("Reno", x)] = noisy(5.0, phase=1)
        samples[("SACK", x)] = noisy(10.0 / (0.9 if x < 200 else 1.5), phase=2)
    r = results_of(seed001.FIG9, samples)
    below = _claim(seed001.FIG9, "TCPW/SACK goodput below 200 ms")
    assert judge(below, r).value == pytest.approx(0.9, abs=0.01)
    assert judge(below, r).verdict == REPRODUCED
    above = _claim(seed001.FIG9, "TCPW/SACK goodput from 200 ms")
    assert judge(above, r).verdict == REPRODUCED
    assert (
        "least supported at" in judge(above, r).measured and "10ms" not in judge(above, r).measured
    )


def test_every_seed001_claim_has_a_why():
    for e in seed001.EXPERIMENTS:
        for claim in e.claims:
            assert claim.why and claim.paper, (e.id, claim.text)
        assert len(e.preconditions) > 2, e.id
        assert e.seeds >= 4, e.id
