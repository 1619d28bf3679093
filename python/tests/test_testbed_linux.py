"""The kernel-against-simulator experiments (papers/testbed_linux.py): shared runs, the drop
axis, the measure. The runs themselves are real-time testbed runs (docs/testbed.md)."""

from __future__ import annotations

import math

import pytest

from westwood import run as simulate
from westwood.claims import NOT_AVAILABLE, ClaimUnavailable, judge
from westwood.experiments import testbed as tbx
from westwood.experiments.sweep import SweepResults
from westwood.papers import testbed_linux as tl
from westwood.stats import mean_ci


def test_goodput_and_retransmission_views_share_one_set_of_runs():
    for a, b in (
        (tl.RANDOM, tl.RANDOM_RETRANSMITS),
        (tl.DROPS, tl.DROPS_RETRANSMITS),
        (tl.DROPS, tl.DROPS_ACKS),
        (tl.REXMIT_ACKS, tl.REXMIT_RETRANSMITS),
    ):
        for quick in (False, True):
            keys_a = [r.key for r in a.plan(quick, a.seeds, [], "bin")]
            keys_b = [r.key for r in b.plan(quick, b.seeds, [], "bin")]
            assert keys_a == keys_b and len(set(keys_a)) == len(keys_a)
    # ... and with nothing else: another experiment of the same scenario has its own runs.
    from westwood.papers.testbed import FIG9

    fig9 = {r.key for r in FIG9.plan(False, 1, [], "bin")}
    assert not fig9 & {r.key for r in tl.RANDOM.plan(False, 1, [], "bin")}
    # Ten seeds a side (the kernel does not repeat a seed), 60 s, the fig. 9 loss rates; none of
    # it in --quick.
    assert (tl.RANDOM.seeds, tl.RANDOM.seconds, tl.RANDOM.x.values) == (10, 60, (0.5, 1, 2, 3, 5))
    assert not any(e.headline for e in tl.EXPERIMENTS)


def test_the_drop_axis_drops_n_segments_of_one_window_and_nothing_else():
    for n in (1, 2, 3, 4):
        overrides = dict(tl.DROPS.run_overrides(n, tl.DROPS_SERIES[0]))
        assert overrides["drops"] == str(n)
        dropped = [int(overrides[f"d{k}"]) for k in (1, 2, 3, 4)]
        assert dropped[:n] == [2000 + 2 * k for k in range(n)]
        assert all(d >= 10**9 for d in dropped[n:]), dropped
        # The simulator drops exactly those (the path loses nothing else) and resends each once.
        summary = simulate("linux_drops", overrides={**overrides, "tcp.profile": "linux"}).summary
        links = {link["name"]: link for link in summary["links"]}
        assert links["wireless"]["drops_error"] == n
        assert sum(link["drops_overflow"] for link in summary["links"]) == 0
        assert summary["flows"][0]["retransmits"] == n
        assert summary["flows"][0]["timeouts"] == 0


def test_the_lost_retransmission_axis_also_drops_the_first_segments_retransmission():
    for n in (1, 2):
        overrides = dict(tl.REXMIT_ACKS.run_overrides(n, tl.DROPS_SERIES[0]))
        assert (overrides["d1"], overrides["r1"]) == ("2000", "2000")
        # Without SACK only a timeout repairs the lost retransmission: one, and each dropped
        # segment resent (with one drop: by fast retransmit, then 2000 after the timeout).
        summary = simulate("linux_drops", overrides={**overrides, "tcp.profile": "linux"}).summary
        links = {link["name"]: link for link in summary["links"]}
        assert links["wireless"]["drops_error"] == n + 1
        flow = summary["flows"][0]
        assert flow["timeouts"] == 1
        assert flow["retransmits"] == 2 if n == 1 else flow["retransmits"] >= n + 1, flow
    assert "retransmission too" in summary["parameters"]["lost_retransmission"]


def _paired_results(experiment, xs, testbed, simulator, quick=False):
    """SweepResults of one series, seed by seed: ``testbed[i]`` and ``simulator[i]`` map each
    seed to the metric at ``xs[i]`` (rows TCPW, then TCPW (simulator))."""
    sweep = experiment.as_sweep(quick)
    rows = [
        [mean_ci(list(per_seed.values())) for per_seed in side] for side in (testbed, simulator)
    ]
    empty = [[mean_ci([]) for _ in xs] for _ in range(len(sweep.series) - 2)]
    samples = {}
    for label, side in (("TCPW", testbed), ("TCPW" + tbx.SIMULATOR_SUFFIX, simulator)):
        for x, per_seed in zip(xs, side):
            samples[(label, x)] = dict(per_seed)
    return SweepResults(sweep, xs, rows + empty, quick=quick, samples=samples)


def _results(experiment, xs, testbed, simulator, quick=False):
    """One run a side per point, both seed 1."""
    return _paired_results(
        experiment, xs, [{1: v} for v in testbed], [{1: v} for v in simulator], quick
    )


def test_kernel_over_simulator_is_the_ratio_farthest_from_one_and_not_judged_on_quick_runs():
    xs = tl.RANDOM.x.values
    r = _results(tl.RANDOM, xs, (1.0, 0.9, 1.2, 1.0, 0.5), (1.0, 1.0, 1.0, 1.0, 0.5))
    m = tbx.kernel_over_simulator("TCPW")(r)
    assert math.isclose(m.value, 1.2) and "2%: testbed 1.2 / simulator 1 = 1.20" in m.detail
    claim = tl.RANDOM.claims[0]
    assert judge(claim, r).verdict == "partly"
    # A side that got nothing where the other got something is as far off as it gets.
    r0 = _results(tl.RANDOM, xs, (1.0, 0.0, 1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0, 1.0))
    assert tbx.kernel_over_simulator("TCPW")(r0).value == 0.0
    quick = judge(claim, _results(tl.RANDOM, xs, (1,) * 5, (1,) * 5, quick=True))
    assert quick.verdict == NOT_AVAILABLE and "without --quick" in quick.measured


def test_kernel_over_simulator_pairs_the_seeds_both_sides_ran_and_shows_the_paired_spread():
    # Five kernel runs at 3 % (seeds 1-5, the spread of the testbed's tcpw), twenty simulator
    # seeds: the seeds 1-5 hold the same early losses on both sides (the emulator draws the
    # simulator's loss streams), the simulator's other fifteen a luckier draw.
    xs = tl.RANDOM.x.values
    kernel_3 = {1: 0.12, 2: 0.45, 3: 0.40, 4: 0.51, 5: 0.40}
    simulator_3 = {1: 0.10, 2: 0.40, 3: 0.38, 4: 0.45, 5: 0.37}
    simulator_3.update({s: 0.60 for s in range(6, 21)})
    flat = {s: 0.4 for s in range(1, 6)}
    r = _paired_results(tl.RANDOM, xs, [flat] * 4 + [kernel_3], [flat] * 4 + [simulator_3])
    m = tbx.kernel_over_simulator("TCPW")(r)
    paired = sum(kernel_3.values()) / sum(simulator_3[s] for s in kernel_3)
    assert math.isclose(m.value, paired), m
    # Against the simulator's twenty seeds the kernel would look 30 % short; paired it is not.
    assert sum(kernel_3.values()) / 5 / (sum(simulator_3.values()) / 20) < 0.75
    assert 1.05 < m.value < 1.15
    differences = mean_ci([kernel_3[s] - simulator_3[s] for s in kernel_3])
    base = sum(simulator_3[s] for s in kernel_3) / 5
    low = 1 + (differences.mean - differences.half_width) / base
    high = 1 + (differences.mean + differences.half_width) / base
    assert f"seeds both ran (5; the simulator's 20: {sum(simulator_3.values()) / 20:.3g})" in (
        m.detail
    ), m.detail
    assert f"paired 95% CI {low:.2f}-{high:.2f}" in m.detail, m.detail
    assert judge(tl.RANDOM.claims[0], r).verdict == "partly"
    # Seeds only one side ran are left out of the quotient; none in common: n/a.
    lone = _paired_results(tl.RANDOM, xs, [{1: 1.0}] * 5, [{2: 1.0}] * 5)
    with pytest.raises(ClaimUnavailable):
        tbx.kernel_over_simulator("TCPW")(lone)
    # One run per point has no interval: nothing added.
    single = _results(tl.RANDOM, xs, (1.0,) * 5, (1.0,) * 5)
    assert "CI" not in tbx.kernel_over_simulator("TCPW")(single).detail
