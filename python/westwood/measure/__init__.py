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

from .analyze import Analysis, analyze

__all__ = ["Analysis", "analyze"]
