"""Figures of the measurement face: the time-sequence graph of a connection (as tcptrace and
Wireshark's "Stevens"/"tcptrace" graphs draw it), throughput over time, and the papers' figures
of ``westwood measure`` (rates per transfer, seed 004 figs. 7-8; rate vs. RTT, fig. 10)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Dict, List, Mapping, Sequence

from .. import units
from ..files import write_bytes_atomic, writing

MARKERS = ("o", "s", "^", "D", "v", "x", "P", "*")


def _figure(salt: str):
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    ctx = matplotlib.rc_context({"svg.hashsalt": salt, "font.size": 10})
    return ctx, Figure


def _save(fig, stem: Path) -> List[Path]:
    paths = []
    for ext in ("png", "svg"):
        path = stem.parent / f"{stem.name}.{ext}"  # not with_suffix: names hold dots

        def save(tmp: str, ext: str = ext) -> None:
            with writing(tmp):
                fig.savefig(tmp, format=ext, dpi=120)

        write_bytes_atomic(path, save, suffix=f".{ext}")
        paths.append(path)
    return paths


def tseq(conn: Mapping[str, Any], stem: Path) -> List[Path]:
    """The time-sequence graph of one connection direction: each data segment (its end,
    relative to the first byte), retransmissions marked, the cumulative ACK and the ACK plus
    the advertised window (the receiver's limit) as steps."""
    ctx, Figure = _figure(str(conn["name"]))
    with ctx:
        fig = Figure(figsize=(7.0, 4.4), layout="constrained")
        ax = fig.add_subplot()
        scale = 1e3
        data = conn["tseq_data"]
        if data:
            ax.plot(
                [p[0] for p in data],
                [p[2] / scale for p in data],
                ".",
                markersize=1.5,
                color="C0",
                label="data segments",
            )
        acks = conn["tseq_acks"]
        if acks:
            t = [p[0] for p in acks]
            ax.step(t, [p[1] / scale for p in acks], where="post", color="C2", lw=0.8, label="ACK")
            ax.step(
                t,
                [p[2] / scale for p in acks],
                where="post",
                color="C7",
                lw=0.6,
                alpha=0.7,
                label="ACK + window",
            )
        rx = conn["tseq_retransmits"]
        if rx:
            ax.plot(
                [p[0] for p in rx],
                [p[2] / scale for p in rx],
                "x",
                markersize=4,
                color="C3",
                label="retransmissions",
            )
        ax.set_xlabel("Time since the connection's first packet (s)")
        ax.set_ylabel("Sequence number (KB from the first byte)")
        note = "" if conn.get("tseq_complete", True) else " (points thinned for plotting)"
        where = " + ".join(Path(c).name for c in str(conn["capture"]).split(" + "))
        ax.set_title(f"{conn['name']} at {where}{note}", fontsize=9)
        ax.grid(alpha=0.3)
        if data or acks:
            ax.legend(fontsize=8, loc="upper left")
        return _save(fig, stem)


def throughput(conns: Sequence[Mapping[str, Any]], stem: Path) -> List[Path]:
    """Goodput over time of each connection direction (bytes newly acknowledged per bin; the
    data sent per bin where the capture holds no ACKs)."""
    ctx, Figure = _figure("throughput")
    with ctx:
        fig = Figure(figsize=(7.0, 4.4), layout="constrained")
        ax = fig.add_subplot()
        t0 = min(c["first_ns"] for c in conns)
        for i, c in enumerate(conns):
            width = c["bin_seconds"]
            acked = c["acked_per_bin"]
            values = acked if any(acked) else c["sent_per_bin"]
            if not values or width <= 0:
                continue
            # About 150 points: finer bins show the ACK clock, not the rate.
            k = max(1, math.ceil(len(values) / 150))
            values = [sum(values[i : i + k]) for i in range(0, len(values), k)]
            width *= k
            start = (c["bin_start_ns"] - t0) / 1e9
            xs = [start + (j + 0.5) * width for j in range(len(values))]
            ys = [v * 8 / width / 1e6 for v in values]
            label = str(c["name"]) + ("" if any(acked) else " (sent)")
            ax.plot(xs, ys, lw=0.9, color=f"C{i % 10}", label=label)
        ax.set_xlabel("Time (s)")
        ax.set_ylabel("Throughput (Mbps)")
        ax.grid(alpha=0.3)
        if len(conns) <= 12:
            ax.legend(fontsize=8)
        return _save(fig, stem)


def safe_name(name: str) -> str:
    """A flow or connection name as a file name."""
    keep = "".join(c if c.isalnum() or c in "._-" else "_" for c in name)
    return keep.strip("._") or "connection"


def analysis_plots(plotted: Sequence[Mapping[str, Any]], out: Path) -> List[Path]:
    """The time-sequence graph of each row of ``plotted`` (the rows ``westwood analyze`` kept
    plot data for: the flows with the most data) that carried data, and one throughput figure
    of them all."""
    rows = [r for r in plotted if r["segments_sent"] > 0 or r["tseq_acks"]]
    paths: List[Path] = []
    used: Dict[str, int] = {}
    for r in rows:
        base = safe_name(str(r["name"]))
        n = used.get(base, 0)
        used[base] = n + 1
        name = base if n == 0 else f"{base}_{n}"
        paths += tseq(r, out / f"tseq_{name}")
    if rows:
        paths += throughput(rows, out / "throughput")
    return paths


def rates_per_transfer(rows: Sequence[Mapping[str, Any]], stem: Path, title: str) -> List[Path]:
    """Seed 004 figs. 7-8: the rate of each transfer in the order they ran, one series per
    congestion control."""
    ctx, Figure = _figure("rates")
    with ctx:
        fig = Figure(figsize=(7.0, 4.4), layout="constrained")
        ax = fig.add_subplot()
        ccs = list(dict.fromkeys(r["cc"] for r in rows))
        for i, cc in enumerate(ccs):
            mine = [r for r in rows if r["cc"] == cc]
            ax.plot(
                [r["round"] for r in mine],
                [r["goodput_bps"] / 1e6 for r in mine],
                marker=MARKERS[i % len(MARKERS)],
                color=f"C{i}",
                label=cc,
            )
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # rounds are whole numbers
        ax.set_xlabel("Round")
        ax.set_ylabel("Rate (Mb/s)")
        ax.set_title(title, fontsize=9)
        ax.grid(alpha=0.3)
        ax.legend()
        return _save(fig, stem)


def rate_vs_rtt(rows: Sequence[Mapping[str, Any]], stem: Path, groups: int = 3) -> List[Path]:
    """Seed 004 fig. 10: the mean rate per congestion control in RTT classes (the transfers'
    RTTs split in ``groups`` ranges of equal count), with each class's RTT range."""
    ctx, Figure = _figure("rate_vs_rtt")
    with ctx:
        fig = Figure(figsize=(7.0, 4.4), layout="constrained")
        ax = fig.add_subplot()
        usable = [r for r in rows if not math.isnan(r.get("rtt_seconds", math.nan))]
        rtts = sorted(r["rtt_seconds"] for r in usable)
        if rtts:
            k = max(1, min(groups, len(rtts)))
            edges = [rtts[min(len(rtts) - 1, (len(rtts) * i) // k)] for i in range(k)] + [rtts[-1]]
            ccs = list(dict.fromkeys(r["cc"] for r in usable))
            width = 0.8 / max(1, len(ccs))
            labels = []
            labelled = set()  # each protocol in the legend once, whichever class it first has
            for g in range(k):
                lo, hi = edges[g], edges[g + 1]
                labels.append(units.ms_range(lo, hi))
                for i, cc in enumerate(ccs):
                    vals = [
                        r["goodput_bps"]
                        for r in usable
                        if r["cc"] == cc
                        and lo <= r["rtt_seconds"] <= hi
                        and (g == k - 1 or r["rtt_seconds"] < hi)
                    ]
                    if vals:
                        ax.bar(
                            g + i * width,
                            sum(vals) / len(vals) / 1e6,
                            width,
                            color=f"C{i}",
                            label=None if cc in labelled else cc,
                        )
                        labelled.add(cc)
            ax.set_xticks([g + width * (len(ccs) - 1) / 2 for g in range(k)], labels)
            ax.legend()
        ax.set_xlabel("RTT class")
        ax.set_ylabel("Mean rate (Mb/s)")
        ax.grid(alpha=0.3, axis="y")
        return _save(fig, stem)
