"""How every command prints a rate and a time (issue 33's one unit policy): rates in Mb/s,
RTTs in ms, with the digits a value needs (µs below 1 ms, more digits for slow rates), so a
LAN's RTT never reads 0.0 ms and a 64 kbit/s flow never reads 0.000 Mb/s."""

from __future__ import annotations

import math
from typing import Optional


def _missing(value: Optional[float]) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def mbps(bps: Optional[float]) -> str:
    """``bps`` (bit/s) in Mb/s: three decimals, three significant digits below 0.01 Mb/s."""
    if _missing(bps):
        return "-"
    value = bps / 1e6
    return f"{value:.3f}" if value == 0 or abs(value) >= 0.01 else f"{value:.3g}"


def ms(seconds: Optional[float]) -> str:
    """``seconds`` in ms: one decimal, three (µs) below 1 ms."""
    if _missing(seconds):
        return "-"
    value = seconds * 1e3
    return f"{value:.1f}" if abs(value) >= 1 else f"{value:.3f}"


def ms_range(low: float, high: float) -> str:
    """``low``-``high`` seconds as ms, with as many decimals as it takes to tell them apart
    (up to µs): "1.1-1.4 ms", not "1-1 ms"."""
    for digits in range(0, 4):
        a, b = f"{low * 1e3:.{digits}f}", f"{high * 1e3:.{digits}f}"
        if a != b or digits == 3:
            return f"{a}-{b} ms"
    raise AssertionError("unreachable")
