"""Which TCPW reproduces the papers: the seed 000 numbers that tell the Westwood variants apart.

Three TCPWs exist (docs/westwood.md): the paper's text (``westwood``), the authors' own ns-2
agents (``westwood-ucla``: Reno-based, no window inflation; ``westwood-ucla-nr``: NewReno-based),
and, as an option of the first, interval-weighted filter samples (``sample = "interval"``). Fig.
9, fig. 10 and §4.3 run each of them; their claims use the texts built here, so that
``summary_table`` can put each variant's number beside the paper's and the testbed's.

The UCLA agents are run as ns-2.35 runs them (``NS2_235``: the ``ns2`` TCP profile and the
timer, delayed-ACK and initial-window keys of ns-2.35's defaults, which the scenario files set
otherwise) and compared with Reno under the same settings, ns-2.35's ``Agent/TCP/Reno``: that
is the setting in which docs/westwood.md cross-checks them against the agents themselves. The
paper's text and its interval option keep the scenarios' own settings and their Reno.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Tuple


@dataclass(frozen=True)
class Variant:
    """A TCPW as the experiments run it: the series/row label, its scenario overrides for a
    one-flow scenario (``single``) and for group a of the friendliness scenario (``group_a``,
    which also apply to group b, Reno, where they are ``tcp.*`` keys), and the label of the Reno
    series its one-flow ratios are taken over (``baseline``)."""

    label: str
    single: Mapping[str, str]
    group_a: Mapping[str, str]
    baseline: str = "Reno"


INTERVAL = '{ sample = "interval" }'

# ns-2.35's TCP agents with their defaults (tcl/lib/ns-default.tcl): the `ns2` profile
# (docs/scenarios.md, Profiles) plus the keys it sets that the seed 000 scenario files set
# otherwise (a file's key wins over a profile): windowInit_ 2, rtxcur_init_ 3 s, minrto_
# 200 ms, maxrto_ 60 s, tcpTick_ 10 ms, the DelAck sink's 100 ms and every other packet.
NS2_235: Mapping[str, str] = {
    "tcp.profile": "ns2",
    "tcp.initial_cwnd": "2",
    "tcp.rto_initial": "3s",
    "tcp.rto_min": "200ms",
    "tcp.rto_max": "60s",
    "tcp.clock_granularity": "10ms",
    "tcp.delayed_ack": "true",
    "tcp.delayed_ack_timeout": "100ms",
    "tcp.ack_every": "2",
}

# Reno under the simulator's ns2 profile (ns-2.35's rules, not ns-2 itself): the one-flow
# baseline of the UCLA agents.
RENO_NS2_LABEL = "Reno (ns2 profile)"
RENO_NS2: Mapping[str, str] = {"cc": "reno", **NS2_235}

VARIANTS: Tuple[Variant, ...] = (
    Variant("TCPW", {"cc": "westwood"}, {"cc_a": "westwood"}),
    Variant(
        "TCPW interval",
        {"cc": "westwood", "tcp.westwood": INTERVAL},
        {"cc_a": "westwood", "flows.a.westwood": INTERVAL},
    ),
    Variant(
        "TCPW UCLA",
        {"cc": "westwood-ucla", **NS2_235},
        {"cc_a": "westwood-ucla", **NS2_235},
        RENO_NS2_LABEL,
    ),
    Variant(
        "TCPW-NR UCLA",
        {"cc": "westwood-ucla-nr", **NS2_235},
        {"cc_a": "westwood-ucla-nr", **NS2_235},
        RENO_NS2_LABEL,
    ),
)

# The paper's TCPW is the first; the others are compared with it.
OTHERS = VARIANTS[1:]


def mix_label(label: str) -> str:
    """The §4.3 row of the 10 + 10 mix of one variant with Reno."""
    return f"10 {label} + 10 Reno"


# The claim texts per variant (the summary finds the claims by them). Figs. 9 and 10 judge the
# gain the paper states (394 % at 1 % loss, 567 % at 100 ms) as that gain, over the variant's
# baseline Reno (``Variant.baseline``).
def fig9_claim(label: str) -> str:
    return f"{label}'s throughput gain over Reno at 1% loss"


def fig10_claim(label: str) -> str:
    return f"{label}'s throughput gain over Reno at 100 ms"


def mix_claim(label: str) -> str:
    return f"In the 10 + 10 mix, {label}'s mean per-flow goodput over Reno's"


TESTBED_FIG9_CLAIM = "On real TCP, TCPW/Reno throughput ratio at 1% loss"


@dataclass(frozen=True)
class Row:
    """One number of the summary: where it is measured, the paper's value, the claim text per
    variant, and the testbed's claim measuring the same thing (if any)."""

    number: str
    experiment: str
    paper: str
    claim: Any  # label -> claim text
    testbed: Optional[Tuple[str, str]] = None


ROWS: Tuple[Row, ...] = (
    Row(
        "fig. 9: TCPW's gain over Reno at 1% loss",
        "fig9",
        "394% (ratio 4.94)",
        fig9_claim,
        ("testbed_fig9", TESTBED_FIG9_CLAIM),
    ),
    Row(
        "fig. 10: TCPW's gain over Reno at 100 ms wired delay",
        "fig10",
        "567% (ratio 6.67)",
        fig10_claim,
    ),
    Row("§4.3: TCPW/Reno per-flow goodput, 10 + 10", "sec4_3", "1.18", mix_claim),
)


def _claim(entry: Optional[Mapping[str, Any]], text: str) -> Optional[Mapping[str, Any]]:
    for c in (entry or {}).get("claims") or []:
        if c.get("claim") == text:
            return c
    return None


def _cell(claim: Optional[Mapping[str, Any]], skipped: Optional[str] = None) -> str:
    """The claim's number as its own report shows it (the first word of ``measured``: a gain in
    %, a ratio, ...) and its verdict; what it says instead when it has no number."""
    if skipped:
        return f"skipped: {skipped}"
    if claim is None:
        return "–"
    value = claim.get("value")
    if value is None:
        return str(claim.get("measured", "n/a"))
    words = str(claim.get("measured") or "").split()
    shown = words[0] if words else f"{value:.2f}"
    return f"{shown} ({claim.get('verdict')})"


def summary_table(manifest: Mapping[str, Mapping[str, Any]]) -> Optional[Dict[str, List]]:
    """The table (header, rows) for the experiments of ``manifest``; None if none ran."""
    rows = []
    for row in ROWS:
        entry = manifest.get(row.experiment)
        if entry is None:
            continue
        cells = [row.number, row.paper] + [
            _cell(_claim(entry, row.claim(v.label))) for v in VARIANTS
        ]
        if row.testbed is None:
            cells.append("–")
        else:
            tb = manifest.get(row.testbed[0])
            cells.append(_cell(_claim(tb, row.testbed[1]), (tb or {}).get("skipped")))
        rows.append(cells)
    if not rows:
        return None
    header = ["Number", "Paper"] + [v.label for v in VARIANTS] + ["Testbed (kernel tcpw)"]
    return {"header": header, "rows": rows}


HEADING = "Which TCPW reproduces the papers"
INTRO = (
    "The seed 000 numbers that tell the TCPWs apart, each measured as its claim in the "
    "experiment's section (value and verdict): TCPW is the paper's text (westwood), TCPW "
    "interval the same with interval-weighted filter samples, TCPW UCLA and TCPW-NR UCLA the "
    "authors' own ns-2 agents (westwood-ucla, westwood-ucla-nr), run with ns-2.35's TCP "
    "defaults and compared with Reno under the same; the testbed is the kernel's tcpw "
    "on real TCP (docs/westwood.md, docs/reproduction.md)."
)
