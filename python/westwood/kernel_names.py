"""The kernel side of the registry of congestion controls, for Python.

``crates/algorithms/src/registry.rs`` is the one table of the controls, their kernel twins and
whether a twin is this project's eBPF program (``kernel/tcpw.bpf.c``) or one Linux ships; the
front end reads it through ``_core`` and spells no kernel name of its own.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Dict, Tuple


@lru_cache(maxsize=1)
def _entries() -> Tuple[dict, ...]:
    from . import _core

    return tuple(_core.congestion_controls())


def scenario_to_kernel() -> Dict[str, str]:
    """The kernel congestion control of each scenario control that has one (``westwood`` ->
    its eBPF program, ``newreno`` -> Linux ``reno``)."""
    return {cc["name"]: cc["kernel"] for cc in _entries() if cc["kernel"]}


def kernel_to_scenario() -> Dict[str, str]:
    """The scenario control each kernel congestion control runs; a kernel name several controls
    share (Linux ``reno``) is the first's."""
    names: Dict[str, str] = {}
    for cc in _entries():
        if cc["kernel"] and cc["kernel"] not in names:
            names[cc["kernel"]] = cc["name"]
    return names


def ebpf_kernel_names() -> Tuple[str, ...]:
    """The kernel names of this project's eBPF congestion controls, which ``westwood linux
    load`` registers (the others come with Linux)."""
    return tuple(cc["kernel"] for cc in _entries() if cc["ebpf"] and cc["kernel"])
