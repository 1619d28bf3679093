"""Planning, caching and executing the runs of ``westwood reproduce``.

Every run is identified by its experiment id, overrides and seed; its summary is cached in
``DIR/runs/<key>.json`` (written atomically by the process that ran it), so an interrupted
reproduction resumes where it stopped and a finished one is not recomputed. Runs of experiments
that need time series (``experiment.record``) also cache their flow series there.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

from .experiments import AnyExperiment
from .files import write_json_atomic
from .paths import resolve_scenario
from .progress import Progress

Overrides = Tuple[Tuple[str, str], ...]


@lru_cache(maxsize=None)
def _file_digest(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _engine_digest() -> str:
    """Identity of the compiled simulator: a rebuilt engine must not reuse old results."""
    from . import _core

    return _file_digest(_core.__file__)


def cache_key(
    experiment_id: str,
    overrides: Iterable[Tuple[str, str]],
    seed: int,
    scenario_path: str = "",
    record: bool = False,
) -> str:
    """Key of one run: what was asked (experiment, overrides, seed, whether the time series are
    kept) and what answers it (the scenario file's content and the compiled engine), so edits to
    either invalidate the cache."""
    asked: Dict[str, Any] = {
        "experiment": experiment_id,
        "overrides": sorted([k, v] for k, v in overrides),
        "seed": seed,
        "scenario": _file_digest(scenario_path) if scenario_path else "",
        "engine": _engine_digest(),
    }
    if record:
        asked["record"] = True
    payload = json.dumps(asked, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class RunSpec:
    experiment: str
    scenario_path: str
    overrides: Overrides
    seed: int
    x: float
    series: str
    record: bool = False  # keep the flow time series (in the cache entry)

    @cached_property
    def key(self) -> str:
        return cache_key(
            self.experiment, self.overrides, self.seed, self.scenario_path, self.record
        )

    def identity(self) -> Dict[str, Any]:
        identity: Dict[str, Any] = {
            "experiment": self.experiment,
            "overrides": [list(p) for p in self.overrides],
            "seed": self.seed,
        }
        if self.record:
            identity["record"] = True
        return identity


def seed_values(count: int) -> List[int]:
    """The seeds used for ``count`` repetitions: 1..count."""
    return list(range(1, count + 1))


def plan(
    experiment: AnyExperiment, quick: bool, seeds: int, extra: Sequence[Tuple[str, str]] = ()
) -> List[RunSpec]:
    """Every run of an experiment, in x, series, seed order."""
    path = str(resolve_scenario(experiment.scenario))
    return [
        RunSpec(
            experiment=experiment.id,
            scenario_path=path,
            overrides=tuple(experiment.run_overrides(x, series, quick, extra)),
            seed=seed,
            x=x,
            series=series.label,
            record=experiment.record,
        )
        for x, series in experiment.points(quick)
        for seed in seed_values(seeds)
    ]


def cache_path(cache_dir: Path, spec: RunSpec) -> Path:
    return Path(cache_dir) / f"{spec.key}.json"


def _load_entry(cache_dir: Path, spec: RunSpec) -> Optional[Dict[str, Any]]:
    """The cache entry of ``spec``, or None (missing, unreadable, incomplete or another run's)."""
    try:
        with open(cache_path(cache_dir, spec), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("run") != spec.identity():
        return None
    if not isinstance(data.get("summary"), dict):
        return None
    if spec.record and not isinstance(data.get("flow_series"), dict):
        return None
    return data


def load_cached(cache_dir: Path, spec: RunSpec) -> Optional[Dict[str, Any]]:
    """The cached summary of ``spec``, or None (missing, unreadable or for another run)."""
    entry = _load_entry(cache_dir, spec)
    return entry["summary"] if entry is not None else None


def load_series(cache_dir: Path, spec: RunSpec) -> Dict[str, List[Any]]:
    """The flow time series (columns, as ``tables.FLOW_SERIES_COLUMNS``) cached for a recorded
    ``spec``; raises LookupError if the run has not been cached with them."""
    entry = _load_entry(cache_dir, spec) if spec.record else None
    if entry is None:
        raise LookupError(f"no cached time series for run {spec.key}")
    return entry["flow_series"]


def run_spec(spec: RunSpec, cache_dir: str) -> Dict[str, Any]:
    """Run one spec and cache its summary, and its flow series when ``spec.record`` (top-level
    so worker processes can call it). Returns the summary; the series stay in the cache."""
    from . import _core

    summary_json, flow_series, _ = _core.run(
        spec.scenario_path, list(spec.overrides), spec.seed, spec.record, False
    )
    summary = json.loads(summary_json)
    entry: Dict[str, Any] = {"run": spec.identity(), "summary": summary}
    if spec.record:
        entry["flow_series"] = {k: list(v) for k, v in (flow_series or {}).items()}
    write_json_atomic(cache_path(Path(cache_dir), spec), entry)
    return summary


def execute(
    specs: Sequence[RunSpec], cache_dir: Path, jobs: int, progress_stream=None
) -> Dict[str, Dict[str, Any]]:
    """Summaries of all ``specs`` by key: cached ones loaded, the others run on ``jobs``
    processes. The first failing run cancels the rest and its exception propagates."""
    results: Dict[str, Dict[str, Any]] = {}
    todo: List[RunSpec] = []
    seen = set()
    for spec in specs:
        if spec.key in seen:
            continue
        seen.add(spec.key)
        cached = load_cached(cache_dir, spec)
        if cached is not None:
            results[spec.key] = cached
        else:
            todo.append(spec)
    progress = Progress(len(results) + len(todo), cached=len(results), stream=progress_stream)
    progress.show(force=True)
    try:
        if jobs <= 1 or len(todo) <= 1:
            for spec in todo:
                results[spec.key] = run_spec(spec, str(cache_dir))
                progress.advance()
        else:
            _execute_pool(todo, cache_dir, jobs, progress, results)
    finally:
        progress.close()
    return results


def _execute_pool(
    todo: Sequence[RunSpec],
    cache_dir: Path,
    jobs: int,
    progress: Progress,
    results: Dict[str, Dict[str, Any]],
) -> None:
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(todo)))
    try:
        pending = {pool.submit(run_spec, spec, str(cache_dir)): spec for spec in todo}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                spec = pending.pop(future)
                results[spec.key] = future.result()  # re-raises a worker's exception
                progress.advance()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def default_jobs() -> int:
    return os.cpu_count() or 1
