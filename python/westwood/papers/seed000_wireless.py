"""Seed 000: Casetti, Gerla, Mascolo, Sanadidi, Wang, "TCP Westwood: End-to-End Congestion Control
for Wired/Wireless Networks" (Wireless Networks 8, 2002), §5: TCPW in mixed wired/wireless
networks. Fig. 9 (a headline experiment of ``westwood reproduce --quick``) and figs. 10-13 with
independent losses, the Snoop/ELN and BA-TCP points of §5.1, the two-state fading and blackout
channels of §5.2 (figs. 15-17) and the LEO satellite of §5.3 (fig. 18). §4 is in ``seed000.py``.

How claims about a gain are judged (one rule for every such claim of this paper, ``gain_claim``):
with the paper's gain g (394 % is g = 3.94, a TCPW/Reno ratio of 4.94), the measured ratio is
*reproduced* in [1 + g/2, 1 + 2g], *partly* when at least 1 + g/4 (TCPW still gains a quarter of
the paper's gain, or gains more than twice as much), *not reproduced* below.
"""

from __future__ import annotations

from typing import Dict, Tuple

from ..claims import Claim, ClaimUnavailable, Measurement, at_least, at_most, between
from ..experiments.base import GOODPUT_MBPS, Axis, Series
from ..experiments.sweep import Experiment, SweepResults, ratio_at, spread_at, x_of_largest_ratio
from ..experiments.table import TableExperiment, cell_ratio
from ..experiments.window import (
    CWND,
    SSTHRESH,
    SeriesTraceExperiment,
    curve_ratio,
)
from ._common import gain_claim
from .seed000 import WESTWOOD_FAMILY
from .which_tcpw import (
    OTHERS,
    RENO_NS2,
    RENO_NS2_LABEL,
    fig9_claim,
    fig10_claim,
)

RENO = Series("Reno", {"cc": "reno"})
SACK = Series("SACK", {"cc": "sack"})
TCPW = Series("TCPW", {"cc": "westwood"})
COMPARED = (RENO, SACK, TCPW)  # §5: "We compare the throughput of TCPW to that of Reno and SACK"

# --- fig. 9, the headline experiment --------------------------------------------------------

RENO_FAMILY = (
    Series("Reno", {"cc": "reno"}),
    Series("NewReno", {"cc": "newreno"}),
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
    FIG9,
    FIG10,
    FIG11,
    FIG12_13,
    SEC5_1_POINTS,
    FIG15,
    FIG16,
    FIG17,
    FIG18,
]
