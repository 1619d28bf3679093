"""Seed 003 (slides): Mascolo, Grieco, Pau, Gerla, Casetti, "End to End Bandwidth Estimation in
TCP to improve Wireless Link Utilization", simulation part.

* ``seed003_client_indep`` / ``seed003_client_burst``: mobile client behind a 2 Mb/s wireless
  hop (100 Mb/s, 62 ms wired), independent (Bernoulli 1-10 %) and burst errors (two-state
  Markov, bad-state loss 0-30 %), single connection, TCPW vs. Reno.
* ``seed003_server_indep`` / ``seed003_server_burst``: the same with the mobile as the sender.
* ``seed003_geo`` / ``seed003_geo_burst``: 10 connections on a GEO link (1.3 Mb/s, 600 ms RTT),
  10 TCPW vs. 10 Reno and the 5 Reno + 5 TCPW friendliness mix, vs. loss rate.

The slides give no durations or burst-channel sojourns; the scenario files say what we chose.
The "multiple connection" variants (9 wired Reno connections besides the measured one) are not
reproduced: the slides do not describe that topology beyond one line.
"""

from __future__ import annotations

from ..claims import Claim, at_least, at_most, between
from ..experiments.base import GOODPUT_MBPS, Axis, Series
from ..experiments.sweep import Experiment
from . import _common as c

TCPW = Series("TCPW", {"cc": "westwood"})
RENO = Series("Reno", {"cc": "reno"})
# Burst errors: seed 000 §5.2's fading channel with the bad-state loss swept (see the scenario).
BURST = (
    '{ model = "gilbert-elliott", mean_good = "8s", mean_bad = "4s", loss_good = "0.001%", '
    'loss_bad = "${loss}" }'
)
INDEP_AXIS = Axis(
    "loss", (1, 2, 4, 6, 8, 10), "Packet loss probability", unit="%", quick_values=(1, 4, 10)
)
BURST_AXIS = Axis(
    "loss", (0, 1, 5, 10, 20, 30), "Bad-state packet loss", unit="%", quick_values=(1, 10, 30)
)


def _wireless(id_, mobile, burst, claims, slide):
    overrides = {"mobile": mobile}
    if burst:
        overrides["topology.wireless_errors"] = BURST
    return Experiment(
        id=id_,
        title=f"Mobile {mobile}: throughput vs. {'bad-state' if burst else 'independent'} loss",
        paper=f"seed 003, {slide}",
        scenario="seed003_wireless",
        x=BURST_AXIS if burst else INDEP_AXIS,
        series=(TCPW, RENO),
        metric=GOODPUT_MBPS,
        overrides=overrides,
        seeds=5,
        quick_duration="60s",
        description="One connection, the mobile as "
        f"{'receiver' if mobile == 'client' else 'sender'}; "
        "wired 100 Mb/s / 62 ms, wireless 2 Mb/s / 0.01 ms with "
        + (
            "a two-state Markov channel (mean good 8 s, mean bad 4 s, 0.001 % loss in good)"
            if burst
            else "Bernoulli errors"
        )
        + " in both directions; 200 s, 5 seeds.",
        claims=claims,
    )


def _gain(paper, lo, hi, partly_lo):
    return Claim(
        "TCPW's largest throughput gain over Reno",
        c.largest_gain_percent("TCPW", "Reno"),
        target=between(lo, hi),
        partly=at_least(partly_lo),
        paper=paper,
        unit="%",
        digits=0,
    )


def _converge(x=30):
    return Claim(
        f"TCPW/Reno throughput ratio at {x}% bad-state loss (the two converge)",
        c.smallest_ratio("TCPW", "Reno", xs=(x,)),
        target=at_most(1.25),
        partly=at_most(1.5),
        paper='"For loss rate greater than 20% TCPW and Reno tend to the same throughput"',
    )


GEO_SERIES = (
    Series("Reno (10 Reno)", {"cc_a": "reno", "cc_b": "reno"}),
    Series("TCPW (10 TCPW)", {"cc_a": "westwood", "cc_b": "westwood"}),
    Series("Reno (5 Reno + 5 TCPW)", {"cc_a": "reno", "cc_b": "westwood"}),
    Series("TCPW (5 Reno + 5 TCPW)", {"cc_a": "westwood", "cc_b": "reno"}),
)


def _geo(id_, burst, claims):
    return Experiment(
        id=id_,
        title="GEO satellite, 10 connections: mean throughput per connection vs. "
        + ("bad-state loss" if burst else "loss"),
        paper="seed 003, Geo Satellite scenario" + (" (burst errors)" if burst else ""),
        scenario="seed003_geo",
        x=BURST_AXIS
        if burst
        else Axis(
            "loss",
            (0, 0.1, 0.5, 1, 2, 5),
            "Packet loss probability",
            unit="%",
            quick_values=(0, 1, 5),
        ),
        series=GEO_SERIES,
        metric=c.group_goodput_metric(
            "a", "mean_goodput_mbps", "Mean throughput per connection (Mbps)"
        ),
        overrides={"topology.bottleneck_errors": BURST} if burst else {},
        seeds=3,
        quick_duration="100s",
        description="10 TCP connections share a 1.3 Mb/s GEO hop (600 ms RTT) with "
        + ("two-state Markov (burst) errors" if burst else "Bernoulli errors")
        + "; each line is the mean throughput of 5 connections (s1-s5) of the protocol named "
        "first, with the other 5 running the protocol in parentheses. 300 s, 3 seeds.",
        claims=claims,
    )


FRIENDLY = Claim(
    "Reno's throughput with 5 TCPW / with 5 Reno, mean over loss rates",
    c.mean_ratio("Reno (5 Reno + 5 TCPW)", "Reno (10 Reno)"),
    target=at_least(0.9),
    partly=at_least(0.75),
    paper='"putting 5 Reno and 5 TCPW connection shows TCPW does not reduce the throughput of '
    'Reno connection"',
)

EXPERIMENTS = [
    _wireless(
        "seed003_client_indep",
        "client",
        False,
        (
            _gain(
                '"TCPW improves throughput up to 163% with respect to TCP Reno in single '
                'connection"',
                110,
                250,
                50,
            ),
        ),
        "mobile client, independent errors",
    ),
    _wireless(
        "seed003_client_burst",
        "client",
        True,
        (
            _gain('"Throughput improvement in single connection is from 66 to 578%"', 300, 800, 66),
            _converge(),
        ),
        "mobile client, burst errors",
    ),
    _wireless(
        "seed003_server_indep",
        "server",
        False,
        (
            Claim(
                "TCPW/Reno throughput ratio, smallest over loss rates",
                c.smallest_ratio("TCPW", "Reno"),
                target=at_least(1.2),
                partly=at_least(1.0),
                paper="mobile server, independent errors: plot only (TCPW above Reno)",
            ),
        ),
        "mobile server, independent errors",
    ),
    _wireless(
        "seed003_server_burst",
        "server",
        True,
        (
            _gain(
                '"The improvement of TCPW ranges from 40% to 222% for single connection"',
                150,
                350,
                40,
            ),
            _converge(),
        ),
        "mobile server, burst errors",
    ),
    _geo(
        "seed003_geo",
        False,
        (
            Claim(
                "10 TCPW / 10 Reno throughput ratio at 1% loss",
                c.smallest_ratio("TCPW (10 TCPW)", "Reno (10 Reno)", xs=(1,)),
                target=at_least(1.2),
                partly=at_least(1.0),
                paper="GEO, independent errors: plot only (TCPW above Reno)",
            ),
            FRIENDLY,
        ),
    ),
    _geo(
        "seed003_geo_burst",
        True,
        (
            Claim(
                "10 TCPW over 10 Reno: largest throughput gain",
                c.largest_gain_percent("TCPW (10 TCPW)", "Reno (10 Reno)"),
                target=between(50, 130),
                partly=at_least(20),
                paper='"TCPW performs better than Reno up to 87%"',
                unit="%",
                digits=0,
            ),
            FRIENDLY,
        ),
    ),
]
