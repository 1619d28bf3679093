"""Claims of the paper, kept as data, and their verdicts against reproduced results.

A ``Claim`` is a sentence of the paper turned into a check: a function computing one number from
an experiment's results (``measure``), the range that number must fall in for the claim to be
*reproduced* (``target``) and a looser range for *partly* reproduced (``partly``). Anything else
is *not reproduced*; a claim whose number cannot be computed from the results at hand (e.g. a
reproduction that skipped the x value the claim is about) is *n/a*, with the reason.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, NamedTuple, Optional

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
NOT_AVAILABLE = "n/a"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_AVAILABLE)


class Range(NamedTuple):
    """Closed interval ``[low, high]``; either end may be infinite."""

    low: float = -math.inf
    high: float = math.inf

    def __contains__(self, value: object) -> bool:  # type: ignore[override]
        return isinstance(value, (int, float)) and self.low <= value <= self.high

    def describe(self, fmt: Callable[[float], str]) -> str:
        if math.isinf(self.low) and math.isinf(self.high):
            return "any value"
        if math.isinf(self.high):
            return f"≥ {fmt(self.low)}"
        if math.isinf(self.low):
            return f"≤ {fmt(self.high)}"
        return f"{fmt(self.low)} to {fmt(self.high)}"


def at_least(value: float) -> Range:
    return Range(low=value)


def at_most(value: float) -> Range:
    return Range(high=value)


def between(low: float, high: float) -> Range:
    return Range(low, high)


class Measurement(NamedTuple):
    """The number a claim is judged on, and a short account of where it comes from."""

    value: float
    detail: str = ""


class ClaimUnavailable(Exception):
    """Raised by a claim's ``measure`` when the results do not contain what it needs."""


@dataclass(frozen=True)
class Claim:
    text: str  # the claim as checked, e.g. "TCPW/Reno throughput ratio at 1% loss >= 3"
    measure: Callable[[Any], Measurement]  # results of the experiment -> the number
    target: Range  # reproduced when the number is in this range
    partly: Optional[Range] = None  # partly reproduced when in this one (and not in target)
    paper: str = ""  # what the paper says or reports, e.g. "4.94 (394 % gain)"
    unit: str = ""  # appended to numbers when shown, e.g. "%"
    digits: int = 2  # decimals shown

    def format(self, value: float) -> str:
        if math.isnan(value):
            return "–"
        return f"{value:.{self.digits}f}{self.unit}"


@dataclass(frozen=True)
class Verdict:
    claim: str
    paper: str
    value: float  # NaN when n/a
    measured: str  # the value as text, with its detail
    target: str
    partly: str
    verdict: str

    def as_dict(self) -> Dict[str, Any]:
        return {
            "claim": self.claim,
            "paper": self.paper,
            "value": None if math.isnan(self.value) else self.value,
            "measured": self.measured,
            "target": self.target,
            "partly": self.partly,
            "verdict": self.verdict,
        }


def judge(claim: Claim, results: Any) -> Verdict:
    """Evaluate ``claim`` on ``results`` (whatever its experiment kind passes to measures)."""
    target = claim.target.describe(claim.format)
    partly = claim.partly.describe(claim.format) if claim.partly is not None else "–"
    try:
        m = claim.measure(results)
    except ClaimUnavailable as why:
        return Verdict(
            claim.text, claim.paper, math.nan, f"n/a: {why}", target, partly, NOT_AVAILABLE
        )
    value = float(m.value)
    measured = claim.format(value) + (f" ({m.detail})" if m.detail else "")
    if math.isnan(value):
        verdict = NOT_AVAILABLE
    elif value in claim.target:
        verdict = REPRODUCED
    elif claim.partly is not None and value in claim.partly:
        verdict = PARTLY
    else:
        verdict = NOT_REPRODUCED
    return Verdict(claim.text, claim.paper, value, measured, target, partly, verdict)


SKIPPED = "skipped"


def skipped_verdict(verdict: Verdict, reason: str) -> Verdict:
    """``verdict`` (n/a for want of points) restated as skipped: the points it needed were not
    run on this machine, for ``reason``. Other verdicts are returned unchanged."""
    if verdict.verdict != NOT_AVAILABLE:
        return verdict
    return dataclasses.replace(verdict, measured=f"skipped: {reason}", verdict=SKIPPED)


CLAIM_HEADER = ("Claim", "Paper", "Measured", "Reproduced if", "Partly if", "Verdict")


def claims_table(verdicts) -> Dict[str, Any]:
    """Verdicts as a text table (same shape as ``report.result_table``)."""
    return {
        "header": list(CLAIM_HEADER),
        "rows": [[v.claim, v.paper, v.measured, v.target, v.partly, v.verdict] for v in verdicts],
    }


def markdown_claims(verdicts) -> str:
    if not verdicts:
        return ""
    table = claims_table(verdicts)
    lines = ["| " + " | ".join(table["header"]) + " |", "|" + "---|" * len(table["header"])]
    for row in table["rows"]:
        cells = [str(c).replace("|", "\\|") for c in row]
        cells[-1] = f"**{cells[-1]}**"
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
