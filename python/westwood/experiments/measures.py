"""Claim measures: the number a claim is judged on, computed from an experiment's results
(``sweep.SweepResults``: the mean and the per-seed values of each series at each x). One module
for every paper: a measure that two papers need is written once, here.

Two families: measures on the means (a ratio at a point, the smallest or largest ratio over x,
a value), judged against a paper's number or a range; and comparisons on per-seed ratios
(``ratios_per_seed``, ``compare_at``, ``compare_at_every_x``, ``mean_ratio_per_seed``), whose
samples ``claims.compare`` judges with their confidence interval.
"""

from __future__ import annotations

import math
from typing import Callable, Optional, Sequence

from ..claims import (
    TIE_MARGIN,
    ClaimUnavailable,
    Measurement,
    least_supported,
    mean_of_ratios,
    paired_ratios,
)
from ..stats import mean_ci
from .sweep import SweepResults


def ratio_at(x: float, numerator: str, denominator: str):
    """Claim measure: mean metric of ``numerator`` over ``denominator`` at ``x``."""

    def measure(r: SweepResults) -> Measurement:
        a, b = r.mean(numerator, x), r.mean(denominator, x)
        if b <= 0:
            raise ClaimUnavailable(f"{denominator} is 0 at {r.x_text(x)}")
        return Measurement(a / b, f"{numerator} {a:.3f} / {denominator} {b:.3f}")

    return measure


def ratios_per_seed(numerator: str, x_numerator: float, denominator: str, x_denominator: float):
    """Claim measure for a comparison (``claims.compare``): ``numerator`` at ``x_numerator``
    over ``denominator`` at ``x_denominator``, seed by seed (a seed's runs share its random
    streams); the value is their mean."""

    def measure(r: SweepResults) -> Measurement:
        ratios, note = paired_ratios(
            r.per_seed(numerator, x_numerator), r.per_seed(denominator, x_denominator)
        )
        if not ratios:
            raise ClaimUnavailable(f"{denominator} is 0 at {r.x_text(x_denominator)}")
        a, b = r.mean(numerator, x_numerator), r.mean(denominator, x_denominator)
        where = (
            f"at {r.x_text(x_numerator)}"
            if x_numerator == x_denominator
            else f"at {r.x_text(x_numerator)} / {r.x_text(x_denominator)}"
        )
        return mean_of_ratios(ratios, f"{numerator} {a:.3f} / {denominator} {b:.3f} {where}", note)

    return measure


def compare_at(x: float, numerator: str, denominator: str):
    """``ratios_per_seed`` at one x value."""
    return ratios_per_seed(numerator, x, denominator, x)


def compare_at_every_x(
    relation: str,
    numerator: str,
    denominator: str,
    xs: Sequence[float] = (),
    where: Optional[Callable[[float], bool]] = None,
    margin: float = TIE_MARGIN,
):
    """Claim measure for a comparison the paper states at every x ("TCPW outperforms Reno under
    all tested RTTs"): the per-seed ratios at each x (``xs``, or every x run that ``where``
    keeps), and the measurement of the x where ``relation`` is least supported
    (``claims.least_supported``: the worst verdict, then the mean farthest against it), so the
    claim holds only where it holds at every x. A degenerate point makes the claim degenerate:
    it cannot be judged at every x."""

    def measure(r: SweepResults) -> Measurement:
        chosen = [x for x in (xs or r.xs) if where is None or where(x)]
        if not chosen:
            raise ClaimUnavailable("none of the x values the claim is about was run")
        found = [compare_at(x, numerator, denominator)(r) for x in chosen]
        worst = least_supported(relation, found, margin)
        means = ", ".join(f"{r.x_text(x)}: {m.value:.3f}" for x, m in zip(chosen, found))
        return Measurement(
            found[worst].value,
            f"least supported at {r.x_text(chosen[worst])}: {found[worst].detail}; means {means}",
            found[worst].samples,
        )

    return measure


def ratios_of_means(r, numerator: str, denominator: str, xs: Sequence[float] = ()):
    """(numerator / denominator of the means, x) at each x value (all, or ``xs``) where the
    denominator is not 0; ``ClaimUnavailable`` if it is 0 everywhere."""
    out = []
    for x in xs or r.xs:
        b = r.mean(denominator, x)
        if b > 0:
            out.append((r.mean(numerator, x) / b, x))
    if not out:
        raise ClaimUnavailable(f"{denominator} is 0 everywhere")
    return out


def _extreme_ratio(pick, numerator: str, denominator: str, xs: Sequence[float] = ()):
    """``pick`` (min or max) of numerator / denominator (of the means) over the x values (all of
    them, or ``xs``), with the x it is at and every ratio in the detail."""

    def measure(r) -> Measurement:
        ratios = ratios_of_means(r, numerator, denominator, xs)
        value, at = pick(ratios)
        return Measurement(
            value,
            f"at {r.x_text(at)}; ratios " + ", ".join(f"{r.x_text(x)}: {q:.2f}" for q, x in ratios),
        )

    return measure


def smallest_ratio(numerator: str, denominator: str, xs: Sequence[float] = ()):
    """Smallest numerator / denominator over the x values (all of them, or ``xs``)."""
    return _extreme_ratio(min, numerator, denominator, xs)


def value_at(series: str, x: float, scale: float = 1.0):
    """The mean metric of ``series`` at ``x``, times ``scale``."""

    def measure(r) -> Measurement:
        v = r.mean(series, x)
        return Measurement(v * scale, f"{series} at {r.x_text(x)}: {v:.3f}")

    return measure


def smallest_value(series: str):
    """Smallest mean metric of ``series`` over the x values."""

    def measure(r) -> Measurement:
        values = [(r.mean(series, x), x) for x in r.xs]
        v, at = min(values)
        return Measurement(
            v, f"at {r.x_text(at)}; " + ", ".join(f"{r.x_text(x)}: {w:.3f}" for w, x in values)
        )

    return measure


def largest_difference(a: str, b: str):
    """Largest |a - b| of the mean metric over the x values."""

    def measure(r) -> Measurement:
        diffs = [(abs(r.mean(a, x) - r.mean(b, x)), x) for x in r.xs]
        d, at = max(diffs)
        return Measurement(
            d, f"at {r.x_text(at)}: {a} {r.mean(a, at):.3f}, {b} {r.mean(b, at):.3f}"
        )

    return measure


def ratio_of_points(series_a: str, x_a: float, series_b: str, x_b: float):
    """mean(series_a at x_a) / mean(series_b at x_b)."""

    def measure(r) -> Measurement:
        a, b = r.mean(series_a, x_a), r.mean(series_b, x_b)
        if b <= 0:
            raise ClaimUnavailable(f"{series_b} is 0 at {r.x_text(x_b)}")
        return Measurement(
            a / b, f"{series_a} at {r.x_text(x_a)} {a:.3f} / {series_b} at {r.x_text(x_b)} {b:.3f}"
        )

    return measure


def largest_ratio(numerator: str, denominator: str, xs: Sequence[float] = ()):
    """Largest numerator / denominator (of the means) over the x values (all, or ``xs``): the
    ratio of a gain "up to N %" (``claims.paper_gain``)."""
    return _extreme_ratio(max, numerator, denominator, xs)


def least_favourable(relation: str, *measures, label: str = "cases"):
    """A comparison over several cases (e.g. one per delay): each of ``measures`` gives the
    per-seed ratios of one case (``compare_at``, ``ratios_per_seed``); the claim is judged on
    the case where ``relation`` is least supported (``claims.least_supported``), so it holds
    only if it holds in every case. The detail lists every case's mean."""

    def measure(r) -> Measurement:
        found = [m(r) for m in measures]
        worst = found[least_supported(relation, found)]
        others = "; ".join(f"{m.value:.2f} ({m.detail})" for m in found if m is not worst)
        detail = f"least favourable of {len(found)} {label}: {worst.detail}"
        return Measurement(
            worst.value, detail + (f"; others: {others}" if others else ""), worst.samples
        )

    return measure


def mean_ratio_per_seed(numerator: str, denominator: str, xs: Sequence[float] = ()):
    """A comparison over a range of x as a whole: for each seed, the mean over the x values
    (all, or ``xs``) of numerator / denominator; the samples are those per-seed means."""

    def measure(r) -> Measurement:
        per_seed: dict = {}
        for x in xs or r.xs:
            a, b = r.per_seed(numerator, x), r.per_seed(denominator, x)
            for seed in set(a) & set(b):
                if b[seed] > 0:
                    per_seed.setdefault(seed, []).append(a[seed] / b[seed])
        if not per_seed:
            raise ClaimUnavailable(f"{denominator} is 0 everywhere")
        values = tuple(math.fsum(v) / len(v) for _, v in sorted(per_seed.items()))
        means = ", ".join(
            f"{r.x_text(x)}: {r.mean(numerator, x) / r.mean(denominator, x):.2f}"
            for x in (xs or r.xs)
            if r.mean(denominator, x) > 0
        )
        return Measurement(
            math.fsum(values) / len(values),
            f"mean over x of {numerator}/{denominator}: {means}",
            values,
        )

    return measure


def not_run(reason: str):
    """The measure of a claim the reproduction cannot judge (the paper's set-up is not
    described well enough to build): always n/a, with ``reason``."""

    def measure(r) -> Measurement:
        raise ClaimUnavailable(reason)

    return measure


def with_ci(measure: Callable[[object], Measurement], digits: int = 3):
    """``measure`` (one that returns per-seed ``samples``) with the samples' 95 % confidence
    interval put in front of its detail: a number judged against the paper's is a mean over
    seeds, and the reader should see how far the seeds spread."""

    def wrapped(results) -> Measurement:
        m = measure(results)
        if len(m.samples) < 2:
            return m
        ci = mean_ci(m.samples)
        return m._replace(
            detail=f"per seed {ci.mean:.{digits}f}, 95% CI {ci.low:.{digits}f} to "
            f"{ci.high:.{digits}f}, {ci.n} seeds; {m.detail}"
        )

    return wrapped


def largest_ratio_deviation(numerator: str, denominator: str):
    """Largest |numerator / denominator - 1| over the x values, in percent (of the means).
    Kept for the testbed experiments (papers/testbed.py), which judge single runs."""

    def measure(r) -> Measurement:
        ratios = ratios_of_means(r, numerator, denominator)
        worst, at = max(ratios, key=lambda q: abs(q[0] - 1))
        return Measurement(
            100 * abs(worst - 1),
            f"at {r.x_text(at)} ({numerator}/{denominator} {worst:.3f}); ratios "
            + ", ".join(f"{r.x_text(x)}: {q:.3f}" for q, x in ratios),
        )

    return measure


def ratio_of_ratios(numerator: str, denominator: str, x_high: float, x_low: float):
    """How a gain changes along x: numerator / denominator (of the means) at ``x_high`` over the
    same at ``x_low`` ("greater is the RTT better will be the enhancement")."""

    def measure(r: SweepResults) -> Measurement:
        ratios = {x: q for q, x in ratios_of_means(r, numerator, denominator, (x_high, x_low))}
        if x_high not in ratios or x_low not in ratios:
            raise ClaimUnavailable(f"{denominator} is 0 at {r.x_text(x_high)} or {r.x_text(x_low)}")
        return Measurement(
            ratios[x_high] / ratios[x_low],
            f"{numerator}/{denominator} {ratios[x_high]:.3f} at {r.x_text(x_high)}, "
            f"{ratios[x_low]:.3f} at {r.x_text(x_low)}",
        )

    return measure
