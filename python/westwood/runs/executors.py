"""Where runs execute: in this process, on a local process pool, or on a Dask cluster.

An executor's ``execute(jobs, store, note)`` is a generator of ``(job, entry)`` pairs in
completion order, and of ``(None, None)`` about every ``TICK`` seconds while nothing finishes (so
the caller can redraw its progress without a thread of its own: the local pool forks). By the
time a pair is yielded its entry is committed to ``store`` (by the worker when it sees the store,
i.e. locally; by this process for Dask, whose workers may have no shared filesystem). Closing
the generator early (an error, Ctrl-C) cancels what has not finished and stops the workers; runs
already committed stay.

* ``LocalExecutor(jobs)``: ``jobs`` worker processes (default: every core; ``inline=True`` runs
  in this process). Workers ignore Ctrl-C (this process handles it) and die with this process (Linux
  ``PR_SET_PDEATHSIG``). A worker that dies (killed, out of memory) breaks the pool: the runs
  that were in flight are retried one at a time in a fresh process, so the one that kills its
  worker is found and recorded as failed, and the sweep goes on.
* ``DaskExecutor(scheduler)``: a ``distributed.Client`` on the scheduler at ``scheduler``, or
  without one a ``LocalCluster`` of ``jobs`` worker processes with one thread each. Dask
  re-runs the tasks of a worker that dies (up to its ``allowed-failures``, then the run is
  recorded as failed with ``KilledWorker``).
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import sys
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Deque, Iterator, List, Optional, Sequence, Tuple

from ..errors import UsageError
from .store import (
    Entry,
    Job,
    commit_entry,
    default_jobs,
    failed_entry,
    remove_run_directories,
    run_job,
)

EXECUTORS = ("local", "dask")
TICK = 1.0  # seconds

Result = Iterator[Tuple[Job, Entry]]
Note = Optional[Callable[[str], None]]


def _quiet(text: str) -> None:
    pass


def make_executor(kind: str = "local", jobs: Optional[int] = None, scheduler: Optional[str] = None):
    """The executor named by the CLI options ``--executor``, ``--jobs``, ``--scheduler``."""
    if jobs is not None and jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if scheduler is not None and kind == "local":
        raise UsageError("--scheduler needs --executor dask")
    if kind == "local":
        return LocalExecutor(jobs)
    if kind == "dask":
        if scheduler is not None and jobs is not None:
            raise UsageError(
                "--jobs sets the number of local Dask workers; with --scheduler the cluster's "
                "workers run the tasks (start more `dask worker` processes instead)"
            )
        return DaskExecutor(scheduler, jobs)
    raise UsageError(f"unknown executor {kind!r} (known: {', '.join(EXECUTORS)})")


# --- local -------------------------------------------------------------------------------------

_PR_SET_PDEATHSIG = 1


def _worker_init() -> None:
    """Pool worker set-up: leave Ctrl-C to the parent, and die with the parent (the driver, or
    with the forkserver start method the fork server, which exits with the driver), so a killed
    sweep leaves no orphan worker behind."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: cancel queued work and kill the workers (their unfinished runs are lost,
    finished ones are committed already)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.kill()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(5)
    # A killed worker leaves its run's scenario directory behind.
    remove_run_directories(p.pid for p in processes if p.pid is not None)


class LocalExecutor:
    """Runs on this machine: ``jobs`` worker processes (default: every core). With ``inline``
    the runs execute in this process instead, one after the other (no pool; Ctrl-C then waits
    for the run in progress)."""

    kind = "local"

    def __init__(self, jobs: Optional[int] = None, inline: bool = False) -> None:
        self.jobs = jobs if jobs is not None else default_jobs()
        self.inline = inline

    def describe(self) -> str:
        if self.inline:
            return "local, in this process"
        return f"local, {self.jobs} process{'es' if self.jobs > 1 else ''}"

    def execute(self, jobs: Sequence[Job], store: str, note: Note = None) -> Result:
        note = note or _quiet
        if self.inline:
            for job in jobs:
                yield job, run_job(job, store)
            return
        workers = min(self.jobs, len(jobs))
        queue: Deque[Job] = collections.deque(jobs)
        while queue:
            suspects: List[Job] = []
            yield from self._pool(queue, workers, store, suspects)
            # The pool broke: retry the runs that were in flight, each alone in a fresh worker.
            if suspects:
                note(
                    f"a worker process died; retrying the {len(suspects)} run(s) it may have "
                    "been running, one at a time"
                )
            for job in suspects:
                yield from self._isolated(job, store)

    def _pool(self, queue: Deque[Job], workers: int, store: str, suspects: List[Job]) -> Result:
        """Run ``queue`` on ``workers`` processes, keeping 2 x workers runs in flight. If a worker
        dies, the runs in flight go to ``suspects`` and the rest stay in ``queue``."""
        pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init)
        clean = False
        try:
            pending = {}
            while queue or pending:
                while queue and len(pending) < 2 * workers:
                    job = queue.popleft()
                    pending[pool.submit(run_job, job, store)] = job
                done, _ = wait(pending, timeout=TICK, return_when=FIRST_COMPLETED)
                if not done:
                    yield None, None
                    continue
                broken = False
                for future in done:
                    job = pending.pop(future)
                    try:
                        entry = future.result()
                    except BrokenProcessPool:
                        suspects.append(job)
                        broken = True
                        continue
                    except OSError:
                        # The worker could not commit the run it ran (a full disk, a store
                        # gone read-only): the command's error (exit 2, naming the file), not
                        # a failed run, even if the driver could still record one.
                        raise
                    except Exception as err:  # e.g. a job that cannot be sent to the worker
                        entry = failed_entry(job, str(err), type(err).__name__)
                        commit_entry(store, job.key, entry)
                    yield job, entry
                if broken:
                    suspects.extend(pending.values())
                    pending.clear()
                    return
            clean = True
        finally:
            if clean:
                pool.shutdown(wait=True)
            else:
                _terminate(pool)

    def _isolated(self, job: Job, store: str) -> Result:
        pool = ProcessPoolExecutor(max_workers=1, initializer=_worker_init)
        clean = False
        try:
            future = pool.submit(run_job, job, store)
            while not wait([future], timeout=TICK).done:
                yield None, None
            try:
                entry = future.result()
            except BrokenProcessPool:
                entry = failed_entry(
                    job,
                    "the worker process died while running this run (killed, out of memory, or "
                    "crashed); it was retried alone and died again",
                    "WorkerDied",
                )
                commit_entry(store, job.key, entry)
            clean = True
            yield job, entry
        finally:
            if clean:
                pool.shutdown(wait=True)
            else:
                _terminate(pool)


# --- Dask --------------------------------------------------------------------------------------


@contextlib.contextmanager
def _sigint_ignored():
    """Ignore SIGINT while child processes are started (an ignored signal stays ignored in a
    spawned interpreter), so that Ctrl-C reaches only this process, which stops the cluster."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise UsageError(
            "--executor dask needs Dask: pip install 'westwood[dask]' (or 'dask[distributed]')"
        ) from None
    return distributed


class DaskExecutor:
    """Runs on a Dask cluster: the scheduler at ``scheduler`` (``tcp://host:8786``), or a
    ``LocalCluster`` of ``workers`` processes (default: every core) with one thread each."""

    kind = "dask"

    def __init__(self, scheduler: Optional[str] = None, workers: Optional[int] = None) -> None:
        self.scheduler = scheduler
        self.workers = workers if workers is not None else default_jobs()

    def describe(self) -> str:
        if self.scheduler:
            return f"dask, scheduler {self.scheduler}"
        return f"dask, local cluster of {self.workers} worker processes"

    @contextlib.contextmanager
    def client(self):
        import logging

        distributed = _import_distributed()
        if self.scheduler:
            try:
                client = distributed.Client(self.scheduler, timeout="30s")
            except (OSError, TimeoutError) as err:
                raise UsageError(
                    f"cannot connect to the Dask scheduler at {self.scheduler}: {err}"
                ) from None
            try:
                yield client
            finally:
                client.close()
            return
        with _sigint_ignored():  # worker processes started now inherit it: Ctrl-C is ours
            cluster = distributed.LocalCluster(
                n_workers=self.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port: never clash with another cluster
                silence_logs=logging.ERROR,
            )
        try:
            client = distributed.Client(cluster)
            try:
                yield client
            finally:
                client.close()
        finally:
            cluster.close()

    def execute(self, jobs: Sequence[Job], store: str, note: Note = None) -> Result:
        if not jobs:
            return
        distributed = _import_distributed()
        note = note or _quiet
        with self.client() as client:
            if self.scheduler:
                workers = len(client.scheduler_info().get("workers", {}))
                note(
                    f"connected to the Dask scheduler at {self.scheduler} ({workers} workers)"
                    + ("; runs wait until `dask worker` processes connect" if not workers else "")
                )
            token = uuid.uuid4().hex[:8]
            futures = {}
            for job in jobs:
                future = client.submit(
                    run_job, job, None, key=f"westwood-run-{job.key}-{token}", pure=False
                )
                futures[future] = job
            completed = distributed.as_completed(list(futures))
            idle_since = time.monotonic()
            try:
                while not completed.is_empty():
                    batch = completed.next_batch(block=False)
                    if not batch:
                        if time.monotonic() - idle_since >= TICK:
                            idle_since = time.monotonic()
                            yield None, None
                        time.sleep(0.02)
                        continue
                    idle_since = time.monotonic()
                    for future in batch:
                        job = futures[future]
                        try:
                            entry = future.result()
                        except Exception as err:  # KilledWorker, a worker without westwood, ...
                            entry = failed_entry(job, _dask_error(err), type(err).__name__)
                        commit_entry(store, job.key, entry)
                        yield job, entry
            finally:
                with contextlib.suppress(Exception):
                    client.cancel(list(futures), force=True)


def _dask_error(err: BaseException) -> str:
    text = str(err) or type(err).__name__
    if type(err).__name__ == "KilledWorker":
        return f"Dask workers died while running this run ({text})"
    if isinstance(err, ImportError):
        return f"{text}: the Dask workers need the westwood package installed"
    return text
