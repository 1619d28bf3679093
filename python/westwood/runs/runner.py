"""The run engine shared by ``westwood reproduce`` and ``westwood sweep``: every planned run
loaded from the store (``store.py``) or executed on an executor (``executors.py``) and committed
as it finishes."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, TextIO

from ..errors import RunFailed
from ..files import make_directory
from ..progress import Progress
from .executors import LocalExecutor
from .store import STATUS_OK, Entry, Job, RunSpec, _load_entry, make_jobs, remove_run_directories

# --- executing ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What ``run_all`` did: every entry by key, and how many were cached, ran and failed."""

    entries: Dict[str, Entry]
    cached: int
    ran: int
    failed: List[str]  # keys of failed runs, in completion order


def run_all(
    specs: Sequence[RunSpec],
    cache_dir,
    executor=None,
    progress_stream: Optional[TextIO] = None,
    stop_on_error: bool = False,
) -> Outcome:
    """Entries of all ``specs`` by key: successful stored ones loaded, the others run on
    ``executor`` (default: a local process pool on every core) and committed as they finish.

    With ``stop_on_error`` the first failed run cancels the rest and raises ``RunFailed`` (a
    ``ScenarioError`` for an invalid scenario or override); otherwise failed runs are recorded
    and the others go on."""
    executor = executor if executor is not None else LocalExecutor()
    # What killed runs of earlier sweeps left (a kill -9 of the driver kills its workers too).
    remove_run_directories()
    cache_dir = Path(cache_dir)
    entries: Dict[str, Entry] = {}
    todo: List[RunSpec] = []
    seen = set()
    for spec in specs:
        if spec.key in seen:
            continue
        seen.add(spec.key)
        entry = _load_entry(cache_dir, spec)
        if entry is not None:
            entries[spec.key] = entry
        else:
            todo.append(spec)
    cached = len(entries)
    jobs = make_jobs(todo)
    make_directory(cache_dir)
    title = f"{cached + len(jobs)} runs: {cached} in the store, {len(jobs)} to run"
    if jobs:
        title += f" ({executor.describe()})"
    progress = Progress(cached + len(jobs), cached=cached, stream=progress_stream, title=title)
    progress.show(force=True)
    failed: List[str] = []
    try:
        with contextlib.closing(executor.execute(jobs, str(cache_dir), progress.note)) as results:
            for job, entry in results:
                if job is None:  # nothing finished for a while
                    progress.tick()
                    continue
                entries[job.key] = entry
                ok = entry.get("status") == STATUS_OK
                if not ok:
                    failed.append(job.key)
                progress.advance(failed=not ok)
                if stop_on_error and not ok:
                    _raise_failure(job, entry)
    finally:
        progress.close()
        _remove_partial_runs(cache_dir)
    return Outcome(entries=entries, cached=cached, ran=len(jobs), failed=failed)


def _remove_partial_runs(cache_dir: Path) -> None:
    """Delete run files that workers stopped part-way (a failure or Ctrl-C kills the pool, and a
    killed worker cannot remove its temporary file). Safe: the caller holds the directory's lock
    (``locks.py``) or is its only user, so no other writer has a temporary file there."""
    for partial in cache_dir.glob(".*.tmp"):
        with contextlib.suppress(OSError):
            partial.unlink()


def _raise_failure(job: Job, entry: Mapping[str, Any]) -> None:
    if entry.get("error_type") == "ScenarioError":
        from .._core import ScenarioError

        raise ScenarioError(str(entry.get("error")))
    raise RunFailed(job, entry)


def execute(
    specs: Sequence[RunSpec], cache_dir, jobs: int, progress_stream=None, executor=None
) -> Dict[str, Dict[str, Any]]:
    """Summaries of all ``specs`` by key (``reproduce``): cached ones loaded, the others run on
    ``executor`` (default: ``jobs`` local processes). The first failing run cancels the rest and
    raises (``ScenarioError`` for an invalid scenario or override)."""
    if executor is None:
        executor = LocalExecutor(jobs)
    outcome = run_all(specs, cache_dir, executor, progress_stream, stop_on_error=True)
    return {key: entry["summary"] for key, entry in outcome.entries.items()}
