"""``westwood bench``: how fast the simulator runs, and how its cost scales.

Standard cases (each in a fresh subprocess, so the peak RSS reported is that case's):

* ``dumbbell``: scenarios/dumbbell.toml, 10 flows over 45 Mbps / 100 ms, 60 s simulated;
* ``fig9``: scenarios/wireless.toml at 1% loss for 600 s (a seed 000 fig. 9 point);
* ``grid``: the 8x8 grid of seed 002 (scenarios/grid.toml, or multipath_grid.toml) for 600 s,
  when such a file exists.

``--scaling`` adds the cost vs simulated time (dumbbell for 15, 30, 60 s) and vs the number of
flows (2, 5, 10, 20 for 60 s), each with a fitted line and log-log exponent, and the speed-up of
a local sweep on 2 processes over 1.

Each case is also timed as a whole process (``process_seconds``: ``westwood run`` of the case,
interpreter start-up and imports included), and the report records the machine (core count,
load average before and after). ``--compare BEFORE [AFTER]`` prints before/after ratios of two
builds or two ``--json`` outputs (``compare``).

Only the core and the standard library are imported here (no pandas, no matplotlib), so the
peak RSS reported is the simulator's, not the plotting stack's.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .errors import UsageError
from .messages import clip_long_values
from .paths import ScenarioLike, resolve_scenario

DEFAULT_SCENARIO = "dumbbell"
Pairs = Sequence[Tuple[str, str]]


def peak_rss_bytes() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024  # Linux reports KiB


def bench(scenario: ScenarioLike = DEFAULT_SCENARIO, overrides: Pairs = ()) -> Dict[str, Any]:
    """Run ``scenario`` once, in this process, without time series and measure it."""
    from . import _core

    path = resolve_scenario(scenario)
    baseline = peak_rss_bytes()  # the interpreter and the loaded package, before the run
    started = time.perf_counter()
    summary_json, _, _ = _core.run(os.fspath(path), list(overrides), None, False, False)
    measured = time.perf_counter() - started
    summary = json.loads(summary_json)
    # The engine's own wall time excludes loading; fall back to ours if it reports none.
    wall = float(summary.get("wall_seconds") or 0.0) or measured
    events = int(summary["events"])
    packets = int(summary["packets"])
    return {
        "scenario": summary.get("scenario", str(path)),
        "sim_seconds": summary["sim_seconds"],
        "wall_seconds": wall,
        "events": events,
        "events_per_second": events / wall if wall > 0 else float("nan"),
        "packets": packets,
        "packets_per_second": packets / wall if wall > 0 else float("nan"),
        "peak_rss_bytes": peak_rss_bytes(),
        "baseline_rss_bytes": baseline,
    }


# --- cases, each in a fresh process ------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    name: str
    scenario: str
    description: str
    sim_seconds: float  # set through the ``duration`` parameter (scaled by --quick)
    overrides: Tuple[Tuple[str, str], ...] = ()
    optional: bool = False  # skipped with a note when the scenario file does not exist
    alternatives: Tuple[str, ...] = ()  # other names of the scenario, tried in order

    def run_overrides(self, factor: float) -> List[Tuple[str, str]]:
        return list(self.overrides) + [("duration", seconds_text(self.sim_seconds * factor))]


CASES: Tuple[Case, ...] = (
    Case("dumbbell", "dumbbell", "10 flows, 45 Mbps, 100 ms, 60 s (scenarios/dumbbell.toml)", 60),
    Case(
        "fig9",
        "wireless",
        "seed 000 fig. 9 point: 1% loss, 600 s (scenarios/wireless.toml)",
        600,
        (("loss", "1%"),),
    ),
    Case(
        "grid",
        "grid",
        "8x8 grid of seed 002, 600 s (scenarios/grid.toml or multipath_grid.toml)",
        600,
        optional=True,
        alternatives=("multipath_grid",),
    ),
)


def seconds_text(seconds: float) -> str:
    return f"{seconds:.6g}s"


def run_in_subprocess(
    scenario: str, overrides: Pairs, python: Optional[str] = None
) -> Dict[str, Any]:
    """``bench(scenario, overrides)`` in a fresh Python process (``python``: the interpreter of
    another build; default this one): its result, or ``{"error": ...}``."""
    request = json.dumps({"scenario": scenario, "overrides": [list(p) for p in overrides]})
    proc = subprocess.run(
        [python or sys.executable, "-m", "westwood.bench", request],
        capture_output=True,
        text=True,
    )
    try:
        result = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        detail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        return {"error": f"the benchmark process failed: {detail[0]}", "error_type": "Crash"}
    return result


# What the ``westwood`` console script runs (``westwood.cli:main`` in builds before the
# entry point moved to ``launch``: --compare measures older checkouts too).
CONSOLE_SCRIPT = (
    "import sys\n"
    "try:\n    from westwood.launch import main\n"
    "except ImportError:\n    from westwood.cli import main\n"
    "sys.exit(main())"
)


def process_seconds(scenario: str, overrides: Pairs, python: Optional[str] = None) -> float:
    """Wall time of ``westwood run SCENARIO --set ...`` as a whole process, as a user runs it:
    the interpreter's start-up, the imports, loading the scenario, the run and printing its
    table (NaN if it fails)."""
    command = [python or sys.executable, "-c", CONSOLE_SCRIPT, "run", scenario]
    for key, value in overrides:
        command += ["--set", f"{key}={value}"]
    started = time.perf_counter()
    proc = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    return elapsed if proc.returncode == 0 else math.nan


def machine(load_before: Optional[Sequence[float]] = None) -> Dict[str, Any]:
    """The core count and the load averages (1, 5, 15 min) now and, if given, before: a
    measurement on a loaded machine is slower, and says so."""
    now = [round(x, 2) for x in os.getloadavg()]
    result: Dict[str, Any] = {"cpus": os.cpu_count()}
    if load_before is not None:
        result["load_before"] = [round(x, 2) for x in load_before]
    result["load_after" if load_before is not None else "load"] = now
    return result


def _child(argv: Sequence[str]) -> int:
    """``python -m westwood.bench REQUEST_JSON``: one measurement, printed as JSON."""
    from ._core import ScenarioError

    request = json.loads(argv[0])
    overrides = [tuple(p) for p in request.get("overrides", [])]
    try:
        result = bench(request["scenario"], overrides)
    except (ScenarioError, OSError) as err:
        print(json.dumps({"error": str(err), "error_type": type(err).__name__}))
        return 2
    print(json.dumps(result))
    return 0


def run_case(
    case: Case, extra: Pairs = (), factor: float = 1.0, python: Optional[str] = None
) -> Dict[str, Any]:
    """One standard case in a fresh process: the measurement with the case's name and
    description, then the case as a whole ``westwood run`` process (``process_seconds``); or
    ``skipped`` (an optional scenario that does not exist) or ``error``."""
    head: Dict[str, Any] = {"case": case.name, "description": case.description}
    path = None
    for name in (case.scenario,) + case.alternatives:
        try:
            path = str(resolve_scenario(name))
            break
        except FileNotFoundError:
            continue
    if path is None:
        names = " or ".join(f"scenarios/{n}.toml" for n in (case.scenario,) + case.alternatives)
        if case.optional:
            return {**head, "skipped": f"{names} does not exist (yet)"}
        raise FileNotFoundError(f"{names}: scenario not found")
    overrides = case.run_overrides(factor) + list(extra)
    head["overrides"] = [list(p) for p in overrides]
    result = {**head, **run_in_subprocess(path, overrides, python)}
    if "error" not in result:
        result["process_seconds"] = process_seconds(path, overrides, python)
    return result


def custom_case(scenario: str, extra: Pairs, python: Optional[str] = None) -> List[Dict[str, Any]]:
    """``--scenario``: that scenario alone, as given (with ``--set``)."""
    from ._core import ScenarioError

    path = str(resolve_scenario(scenario))
    result = run_in_subprocess(path, list(extra), python)
    if "error" in result:
        raise ScenarioError(result["error"])
    result["process_seconds"] = process_seconds(path, list(extra), python)
    return [
        {"case": "custom", "description": path, "overrides": [list(p) for p in extra], **result}
    ]


# --- scaling -----------------------------------------------------------------------------------


def fit_line(xs: Sequence[float], ys: Sequence[float]) -> Dict[str, float]:
    """Least-squares ``y = intercept + slope * x`` and the log-log exponent (slope of log y vs
    log x: 1 means cost proportional to x)."""
    n = len(xs)
    if n < 2:
        return {"slope": math.nan, "intercept": math.nan, "exponent": math.nan}

    def line(us, vs):
        mu, mv = sum(us) / n, sum(vs) / n
        suu = sum((u - mu) ** 2 for u in us)
        if suu == 0:
            return math.nan, math.nan
        slope = sum((u - mu) * (v - mv) for u, v in zip(us, vs)) / suu
        return slope, mv - slope * mu

    slope, intercept = line(xs, ys)
    if all(x > 0 for x in xs) and all(y > 0 for y in ys):
        exponent, _ = line([math.log(x) for x in xs], [math.log(y) for y in ys])
    else:
        exponent = math.nan
    return {"slope": slope, "intercept": intercept, "exponent": exponent}


def _point(result: Dict[str, Any], **labels) -> Dict[str, Any]:
    keys = (
        "sim_seconds",
        "wall_seconds",
        "events",
        "packets",
        "events_per_second",
        "peak_rss_bytes",
    )
    if "error" in result:
        from ._core import ScenarioError

        raise ScenarioError(result["error"])
    return {**labels, **{k: result[k] for k in keys}}


SCALING_DURATIONS = (15.0, 30.0, 60.0)
SCALING_FLOWS = (2, 5, 10, 20)
SWEEP_FLOWS = ("2", "5", "10", "20")
SWEEP_SEEDS = 2


def scaling(
    extra: Pairs = (),
    factor: float = 1.0,
    durations: Sequence[float] = SCALING_DURATIONS,
    flows: Sequence[int] = SCALING_FLOWS,
    flows_seconds: float = 60.0,
    jobs: int = 2,
) -> Dict[str, Any]:
    """Cost of the dumbbell vs simulated time and vs flows (fresh process per point), and the
    speed-up of a local sweep on ``jobs`` processes over 1."""
    path = str(resolve_scenario("dumbbell"))
    time_points = []
    for seconds in durations:
        sim = seconds * factor
        result = run_in_subprocess(path, list(extra) + [("duration", seconds_text(sim))])
        time_points.append(_point(result, duration_seconds=sim))
    flow_points = []
    for n in flows:
        overrides = list(extra) + [
            ("flows", str(n)),
            ("duration", seconds_text(flows_seconds * factor)),
        ]
        flow_points.append(_point(run_in_subprocess(path, overrides), flows=n))
    return {
        "time": {
            "points": time_points,
            "fit": fit_line(
                [p["sim_seconds"] for p in time_points], [p["wall_seconds"] for p in time_points]
            ),
            "fit_of": "wall_seconds vs sim_seconds",
        },
        "flows": {
            "points": flow_points,
            "fit": fit_line(
                [p["flows"] for p in flow_points], [p["wall_seconds"] for p in flow_points]
            ),
            "fit_of": "wall_seconds vs flows",
        },
        "sweep": sweep_speedup(extra, factor, jobs),
    }


def sweep_speedup(extra: Pairs = (), factor: float = 1.0, jobs: int = 2) -> Dict[str, Any]:
    """The same sweep (dumbbell, flows 2/5/10/20 x 2 seeds, 60 s) on 1 local process and on
    ``jobs``, each into a fresh store; wall time of the execution (pool start-up included)."""
    from . import sweeps
    from .runs import runner
    from .runs.executors import LocalExecutor

    overrides = list(extra) + [("duration", seconds_text(60.0 * factor))]
    plan = sweeps.plan_sweep(
        "dumbbell", [sweeps.Axis("flows", SWEEP_FLOWS)], SWEEP_SEEDS, overrides
    )
    specs = [r.spec for r in plan.runs]
    walls = {}
    for n in (1, jobs):
        with (
            tempfile.TemporaryDirectory(prefix="westwood-bench-") as store,
            open(os.devnull, "w") as quiet,
        ):
            started = time.perf_counter()
            outcome = runner.run_all(specs, store, LocalExecutor(n), quiet)
            walls[n] = time.perf_counter() - started
            if outcome.failed:
                entry = outcome.entries[outcome.failed[0]]
                from ._core import ScenarioError

                raise ScenarioError(str(entry.get("error")))
    speedup = walls[1] / walls[jobs] if walls[jobs] > 0 else math.nan
    return {
        "runs": len(specs),
        "description": f"dumbbell, flows {'/'.join(SWEEP_FLOWS)} x {SWEEP_SEEDS} seeds, "
        f"{seconds_text(60.0 * factor)}",
        "jobs": jobs,
        "wall_seconds_1": walls[1],
        f"wall_seconds_{jobs}": walls[jobs],
        "speedup": speedup,
        "efficiency": speedup / jobs,
        "cpus": os.cpu_count(),
    }


# --- output ------------------------------------------------------------------------------------

TOP_LEVEL = (
    "scenario",
    "sim_seconds",
    "wall_seconds",
    "events",
    "events_per_second",
    "packets",
    "packets_per_second",
    "peak_rss_bytes",
)


def report(
    cases: List[Dict[str, Any]],
    scaling_result: Optional[Dict[str, Any]] = None,
    machine_result: Optional[Dict[str, Any]] = None,
) -> Dict:
    """The JSON object of ``westwood bench --json``: the first case's measurement at the top
    level (as before there were several cases), every case in ``cases``, ``scaling`` if run,
    and ``machine`` (core count, load averages)."""
    result: Dict[str, Any] = {k: cases[0][k] for k in TOP_LEVEL if k in cases[0]}
    result["cases"] = cases
    if scaling_result is not None:
        result["scaling"] = scaling_result
    if machine_result is not None:
        result["machine"] = machine_result
    return result


def format_bench(result: Dict[str, Any], indent: str = "") -> str:
    return "\n".join(
        indent + line
        for line in [
            f"scenario          {result['scenario']} ({result['sim_seconds']:g} s simulated)",
            f"wall time         {result['wall_seconds']:.3f} s",
            f"events            {result['events']:,}",
            f"events/s          {result['events_per_second']:,.0f}",
            f"packets/s         {result['packets_per_second']:,.0f} (simulated packets)",
            f"peak RSS          {result['peak_rss_bytes'] / 2**20:.1f} MiB"
            + (
                f" ({result['baseline_rss_bytes'] / 2**20:.1f} MiB before the run)"
                if "baseline_rss_bytes" in result
                else ""
            ),
        ]
        + (
            [
                f"whole process     {result['process_seconds']:.3f} s "
                "(westwood run, start-up included)"
            ]
            if "process_seconds" in result
            else []
        )
        + (
            [f"rounds            {result['rounds']} (medians)"]
            if result.get("rounds", 1) > 1
            else []
        )
    )


def _walls(points, label: str, unit: str) -> str:
    xs = "/".join(f"{p[label]:g}" for p in points)
    walls = "/".join(f"{p['wall_seconds']:.3f}" for p in points)
    events = "/".join(f"{p['events'] / 1e6:.2f}" for p in points)
    return f"{xs} {unit}: wall {walls} s, events {events} M"


def format_machine(m: Dict[str, Any]) -> str:
    loads = [
        f"{name} {' '.join(f'{x:.2f}' for x in m[key])}"
        for key, name in (
            ("load", "load average"),
            ("load_before", "load average before"),
            ("load_after", "after"),
        )
        if key in m
    ]
    return f"machine: {m['cpus']} CPUs, " + ", ".join(loads)


def format_report(result: Dict[str, Any]) -> str:
    lines = []
    for case in result["cases"]:
        lines.append(f"{case['case']}: {case['description']}")
        if "skipped" in case:
            lines.append(f"  skipped: {case['skipped']}")
        elif "error" in case:
            lines.append(f"  error: {clip_long_values(case['error'])}")
        else:
            lines.append(format_bench(case, "  "))
    scaling_result = result.get("scaling")
    if scaling_result:
        t, f, s = scaling_result["time"], scaling_result["flows"], scaling_result["sweep"]
        lines += [
            "scaling (dumbbell; wall = the engine's own time)",
            f"  simulated time  {_walls(t['points'], 'sim_seconds', 's')}; "
            f"slope {t['fit']['slope']:.4g} s wall per simulated s, "
            f"exponent {t['fit']['exponent']:.2f}",
            f"  flows           {_walls(f['points'], 'flows', 'flows')}; "
            f"slope {f['fit']['slope']:.4g} s wall per flow, exponent {f['fit']['exponent']:.2f}",
            f"  sweep speed-up  {s['runs']} runs ({s['description']}): "
            f"1 process {s['wall_seconds_1']:.2f} s, {s['jobs']} processes "
            f"{s['wall_seconds_' + str(s['jobs'])]:.2f} s: x{s['speedup']:.2f} "
            f"({100 * s['efficiency']:.0f}% efficiency; {s['cpus']} CPUs)",
        ]
    if "machine" in result:
        lines.append(format_machine(result["machine"]))
    return "\n".join(lines)


# --- rounds and comparisons ------------------------------------------------------------------


def _median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


MEDIAN_KEYS = ("wall_seconds", "process_seconds", "peak_rss_bytes", "baseline_rss_bytes")


def median_case(rounds: Sequence[Dict[str, Any]]) -> Dict[str, Any]:
    """One case measured in several rounds: the median of each timing and memory figure, the
    rates recomputed from the median wall time. A round that failed or was skipped stands for
    all."""
    first = rounds[0]
    if len(rounds) == 1 or any("error" in r or "skipped" in r for r in rounds):
        return next((r for r in rounds if "error" in r or "skipped" in r), first)
    result = dict(first)
    for key in MEDIAN_KEYS:
        if key in first:
            result[key] = _median([r[key] for r in rounds])
    wall = result["wall_seconds"]
    result["events_per_second"] = result["events"] / wall if wall > 0 else math.nan
    result["packets_per_second"] = result["packets"] / wall if wall > 0 else math.nan
    result["rounds"] = len(rounds)
    return result


def measure(
    builds: Sequence[Optional[str]],
    scenario: Optional[str],
    extra: Pairs,
    factor: float,
    rounds: int,
) -> List[List[Dict[str, Any]]]:
    """The cases for each build (a Python interpreter; None: this one), ``rounds`` times,
    interleaved case by case (this case on every build, then the next case), so that a change
    in the machine's load falls on every build alike; the medians per build."""
    per_build: List[List[List[Dict[str, Any]]]] = [[] for _ in builds]
    for _ in range(rounds):
        if scenario is not None:
            for i, python in enumerate(builds):
                per_build[i].append(custom_case(scenario, extra, python))
            continue
        rows: List[List[Dict[str, Any]]] = [[] for _ in builds]
        for case in CASES:
            for i, python in enumerate(builds):
                rows[i].append(run_case(case, extra, factor, python))
        for i, row in enumerate(rows):
            if "error" in row[0]:
                from ._core import ScenarioError

                raise ScenarioError(row[0]["error"])
            per_build[i].append(row)
    return [[median_case(list(case)) for case in zip(*runs)] for runs in per_build]


def load_side(spec: str) -> Tuple[str, Any]:
    """A ``--compare`` operand: ``("json", report)`` for a file holding ``westwood bench
    --json``'s output, or ``("build", python)`` for another build: a checkout (its ``.venv``),
    a venv, or an interpreter or ``westwood`` script in one."""
    path = Path(spec)
    if path.is_dir():
        for candidate in (path / ".venv" / "bin" / "python", path / "bin" / "python"):
            if candidate.exists():
                return "build", str(candidate)
    elif path.is_file():
        try:
            data = json.loads(path.read_text())
        except (ValueError, UnicodeDecodeError):
            data = None
        if isinstance(data, dict) and isinstance(data.get("cases"), list):
            return "json", data
        if os.access(path, os.X_OK):
            python = path if path.name.startswith("python") else path.parent / "python"
            if python.exists():
                return "build", str(python)
    raise UsageError(
        f"bench --compare {spec}: neither a `westwood bench --json` output nor a build (a "
        "checkout with .venv, a venv, or its python)"
    )


def _ratio(a: Any, b: Any) -> Optional[float]:
    ok = isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0 and a == a
    return a / b if ok else None


def compare(before: Dict[str, Any], after: Dict[str, Any]) -> List[Dict[str, Any]]:
    """Per case in both: the figures before and after and the speed-ups (before / after for
    times, after / before for memory), and whether the event counts agree (if not, the two
    builds simulated something different and the times do not compare)."""
    previous = {c["case"]: c for c in before["cases"]}
    rows = []
    for case in after["cases"]:
        old = previous.get(case["case"])
        if old is None or "events" not in old or "events" not in case:
            continue
        rows.append(
            {
                "case": case["case"],
                "wall_seconds": [old["wall_seconds"], case["wall_seconds"]],
                "speedup": _ratio(old["wall_seconds"], case["wall_seconds"]),
                "process_seconds": [old.get("process_seconds"), case.get("process_seconds")],
                "process_speedup": _ratio(old.get("process_seconds"), case.get("process_seconds")),
                "peak_rss_bytes": [old["peak_rss_bytes"], case["peak_rss_bytes"]],
                "rss_ratio": _ratio(case["peak_rss_bytes"], old["peak_rss_bytes"]),
                "same_events": old["events"] == case["events"],
            }
        )
    return rows


def format_compare(result: Dict[str, Any]) -> str:
    def pair(values, unit, scale=1.0, digits=3):
        a, b = (v if isinstance(v, (int, float)) and v == v else None for v in values)
        text = lambda v: "-" if v is None else f"{v / scale:.{digits}f}"  # noqa: E731
        return f"{text(a)} -> {text(b)} {unit}"

    def times(x):
        return "" if x is None else f" (x{x:.2f})"

    lines = [f"before: {result['before_source']}", f"after:  {result['after_source']}"]
    for row in result["compare"]:
        lines += [
            f"{row['case']}:",
            f"  engine wall     {pair(row['wall_seconds'], 's')}{times(row['speedup'])}",
            f"  whole process   {pair(row['process_seconds'], 's')}{times(row['process_speedup'])}",
            f"  peak RSS        {pair(row['peak_rss_bytes'], 'MiB', 2**20, 1)}",
        ]
        if not row["same_events"]:
            lines.append("  events differ: the builds simulated different runs")
    if "machine" in result:
        lines.append(format_machine(result["machine"]))
    return "\n".join(lines)


def main(
    scenario: Optional[str],
    extra: Pairs,
    with_scaling: bool = False,
    quick: bool = False,
    compare_with: Sequence[str] = (),
    rounds: int = 1,
) -> Dict[str, Any]:
    """What ``westwood bench`` measures, as the JSON object it prints. With ``compare_with``
    (``--compare BEFORE [AFTER]``; AFTER defaults to this build): both sides, measured (builds,
    interleaved) or read (JSON outputs), and ``compare``, their ratios."""
    factor = 0.1 if quick else 1.0
    if scenario is not None and with_scaling:
        raise UsageError("bench: --scaling measures the dumbbell; it does not take --scenario")
    if rounds < 1:
        raise UsageError(f"bench: --rounds must be at least 1, not {rounds}")
    load_before = os.getloadavg()
    if not compare_with:
        (cases,) = measure([None], scenario, extra, factor, rounds)
        scaling_result = scaling(extra, factor) if with_scaling else None
        return report(cases, scaling_result, machine(load_before))
    if len(compare_with) > 2:
        raise UsageError("bench: --compare takes BEFORE and at most one AFTER")
    if with_scaling:
        raise UsageError("bench: --compare compares the cases; it does not take --scaling")
    sides = [load_side(spec) for spec in compare_with]
    if len(sides) == 1:
        sides.append(("build", None))
    builds = [python for kind, python in sides if kind == "build"]
    measured = iter(measure(builds, scenario, extra, factor, rounds) if builds else [])
    reports, sources = [], []
    for (kind, value), spec in zip(sides, list(compare_with) + ["this build"]):
        if kind == "json":
            reports.append(value)
            sources.append(f"{spec} (a bench --json output)")
        else:
            reports.append(report(next(measured)))
            where = value or sys.executable
            sources.append(f"{spec} ({where}; {rounds} round{'s' if rounds > 1 else ''})")
    return {
        "before": reports[0],
        "after": reports[1],
        "before_source": sources[0],
        "after_source": sources[1],
        "compare": compare(reports[0], reports[1]),
        "machine": machine(load_before),
    }


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
