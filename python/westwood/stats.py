"""Mean and Student-t confidence interval over seeds, without SciPy."""

from __future__ import annotations

import math
from typing import NamedTuple, Sequence


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
