"""Seed 002 (multipath): what its verdicts rest on (the paths really used, the grid's load), the
measures its claims use, and that every claim of the paper has a row judged by the issue-28
rules (a number as a number, a comparison on seeds that differ)."""

from __future__ import annotations

import copy
import math

import pytest

from westwood.api import run_raw
from westwood.claims import (
    EQUAL,
    GREATER,
    LESS,
    NOT_AVAILABLE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Measurement,
    compare,
    judge,
)
from westwood.experiments import measures
from westwood.experiments.base import GOODPUT_MBPS, Axis, Series
from westwood.experiments.measures import compare_at_every_x
from westwood.experiments.sweep import Experiment, SweepResults, aggregate, per_seed_samples
from westwood.papers import seed002

SHORT = {"duration": "10s"}


def links(summary):
    return {r["name"]: r for r in summary["links"]}


@pytest.mark.parametrize(
    "scenario, overrides",
    [
        ("multipath", {"paths": "2"}),
        ("multipath", {"paths": "1"}),
        ("multipath", {"paths": "2", "mode": "full"}),
        ("seed002_fourpath", {"paths": "4", "delay": "30ms"}),
        ("seed002_fourpath", {"paths": "3"}),
    ],
)
def test_the_paths_precondition_holds_on_the_papers_set_ups(scenario, overrides):
    summary = run_raw(scenario, overrides={**SHORT, **overrides}).summary
    assert seed002.PATHS_USED.check(summary) is None


def test_the_paths_precondition_says_when_the_set_up_is_not_the_papers():
    full = run_raw("seed002_fourpath", overrides={**SHORT, "paths": "3"}).summary
    idle = copy.deepcopy(full)
    links(idle)["path2_1"]["packets_sent"] = 0
    assert "path 2 carried 0" in seed002.PATHS_USED.check(idle)
    extra = copy.deepcopy(full)
    links(extra)["path4_1"]["packets_sent"] = 10
    assert "only 3 should be used" in seed002.PATHS_USED.check(extra)
    one_ack_path = copy.deepcopy(full)
    links(one_ack_path)["path3_1.reverse"]["packets_sent"] = 0
    assert "reverse path 3" in seed002.PATHS_USED.check(one_ack_path)
    fewer = copy.deepcopy(full)
    fewer["flows"][0]["paths"] = 2
    assert "used 2 path(s), not 3" in seed002.PATHS_USED.check(fewer)

    simple = run_raw("multipath", overrides=SHORT).summary
    spread = copy.deepcopy(simple)
    links(spread)["path2_1.reverse"]["packets_sent"] = 100
    assert "though they take path 1" in seed002.PATHS_USED.check(spread)


def test_the_grid_precondition_checks_paths_and_load():
    good = {
        "sim_seconds": 600.0,
        "parameters": {"paths": "4"},
        "arrivals": [{"mean_paths": 4.0, "flows_started": 305}],
    }
    assert seed002.GRID.check(good) is None
    few = copy.deepcopy(good)
    few["arrivals"][0]["flows_started"] = 150
    assert "150 connections started" in seed002.GRID.check(few)
    short = {**good, "sim_seconds": 60.0, "arrivals": [{"mean_paths": 4.0, "flows_started": 22}]}
    assert seed002.GRID.check(short) is None  # 30 expected: 22 is within 3 standard deviations
    single = copy.deepcopy(good)
    single["arrivals"][0]["mean_paths"] = 1.0
    assert "1.00 paths" in seed002.GRID.check(single)


def test_the_time_mean_of_a_curve_skips_the_start_and_other_flows():
    e = seed002.FIG15
    series = {
        "flow": ["ftp", "ftp", "ftp", "other", "ftp"],
        "time_seconds": [1.0, 5.0, 6.0, 6.0, 7.0],
        "bwe_bps": [9e6, 2e6, 4e6, 8e6, "nan"],
    }
    assert e.time_mean(series) == pytest.approx(3e6)
    # A summary without the time mean (a plain run) reads NaN, never a number.
    assert math.isnan(e.metric.value({"flows": []}))
    assert e.metric.value({"time_mean": {"bwe_bps": 3e6}}) == pytest.approx(3.0)


# --- the shared measures, on synthetic results ---------------------------------------------


def results(values):
    """SweepResults from ``{(series, x): [per-seed values]}``."""
    labels = sorted({s for s, _ in values})
    xs = sorted({x for _, x in values})
    e = Experiment(
        id="t",
        title="t",
        paper="seed 002",
        scenario="multipath",
        x=Axis("delay", tuple(xs), "Delay", unit="ms"),
        series=tuple(Series(label, {}) for label in labels),
        metric=GOODPUT_MBPS,
    )
    rows = [
        {"delay": x, "series": s, "seed": i + 1, "goodput_mbps": v}
        for (s, x), vs in values.items()
        for i, v in enumerate(vs)
    ]
    got_xs, cells = aggregate(e, rows)
    return SweepResults(e, got_xs, cells, False, per_seed_samples(e, rows), {})


R = results(
    {
        ("A", 10): [2.0, 2.1, 1.9],
        ("B", 10): [1.0, 1.0, 1.0],
        ("A", 60): [1.1, 1.2, 1.0],
        ("B", 60): [1.0, 1.0, 1.0],
    }
)


def test_compare_at_every_x_judges_the_x_least_in_favour():
    m = compare_at_every_x(GREATER, "A", "B")(R)
    assert m.value == pytest.approx((1.1 * 1.2 * 1.0) ** (1 / 3))  # geometric
    assert "least supported at 60ms" in m.detail
    assert m.samples == pytest.approx((1.1, 1.2, 1.0))
    m = compare_at_every_x(LESS, "A", "B")(R)
    assert m.value == pytest.approx(2.0, rel=0.01) and "at 10ms" in m.detail  # the largest
    m = compare_at_every_x(GREATER, "B", "A")(R)
    assert m.value == pytest.approx(0.5, rel=0.01)  # B/A is smallest where A is largest


def test_compare_at_every_x_picks_by_verdict_not_only_by_mean():
    # At 10 ms A is 1.30 times B but its seeds straddle 1; at 60 ms 1.20 times, consistently:
    # "A beats B at every x" fails at 10 ms, whose interval does not clear 1.
    r = results(
        {
            ("A", 10): [0.8, 1.9, 1.3],
            ("B", 10): [1.0, 1.0, 1.0],
            ("A", 60): [1.2, 1.21, 1.19],
            ("B", 60): [1.0, 1.0, 1.0],
        }
    )
    m = compare_at_every_x(GREATER, "A", "B")(r)
    assert "least supported at 10ms" in m.detail
    assert (
        judge(compare("A > B", compare_at_every_x(GREATER, "A", "B"), GREATER, ""), r).verdict
        == PARTLY
    )


def test_least_favourable_picks_among_cases():
    a = lambda r: Measurement(1.3, "a", (1.3, 1.31))  # noqa: E731
    b = lambda r: Measurement(1.02, "b", (1.0, 1.04))  # noqa: E731
    assert measures.least_favourable(GREATER, a, b)(None).detail.startswith("least favourable of 2")
    assert measures.least_favourable(GREATER, a, b)(None).value == 1.02
    assert measures.least_favourable(LESS, a, b)(None).value == 1.3
    assert measures.least_favourable(EQUAL, a, b)(None).value == 1.3
    # A case whose interval straddles the margin supports the claim less than one that clears
    # it, whatever their means.
    wide = lambda r: Measurement(1.5, "wide", (0.9, 2.5))  # noqa: E731
    assert measures.least_favourable(GREATER, a, wide)(None).value == 1.5


def test_mean_ratio_per_seed_and_largest_ratio():
    m = measures.mean_ratio_per_seed("A", "B")(R)
    assert m.samples == pytest.approx((1.55, 1.65, 1.45))
    assert measures.largest_ratio("A", "B")(R).value == pytest.approx(2.0)
    assert measures.largest_ratio("A", "B", xs=(60,))(R).value == pytest.approx(1.1)


def test_a_claim_not_run_reads_na_with_its_reason():
    from westwood.claims import paper_gain

    v = judge(paper_gain("gain", measures.not_run("no topology"), 116, '"116%"'), R)
    assert v.verdict == NOT_AVAILABLE and "no topology" in v.measured


# --- the claims -----------------------------------------------------------------------------


def claims_of(experiment_id):
    [e] = [e for e in seed002.EXPERIMENTS if e.id == experiment_id]
    return e, {claim.text: claim for claim in e.claims}


def test_every_claim_of_the_issue_has_a_row():
    _, fig10 = claims_of("seed002_fig10")
    bwe = fig10["TCPW's mean BWE over 2 paths (Mb/s)"]
    assert bwe.target.low == pytest.approx(2.25) and bwe.target.high == pytest.approx(3.75)
    _, fig17 = claims_of("seed002_fig17")
    assert fig17["SACK a little above Reno (SACK/Reno, mean over delays)"].relation == GREATER
    _, paths = claims_of("seed002_paths")
    assert {c.relation for c in paths.values()} == {LESS}
    fig15, claims = claims_of("seed002_fig15")
    assert set(fig15.x.values) == {10, 20, 30, 40, 50, 60}  # "regardless of ... link delays"
    assert any(c.relation == EQUAL for c in claims.values())


def test_comparisons_rest_on_seeds_that_differ():
    for e in seed002.EXPERIMENTS:
        if any(claim.relation is not None for claim in e.claims):
            assert e.seeds >= 3, e.id
            # Only the grid's arrivals are random: every other run draws its start.
            assert e.id == "seed002_fig17" or "flows.ftp.start" in e.overrides, e.id


def test_a_throughput_of_the_paper_is_judged_as_a_number():
    fig7, claims = claims_of("seed002_fig7")
    claim = claims["TCPW throughput over 2 paths (Mb/s)"]
    for value, verdict in ((2.43, REPRODUCED), (1.4, NOT_REPRODUCED)):
        r = results({("TCPW", 2): [value, value]})
        assert judge(claim, r).verdict == verdict
