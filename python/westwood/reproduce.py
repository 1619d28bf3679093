"""``westwood reproduce``: run registered experiments and write their reports."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, TextIO, Tuple

from .checks import count
from .experiments.base import ExperimentKind
from .experiments.measurement import reproduce_measurements
from .experiments.testbed import reproduce_testbed
from .locks import output_lock
from .report import html as report
from .runs.runner import execute
from .runs.store import default_jobs, plan

DEFAULT_OUT = "results"

# Seeds per point of a quick run (at most the experiment's own): a comparison claim is judged on
# a confidence interval over seeds, which one seed does not have (claims.py).
QUICK_SEEDS = 3


def default_seeds(experiment: ExperimentKind, quick: bool) -> int:
    """Seeds per point when --seeds is not given: the experiment's own, at most QUICK_SEEDS in
    quick mode."""
    return min(experiment.seeds, QUICK_SEEDS) if quick else experiment.seeds


def rerun_command(
    experiment_id: str, quick: bool, seeds: int, extra: Sequence[Tuple[str, str]], out_dir: Path
) -> str:
    argv = ["westwood", "reproduce", experiment_id]
    if quick:
        argv.append("--quick")
    argv += ["--seeds", str(seeds)]
    for key, value in extra:
        argv += ["--set", f"{key}={value}"]
    argv += ["--out", str(out_dir)]
    return shlex.join(argv)


def reproduce(
    experiments: Sequence[ExperimentKind],
    out_dir,
    *,
    quick: bool = False,
    seeds: Optional[int] = None,
    jobs: Optional[int] = None,
    extra: Sequence[Tuple[str, str]] = (),
    progress_stream: Optional[TextIO] = None,
    executor=None,
    wait: bool = False,
) -> List[Path]:
    """Run every experiment's runs (cached ones are reused), then write per experiment
    ``<id>.csv``, ``<id>.md``, ``<id>.png``, ``<id>.svg`` (each kind's ``write_report``; trace
    experiments also ``<id>_trace.csv``) and the directory's index. ``extra`` overrides apply
    to every run (and are part of each run's cache key). ``seeds`` (default: 1 with ``quick``,
    else each experiment's own) is the number of seeds per point. ``executor`` (see
    ``runs/executors.py``) runs what is not cached; default: ``jobs`` local processes.

    ``out_dir`` is locked while this runs (``locks.output_lock``): if another sweep or
    reproduction is writing it, ``DirectoryInUse`` is raised, or with ``wait`` this waits for
    it to finish (and then reuses its runs)."""
    out = Path(out_dir)
    seeds = count(seeds, "seeds") if seeds is not None else None
    jobs = count(jobs, "jobs") if jobs is not None else default_jobs()
    extra = list(extra)
    # Testbed experiments (real TCP, run one at a time after the simulations): their own module.
    testbed = [e for e in experiments if e.kind == "testbed"]
    experiments = [e for e in experiments if e.kind != "testbed"]
    # The Internet measurements run `westwood measure` through an emulated path (measurement.py).
    measured = [e for e in testbed if getattr(e, "measured_with", "") == "measure"]
    testbed = [e for e in testbed if e not in measured]
    n_seeds = {e.id: seeds if seeds is not None else default_seeds(e, quick) for e in experiments}
    specs = {e.id: plan(e, quick, n_seeds[e.id], extra) for e in experiments}
    # The lock creates ``out``; a bad experiment or scenario (found while planning) does not.
    with output_lock(out, wait, progress_stream):
        all_specs = [s for group in specs.values() for s in group]
        summaries = (
            execute(all_specs, out / "runs", jobs, progress_stream, executor=executor)
            if all_specs
            else {}
        )

        written: List[Path] = []
        entries: Dict[str, Dict[str, Any]] = {}
        if testbed:
            tb_written, tb_entries = reproduce_testbed(
                testbed,
                out,
                quick=quick,
                seeds=seeds,
                extra=extra,
                stream=progress_stream,
                command=lambda e, n: rerun_command(e.id, quick, n, extra, out),
            )
            written += tb_written
            entries.update(tb_entries)
        if measured:
            ms_written, ms_entries = reproduce_measurements(
                measured,
                out,
                quick=quick,
                extra=extra,
                stream=progress_stream,
                command=lambda e, n: rerun_command(e.id, quick, n, extra, out),
            )
            written += ms_written
            entries.update(ms_entries)
        for experiment in experiments:
            command = rerun_command(experiment.id, quick, n_seeds[experiment.id], extra, out)
            paths, entry = experiment.write_report(
                specs[experiment.id],
                summaries,
                out,
                quick,
                n_seeds[experiment.id],
                command,
            )
            written += paths
            mode = "quick" if quick else "full"
            runs = len(specs[experiment.id])
            entries[experiment.id] = report.index_entry(
                experiment,
                quick,
                n_seeds[experiment.id],
                runs,
                f"{mode}, {runs} runs, {n_seeds[experiment.id]} seed(s) per point",
                command,
                entry,
            )
        manifest = report.update_manifest(out, entries)
        report.write_index(out, manifest)
        written += [out / "index.md", out / "index.html"]
        return written
