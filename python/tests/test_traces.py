"""Per-step available bandwidth and BWE error (seed 000 fig. 3) on synthetic data."""

from __future__ import annotations

import math

import pytest

from westwood.claims import (
    NOT_AVAILABLE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Claim,
    ClaimUnavailable,
    at_most,
    judge,
)
from westwood.experiments import trace as traces
from westwood.experiments.registry import EXPERIMENTS

# The paper's schedule: udp1 ON 25-200 s, udp2 ON 50-75 s and 125-175 s, 1 Mb/s each.
PAPER_SOURCES = [
    traces.Source("udp1", 1e6, ((25.0, 200.0),)),
    traces.Source("udp2", 1e6, ((50.0, 75.0), (125.0, 175.0))),
]


def test_paper_schedule_gives_seven_steps():
    steps = traces.available_steps(250.0, 5e6, PAPER_SOURCES, payload_fraction=400 / 440)
    assert [(s.start, s.end) for s in steps] == [
        (0, 25),
        (25, 50),
        (50, 75),
        (75, 125),
        (125, 175),
        (175, 200),
        (200, 250),
    ]
    assert [s.available_bps / 1e6 for s in steps] == [5, 4, 3, 4, 3, 4, 5]
    assert [s.active for s in steps] == [
        (),
        ("udp1",),
        ("udp1", "udp2"),
        ("udp1",),
        ("udp1", "udp2"),
        ("udp1",),
        (),
    ]
    assert steps[0].available_payload_bps == pytest.approx(5e6 * 400 / 440)
    assert [s.index for s in steps] == list(range(1, 8))


def test_steps_clip_to_the_run_and_never_go_negative():
    sources = [traces.Source("big", 7e6, ((-5.0, 10.0), (20.0, 400.0)))]
    steps = traces.available_steps(30.0, 5e6, sources)
    assert [(s.start, s.end, s.available_bps) for s in steps] == [
        (0, 10, 0.0),
        (10, 20, 5e6),
        (20, 30, 0.0),
    ]
    assert traces.available_steps(0.0, 5e6, sources) == []
    assert traces.available_steps(10.0, 5e6, []) == [traces.Step(1, 0, 10, (), 5e6, 5e6)]


def test_step_errors_skip_settling_and_nan():
    steps = traces.available_steps(20.0, 4e6, [traces.Source("u", 2e6, ((10.0, 20.0),))])
    times = [i * 0.5 for i in range(41)]  # 0, 0.5, ..., 20
    bwe = []
    for t in times:
        if t < 10:
            bwe.append(0.0 if t < 5 else 4.4e6)  # settling: wildly off, then +10 %
        elif t < 15:
            bwe.append(9e9)  # settling after the change: ignored
        else:
            bwe.append(math.nan if t == 16 else (1.8e6 if int(t * 2) % 2 else 2.2e6))
    e1, e2 = traces.step_errors(times, bwe, steps, settle_seconds=5.0)
    assert e1.samples == 10  # 5.0, 5.5, ..., 9.5
    assert e1.mae_bps == pytest.approx(0.4e6) and e1.mean_bwe_bps == pytest.approx(4.4e6)
    assert e1.relative == pytest.approx(0.1)
    assert e2.samples == 10  # 15 .. 20 inclusive (last step), minus the NaN at 16
    assert e2.mae_bps == pytest.approx(0.2e6)
    assert e2.relative == pytest.approx(0.1)
    # Without settling the first step's error is dominated by the start-up zeros.
    raw = traces.step_errors(times, bwe, steps, settle_seconds=0.0)[0]
    assert raw.samples == 20 and raw.relative > 0.5


def test_step_errors_without_samples_are_nan():
    steps = traces.available_steps(10.0, 1e6, [traces.Source("u", 1e6, ((2.0, 4.0),))])
    errors = traces.step_errors([0.0, 1.0, 9.0], [1e6, 1e6, 1e6], steps, settle_seconds=5.0)
    assert [e.samples for e in errors] == [0, 0, 1]
    assert math.isnan(errors[0].mae_bps) and math.isnan(errors[0].relative)
    assert math.isnan(errors[1].relative)  # no samples (and no available bandwidth)
    assert errors[2].relative == 0.0


def _results(relative_by_seed):
    """TraceResults for series TCPW from per-seed lists of per-step relative errors."""
    per_seed = []
    for rels in relative_by_seed:
        steps = [traces.Step(i + 1, 10.0 * i, 10.0 * (i + 1), (), 1e6, 1e6) for i in range(3)]
        per_seed.append(
            [
                traces.StepError(s, 0 if math.isnan(r) else 5, 1e6, r * 1e6)
                for s, r in zip(steps, rels)
            ]
        )
    return traces.TraceResults(5.0, {"TCPW": traces.summarize_steps(per_seed)})


def test_summary_over_seeds_and_the_worst_step_claim():
    claim = Claim(
        "BWE within 15% in every step",
        traces.worst_step_error("TCPW"),
        target=at_most(15),
        partly=at_most(30),
        unit="%",
    )
    results = _results([[0.05, 0.10, 0.02], [0.07, 0.12, 0.02]])
    summary = results.steps["TCPW"]
    assert summary[1].relative_percent.mean == pytest.approx(11.0)
    assert summary[1].relative_percent.n == 2
    v = judge(claim, results)
    assert v.verdict == REPRODUCED and v.value == pytest.approx(11.0)
    assert "10–20 s" in v.measured
    assert judge(claim, _results([[0.05, 0.2, 0.02]])).verdict == PARTLY
    assert judge(claim, _results([[0.05, 0.4, 0.02]])).verdict not in (REPRODUCED, PARTLY)
    skipped = judge(claim, _results([[0.05, math.nan, 0.02]]))
    assert skipped.verdict == REPRODUCED and "1 step(s) without samples" in skipped.measured
    assert judge(claim, _results([[math.nan] * 3])).verdict == NOT_AVAILABLE
    with pytest.raises(ClaimUnavailable):
        traces.worst_step_error("Westwood+")(results)


def test_the_fig3_claim_bounds_the_error_by_half_a_udp_step():
    # The UDP sources step by 1 Mb/s on the wire, 0.909 Mb/s of TCP payload.
    claim = EXPERIMENTS["fig3"].claims[0]
    results = _results([[0.05, 0.10, 0.02], [0.07, 0.12, 0.02]])  # 1 Mb/s available: MAE = r
    v = judge(claim, results)
    assert v.verdict == REPRODUCED and v.value == pytest.approx(0.11)
    assert judge(claim, _results([[0.05, 0.6, 0.02]])).verdict == PARTLY
    assert judge(claim, _results([[0.05, 1.2, 0.02]])).verdict == NOT_REPRODUCED


def test_sizes_bottleneck_and_sources_from_a_summary():
    summary = {
        "flows": [{"name": "tcp", "segment_size": 400, "header_size": 40}, {"name": "x"}],
        "links": [{"name": "access", "rate_bps": 1e8}, {"name": "bottleneck", "rate_bps": 5e6}],
        "sources": [{"name": "u", "rate_bps": 1e6, "on": [[25, 200]], "kind": "cbr"}],
    }
    sizes = traces.packet_sizes(summary, "tcp")
    assert (sizes.segment_size, sizes.header_size, sizes.origin) == (400, 40, "summary.json")
    assert sizes.payload_fraction == pytest.approx(400 / 440)
    assumed = traces.packet_sizes(summary, "x")
    assert assumed.segment_size == traces.DEFAULT_SEGMENT_SIZE and "assumed" in assumed.origin
    with pytest.raises(KeyError, match="flows: tcp, x"):
        traces.packet_sizes(summary, "nope")
    assert traces.bottleneck_rate(summary) == ("bottleneck", 5e6)
    assert traces.bottleneck_rate(summary, "access") == ("access", 1e8)
    with pytest.raises(KeyError):
        traces.bottleneck_rate(summary, "nope")
    assert traces.sources_of(summary) == [traces.Source("u", 1e6, ((25.0, 200.0),))]
    assert traces.sources_of({"flows": []}) == []
