"""Claims as data: verdicts, the fig9 measures on synthetic results, their tables."""

from __future__ import annotations

import dataclasses
import math

import pytest

from westwood.claims import (
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


def sweep(values):
    """SweepResults of fig9 from ``{label: {x: mean}}`` (one seed)."""
    xs = sorted({x for by_x in values.values() for x in by_x})
    cells = [
        [
            MeanCI(1, values[s.label][x], math.nan)
            if x in values.get(s.label, {})
            else MeanCI(0, math.nan, math.nan)
            for x in xs
        ]
        for s in FIG9.series
    ]
    return SweepResults(FIG9, xs, cells)


def flat(value, xs=(0, 0.5, 1, 2, 3)):
    return {x: value for x in xs}


def test_fig9_claims_on_synthetic_results():
    labels = [s.label for s in FIG9.series]
    values = {label: flat(1.0) for label in labels}
    values["Reno"] = {0: 1.0, 0.5: 0.5, 1: 0.25, 2: 0.2, 3: 0.1}
    values["TCPW"] = {0: 1.05, 0.5: 1.0, 1: 1.0, 2: 0.5, 3: 0.2}  # ratios 1.05 2 4 2.5 2
    values["Reno (ns-2.35)"] = {**flat(0.5), 0: 1.0}
    verdicts = [judge(c, sweep(values)) for c in FIG9.claims]
    ratio, location, spread = verdicts[:3]
    # The other TCPWs' ratios (which_tcpw.py): flat 1.0 over Reno's 0.25 at 1% for the interval
    # option; over ns-2.35's Reno (0.5) for the UCLA agents.
    assert [v.value for v in verdicts[3:]] == pytest.approx([4.0, 2.0, 2.0])
    assert ratio.value == pytest.approx(4.0) and ratio.verdict == REPRODUCED
    assert "TCPW 1.000 / Reno 0.250" in ratio.measured
    assert location.value == 1 and location.verdict == REPRODUCED
    assert spread.value == pytest.approx(100 * 0.05 / 1.05) and spread.verdict == REPRODUCED

    values["TCPW"] = {0: 1.5, 0.5: 0.6, 1: 0.5, 2: 0.3, 3: 0.5}  # ratios 1.5 1.2 2 1.5 5
    ratio, location, spread = [judge(c, sweep(values)) for c in FIG9.claims[:3]]
    assert ratio.value == pytest.approx(2.0) and ratio.verdict == PARTLY
    assert location.value == 3 and location.verdict == PARTLY
    assert spread.value == pytest.approx(100 * 0.5 / 1.5) and spread.verdict == NOT_REPRODUCED


def test_fig9_claims_are_not_available_without_their_inputs():
    values = {s.label: {0: 1.0, 2: 0.5} for s in FIG9.series}  # no 1% point
    ratio, location, spread = [judge(c, sweep(values)) for c in FIG9.claims[:3]]
    assert ratio.verdict == NOT_AVAILABLE and "loss = 1% was not run" in ratio.measured
    assert location.verdict == REPRODUCED  # 2% has the largest ratio among 0% and 2%
    two_series = dataclasses.replace(FIG9, series=FIG9.series[:2])
    results = SweepResults(
        two_series, [0, 1], [[MeanCI(1, 1.0, math.nan)] * 2, [MeanCI(1, 1.0, math.nan)] * 2]
    )
    assert judge(FIG9.claims[0], results).verdict == NOT_AVAILABLE  # no TCPW series


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
