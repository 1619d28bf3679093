"""The Python API: ``westwood.run(...)`` -> ``RunResult`` with pandas DataFrames."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, NamedTuple, Optional, Union

from . import _core
from .checks import integer
from .files import PathLike, write_bytes_atomic, writing
from .overrides import OverridesLike, normalize
from .paths import ScenarioLike, resolve_scenario
from .report import tables

if TYPE_CHECKING:  # pandas is imported lazily, only when DataFrames are built
    import pandas as pd


class RawResult(NamedTuple):
    """What the core returns, decoded: the summary dict and the series as column dicts."""

    summary: Dict[str, Any]
    flow_series: Optional[Dict[str, List[Any]]]
    link_series: Optional[Dict[str, List[Any]]]


@dataclass
class RunResult:
    """One simulation run.

    * ``summary``: the run's summary record (scenario, seed, parameters, sim_seconds,
      wall_seconds, events, packets, flows, links), as in ``westwood run --json``.
    * ``flows``: one row per flow (``tables.FLOW_COLUMNS``).
    * ``links``: one row per unidirectional link (``tables.LINK_COLUMNS``).
    * ``flow_series`` / ``link_series``: time series (``tables.FLOW_SERIES_COLUMNS``,
      ``tables.LINK_SERIES_COLUMNS``), or None when the run was not recorded.
    * ``ack_trace``: the per-ACK trace (``ack_trace.ACK_TRACE_COLUMNS``, docs/ack-trace.md)
      when the run was asked for it with ``ack_trace=True``, else None.
    """

    summary: Dict[str, Any]
    flows: "pd.DataFrame"
    links: "pd.DataFrame"
    flow_series: Optional["pd.DataFrame"]
    link_series: Optional["pd.DataFrame"]
    ack_trace: Optional["pd.DataFrame"] = None


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
    with writing(trace) if only_trace else contextlib.nullcontext():
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


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    overrides: OverridesLike = None,
    record: bool = True,
    check_invariants: bool = False,
    ack_trace: Union[bool, PathLike, None] = None,
    max_memory: Optional[int] = None,
) -> RunResult:
    """Run a scenario (a path, or a bare name such as ``"wireless"``) and return its results.

    ``overrides`` is a dict (``{"loss": "1%", "duration": "30s"}``), one ``"KEY=VALUE"`` string
    as ``--set`` takes it (``"loss=1%"``), or a list of (parameter, value) pairs and
    ``"KEY=VALUE"`` strings; values are converted with str(). ``seed`` (an integer from 0 to
    2^64-1; a bool is rejected, not taken as 0 or 1) replaces the scenario's seed. With
    ``record`` the time series are collected. ``ack_trace=True`` adds the per-ACK trace
    (docs/ack-trace.md) as ``result.ack_trace``, read from a temporary file that is removed
    afterwards; ``ack_trace=PATH`` writes it to PATH instead (CSV, left unread: it can be large),
    only if the run succeeds. ``max_memory`` (bytes, default 1 GB) bounds what the run may hold,
    the recorded series included: a run estimated to need more is refused with a
    ``ScenarioError`` that says how much (pass ``record=False``, raise the scenario's
    ``sample_interval``, or stream the series to disk with ``run_raw(series_dir=...)``).
    Ctrl-C stops the run within milliseconds (``KeyboardInterrupt``). Raises ``ScenarioError``
    for invalid input, ``TypeError`` for an
    argument of the wrong type (``seed="2"``, ``overrides=5``), ``FileNotFoundError`` when the
    scenario cannot be found and ``OSError`` when the trace cannot be written.
    """
    import pandas as pd

    trace_frame = None
    if ack_trace is True:
        from .ack_trace import read_ack_trace

        with tempfile.TemporaryDirectory(prefix="westwood-acks-") as tmp:
            trace_path = Path(tmp) / "acks.csv"
            raw = run_raw(
                scenario,
                seed,
                overrides,
                record,
                check_invariants,
                trace_path,
                max_memory=max_memory,
            )
            trace_frame = read_ack_trace(trace_path)
    elif ack_trace is None or ack_trace is False:
        raw = run_raw(scenario, seed, overrides, record, check_invariants, max_memory=max_memory)
    else:
        # Through a temporary file beside PATH, so that an interrupt that arrives as the run
        # ends (Ctrl-C waits for the core) leaves no file either.
        results: List[RawResult] = []

        def run_into(tmp: str) -> None:
            results.append(
                run_raw(
                    scenario, seed, overrides, record, check_invariants, tmp, max_memory=max_memory
                )
            )

        write_bytes_atomic(ack_trace, run_into)
        raw = results[0]

    def series(data: Optional[Dict[str, List[Any]]], documented) -> Optional[pd.DataFrame]:
        if data is None:
            return None
        return pd.DataFrame(tables.series_columns(data, documented))

    return RunResult(
        summary=raw.summary,
        flows=pd.DataFrame(tables.flow_columns(raw.summary)),
        links=pd.DataFrame(tables.link_columns(raw.summary)),
        flow_series=series(raw.flow_series, tables.FLOW_SERIES_COLUMNS),
        link_series=series(raw.link_series, tables.LINK_SERIES_COLUMNS),
        ack_trace=trace_frame,
    )
