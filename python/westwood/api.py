"""The Python API: ``westwood.run(...)`` -> ``RunResult`` with pandas DataFrames.

``run_raw`` (no DataFrames, what the command line uses) lives in ``raw.py`` and is re-exported
here."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Union

from .files import PathLike, write_bytes_atomic
from .overrides import OverridesLike
from .paths import ScenarioLike
from .raw import RawResult, run_raw
from .report import tables

if TYPE_CHECKING:  # pandas is imported lazily, only when DataFrames are built
    import pandas as pd


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
    * ``warnings``: what makes the scenario defeat itself, ``summary["warnings"]``: records
      ``{"kind", "link", "origin", "message"}``, empty for a healthy run (docs/scenarios.md,
      "Warnings").
    """

    summary: Dict[str, Any]
    flows: "pd.DataFrame"
    links: "pd.DataFrame"
    flow_series: Optional["pd.DataFrame"]
    link_series: Optional["pd.DataFrame"]
    ack_trace: Optional["pd.DataFrame"] = None
    warnings: List[Dict[str, Any]] = field(default_factory=list)


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    overrides: OverridesLike = None,
    record: bool = True,
    check_invariants: bool = False,
    ack_trace: Union[bool, PathLike, None] = None,
    max_memory: Optional[int] = None,
    strict: bool = False,
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
    A scenario that defeats itself (a ``"bdp"`` queue of fewer than 4 packets where data
    flows, a sender losing most of its packets at its own first hop) is reported in
    ``result.warnings``; with ``strict=True`` it is refused with ``StrictError`` (a
    ``ScenarioError``; its ``warnings`` attribute holds the records), before the run when
    building the network finds it, after the run (with no result and no file) otherwise.
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
                strict=strict,
            )
            trace_frame = read_ack_trace(trace_path)
    elif ack_trace is None or ack_trace is False:
        raw = run_raw(
            scenario,
            seed,
            overrides,
            record,
            check_invariants,
            max_memory=max_memory,
            strict=strict,
        )
    else:
        # Through a temporary file beside PATH, so that an interrupt that arrives as the run
        # ends (Ctrl-C waits for the core) leaves no file either.
        results: List[RawResult] = []

        def run_into(tmp: str) -> None:
            results.append(
                run_raw(
                    scenario,
                    seed,
                    overrides,
                    record,
                    check_invariants,
                    tmp,
                    max_memory=max_memory,
                    strict=strict,
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
        warnings=list(raw.summary.get("warnings", [])),
    )
