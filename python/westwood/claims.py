"""Claims of the paper, kept as data, and their verdicts against reproduced results.

A ``Claim`` is a sentence of the paper turned into a check: a function computing one number from
an experiment's results (``measure``) and the rule that number is judged by. There are two rules:

* **A number the paper gives** (``paper_number``, ``paper_gain``): *reproduced* within ±25 % of
  the paper's number and *partly* within ±50 %, both sides; a gain stated as a percentage ("gains
  up to 394 %") is judged as that gain (the measured ratio minus one), a ratio or a rate as
  itself. ``Claim`` with explicit ``target`` / ``partly`` ranges remains for statements without
  a number that bound a quantity ("BWE within 15 % of the available bandwidth").
* **A comparison** ("X beats Y", "X and Y are equally effective", "X does not reduce Y";
  ``compare``): judged on the per-seed ratios X/Y, their geometric mean and its 95 % Student-t
  confidence interval (taken on the logarithms, so X/Y and Y/X are judged alike and one outlying
  seed does not dominate), with a margin ``m`` (default 5 %) below which a difference is a tie.
  *X > Y* is reproduced when the interval lies above 1 and the mean above 1 + m; partly when
  only one of the two holds; not reproduced otherwise (a tie or the opposite). *X = Y* is
  reproduced when the whole interval lies within 1 ± m, partly when the mean does. *X ≥ Y* ("X
  is not worse than Y") is reproduced when the interval lies above 1 − m, partly when the mean
  does. A comparison on one seed, or on seeds that all give the same number (a deterministic run
  repeated), has no interval: n/a.

Whatever the rule, a claim whose number cannot be computed from the results at hand (e.g. a
reproduction that skipped the x value the claim is about) is *n/a* with the reason, and a claim
that reads a point whose runs fail the experiment's preconditions (a starved or broken scenario:
``experiments/preconditions.py``) is *n/a: degenerate* with the reason, never judged.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, Mapping, NamedTuple, Optional, Sequence, Tuple

from .stats import mean_ci

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
DEGENERATE = "n/a: degenerate"
NOT_AVAILABLE = "n/a"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, DEGENERATE, NOT_AVAILABLE)

# The bands of a number the paper gives, relative to it (issue: "reproduced within ±25 % and
# partly within ±50 %, two-sided").
NEAR = 0.25
LOOSE = 0.50
# A relative difference below which a comparison is a tie: 5 % is about the smallest gap between
# two curves a reader can tell apart in the papers' figures, so a smaller one is no "X beats Y".
TIE_MARGIN = 0.05
CONFIDENCE = 0.95

GREATER = "greater"  # X beats Y
LESS = "less"  # Y beats X
EQUAL = "equal"  # X and Y alike
NOT_BELOW = "not below"  # X not worse than Y (e.g. "TCPW does not reduce Reno's throughput")
NOT_ABOVE = "not above"  # X not better than Y
RELATIONS = (GREATER, LESS, EQUAL, NOT_BELOW, NOT_ABOVE)


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


def around(value: float, fraction: float) -> Range:
    """``value`` ± ``fraction`` of it (the bands of a number the paper gives)."""
    spread = abs(value) * fraction
    return Range(value - spread, value + spread)


class Measurement(NamedTuple):
    """The number a claim is judged on, a short account of where it comes from, and, for a
    comparison, the per-seed values the number is the mean of."""

    value: float
    detail: str = ""
    samples: Tuple[float, ...] = ()


class ClaimUnavailable(Exception):
    """Raised by a claim's ``measure`` when the results do not contain what it needs."""


class Degenerate(ClaimUnavailable):
    """Raised when a claim reads a point whose runs fail the experiment's preconditions; the
    message says which point and why."""


@dataclass(frozen=True)
class Claim:
    text: str  # the claim as checked, e.g. "TCPW/Reno throughput ratio at 1% loss"
    measure: Callable[[Any], Measurement]  # results of the experiment -> the number
    target: Range = Range()  # reproduced when the number is in this range
    partly: Optional[Range] = None  # partly reproduced when in this one (and not in target)
    paper: str = ""  # the paper's words (a quote) and number, e.g. '"gains up to 394%" (4.94)'
    unit: str = ""  # appended to numbers when shown, e.g. "%"
    digits: int = 2  # decimals shown
    why: str = ""  # why this number, this band: what a reviewer needs to accept the rule
    # A comparison (``compare``): GREATER, LESS or EQUAL, judged on the per-seed samples' mean
    # and confidence interval with ``margin``; None: the number is judged against the ranges.
    relation: Optional[str] = None
    margin: float = TIE_MARGIN

    def format(self, value: float) -> str:
        if math.isnan(value):
            return "–"
        return f"{value:.{self.digits}f}{self.unit}"

    def describe_rule(self) -> Tuple[str, str]:
        """(reproduced if, partly if) as text."""
        if self.relation is None:
            partly = self.partly.describe(self.format) if self.partly is not None else "–"
            return self.target.describe(self.format), partly
        hi, lo = 1 + self.margin, 1 - self.margin
        if self.relation == GREATER:
            return (
                f"mean > {hi:g} and 95% CI above 1",
                f"mean > {hi:g} or 95% CI above 1",
            )
        if self.relation == LESS:
            return (
                f"mean < {lo:g} and 95% CI below 1",
                f"mean < {lo:g} or 95% CI below 1",
            )
        if self.relation == NOT_BELOW:
            return f"95% CI above {lo:g}", f"mean above {lo:g}"
        if self.relation == NOT_ABOVE:
            return f"95% CI below {hi:g}", f"mean below {hi:g}"
        return f"95% CI within {lo:g} to {hi:g}", f"mean within {lo:g} to {hi:g}"


def paper_number(
    text: str,
    measure: Callable[[Any], Measurement],
    value: float,
    paper: str,
    *,
    why: str = "",
    unit: str = "",
    digits: int = 2,
) -> Claim:
    """A number the paper gives: reproduced within ±25 %, partly within ±50 % of ``value``."""
    return Claim(
        text,
        measure,
        target=around(value, NEAR),
        partly=around(value, LOOSE),
        paper=paper,
        unit=unit,
        digits=digits,
        why=why,
    )


def paper_gain(
    text: str,
    ratio: Callable[[Any], Measurement],
    gain_percent: float,
    paper: str,
    *,
    why: str = "",
) -> Claim:
    """A gain the paper states in percent ("a 382 % improvement over Reno"): the measured ratio
    ``ratio`` (e.g. TCPW/Reno throughput) is judged as its gain, 100 x (ratio - 1) %, within
    ±25 % (reproduced) or ±50 % (partly) of ``gain_percent``."""

    def gain(results: Any) -> Measurement:
        m = ratio(results)
        return Measurement(100 * (m.value - 1), f"ratio {m.value:.2f}; {m.detail}", m.samples)

    return paper_number(text, gain, gain_percent, paper, why=why, unit="%", digits=0)


def compare(
    text: str,
    ratios: Callable[[Any], Measurement],
    relation: str,
    paper: str,
    *,
    margin: float = TIE_MARGIN,
    why: str = "",
    digits: int = 2,
) -> Claim:
    """A comparison judged on per-seed ratios (``ratios`` returns them as ``samples``)."""
    if relation not in RELATIONS:
        raise ValueError(f"relation must be one of {RELATIONS}, not {relation!r}")
    return Claim(
        text, ratios, paper=paper, why=why, relation=relation, margin=margin, digits=digits
    )


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


class RatioStatistics(NamedTuple):
    """Per-seed ratios summarised: the geometric mean and its confidence interval (arithmetic
    when a ratio is 0, whose logarithm does not exist)."""

    n: int
    mean: float
    low: float
    high: float
    geometric: bool


def ratio_statistics(samples: Sequence[float], confidence: float = CONFIDENCE) -> RatioStatistics:
    values = [float(s) for s in samples if not math.isnan(float(s))]
    if values and min(values) > 0:
        ci = mean_ci([math.log(v) for v in values], confidence)
        if math.isnan(ci.half_width):
            return RatioStatistics(ci.n, math.exp(ci.mean), math.nan, math.nan, True)
        return RatioStatistics(ci.n, math.exp(ci.mean), math.exp(ci.low), math.exp(ci.high), True)
    ci = mean_ci(values, confidence)
    return RatioStatistics(ci.n, ci.mean, ci.low, ci.high, False)


def _compared(claim: Claim, m: Measurement) -> Tuple[str, str, float]:
    """(verdict, measured text, value) of a comparison from its per-seed samples."""
    samples = [float(s) for s in m.samples if not math.isnan(float(s))]
    if len(samples) < 2:
        return (
            NOT_AVAILABLE,
            f"n/a: {len(samples)} seed(s); a comparison needs a confidence interval",
            math.nan,
        )
    if max(samples) == min(samples):
        return (
            NOT_AVAILABLE,
            f"n/a: all {len(samples)} seeds give {samples[0]:.{claim.digits}f}: the runs do not "
            "vary with the seed, so there is no confidence interval to judge on",
            math.nan,
        )
    stats = ratio_statistics(samples)
    kind = "geometric mean" if stats.geometric else "mean (a seed's ratio is 0)"
    text = (
        f"{claim.format(stats.mean)} ({kind} of {stats.n} seeds, 95% CI "
        f"{claim.format(stats.low)} to {claim.format(stats.high)})"
        + (f"; {m.detail}" if m.detail else "")
    )
    hi, lo = 1 + claim.margin, 1 - claim.margin
    if claim.relation == EQUAL:
        if lo <= stats.low and stats.high <= hi:
            return REPRODUCED, text, stats.mean
        return (PARTLY if lo <= stats.mean <= hi else NOT_REPRODUCED), text, stats.mean
    if claim.relation == NOT_BELOW:
        if stats.low >= lo:
            return REPRODUCED, text, stats.mean
        return (PARTLY if stats.mean >= lo else NOT_REPRODUCED), text, stats.mean
    if claim.relation == NOT_ABOVE:
        if stats.high <= hi:
            return REPRODUCED, text, stats.mean
        return (PARTLY if stats.mean <= hi else NOT_REPRODUCED), text, stats.mean
    if claim.relation == GREATER:
        beyond, significant = stats.mean > hi, stats.low > 1
    else:
        beyond, significant = stats.mean < lo, stats.high < 1
    if beyond and significant:
        return REPRODUCED, text, stats.mean
    return (PARTLY if beyond or significant else NOT_REPRODUCED), text, stats.mean


def comparison_verdict(relation: str, measurement: Measurement, margin: float = TIE_MARGIN) -> str:
    """The verdict ``compare`` would give ``measurement`` (its per-seed samples) for
    ``relation``."""
    return _compared(
        Claim("", lambda r: measurement, relation=relation, margin=margin), measurement
    )[0]


# A comparison "at every x" or "in every case" fails where it is least supported.
_SUPPORT = {NOT_REPRODUCED: 0, NOT_AVAILABLE: 1, PARTLY: 2, REPRODUCED: 3}


def _wrong_way(relation: str, mean: float) -> float:
    """How far a mean ratio lies against ``relation`` (larger: less support)."""
    if relation in (GREATER, NOT_BELOW):
        return -mean
    if relation in (LESS, NOT_ABOVE):
        return mean
    return abs(math.log(mean)) if mean > 0 else math.inf


def least_supported(
    relation: str, measurements: Sequence[Measurement], margin: float = TIE_MARGIN
) -> int:
    """The index of the measurement that supports ``relation`` least: the worst verdict as a
    comparison (an interval that does not clear the margin counts, not only the mean), ties
    broken by the mean lying farthest against the relation."""
    return min(
        range(len(measurements)),
        key=lambda i: (
            _SUPPORT.get(comparison_verdict(relation, measurements[i], margin), 1),
            -_wrong_way(relation, measurements[i].value),
        ),
    )


def judge(claim: Claim, results: Any) -> Verdict:
    """Evaluate ``claim`` on ``results`` (whatever its experiment kind passes to measures)."""
    target, partly = claim.describe_rule()
    try:
        m = claim.measure(results)
    except Degenerate as why:
        return Verdict(
            claim.text, claim.paper, math.nan, f"degenerate — {why}", target, partly, DEGENERATE
        )
    except ClaimUnavailable as why:
        return Verdict(
            claim.text, claim.paper, math.nan, f"n/a: {why}", target, partly, NOT_AVAILABLE
        )
    value = float(m.value)
    if claim.relation is not None:
        verdict, measured, value = _compared(claim, m)
        return Verdict(claim.text, claim.paper, value, measured, target, partly, verdict)
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


def paired_ratios(
    numerator: Mapping[int, float], denominator: Mapping[int, float]
) -> Tuple[Dict[int, float], str]:
    """``{seed: numerator / denominator}`` over the seeds both have (a seed whose denominator
    is 0 is left out), and a note of what was left out."""
    common = sorted(set(numerator) & set(denominator))
    ratios = {s: numerator[s] / denominator[s] for s in common if denominator[s] > 0}
    dropped = len(common) - len(ratios)
    return ratios, (f"{dropped} seed(s) with a zero denominator left out" if dropped else "")


def mean_of_ratios(ratios: Mapping[int, float], detail: str, note: str = "") -> Measurement:
    """A comparison's measurement from per-seed ratios: their (geometric) mean as
    ``ratio_statistics`` takes it, the detail, the samples in seed order."""
    values = tuple(ratios[s] for s in sorted(ratios))
    return Measurement(
        ratio_statistics(values).mean, detail + (f"; {note}" if note else ""), values
    )


SKIPPED = "skipped"


def skipped_verdict(verdict: Verdict, reason: str) -> Verdict:
    """``verdict`` (n/a for want of points) restated as skipped: the points it needed were not
    run on this machine, for ``reason``. Other verdicts are returned unchanged."""
    if verdict.verdict != NOT_AVAILABLE:
        return verdict
    return dataclasses.replace(verdict, measured=f"skipped: {reason}", verdict=SKIPPED)


def verdict_counts(verdicts: Sequence[Any]) -> Dict[str, int]:
    """How many verdicts of each kind (``Verdict`` objects or their dicts), in VERDICTS order
    and then any other (e.g. skipped)."""
    counts: Dict[str, int] = {}
    for v in verdicts:
        key = str(v["verdict"] if isinstance(v, dict) else v.verdict)
        counts[key] = counts.get(key, 0) + 1
    order = list(VERDICTS) + sorted(k for k in counts if k not in VERDICTS)
    return {k: counts[k] for k in order if k in counts}


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
