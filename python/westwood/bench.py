"""``westwood bench``: how fast the simulator runs, and how its cost scales.

Standard cases (each in a fresh subprocess, so the peak RSS reported is that case's):

* ``dumbbell``: scenarios/dumbbell.toml, 10 flows over 45 Mbps / 100 ms, 60 s simulated;
* ``fig9``: scenarios/wireless.toml at 1% loss for 600 s (a seed 000 fig. 9 point);
* ``grid``: the 8x8 grid of seed 002 (scenarios/grid.toml, or multipath_grid.toml) for 600 s,
  when such a file exists.

``--scaling`` adds the cost vs simulated time (dumbbell for 15, 30, 60 s) and vs the number of
flows (2, 5, 10, 20 for 60 s), each with a fitted line and log-log exponent, and the speed-up of
a local sweep on 2 processes over 1.

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


def run_in_subprocess(scenario: str, overrides: Pairs) -> Dict[str, Any]:
    """``bench(scenario, overrides)`` in a fresh Python process: its result, or
    ``{"error": ...}``."""
    request = json.dumps({"scenario": scenario, "overrides": [list(p) for p in overrides]})
    proc = subprocess.run(
        [sys.executable, "-m", "westwood.bench", request],
        capture_output=True,
        text=True,
    )
    try:
        result = json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        detail = proc.stderr.strip().splitlines()[-1:] or [f"exit status {proc.returncode}"]
        return {"error": f"the benchmark process failed: {detail[0]}", "error_type": "Crash"}
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


def run_case(case: Case, extra: Pairs = (), factor: float = 1.0) -> Dict[str, Any]:
    """One standard case in a fresh process: the measurement with the case's name and
    description, or ``skipped`` (an optional scenario that does not exist) or ``error``."""
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
    return {**head, **run_in_subprocess(path, overrides)}


def run_cases(
    cases: Sequence[Case] = CASES, extra: Pairs = (), factor: float = 1.0
) -> List[Dict[str, Any]]:
    """Every case. The first is the reference: if it fails (e.g. a bad ``--set``), its error is
    raised as a ``ScenarioError``; the others' errors are reported in their results."""
    from ._core import ScenarioError

    results = []
    for i, case in enumerate(cases):
        result = run_case(case, extra, factor)
        if i == 0 and "error" in result:
            raise ScenarioError(result["error"])
        results.append(result)
    return results


def custom_case(scenario: str, extra: Pairs) -> List[Dict[str, Any]]:
    """``--scenario``: that scenario alone, as given (with ``--set``)."""
    from ._core import ScenarioError

    path = str(resolve_scenario(scenario))
    result = run_in_subprocess(path, list(extra))
    if "error" in result:
        raise ScenarioError(result["error"])
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


def report(cases: List[Dict[str, Any]], scaling_result: Optional[Dict[str, Any]] = None) -> Dict:
    """The JSON object of ``westwood bench --json``: the first case's measurement at the top
    level (as before there were several cases), every case in ``cases``, ``scaling`` if run."""
    result: Dict[str, Any] = {k: cases[0][k] for k in TOP_LEVEL if k in cases[0]}
    result["cases"] = cases
    if scaling_result is not None:
        result["scaling"] = scaling_result
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
    )


def _walls(points, label: str, unit: str) -> str:
    xs = "/".join(f"{p[label]:g}" for p in points)
    walls = "/".join(f"{p['wall_seconds']:.3f}" for p in points)
    events = "/".join(f"{p['events'] / 1e6:.2f}" for p in points)
    return f"{xs} {unit}: wall {walls} s, events {events} M"


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
    return "\n".join(lines)


def main(
    scenario: Optional[str], extra: Pairs, with_scaling: bool = False, quick: bool = False
) -> Dict[str, Any]:
    """What ``westwood bench`` measures, as the JSON object it prints."""
    factor = 0.1 if quick else 1.0
    if scenario is not None and with_scaling:
        raise UsageError("bench: --scaling measures the dumbbell; it does not take --scenario")
    cases = custom_case(scenario, extra) if scenario else run_cases(CASES, extra, factor)
    return report(cases, scaling(extra, factor) if with_scaling else None)


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
