"""Claims as data: verdicts, the fig9 claims on synthetic results, their tables."""

from __future__ import annotations

import dataclasses
import math

import pytest

from westwood.claims import (
    DEGENERATE,
    NOT_AVAILABLE,
    NOT_REPRODUCED,
    PARTLY,
    REPRODUCED,
    Claim,
    ClaimUnavailable,
    Measurement,
    at_least,
    at_most,
    between,
    judge,
    markdown_claims,
)
from westwood.experiments import registry
from westwood.experiments.sweep import SweepResults
from westwood.papers import which_tcpw
from westwood.report import html as report
from westwood.stats import MeanCI

FIG9 = registry.EXPERIMENTS["fig9"]


def constant(value: float):
    return lambda results: Measurement(value, "synthetic")


@pytest.mark.parametrize(
    "value, verdict",
    [(3.5, REPRODUCED), (3.0, REPRODUCED), (2.0, PARTLY), (1.5, PARTLY), (1.4, NOT_REPRODUCED)],
)
def test_judge_thresholds(value, verdict):
    claim = Claim("ratio >= 3", constant(value), target=at_least(3), partly=at_least(1.5))
    v = judge(claim, None)
    assert v.verdict == verdict
    assert v.value == value
    assert v.measured.startswith(f"{value:.2f}") and "synthetic" in v.measured
    assert v.target == "≥ 3.00" and v.partly == "≥ 1.50"


def test_judge_without_partly_range_and_ranges():
    claim = Claim("x in [0.5, 2]", constant(3.0), target=between(0.5, 2), unit="%", digits=1)
    v = judge(claim, None)
    assert v.verdict == NOT_REPRODUCED and v.partly == "–"
    assert v.target == "0.5% to 2.0%"
    assert judge(dataclasses.replace(claim, measure=constant(0.5)), None).verdict == REPRODUCED
    assert judge(dataclasses.replace(claim, measure=constant(2.0)), None).verdict == REPRODUCED
    assert at_most(10).describe(str) == "≤ 10"
    assert 10 in at_most(10) and 10.01 not in at_most(10)
    assert math.nan not in at_least(0)


def test_unavailable_and_nan_are_not_available():
    def missing(results):
        raise ClaimUnavailable("loss = 1% was not run")

    v = judge(Claim("c", missing, target=at_least(3)), None)
    assert v.verdict == NOT_AVAILABLE and "loss = 1% was not run" in v.measured
    assert v.as_dict()["value"] is None
    assert judge(Claim("c", constant(math.nan), target=at_least(3)), None).verdict == (
        NOT_AVAILABLE
    )


def sweep(values, degenerate=None):
    """SweepResults of fig9 from ``{label: {x: [value per seed]}}`` (seeds 1, 2, ...)."""
    xs = sorted({x for by_x in values.values() for x in by_x})
    cells = [
        [
            MeanCI(len(values[s.label][x]), sum(values[s.label][x]) / len(values[s.label][x]), 0)
            if x in values.get(s.label, {})
            else MeanCI(0, math.nan, math.nan)
            for x in xs
        ]
        for s in FIG9.series
    ]
    samples = {
        (label, x): {seed: v for seed, v in enumerate(per_seed, 1)}
        for label, by_x in values.items()
        for x, per_seed in by_x.items()
    }
    return SweepResults(FIG9, xs, cells, samples=samples, degenerate=degenerate or {})


XS = (0, 0.5, 1, 2, 3)


def curve(means, spread=0.02, order=(-1.5, -0.5, 0.5, 1.5)):
    """Four seeds per x around each mean (± ``spread`` of it, seed by seed in ``order``; the
    order turns with x, so that two curves with different orders vary independently)."""
    out = {}
    for i, (x, m) in enumerate(zip(XS, means)):
        turned = order[i % 4 :] + order[: i % 4]
        out[x] = [m * (1 + spread * d) for d in turned]
    return out


def claim(text):
    return next(c for c in FIG9.claims if c.text == text)


GAIN = claim(which_tcpw.fig9_claim("TCPW"))
SACK_GAIN = claim("TCPW's throughput gain over SACK at 1% loss")
PEAK = next(c for c in FIG9.claims if c.text.startswith("Where TCPW's gain over Reno peaks"))


def test_fig9_gains_are_judged_as_the_paper_states_them():
    values = {s.label: curve([1.0] * 5) for s in FIG9.series}
    values["Reno"] = curve([1.0, 0.5, 0.25, 0.2, 0.1])
    values["SACK"] = curve([1.0, 0.5, 0.4, 0.2, 0.1])
    values["TCPW"] = curve([1.0, 1.0, 1.0, 0.5, 0.2])
    values[which_tcpw.RENO_NS2_LABEL] = curve([1.0, 0.5, 0.5, 0.2, 0.1])
    r = sweep(values)
    gain = judge(GAIN, r)  # TCPW/Reno 4.0 at 1 %: a 300 % gain, within 25 % of 394 %
    assert gain.value == pytest.approx(300) and gain.verdict == REPRODUCED
    assert "ratio 4.00" in gain.measured and "TCPW 1.000 / Reno 0.250" in gain.measured
    assert gain.target == "296% to 492%" and gain.partly == "197% to 591%"
    sack = judge(SACK_GAIN, r)  # 2.5: 150 %, under half of 394 %
    assert sack.value == pytest.approx(150) and sack.verdict == NOT_REPRODUCED
    # The other TCPWs over their own baselines: 1.0 / 0.25 for the interval option, over
    # ns-2.35's Reno (0.5) for the UCLA agents.
    others = [judge(claim(which_tcpw.fig9_claim(v.label)), r) for v in which_tcpw.OTHERS]
    assert [v.value for v in others] == pytest.approx([300, 100, 100])
    # Two-sided: a gain far above the paper's is no reproduction either.
    values["Reno"] = curve([1.0, 0.5, 0.1, 0.2, 0.1])
    assert judge(GAIN, sweep(values)).verdict == NOT_REPRODUCED  # 900 %
    values["Reno"] = curve([1.0, 0.5, 0.3, 0.2, 0.1])
    assert judge(GAIN, sweep(values)).verdict == PARTLY  # 233 %


def test_fig9_peak_is_judged_with_its_uncertainty():
    values = {s.label: curve([1.0] * 5) for s in FIG9.series}
    values["Reno"] = curve([1.0, 0.5, 0.25, 0.2, 0.1])
    # A clear peak at 1 %: ratios 1, 2, 4, 2.5, 2 with 2 % noise: every resample peaks at 1 %.
    values["TCPW"] = curve([1.0, 1.0, 1.0, 0.5, 0.2])
    peak = judge(PEAK, sweep(values))
    assert peak.value == 1 and peak.verdict == REPRODUCED
    assert "the peak lies at 1% to 1%" in peak.measured
    # A flat top from 1 % to 3 % (4.0, 4.0, 4.0) with 10 % noise per seed: the largest mean
    # ratio may be at 1 %, but the seeds cannot place the peak there.
    values["Reno"] = curve([1.0, 0.5, 0.25, 0.2, 0.1], spread=0.1)
    values["TCPW"] = curve([1.0, 1.0, 1.0, 0.8, 0.4], spread=0.1, order=(1.5, -1.5, 0.5, -0.5))
    flat = judge(PEAK, sweep(values))
    assert flat.verdict == NOT_REPRODUCED and flat.value == 3
    # A peak clearly at 3 %: not reproduced.
    values["Reno"] = curve([1.0, 0.5, 0.25, 0.2, 0.1])
    values["TCPW"] = curve([1.0, 0.6, 0.5, 0.5, 0.5])
    assert judge(PEAK, sweep(values)).value == 3
    # One seed has no interval: n/a rather than a location from one run.
    one = {label: {x: v[:1] for x, v in by_x.items()} for label, by_x in values.items()}
    assert judge(PEAK, sweep(one)).verdict == NOT_AVAILABLE


def test_fig9_claims_are_not_available_without_their_inputs():
    values = {s.label: {0: [1.0, 1.1], 2: [0.5, 0.6]} for s in FIG9.series}  # no 1% point
    gain = judge(GAIN, sweep(values))
    assert gain.verdict == NOT_AVAILABLE and "loss = 1% was not run" in gain.measured
    two_series = dataclasses.replace(FIG9, series=FIG9.series[:2])
    results = SweepResults(
        two_series, [0, 1], [[MeanCI(1, 1.0, math.nan)] * 2, [MeanCI(1, 1.0, math.nan)] * 2]
    )
    assert judge(GAIN, results).verdict == NOT_AVAILABLE  # no TCPW series
    # A point whose runs fail the preconditions is never judged: the peak reads every x.
    values = {s.label: curve([1.0] * 5) for s in FIG9.series}
    values["Reno"] = curve([1.0, 0.5, 0.25, 0.2, 0.1])
    degenerate = {("Reno", 3): "seed 2: flow ftp made no progress for 60.0 s of its 100 s"}
    peak = judge(PEAK, sweep(values, degenerate))
    assert peak.verdict == DEGENERATE and "Reno at 3%" in peak.measured
    assert judge(GAIN, sweep(values, degenerate)).verdict == REPRODUCED  # 1 % is fine


def test_claims_tables():
    verdicts = [
        judge(Claim("a | b", constant(4.0), target=at_least(3), paper="4.94"), None),
        judge(Claim("c", constant(1.0), target=at_least(3)), None),
    ]
    md = markdown_claims(verdicts)
    assert "| Claim | Paper | Measured | Reproduced if | Partly if | Verdict |" in md
    assert "a \\| b" in md and "**reproduced**" in md and "**not reproduced**" in md
    html = report.html_table(
        {"header": ["Claim", "Verdict"], "rows": [["a", "not reproduced"]]}, verdict_column=True
    )
    assert 'class="verdict-not-reproduced"' in html and 'class="claims"' in html
    assert markdown_claims([]) == ""
