"""``westwood sweep``: the cartesian product of parameter axes x seeds, run on the shared engine
(``runs/``: runner, executors, store), stored one file per run and consolidated into Parquet.

Store layout (``--out DIR``)::

    DIR/sweep.json        the sweep: scenario, axes, seeds, fixed overrides, every planned run
                          (written before anything runs)
    DIR/runs/<key>.json   one file per finished run (ok or failed), committed atomically
    DIR/results.parquet   one row per run of this sweep (written at the end; rebuildable)
    DIR/summary.csv       per grid point: runs, failures, mean and 95% CI of each metric
    DIR/summary.md        the same as a Markdown table, with the failed runs and their errors
    DIR/sweep.png, .svg   metrics vs the first axis, one line per value of the second

``results.parquet``, the summary and the plot are derived from ``sweep.json`` and the run
files only (``rebuild``), so they can be rewritten at any time and a store is never corrupt.
"""

from __future__ import annotations

import json
import math
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, TextIO, Tuple, Union

from .checks import count, describe
from .errors import UsageError
from .files import (
    write_bytes_atomic,
    write_json_atomic,
    write_text_atomic,
    writing,
)
from .locks import output_lock
from .overrides import OverridesLike, merge, normalize
from .paths import ScenarioLike, resolve_scenario
from .runs import runner, store
from .stats import MeanCI, mean_ci

FORMAT = 1
DEFINITION = "sweep.json"
RESULTS = "results.parquet"
SUMMARY_CSV = "summary.csv"
SUMMARY_MD = "summary.md"
PLOT_STEM = "sweep"
RUNS = "runs"
CONFIDENCE = 0.95
DEFAULT_SEEDS = 3


# --- axes --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Axis:
    """One swept parameter: a key ``--set`` accepts and its values, in order."""

    key: str
    values: Tuple[str, ...]


_OPEN = {"[": "]", "{": "}"}


def split_values(text: str) -> List[str]:
    """``"0%,1%,2%"`` -> ``["0%", "1%", "2%"]``; commas inside quotes, ``[...]`` or ``{...}``
    (TOML arrays and inline tables) do not split."""
    values, current, stack, quote = [], [], [], ""
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = ""
        elif ch in ("'", '"'):
            quote = ch
            current.append(ch)
        elif ch in _OPEN:
            stack.append(_OPEN[ch])
            current.append(ch)
        elif stack and ch == stack[-1]:
            stack.pop()
            current.append(ch)
        elif ch == "," and not stack:
            values.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    values.append("".join(current).strip())
    return values


def parse_vary(text: str) -> Axis:
    """``--vary KEY=V1,V2,...`` -> ``Axis``; UsageError (exit 2) for malformed text."""
    example = "(for example --vary loss=0%,1%,2%)"
    key, sep, rest = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise UsageError(f"--vary {text!r}: expected KEY=V1,V2,... {example}")
    if any(c.isspace() for c in key):
        raise UsageError(f"--vary {text!r}: the key {key!r} contains spaces {example}")
    if not rest.strip():
        raise UsageError(f"--vary {text!r}: no values after '=' {example}")
    values = split_values(rest)
    if any(v == "" for v in values):
        raise UsageError(f"--vary {text!r}: empty value in the list {example}")
    return make_axis(key, values, f"--vary {text!r}")


def make_axis(key: str, values: Iterable[Any], where: str = "") -> Axis:
    where = where or f"axis {key!r}"
    values = tuple(str(v).strip() for v in values)
    if not values:
        raise UsageError(f"{where}: no values")
    if any(v == "" for v in values):
        raise UsageError(f"{where}: empty value")
    duplicates = sorted({v for v in values if values.count(v) > 1})
    if duplicates:
        raise UsageError(f"{where}: value {', '.join(duplicates)} given twice")
    return Axis(key.strip(), values)


_NUMBER = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([A-Za-z%/]*)\s*$")


def numeric_axis(axis: Axis) -> Optional[Tuple[List[float], str]]:
    """The values as numbers and their common unit (``["0%", "0.5%"]`` -> ``([0, 0.5], "%")``),
    or None when they are not all numbers with the same unit (then the plot is categorical)."""
    numbers, units = [], set()
    for value in axis.values:
        m = _NUMBER.match(value)
        if not m:
            return None
        numbers.append(float(m.group(1)))
        units.add(m.group(2))
    return (numbers, units.pop()) if len(units) == 1 else None


# --- the result row of a run -------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    kind: str  # "float" or "int"


METRICS: Tuple[Metric, ...] = (
    Metric("goodput_mbps", "Goodput, all TCP flows (Mb/s)", "float"),
    Metric("throughput_mbps", "Throughput, all TCP flows (Mb/s)", "float"),
    Metric("fairness", "Jain's fairness index of goodput", "float"),
    Metric("retransmits", "Retransmitted segments", "int"),
    Metric("timeouts", "Retransmission timeouts", "int"),
    Metric("fast_retransmits", "Fast retransmits", "int"),
    Metric("tcp_flows", "TCP flows", "int"),
    Metric("sim_seconds", "Simulated time (s)", "float"),
    Metric("events", "Events", "int"),
    Metric("packets", "Packets", "int"),
)
METRIC_BY_NAME = {m.name: m for m in METRICS}
# Aggregated over seeds (mean and CI) in the summary and drawn in the plot.
SUMMARY_METRICS = ("goodput_mbps", "throughput_mbps", "fairness", "retransmits", "timeouts")
PLOT_METRICS = ("goodput_mbps", "fairness", "retransmits", "timeouts")

LEADING_COLUMNS = ("scenario",)
TRAILING_COLUMNS = ("flow_goodput_mbps", "wall_seconds", "run_key", "overrides")
RESERVED = (
    set(LEADING_COLUMNS) | set(TRAILING_COLUMNS) | {"seed", "status", "error"} | set(METRIC_BY_NAME)
)


def run_metrics(summary: Mapping[str, Any]) -> Dict[str, Any]:
    """The per-run numbers of a summary: totals over the TCP flows, fairness (the summary's own
    Jain index over the same flows, the simulator's ``metrics::jain_index``), run size."""
    flows = summary.get("flows") or []
    goodputs = [float(f["goodput_bps"]) / 1e6 for f in flows]
    return {
        "goodput_mbps": math.fsum(goodputs),
        "throughput_mbps": math.fsum(float(f["throughput_bps"]) for f in flows) / 1e6,
        "fairness": summary["fairness"]["index"],
        "retransmits": sum(int(f["retransmits"]) for f in flows),
        "timeouts": sum(int(f["timeouts"]) for f in flows),
        "fast_retransmits": sum(int(f["fast_retransmits"]) for f in flows),
        "tcp_flows": len(flows),
        "sim_seconds": float(summary["sim_seconds"]),
        "events": int(summary["events"]),
        "packets": int(summary["packets"]),
        "flow_goodput_mbps": goodputs,
        "wall_seconds": float(summary.get("wall_seconds") or 0.0),
    }


# --- the plan ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SweepRun:
    values: Tuple[str, ...]  # one per axis
    seed: int
    spec: store.RunSpec


@dataclass
class Sweep:
    """A planned sweep: every run of the grid (axes in order, the last varying fastest), seeds
    innermost."""

    scenario: str  # as given
    scenario_path: str
    axes: Tuple[Axis, ...]
    seeds: Tuple[int, ...]
    overrides: Tuple[Tuple[str, str], ...]  # fixed, applied to every run before the axes
    runs: List[SweepRun] = field(default_factory=list)

    @property
    def points(self) -> List[Tuple[str, ...]]:
        seen: Dict[Tuple[str, ...], None] = {}
        for run in self.runs:
            seen.setdefault(run.values, None)
        return list(seen)


def _grid(axes: Sequence[Axis]) -> List[Tuple[str, ...]]:
    points: List[Tuple[str, ...]] = [()]
    for axis in axes:
        points = [p + (v,) for p in points for v in axis.values]
    return points


def plan_sweep(
    scenario: ScenarioLike,
    axes: Sequence[Axis],
    seeds: int = DEFAULT_SEEDS,
    overrides: OverridesLike = None,
) -> Sweep:
    if not axes:
        raise UsageError("a sweep needs at least one --vary KEY=V1,V2,...")
    seeds = count(seeds, "seeds")
    keys = [a.key for a in axes]
    twice = sorted({k for k in keys if keys.count(k) > 1})
    if twice:
        raise UsageError(f"--vary {twice[0]} is given twice; list all its values in one --vary")
    fixed = merge(overrides)
    both = [k for k, _ in fixed if k in keys]
    if both:
        raise UsageError(f"{both[0]} is both set (--set) and varied (--vary); drop one")
    clash = [k for k in keys if k in RESERVED]
    if clash:
        raise UsageError(
            f"--vary {clash[0]}: the name clashes with a result column; vary it through its "
            "dotted path or rename the scenario parameter"
        )
    path = str(resolve_scenario(scenario))
    digest = store.scenario_digest(path)
    seed_list = tuple(store.seed_values(seeds))
    sweep = Sweep(
        scenario=str(scenario),
        scenario_path=path,
        axes=tuple(axes),
        seeds=seed_list,
        overrides=tuple(fixed),
    )
    for values in _grid(axes):
        run_overrides = tuple(fixed) + tuple(zip(keys, values))
        for seed in seed_list:
            spec = store.RunSpec(
                experiment="",
                scenario_path=path,
                overrides=run_overrides,
                seed=seed,
                scenario_sha256=digest,
            )
            sweep.runs.append(SweepRun(values, seed, spec))
    return sweep


def sweep_command(sweep: Sweep, out_dir) -> str:
    argv = ["westwood", "sweep", sweep.scenario]
    for axis in sweep.axes:
        argv += ["--vary", f"{axis.key}={','.join(axis.values)}"]
    for key, value in sweep.overrides:
        argv += ["--set", f"{key}={value}"]
    argv += ["--seeds", str(len(sweep.seeds)), "--out", str(out_dir)]
    return shlex.join(argv)


def definition(sweep: Sweep, command: str, executor: str) -> Dict[str, Any]:
    return {
        "format": FORMAT,
        "scenario": {
            "given": sweep.scenario,
            "path": sweep.scenario_path,
            "sha256": sweep.runs[0].spec.sha256 if sweep.runs else "",
        },
        "axes": [{"key": a.key, "values": list(a.values)} for a in sweep.axes],
        "seeds": list(sweep.seeds),
        "overrides": [list(p) for p in sweep.overrides],
        "code": store.code_version(),
        "command": command,
        "executor": executor,
        "runs": [
            {"key": r.spec.key, "values": list(r.values), "seed": r.seed, "run": r.spec.identity()}
            for r in sweep.runs
        ],
    }


# --- running -----------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """What a sweep did and wrote. ``rows``: one dict per run (the columns of
    ``results.parquet``), in plan order; ``failed``: the rows with status "failed"."""

    out: Path
    rows: List[Dict[str, Any]]
    paths: List[Path]
    total: int
    cached: int = 0
    ran: int = 0
    missing: int = 0

    @property
    def failed(self) -> List[Dict[str, Any]]:
        return [r for r in self.rows if r["status"] != store.STATUS_OK]

    def dataframe(self):
        """The rows as a pandas DataFrame (as ``pandas.read_parquet(out / "results.parquet")``)."""
        import pandas as pd

        return pd.read_parquet(self.out / RESULTS)


VaryLike = Union[
    str, Mapping[str, Any], Iterable[Union[str, Axis, Tuple[str, Union[str, Sequence[Any]]]]]
]


def _axes(vary: VaryLike) -> List[Axis]:
    """The axes of ``sweep``'s ``vary``: a mapping of key to values, one ``--vary`` string, or an
    iterable of ``--vary`` strings, (key, values) pairs and ``Axis``. A string is one axis,
    never a sequence of axes (iterating it would yield its characters)."""
    if isinstance(vary, str):
        return [parse_vary(vary)]
    if isinstance(vary, Mapping):
        return [_axis(key, values) for key, values in vary.items()]
    if isinstance(vary, (bytes, bytearray)) or not isinstance(vary, Iterable):
        raise TypeError(
            "vary must be a mapping of key to values, a 'KEY=V1,V2,...' string or a list of "
            f"them, not {describe(vary)}"
        )
    return [_axis_item(item) for item in vary]


def _axis_item(item: Any) -> Axis:
    if isinstance(item, Axis):
        return item
    if isinstance(item, str):
        return parse_vary(item)
    try:
        key, values = item
    except (TypeError, ValueError):
        raise UsageError(
            f"axis {describe(item)}: expected a (key, values) pair or a 'KEY=V1,V2,...' string"
        ) from None
    return _axis(key, values)


def _axis(key: Any, values: Any) -> Axis:
    """One axis from its key and values: a list of values, a comma-separated string (as
    ``--vary`` takes it), or a single value that is neither (a number)."""
    if isinstance(values, str):
        values = split_values(values)
    elif isinstance(values, (bytes, bytearray)) or not isinstance(values, Iterable):
        values = [values]
    return make_axis(str(key), values)


def sweep(
    scenario: ScenarioLike,
    vary: VaryLike,
    *,
    out,
    seeds: int = DEFAULT_SEEDS,
    overrides: OverridesLike = None,
    jobs: Optional[int] = None,
    executor: Union[str, Any] = "local",
    scheduler: Optional[str] = None,
    progress_stream: Optional[TextIO] = None,
    wait: bool = False,
) -> SweepResult:
    """Run ``scenario`` for every combination of the ``vary`` axes and ``seeds`` seeds (1..N),
    with ``overrides`` fixed, skipping the runs already in ``out``'s store; then write
    ``results.parquet``, the summary and the plot. Failed runs are recorded, not raised.

    ``vary``: ``{"loss": ["0%", "1%"], "cc": ["reno", "westwood"]}``, pairs, or ``--vary``
    strings (a single string is one axis; a single value that is not a list is a one-value
    axis). ``seeds`` and ``jobs``: positive integers (a bool or a string is a TypeError).
    ``overrides``: as ``westwood.run`` takes them. ``executor``: "local" (``jobs`` processes,
    default every core), "dask" (the scheduler at ``scheduler``, or a local cluster of ``jobs``
    workers), or an executor object.

    ``out`` is locked while the sweep runs (``locks.output_lock``): a second sweep on the same
    directory would compute the same runs again. If another sweep or reproduction holds it,
    ``DirectoryInUse`` is raised before anything runs, or with ``wait`` this waits for it to
    finish (and then reuses its runs).
    """
    from .runs.executors import make_executor

    if jobs is not None:
        jobs = count(jobs, "jobs")
    if isinstance(executor, str):
        executor = make_executor(executor, jobs, scheduler)
    plan = plan_sweep(scenario, _axes(vary), seeds, normalize(overrides))
    out = Path(out)
    command = sweep_command(plan, out)
    with output_lock(out, wait, progress_stream):
        write_json_atomic(out / DEFINITION, definition(plan, command, executor.describe()))
        outcome = runner.run_all(
            [r.spec for r in plan.runs], out / RUNS, executor, progress_stream, stop_on_error=False
        )
        result = _rebuild(out)
    result.cached, result.ran = outcome.cached, outcome.ran
    return result


# --- consolidating: rows, Parquet, summary, plot -----------------------------------------------


def load_definition(out) -> Dict[str, Any]:
    path = Path(out) / DEFINITION
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{path}: not found; is {out} a sweep directory?") from None
    except ValueError as err:
        raise UsageError(f"{path}: not a sweep definition ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path}: not a sweep definition (format {FORMAT})")
    return data


def _row(
    defn: Mapping[str, Any], run: Mapping[str, Any], entry: Mapping[str, Any]
) -> Dict[str, Any]:
    axes = [a["key"] for a in defn["axes"]]
    row: Dict[str, Any] = {"scenario": Path(defn["scenario"]["path"]).name}
    row.update(zip(axes, run["values"]))
    row["seed"] = run["seed"]
    ok = entry.get("status", store.STATUS_OK) == store.STATUS_OK
    row["status"] = store.STATUS_OK if ok else store.STATUS_FAILED
    row["error"] = None if ok else str(entry.get("error") or "failed")
    metrics = run_metrics(entry["summary"]) if ok else {}
    for metric in METRICS:
        row[metric.name] = metrics.get(metric.name)
    row["flow_goodput_mbps"] = metrics.get("flow_goodput_mbps")
    row["wall_seconds"] = metrics.get("wall_seconds")
    row["run_key"] = run["key"]
    row["overrides"] = " ".join(f"{k}={v}" for k, v in run["run"]["overrides"])
    return row


def collect_rows(out, defn: Mapping[str, Any]) -> Tuple[List[Dict[str, Any]], int]:
    """One row per planned run that has a run file (ok or failed), in plan order; and how many
    planned runs have none (not run yet)."""
    rows, missing = [], 0
    for run in defn["runs"]:
        entry = store.read_entry(Path(out) / RUNS, run["key"])
        if entry is None or entry.get("run") != run["run"]:
            missing += 1
            continue
        if entry.get("status", store.STATUS_OK) == store.STATUS_OK and not isinstance(
            entry.get("summary"), dict
        ):
            missing += 1
            continue
        rows.append(_row(defn, run, entry))
    return rows, missing


def columns(defn: Mapping[str, Any]) -> List[str]:
    axes = [a["key"] for a in defn["axes"]]
    return (
        list(LEADING_COLUMNS)
        + axes
        + ["seed", "status", "error"]
        + [m.name for m in METRICS]
        + list(TRAILING_COLUMNS)
    )


def write_parquet(path: Path, defn: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    types = {"seed": pa.uint64(), "flow_goodput_mbps": pa.list_(pa.float64())}
    types["wall_seconds"] = pa.float64()
    for metric in METRICS:
        types[metric.name] = pa.float64() if metric.kind == "float" else pa.int64()
    names = columns(defn)
    schema = pa.schema(
        [pa.field(name, types.get(name, pa.string())) for name in names],
        metadata={"westwood.sweep": json.dumps({k: v for k, v in defn.items() if k != "runs"})},
    )
    table = pa.Table.from_pydict({n: [r.get(n) for r in rows] for n in names}, schema=schema)

    def write(tmp: str) -> None:
        with writing(tmp):
            pq.write_table(table, tmp)

    write_bytes_atomic(path, write)


@dataclass
class Cell:
    values: Tuple[str, ...]
    runs: int
    failed: int
    stats: Dict[str, MeanCI]


def summarize(defn: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> List[Cell]:
    """Per grid point (plan order): runs with a file, failures, mean and CI of each summary
    metric over the seeds that finished."""
    axes = [a["key"] for a in defn["axes"]]
    order: Dict[Tuple[str, ...], List[Mapping[str, Any]]] = {}
    for run in defn["runs"]:
        order.setdefault(tuple(run["values"]), [])
    for row in rows:
        order[tuple(row[a] for a in axes)].append(row)
    cells = []
    for values, group in order.items():
        ok = [r for r in group if r["status"] == store.STATUS_OK]
        stats = {m: mean_ci([r[m] for r in ok], CONFIDENCE) for m in SUMMARY_METRICS}
        cells.append(Cell(values, len(group), len(group) - len(ok), stats))
    return cells


def _number(value: float) -> str:
    return "" if value is None or math.isnan(value) else repr(float(value))


def summary_csv(defn: Mapping[str, Any], cells: Sequence[Cell]) -> str:
    import csv
    import io

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = [a["key"] for a in defn["axes"]] + ["runs", "failed"]
    for m in SUMMARY_METRICS:
        header += [f"{m}_mean", f"{m}_ci95"]
    writer.writerow(header)
    for cell in cells:
        line = list(cell.values) + [cell.runs, cell.failed]
        for m in SUMMARY_METRICS:
            line += [_number(cell.stats[m].mean), _number(cell.stats[m].half_width)]
        writer.writerow(line)
    return buffer.getvalue()


def _cell_text(c: MeanCI) -> str:
    if c.n == 0:
        return "–"
    digits = 1 if abs(c.mean) >= 100 else 3
    if math.isnan(c.half_width):
        return f"{c.mean:.{digits}f}"
    return f"{c.mean:.{digits}f} ± {c.half_width:.{digits}f}"


def _md_escape(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def summary_markdown(
    defn: Mapping[str, Any],
    cells: Sequence[Cell],
    rows: Sequence[Mapping[str, Any]],
    missing: int,
    plotted: bool,
) -> str:
    axes = [a["key"] for a in defn["axes"]]
    failed = [r for r in rows if r["status"] != store.STATUS_OK]
    seeds = defn["seeds"]
    fixed = " ".join(f"{k}={v}" for k, v in defn["overrides"]) or "none"
    axes_text = " · ".join(f"`{a['key']}` = {', '.join(a['values'])}" for a in defn["axes"])
    counts = f"{len(rows)} of {len(defn['runs'])} finished ({len(failed)} failed)"
    if missing:
        counts += f"; {missing} not run yet (rerun the command to complete the sweep)"
    header = axes + ["runs"] + [METRIC_BY_NAME[m].label for m in SUMMARY_METRICS]
    lines = [
        f"# Sweep of {Path(defn['scenario']['path']).name}",
        "",
        f"- Scenario: `{defn['scenario']['path']}` (sha256 {defn['scenario']['sha256'][:12]})",
        f"- Axes: {axes_text}",
        f"- Seeds: {', '.join(str(s) for s in seeds)} per point; fixed overrides: `{fixed}`",
        f"- Runs: {counts}",
        f"- Cells: mean ± half-width of the {CONFIDENCE:.0%} confidence interval (Student t) "
        "over the seeds that finished; totals over the TCP flows of a run",
        "",
        "| " + " | ".join(_md_escape(h) for h in header) + " |",
        "|" + "---|" * len(axes) + "---:|" * (len(header) - len(axes)),
    ]
    for cell in cells:
        runs = f"{cell.runs - cell.failed}" + (f" (+{cell.failed} failed)" if cell.failed else "")
        texts = [_cell_text(cell.stats[m]) for m in SUMMARY_METRICS]
        lines.append(
            "| " + " | ".join([_md_escape(v) for v in cell.values] + [runs] + texts) + " |"
        )
    if failed:
        lines += ["", "## Failed runs", "", "| " + " | ".join(axes + ["seed", "error"]) + " |"]
        lines.append("|" + "---|" * (len(axes) + 2))
        for r in failed:
            cells_ = [_md_escape(r[a]) for a in axes] + [str(r["seed"]), _md_escape(r["error"])]
            lines.append("| " + " | ".join(cells_) + " |")
    lines.append("")
    if plotted:
        lines += [f"![sweep]({PLOT_STEM}.png)", ""]
    lines += [
        f"Data: [{RESULTS}]({RESULTS}) (one row per run) · [{SUMMARY_CSV}]({SUMMARY_CSV})",
        "",
        f"Rerun (resumes; finished runs are reused): `{defn.get('command', '')}`",
        "",
    ]
    return "\n".join(lines)


def plot_sweep(defn: Mapping[str, Any], cells: Sequence[Cell], out_stem: Path) -> List[Path]:
    """One panel per metric: the metric vs the first axis, one line per value of the second
    axis (if any), 95% CI error bars. Only for one- and two-axis sweeps."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from .report.plots import MARKERS, _save_both

    axes_def = [Axis(a["key"], tuple(a["values"])) for a in defn["axes"]]
    first = axes_def[0]
    numeric = numeric_axis(first)
    xs = numeric[0] if numeric else list(range(len(first.values)))
    x_label = first.key + (f" ({numeric[1]})" if numeric and numeric[1] else "")
    lines = axes_def[1].values if len(axes_def) > 1 else (None,)
    by_values = {c.values: c for c in cells}
    metrics = [
        m
        for m in PLOT_METRICS
        if m != "fairness" or any(c.stats[m].n and c.stats[m].mean < 0.999999 for c in cells)
    ]
    name = Path(defn["scenario"]["path"]).name
    with matplotlib.rc_context({"svg.hashsalt": name, "font.size": 9}):
        cols = 2 if len(metrics) > 1 else 1
        rows_n = math.ceil(len(metrics) / cols)
        fig = Figure(figsize=(4.2 * cols, 0.6 + 3.0 * rows_n), layout="constrained")
        panels = fig.subplots(rows_n, cols, squeeze=False).ravel()
        for panel, metric in zip(panels, metrics):
            for i, line in enumerate(lines):
                stats = []
                for value in first.values:
                    key = (value,) if line is None else (value, line)
                    stats.append(by_values[key].stats[metric])
                panel.errorbar(
                    xs,
                    [s.mean for s in stats],
                    yerr=[0.0 if math.isnan(s.half_width) else s.half_width for s in stats],
                    label=None if line is None else f"{axes_def[1].key}={line}",
                    marker=MARKERS[i % len(MARKERS)],
                    markersize=4,
                    linewidth=1.2,
                    capsize=3,
                )
            panel.set_xlabel(x_label)
            panel.set_ylim(bottom=0)
            panel.set_ylabel(METRIC_BY_NAME[metric].label)
            if not numeric:
                panel.set_xticks(xs, list(first.values))
            panel.grid(True, linestyle=":", linewidth=0.6)
            if line is not None:
                panel.legend(fontsize=7)
        for panel in panels[len(metrics) :]:
            panel.set_visible(False)
        fixed = " ".join(f"{k}={v}" for k, v in defn["overrides"])
        fig.suptitle(f"{name}{' (' + fixed + ')' if fixed else ''}, mean and 95% CI", fontsize=10)
        return _save_both(fig, out_stem)


def rebuild(out, *, wait: bool = False) -> SweepResult:
    """Write ``results.parquet``, ``summary.csv``, ``summary.md`` and the plot from
    ``sweep.json`` and the run files (nothing is run), holding ``out``'s lock as ``sweep``
    does: a running sweep would overwrite them when it ends."""
    load_definition(out)  # not a sweep directory: say so before the lock creates anything
    with output_lock(out, wait):
        return _rebuild(out)


def _rebuild(out) -> SweepResult:
    out = Path(out)
    defn = load_definition(out)
    rows, missing = collect_rows(out, defn)
    cells = summarize(defn, rows)
    paths = [out / RESULTS, out / SUMMARY_CSV, out / SUMMARY_MD]
    write_parquet(out / RESULTS, defn, rows)
    write_text_atomic(out / SUMMARY_CSV, summary_csv(defn, cells))
    plotted = len(defn["axes"]) <= 2 and any(c.stats["goodput_mbps"].n for c in cells)
    if plotted:
        paths += plot_sweep(defn, cells, out / PLOT_STEM)
    write_text_atomic(out / SUMMARY_MD, summary_markdown(defn, cells, rows, missing, plotted))
    return SweepResult(out=out, rows=rows, paths=paths, total=len(defn["runs"]), missing=missing)
