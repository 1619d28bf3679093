"""``westwood bench``: how fast the simulator runs one scenario.

Only the core and the standard library are imported here (no pandas, no matplotlib), so the
peak RSS reported is the simulator's, not the plotting stack's.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from typing import Any, Dict, Sequence, Tuple

from .paths import ScenarioLike, resolve_scenario

DEFAULT_SCENARIO = "dumbbell"


def peak_rss_bytes() -> int:
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss if sys.platform == "darwin" else rss * 1024  # Linux reports KiB


def bench(
    scenario: ScenarioLike = DEFAULT_SCENARIO, overrides: Sequence[Tuple[str, str]] = ()
) -> Dict[str, Any]:
    """Run ``scenario`` once without time series and measure it."""
    from . import _core

    path = resolve_scenario(scenario)
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
    }


def format_bench(result: Dict[str, Any]) -> str:
    return "\n".join(
        [
            f"scenario          {result['scenario']} ({result['sim_seconds']:g} s simulated)",
            f"wall time         {result['wall_seconds']:.3f} s",
            f"events            {result['events']:,}",
            f"events/s          {result['events_per_second']:,.0f}",
            f"packets/s         {result['packets_per_second']:,.0f} (simulated packets)",
            f"peak RSS          {result['peak_rss_bytes'] / 2**20:.1f} MiB",
        ]
    )


def bench_json(result: Dict[str, Any]) -> str:
    return json.dumps(result)
