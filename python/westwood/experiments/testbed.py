"""Reproductions on real Linux TCP: the "testbed" sections of ``westwood reproduce``.

A ``TestbedExperiment`` (kind ``testbed``) is a sweep like ``experiments.Experiment`` whose runs
go through ``westwood-emu testbed`` (docs/testbed.md) instead of the simulator alone: each run
is the scenario's flows as kernel TCP (iperf3; ``westwood`` flows as the eBPF ``tcpw``) through
the user-space link emulator, and the simulator on the same scenario, seed and duration, which
the binary runs beside it. So every point has two values, and the report has two lines per
series: ``LABEL`` (the testbed) and ``LABEL (simulator)``. Claims are judged on both
(``SweepResults`` of ``as_sweep()``): the paper's claim on the testbed's line, and agreement
between the two.

Runs are sequential (the emulator and the kernel's TCP share the machine's cores; two testbeds
at once would measure each other) and stored like the simulator's: ``OUT/testbed-runs/KEY.json``
(written atomically, last) with the run's files in ``OUT/testbed-runs/KEY/``. An interrupted
reproduction resumes where it stopped. The key covers what was asked (experiment, overrides,
seed, duration), the scenario file's content and the ``westwood-emu`` binary's content.

When the machine cannot run a testbed at all (not root, ``iperf3`` or ``ip`` missing, the binary
not built) the experiment is *skipped*: its report page and the index say why, and nothing else
fails. When the binary reports a missing prerequisite for one run (exit status 2: e.g. this
kernel refuses the eBPF program of one congestion control), that run's points are *skipped* with
the binary's reason — in their table cells, in the notes, and in the claims that needed them —
and the other runs go on; if every run is skipped the whole experiment is. Skipped runs are not
stored, so a later reproduction on a machine that can run them does.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import (
    Any,
    Callable,
    ClassVar,
    Dict,
    List,
    Mapping,
    Optional,
    Sequence,
    TextIO,
    Tuple,
)

from ..binaries import parent_death_signal
from ..claims import Claim, ClaimUnavailable, Measurement
from ..files import make_directory, write_json_atomic, write_text_atomic, writing
from ..kernel_names import kernel_to_scenario
from ..paths import resolve_scenario
from ..progress import format_duration
from ..report import html as report
from ..runs.store import (
    STATUS_FAILED,
    STATUS_OK,
    RunSpec,
    file_digest,
    read_entry,
    scenario_digest,
)
from ..stats import mean_ci
from .alignment import (
    Alignment,
    CaseRow,
    NoTraces,
    align,
    alignment_table,
    plot_alignment,
)
from .base import Axis, Metric, Series, format_number, merge_overrides
from .preconditions import STANDARD, Precondition
from .sweep import Experiment, SweepResults, write_sweep

# A run the binary said this machine cannot do (exit status 2): not stored, reported with why.
STATUS_SKIPPED = "skipped"


STORE = "testbed-runs"
SIMULATOR_SUFFIX = " (simulator)"
TESTBED = "testbed"
SIMULATOR = "simulator"


# A testbed that fails (exit 1: e.g. iperf3's byte counts disagree) is tried again once.
ATTEMPTS = 2


class TestbedUnavailable(Exception):
    """This machine cannot run the testbed; the message says what is missing."""


@dataclass(frozen=True)
class TestbedRun:
    """One invocation of ``westwood-emu testbed``."""

    experiment: str
    scenario_path: str
    scenario_sha256: str
    overrides: Tuple[Tuple[str, str], ...]
    seed: int
    seconds: int
    x: float
    series: str
    binary_sha256: str
    # Per-ACK traces on both sides (``--ack-trace``): acks.csv and simulator/acks.csv.
    ack_trace: bool = False

    @cached_property
    def key(self) -> str:
        asked = {
            "experiment": self.experiment,
            "overrides": sorted([k, v] for k, v in self.overrides),
            "seed": self.seed,
            "seconds": self.seconds,
            "scenario": self.scenario_sha256,
            "binary": self.binary_sha256,
        }
        if self.ack_trace:  # only then, so the keys of runs without traces stay as they were
            asked["ack_trace"] = True
        payload = json.dumps(asked, separators=(",", ":"), sort_keys=True)
        return "tb-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:21]

    def identity(self) -> Dict[str, Any]:
        return {
            "experiment": self.experiment,
            "overrides": [list(p) for p in self.overrides],
            "seed": self.seed,
            "seconds": self.seconds,
        }

    def argv(self, binary: Path, out: Path) -> List[str]:
        args = [os.fspath(binary), "testbed", self.scenario_path]
        for key, value in self.overrides:
            args += ["--set", f"{key}={value}"]
        args += ["--duration", str(self.seconds), "--seed", str(self.seed), "--out", os.fspath(out)]
        if self.ack_trace:
            args.append("--ack-trace")
        return args

    def describe(self) -> str:
        sets = " ".join(f"{k}={v}" for k, v in self.overrides)
        return f"{self.experiment}: {sets} seed {self.seed} ({self.seconds} s)"


@dataclass(frozen=True)
class _Side:
    """A run as one side (testbed or simulator) of a point, shaped like ``runner.RunSpec`` for
    ``report.experiment_rows``."""

    key: str
    x: float
    series: str
    seed: int
    overrides: Tuple[Tuple[str, str], ...]


def with_simulator_twins(series: Sequence[Series]) -> Tuple[Series, ...]:
    """Each series, then its simulator's twin: ``LABEL (simulator)``, dashed, in its colour."""
    doubled: List[Series] = []
    for s in series:
        doubled.append(s)
        doubled.append(
            dataclasses.replace(
                s, label=s.label + SIMULATOR_SUFFIX, style="dashed", twin_of=s.label
            )
        )
    return tuple(doubled)


@dataclass(frozen=True)
class TestbedExperiment:
    """A figure of the papers measured on real TCP, with the simulator's value beside each point.

    ``series`` are the testbed's lines (labels as the claims name them); each gets a dashed twin
    ``LABEL (simulator)``. ``seconds`` / ``quick_seconds``: each run's length (the testbed's wall
    time and the simulator's duration)."""

    id: str
    title: str
    paper: str
    scenario: str
    x: Axis
    series: Tuple[Series, ...]
    metric: Metric
    seconds: int
    quick_seconds: int
    overrides: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    claims: Tuple[Claim, ...] = ()
    seeds: int = 2
    headline: bool = False
    # The simulator's line averages this many seeds per point (1..N), not only the testbed's:
    # the seeds beyond the testbed's are plain simulator runs with the overrides the testbed
    # recorded for its own simulator run (``simulator_overrides``), which cost a fraction of a
    # second each, so the comparison is not one noisy seed against another. 0: the testbed's.
    simulator_seeds: int = 0
    # Experiments with the same ``run_group`` share their runs (a run is identified by the group
    # instead of the experiment id), so two views of the same runs — goodput in one, the
    # retransmissions in the other — cost one set of real-time runs. "": the experiment's own.
    run_group: str = ""
    # Runs write per-ACK traces on both sides (``--ack-trace``; part of a run's key, so every
    # view of a run group sets it alike), and the testbed's summary of each run gains
    # ``alignment``: the two traces compared (``alignment.align``), which a metric can read.
    ack_trace: bool = False
    # The page also shows the comparison case by case (a table, a figure of both windows per
    # run): one view of a run group, not all of them.
    alignment_report: bool = False
    # What the verdicts rest on, checked on both sides' runs (preconditions.py); a testbed
    # figure takes its simulated counterpart's, so the two judge the same runs alike.
    preconditions: Tuple[Precondition, ...] = STANDARD

    kind: ClassVar[str] = "testbed"
    record: ClassVar[bool] = False

    def points(self, quick: bool) -> List[Tuple[float, Series]]:
        return [(x, s) for x in self.x.values_for(quick) for s in self.series]

    @property
    def fewer_quick_values(self) -> bool:
        return len(self.x.values_for(True)) < len(self.x.values)

    def run_overrides(
        self, x_value: float, series: Series, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        return merge_overrides(
            self.overrides.items(), series.overrides.items(), self.x.overrides(x_value), extra
        )

    def as_sweep(self, quick: bool) -> Experiment:
        """The experiment as the report and the claims see it: each series twice."""
        seconds = self.quick_seconds if quick else self.seconds
        return Experiment(
            id=self.id,
            title=self.title,
            paper=self.paper,
            scenario=self.scenario,
            x=self.x,
            series=with_simulator_twins(self.series),
            metric=self.metric,
            overrides=self.overrides,
            quick_duration=f"{self.quick_seconds}s",
            description=f"{self.description} Real Linux TCP through the link emulator "
            f"(`westwood testbed`, docs/testbed.md), {seconds} s per run; the dashed "
            '"(simulator)" lines are the simulator on the same scenario and duration'
            + (
                f", seeds 1-{self.simulator_seeds}."
                if self.simulator_seeds
                else ", with the same seed."
            ),
            claims=self.claims,
            seeds=self.seeds,
            preconditions=self.preconditions,
        )

    def plan(self, quick: bool, seeds: int, extra: Sequence[Tuple[str, str]], binary_sha256: str):
        path = str(resolve_scenario(self.scenario))
        digest = scenario_digest(path)
        seconds = self.quick_seconds if quick else self.seconds
        return [
            TestbedRun(
                experiment=self.run_group or self.id,
                scenario_path=path,
                scenario_sha256=digest,
                overrides=tuple(self.run_overrides(x, series, extra)),
                seed=seed,
                seconds=seconds,
                x=x,
                series=series.label,
                binary_sha256=binary_sha256,
                ack_trace=self.ack_trace,
            )
            for x, series in self.points(quick)
            for seed in range(1, seeds + 1)
        ]


# --- can this machine run it? ------------------------------------------------------------------


def find_binary() -> Path:
    """The westwood-emu binary; ``TestbedUnavailable`` saying how to build it if missing."""
    from ..binaries import BinaryNotFound
    from ..testbed import find_binary as find_emu

    try:
        return find_emu()
    except BinaryNotFound as err:
        raise TestbedUnavailable(str(err)) from None


def unavailable_reason() -> Optional[str]:
    """Why this machine cannot run a testbed, or None if it looks able to (the binary checks the
    rest: namespaces, the eBPF program, a kernel cc)."""
    if not sys.platform.startswith("linux"):
        return f"the testbed needs Linux (this is {sys.platform})"
    if os.geteuid() != 0:
        return "the testbed needs root (network namespaces, the eBPF program); run as root"
    missing = [tool for tool in ("ip", "iperf3") if shutil.which(tool) is None]
    if missing:
        return f"{' and '.join(missing)} not found; install: apt-get install iproute2 iperf3"
    try:
        find_binary()
    except TestbedUnavailable as err:
        return str(err)
    return None


def testbed_binary(sections: str, stream: TextIO) -> Tuple[Optional[str], Optional[Path], str]:
    """(why this machine cannot run them, or None; the westwood-emu binary; its digest, part
    of every run's key) for the ``sections`` of a reproduction that run real TCP; the reason is
    printed once."""
    reason = unavailable_reason()
    if reason is not None:
        print(f"{sections} sections skipped: {reason}", file=stream, flush=True)
        return reason, None, ""
    binary = find_binary()
    return None, binary, file_digest(binary)


# --- running -----------------------------------------------------------------------------------


def _last_lines(text: str, n: int = 6) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return "\n".join(lines[-n:])


# How the tools a testbed run starts begin their own messages: the binary, and `westwood
# measure` inside `westwood emu path`.
MESSAGE_PREFIXES = ("westwood-emu: ", "westwood: error: ", "westwood: ")


def skip_reason(output: str) -> str:
    """The tool's own message of an exit status 2 (``westwood-emu: ...``, ``westwood: error:
    ...``), else its last lines."""
    for line in reversed(output.strip().splitlines()):
        for prefix in MESSAGE_PREFIXES:
            if line.strip().startswith(prefix):
                return line.strip()[len(prefix) :].strip()
    return _last_lines(output) or "exit status 2"


# How long an interrupted testbed run may take to clean up (namespaces, iperf3, kernel
# registrations) before it is killed: its own teardown takes well under a second.
CLEANUP_SECONDS = 30


def _run_to_the_end(
    argv: List[str], partial: Optional[Path], echo: Optional[TextIO] = None
) -> subprocess.CompletedProcess:
    """Run one testbed binary and wait for it, also when interrupted: subprocess.run gives an
    interrupted child 0.25 s and then kills it, which left its namespaces behind (a Ctrl-C
    reaches it too, a SIGINT sent to reproduce alone does not). On KeyboardInterrupt the child
    is asked to stop (SIGTERM: it cleans up as on Ctrl-C) and given ``CLEANUP_SECONDS``; the
    run's unfinished directory ``partial`` (if any) is removed. With ``echo``, what the child
    prints (both streams, merged into ``stderr``) is passed on line by line as it comes: a
    long measurement shows its progress."""
    proc = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE if echo is None else subprocess.STDOUT,
        text=True,
        # If reproduce is killed, the run cleans up and stops instead of running on.
        preexec_fn=parent_death_signal(signal.SIGTERM),
    )
    lines: List[str] = []
    try:
        if echo is None:
            out, err = proc.communicate()
        else:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.append(line)
                echo.write("  " + line)
                echo.flush()
            proc.wait()
            out, err = "", "".join(lines)
    except KeyboardInterrupt:
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=CLEANUP_SECONDS)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
        if partial is not None:
            shutil.rmtree(partial, ignore_errors=True)
        raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def run_one(run: TestbedRun, binary: Path, store: Path) -> Dict[str, Any]:
    """Run one testbed (retrying a failed one once) and commit its entry. Exit status 2 (a
    missing prerequisite, a scenario the testbed cannot map) gives a *skipped* entry with the
    reason, not stored; 130 (interrupted) raises ``KeyboardInterrupt``."""
    run_dir = store / run.key
    error = ""
    for _attempt in range(ATTEMPTS):
        partial = store / f"{run.key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        started = time.monotonic()
        proc = _run_to_the_end(run.argv(binary, partial), partial)
        wall = time.monotonic() - started
        if proc.returncode == 130:
            shutil.rmtree(partial, ignore_errors=True)
            raise KeyboardInterrupt
        if proc.returncode == 2:
            shutil.rmtree(partial, ignore_errors=True)
            reason = skip_reason(proc.stderr or proc.stdout)
            return {**run.identity(), "status": STATUS_SKIPPED, "reason": reason}
        if proc.returncode == 0:
            try:
                testbed = json.loads((partial / "summary.json").read_text(encoding="utf-8"))
                simulator = json.loads(
                    (partial / "simulator" / "summary.json").read_text(encoding="utf-8")
                )
            except (OSError, ValueError) as err:
                error = f"westwood-emu wrote no readable summary: {err}"
            else:
                write_text_atomic(partial / "testbed.log", proc.stdout + proc.stderr)
                shutil.rmtree(run_dir, ignore_errors=True)
                with writing(run_dir):
                    partial.rename(run_dir)
                entry = {
                    **run.identity(),
                    "status": STATUS_OK,
                    "wall_seconds": wall,
                    "files": os.fspath(run_dir.relative_to(store.parent)),
                    TESTBED: testbed,
                    SIMULATOR: simulator,
                }
                write_json_atomic(store / f"{run.key}.json", entry)
                return entry
        else:
            error = _last_lines(proc.stderr or proc.stdout) or f"exit status {proc.returncode}"
        shutil.rmtree(partial, ignore_errors=True)
    entry = {**run.identity(), "status": STATUS_FAILED, "error": error}
    write_json_atomic(store / f"{run.key}.json", entry)
    return entry


def execute(
    runs: Sequence[TestbedRun], binary: Path, store: Path, stream: Optional[TextIO] = None
) -> Dict[str, Dict[str, Any]]:
    """Every run not yet done, one after the other, a progress line each; entries by key."""
    stream = stream if stream is not None else sys.stderr
    make_directory(store)
    unique: Dict[str, TestbedRun] = {}
    for run in runs:
        unique.setdefault(run.key, run)
    entries: Dict[str, Dict[str, Any]] = {}
    todo: List[TestbedRun] = []
    for key, run in unique.items():
        entry = read_entry(store, key)
        if entry is not None and entry.get("status") == STATUS_OK:
            entries[key] = entry
        else:
            todo.append(run)
    if not todo:
        return entries
    total_seconds = sum(r.seconds for r in todo)
    print(
        f"testbed: {len(todo)} run(s) of real TCP, about {format_duration(total_seconds * 1.1)} "
        f"({len(entries)} already done)",
        file=stream,
        flush=True,
    )
    started = time.monotonic()
    left = total_seconds
    for i, run in enumerate(todo, 1):
        print(f"testbed [{i}/{len(todo)}] {run.describe()}", file=stream, flush=True)
        entry = run_one(run, binary, store)
        entries[run.key] = entry
        left -= run.seconds
        elapsed = time.monotonic() - started
        done = total_seconds - left
        eta = elapsed / done * left if done else math.nan
        if entry["status"] == STATUS_OK:
            status = "ok"
        elif entry["status"] == STATUS_SKIPPED:
            status = f"skipped: {entry['reason']}"
        else:
            status = f"FAILED: {entry.get('error', '')}"
        print(
            f"testbed [{i}/{len(todo)}] {status}; elapsed {format_duration(elapsed)}, "
            f"ETA {format_duration(eta) if not math.isnan(eta) else '?'}",
            file=stream,
            flush=True,
        )
    return entries


# --- reporting ---------------------------------------------------------------------------------


def scenario_view(testbed_summary: Mapping[str, Any]) -> Dict[str, Any]:
    """The testbed's summary with ``per_cc`` and each flow's ``cc`` under the scenario's names
    (the kernel's ``tcpw`` runs the scenario's ``westwood`` flows), so one metric reads both
    sides. The mapping is the testbed's own (``testbed.flows``), else the registry's."""
    names = kernel_to_scenario()
    for flow in testbed_summary.get("testbed", {}).get("flows", []):
        if flow.get("kernel_cc") and flow.get("scenario_cc"):
            names[flow["kernel_cc"]] = flow["scenario_cc"]
    view = dict(testbed_summary)
    view["per_cc"] = {names.get(cc, cc): v for cc, v in testbed_summary.get("per_cc", {}).items()}
    view["flows"] = [
        {**f, "cc": names.get(f.get("cc"), f.get("cc"))} for f in testbed_summary.get("flows", [])
    ]
    return view


def sides(
    runs: Sequence[TestbedRun],
    entries: Mapping[str, Mapping[str, Any]],
    extra_simulator: Sequence[Tuple[_Side, Mapping[str, Any]]] = (),
    alignments: Optional[Mapping[str, Alignment]] = None,
) -> Tuple[List[_Side], Dict[str, Mapping[str, Any]]]:
    """Each finished run as two rows (testbed, simulator) for ``report.experiment_rows``, and
    the simulator-only rows of ``extra_simulator`` (``simulator_runs``). A run's comparison of
    traces (``alignments``, by run key) goes into its testbed row's summary as ``alignment``."""
    specs: List[_Side] = []
    summaries: Dict[str, Mapping[str, Any]] = {}
    for side, summary in extra_simulator:
        specs.append(side)
        summaries[side.key] = summary
    for run in runs:
        entry = entries.get(run.key)
        if not entry or entry.get("status") != STATUS_OK:
            continue
        testbed = scenario_view(entry[TESTBED])
        if alignments and run.key in alignments:
            testbed["alignment"] = alignments[run.key].as_dict()
        for side, suffix, summary in (
            (TESTBED, "", testbed),
            (SIMULATOR, SIMULATOR_SUFFIX, entry[SIMULATOR]),
        ):
            key = f"{run.key}:{side}"
            specs.append(_Side(key, run.x, run.series + suffix, run.seed, run.overrides))
            summaries[key] = summary
    return specs, summaries


def emulator_notes(runs: Sequence[TestbedRun], entries: Mapping[str, Mapping[str, Any]]) -> str:
    """One line on the emulator's own health over the runs: frames it dropped or failed to send,
    how late it sent, how often it stalled (and froze its links), and whether iperf3's byte
    counts agreed on both ends."""
    frames = drops = bad_flows = stalls = 0
    frozen = longest = 0.0
    lateness: List[float] = []
    for run in runs:
        entry = entries.get(run.key)
        if not entry or entry.get("status") != STATUS_OK:
            continue
        tb = entry[TESTBED].get("testbed", {})
        emu = tb.get("emulator", {})
        counters = emu.get("counters", {})
        frames += int(counters.get("frames_in", 0))
        drops += int(counters.get("rx_socket_drops", 0)) + int(counters.get("tx_errors", 0))
        p99 = emu.get("lateness_seconds", {}).get("p99")
        if p99 is not None:
            lateness.append(float(p99) * 1e3)
        bad_flows += sum(1 for f in tb.get("integrity", []) if not f.get("ok", True))
        stall = emu.get("stalls", {})
        stalls += int(stall.get("count", 0))
        frozen += float(stall.get("frozen_seconds", 0.0))
        longest = max(longest, float(stall.get("longest_seconds", 0.0)))
    worst = f"{max(lateness):.3f} ms" if lateness else "n/a"
    return (
        f"Emulator over these runs: {frames} frames, {drops} dropped or not sent by the emulator "
        f"itself, worst send lateness p99 {worst}, {stalls} stalls that froze its links "
        f"({frozen * 1e3:.1f} ms in all, the longest {longest * 1e3:.1f} ms); flows whose iperf3 "
        f"byte counts disagree: {bad_flows}."
    )


def simulator_overrides(entry: Mapping[str, Any]) -> Optional[List[Tuple[str, str]]]:
    """The ``--set`` overrides that make ``westwood run`` the simulator run of a stored testbed
    run: the run's own, its duration, and the keys the testbed changed for its simulator
    (``simulator_overrides.changed``); None when the run did not record them (a binary from
    before they were recorded) or a key took different values in different flows (one override
    cannot say that)."""
    recorded = entry[TESTBED].get("testbed", {}).get("simulator_overrides")
    if not isinstance(recorded, Mapping) or "changed" not in recorded:
        return None
    changed = recorded["changed"]
    if any("," in str(v) for v in changed.values()):
        return None
    return merge_overrides(
        entry["overrides"], [("scenario.duration", f"{entry['seconds']}s")], changed.items()
    )


def simulator_runs(
    experiment: TestbedExperiment,
    runs: Sequence[TestbedRun],
    entries: Mapping[str, Mapping[str, Any]],
    seeds: int,
    out: Path,
    stream: Optional[TextIO],
) -> List[Tuple[_Side, Mapping[str, Any]]]:
    """The simulator's seeds ``seeds + 1 .. experiment.simulator_seeds`` of every point the
    testbed measured, as simulator-only rows. They are ordinary simulator runs in ``OUT/runs``
    (stored, resumed). The testbed's own seed 1 is run too, and must give what the testbed's
    simulator gave: otherwise the recorded overrides do not describe that run, and the extra
    seeds would be another simulation (an error, not a silent mix)."""
    if experiment.simulator_seeds <= seeds:
        return []
    from ..runs.runner import run_all  # noqa: PLC0415 (the simulator only when asked)

    path = str(resolve_scenario(experiment.scenario))
    digest = scenario_digest(path)
    wanted: List[Tuple[RunSpec, TestbedRun]] = []
    checks: List[Tuple[RunSpec, TestbedRun]] = []
    for run in runs:
        entry = entries.get(run.key)
        if run.seed != 1 or not entry or entry.get("status") != STATUS_OK:
            continue
        overrides = simulator_overrides(entry)
        if overrides is None:
            continue
        for seed in [1] + list(range(seeds + 1, experiment.simulator_seeds + 1)):
            spec = RunSpec(
                experiment=f"{experiment.id}-simulator",
                scenario_path=path,
                overrides=tuple(overrides),
                seed=seed,
                x=run.x,
                series=run.series + SIMULATOR_SUFFIX,
                scenario_sha256=digest,
            )
            (checks if seed == 1 else wanted).append((spec, run))
    if not wanted:
        return []
    outcome = run_all([s for s, _ in checks + wanted], out / "runs", progress_stream=stream)
    for spec, run in checks:
        got = outcome.entries[spec.key]
        mine = entries[run.key][SIMULATOR]
        if got.get("status") != STATUS_OK or got["summary"].get("flows") != mine.get("flows"):
            raise RuntimeError(
                f"{run.describe()}: `westwood run` with the testbed's recorded simulator "
                "overrides does not reproduce the testbed's simulator run; the extra simulator "
                "seeds would simulate something else"
            )
    rows = []
    for spec, _ in wanted:
        entry = outcome.entries[spec.key]
        if entry.get("status") == STATUS_OK:
            side = _Side(spec.key, spec.x, spec.series, spec.seed, spec.overrides)
            rows.append((side, entry["summary"]))
    return rows


def write_report(
    experiment: TestbedExperiment,
    runs: Sequence[TestbedRun],
    entries: Mapping[str, Mapping[str, Any]],
    out: Path,
    quick: bool,
    seeds: int,
    command: str,
    extra_simulator: Sequence[Tuple[_Side, Mapping[str, Any]]] = (),
) -> Tuple[List[Path], Dict[str, Any]]:
    sweep = experiment.as_sweep(quick)
    alignments, not_aligned = (
        run_alignments(runs, entries, out) if experiment.ack_trace else ({}, [])
    )
    specs, summaries = sides(runs, entries, extra_simulator, alignments)
    skipped = skipped_points(runs, entries)
    paths, entry = write_sweep(sweep, specs, summaries, out, quick, seeds, command, skipped)
    md_path = out / f"{experiment.id}.md"
    unique = unique_runs(runs)
    status = {r.key: (entries.get(r.key) or {}).get("status") for r in unique}
    failed = [r for r in unique if status[r.key] not in (STATUS_OK, STATUS_SKIPPED)]
    notes = [emulator_notes(runs, entries)]
    if not_aligned:
        notes.append(
            f"{len(not_aligned)} run(s) without a pair of per-ACK traces to compare: "
            + "; ".join(not_aligned)
        )
    passed_over = [r for r in unique if status[r.key] == STATUS_SKIPPED]
    if passed_over:
        notes.append(
            f"{len(passed_over)} run(s) skipped (this machine cannot run them): "
            + "; ".join(f"{r.describe()}: {entries[r.key]['reason']}" for r in passed_over)
        )
    if failed:
        notes.append(
            f"{len(failed)} run(s) failed and are missing from the table: "
            + "; ".join(
                f"{r.describe()}: {(entries.get(r.key) or {}).get('error', '')}" for r in failed
            )
        )
    page = md_path.read_text(encoding="utf-8")
    page += "\n" + "\n\n".join(notes) + f"\n\nPer-run files: `{STORE}/<key>/` (docs/testbed.md)\n"
    if experiment.alignment_report and alignments:
        section, figures = alignment_section(experiment, runs, entries, alignments, out)
        page += section
        paths += figures
    write_text_atomic(md_path, page)
    return paths, {**entry, "notes": notes}


def unique_runs(runs: Sequence[TestbedRun]) -> List[TestbedRun]:
    """``runs`` without repeats, in order: the series of one mix share their runs."""
    return list({r.key: r for r in runs}.values())


def run_alignments(
    runs: Sequence[TestbedRun], entries: Mapping[str, Mapping[str, Any]], out: Path
) -> Tuple[Dict[str, Alignment], List[str]]:
    """The comparison of both traces of every finished run (by key), and why a run has none."""
    found: Dict[str, Alignment] = {}
    missing: List[str] = []
    for run in unique_runs(runs):
        entry = entries.get(run.key) or {}
        if entry.get("status") != STATUS_OK:
            continue
        try:
            found[run.key] = align(out / entry["files"])
        except (NoTraces, OSError, ValueError) as err:
            missing.append(f"{run.describe()}: {err}")
    return found, missing


def alignment_section(
    experiment: TestbedExperiment,
    runs: Sequence[TestbedRun],
    entries: Mapping[str, Mapping[str, Any]],
    alignments: Mapping[str, Alignment],
    out: Path,
) -> Tuple[str, List[Path]]:
    """The page's case-by-case comparison of the two traces: a table, and a figure of both
    windows per run (``EXPERIMENT-acks-N``)."""
    rows: List[CaseRow] = []
    figures: List[Path] = []
    links: List[str] = []
    ordered = sorted(
        (r for r in unique_runs(runs) if r.key in alignments),
        key=lambda r: ([s.label for s in experiment.series].index(r.series), r.x, r.seed),
    )
    for n, run in enumerate(ordered, 1):
        entry = entries[run.key]
        case = f"{run.series}, {experiment.x.parameter} {format_number(run.x)}{experiment.x.unit}"
        if experiment.seeds > 1:
            case += f", seed {run.seed}"
        tb, sim = entry[TESTBED]["flows"][0], entry[SIMULATOR]["flows"][0]
        rows.append(
            CaseRow(
                case=case,
                alignment=alignments[run.key],
                retransmits=(float(tb["retransmits"]), float(sim["retransmits"])),
                goodput_bps=(float(tb["goodput_bps"]), float(sim["goodput_bps"])),
            )
        )
        stem = f"{experiment.id}-acks-{n}"
        figures += plot_alignment(alignments[run.key], f"{experiment.id}: {case}", out / stem)
        links.append(f"[{case}]({stem}.png)")
    section = f"""
## ACK by ACK

Each run's two per-ACK traces (docs/ack-trace.md: the kernel's `acks.csv`, the simulator's
`simulator/acks.csv`) compared at the same cumulative ACK: a kernel row agrees when its cwnd
(ssthresh) is within one segment of the simulator's state at that point
(`westwood.ack_trace.window_agreement`). Loss episodes end at the ACK that brought the sender
back to Open or Disorder; times count from each trace's first row. The last column is what
both traces hold where they first disagree on cwnd.

{alignment_table(rows)}

Both windows over each other (kernel solid, simulator dashed): {", ".join(links)}.
"""
    return section, figures


def skipped_points(
    runs: Sequence[TestbedRun], entries: Mapping[str, Mapping[str, Any]]
) -> Dict[Tuple[str, float], str]:
    """(series label, x) -> reason for the points whose runs were skipped, on both sides (the
    testbed's and the simulator's line: one run makes both)."""
    points: Dict[Tuple[str, float], str] = {}
    for run in runs:
        entry = entries.get(run.key) or {}
        if entry.get("status") == STATUS_SKIPPED:
            for label in (run.series, run.series + SIMULATOR_SUFFIX):
                points[(label, run.x)] = entry["reason"]
    return points


def write_skipped(experiment: Any, reason: str, out: Path, command: str):
    """The page of a testbed experiment (of any of its forms: ``id``, ``title``, ``paper``,
    ``description``) this machine could not run."""
    md_path = out / f"{experiment.id}.md"
    write_text_atomic(
        md_path,
        f"""# {experiment.id}: {experiment.title}

Reproduces {experiment.paper} on real Linux TCP. {experiment.description}

**Skipped: this machine cannot run the testbed.** {reason}

Rerun where it can (root, iperf3, iproute2, `make build`): `{command}`
""",
    )
    entry = {"skipped": reason, "files": [("note", f"{experiment.id}.md")]}
    return [md_path], entry


# --- claim measures ----------------------------------------------------------------------------


def agreement(testbed_a: str, testbed_b: str, xs: Sequence[float] = ()):
    """Claim measure: over the x values (all, or ``xs``), the testbed's ``a / b`` ratio over the
    simulator's, the one farthest from 1 (e.g. tcpw/reno goodput, testbed vs simulator).

    Not judged on ``--quick`` runs (n/a, with the value measured): one short run per point is
    dominated by slow start and single random draws (docs/testbed.md, "In westwood reproduce"),
    so a verdict on it would say more about the run's length than about the two TCPs."""

    def sides(r: SweepResults, x: float) -> Tuple[float, float]:
        tb = r.mean(testbed_a, x) / r.mean(testbed_b, x)
        sim = r.mean(testbed_a + SIMULATOR_SUFFIX, x) / r.mean(testbed_b + SIMULATOR_SUFFIX, x)
        return tb, sim

    return _farthest_from_one(
        xs, sides, f"no x value with both {testbed_a} and {testbed_b} on both sides", ".2f"
    )


def kernel_over_simulator(series: str, xs: Sequence[float] = ()):
    """Claim measure: over the x values (all, or ``xs``), the testbed's mean of ``series`` over
    the simulator's (kernel TCP against the simulator's ``linux`` profile on the same scenario),
    the one farthest from 1. Not judged on ``--quick`` runs (as ``agreement``).

    Paired by seed: the emulator draws the simulator's loss streams, so a seed gives both sides
    the same losses until their packets part (the same slow-start overshoot or none, the same
    first recoveries); the testbed's mean is set against the simulator's over the same seeds, so
    which seeds the few testbed runs happened to get does not count as a difference between the
    sides. The detail gives the paired 95 % interval (of the per-seed differences) and the
    simulator's mean over all its seeds."""

    def paired(r: SweepResults, x: float) -> Tuple[List[float], List[float], List[float]]:
        kernel = r.per_seed(series, x)
        simulator = r.per_seed(series + SIMULATOR_SUFFIX, x)
        seeds = sorted(set(kernel) & set(simulator))
        if not seeds:
            raise ClaimUnavailable(f"no seed of {series} at {r.x_text(x)} run on both sides")
        return [kernel[s] for s in seeds], [simulator[s] for s in seeds], list(simulator.values())

    def sides(r: SweepResults, x: float) -> Tuple[float, float]:
        kernel, simulator, _ = paired(r, x)
        return mean_ci(kernel).mean, mean_ci(simulator).mean

    def spread(r: SweepResults, x: float) -> str:
        # The testbed's few runs vary widely (docs/testbed.md): the reader sees how far the
        # quotient could move with them, the verdict stays on the means.
        kernel, simulator, every = paired(r, x)
        text = (
            f" over seeds both ran ({len(kernel)}; the simulator's {len(every)}:"
            f" {mean_ci(every).mean:.3g})"
        )
        base = mean_ci(simulator).mean
        differences = mean_ci([k - s for k, s in zip(kernel, simulator)])
        if len(kernel) < 2 or math.isnan(differences.half_width) or base <= 0:
            return text
        low = 1 + (differences.mean - differences.half_width) / base
        high = 1 + (differences.mean + differences.half_width) / base
        return text + f", paired 95% CI {max(low, 0.0):.2f}-{high:.2f}"

    return _farthest_from_one(
        xs, sides, f"no x value with {series} on both sides", ".3g", spread=spread
    )


def _farthest_from_one(
    xs: Sequence[float],
    sides: Callable[[SweepResults, float], Tuple[float, float]],
    missing: str,
    number: str,
    spread: Optional[Callable[[SweepResults, float], str]] = None,
):
    """The measure ``agreement`` and ``kernel_over_simulator`` share: at each x value
    ``sides`` gives (testbed, simulator); the quotient farthest from 1 (0 counts as infinitely
    far), every quotient in the detail (with ``spread``'s words on it), n/a on quick runs."""

    def measure(r: SweepResults) -> Measurement:
        found = []
        for x in xs or r.xs:
            try:
                tb, sim = sides(r, x)
            except (ClaimUnavailable, ZeroDivisionError):
                continue
            if sim > 0 and not math.isnan(tb) and not math.isnan(sim):
                found.append((tb / sim, x, tb, sim))
        if not found:
            raise ClaimUnavailable(missing)
        worst = max(found, key=lambda f: abs(math.log(f[0])) if f[0] > 0 else math.inf)
        detail = "; ".join(
            f"{r.x_text(x)}: testbed {tb:{number}} / simulator {sim:{number}} = {q:.2f}"
            + (spread(r, x) if spread else "")
            for q, x, tb, sim in found
        )
        if r.quick:
            raise ClaimUnavailable(
                f"quick runs are too short to judge agreement (measured {worst[0]:.2f}: {detail});"
                " run without --quick"
            )
        return Measurement(worst[0], detail)

    return measure


# --- the testbed part of `westwood reproduce` --------------------------------------------------


def reproduce_testbed(
    experiments: Sequence[TestbedExperiment],
    out: Path,
    *,
    quick: bool,
    seeds: Optional[int],
    extra: Sequence[Tuple[str, str]],
    stream: Optional[TextIO],
    command: Callable[[TestbedExperiment, int], str],
) -> Tuple[List[Path], Dict[str, Dict[str, Any]]]:
    """Run (what is not stored yet) and report every testbed experiment, or write why it was
    skipped. Returns the files written and the index entries by experiment id."""
    stream = stream if stream is not None else sys.stderr
    reason, binary, digest = testbed_binary("testbed", stream)
    written: List[Path] = []
    entries: Dict[str, Dict[str, Any]] = {}
    for experiment in experiments:
        n_seeds = seeds if seeds is not None else (1 if quick else experiment.seeds)
        rerun = command(experiment, n_seeds)
        runs = experiment.plan(quick, n_seeds, extra, digest)
        skipped = reason
        if skipped is None:
            assert binary is not None
            done = execute(runs, binary, out / STORE, stream)
            unique = {r.key for r in runs}
            reasons = sorted({done[k].get("reason", "") for k in unique})
            if all(done[k]["status"] == STATUS_SKIPPED for k in unique):
                skipped = "; ".join(reasons)
                print(f"testbed: {experiment.id} skipped: {skipped}", file=stream, flush=True)
        if skipped is not None:
            paths, entry = write_skipped(experiment, skipped, out, rerun)
            runs_text = f"skipped: {skipped}"
        else:
            extra_simulator = simulator_runs(experiment, runs, done, n_seeds, out, stream)
            paths, entry = write_report(
                experiment, runs, done, out, quick, n_seeds, rerun, extra_simulator
            )
            ok = sum(1 for k in {r.key for r in runs} if done[k]["status"] == STATUS_OK)
            seconds = experiment.quick_seconds if quick else experiment.seconds
            runs_text = (
                f"{'quick' if quick else 'full'}, {ok} testbed runs of {seconds} s, "
                f"{n_seeds} seed(s) per point"
            )
        written += paths
        entries[experiment.id] = report.index_entry(
            experiment, quick, n_seeds, len(runs), runs_text, rerun, entry
        )
    return written, entries
