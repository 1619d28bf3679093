"""Claim measures shared by the paper modules (kept out of the framework modules)."""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping, Sequence

from ..claims import ClaimUnavailable, Measurement
from ..experiments.base import Metric, Series
from ..experiments.sweep import Experiment
from ..stats import mean_ci


def group_goodput_metric(prefix: str, name: str, label: str, divisor: float = 1e6) -> Metric:
    """Mean goodput of the flows named ``prefix`` or ``prefix.N`` (one flow table)."""

    def extract(summary: Mapping[str, Any]) -> float:
        values = [
            float(f["goodput_bps"])
            for f in summary["flows"]
            if f["name"] == prefix or f["name"].startswith(prefix + ".")
        ]
        return math.fsum(values) / len(values) if values else math.nan

    return Metric(name=name, label=label, divisor=divisor, extract=extract)


def all_flows_goodput_metric(
    name: str = "mean_goodput_mbps", label: str = "Goodput per connection (Mbps)"
) -> Metric:
    """Mean goodput over every bulk flow of the run (the papers' "average goodput")."""

    def extract(summary: Mapping[str, Any]) -> float:
        values = [float(f["goodput_bps"]) for f in summary["flows"]]
        return math.fsum(values) / len(values) if values else math.nan

    return Metric(name=name, label=label, divisor=1e6, extract=extract)


def arrivals_goodput_metric() -> Metric:
    """Seed 002 fig. 17: the mean over connections of each one's goodput (arrivals table 0)."""
    return Metric(
        name="mean_goodput_mbps",
        label="Average throughput per connection (Mbps)",
        divisor=1e6,
        extract=lambda s: s["arrivals"][0]["mean_goodput_bps"],
    )


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


class ComplementExperiment(Experiment):
    """A sweep whose x parameter has a complement: ``complement`` is set to ``total - x`` in
    every run (seed 004 fig. 5: n NewReno vs. 10 - n TCPW ABSE connections)."""

    def __init__(self, *args, complement: str, total: int, **kwargs):
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "complement", complement)
        object.__setattr__(self, "total", total)

    def run_overrides(self, x_value, series: Series, quick, extra=()):
        merged = dict(super().run_overrides(x_value, series, quick, ()))
        merged[self.complement] = str(int(round(self.total - x_value)))
        merged.update(dict(extra))
        return list(merged.items())


def largest_ratio(numerator: str, denominator: str, xs: Sequence[float] = ()):
    """Largest numerator / denominator (of the means) over the x values (all, or ``xs``): the
    ratio of a gain "up to N %" (``claims.paper_gain``)."""
    return _extreme_ratio(max, numerator, denominator, xs)


def least_favourable(relation: str, *measures, label: str = "cases"):
    """A comparison over several cases (e.g. one per delay): each of ``measures`` gives the
    per-seed ratios of one case (``compare_at``, ``ratios_per_seed``); the claim is judged on
    the case where ``relation`` is least supported (``claims.least_supported``), so it holds
    only if it holds in every case. The detail lists every case's mean."""
    from ..claims import least_supported

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
