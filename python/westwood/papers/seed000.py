"""Seed 000: Casetti, Gerla, Mascolo, Sanadidi, Wang, "TCP Westwood: End-to-End Congestion Control
for Wired/Wireless Networks" (Wireless Networks 8, 2002), §4: bandwidth estimation (fig. 3, a
headline experiment of ``westwood reproduce --quick``), fairness between RTTs (figs. 4-5) and
friendliness to Reno (§4.3's numbers and fig. 7; fig. 7 is a lab test bed in the paper, simulated
here and run on real TCP in ``testbed.py``). §5, the wired/wireless figures, is in
``seed000_wireless.py``; figures 19-20 and table 1 are Internet measurements, not simulated.
"""

from __future__ import annotations

import math
from typing import Dict

from ..claims import Claim, ClaimUnavailable, Measurement, at_least, at_most, between
from ..experiments.base import Axis, Metric, Series, fairness_metric, per_cc_metric
from ..experiments.sweep import Experiment, SweepResults
from ..experiments.table import TableExperiment, cell_ratio
from ..experiments.trace import TraceExperiment, worst_step_error
from ..experiments.window import SEQUENCE, SeriesTraceExperiment, flow_ratio_of_ratios
from ._common import gain_claim
from .which_tcpw import OTHERS, mix_claim, mix_label

WESTWOOD_FAMILY = (
    Series("TCPW", {"cc": "westwood"}),
    Series("TCPW TR", {"cc": "westwood-tr"}),
    Series("TCPW ABSE", {"cc": "westwood-abse"}),
    Series("Westwood+", {"cc": "westwood-plus"}),
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


EXPERIMENTS = [FIG3, FIG4, FIG5, SEC4_3, FIG7]
