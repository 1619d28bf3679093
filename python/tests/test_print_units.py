"""One unit policy across commands (westwood.units, issue 33): rates in Mb/s and RTTs in ms
with the digits a value needs; and the measure figures that print them."""

from __future__ import annotations

import math

from westwood import units
from westwood.measure import plots


def test_rates_and_times_keep_the_digits_they_need():
    assert units.mbps(1_234_567) == "1.235"
    assert units.mbps(64_000) == "0.064"
    assert units.mbps(1_234) == "0.00123", "a slow rate is not 0.000"
    assert units.mbps(0) == "0.000"
    assert units.mbps(math.nan) == units.mbps(None) == "-"
    assert units.ms(0.1706) == "170.6"
    assert units.ms(0.000_234) == "0.234", "a LAN's RTT is not 0.0 ms"
    assert units.ms(math.nan) == "-"
    assert units.ms_range(0.202, 0.267) == "202-267 ms"
    assert units.ms_range(0.0011, 0.0014) == "1.1-1.4 ms", "not 1-1 ms"
    assert units.ms_range(0.044_001, 0.044_004) == "44.001-44.004 ms"
    assert units.ms_range(0.044, 0.044) == "44.000-44.000 ms"


def _drawn(monkeypatch, draw):
    """The figure ``draw`` made, instead of its files."""
    figures = []
    monkeypatch.setattr(plots, "_save", lambda fig, stem: figures.append(fig) or [])
    draw()
    (fig,) = figures
    return fig.axes[0]


def test_rate_by_rtt_class_names_every_protocol_and_tells_the_classes_apart(monkeypatch, tmp_path):
    # tcpw has no transfer in the first RTT class: it was once left out of the legend.
    rows = [
        {"cc": "reno", "rtt_seconds": 0.0011, "goodput_bps": 1e6},
        {"cc": "reno", "rtt_seconds": 0.0012, "goodput_bps": 1e6},
        {"cc": "tcpw", "rtt_seconds": 0.0013, "goodput_bps": 2e6},
        {"cc": "tcpw", "rtt_seconds": 0.0014, "goodput_bps": 2e6},
    ]
    ax = _drawn(monkeypatch, lambda: plots.rate_vs_rtt(rows, tmp_path / "r", groups=2))
    assert sorted(t.get_text() for t in ax.get_legend().get_texts()) == ["reno", "tcpw"]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["1.1-1.3 ms", "1.3-1.4 ms"], labels
    assert ax.get_ylabel() == "Mean rate (Mb/s)"
    assert max(p.get_height() for p in ax.patches) == 2.0


def test_rates_per_transfer_tick_whole_rounds_in_mbps(monkeypatch, tmp_path):
    rows = [{"cc": "reno", "round": r, "goodput_bps": 5e5} for r in (1, 2, 3)]
    ax = _drawn(monkeypatch, lambda: plots.rates_per_transfer(rows, tmp_path / "r", "t"))
    ax.figure.canvas.draw()
    ticks = [t for t in ax.get_xticks() if 1 <= t <= 3]
    assert ticks and all(float(t).is_integer() for t in ticks), ticks
    assert ax.get_ylabel() == "Rate (Mb/s)"
    assert list(ax.get_lines()[0].get_ydata()) == [0.5, 0.5, 0.5]
