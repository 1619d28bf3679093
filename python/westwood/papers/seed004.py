"""Seed 004: Bennaceur et al., "Measurements of TCPW ABSE fairness and friendliness", §3 (LAN),
here in simulation: TCPW ABSE (``westwood-abse``) vs. NewReno on a 2.2 ms RTT bottleneck.

* ``seed004_fig2``: the rate of a session vs. the number of parallel FTP sessions (1 to 19), each
  protocol alone (``scenarios/seed004_lan_single.toml``).
* ``seed004_fig3``: Jain's fairness index vs. number of parallel FTP sessions (2 to 19), each
  protocol alone (``scenarios/seed004_lan_single.toml``).
* ``seed004_fig4``: the mean rate of a NewReno and of a TCPW ABSE session when n of each share the
  bottleneck, n = 1..5 (the paper's case: 5 NewReno against 5 TCPW ABSE), ``seed004_lan.toml``.
* ``seed004_fig5_newreno`` / ``seed004_fig5_abse``: n NewReno vs. 10 - n TCPW ABSE sessions
  (n = 1..9), the mean rate of a NewReno, resp. a TCPW ABSE, session
  (``scenarios/seed004_lan.toml``; the experiment sets ``n_a = 10 - n``).

The Internet measurements (§4, figs 7-10) are not simulations: ``westwood measure`` runs them on
one's own paths (docs/measurement.md).
60 s runs, 1 seed: the LAN scenarios have no random component (every seed gives the same
numbers, as a 3-seed run showed).
"""

from __future__ import annotations

from ..claims import Claim, ClaimUnavailable, Measurement, at_least, at_most, between
from ..experiments.base import Axis, Metric, Series, fairness_metric, per_cc_metric
from ..experiments.sweep import Experiment
from . import _common as c


def largest_ratio_deviation(numerator: str, denominator: str):
    """Largest |numerator / denominator - 1| over the x values, in percent."""

    def measure(r) -> Measurement:
        ratios = []
        for x in r.xs:
            b = r.mean(denominator, x)
            if b > 0:
                ratios.append((r.mean(numerator, x) / b, x))
        if not ratios:
            raise ClaimUnavailable(f"{denominator} is 0 everywhere")
        worst, at = max(ratios, key=lambda q: abs(q[0] - 1))
        return Measurement(
            100 * abs(worst - 1),
            f"at {r.x_text(at)} ({numerator}/{denominator} {worst:.3f}); ratios "
            + ", ".join(f"{r.x_text(x)}: {q:.3f}" for q, x in ratios),
        )

    return measure


SESSION_RATE = c.all_flows_goodput_metric("rate_mbps", "Rate per connection (Mbps)")


def session_rate_of(cc: str) -> Metric:
    """The mean rate of one session of ``cc`` in a mix (figs. 4 and 5), Mbps."""
    return per_cc_metric("rate_mbps", "Mean rate per session (Mbps)", cc)


FIG2 = Experiment(
    id="seed004_fig2",
    title="Rate per connection vs. number of connections, TCPW ABSE and NewReno (each alone)",
    paper="seed 004 §3.2, fig. 2",
    scenario="seed004_lan_single",
    x=Axis(
        "n",
        (1, 2, 3, 5, 7, 10, 13, 16, 19),
        "Number of connections",
        quick_values=(1, 2, 10, 19),
    ),
    series=(Series("TCPW ABSE", {"cc": "westwood-abse"}), Series("NewReno", {"cc": "newreno"})),
    metric=SESSION_RATE,
    seeds=1,
    quick_duration="20s",
    description="n FTP sessions of one protocol from one host over a 100 Mb/s, 2.2 ms RTT "
    "bottleneck (bdp buffer); the mean goodput of a session. 60 s, 1 seed (deterministic).",
    claims=(
        Claim(
            "Largest |TCPW ABSE / NewReno - 1| of the rate per connection over 1-19 connections",
            largest_ratio_deviation("TCPW ABSE", "NewReno"),
            target=at_most(10),
            partly=at_most(25),
            paper='fig. 2: "TCPW and TCP New Reno connections share the available bandwidth in '
            "a similar manner ... the same behavior regarding the number of parallel ftp "
            'sessions"',
            unit="%",
            digits=1,
        ),
        Claim(
            "TCPW ABSE / NewReno rate with one connection (no gain on a LAN)",
            c.ratio_of_points("TCPW ABSE", 1, "NewReno", 1),
            target=at_most(1.0),
            partly=at_most(1.05),
            paper="fig. 2, point 1: \"New Reno gives a best rate than Westwood ... TCPW doesn't "
            'offer, in this case, any gain in the rate"',
            digits=3,
        ),
    ),
)

FIG3 = Experiment(
    id="seed004_fig3",
    title="Fairness index vs. number of connections, TCPW ABSE and NewReno (each alone)",
    paper="seed 004 §3.3, fig. 3",
    scenario="seed004_lan_single",
    x=Axis("n", (2, 3, 5, 7, 10, 13, 16, 19), "Number of connections", quick_values=(2, 10, 19)),
    series=(Series("TCPW ABSE", {"cc": "westwood-abse"}), Series("NewReno", {"cc": "newreno"})),
    metric=fairness_metric(),
    seeds=1,
    quick_duration="20s",
    description="n FTP sessions of one protocol from one host over a 100 Mb/s, 2.2 ms RTT "
    "bottleneck (bdp buffer); Jain's index of their goodputs. 60 s, 1 seed (deterministic).",
    claims=(
        Claim(
            "Smallest TCPW ABSE fairness index over 2-19 connections",
            c.smallest_value("TCPW ABSE"),
            target=at_least(0.9),
            partly=at_least(0.8),
            paper='fig. 3: "TCPW ABSE offers a fairness index comparable to those obtained with '
            'TCP New Reno" (near 1)',
        ),
        Claim(
            "Largest |TCPW ABSE - NewReno| fairness index difference",
            c.largest_difference("TCPW ABSE", "NewReno"),
            target=at_most(0.05),
            partly=at_most(0.1),
            paper='"the results performed by TCPW are close to those of TCP New Reno"',
        ),
    ),
)

MIX_AXIS = Axis("n_b", tuple(range(1, 10)), "NewReno connections n (of 10)", quick_values=(1, 5, 9))
MIX_SERIES = (Series("10 sessions", {"cc_a": "westwood-abse", "cc_b": "newreno"}),)
MIX_DESCRIPTION = (
    "n NewReno sessions (from s2) and 10 - n TCPW ABSE sessions (from s1) start together over a "
    "100 Mb/s, 2.2 ms RTT bottleneck; 60 s, 1 seed (deterministic)."
)

FIG5_NEWRENO = c.ComplementExperiment(
    id="seed004_fig5_newreno",
    title="n NewReno vs. 10 - n TCPW ABSE: mean rate of a NewReno session",
    paper="seed 004 §3.4, fig. 5",
    scenario="seed004_lan",
    x=MIX_AXIS,
    series=MIX_SERIES,
    metric=per_cc_metric("newreno_mbps", "Mean NewReno rate (Mbps)", "newreno"),
    seeds=1,
    quick_duration="20s",
    description=MIX_DESCRIPTION,
    complement="n_a",
    total=10,
    claims=(
        Claim(
            "A NewReno session's rate among 9 TCPW ABSE / among 9 NewReno (n = 1 vs n = 9)",
            c.ratio_of_points("10 sessions", 1, "10 sessions", 9),
            target=at_least(0.9),
            partly=at_least(0.75),
            paper='fig. 5: NewReno reaches 225.53 KB/s with 9 TCPW ABSE sessions; "TCPW exhibits '
            'a friendly behavior towards TCP New Reno"',
        ),
    ),
)

FIG5_ABSE = c.ComplementExperiment(
    id="seed004_fig5_abse",
    title="n NewReno vs. 10 - n TCPW ABSE: mean rate of a TCPW ABSE session",
    paper="seed 004 §3.4, fig. 5",
    scenario="seed004_lan",
    x=MIX_AXIS,
    series=MIX_SERIES,
    metric=per_cc_metric("abse_mbps", "Mean TCPW ABSE rate (Mbps)", "westwood-abse"),
    seeds=1,
    quick_duration="20s",
    description=MIX_DESCRIPTION,
    complement="n_a",
    total=10,
    claims=(
        Claim(
            "A TCPW ABSE session's rate among 9 NewReno / among 9 TCPW ABSE (n = 9 vs n = 1)",
            c.ratio_of_points("10 sessions", 9, "10 sessions", 1),
            target=between(0.6, 1.0),
            partly=between(0.5, 1.2),
            paper="fig. 5: TCPW ABSE reaches only 179.15 KB/s with 9 NewReno sessions (0.79 of "
            "NewReno's 225.53 with 9 TCPW ABSE)",
        ),
    ),
)


def _equal_mix(n: float):
    """n sessions of each protocol: ``n_a`` (TCPW ABSE, from s1) is the axis, ``n_b`` follows."""
    return {"n_b": str(int(round(n)))}


FIG4_AXIS = Axis(
    "n_a", (1, 2, 3, 4, 5), "Sessions of each protocol", quick_values=(1, 5), expand=_equal_mix
)
FIG4_SERIES = (
    Series(
        "TCPW ABSE",
        {"cc_a": "westwood-abse", "cc_b": "newreno"},
        metric=session_rate_of("westwood-abse"),
    ),
    Series(
        "NewReno",
        {"cc_a": "westwood-abse", "cc_b": "newreno"},
        metric=session_rate_of("newreno"),
    ),
)
FIG4_CLAIMS = (
    Claim(
        "TCPW ABSE / NewReno mean session rate, 5 against 5",
        c.ratio_of_points("TCPW ABSE", 5, "NewReno", 5),
        target=between(0.8, 1.25),
        partly=between(0.67, 1.5),
        paper='fig. 4 (5 NewReno vs. 5 TCPW ABSE): "the friendliness towards TCP NewReno has '
        'been a goal"; §5: "the fairness and friendliness of this protocol have been once '
        'again proved"',
        digits=3,
    ),
    Claim(
        "Largest |TCPW ABSE / NewReno - 1| of the mean session rate, 1 to 5 of each",
        largest_ratio_deviation("TCPW ABSE", "NewReno"),
        target=at_most(25),
        partly=at_most(50),
        paper="fig. 4: each protocol's mean rate as the number of connections changes",
        unit="%",
        digits=1,
    ),
)

FIG4 = Experiment(
    id="seed004_fig4",
    title="n NewReno vs. n TCPW ABSE sessions: mean rate of a session of each",
    paper="seed 004 §3.4, fig. 4",
    scenario="seed004_lan",
    x=FIG4_AXIS,
    series=FIG4_SERIES,
    metric=FIG4_SERIES[0].metric,
    seeds=1,
    quick_duration="20s",
    description="n TCPW ABSE sessions (from s1) and n NewReno sessions (from s2) start together "
    "over a 100 Mb/s, 2.2 ms RTT bottleneck, n = 1..5; the paper's figure is the 5 against 5 "
    'case (its x axis is not stated: we read "the mean rate achieved by each of the protocols '
    'when the number of connections changes" as n of each). 60 s, 1 seed (deterministic).',
    claims=FIG4_CLAIMS,
)

EXPERIMENTS = [FIG2, FIG3, FIG4, FIG5_NEWRENO, FIG5_ABSE]
