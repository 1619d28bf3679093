"""The store of runs shared by ``westwood reproduce`` and ``westwood sweep``: what identifies a
run (its key), the per-run files, and the jobs workers run (``runner.py`` drives them on an
executor, ``executors.py``).

* A run is identified by what is asked (the overrides, the seed, whether time series are kept,
  and for ``reproduce`` the experiment id) and by what answers it: the scenario file's content
  (SHA-256) and the code version (SHA-256 of the compiled ``westwood._core`` plus the package
  version). Its key is a hash of all of these, so an edited scenario or a rebuilt engine never
  reuses an old result.
* Each finished run is committed as one file ``STORE/<key>.json`` written to a temporary file
  and renamed into place (``files.write_json_atomic``): the store holds complete files only, so an
  interrupt (Ctrl-C, a killed process or worker) loses no finished run and never corrupts it. A
  failed run is committed too, with ``status: "failed"`` and its ``error``; it is run again by
  the next invocation (only ``status: "ok"`` entries count as done).
* Workers get everything in the task: the scenario *text* travels with each run (``Job``), so
  a remote worker needs the westwood package (with its compiled core) but no shared filesystem.
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..errors import UsageError
from ..files import remove_left_behind, write_json_atomic
from ..paths import resolve_scenario
from ..version import __version__

Overrides = Tuple[Tuple[str, str], ...]
Entry = Dict[str, Any]

STATUS_OK = "ok"
STATUS_FAILED = "failed"


# --- identity: scenario content and code version -----------------------------------------------


@lru_cache(maxsize=None)
def _file_digest(path: str, stamp: Optional[Tuple[int, int]] = None) -> str:
    """SHA-256 of a file; ``stamp`` (mtime, size) makes an edited file a new cache entry."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def file_digest(path) -> str:
    """SHA-256 of a file as it is now (recomputed only when the file changes): a scenario, the
    testbed's binary."""
    path = os.fspath(path)
    st = os.stat(path)
    return _file_digest(path, (st.st_mtime_ns, st.st_size))


def scenario_digest(path: str) -> str:
    """SHA-256 of a scenario file as it is now."""
    return file_digest(path)


def package_version() -> str:
    return __version__


@lru_cache(maxsize=1)
def code_version() -> Dict[str, str]:
    """What computes a run: the compiled simulator (its file's SHA-256) and the package version.
    A worker with another build must not answer for this one (``run_job`` checks)."""
    from .. import _core

    return {"core_sha256": _file_digest(_core.__file__), "version": package_version()}


def _engine_digest() -> str:
    code = code_version()
    return f"{code['core_sha256']}+{code['version']}"


def cache_key(
    experiment_id: str,
    overrides: Iterable[Tuple[str, str]],
    seed: int,
    scenario_path: str = "",
    record: bool = False,
    scenario_sha256: str = "",
) -> str:
    """Key of one run: what was asked (experiment, overrides, seed, whether the time series are
    kept) and what answers it (the scenario file's content and the code version), so edits to
    either invalidate the cache. ``experiment_id`` is "" for runs of a sweep."""
    asked: Dict[str, Any] = {
        "overrides": sorted([k, v] for k, v in overrides),
        "seed": seed,
        "scenario": scenario_sha256 or (scenario_digest(scenario_path) if scenario_path else ""),
        "engine": _engine_digest(),
    }
    if experiment_id:
        asked["experiment"] = experiment_id
    if record:
        asked["record"] = True
    payload = json.dumps(asked, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:24]


@dataclass(frozen=True)
class RunSpec:
    """One run to do. ``experiment``, ``x`` and ``series`` label runs of ``reproduce``; a sweep
    leaves them empty."""

    experiment: str
    scenario_path: str
    overrides: Overrides
    seed: int
    x: float = 0.0
    series: str = ""
    record: bool = False  # keep the flow time series (in the store entry)
    scenario_sha256: str = ""  # the scenario's content when planned ("": read at first use)

    @cached_property
    def sha256(self) -> str:
        return self.scenario_sha256 or scenario_digest(self.scenario_path)

    @cached_property
    def key(self) -> str:
        return cache_key(
            self.experiment, self.overrides, self.seed, self.scenario_path, self.record, self.sha256
        )

    def identity(self) -> Dict[str, Any]:
        identity: Dict[str, Any] = {}
        if self.experiment:
            identity["experiment"] = self.experiment
        identity["overrides"] = [list(p) for p in self.overrides]
        identity["seed"] = self.seed
        if self.record:
            identity["record"] = True
        return identity


# --- planning for reproduce --------------------------------------------------------------------


def seed_values(count: int) -> List[int]:
    """The seeds used for ``count`` repetitions: 1..count."""
    return list(range(1, count + 1))


def plan(
    experiment, quick: bool, seeds: int, extra: Sequence[Tuple[str, str]] = ()
) -> List[RunSpec]:
    """Every run of an experiment, in x, series, seed order."""
    path = str(resolve_scenario(experiment.scenario))
    digest = scenario_digest(path)
    return [
        RunSpec(
            experiment=experiment.id,
            scenario_path=path,
            scenario_sha256=digest,
            overrides=tuple(experiment.run_overrides(x, series, quick, extra)),
            seed=seed,
            x=x,
            series=series.label,
            record=experiment.record,
        )
        for x, series in experiment.points(quick)
        for seed in seed_values(seeds)
    ]


# --- the store ---------------------------------------------------------------------------------


def cache_path(cache_dir, spec_or_key) -> Path:
    key = spec_or_key if isinstance(spec_or_key, str) else spec_or_key.key
    return Path(cache_dir) / f"{key}.json"


def read_entry(cache_dir, key: str) -> Optional[Entry]:
    """The stored entry of ``key`` (ok or failed), or None if missing or unreadable."""
    try:
        with open(cache_path(cache_dir, key), encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def entry_ok(entry: Optional[Mapping[str, Any]], identity: Mapping[str, Any], record: bool) -> bool:
    """Whether ``entry`` is a finished, successful run with this identity (and series if
    ``record``). Entries written before the status field existed are successful ones."""
    if not isinstance(entry, Mapping) or entry.get("run") != identity:
        return False
    if entry.get("status", STATUS_OK) != STATUS_OK or not isinstance(entry.get("summary"), dict):
        return False
    return not record or isinstance(entry.get("flow_series"), dict)


def _load_entry(cache_dir, spec: RunSpec) -> Optional[Entry]:
    """The successful stored entry of ``spec``, or None (missing, unreadable, incomplete, failed
    or another run's)."""
    entry = read_entry(cache_dir, spec.key)
    return entry if entry_ok(entry, spec.identity(), spec.record) else None


def load_series(cache_dir, spec: RunSpec) -> Dict[str, List[Any]]:
    """The flow time series (columns, as ``tables.FLOW_SERIES_COLUMNS``) cached for a recorded
    ``spec``; raises LookupError if the run has not been cached with them."""
    entry = _load_entry(cache_dir, spec) if spec.record else None
    if entry is None:
        raise LookupError(f"no cached time series for run {spec.key}")
    return entry["flow_series"]


def commit_entry(cache_dir, key: str, entry: Mapping[str, Any]) -> None:
    """Commit one finished run: a complete file appears at once, or nothing does."""
    write_json_atomic(cache_path(cache_dir, key), entry, durable=True)


# --- jobs: what a worker gets and does ---------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """A self-contained run for a worker: the scenario text, not its path."""

    key: str
    identity: Mapping[str, Any]
    origin: str  # the scenario file as the driver knows it (named in error messages)
    text: str
    sha256: str
    overrides: Overrides
    seed: int
    record: bool
    code: Mapping[str, str] = field(default_factory=dict)  # the driver's code version


def make_jobs(specs: Sequence[RunSpec]) -> List[Job]:
    """Jobs for ``specs``, each carrying its scenario's text. The text must be the content the
    keys were computed from; a file edited since is an error."""
    texts: Dict[str, Tuple[str, str]] = {}
    jobs = []
    for spec in specs:
        if spec.scenario_path not in texts:
            data = Path(spec.scenario_path).read_bytes()
            texts[spec.scenario_path] = (
                data.decode("utf-8", "surrogateescape"),
                hashlib.sha256(data).hexdigest(),
            )
        text, digest = texts[spec.scenario_path]
        if digest != spec.sha256:
            raise UsageError(
                f"{spec.scenario_path}: the scenario file changed after the runs were planned; "
                "run the command again"
            )
        jobs.append(
            Job(
                key=spec.key,
                identity=spec.identity(),
                origin=spec.scenario_path,
                text=text,
                sha256=digest,
                overrides=tuple(spec.overrides),
                seed=spec.seed,
                record=spec.record,
                code=code_version(),
            )
        )
    return jobs


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def _base_entry(job: Job) -> Entry:
    return {
        "run": dict(job.identity),
        "key": job.key,
        "status": STATUS_OK,
        "scenario": {"origin": job.origin, "sha256": job.sha256},
    }


def failed_entry(job: Job, error: str, error_type: str = "") -> Entry:
    """The entry of a run that did not finish (recorded by the driver, e.g. a killed worker)."""
    entry = _base_entry(job)
    entry.update(status=STATUS_FAILED, error=error, error_type=error_type, finished=_now())
    return entry


# A run's private scenario file lives in ``TMPDIR/westwood-run-PID-XXXX``: a worker killed
# mid-run (a sweep's Ctrl-C kills its pool) cannot remove it, so whoever knows the PID is gone
# does (``remove_run_directories``).
RUN_DIRECTORY_PREFIX = "westwood-run-"


def remove_run_directories(pids: Optional[Iterable[int]] = None) -> int:
    """Remove the run directories of processes ``pids`` (killed workers), or with ``pids`` None of
    every process of this user that no longer exists (stale ones). Returns how many went."""
    import re

    pattern = re.compile(re.escape(RUN_DIRECTORY_PREFIX) + r"(\d+)-[A-Za-z0-9_]+")
    return remove_left_behind(Path(tempfile.gettempdir()), pattern, pids)


def _run_text(job: Job):
    """Run ``job`` from its scenario text: written to a private temporary file named like the
    original (so the scenario's default name and messages are the same); messages naming the
    temporary file name the original instead."""
    from .. import _core

    name = Path(job.origin).name or "scenario.toml"
    with tempfile.TemporaryDirectory(prefix=f"{RUN_DIRECTORY_PREFIX}{os.getpid()}-") as tmp:
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(job.text.encode("utf-8", "surrogateescape"))
        try:
            return _core.run(path, list(job.overrides), job.seed, job.record, False)
        except _core.ScenarioError as err:
            raise _core.ScenarioError(str(err).replace(path, job.origin)) from None


def run_job(job: Job, commit_dir: Optional[str] = None) -> Entry:
    """Run one job on this process (top-level, so pool workers and Dask workers can call it).

    Never raises for a failed run: the entry says ``status: "failed"`` with the ``error``. With
    ``commit_dir`` (a worker that sees the store) the entry is committed here, as soon as the
    run ends, and returned without its time series."""
    started = time.monotonic()
    entry = _base_entry(job)
    entry.update(
        code=code_version(),
        host=socket.gethostname(),
        pid=os.getpid(),
        execution=uuid.uuid4().hex,
        started=_now(),
    )
    if job.code and dict(job.code) != entry["code"]:
        entry.update(
            status=STATUS_FAILED,
            error_type="CodeVersionMismatch",
            error=f"the worker on {entry['host']} runs another westwood build "
            f"({_describe_code(entry['code'])}) than the driver ({_describe_code(job.code)}); "
            "install the same build on every worker",
        )
    else:
        try:
            summary_json, flow_series, _ = _run_text(job)
            entry["summary"] = json.loads(summary_json)
            if job.record:
                entry["flow_series"] = {k: list(v) for k, v in (flow_series or {}).items()}
        except (KeyboardInterrupt, SystemExit, GeneratorExit):
            raise
        except BaseException as err:  # ScenarioError, and pyo3's PanicException (a BaseException)
            entry.update(status=STATUS_FAILED, error=str(err), error_type=type(err).__name__)
    entry["finished"] = _now()
    entry["elapsed_seconds"] = time.monotonic() - started
    if commit_dir is not None:
        commit_entry(commit_dir, job.key, entry)
        entry.pop("flow_series", None)
    return entry


def _describe_code(code: Mapping[str, str]) -> str:
    return f"westwood {code.get('version', '?')}, core {str(code.get('core_sha256', '?'))[:12]}"


def default_jobs() -> int:
    """Worker processes when none is asked for: every core."""
    return os.cpu_count() or 1
