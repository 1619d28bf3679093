"""Experiments measured as the papers measured the Internet: ``westwood measure`` (transfers
that alternate the congestion controls, round after round, captured and analysed) run against a
path of the papers emulated from its scenario file (``westwood emu path --scenario``), with the
simulator's runs of the same scenario beside them. They are of kind ``testbed`` (real Linux TCP,
run one at a time after the simulations) and share its report: a line per congestion control,
its dashed simulator twin, claims judged on the measured line.

Each x value is one emulated path and one ``measure`` directory, ``OUT/measure-runs/KEY/``
(``measure/``: measure's own files, which a user gets from the same command on a real host;
``path-N.json``: the emulator's report of the N-th call), keyed by the experiment, the scenario
file and its overrides, the congestion controls, the length of a transfer and the
``westwood-emu`` binary, but not by the number of rounds: an interrupted reproduction, or one
asked for more rounds, measures only the rounds missing into the same directory (``measure``
adds rounds), as the papers repeated theirs through a day. Each call draws the path's losses
from its own seed (the first round it measures), so no two rounds see the same draws.

A round plays the part of a seed in the tables: round k's transfers of each congestion control
ran back to back over the same path, so their ratio is a paired sample. The simulator's line is
``westwood run`` of the scenario with what the path reported its simulator run changes (the
``linux`` profile as the testbed applies it), seeds 1 to the number of rounds: the
simulator's expectation for the path, not a replay of the rounds' losses.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shlex
import shutil
import sys
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

from ..claims import Claim, ClaimUnavailable, Measurement
from ..files import make_directory, write_json_atomic, write_text_atomic
from ..kernel_names import ebpf_kernel_names, kernel_to_scenario, scenario_to_kernel
from ..paths import resolve_scenario
from ..progress import format_duration
from ..report import html as report
from ..runs.store import (
    STATUS_FAILED,
    STATUS_OK,
    RunSpec,
    read_entry,
    scenario_digest,
)
from ..stats import mean_ci
from .base import GOODPUT_MBPS, Axis, Metric, Series, merge_overrides
from .sweep import Experiment, SweepResults, write_sweep
from .testbed import (
    SIMULATOR_SUFFIX,
    STATUS_SKIPPED,
    _last_lines,
    _run_to_the_end,
    _Side,
    skip_reason,
    testbed_binary,
    with_simulator_twins,
    write_skipped,
)

STORE = "measure-runs"
# Seconds between two transfers (measure's --pause): the papers' transfers followed each other.
PAUSE_SECONDS = 1


@dataclass(frozen=True)
class MeasurementRun:
    """One emulated path and the ``measure`` rounds through it."""

    experiment: str
    scenario_path: str
    scenario_sha256: str
    overrides: Tuple[Tuple[str, str], ...]
    seconds: int
    x: float
    kernel_ccs: Tuple[str, ...]
    binary_sha256: str
    start_seconds: int = 0
    parallel: int = 1

    @cached_property
    def key(self) -> str:
        asked = {
            "experiment": self.experiment,
            "overrides": sorted([k, v] for k, v in self.overrides),
            "seconds": self.seconds,
            "ccs": list(self.kernel_ccs),
            "start": self.start_seconds,
            "parallel": self.parallel,
            "scenario": self.scenario_sha256,
            "binary": self.binary_sha256,
        }
        payload = json.dumps(asked, separators=(",", ":"), sort_keys=True)
        return "ms-" + hashlib.sha256(payload.encode("utf-8")).hexdigest()[:21]

    def describe(self) -> str:
        sets = " ".join(f"{k}={v}" for k, v in self.overrides)
        return (
            f"{self.experiment}: {sets} ({', '.join(self.kernel_ccs)} alternating, "
            f"{self.seconds} s transfers)"
        )

    def argv(
        self,
        binary: Path,
        directory: Path,
        rounds: int,
        seed: int,
        report_file: Path,
        pcap: bool,
    ) -> List[str]:
        """``westwood-emu path --scenario ... -- sh -c 'westwood measure $SERVER ...'``: the
        measure command a user runs against a real host, in the path's client namespace."""
        measure = [
            sys.executable,
            "-m",
            "westwood",
            "measure",
            "SERVER",
            "--cc",
            ",".join(self.kernel_ccs),
            "--duration",
            f"{self.seconds}s",
            "--rounds",
            str(rounds),
            "--pause",
            str(PAUSE_SECONDS),
            "--out",
            os.fspath(directory / "measure"),
        ]
        if self.parallel > 1:
            measure += ["--parallel", str(self.parallel)]
        if pcap:
            measure.append("--pcap")
        # The server's address is the path's, known inside it: $WESTWOOD_PATH_SERVER.
        shell = "exec " + shlex.join(measure).replace(" SERVER ", ' "$WESTWOOD_PATH_SERVER" ', 1)
        if self.start_seconds:
            # The scenario's measured flow starts after its cross traffic: so does measure.
            shell = f"sleep {self.start_seconds}; {shell}"
        args = [os.fspath(binary), "path", "--scenario", self.scenario_path]
        for key, value in self.overrides:
            args += ["--set", f"{key}={value}"]
        bpf = [cc for cc in self.kernel_ccs if cc in ebpf_kernel_names()]
        if bpf:
            args += ["--load", ",".join(bpf)]
        return args + [
            "--seed",
            str(seed),
            "--report",
            os.fspath(report_file),
            "--",
            "sh",
            "-c",
            shell,
        ]


@dataclass(frozen=True)
class MeasurementExperiment:
    """A table of the papers' Internet measurements, measured through ``westwood measure`` on the
    path's emulation, with the simulator beside it.

    ``series`` set only ``cc`` (one ``measure`` command alternates them over one path); each is
    measured as the kernel's twin of that cc (``westwood`` as ``tcpw``). ``rounds``: rounds of
    transfers per path (``--quick``: ``quick_rounds``), each transfer ``seconds`` long."""

    id: str
    title: str
    paper: str
    scenario: str
    x: Axis
    series: Tuple[Series, ...]
    seconds: int
    quick_seconds: int
    rounds: int
    quick_rounds: int = 1
    # Seconds the path runs before measure starts (the scenario's measured flow starts this late,
    # after its cross traffic); the simulator runs the scenario for this plus a transfer.
    start_seconds: int = 0
    # Connections of one cc per transfer (measure --parallel: seed 000 fig. 20's 20 at once).
    # The path emulates the scenario as it is (one measured flow, its route); the simulator's
    # runs add ``simulator_overrides`` (e.g. the scenario's count of measured flows).
    parallel: int = 1
    simulator_overrides: Mapping[str, str] = field(default_factory=dict)
    metric: Metric = GOODPUT_MBPS
    overrides: Mapping[str, str] = field(default_factory=dict)
    description: str = ""
    claims: Tuple[Claim, ...] = ()
    headline: bool = False

    kind: ClassVar[str] = "testbed"
    record: ClassVar[bool] = False
    # How reproduce runs it (testbed.reproduce_testbed): through `westwood measure`.
    measured_with: ClassVar[str] = "measure"

    def __post_init__(self):
        kernel = scenario_to_kernel()
        for s in self.series:
            if set(s.overrides) != {"cc"}:
                raise ValueError(
                    f"{self.id}: series {s.label!r} sets {sorted(s.overrides)}: a measurement "
                    "series sets only cc (one measure command alternates them over one path)"
                )
            if s.overrides["cc"] not in kernel:
                raise ValueError(
                    f"{self.id}: series {s.label!r}: cc {s.overrides['cc']!r} has no kernel twin"
                )

    @property
    def seeds(self) -> int:
        return self.rounds

    @property
    def fewer_quick_values(self) -> bool:
        return len(self.x.values_for(True)) < len(self.x.values)

    def run_overrides(
        self, x_value: float, series: Series, extra: Sequence[Tuple[str, str]] = ()
    ) -> List[Tuple[str, str]]:
        """The scenario's overrides of one point, as the simulator's side runs it."""
        return merge_overrides(
            self.overrides.items(),
            self.simulator_overrides.items(),
            series.overrides.items(),
            self.x.overrides(x_value),
            extra,
        )

    def kernel_ccs(self) -> Tuple[str, ...]:
        kernel = scenario_to_kernel()
        return tuple(dict.fromkeys(kernel[s.overrides["cc"]] for s in self.series))

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
            description=f"{self.description} Measured with `westwood measure` ({seconds} s "
            "transfers, the congestion controls alternating within each round) through the "
            "path emulated from the scenario (`westwood emu path --scenario`, "
            "docs/measurement.md); a round plays the part of a seed. The dashed "
            '"(simulator)" lines are `westwood run` of the same scenario with the `linux` '
            "profile, as many seeds as rounds.",
            claims=self.claims,
            seeds=self.rounds,
        )

    def plan(
        self, quick: bool, extra: Sequence[Tuple[str, str]], binary_sha256: str
    ) -> List[MeasurementRun]:
        path = str(resolve_scenario(self.scenario))
        digest = scenario_digest(path)
        seconds = self.quick_seconds if quick else self.seconds
        return [
            MeasurementRun(
                experiment=self.id,
                scenario_path=path,
                scenario_sha256=digest,
                overrides=tuple(
                    merge_overrides(self.overrides.items(), self.x.overrides(x), extra)
                ),
                seconds=seconds,
                x=x,
                kernel_ccs=self.kernel_ccs(),
                binary_sha256=binary_sha256,
                start_seconds=self.start_seconds,
                parallel=self.parallel,
            )
            for x in self.x.values_for(quick)
        ]


# --- running -----------------------------------------------------------------------------------


def complete_rounds(directory: Path, ccs: Sequence[str]) -> List[int]:
    """The rounds of ``directory/measure`` that have a transfer of every cc, in order. A round
    interrupted part-way is not one of them: its transfers lack their pair, and the next call
    measures new rounds after it."""
    seen: Dict[int, set] = {}
    for f in (directory / "measure" / "runs").glob("*.json"):
        try:
            record = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        seen.setdefault(int(record.get("round", 0)), set()).add(record.get("label"))
    return sorted(r for r, labels in seen.items() if set(ccs) <= labels)


def run_one(
    run: MeasurementRun, binary: Path, store: Path, rounds: int, stream: TextIO
) -> Dict[str, Any]:
    """Measure the rounds ``run`` is missing (one call of the path), then commit its entry:
    ``ok`` when ``rounds`` rounds are complete; ``skipped`` (exit status 2: a missing
    prerequisite, not stored) with the reason; ``failed`` with the last lines otherwise."""
    directory = make_directory(store / run.key)
    done = len(complete_rounds(directory, run.kernel_ccs))
    if done < rounds:
        # Each call of the path draws its losses from a seed of its own: its number.
        call = len(list(directory.glob("path-*.log"))) + 1
        report_file = directory / f"path-{call}.json"
        print(
            f"measure: {run.describe()}: {rounds - done} round(s) to go of {rounds}, about "
            f"{format_duration((rounds - done) * len(run.kernel_ccs) * (run.seconds + 3))}",
            file=stream,
            flush=True,
        )
        pcap = shutil.which("tcpdump") is not None
        argv = run.argv(binary, directory, rounds - done, call, report_file, pcap)
        # The log is there from the start: an interrupted call still counts as a call.
        log = directory / f"path-{call}.log"
        write_text_atomic(log, shlex.join(argv) + "\n")
        proc = _run_to_the_end(argv, None, echo=stream)
        write_text_atomic(log, shlex.join(argv) + "\n" + proc.stderr)
        if proc.returncode == 130:
            raise KeyboardInterrupt
        if proc.returncode == 2 and len(complete_rounds(directory, run.kernel_ccs)) == done:
            return {"status": STATUS_SKIPPED, "reason": skip_reason(proc.stderr)}
        done = len(complete_rounds(directory, run.kernel_ccs))
        if done < rounds:
            entry = {
                **_entry(run, directory, store, done),
                "status": STATUS_FAILED,
                "error": _last_lines(proc.stderr, 4) or f"exit status {proc.returncode}",
            }
            write_json_atomic(store / f"{run.key}.json", entry)
            return entry
    entry = {**_entry(run, directory, store, done), "status": STATUS_OK}
    write_json_atomic(store / f"{run.key}.json", entry)
    return entry


def _entry(run: MeasurementRun, directory: Path, store: Path, rounds: int) -> Dict[str, Any]:
    """What a path's entry records: what was asked, the rounds complete, where measure's files
    are, and the path's report of every call."""
    reports = sorted(directory.glob("path-*.json"))
    return {
        "experiment": run.experiment,
        "overrides": [list(p) for p in run.overrides],
        "seconds": run.seconds,
        "ccs": list(run.kernel_ccs),
        "rounds": rounds,
        "files": os.fspath(directory.relative_to(store.parent)),
        "paths": [json.loads(r.read_text(encoding="utf-8")) for r in reports],
    }


def execute(
    runs: Sequence[MeasurementRun],
    binary: Path,
    store: Path,
    rounds: int,
    stream: Optional[TextIO] = None,
) -> Dict[str, Dict[str, Any]]:
    """Every path whose rounds are not all measured, one after the other; entries by key."""
    stream = stream if stream is not None else sys.stderr
    make_directory(store)
    entries: Dict[str, Dict[str, Any]] = {}
    for run in runs:
        entry = read_entry(store, run.key)
        if entry is not None and entry.get("status") == STATUS_OK and entry["rounds"] >= rounds:
            entries[run.key] = entry
        else:
            entries[run.key] = run_one(run, binary, store, rounds, stream)
    return entries


# --- reporting ---------------------------------------------------------------------------------


def measured_sides(
    experiment: MeasurementExperiment,
    run: MeasurementRun,
    entry: Mapping[str, Any],
    out: Path,
    rounds: int,
) -> Tuple[List[_Side], Dict[str, Mapping[str, Any]], str]:
    """The measured transfers of the first ``rounds`` complete rounds as rows of the series (a
    round is the row's seed; the summary holds the transfer as a flow, under the scenario's cc
    name), and measure's summary table of those rounds."""
    from ..measure import measure

    directory = out / entry["files"]
    kept = set(complete_rounds(directory, run.kernel_ccs)[:rounds])
    records = measure.load_records(directory / "measure")
    streams, transfers = measure.tables(records)
    transfers = [t for t in transfers if int(t["round"]) in kept]
    names = kernel_to_scenario()
    label_of = {scenario_to_kernel()[s.overrides["cc"]]: s.label for s in experiment.series}
    sessions: Dict[Tuple[int, str], List[Dict[str, Any]]] = {}
    for row in streams:
        sessions.setdefault((int(row["transfer"]), row["cc"]), []).append(row)
    specs: List[_Side] = []
    summaries: Dict[str, Mapping[str, Any]] = {}
    for t in transfers:
        if t["cc"] not in label_of:
            continue
        key = f"{run.key}:{t['transfer']}"
        cc = names.get(t["cc"], t["cc"])
        # One flow per connection of the transfer, named as the scenario names its measured
        # flows (transfer, or transfer.1 ... with several), so one metric reads both sides.
        mine = sessions.get((int(t["transfer"]), t["cc"]), [])
        flows = [
            {
                "name": "transfer" if len(mine) == 1 else f"transfer.{i}",
                "cc": cc,
                "goodput_bps": row["goodput_bps"],
                # measure counts the kernel's retransmissions (TCP_INFO), not which of them
                # were timeouts or fast retransmits, and has no sender-side throughput.
                "throughput_bps": math.nan,
                "bytes_delivered": row["bytes_delivered"],
                "retransmits": row["retransmits"],
                "timeouts": math.nan,
                "fast_retransmits": math.nan,
                "mean_rtt_seconds": row["mean_rtt_seconds"],
                "min_rtt_seconds": row["min_rtt_seconds"],
            }
            for i, row in enumerate(mine, 1)
        ]
        summaries[key] = {
            # The run's length as the tables count it: real time, no simulated events.
            "sim_seconds": run.seconds,
            "events": 0,
            "wall_seconds": run.seconds,
            "flows": flows,
            "per_cc": {
                cc: {
                    "flows": len(flows),
                    "mean_goodput_bps": t["rate_per_session_bps"],
                    "total_goodput_bps": t["goodput_bps"],
                }
            },
        }
        specs.append(_Side(key, run.x, label_of[t["cc"]], int(t["round"]), run.overrides))
    # measure's own summary of these rounds, as `westwood measure` prints it for a real host.
    table = measure.format_summary(
        measure.summarize(transfers, baseline=run.kernel_ccs[-1]),
        records[-1]["path"] if records else {},
    )
    return specs, summaries, table


def simulator_specs(
    experiment: MeasurementExperiment, run: MeasurementRun, entry: Mapping[str, Any], rounds: int
) -> List[RunSpec]:
    """``westwood run`` of the path's scenario for every series, seeds 1..``rounds``, with what
    the path reported its simulator run changes (the ``linux`` profile)."""
    reported = (entry.get("paths") or [{}])[-1].get("simulator_overrides") or {}
    changed = reported.get("changed") or {}
    specs = []
    for s in experiment.series:
        overrides = merge_overrides(
            run.overrides,
            [("scenario.duration", f"{run.start_seconds + run.seconds}s")],
            experiment.simulator_overrides.items(),
            s.overrides.items(),
            changed.items(),
        )
        for seed in range(1, rounds + 1):
            specs.append(
                RunSpec(
                    experiment=f"{experiment.id}-simulator",
                    scenario_path=run.scenario_path,
                    overrides=tuple(overrides),
                    seed=seed,
                    x=run.x,
                    series=s.label + SIMULATOR_SUFFIX,
                    scenario_sha256=run.scenario_sha256,
                )
            )
    return specs


def path_notes(entry: Mapping[str, Any]) -> str:
    """What the emulated path did over every call: drops by cause per direction, lateness."""
    offered = delivered = 0
    drops: Dict[str, int] = {}
    worst = 0.0
    for path_report in entry.get("paths", []):
        for route in path_report.get("routes", []):
            c = route.get("counters", {})
            if route.get("direction") == "client_to_server":
                offered += int(c.get("offered_packets", 0))
                delivered += int(c.get("delivered_packets", 0))
            for cause in ("overflow", "red", "error", "outage"):
                drops[cause] = drops.get(cause, 0) + int(c.get(f"drops_{cause}", 0))
        worst = max(worst, float(path_report.get("lateness_seconds", {}).get("p99", 0.0)))
    causes = ", ".join(f"{k} {v}" for k, v in drops.items() if v) or "none"
    return (
        f"The emulated path over {len(entry.get('paths', []))} call(s): {offered} packets "
        f"offered towards the server, {delivered} delivered; drops (both directions) by "
        f"cause: {causes}; worst send lateness p99 {worst * 1e3:.3f} ms."
    )


def reproduce_measurements(
    experiments: Sequence[MeasurementExperiment],
    out: Path,
    *,
    quick: bool,
    extra: Sequence[Tuple[str, str]],
    stream: Optional[TextIO],
    command: Callable[[MeasurementExperiment, int], str],
) -> Tuple[List[Path], Dict[str, Dict[str, Any]]]:
    """Measure (what is missing) and report every experiment, or write why it was skipped (the
    testbed's prerequisites: root, iperf3, the westwood-emu binary). Returns the files written
    and the index entries by experiment id."""
    stream = stream if stream is not None else sys.stderr
    reason, binary, digest = testbed_binary("measurement", stream)
    written: List[Path] = []
    entries: Dict[str, Dict[str, Any]] = {}
    for experiment in experiments:
        rounds = experiment.quick_rounds if quick else experiment.rounds
        rerun = command(experiment, rounds)
        if binary is None:
            paths, entry = write_skipped(experiment, str(reason), out, rerun)
            runs_text = f"skipped: {reason}"
        else:
            paths, entry, runs_text = reproduce_one(
                experiment,
                out,
                quick=quick,
                extra=extra,
                binary=binary,
                digest=digest,
                stream=stream,
                command=rerun,
            )
        written += paths
        entries[experiment.id] = report.index_entry(
            experiment, quick, rounds, len(experiment.x.values_for(quick)), runs_text, rerun, entry
        )
    return written, entries


def reproduce_one(
    experiment: MeasurementExperiment,
    out: Path,
    *,
    quick: bool,
    extra: Sequence[Tuple[str, str]],
    binary: Path,
    digest: str,
    stream: TextIO,
    command: str,
) -> Tuple[List[Path], Dict[str, Any], str]:
    """Measure (what is missing) and report ``experiment``; the files written, the index
    entry and the line on the runs."""
    from ..runs.runner import run_all  # noqa: PLC0415 (the simulator only when asked)

    rounds = experiment.quick_rounds if quick else experiment.rounds
    runs = experiment.plan(quick, extra, digest)
    entries = execute(runs, binary, out / STORE, rounds, stream)
    skipped_reasons = sorted(
        {e["reason"] for e in entries.values() if e.get("status") == STATUS_SKIPPED}
    )
    if len(skipped_reasons) and all(e.get("status") == STATUS_SKIPPED for e in entries.values()):
        reason = "; ".join(skipped_reasons)
        paths, entry = write_skipped(experiment, reason, out, command)
        return paths, entry, f"skipped: {reason}"
    specs: List[Any] = []
    summaries: Dict[str, Mapping[str, Any]] = {}
    sections: List[str] = []
    simulated: List[RunSpec] = []
    for run in runs:
        entry = entries[run.key]
        # A path whose last call failed still reports the rounds it completed (with a note).
        if entry.get("status") not in (STATUS_OK, STATUS_FAILED) or not entry.get("rounds"):
            continue
        sides, measured, table = measured_sides(experiment, run, entry, out, rounds)
        specs += sides
        summaries.update(measured)
        simulated += simulator_specs(experiment, run, entry, rounds)
        sections.append(
            f"### {experiment.x.label} {run.x:g}{experiment.x.unit}\n\n"
            f"{table}\n{path_notes(entry)} measure's own files (tables, "
            f"captures, `rates.png`): `{entry['files']}/measure/`.\n"
        )
    if simulated:
        # A simulator run that fails is a broken set-up (the scenario refuses the overrides),
        # not a point to leave out: it stops the reproduction with the scenario's error.
        outcome = run_all(simulated, out / "runs", progress_stream=stream, stop_on_error=True)
        for spec in simulated:
            specs.append(spec)
            summaries[spec.key] = outcome.entries[spec.key]["summary"]
    sweep = experiment.as_sweep(quick)
    paths, entry = write_sweep(sweep, specs, summaries, out, quick, rounds, command, {})
    notes = []
    failed = [r for r in runs if entries[r.key].get("status") == STATUS_FAILED]
    if failed:
        notes.append(
            f"{len(failed)} path(s) failed before all {rounds} rounds were measured (their "
            "complete rounds are in the table; run again to measure the rest): "
            + "; ".join(
                f"{r.describe()}: {entries[r.key].get('rounds', 0)} round(s), "
                f"{entries[r.key].get('error', '')}"
                for r in failed
            )
        )
    md_path = out / f"{experiment.id}.md"
    page = md_path.read_text(encoding="utf-8")
    page += "\n## The measurements, as the papers tabled them\n\n" + "\n".join(sections)
    if notes:
        page += "\n" + "\n\n".join(notes) + "\n"
    write_text_atomic(md_path, page)
    seconds = experiment.quick_seconds if quick else experiment.seconds
    ok = sum(1 for r in runs if entries[r.key].get("status") == STATUS_OK)
    runs_text = (
        f"{'quick' if quick else 'full'}, {ok} emulated path(s), {rounds} round(s) of "
        f"{seconds} s transfers"
    )
    return paths, {**entry, "notes": notes}, runs_text


# --- claim measures ----------------------------------------------------------------------------


def measured_over_simulated(series: str, x: float):
    """Claim measure: the measured mean of ``series`` at ``x`` over the simulator's mean (rounds
    and seeds are not paired: the rounds' losses are not the seeds'), with both intervals; n/a
    on ``--quick`` runs, as the testbed's ``agreement``."""

    def measure(r: SweepResults) -> Measurement:
        measured = r.per_seed(series, x)
        simulated = r.per_seed(series + SIMULATOR_SUFFIX, x)
        if not measured or not simulated:
            raise ClaimUnavailable(f"no {series} runs at {r.x_text(x)} on both sides")
        m, s = mean_ci(list(measured.values())), mean_ci(list(simulated.values()))
        if s.mean <= 0:
            raise ClaimUnavailable(f"the simulator's {series} is 0 at {r.x_text(x)}")
        detail = (
            f"measured {m.mean:.3f} (95% CI {m.low:.3f} to {m.high:.3f}, {m.n} rounds) / "
            f"simulated {s.mean:.3f} (95% CI {s.low:.3f} to {s.high:.3f}, {s.n} seeds)"
        )
        if r.quick:
            # As the testbed's agreement: one short round against one seed says more about the
            # round's draws than about the two TCPs.
            raise ClaimUnavailable(
                f"one quick round is too short to judge agreement (measured "
                f"{m.mean / s.mean:.2f}: {detail}); run without --quick"
            )
        return Measurement(m.mean / s.mean, detail)

    return measure
