#!/usr/bin/env python3
"""compare.py: the two cases of docs/performance.md, ns-2.35 against westwood, as whole processes.

    python3 bench/ns2/compare.py [--rounds N] [--westwood PATH] [--quick] [--json]

Runs, N rounds (default 11), each case's two commands one after the other, the order swapped
every round so that neither always runs on a warmer machine:

    dumbbell  ns bench/ns2/dumbbell.tcl
              westwood run dumbbell
    fig9      ns bench/ns2/fig9.tcl
              westwood run wireless --set cc=reno --set loss=1% --set duration=600s

and prints per command the median, minimum and maximum wall time and the peak RSS of the
process (from wait4, as /usr/bin/time reports it), the ratio of the medians (ns-2 / westwood),
the core count and the load average before and after. Output goes to /dev/null, as a user
timing the simulators would discard it. `--quick` shortens both cases (6 s of dumbbell, 60 s of
fig. 9) to check that everything runs.

Without `ns` on PATH it says so and exits 0: the comparison is a benchmark for machines with
ns-2.35, not a requirement. Only the standard library is used.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def cases(quick: bool):
    """(name, ns-2 command, westwood arguments) of each case."""
    dumbbell_args = ["10", "6"] if quick else []
    fig9_args = ["0.01", "60"] if quick else []
    return [
        (
            "dumbbell",
            ["ns", os.path.join(HERE, "dumbbell.tcl"), *dumbbell_args],
            ["run", "dumbbell"] + (["--set", "duration=6s"] if quick else []),
        ),
        (
            "fig9",
            ["ns", os.path.join(HERE, "fig9.tcl"), *fig9_args],
            ["run", "wireless", "--set", "cc=reno", "--set", "loss=1%"]
            + ["--set", "duration=60s" if quick else "duration=600s"],
        ),
    ]


def timed(command):
    """Wall seconds and peak RSS (bytes) of ``command`` as one process, output discarded."""
    started = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen(command, stdout=null, stderr=null, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"compare.py: {' '.join(command)} failed (exit {proc.returncode})")
    return elapsed, usage.ru_maxrss * 1024  # Linux reports KiB


def median(values):
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def find_westwood(given):
    if given:
        return given
    local = os.path.join(ROOT, ".venv", "bin", "westwood")
    return local if os.path.exists(local) else shutil.which("westwood") or "westwood"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=11, help="rounds (default 11)")
    parser.add_argument("--westwood", help="the westwood command (default: .venv's, or PATH's)")
    parser.add_argument("--quick", action="store_true", help="short cases, to check it runs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if shutil.which("ns") is None:
        print("compare.py: ns (ns-2.35) is not installed here: nothing to compare")
        return 0
    westwood = find_westwood(args.westwood)
    load_before = os.getloadavg()
    results = []
    for name, ns_command, westwood_args in cases(args.quick):
        commands = {"ns-2.35": ns_command, "westwood": [westwood, *westwood_args]}
        runs = {label: [] for label in commands}
        for round_ in range(args.rounds):
            order = list(commands) if round_ % 2 == 0 else list(reversed(commands))
            for label in order:
                runs[label].append(timed(commands[label]))
        row = {"case": name}
        for label, command in commands.items():
            walls = [w for w, _ in runs[label]]
            row[label] = {
                "command": " ".join(
                    os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in command
                ),
                "median_seconds": median(walls),
                "min_seconds": min(walls),
                "max_seconds": max(walls),
                "peak_rss_bytes": median([r for _, r in runs[label]]),
            }
        row["ratio"] = row["ns-2.35"]["median_seconds"] / row["westwood"]["median_seconds"]
        results.append(row)
    load_after = os.getloadavg()
    report = {
        "rounds": args.rounds,
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "cases": results,
    }
    if args.json:
        print(json.dumps(report))
        return 0
    print(
        f"{report['cpus']} CPUs, load average {' '.join(f'{x:.2f}' for x in load_before)} "
        f"before, {' '.join(f'{x:.2f}' for x in load_after)} after; rounds: {args.rounds}, "
        "whole processes, medians"
    )
    for row in results:
        print(f"{row['case']}: ns-2.35 / westwood = x{row['ratio']:.2f}")
        for label in ("ns-2.35", "westwood"):
            r = row[label]
            ms = {k: r[f"{k}_seconds"] * 1000 for k in ("median", "min", "max")}
            print(
                f"  {label:9} {ms['median']:7.1f} ms (min {ms['min']:.1f}, max {ms['max']:.1f}), "
                f"peak RSS {r['peak_rss_bytes'] / 2**20:.1f} MiB  {r['command']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
