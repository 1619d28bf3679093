"""Mean and Student-t confidence interval over seeds, without SciPy; Jain's fairness index."""

from __future__ import annotations

import math
from typing import Any, Iterable, Mapping, NamedTuple, Optional, Sequence


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction for the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_two_sided_tail(t: float, df: float) -> float:
    """P(|T| > t) for Student's t with ``df`` degrees of freedom."""
    t = abs(t)
    return betainc(df / 2.0, 0.5, df / (df + t * t))


def t_quantile(confidence: float, df: float) -> float:
    """The t with P(|T| <= t) = confidence (e.g. 0.95 and df=2 -> 4.303)."""
    if not 0.0 < confidence < 1.0:
        raise ValueError("confidence must be in (0, 1)")
    if df <= 0:
        raise ValueError("df must be positive")
    alpha = 1.0 - confidence
    lo, hi = 0.0, 1.0
    while t_two_sided_tail(hi, df) > alpha:
        hi *= 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if t_two_sided_tail(mid, df) > alpha:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-12 * max(1.0, hi):
            break
    return (lo + hi) / 2.0


class MeanCI(NamedTuple):
    n: int
    mean: float
    half_width: float  # NaN when n < 2

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> MeanCI:
    """Sample mean and the half-width of its Student-t confidence interval."""
    xs = [float(v) for v in values if v is not None and not math.isnan(float(v))]
    n = len(xs)
    if n == 0:
        return MeanCI(0, math.nan, math.nan)
    mean = math.fsum(xs) / n
    if n < 2:
        return MeanCI(n, mean, math.nan)
    var = math.fsum((x - mean) ** 2 for x in xs) / (n - 1)
    return MeanCI(n, mean, t_quantile(confidence, n - 1) * math.sqrt(var / n))


def jain_index(values: Iterable[float]) -> float:
    """Jain's fairness index (sum x)^2 / (n * sum x^2): 1 for equal shares, 1/n when one value
    takes everything; all zeros count as equal (1). NaN for no values. Same definition as the
    simulator's ``westwood_simulator::metrics::jain_index``."""
    xs = [float(v) for v in values]
    if not xs:
        return math.nan
    squares = math.fsum(x * x for x in xs)
    if squares == 0.0:
        return 1.0
    return min(1.0, math.fsum(xs) ** 2 / (len(xs) * squares))


def fairness(
    summary: Mapping[str, Any], flows: Optional[Sequence[str]] = None, key: str = "goodput_bps"
) -> float:
    """Jain's index over the named flows of a run summary (all of them by default), on ``key``.

    The summary itself carries the index over all flows (``summary["fairness"]["index"]``) and
    per congestion control (``summary["per_cc"][cc]["fairness_index"]``); this computes it for any
    subset, e.g. ``fairness(result.summary, ["ftp.1", "ftp.3"])``."""
    records = {f["name"]: f for f in summary.get("flows", [])}
    names = list(records) if flows is None else list(flows)
    missing = [n for n in names if n not in records]
    if missing:
        raise KeyError(f"no flow named {missing[0]!r}; the run has: {', '.join(records)}")
    return jain_index(records[n][key] for n in names)
