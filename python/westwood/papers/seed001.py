"""Seed 001: Casetti, Gerla, Lee, Mascolo, Sanadidi, "TCP with Faster Recovery" (UCLA CSD TR
#200017). TCPW here is the paper's variant, ``westwood-tr`` (constant-gain filter, threshold
reduction factor), against Reno and SACK.

* fig1 / fig4-style BWE traces (``seed001_fig1``, ``seed001_fig4``): the bandwidth estimate of
  one TCPW-TR flow under two 9 Mb/s ON/OFF UDP sources on a 45 Mb/s / 100 ms path, without and
  with 10^-4 losses (``scenarios/seed001_onoff.toml``).
* figs 2-3 (``seed001_fig2_3``) and 4-5 (``seed001_fig4_5``): cwnd and ssthresh of TCPW-TR and
  Reno in that scenario, without and with the 10^-4 losses (window experiments).
* fig. 6 (``seed001_fig6``): the goodput of TCPW-TR, TCPW and Reno over the non-lossy and the
  lossy link.
* figs 7-9 (``seed001_fig7``..``fig9``) and 10-12 (``seed001_fig10``..``fig12``): average goodput
  per connection vs. number of connections, bottleneck capacity and one-way delay, with a
  60 s ON/OFF UDP source at 90 % of the bottleneck, without / with 10^-4 losses
  (``scenarios/seed001_bursty.toml``). 600 s runs as in the paper, one seed (the only random
  component is the 10^-4 loss; the runs cost up to ~8 s each at 150 Mb/s).
"""

from __future__ import annotations

import math

from ..claims import Claim, ClaimUnavailable, Measurement, at_least, at_most, between
from ..experiments import trace as traces
from ..experiments.base import Axis, Series
from ..experiments.sweep import Experiment, ratio_at
from ..experiments.trace import TraceExperiment
from ..experiments.window import CWND, SSTHRESH, SeriesTraceExperiment, curve_ratio
from . import _common as c

TCPW = Series("TCPW", {"cc": "westwood-tr"})
RENO = Series("Reno", {"cc": "reno"})
SACK = Series("SACK", {"cc": "sack"})
LOSSY = "0.01%"  # the paper's 10^-4 loss event probability


def mean_step_error(series: str):
    """Claim measure: mean over steps (with samples after settling) of the per-step relative
    BWE error of ``series``, percent."""

    def measure(results: traces.TraceResults) -> Measurement:
        judged = [s for s in results.series_steps(series) if s.relative_percent.n > 0]
        if not judged:
            raise ClaimUnavailable("no step has BWE samples after settling")
        values = [s.relative_percent.mean for s in judged]
        return Measurement(
            math.fsum(values) / len(values),
            "per step: "
            + ", ".join(f"{s.step.label} {s.relative_percent.mean:.0f}%" for s in judged),
        )

    return measure


def _trace(id_: str, lossy: bool, figure: str) -> TraceExperiment:
    return TraceExperiment(
        id=id_,
        title="BWE of TCPW under 9 Mb/s ON/OFF UDP traffic, 45 Mb/s bottleneck"
        + (", lossy link (10^-4)" if lossy else ""),
        paper=f"seed 001 §V-A, {figure}",
        scenario="seed001_onoff",
        series=(
            Series("TCPW", {"cc": "westwood-tr"}),
            Series("TCPW (seed 000 filter)", {"cc": "westwood"}),
        ),
        flow="tcp",
        bottleneck="bottleneck",
        overrides={"loss": LOSSY if lossy else "0%"},
        quick_duration="200s",
        seeds=2 if lossy else 1,
        description="One TCP flow (TCPW-TR, and for comparison seed 000's TCPW) shares a 45 Mb/s "
        "/ 100 ms FIFO bottleneck with two 9 Mb/s ON/OFF UDP sources (ON at 50 s and 100 s, "
        "OFF-ON-OFF at 150/250/350 s, OFF at 400 s, a 2 s burst at 459 s); per step, the BWE "
        "against the bandwidth the UDP sources leave"
        + (
            ". Bernoulli losses 10^-4 on the data path (2 seeds)."
            if lossy
            else " (no random component: 1 seed)."
        ),
        claims=(
            Claim(
                "TCPW's BWE tracks the available bandwidth: mean per-step error",
                mean_step_error("TCPW"),
                target=at_most(15),
                partly=at_most(30),
                paper="fig. 1: BWE tracks the 45/36/27/36/27/36/45 Mb/s steps, with overestimate "
                "spikes and slower upward convergence (no number)",
                unit="%",
                digits=1,
            ),
            Claim(
                "TCPW's BWE in its worst step",
                traces.worst_step_error("TCPW"),
                target=at_most(30),
                partly=at_most(50),
                paper='fig. 1: "upward transitions show a slower convergence"',
                unit="%",
                digits=1,
            ),
        ),
    )


FIG6 = Experiment(
    id="seed001_fig6",
    title="Goodput of one TCP flow under ON/OFF UDP traffic, non-lossy and lossy link",
    paper="seed 001 §V-A, fig. 6",
    scenario="seed001_onoff",
    x=Axis(
        parameter="loss",
        values=(0, 0.01),
        label="Loss probability",
        unit="%",
        quick_values=(0, 0.01),
    ),
    series=(TCPW, Series("TCPW (seed 000 filter)", {"cc": "westwood"}), RENO),
    metric=c.all_flows_goodput_metric("goodput_mbps", "Goodput (Mbps)"),
    seeds=2,
    quick_duration="200s",
    description="The scenario of figs 1-5 (500 s): goodput of the TCP flow, the number behind "
    "figs 2-5's cwnd/ssthresh traces (Reno's ssthresh forced back after each burst of losses, "
    "TCPW's reset to BWE x RTTmin) and fig. 6's comparison. 2 seeds.",
    claims=(
        Claim(
            "TCPW/Reno goodput ratio, no random losses",
            ratio_at(0, "TCPW", "Reno"),
            target=at_least(1.05),
            partly=at_least(0.95),
            paper='figs 2-3, 6: TCPW "resets ssthresh compatibly with the available bandwidth" '
            "while Reno's is forced back (no number)",
        ),
        Claim(
            "TCPW/Reno goodput ratio, lossy link (10^-4)",
            ratio_at(0.01, "TCPW", "Reno"),
            target=at_least(2),
            partly=at_least(1.2),
            paper='figs 4-6: "repeated losses floor Reno", TCPW resumes "almost unhindered" '
            "(no number)",
        ),
    ),
)


def _bursty(
    id_: str, fig: str, lossy: bool, axis: Axis, fixed: dict, what: str, claims
) -> Experiment:
    overrides = {"loss": LOSSY if lossy else "0%"}
    overrides.update(fixed)
    return Experiment(
        id=id_,
        title=f"Goodput per connection vs. {what}, 60 s ON/OFF UDP at 90%"
        + (", lossy link" if lossy else ""),
        paper=f"seed 001 §V-{'C' if lossy else 'B'}, {fig}",
        scenario="seed001_bursty",
        x=axis,
        series=(TCPW, RENO, SACK),
        metric=c.all_flows_goodput_metric(),
        overrides=overrides,
        seeds=1,
        quick_duration="120s",
        description="TCP connections share a FIFO bottleneck with a UDP source ON 60 s / OFF 60 s "
        "at 90 % of the bottleneck; 600 s runs as in the paper, 1 seed"
        + (
            " (the 10^-4 losses are the only random component)."
            if lossy
            else " (no random component)."
        ),
        claims=claims,
    )


def _tcpw_vs(other: str, text: str, paper: str, target: float, partly: float, xs=()):
    return Claim(
        f"TCPW/{other} goodput ratio, smallest over the x values{text}",
        c.smallest_ratio("TCPW", other, xs),
        target=at_least(target),
        partly=at_least(partly),
        paper=paper,
    )


CONNECTIONS = Axis(
    "flows", (1, 2, 5, 10, 20, 30), "Number of connections", quick_values=(1, 10, 30)
)
BANDWIDTH = Axis(
    "bw", (2, 10, 45, 100, 150), "Bottleneck capacity (Mb/s)", quick_values=(2, 45, 150)
)
DELAY = Axis(
    "delay", (10, 50, 100, 200, 500, 1000), "One-way delay", unit="ms", quick_values=(10, 200, 1000)
)

FIG7 = _bursty(
    "seed001_fig7",
    "fig. 7",
    False,
    CONNECTIONS,
    {"bw": "45", "delay": "500ms"},
    "number of connections",
    (
        _tcpw_vs("Reno", "", '"TCP Westwood constantly outperforms Reno" (no number)', 1.05, 0.95),
        Claim(
            "TCPW/SACK goodput ratio with 1 connection",
            ratio_at(1, "TCPW", "SACK"),
            target=at_least(1.05),
            partly=at_least(0.8),
            paper='"a very high goodput when few other connections are present" (no number)',
        ),
    ),
)
FIG8 = _bursty(
    "seed001_fig8",
    "fig. 8",
    False,
    BANDWIDTH,
    {"flows": "10", "delay": "500ms"},
    "bottleneck capacity",
    (
        Claim(
            "TCPW/SACK goodput ratio at 150 Mb/s",
            ratio_at(150, "TCPW", "SACK"),
            target=at_least(1.05),
            partly=at_least(0.9),
            paper='"At the highest tested capacity (150 Mb/s) TCP Westwood outperforms the '
            'standard TCP versions"',
        ),
        Claim(
            "TCPW/Reno goodput ratio at 150 Mb/s",
            ratio_at(150, "TCPW", "Reno"),
            target=at_least(1.05),
            partly=at_least(0.9),
            paper="same sentence",
        ),
    ),
)
FIG9 = _bursty(
    "seed001_fig9",
    "fig. 9",
    False,
    DELAY,
    {"flows": "10", "bw": "45"},
    "one-way delay",
    (
        _tcpw_vs(
            "Reno", "", '"Westwood performs better than Reno under all tested RTTs"', 1.0, 0.9
        ),
        _tcpw_vs(
            "SACK",
            " ≥ 200 ms",
            'only "slightly outperformed by Sack if the end-to-end delay is smaller than 0.2 s"',
            1.0,
            0.9,
            xs=(200, 500, 1000),
        ),
        Claim(
            "TCPW/SACK goodput ratio at 10 ms (slightly below 1)",
            ratio_at(10, "TCPW", "SACK"),
            target=between(0.8, 1.0),
            partly=between(0.6, 1.1),
            paper='"slightly outperformed by Sack" below 0.2 s',
        ),
    ),
)
LOSSY_PAPER = (
    '"TCP Westwood is particularly suited for lossy links, under almost all scenarios" (no number)'
)
FIG10 = _bursty(
    "seed001_fig10",
    "fig. 10",
    True,
    CONNECTIONS,
    {"bw": "45", "delay": "500ms"},
    "number of connections",
    (
        _tcpw_vs("Reno", "", LOSSY_PAPER, 1.2, 1.0),
        _tcpw_vs("SACK", "", LOSSY_PAPER, 1.0, 0.9),
    ),
)
FIG11 = _bursty(
    "seed001_fig11",
    "fig. 11",
    True,
    BANDWIDTH,
    {"flows": "10", "delay": "500ms"},
    "bottleneck capacity",
    (
        _tcpw_vs("Reno", "", LOSSY_PAPER, 1.2, 1.0),
        _tcpw_vs("SACK", "", LOSSY_PAPER, 1.0, 0.9),
    ),
)
FIG12 = _bursty(
    "seed001_fig12",
    "fig. 12",
    True,
    DELAY,
    {"flows": "10", "bw": "45"},
    "one-way delay",
    (
        _tcpw_vs("Reno", "", LOSSY_PAPER, 1.2, 1.0),
        _tcpw_vs("SACK", "", LOSSY_PAPER, 1.0, 0.9),
    ),
)


def _windows(id_: str, lossy: bool, figs: str) -> SeriesTraceExperiment:
    return SeriesTraceExperiment(
        id=id_,
        title="cwnd and ssthresh of TCPW and Reno under 9 Mb/s ON/OFF UDP traffic"
        + (", lossy link (10^-4)" if lossy else ""),
        paper=f"seed 001 §V-A, {figs}",
        scenario="seed001_onoff",
        series=(TCPW, RENO),
        curves=(CWND, SSTHRESH),
        flows=("tcp",),
        overrides={"loss": LOSSY if lossy else "0%"},
        quick_duration="200s",
        skip_seconds=50.0,
        seeds=2 if lossy else 1,
        description="The fig. 1 scenario (500 s); congestion window and slow-start threshold "
        "(segments) of the TCP flow, TCPW-TR and Reno; means from 50 s (the first UDP ON)"
        + (". 10^-4 losses, 2 seeds." if lossy else ", 1 seed (no random component)."),
        claims=(
            Claim(
                "TCPW's mean ssthresh over Reno's (from 50 s)",
                curve_ratio("ssthresh_bytes", "TCPW", "Reno", "tcp"),
                target=at_least(1.5 if lossy else 1.2),
                partly=at_least(1.1 if lossy else 1.0),
                paper=(
                    'figs 4-5: "repeated losses floor Reno\'s attempts", TCPW resumes '
                    '"almost unhindered" (no number)'
                    if lossy
                    else "figs 2-3: Reno's ssthresh \"is forced back further and further "
                    'after each burst of losses" (no number)'
                ),
            ),
            Claim(
                "TCPW's mean cwnd over Reno's (from 50 s)",
                curve_ratio("cwnd_bytes", "TCPW", "Reno", "tcp"),
                target=at_least(1.5 if lossy else 1.2),
                partly=at_least(1.1 if lossy else 1.0),
                paper=f"{figs} (no number)",
            ),
        ),
    )


EXPERIMENTS = [
    _trace("seed001_fig1", False, "fig. 1"),
    _windows("seed001_fig2_3", False, "figs 2-3"),
    _trace("seed001_fig4", True, "figs 4-5 (BWE over the lossy link)"),
    _windows("seed001_fig4_5", True, "figs 4-5"),
    FIG6,
    FIG7,
    FIG8,
    FIG9,
    FIG10,
    FIG11,
    FIG12,
]
