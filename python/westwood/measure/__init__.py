"""The measurement face (docs/measurement.md): packet captures from the simulator
(``westwood run --pcap``) and the testbed (``westwood testbed --pcap``) read by one analysis
(``westwood analyze``, :func:`analyze`), and ``westwood measure``, the papers' Internet method
(alternating iperf3 transfers per congestion control on a real path, captured and analysed).

* ``analyze.py``: per-connection analysis of pcap/pcapng files (the Rust core reads them),
  tables, JSON/Parquet, time-sequence and throughput plots.
* ``measure.py``: ``westwood measure HOST``.
* ``plots.py``: the figures of both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analyze import Analysis, analyze

__all__ = ["Analysis", "analyze"]


def __getattr__(name: str) -> Any:
    """``Analysis`` and ``analyze`` load on first use (PEP 562): ``westwood run`` imports
    ``measure.simcapture`` for its ``--pcap`` options, not the analysis."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import analyze as module

    value = getattr(module, name)
    globals()[name] = value
    return value
