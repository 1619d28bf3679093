"""Seed 000: Casetti, Gerla, Mascolo, Sanadidi, Wang, "TCP Westwood: End-to-End Congestion Control
for Wired/Wireless Networks" (Wireless Networks 8, 2002).

Figures 3 and 9 (``fig3``, ``fig9``) are the headline experiments of ``westwood reproduce
--quick``; the paper's other simulated figures and tables follow. Figures 19-20 and table 1 are
Internet measurements and are not simulated. Figure 7 is a lab test bed in the paper; it is
simulated here.

How claims about a gain are judged (one rule for every such claim of this paper, ``gain_claim``):
with the paper's gain g (394 % is g = 3.94, a TCPW/Reno ratio of 4.94), the measured ratio is
*reproduced* in [1 + g/2, 1 + 2g], *partly* when at least 1 + g/4 (TCPW still gains a quarter of
the paper's gain, or gains more than twice as much), *not reproduced* below.
"""

from __future__ import annotations

import math
from typing import Dict, Tuple

from ..claims import Claim, ClaimUnavailable, Measurement, at_least, at_most, between
from ..experiments.base import GOODPUT_MBPS, Axis, Metric, Series, fairness_metric, per_cc_metric
from ..experiments.sweep import Experiment, SweepResults, ratio_at, spread_at, x_of_largest_ratio
from ..experiments.table import TableExperiment, cell_ratio
from ..experiments.trace import TraceExperiment, worst_step_error
from ..experiments.window import (
    CWND,
    SEQUENCE,
    SSTHRESH,
    SeriesTraceExperiment,
    curve_ratio,
    flow_ratio_of_ratios,
)
from .which_tcpw import (
    OTHERS,
    RENO_NS2,
    RENO_NS2_LABEL,
    fig9_claim,
    fig10_claim,
    mix_claim,
    mix_label,
)

RENO = Series("Reno", {"cc": "reno"})
SACK = Series("SACK", {"cc": "sack"})
TCPW = Series("TCPW", {"cc": "westwood"})
COMPARED = (RENO, SACK, TCPW)  # §5: "We compare the throughput of TCPW to that of Reno and SACK"

# --- figs. 3 and 9, the headline experiments ---------------------------------------------------

RENO_FAMILY = (
    Series("Reno", {"cc": "reno"}),
    Series("NewReno", {"cc": "newreno"}),
)
WESTWOOD_FAMILY = (
    Series("TCPW", {"cc": "westwood"}),
    Series("TCPW TR", {"cc": "westwood-tr"}),
    Series("TCPW ABSE", {"cc": "westwood-abse"}),
    Series("Westwood+", {"cc": "westwood-plus"}),
)


def tcpw_variant_series() -> Tuple[Series, ...]:
    """The TCPWs other than the paper's as series of a one-flow sweep (which_tcpw.py), and the
    Reno they are compared with where it is not the scenario's (ns-2.35's, for the UCLA agents):
    figs. 9 and 10 compare them with TCPW."""
    variants = tuple(Series(v.label, dict(v.single)) for v in OTHERS)
    if any(v.baseline == RENO_NS2_LABEL for v in OTHERS):
        variants += (Series(RENO_NS2_LABEL, dict(RENO_NS2), style="dashed"),)
    return variants


def _fig9_ratio_claim(label: str, baseline: str = "Reno") -> Claim:
    return Claim(
        fig9_claim(label),
        ratio_at(1, label, baseline),
        target=at_least(3),
        partly=at_least(1.5),
        paper='4.94 ("TCPW gains up to 394% over Reno", at 1%)',
    )


FIG3 = TraceExperiment(
    id="fig3",
    title="Bandwidth estimate under UDP ON/OFF traffic",
    paper="seed 000 §4.1, fig. 3",
    scenario="udp_onoff",
    series=WESTWOOD_FAMILY,
    flow="tcp",
    bottleneck="bottleneck",
    headline=True,
    description="One TCP flow shares a 5 Mbps / 30 ms bottleneck with two 1 Mbps UDP "
    "ON/OFF sources; the flow's bandwidth estimate (BWE) is compared with the bandwidth "
    "the UDP sources leave, step by step. The scenario has no random component, so "
    "one seed is the default (every seed gives the same trace).",
    claims=(
        Claim(
            "BWE within 15% of the available bandwidth in every step (after settling)",
            worst_step_error("TCPW"),
            target=at_most(15),
            partly=at_most(30),
            paper="fig. 3: BWE follows the 5, 4, 3, 4, 3, 4, 5 Mb/s steps",
            unit="%",
            digits=1,
        ),
    ),
)

FIG9 = Experiment(
    id="fig9",
    title="Throughput vs. wireless packet error rate",
    paper="seed 000 §5.1, fig. 9",
    scenario="wireless",
    x=Axis(
        parameter="loss",
        values=(0, 0.5, 1, 1.5, 2, 3, 4, 5),
        label="Packet error rate",
        unit="%",
        # Runs are cheap (~0.05 s of CPU for 60 s simulated): the full axis in quick too.
        quick_values=(0, 0.5, 1, 1.5, 2, 3, 4, 5),
    ),
    series=RENO_FAMILY + WESTWOOD_FAMILY + tcpw_variant_series(),
    metric=GOODPUT_MBPS,
    seeds=10,
    headline=True,
    description="Bulk transfer over a wired path with a lossy wireless last hop; "
    "goodput of the single flow as the wireless packet error rate grows. Beside the "
    "paper's TCPW: the same with interval-weighted samples, and the authors' ns-2 agents "
    "with ns-2.35's TCP defaults beside Reno with the same (dashed; docs/westwood.md).",
    claims=(
        _fig9_ratio_claim("TCPW"),
        Claim(
            "TCPW's largest gain over Reno (throughput ratio) lies between 0.5% and 2% loss",
            x_of_largest_ratio("TCPW", "Reno"),
            target=between(0.5, 2),
            partly=between(0, 3),
            paper='"This gain occurs at a realistic packet error probability of 1%"',
            unit="%",
            digits=1,
        ),
        Claim(
            "At 0% loss all protocols within 10% of each other",
            spread_at(0),
            target=at_most(10),
            partly=at_most(20),
            paper="fig. 9: the curves meet at 0% loss",
            unit="%",
            digits=1,
        ),
    )
    + tuple(_fig9_ratio_claim(v.label, v.baseline) for v in OTHERS),
)


def gain_claim(text: str, measure, paper_ratio: float, paper: str, digits: int = 2) -> Claim:
    """A TCPW/Reno ratio judged by the module's rule: the gain (ratio - 1) within a factor 2 of
    the paper's gain, partly when at least a quarter of it."""
    gain = paper_ratio - 1
    return Claim(
        text,
        measure,
        target=between(1 + gain / 2, 1 + 2 * gain),
        partly=at_least(1 + gain / 4),
        paper=paper,
        digits=digits,
    )


def largest_ratio(numerator: str, denominator: str):
    """Claim measure: the largest ``numerator / denominator`` ratio over the x values."""

    def measure(r: SweepResults) -> Measurement:
        ratios = []
        for x in r.xs:
            b = r.mean(denominator, x)
            if b > 0:
                ratios.append((r.mean(numerator, x) / b, x))
        if not ratios:
            raise ClaimUnavailable(f"{denominator} is 0 everywhere")
        best, at = max(ratios)
        return Measurement(
            best, f"at {r.x_text(at)}; " + ", ".join(f"{r.x_text(x)}: {q:.2f}" for q, x in ratios)
        )

    return measure


def ratio_growth(numerator: str, denominator: str, x_low: float, x_high: float):
    """Claim measure: (ratio at ``x_high``) / (ratio at ``x_low``): > 1 when the gain grows."""
    low, high = ratio_at(x_low, numerator, denominator), ratio_at(x_high, numerator, denominator)

    def measure(r: SweepResults) -> Measurement:
        a, b = high(r).value, low(r).value
        return Measurement(
            a / b,
            f"{numerator}/{denominator} {a:.2f} at {r.x_text(x_high)}, "
            f"{b:.2f} at {r.x_text(x_low)}",
        )

    return measure


def cross_ratio(series_a: str, x_a: float, series_b: str, x_b: float):
    """Claim measure: mean of ``series_a`` at ``x_a`` over mean of ``series_b`` at ``x_b``."""

    def measure(r: SweepResults) -> Measurement:
        a, b = r.mean(series_a, x_a), r.mean(series_b, x_b)
        if b <= 0:
            raise ClaimUnavailable(f"{series_b} is 0 at {r.x_text(x_b)}")
        return Measurement(
            a / b, f"{series_a} at {r.x_text(x_a)} {a:.4f} / {series_b} at {r.x_text(x_b)} {b:.4f}"
        )

    return measure


def least_share(series: str, xs, reference_x: float):
    """Claim measure: the smallest mean of ``series`` over ``xs``, relative to its mean at
    ``reference_x`` (Reno's per-flow goodput in mixes relative to 5 Reno alone)."""

    def measure(r: SweepResults) -> Measurement:
        ref = r.mean(series, reference_x)
        if ref <= 0:
            raise ClaimUnavailable(f"{series} is 0 at {r.x_text(reference_x)}")
        values = [(r.mean(series, x) / ref, x) for x in xs if x in r.xs]
        if not values:
            raise ClaimUnavailable("none of the mixes was run")
        low, at = min(values)
        return Measurement(
            low,
            f"lowest at {r.x_text(at)}; " + ", ".join(f"{r.x_text(x)}: {q:.2f}" for q, x in values),
        )

    return measure


# --- figs. 4-5: sequence numbers of a 50 ms and a 200 ms RTT flow ----------------------------

RTT_FAIRNESS = "seed000_rtt_fairness"
LONG_SHORT = "long/short RTT goodput ratio"


def _rtt_series(queue: str):
    tag = "drop-tail" if queue == "droptail" else "RED"
    return (
        Series(f"Reno, {tag}", {"cc": "reno", "queue": queue}),
        Series(f"TCPW, {tag}", {"cc": "westwood", "queue": queue}),
    )


FIG4 = SeriesTraceExperiment(
    id="fig4",
    title="Sequence numbers of 50 ms and 200 ms RTT flows, drop-tail bottleneck",
    paper="seed 000 §4.2, fig. 4",
    scenario=RTT_FAIRNESS,
    series=_rtt_series("droptail"),
    curves=(SEQUENCE,),
    flows=("short", "long"),
    seeds=1,
    description="Two bulk flows of the same protocol, RTT 50 ms (`short`) and 200 ms (`long`), "
    "share a 5 Mbps drop-tail bottleneck; sequence numbers (highest sent, in segments) vs. time. "
    "The drop-tail scenario has no random component, so one seed.",
    claims=(
        Claim(
            "TCPW's long/short goodput ratio over Reno's >= 1.1 (the long flow gets a larger "
            "share under TCPW)",
            flow_ratio_of_ratios("TCPW, drop-tail", "Reno, drop-tail", "long", "short"),
            target=at_least(1.1),
            partly=at_least(1.0),
            paper='"TCPW provides better fairness than Reno across different propagation times"',
        ),
    ),
)

FIG5 = SeriesTraceExperiment(
    id="fig5",
    title="Sequence numbers of 50 ms and 200 ms RTT flows, RED bottleneck",
    paper="seed 000 §4.2, fig. 5",
    scenario=RTT_FAIRNESS,
    series=_rtt_series("red") + _rtt_series("droptail"),
    curves=(SEQUENCE,),
    flows=("short", "long"),
    seeds=10,
    description="Figure 4's set-up with a RED bottleneck (ns-2's default RED parameters); the "
    "drop-tail series are repeated so that the effect of RED can be judged. RED drops at random: "
    "5 seeds.",
    claims=(
        Claim(
            "With RED, TCPW's long/short goodput ratio over Reno's >= 1.1",
            flow_ratio_of_ratios("TCPW, RED", "Reno, RED", "long", "short"),
            target=at_least(1.1),
            partly=at_least(1.0),
            paper='"In all cases ... TCPW provides better fairness than Reno"',
        ),
        Claim(
            "RED improves Reno's long/short ratio (RED over drop-tail >= 1)",
            flow_ratio_of_ratios("Reno, RED", "Reno, drop-tail", "long", "short"),
            target=at_least(1.0),
            partly=at_least(0.9),
            paper='"both protocols benefit from RED, as far as fairness is concerned"',
        ),
        Claim(
            "RED improves TCPW's long/short ratio (RED over drop-tail >= 1)",
            flow_ratio_of_ratios("TCPW, RED", "TCPW, drop-tail", "long", "short"),
            target=at_least(1.0),
            partly=at_least(0.9),
            paper='"the improvement in TCPW due to RED was higher than the improvement in Reno"',
        ),
    ),
)


# --- §4.3 friendliness table and fig. 7 -------------------------------------------------------

FRIENDLINESS = "seed000_friendliness"


def _all_flows_mean(summary) -> float:
    flows = summary.get("flows", [])
    return math.fsum(float(f["goodput_bps"]) for f in flows) / len(flows) if flows else math.nan


def _tcpw_mean(summary) -> float:
    """Mean goodput per flow of the Westwood variant of a mix: every flow that is not Reno (the
    rows run one variant, TCPW or another; NaN without one)."""
    groups = [e for cc, e in summary.get("per_cc", {}).items() if cc != "reno"]
    flows = sum(int(e["flows"]) for e in groups)
    return math.fsum(float(e["total_goodput_bps"]) for e in groups) / flows if flows else math.nan


def _mix_claim(label: str) -> Claim:
    """§4.3's friendliness number for one TCPW: its mean per-flow goodput over Reno's in the mix."""
    row = mix_label(label)
    return Claim(
        mix_claim(label),
        cell_ratio(row, "tcpw_mbps", row, "reno_mbps"),
        target=between(1.0, 1.35),
        partly=between(1.0, 2.0),
        paper='0.1078 / 0.0913 = 1.18 ("departs from fair share by 16%")',
        digits=3,
    )


SEC4_3 = TableExperiment(
    id="sec4_3",
    title="Friendliness: 20 flows on a 2 Mbps, 100 ms RTT bottleneck",
    paper="seed 000 §4.3 (numbers in the text)",
    scenario=FRIENDLINESS,
    rows=(
        Series("20 TCPW", {"cc_a": "westwood", "cc_b": "westwood"}),
        Series("20 Reno", {"cc_a": "reno", "cc_b": "reno"}),
        Series("10 TCPW + 10 Reno", {"cc_a": "westwood", "cc_b": "reno"}),
    )
    # The same mix for the TCPWs other than the paper's (which_tcpw.py).
    + tuple(Series(mix_label(v.label), {**v.group_a, "cc_b": "reno"}) for v in OTHERS),
    metrics=(
        Metric("all_mbps", "Mean per flow (Mb/s)", extract=_all_flows_mean, divisor=1e6),
        Metric("tcpw_mbps", "Mean per TCPW flow (Mb/s)", extract=_tcpw_mean, divisor=1e6),
        per_cc_metric("reno_mbps", "Mean per Reno flow (Mb/s)", "reno"),
        fairness_metric("jain", "Jain's index"),
    ),
    seeds=10,
    headline=True,
    quick_duration="100s",
    description="Mean goodput per flow of each protocol with 20 TCPW, 20 Reno, and 10 of each "
    "sharing the bottleneck (the paper: 0.0994, 0.0992, and 0.1078 TCPW vs 0.0913 Reno Mb/s).",
    claims=(
        Claim(
            "20 TCPW and 20 Reno get the same mean per-flow goodput (ratio 0.95 to 1.05)",
            cell_ratio("20 TCPW", "all_mbps", "20 Reno"),
            target=between(0.95, 1.05),
            partly=between(0.9, 1.1),
            paper="0.0994 / 0.0992 = 1.00",
            digits=3,
        ),
        _mix_claim("TCPW"),
        Claim(
            "Reno in the mix keeps >= 85% of its all-Reno per-flow goodput (not starved)",
            cell_ratio("10 TCPW + 10 Reno", "reno_mbps", "20 Reno", "all_mbps"),
            target=at_least(0.85),
            partly=at_least(0.6),
            paper='0.0913 / 0.0992 = 0.92 ("TCP Reno loses 8%")',
            digits=3,
        ),
    )
    + tuple(_mix_claim(v.label) for v in OTHERS),
)


def _mix(n: float) -> Dict[str, str]:
    """5 flows with ``n`` Reno: group a = TCPW, group b = Reno (a group is never empty)."""
    n = int(round(n))
    if n == 0:
        return {"count_a": "4", "cc_a": "westwood", "count_b": "1", "cc_b": "westwood"}
    if n == 5:
        return {"count_a": "4", "cc_a": "reno", "count_b": "1", "cc_b": "reno"}
    return {"count_a": str(5 - n), "cc_a": "westwood", "count_b": str(n), "cc_b": "reno"}


_TCPW_MEAN = per_cc_metric("goodput_mbps", "Mean throughput per flow (Mb/s)", "westwood")
_RENO_MEAN = per_cc_metric("goodput_mbps", "Mean throughput per flow (Mb/s)", "reno")

FIG7 = Experiment(
    id="fig7",
    title="Mean throughput per flow vs. number of Reno flows (5 flows in all)",
    paper="seed 000 §4.3, fig. 7",
    scenario=FRIENDLINESS,
    x=Axis(
        parameter="reno_flows",
        values=(0, 1, 2, 3, 4, 5),
        quick_values=(0, 1, 2, 3, 4, 5),
        label="Reno connections out of 5",
        expand=_mix,
    ),
    series=(
        Series("TCPW, no errors", {"loss": "0%"}, metric=_TCPW_MEAN),
        Series("Reno, no errors", {"loss": "0%"}, metric=_RENO_MEAN),
        Series("TCPW, 1% loss", {"loss": "1%"}, metric=_TCPW_MEAN),
        Series("Reno, 1% loss", {"loss": "1%"}, metric=_RENO_MEAN),
    ),
    metric=_TCPW_MEAN,
    quick_duration="100s",
    seeds=10,
    description="5 bulk flows, x of them Reno and the others TCPW, on the §4.3 bottleneck "
    "(2 Mbps, 100 ms RTT), without errors and with 1% packet loss; mean goodput per flow of "
    "each protocol (empty where the mix has no flow of it).",
    claims=(
        gain_claim(
            "At 1% loss, 5 TCPW get more than 5 Reno (per-flow goodput ratio)",
            cross_ratio("TCPW, 1% loss", 0, "Reno, 1% loss", 5),
            1.10,
            '"5 TCPW get 10% more throughput than 5 TCP Reno" (1.10)',
            digits=3,
        ),
        Claim(
            "Reno not starved at 1% loss: Reno's per-flow goodput in every mix >= 80% of 5 Reno's",
            least_share("Reno, 1% loss", (1, 2, 3, 4), 5),
            target=at_least(0.8),
            partly=at_least(0.5),
            paper='"the introduction of TCPW connections ... reduces the average throughput of '
            'a Reno connection only by a minimal amount"',
        ),
        Claim(
            "Reno not starved without errors: Reno's per-flow goodput in every mix >= 80% of "
            "5 Reno's",
            least_share("Reno, no errors", (1, 2, 3, 4), 5),
            target=at_least(0.8),
            partly=at_least(0.5),
            paper='"friendliness is preserved ... Reno connections are not starved"',
        ),
    ),
)


# --- figs. 10-11: the wireless path, vs. wired delay and vs. wireless rate ---------------------


def _fig10_claim(label: str, baseline: str = "Reno") -> Claim:
    return gain_claim(
        fig10_claim(label),
        largest_ratio(label, baseline),
        6.67,
        '6.67 ("a significant gain for TCPW of up to 567%")',
    )


FIG10 = Experiment(
    id="fig10",
    title="Throughput vs. one-way wired propagation delay (1% loss)",
    paper="seed 000 §5.1, fig. 10",
    scenario="wireless",
    x=Axis(
        parameter="wired_delay",
        values=(0, 5, 10, 25, 50, 75, 100, 150, 200, 250),
        quick_values=(0, 50, 100, 250),
        label="One-way wired propagation delay",
        unit="ms",
    ),
    series=COMPARED + tcpw_variant_series(),
    metric=GOODPUT_MBPS,
    overrides={"loss": "1%"},
    seeds=10,
    headline=True,
    description="The fig. 9 path (scenarios/wireless.toml) at 1% packet error rate; the wired "
    "link's one-way delay varies from 0 to 250 ms.",
    claims=(
        _fig10_claim("TCPW"),
        Claim(
            "The largest TCPW/Reno ratio is at a delay of 50 to 150 ms",
            x_of_largest_ratio("TCPW", "Reno"),
            target=between(50, 150),
            partly=between(25, 200),
            paper='"at a propagation time of 100 ms"',
            unit=" ms",
            digits=0,
        ),
        Claim(
            "At 0 ms all protocols are about equally effective (TCPW/Reno <= 1.2)",
            ratio_at(0, "TCPW", "Reno"),
            target=at_most(1.2),
            partly=at_most(1.5),
            paper='"When the propagation time is small (say, less than 5 ms), all protocols are '
            'equally effective"',
        ),
    )
    + tuple(_fig10_claim(v.label, v.baseline) for v in OTHERS),
)

FIG11 = Experiment(
    id="fig11",
    title="Throughput vs. wireless link capacity (0.5% loss)",
    paper="seed 000 §5.1, fig. 11",
    scenario="wireless",
    x=Axis(
        parameter="wireless_rate",
        values=(1, 2, 4, 6, 8),
        quick_values=(2, 8),
        label="Wireless link capacity",
        unit="Mbps",
    ),
    series=COMPARED,
    metric=GOODPUT_MBPS,
    overrides={"loss": "0.5%"},
    seeds=10,
    description="The fig. 9 path at 0.5% packet error rate and the default 45 ms wired delay; "
    "the wireless link's rate varies up to 8 Mbps.",
    claims=(
        gain_claim(
            "TCPW/Reno throughput ratio at 8 Mbps",
            ratio_at(8, "TCPW", "Reno"),
            6.5,
            '6.5 ("increases to approximately 550% when the wireless link speed reaches 8 Mbps")',
        ),
        Claim(
            "The gain grows with the capacity: ratio at 8 Mbps over ratio at 2 Mbps >= 1.2",
            ratio_growth("TCPW", "Reno", 2, 8),
            target=at_least(1.2),
            partly=at_least(1.0),
            paper='"TCPW gains also increase significantly as the bottleneck link transmission '
            'speed increases"',
        ),
    ),
)


# --- figs. 12-13: cwin and ssthresh over the lossy link ---------------------------------------

FIG12_13 = SeriesTraceExperiment(
    id="fig12_13",
    title="cwin and ssthresh of TCPW and Reno over the lossy link (1% loss)",
    paper="seed 000 §5.1, figs. 12-13",
    scenario="wireless",
    series=(TCPW, RENO),
    curves=(CWND, SSTHRESH),
    flows=("ftp",),
    overrides={"loss": "1%"},
    seeds=10,
    headline=True,
    description="The fig. 9 path at 1% packet error rate; congestion window and slow-start "
    "threshold (segments) of the one flow, TCPW (fig. 12) and Reno (fig. 13).",
    claims=(
        Claim(
            "TCPW's mean cwnd over Reno's >= 1.5",
            curve_ratio("cwnd_bytes", "TCPW", "Reno", "ftp"),
            target=at_least(1.5),
            partly=at_least(1.1),
            paper='figs. 12-13: "The graphs show the improved" window of TCPW (no number)',
        ),
        Claim(
            "TCPW's mean ssthresh over Reno's >= 1.5",
            curve_ratio("ssthresh_bytes", "TCPW", "Reno", "ftp"),
            target=at_least(1.5),
            partly=at_least(1.1),
            paper="figs. 12-13 (no number)",
        ),
    ),
)


# --- the Snoop/ELN and BA-TCP points -----------------------------------------------------------


def _ber_point(label: str, cc: str, ber: str, wired_delay: str) -> Series:
    return Series(
        f"{label}: {'TCPW' if cc == 'westwood' else 'Reno'}",
        {
            "cc": cc,
            "links.wireless.errors": f'{{ model = "ber", rate = "{ber}", direction = "both" }}',
            "wired_delay": wired_delay,
        },
    )


SNOOP = "Snoop/ELN point (1 bit in 64 KB, 135 ms)"
BATCP = "BA-TCP point (1 bit in 100 KB, 40 ms)"

SEC5_1_POINTS = TableExperiment(
    id="sec5_1_points",
    title="TCPW vs Reno at the Snoop/ELN and BA-TCP comparison points",
    paper="seed 000 §5.1 (numbers in the text)",
    scenario="wireless",
    rows=(
        _ber_point(SNOOP, "reno", "1 bit in 64KB", "67.49ms"),
        _ber_point(SNOOP, "westwood", "1 bit in 64KB", "67.49ms"),
        _ber_point(BATCP, "reno", "1 bit in 100KB", "19.99ms"),
        _ber_point(BATCP, "westwood", "1 bit in 100KB", "19.99ms"),
    ),
    metrics=(GOODPUT_MBPS,),
    seeds=10,
    description="The fig. 9 path with bit errors (both directions) instead of packet errors, "
    "and the wired delay set for the round-trip propagation time of the comparison: "
    "2 x (67.49 + 0.01) ms = 135 ms and 2 x (19.99 + 0.01) ms = 40 ms. KB = 1000 bytes.",
    claims=(
        gain_claim(
            "TCPW/Reno throughput ratio at the Snoop/ELN point",
            cell_ratio(f"{SNOOP}: TCPW", "goodput_mbps", f"{SNOOP}: Reno"),
            4.82,
            '4.82 ("TCPW provides a 382% improvement over Reno")',
        ),
        gain_claim(
            "TCPW/Reno throughput ratio at the BA-TCP point",
            cell_ratio(f"{BATCP}: TCPW", "goodput_mbps", f"{BATCP}: Reno"),
            2.61,
            '2.61 ("the throughput improvement at the same parameter values is 161%")',
        ),
    ),
)


# --- figs. 15-17: Gilbert-Elliott fading and blackouts ----------------------------------------

GILBERT = "seed000_gilbert"
FADING = {"mean_good": "8s", "mean_bad": "4s", "loss_good": "0.001%"}

FIG15 = Experiment(
    id="fig15",
    title="Throughput vs. packet error rate in the Bad state (fading)",
    paper="seed 000 §5.2.1, fig. 15",
    scenario=GILBERT,
    x=Axis(
        parameter="loss_bad",
        values=(0, 1, 2, 5, 10, 15, 20, 30),
        quick_values=(0, 5, 30),
        label="Packet error rate in the Bad state",
        unit="%",
    ),
    series=COMPARED,
    metric=GOODPUT_MBPS,
    overrides=FADING,
    seeds=10,
    description="The fig. 8 path with a Gilbert-Elliott channel: mean Good 8 s, mean Bad 4 s, "
    "0.001% loss in Good; the loss in Bad varies from 0 to 30%.",
    claims=(
        gain_claim(
            "Largest TCPW/Reno throughput ratio over the Bad-state error rates",
            largest_ratio("TCPW", "Reno"),
            4.0,
            '4.0 ("TCPW increases the throughput by as much as 300%")',
        ),
        Claim(
            "The largest TCPW/Reno ratio is at a Bad-state error rate of 2 to 10%",
            x_of_largest_ratio("TCPW", "Reno"),
            target=between(2, 10),
            partly=between(1, 15),
            paper='"This is achieved when the error rate in the Bad state is 5%"',
            unit="%",
            digits=0,
        ),
    ),
)

FIG16 = Experiment(
    id="fig16",
    title="Throughput vs. wireless link capacity, two-state error model (5% in Bad)",
    paper="seed 000 §5.2.1, fig. 16",
    scenario=GILBERT,
    x=Axis(
        parameter="wireless_rate",
        values=(1, 2, 4, 6, 8, 10),
        quick_values=(2, 10),
        label="Wireless link capacity",
        unit="Mbps",
    ),
    series=COMPARED,
    metric=GOODPUT_MBPS,
    overrides={**FADING, "loss_bad": "5%"},
    seeds=10,
    description="Figure 15's fading channel with 5% loss in Bad; the wireless rate varies up "
    "to 10 Mbps.",
    claims=(
        gain_claim(
            "TCPW/Reno throughput ratio at 10 Mbps",
            ratio_at(10, "TCPW", "Reno"),
            5.0,
            '5.0 ("at 10 Mbps link speed, a remarkable 400% throughput improvement")',
        ),
        Claim(
            "The gain grows with the capacity: ratio at 10 Mbps over ratio at 2 Mbps >= 1.2",
            ratio_growth("TCPW", "Reno", 2, 10),
            target=at_least(1.2),
            partly=at_least(1.0),
            paper='"TCPW improvement increases as the speed of the wireless link ... increases"',
        ),
    ),
)


def _blackout(x: float) -> Dict[str, str]:
    """A mean blackout of 0 s is the channel without blackouts (Bad as lossy as Good)."""
    return {"mean_bad": "1s", "loss_bad": "0.001%"} if x == 0 else {}


FIG17 = Experiment(
    id="fig17",
    title="Throughput vs. mean blackout duration",
    paper="seed 000 §5.2.2, fig. 17",
    scenario=GILBERT,
    x=Axis(
        parameter="mean_bad",
        values=(0, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5),
        quick_values=(0, 0.1, 0.5),
        label="Mean blackout duration",
        unit="s",
        expand=_blackout,
    ),
    series=COMPARED,
    metric=GOODPUT_MBPS,
    overrides={"mean_good": "4s", "loss_good": "0.001%", "loss_bad": "100%"},
    seeds=10,
    description="The fig. 8 path with blackouts: Good 4 s on average (0.001% loss), Bad = "
    "every packet lost, of mean length 0 to 0.5 s (0: no blackouts).",
    claims=(
        gain_claim(
            "TCPW/Reno throughput ratio at a mean blackout of 0.1 s",
            ratio_at(0.1, "TCPW", "Reno"),
            2.67,
            '2.67 ("167% over Reno and SACK when the mean blackout duration is 0.1 s")',
        ),
        Claim(
            "Long blackouts affect all protocols about equally: TCPW/Reno at 0.5 s <= 1.5",
            ratio_at(0.5, "TCPW", "Reno"),
            target=at_most(1.5),
            partly=at_most(2.5),
            paper='"For longer blackouts, TCP timeouts occur and all protocols are equally '
            'affected"',
        ),
    ),
)


# --- fig. 18: LEO satellite with handoffs -----------------------------------------------------

FIG18 = Experiment(
    id="fig18",
    title="Throughput vs. LEO satellite link capacity (handoffs)",
    paper="seed 000 §5.3, fig. 18",
    scenario="seed000_leo",
    x=Axis(
        parameter="rate",
        values=(1, 2, 4, 6, 8, 10),
        quick_values=(1, 10),
        label="Satellite link capacity",
        unit="Mbps",
    ),
    series=COMPARED,
    metric=GOODPUT_MBPS,
    seeds=10,
    description="One flow over a LEO hop (100 ms one way, 0.1% errors, a 100 ms handoff every "
    "4 s losing every packet) as its rate varies.",
    claims=(
        Claim(
            'TCPW/Reno throughput ratio at 10 Mbps >= 2 ("major improvements ... especially '
            'at high speeds")',
            ratio_at(10, "TCPW", "Reno"),
            target=at_least(2),
            partly=at_least(1.2),
            paper="fig. 18 (no number in the text)",
        ),
        Claim(
            "The gain grows with the capacity: ratio at 10 Mbps over ratio at 1 Mbps >= 1.2",
            ratio_growth("TCPW", "Reno", 1, 10),
            target=at_least(1.2),
            partly=at_least(1.0),
            paper='"especially at high speeds"',
        ),
    ),
)


EXPERIMENTS = [
    FIG3,
    FIG9,
    FIG4,
    FIG5,
    SEC4_3,
    FIG7,
    FIG10,
    FIG11,
    FIG12_13,
    SEC5_1_POINTS,
    FIG15,
    FIG16,
    FIG17,
    FIG18,
]
