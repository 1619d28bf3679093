"""Seed 002: Gerla, Lee, Pau, "TCP Westwood Simulation Studies in Multiple-Path Cases".

* ``seed002_fig7``: figs 5-10, one FTP flow over the two paths of fig. 4 (simple multipath: data
  round robin over both, ACKs on the shortest path; ``scenarios/multipath.toml``), Reno, SACK
  and Westwood, 1 path (baseline) and 2 paths. The cwnd/ssthresh traces of figs 5-6 and the BWE
  of fig. 10: ``westwood run multipath --set cc=reno --out DIR`` and ``westwood plot DIR``.
* ``seed002_fig12``/``fig13``/``fig14``: figs 12-14, the first 2, 3, 4 of four paths (full
  multipath: data and ACKs spread), throughput vs. link delay 10-60 ms
  (``scenarios/seed002_fourpath.toml``).
* ``seed002_fig15``: fig. 15, TCPW's bandwidth estimate over 2, 3 and 4 paths (10 ms links).
* ``seed002_fig17``: fig. 17, random connections over the 8x8 grid, four paths each
  (``scenarios/multipath_grid.toml``), mean throughput per connection vs. link delay; 200 s runs
  instead of the paper's 600 s (cost: ~10 s per run), 4 of the 6 delays.

Nothing in these scenarios is random except the grid's arrivals, so one seed per point.
Known: with full multipath over 3-4 paths our Westwood's window collapses (cwnd locked at 3
segments by the stream of duplicate ACKs from two directions of reordering); the verdicts say
so rather than being tuned around it.
"""

from __future__ import annotations

from ..claims import Claim, at_least, at_most
from ..experiments.base import GOODPUT_MBPS, Axis, Series
from ..experiments.sweep import Experiment, ratio_at
from ..experiments.window import Curve, SeriesTraceExperiment, curve_ratio
from . import _common as c

RENO = Series("Reno", {"cc": "reno"})
SACK = Series("SACK", {"cc": "sack"})
TCPW = Series("TCPW", {"cc": "westwood"})
SERIES = (RENO, SACK, TCPW)

FIG7 = Experiment(
    id="seed002_fig7",
    title="Throughput of one FTP flow over two paths (simple multipath)",
    paper="seed 002 §II-B, §III-B, figs 5-10",
    scenario="multipath",
    x=Axis("paths", (1, 2), "Paths used", quick_values=(1, 2)),
    series=SERIES,
    metric=GOODPUT_MBPS,
    seeds=1,
    quick_duration="30s",
    description="One FTP flow from 1 s, initial ssthresh 64 packets, over the two 1.5 Mb/s paths "
    "of fig. 4 (data round robin, ACKs on the shortest path); 60 s, deterministic (1 seed). "
    "1 path is the single-path baseline (at most 1.5 Mb/s).",
    claims=(
        Claim(
            "TCPW throughput over 2 paths (Mb/s)",
            c.value_at("TCPW", 2),
            target=at_least(2.7),
            partly=at_least(2.0),
            paper='fig. 9: "TCP Westwood achieves the maximum possible end-to-end throughput" '
            "(3 Mb/s)",
        ),
        Claim(
            "Reno/TCPW throughput ratio over 2 paths",
            ratio_at(2, "Reno", "TCPW"),
            target=at_most(0.5),
            partly=at_most(0.8),
            paper='figs 5-7: Reno\'s cwnd and ssthresh kept "with unnecessarily low values"',
        ),
        Claim(
            "SACK/TCPW throughput ratio over 2 paths",
            ratio_at(2, "SACK", "TCPW"),
            target=at_most(0.5),
            partly=at_most(0.8),
            paper="fig. 8: SACK suffers like Reno",
        ),
    ),
)


def _fourpath(paths: int, fig: str) -> Experiment:
    ideal = 1.5 * paths
    return Experiment(
        id=f"seed002_{fig.replace('. ', '').replace('fig', 'fig')}",
        title=f"Throughput vs. link delay, first {paths} of four paths (full multipath)",
        paper=f"seed 002 §IV-A, {fig}",
        scenario="seed002_fourpath",
        x=Axis("delay", (10, 20, 30, 40, 50, 60), "Link delay", unit="ms", quick_values=(10, 60)),
        series=SERIES,
        metric=GOODPUT_MBPS,
        overrides={"paths": str(paths)},
        seeds=1,
        quick_duration="30s",
        description=f"One FTP flow over the first {paths} paths of the fig. 11 topology (1-4 links "
        "of 1.5 Mb/s, the same delay on every link), data and ACKs round robin; 60 s, "
        f"deterministic (1 seed). Ideal: {ideal:g} Mb/s.",
        claims=(
            Claim(
                f"TCPW throughput, mean over delays, as a fraction of the {ideal:g} Mb/s sum",
                c.mean_over_x("TCPW", 1 / ideal),
                target=at_least(0.8),
                partly=at_least(0.5),
                paper='"it does not harm Westwood performance"; throughput approaches "the sum of '
                'the capacities of the multiple paths"',
            ),
            Claim(
                "TCPW/Reno throughput ratio, smallest over delays",
                c.smallest_ratio("TCPW", "Reno"),
                target=at_least(1.2),
                partly=at_least(1.0),
                paper='"clearly this affects negatively the Reno and SACK performance"',
            ),
            Claim(
                "TCPW/SACK throughput ratio, smallest over delays",
                c.smallest_ratio("TCPW", "SACK"),
                target=at_least(1.2),
                partly=at_least(1.0),
                paper="same sentence",
            ),
        ),
    )


FIG17 = Experiment(
    id="seed002_fig17",
    title="Average throughput of random 4-path connections on the 8x8 grid vs. link delay",
    paper="seed 002 §IV-B, figs 16-17",
    scenario="multipath_grid",
    x=Axis("delay", (10, 20, 40, 60), "Link delay", unit="ms", quick_values=(10, 60)),
    series=SERIES,
    metric=c.arrivals_goodput_metric(),
    seeds=1,
    overrides={"duration": "200s"},
    quick_duration="60s",
    description="FTP connections between random inner nodes of the 8x8 grid of 1.5 Mb/s links, "
    "arriving every 2 s, lasting 180 s on average (exponential), each over 4 edge-disjoint "
    "paths (data and ACKs). 200 s runs (the paper: 600 s; ~100 connections instead of ~300, "
    "to keep the run time down), 4 of the paper's 6 delays, 1 seed.",
    claims=(
        Claim(
            "TCPW/Reno average throughput ratio, smallest over delays",
            c.smallest_ratio("TCPW", "Reno"),
            target=at_least(1.2),
            partly=at_least(1.0),
            paper='fig. 17: "Reno and SACK suffer from multiple path syndrome"',
        ),
        Claim(
            "TCPW throughput at 60 ms / at 10 ms",
            c.ratio_of_points("TCPW", 60, "TCPW", 10),
            target=at_least(0.8),
            partly=at_least(0.6),
            paper='"Westwood remains quite stable and insensitive to the delay changes"',
        ),
        Claim(
            "Reno throughput at 60 ms / at 10 ms",
            c.ratio_of_points("Reno", 60, "Reno", 10),
            target=at_most(0.9),
            partly=at_most(1.0),
            paper='Reno and SACK "get worse as the link delays increase"',
        ),
    ),
)

FIG15 = SeriesTraceExperiment(
    id="seed002_fig15",
    title="Bandwidth estimate of TCPW over 2, 3 and 4 paths (full multipath, 10 ms links)",
    paper="seed 002 §IV-A, fig. 15",
    scenario="seed002_fourpath",
    series=tuple(Series(f"{n} paths", {"cc": "westwood", "paths": str(n)}) for n in (2, 3, 4)),
    curves=(Curve("bwe_bps", "BWE", "Mbps"), Curve("cwnd_bytes", "cwnd")),
    flows=("ftp",),
    overrides={"delay": "10ms"},
    skip_seconds=5.0,
    seeds=1,
    quick_duration="30s",
    description="TCPW's bandwidth estimate (Mb/s) and cwnd (segments) over the first 2, 3 and 4 "
    "paths of the fig. 11 topology, 10 ms links, data and ACKs spread; means from 5 s. 60 s, "
    "deterministic (1 seed).",
    claims=(
        Claim(
            "TCPW's mean BWE with 4 paths over with 2 paths",
            curve_ratio("bwe_bps", "4 paths", "2 paths", "ftp"),
            target=at_least(1.6),
            partly=at_least(1.2),
            paper='fig. 15: "when the number of multiple paths increases, the TCP Westwood sender '
            'correctly captures the bandwidth" (ideal 6/3 = 2)',
        ),
        Claim(
            "TCPW's mean BWE with 3 paths over with 2 paths",
            curve_ratio("bwe_bps", "3 paths", "2 paths", "ftp"),
            target=at_least(1.3),
            partly=at_least(1.1),
            paper="fig. 15 (ideal 4.5/3 = 1.5)",
        ),
    ),
)

EXPERIMENTS = [
    FIG7,
    _fourpath(2, "fig. 12"),
    _fourpath(3, "fig. 13"),
    _fourpath(4, "fig. 14"),
    FIG15,
    FIG17,
]
