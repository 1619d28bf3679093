"""Seed 004: Bennaceur et al., "Measurements of TCPW ABSE fairness and friendliness", §3 (LAN),
here in simulation: TCPW ABSE (``westwood-abse``) vs. NewReno on a 2.2 ms RTT bottleneck.

* ``seed004_fig3``: Jain's fairness index vs. number of parallel FTP sessions (2 to 19), each
  protocol alone (``scenarios/seed004_lan_single.toml``).
* ``seed004_fig5_newreno`` / ``seed004_fig5_abse``: n NewReno vs. 10 - n TCPW ABSE sessions
  (n = 1..9), the mean rate of a NewReno, resp. a TCPW ABSE, session
  (``scenarios/seed004_lan.toml``; the experiment sets ``n_a = 10 - n``).

The internet measurements (§4, figs 7-10) are not simulations and are not reproduced here.
60 s runs, 1 seed: the LAN scenarios have no random component (every seed gives the same
numbers, as a 3-seed run showed).
"""

from __future__ import annotations

from ..claims import Claim, at_least, at_most, between
from ..experiments.base import Axis, Series, fairness_metric, per_cc_metric
from ..experiments.sweep import Experiment
from . import _common as c

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

EXPERIMENTS = [FIG3, FIG5_NEWRENO, FIG5_ABSE]
