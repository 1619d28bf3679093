"""The rules verdicts follow (claims.py) and what they rest on (experiments/preconditions.py):
bands around the paper's number, comparisons on confidence intervals, and no verdict on a point
whose runs fail the experiment's preconditions."""

from __future__ import annotations

import math

import pytest

from westwood.claims import (
    DEGENERATE,
    EQUAL,
    GREATER,
    LESS,
    NOT_ABOVE,
    NOT_AVAILABLE,
    NOT_BELOW,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Measurement,
    compare,
    judge,
    paper_gain,
    paper_number,
    verdict_counts,
)
from westwood.experiments import preconditions as pre
from westwood.experiments.base import GOODPUT_MBPS, Axis, Series
from westwood.experiments.measures import compare_at, ratio_at
from westwood.experiments.sweep import Experiment, SweepResults
from westwood.report import html as report
from westwood.stats import mean_ci


def constant(value, samples=()):
    return lambda results: Measurement(value, "synthetic", tuple(samples))


@pytest.mark.parametrize(
    "value, verdict",
    [
        (4.94, REPRODUCED),
        (3.71, REPRODUCED),  # -24.9 %
        (6.17, REPRODUCED),  # +24.9 %
        (3.6, PARTLY),
        (7.0, PARTLY),  # too large is not better: two-sided
        (2.4, NOT_REPRODUCED),
        (7.5, NOT_REPRODUCED),
    ],
)
def test_a_number_of_the_paper_is_judged_within_25_and_50_percent(value, verdict):
    claim = paper_number("ratio at 1%", constant(value), 4.94, '"394%"')
    assert judge(claim, None).verdict == verdict


@pytest.mark.parametrize(
    "ratio, verdict",
    [
        (2.61, REPRODUCED),
        (2.25, REPRODUCED),
        (2.03, PARTLY),
        (1.5, NOT_REPRODUCED),
        (3.3, PARTLY),
        (3.5, NOT_REPRODUCED),
    ],
)
def test_a_gain_in_percent_is_judged_as_that_gain(ratio, verdict):
    # "the throughput improvement ... is 161%": a ratio of 2.03 is a gain of 103 %, 64 % of it.
    claim = paper_gain("gain at the BA-TCP point", constant(ratio), 161, '"161%"')
    v = judge(claim, None)
    assert v.verdict == verdict
    assert v.value == pytest.approx(100 * (ratio - 1))
    assert v.target == "121% to 201%"


def seeds(*values):
    return constant(sum(values) / len(values), values)


@pytest.mark.parametrize(
    "samples, relation, verdict",
    [
        ((1.30, 1.32, 1.28, 1.31), GREATER, REPRODUCED),
        ((1.02, 1.03, 1.01, 1.02), GREATER, PARTLY),  # significant but a tie
        ((0.9, 1.6, 1.1, 1.4), GREATER, PARTLY),  # large but not significant
        ((1.002, 0.998, 1.001, 0.999), GREATER, NOT_REPRODUCED),  # a tie is not a win
        ((0.7, 0.72, 0.69), GREATER, NOT_REPRODUCED),
        ((0.7, 0.72, 0.69), LESS, REPRODUCED),
        ((1.01, 0.99, 1.0, 1.02), EQUAL, REPRODUCED),
        ((1.04, 0.92, 1.03, 0.99), EQUAL, PARTLY),  # mean within 5 %, the interval is not
        ((1.3, 1.2, 1.25), EQUAL, NOT_REPRODUCED),
        ((0.99, 0.97, 1.01, 0.98), NOT_BELOW, REPRODUCED),  # "X does not reduce Y"
        ((0.96, 0.80, 1.10, 0.98), NOT_BELOW, PARTLY),
        ((0.7, 0.72, 0.69), NOT_BELOW, NOT_REPRODUCED),
        ((1.01, 0.99, 1.02), NOT_ABOVE, REPRODUCED),
        ((1.3, 1.2, 1.25), NOT_ABOVE, NOT_REPRODUCED),
    ],
)
def test_a_comparison_is_judged_on_the_confidence_interval(samples, relation, verdict):
    claim = compare("X vs Y", seeds(*samples), relation, '"X beats Y"')
    v = judge(claim, None)
    assert v.verdict == verdict, v
    logs = mean_ci([math.log(q) for q in samples])
    assert "95% CI" in v.measured and f"geometric mean of {len(samples)} seeds" in v.measured
    assert v.value == pytest.approx(math.exp(logs.mean))


def test_a_comparison_is_symmetric_and_not_ruled_by_one_seed():
    # X/Y and Y/X give reciprocal means and the mirrored verdict (the geometric mean).
    up = judge(compare("X > Y", seeds(1.3, 1.5, 1.2, 1.4), GREATER, ""), None)
    down = judge(compare("Y < X", seeds(1 / 1.3, 1 / 1.5, 1 / 1.2, 1 / 1.4), LESS, ""), None)
    assert up.verdict == down.verdict == REPRODUCED
    assert up.value == pytest.approx(1 / down.value)
    # One seed at 12.4 among ratios near 1: the arithmetic mean would read 3.7.
    outlier = judge(compare("X = Y", seeds(1.0, 1.05, 0.95, 12.4), EQUAL, ""), None)
    assert outlier.value < 2.0


def test_a_zero_ratio_falls_back_to_the_arithmetic_mean():
    v = judge(compare("X > Y", seeds(0.0, 0.1, 0.05), GREATER, ""), None)
    assert v.verdict == NOT_REPRODUCED and "a seed's ratio is 0" in v.measured


def test_a_comparison_on_one_seed_or_on_identical_seeds_has_no_verdict():
    one = judge(compare("X > Y", seeds(1.5), GREATER, ""), None)
    assert one.verdict == NOT_AVAILABLE and "1 seed" in one.measured
    same = judge(compare("X > Y", seeds(1.5, 1.5, 1.5), GREATER, ""), None)
    assert same.verdict == NOT_AVAILABLE and "do not vary with the seed" in same.measured
    assert math.isnan(same.value)


def test_an_unknown_relation_is_refused():
    with pytest.raises(ValueError):
        compare("X ? Y", seeds(1.0, 2.0), "bigger", "")


# --- preconditions ------------------------------------------------------------------------------


def summary(**changes):
    base = {
        "sim_seconds": 100.0,
        "warnings": [],
        "flows": [
            {
                "name": "ftp",
                "goodput_bps": 1e6,
                "active_seconds": 100.0,
                "longest_stall_seconds": 1.2,
                "final_stall_seconds": 0.1,
            }
        ],
        "links": [
            {"name": "access", "utilization": 0.1, "drops_overflow": 0, "packets_sent": 1000},
            {"name": "bottleneck", "utilization": 0.95, "drops_overflow": 50, "packets_sent": 9000},
        ],
        "sources": [{"name": "udp", "packets_sent": 1000, "packets_received": 990}],
    }
    base.update(changes)
    return base


def test_each_precondition_holds_on_a_healthy_run_and_says_why_it_fails():
    healthy = summary()
    checks = [
        pre.no_simulator_warning(),
        pre.no_locked_out_flow(),
        pre.link_busy("bottleneck", 0.9),
        pre.sources_deliver(0.9),
        pre.no_overflow_outside(["bottleneck"]),
    ]
    assert [c.check(healthy) for c in checks] == [None] * len(checks)

    warned = summary(warnings=[{"kind": "small_bdp_queue", "message": "queue of 1 packet"}])
    assert "queue of 1 packet" in checks[0].check(warned)
    locked = summary(
        flows=[
            {
                "name": "ftp",
                "active_seconds": 200.0,
                "longest_stall_seconds": 188.2,
                "final_stall_seconds": 188.2,
            }
        ]
    )
    assert checks[1].check(locked) == "flow ftp made no progress for the last 188.2 s of its 200 s"
    # A long stall the flow recovered from is RTO backoff under loss, not a lockout; the
    # stricter check, for claims about steady flows, still sees it.
    recovered = summary(
        flows=[
            {
                "name": "ftp",
                "active_seconds": 100.0,
                "longest_stall_seconds": 56.0,
                "final_stall_seconds": 0.3,
            }
        ]
    )
    assert checks[1].check(recovered) is None
    assert (
        pre.no_long_stall().check(recovered) == "flow ftp made no progress for 56.0 s of its 100 s"
    )
    idle = summary(links=[{"name": "bottleneck", "utilization": 0.6}])
    assert "busy 60%" in checks[2].check(idle)
    starved = summary(sources=[{"name": "udp3", "packets_sent": 1000, "packets_received": 20}])
    assert "udp3 delivered 2%" in checks[3].check(starved)
    overflow = summary(links=[{"name": "udp_access", "drops_overflow": 900, "packets_sent": 100}])
    assert "udp_access overflowed" in checks[4].check(overflow)
    # The reverse direction of a bottleneck is the bottleneck's too.
    reverse = summary(
        links=[{"name": "bottleneck.reverse", "drops_overflow": 900, "packets_sent": 100}]
    )
    assert checks[4].check(reverse) is None


def test_a_precondition_applies_where_it_says():
    only_tcpw = pre.Precondition("x", lambda s: "fails", where=lambda series, x: series == "TCPW")
    assert pre.failures([only_tcpw], "Reno", 1.0, summary()) == []
    assert pre.failures([only_tcpw], "TCPW", 1.0, summary()) == ["fails"]


EXPERIMENT = Experiment(
    id="synthetic",
    title="t",
    paper="seed 000",
    scenario="wireless",
    x=Axis("loss", (0, 1), "Loss", unit="%"),
    series=(Series("Reno", {"cc": "reno"}), Series("TCPW", {"cc": "westwood"})),
    metric=GOODPUT_MBPS,
)


def test_a_claim_reading_a_degenerate_point_is_not_judged():
    from westwood.stats import MeanCI

    cells = [[MeanCI(3, 1.0, 0.1)] * 2, [MeanCI(3, 2.0, 0.1)] * 2]
    samples = {
        ("Reno", 0): {1: 1.0, 2: 1.1, 3: 0.9},
        ("TCPW", 0): {1: 2.0, 2: 2.1, 3: 1.9},
        ("Reno", 1): {1: 1.0, 2: 1.1, 3: 0.9},
        ("TCPW", 1): {1: 2.0, 2: 2.1, 3: 1.9},
    }
    degenerate = {("TCPW", 1): "seed 2: flow ftp made no progress for the last 90.0 s of its 100 s"}
    results = SweepResults(EXPERIMENT, [0, 1], cells, False, samples, degenerate)
    at_0 = judge(compare("TCPW > Reno at 0", compare_at(0, "TCPW", "Reno"), GREATER, ""), results)
    assert at_0.verdict == REPRODUCED
    at_1 = judge(paper_number("ratio at 1", ratio_at(1, "TCPW", "Reno"), 2.0, ""), results)
    assert at_1.verdict == DEGENERATE
    assert at_1.measured.startswith("degenerate — TCPW at 1%: seed 2: flow ftp made no progress")


def test_degenerate_points_name_the_failing_seeds():
    runs = [
        ("TCPW", 1.0, 1, summary()),
        ("TCPW", 1.0, 2, summary(warnings=[{"message": "bdp queue of 1 packet"}])),
        ("Reno", 1.0, 1, summary()),
    ]
    points, per_run = pre.degenerate_points(pre.STANDARD, runs)
    assert points == {("TCPW", 1.0): "seed 2: simulator warning: bdp queue of 1 packet"}
    assert list(per_run) == [("TCPW", 1.0, 2)]


def test_the_report_opens_with_the_verdict_counts():
    manifest = {
        "a": {"kind": "sweep", "claims": [{"verdict": REPRODUCED}, {"verdict": DEGENERATE}]},
        "b": {"kind": "table", "claims": [{"verdict": REPRODUCED}, {"verdict": PARTLY}]},
        "t": {"kind": "testbed", "claims": [{"verdict": NOT_REPRODUCED}]},
    }
    text = report.verdict_summary(manifest)
    assert text.startswith(
        "Simulated: 4 claims — 2 reproduced, 1 partly; 1 n/a: degenerate (not judged"
    )
    assert "Testbed: 1 claims — 1 not reproduced; 0 n/a: degenerate" in text
    assert verdict_counts([{"verdict": PARTLY}, {"verdict": REPRODUCED}]) == {
        REPRODUCED: 1,
        PARTLY: 1,
    }
