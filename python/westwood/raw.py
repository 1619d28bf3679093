"""One run through the core, decoded, without DataFrames: what ``westwood run`` needs and no
more (the command line imports this, not ``api.py``, so a run loads neither pandas nor the
modules that write files). ``api.run_raw`` is this function."""

from __future__ import annotations

import os

from . import _core
from .checks import integer
from .overrides import normalize
from .paths import find_scenario

# Nothing here imports typing, json or contextlib: `westwood run` comes through this module, and
# those imports (with the re and enum they bring) cost its start-up more than a small run.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Dict, List, Optional, Union

    from .overrides import OverridesLike
    from .paths import ScenarioLike

    PathLike = Union[str, "os.PathLike[str]"]  # as files.PathLike


class RawResult:
    """What the core returns, decoded: the summary dict and the series as column dicts (None
    unless recorded). A named triple: it unpacks, compares and prints like one (a plain class,
    since typing.NamedTuple would import typing on every run)."""

    __slots__ = ("summary", "flow_series", "link_series")

    def __init__(
        self,
        summary: Dict[str, Any],
        flow_series: Optional[Dict[str, List[Any]]],
        link_series: Optional[Dict[str, List[Any]]],
    ) -> None:
        self.summary = summary
        self.flow_series = flow_series
        self.link_series = link_series

    def __iter__(self):
        return iter((self.summary, self.flow_series, self.link_series))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RawResult) and tuple(self) == tuple(other)

    __hash__ = None  # type: ignore[assignment]  # mutable contents, as a tuple of dicts

    def __repr__(self) -> str:
        return (
            f"RawResult(summary={self.summary!r}, flow_series={self.flow_series!r}, "
            f"link_series={self.link_series!r})"
        )


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
    strict: bool = False,
) -> RawResult:
    """Run without building DataFrames (what the CLI uses). With ``ack_trace`` (a path) the
    per-ACK trace is streamed there; with ``series_dir`` (an existing directory) the time series
    stream into its ``flow_series.csv`` and ``link_series.csv`` as the run goes, instead of being
    kept in memory. Files appear only when the run succeeds. ``max_memory`` (bytes, default 1 GB)
    is what the run may hold: a scenario estimated to need more is refused with a
    ``ScenarioError`` saying how much and why (docs/scenarios.md, "Bounds"). ``pcap`` =
    ``(dir, points, snaplen, format)`` writes packet captures (``westwood.measure.simcapture``,
    docs/measurement.md). The summary's ``warnings`` list what makes the scenario defeat itself
    (docs/scenarios.md, "Warnings"); with ``strict`` such a scenario is refused instead, with
    ``StrictError`` (a ``ScenarioError`` whose ``warnings`` attribute holds those records), and
    no file appears."""
    if seed is not None:
        seed = integer(seed, "seed")  # numpy integers are fine; bools, floats, strings are not
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed must be from 0 to 2^64-1, not {seed}")
    path = find_scenario(scenario)
    trace = None if ack_trace is None else os.fspath(ack_trace)
    series = None if series_dir is None else os.fspath(series_dir)
    if max_memory is not None:
        max_memory = integer(max_memory, "max_memory")
        if not 0 < max_memory < 2**64:
            raise ValueError(
                f"max_memory must be a positive 64-bit number of bytes, not {max_memory}"
            )
    # The core raises OSError only when it cannot write an output. With the trace alone, name its
    # file; the series' errors name their own file in the core's message.
    only_trace = trace is not None and series is None and pcap is None
    arguments = (
        path,
        normalize(overrides),
        seed,
        record,
        check_invariants,
        trace,
        series,
        max_memory,
        pcap,
        strict,
    )
    if only_trace:
        from .files import writing

        with writing(trace):
            summary_json, flow_series, link_series = _core.run(*arguments)
    else:
        summary_json, flow_series, link_series = _core.run(*arguments)
    # The core's own JSON decoder: json.loads would import json (and re) for this one call.
    return RawResult(_core.json_loads(summary_json), flow_series, link_series)
