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

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .analyze import Analysis, analyze, stream

__all__ = ["Analysis", "analyze", "stream"]


def __getattr__(name: str) -> Any:
    """``Analysis``, ``analyze`` and ``stream`` load on first use (PEP 562): ``westwood run``
    imports ``measure.simcapture`` for its ``--pcap`` options, and the analysis (with ``files.py``,
    ``tempfile``, ``shutil``, ``dataclasses``) would cost each run several milliseconds."""
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    importlib.import_module(".analyze", __name__)  # binds the names (_Package.__setattr__)
    return globals()[name]


class _Package(types.ModuleType):
    """``analyze`` names both a submodule and its function, and the function is the public
    name (``westwood.measure.analyze(paths)``). The import system binds a submodule to its
    name in the package once the submodule has loaded, whoever imported it; here that binding
    puts the submodule's public names in its place, as importing them eagerly in this file
    used to."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "analyze" and isinstance(value, types.ModuleType):
            for public in __all__:
                super().__setattr__(public, getattr(value, public))
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
