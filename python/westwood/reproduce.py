"""``westwood reproduce``: run registered experiments and write their reports."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Dict, List, Optional, Sequence, TextIO, Tuple

from . import report
from .errors import UsageError
from .experiments import Experiment
from .plot import plot_experiment
from .runner import default_jobs, execute, plan

DEFAULT_OUT = "results"


def default_seeds(quick: bool) -> int:
    return 1 if quick else 3


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
    experiments: Sequence[Experiment],
    out_dir,
    *,
    quick: bool = False,
    seeds: Optional[int] = None,
    jobs: Optional[int] = None,
    extra: Sequence[Tuple[str, str]] = (),
    progress_stream: Optional[TextIO] = None,
) -> List[Path]:
    """Run every experiment's runs (cached ones are reused), then write per experiment
    ``<id>.csv``, ``<id>.md``, ``<id>.png``, ``<id>.svg`` and the directory's index.
    ``extra`` overrides apply to every run (and are part of each run's cache key)."""
    out = Path(out_dir)
    seeds = seeds if seeds is not None else default_seeds(quick)
    if seeds < 1:
        raise UsageError("--seeds must be at least 1")
    jobs = jobs if jobs is not None else default_jobs()
    extra = list(extra)
    specs = {e.id: plan(e, quick, seeds, extra) for e in experiments}
    out.mkdir(parents=True, exist_ok=True)
    summaries = execute(
        [s for group in specs.values() for s in group], out / "runs", jobs, progress_stream
    )

    written: List[Path] = []
    entries: Dict[str, Dict[str, object]] = {}
    for experiment in experiments:
        rows = report.experiment_rows(experiment, specs[experiment.id], summaries)
        xs, cells = report.aggregate(experiment, rows)
        mode = "quick" if quick else "full"
        command = rerun_command(experiment.id, quick, seeds, extra, out)
        csv_path = out / f"{experiment.id}.csv"
        md_path = out / f"{experiment.id}.md"
        report.write_csv(csv_path, rows)
        report.write_markdown(md_path, experiment, xs, cells, seeds, quick, command)
        written += [csv_path, md_path]
        written += plot_experiment(experiment, xs, cells, out / experiment.id)
        entries[experiment.id] = {
            "title": experiment.title,
            "paper": experiment.paper,
            "scenario": experiment.scenario,
            "quick": quick,
            "seeds": seeds,
            "runs": len(rows),
            "runs_text": f"{mode}, {len(rows)} runs, {seeds} seed(s) per point",
            "command": command,
            "table": report.result_table(experiment, xs, cells),
        }
    manifest = report.update_manifest(out, entries)
    report.write_index(out, manifest)
    written += [out / "index.md", out / "index.html"]
    return written
