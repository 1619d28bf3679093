"""One run through the core, decoded, without DataFrames: what ``westwood run`` needs and no
more (the command line imports this, not ``api.py``, so a run loads neither pandas nor the
modules that write files). ``api.run_raw`` is this function."""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any, Dict, List, NamedTuple, Optional, Union

from . import _core
from .checks import integer
from .overrides import OverridesLike, normalize
from .paths import ScenarioLike, resolve_scenario

PathLike = Union[str, "os.PathLike[str]"]  # as files.PathLike, without importing files.py


class RawResult(NamedTuple):
    """What the core returns, decoded: the summary dict and the series as column dicts."""

    summary: Dict[str, Any]
    flow_series: Optional[Dict[str, List[Any]]]
    link_series: Optional[Dict[str, List[Any]]]


def run_raw(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    overrides: OverridesLike = None,
    record: bool = False,
    check_invariants: bool = False,
    ack_trace: Optional[PathLike] = None,
    series_dir: Optional[PathLike] = None,
    max_memory: Optional[int] = None,
    pcap: Optional[tuple] = None,
) -> RawResult:
    """Run without building DataFrames (what the CLI uses). With ``ack_trace`` (a path) the
    per-ACK trace is streamed there; with ``series_dir`` (an existing directory) the time series
    stream into its ``flow_series.csv`` and ``link_series.csv`` as the run goes, instead of being
    kept in memory. Files appear only when the run succeeds. ``max_memory`` (bytes, default 1 GB)
    is what the run may hold: a scenario estimated to need more is refused with a
    ``ScenarioError`` saying how much and why (docs/scenarios.md, "Bounds"). ``pcap`` =
    ``(dir, points, snaplen, format)`` writes packet captures (``westwood.measure.simcapture``,
    docs/measurement.md)."""
    if seed is not None:
        seed = integer(seed, "seed")  # numpy integers are fine; bools, floats, strings are not
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be from 0 to 2^64-1, not {seed}")
    path = resolve_scenario(scenario)
    trace = None if ack_trace is None else os.fspath(ack_trace)
    series = None if series_dir is None else os.fspath(series_dir)
    if max_memory is not None:
        max_memory = integer(max_memory, "max_memory")
        if max_memory <= 0:
            raise ValueError(f"max_memory must be a positive number of bytes, not {max_memory}")
    # The core raises OSError only when it cannot write an output. With the trace alone, name its
    # file; the series' errors name their own file in the core's message.
    only_trace = trace is not None and series is None and pcap is None
    if only_trace:
        from .files import writing

        context = writing(trace)
    else:
        context = contextlib.nullcontext()
    with context:
        summary_json, flow_series, link_series = _core.run(
            os.fspath(path),
            normalize(overrides),
            seed,
            record,
            check_invariants,
            trace,
            series,
            max_memory,
            pcap,
        )
    return RawResult(json.loads(summary_json), flow_series, link_series)
