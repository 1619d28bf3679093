"""The ``westwood`` command's parsers: ``run``, ``plot``, ``reproduce``, ``sweep``, ``bench``,
``replay``, ``scenarios`` (the entry point is ``launch.main``, which sends a plain ``westwood run``
past argparse).

Input errors (an invalid scenario or override, a missing file) are reported as
``westwood: error: <message>`` on stderr with exit status 2 and no traceback; so is a result
that cannot be written (``cannot write PATH: <reason>``, ``errors.WriteError``). A sweep whose
runs partly failed exits with status 1; an interrupt (Ctrl-C) with 130 (``exits.finish``).
Messages quote long values (over 200 characters) only in part, with their size
(``messages.clip_long_values``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from . import run_command
from .errors import UsageError
from .exits import EXIT_USAGE, finish
from .exits import say as _say
from .messages import clip_long_values
from .overrides import parse_assignments


def _add_set(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE", help=help_text
    )


def _seed(text: str) -> int:
    try:
        return run_command.parse_seed(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _directory(text: str) -> str:
    """An output directory: any path but an empty one, which would write into the current
    directory without saying so."""
    if not text.strip():
        raise argparse.ArgumentTypeError("needs a directory name, not an empty string")
    return text


def _check_seeds(args: argparse.Namespace) -> None:
    """``--seeds`` below 1 is bad input, named as the option (the API's message says
    ``seeds``)."""
    if args.seeds is not None and args.seeds < 1:
        raise UsageError(f"--seeds must be at least 1, not {args.seeds}")


def _add_executor(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs",
        type=int,
        help="parallel processes: local workers, or the workers of a local Dask cluster "
        "(default: CPU count)",
    )
    parser.add_argument(
        "--executor",
        choices=("local", "dask"),
        help="where runs execute: local processes (default) or Dask (a local cluster, or the "
        "one at --scheduler)",
    )
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="Dask scheduler address, e.g. tcp://10.0.0.1:8786 (implies --executor dask)",
    )


def _add_wait(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--wait",
        action="store_true",
        help="if another sweep or reproduce is writing --out DIR, wait for it to finish and then "
        "reuse its runs (default: exit with status 2 at once, naming its pid)",
    )


def _executor(args: argparse.Namespace):
    from .runs.executors import make_executor

    kind = args.executor or ("dask" if args.scheduler else "local")
    return make_executor(kind, args.jobs, args.scheduler)


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size()`` finds it ($COLUMNS, else the
    terminal of stdout, else 80)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, with the width found without importing shutil (and with it
    zlib, bz2 and lzma): argparse makes a formatter for every argument added, so each run paid
    ~2 ms for an import that only help text needs."""

    def __init__(self, prog, indent_increment=2, max_help_position=24, width=None) -> None:
        if width is None:
            width = _terminal_columns() - 2  # as HelpFormatter does with shutil's width
        super().__init__(prog, indent_increment, max_help_position, width)


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with its error messages (which quote the bad argument) clipped like
    every other error of the command (``messages.clip_long_values``), and ``_Formatter``.
    Subcommand parsers are of the same class."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str):  # type: ignore[override]
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {clip_long_values(message)}\n")


def version_text() -> str:
    """``westwood VERSION (engine BUILD)``: the package version, and the ``git describe`` of the
    source the Rust engine was compiled from (``_core.__build__``, recorded by its build.rs), so
    a bug report from an installed wheel says which code ran. "unknown" for an engine built
    without git or before the engine recorded it."""
    from . import _core
    from .version import __version__

    return f"westwood {__version__} (engine {getattr(_core, '__build__', 'unknown')})"


def _run_arguments(run: argparse.ArgumentParser) -> None:
    run.add_argument("scenario", help="scenario file, or a name from scenarios/ (e.g. wireless)")
    _add_set(run, "override a scenario parameter (repeatable), e.g. --set loss=1%%")
    run.add_argument("--seed", type=_seed, help="seed replacing the scenario's")
    run.add_argument(
        "--out",
        metavar="DIR",
        type=_directory,
        help="write summary.json, flows.csv, links.csv, flow_series.csv, link_series.csv",
    )
    run.add_argument(
        "--ack-trace",
        action="store_true",
        help="also write DIR/acks.csv (needs --out): one row per ACK each TCP sender processed "
        "and per loss reaction, see docs/ack-trace.md",
    )
    run.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    from .measure import simcapture

    simcapture.add_arguments(run)
    run.add_argument(
        "--check-invariants", action="store_true", help="check TCP invariants on every event"
    )
    run.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="memory the run may use (default 1GiB), e.g. 4GB: a scenario estimated to need "
        "more is refused with exit 2 (docs/scenarios.md, Bounds)",
    )
    run.add_argument(
        "--strict",
        action="store_true",
        help="refuse a scenario that defeats itself (a 'bdp' queue of a packet or two, a sender "
        "losing most of its packets at its own first hop) with exit 2 and no result, instead of "
        "warning (docs/scenarios.md, Warnings)",
    )
    run.set_defaults(func=run_command.run)


def _plot_arguments(plot: argparse.ArgumentParser) -> None:
    plot.add_argument(
        "run_dir", metavar="RUN_DIR", help="directory written by `westwood run --out`"
    )
    plot.add_argument(
        "--out",
        metavar="DIR",
        type=_directory,
        help="where to write the figures (default: RUN_DIR)",
    )
    plot.add_argument(
        "--flows", nargs="+", metavar="NAME", help="only these flows (default: every TCP flow)"
    )
    plot.add_argument(
        "--segment-size",
        metavar="SIZE",
        help="segment size for the window axis (e.g. 400B) when summary.json lacks it",
    )
    plot.add_argument(
        "--json", action="store_true", help="print the figures written and the notes as JSON"
    )
    plot.set_defaults(func=cmd_plot)


def _reproduce_arguments(rep: argparse.ArgumentParser) -> None:
    rep.add_argument("ids", nargs="*", metavar="ID", help="experiments to run (default: all)")
    rep.add_argument("--list", action="store_true", help="list the experiments and exit")
    rep.add_argument(
        "--json",
        action="store_true",
        help="with --list: one JSON array (id, kind, title, paper, headline)",
    )
    rep.add_argument(
        "--quick",
        action="store_true",
        help="shorter runs (fewer x values where an experiment defines them) and by default at "
        "most 3 seeds",
    )
    rep.add_argument(
        "--seeds",
        type=int,
        help="seeds per point (default: each experiment's own, at most 3 with --quick; a "
        "comparison claim needs 2 or more)",
    )
    rep.add_argument(
        "--no-testbed",
        action="store_true",
        help="leave out the testbed experiments (real Linux TCP, run one at a time after the "
        "simulations; without root or iperf3 they are reported as skipped anyway)",
    )
    _add_executor(rep)
    rep.add_argument(
        "--out",
        metavar="DIR",
        type=_directory,
        default="results",
        help="output directory (default results/)",
    )
    _add_wait(rep)
    _add_set(rep, "extra override applied to every run (repeatable)")
    rep.set_defaults(func=cmd_reproduce)


def _sweep_arguments(sw: argparse.ArgumentParser) -> None:
    sw.add_argument(
        "scenario", nargs="?", help="scenario file, or a name from scenarios/ (e.g. wireless)"
    )
    sw.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="an axis of the grid (repeatable): a parameter name or dotted path, as --set "
        "takes, and its values, e.g. --vary loss=0%%,1%%,2%% --vary cc=reno,westwood",
    )
    _add_set(sw, "override applied to every run (repeatable), e.g. --set duration=30s")
    sw.add_argument("--seeds", type=int, help="seeds per grid point, 1..N (default 3)")
    _add_executor(sw)
    sw.add_argument(
        "--out", metavar="DIR", type=_directory, help="the sweep's store and reports (required)"
    )
    _add_wait(sw)
    sw.add_argument(
        "--rebuild",
        action="store_true",
        help="run nothing: rewrite results.parquet, the summary and the plot of --out DIR "
        "from its run files",
    )
    sw.add_argument(
        "--json",
        action="store_true",
        help="print the outcome as one JSON object (runs, ok, failed, from the store, run now, "
        "not run yet, the files written, the failed runs)",
    )
    sw.set_defaults(func=cmd_sweep)


def _bench_arguments(bench: argparse.ArgumentParser) -> None:
    bench.add_argument("--scenario", help="measure this scenario alone instead of the cases")
    _add_set(bench, "override applied to every case (repeatable), e.g. --set duration=5s")
    bench.add_argument(
        "--scaling",
        action="store_true",
        help="also measure cost vs simulated time (dumbbell 15/30/60 s) and vs flows "
        "(2/5/10/20) with fitted slopes, and the speed-up of a local sweep on 2 processes",
    )
    bench.add_argument(
        "--quick",
        action="store_true",
        help="every case and scaling point simulates 1/10 of its time",
    )
    bench.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object (the dumbbell's figures at the top level, every case in "
        "`cases`, `scaling` with --scaling, `machine`: core count and load averages)",
    )
    bench.add_argument(
        "--compare",
        nargs="+",
        metavar="PATH",
        help="BEFORE [AFTER]: print before/after ratios (engine wall, whole process, peak RSS) "
        "of two builds or two --json outputs; a build is a checkout with .venv, a venv, or its "
        "python; AFTER defaults to this build. Builds are measured interleaved, case by case",
    )
    bench.add_argument(
        "--rounds",
        type=int,
        default=1,
        metavar="N",
        help="measure every case N times (interleaved with --compare's other build) and report "
        "the medians (default 1)",
    )
    bench.set_defaults(func=cmd_bench)


def _replay_arguments(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("trace", metavar="TRACE", help="a per-ACK trace (CSV)")
    rp.add_argument(
        "--cc",
        action="append",
        metavar="CC[,CC...]",
        help="congestion controls to replay, as a scenario names them (repeatable or "
        "comma-separated; default westwood), e.g. --cc westwood,westwood-plus",
    )
    _add_set(
        rp,
        "a [tcp] setting of the replayed controls, as a scenario's [tcp] table takes it "
        "(repeatable), e.g. --set 'westwood={ tau = \"1s\", m = 4 }'",
    )
    rp.add_argument(
        "--origin",
        choices=("simulator", "kernel"),
        help="whose trace it is (default: per flow, kernel for cc tcpw*): decides the window "
        "the control saw and where AckedCount starts (docs/replay.md)",
    )
    rp.add_argument(
        "--delivery-window",
        metavar="DURATION",
        help="fixed window of the delivery rate, e.g. 250ms (default: max(RTTmin, 100 ms))",
    )
    rp.add_argument(
        "--out",
        metavar="DIR",
        type=_directory,
        help="write DIR/replay.csv (every row), DIR/replay.json (the report) and "
        "DIR/replay.png/.svg (BWE vs time)",
    )
    rp.add_argument("--json", action="store_true", help="print the report as one JSON object")
    rp.set_defaults(func=cmd_replay)


def _scenarios_arguments(sc: argparse.ArgumentParser) -> None:
    sc.set_defaults(func=cmd_scenarios, action=None)
    sc.add_argument(
        "--json",
        action="store_true",
        help="print the listing as one JSON array (name, path, origin, description, parameters)",
    )
    sc_sub = sc.add_subparsers(dest="action", metavar="ACTION")
    copy = sc_sub.add_parser(
        "copy",
        help="write scenario NAME to DIR (default ./scenarios) to edit; never overwrites",
        description="Write scenario NAME to DIR/NAME.toml (default ./scenarios, where a bare "
        "name finds it first). Refuses (exit 2) if that file exists.",
    )
    copy.add_argument("name", metavar="NAME", help="a scenario name, e.g. wireless")
    copy.add_argument("directory", metavar="DIR", nargs="?", help="default: ./scenarios")


# Every command: its name, the keywords of its sub-parser (the help line `westwood --help` shows,
# its description) and what adds its arguments.
COMMANDS = (
    ("run", dict(help="run one scenario", description="Run one scenario."), _run_arguments),
    (
        "plot",
        dict(
            help="draw the figures of a run directory",
            description="Draw, per TCP flow of a run written by `westwood run --out DIR`, cwnd and "
            "ssthresh vs. time (in segments) and, for Westwood flows, the bandwidth estimate (BWE) "
            "vs. time; and the queue length of links that queue. Writes PNG and SVG files.",
        ),
        _plot_arguments,
    ),
    (
        "reproduce",
        dict(
            help="reproduce the paper's experiments",
            description="Run registered paper experiments and write tables, figures and an index.",
        ),
        _reproduce_arguments,
    ),
    (
        "sweep",
        dict(
            help="run a scenario over a grid of parameter values and seeds",
            description="Run SCENARIO for every combination of the --vary values and seeds 1..N, "
            "in parallel (local processes or a Dask cluster). Each finished run is stored in "
            "DIR/runs/ at once, so an interrupted sweep resumes where it stopped. Writes "
            "DIR/results.parquet (one row per run), DIR/summary.csv and DIR/summary.md (mean and "
            "95% CI over seeds per grid point) and, for one or two axes, DIR/sweep.png/.svg. Exit "
            "status 1 if some runs failed (they are recorded with their error).",
        ),
        _sweep_arguments,
    ),
    (
        "bench",
        dict(
            help="measure simulator speed",
            description="Run the benchmark cases (each in a fresh process, no time series) and "
            "report wall time, events/s, simulated packets/s and peak RSS: the 10-flow dumbbell "
            "(60 s), the seed 000 fig. 9 point at 1% loss (600 s) and the 8x8 grid of seed 002 "
            "(600 s: scenarios/grid.toml or multipath_grid.toml, when one exists).",
        ),
        _bench_arguments,
    ),
    (
        "replay",
        dict(
            help="feed a per-ACK trace through the Westwood estimators",
            description="Feed a per-ACK trace (docs/ack-trace.md: `westwood run --ack-trace`, "
            "`westwood linux watch --acks`, the testbed's acks.csv) through the Rust estimators "
            "and compare, per flow and congestion control, their BWE with the trace's own BWE and "
            "with the delivery rate, and their ssthresh at the trace's loss rows (docs/replay.md). "
            "The same ACK stream must give the same BWE: bit for bit against the simulator, within "
            "the fixed-point error against the kernel.",
        ),
        _replay_arguments,
    ),
    (
        "scenarios",
        dict(
            help="list the scenarios a bare name finds; copy one out to edit",
            description="List the scenarios a bare name resolves to (name, where from, "
            "description, parameters with defaults), or copy one out to edit. Lookup order: "
            "$WESTWOOD_SCENARIOS, ./scenarios, the scenarios shipped in the package "
            "(docs/scenarios.md).",
        ),
        _scenarios_arguments,
    ),
)

# Commands whose module builds their parser (``add_parser(subparsers)``), imported only when the
# command runs or the full parser is built: `westwood run` does not load the measurement code.
MODULE_COMMANDS = (
    ("analyze", ".measure.analyze"),
    ("measure", ".measure.measure"),
    ("docs", ".manual"),
)

# `westwood testbed|emu|linux ...` is forwarded whole to a binary (see `main`); they are listed so
# that `westwood --help` shows them.
FORWARDED = (
    (
        "testbed",
        dict(
            help="real kernel TCP through an emulated path, beside the simulator",
            description="Forwarded to the westwood-emu binary; see docs/testbed.md.",
            add_help=False,
        ),
    ),
    (
        "emu",
        dict(
            help="the user-space link emulator: selftest, run, cleanup",
            description="Forwarded to the westwood-emu binary; see docs/testbed.md.",
            add_help=False,
        ),
    ),
    (
        "linux",
        dict(
            help="TCPW on real Linux TCP (eBPF): status, load, unload, watch, bench",
            description="Forwarded to the westwood-linux binary; see `westwood linux --help`.",
            add_help=False,
        ),
    ),
)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="westwood",
        description="TCP Westwood end to end: the congestion controls of the seed papers as pure "
        "state machines, a deterministic packet-level simulator that reproduces the papers' "
        "experiments (run, sweep, reproduce), TCPW on real Linux TCP through eBPF (linux) "
        "measured through a link emulator beside the simulator (testbed, emu), and "
        "measurement on real paths (measure, analyze). `westwood COMMAND --help` for each; "
        "`westwood docs` for the documentation pages help texts name (docs/NAME.md).",
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, keywords, add_arguments in COMMANDS:
        add_arguments(sub.add_parser(name, **keywords))
    for _, module in MODULE_COMMANDS:
        importlib.import_module(module, __package__).add_parser(sub)
    for name, keywords in FORWARDED:
        sub.add_parser(name, **keywords)
    return parser


class _OneCommand:
    """What a module's ``add_parser(sub)`` is given by ``command_parser``: sub-parsers that make
    the command's parser a top-level one, named as the full parser names it."""

    def __init__(self) -> None:
        self.parser: Optional[argparse.ArgumentParser] = None

    def add_parser(self, name: str, **keywords) -> argparse.ArgumentParser:
        keywords.pop("help", None)
        self.parser = _Parser(prog=f"westwood {name}", **keywords)
        return self.parser


def command_parser(name: str) -> Optional[argparse.ArgumentParser]:
    """The parser of command ``name`` alone, the same as ``build_parser()``'s sub-parser of it
    (prog ``westwood NAME``, usage, help, errors), or None for a name that is not a command.
    ``main`` parses ``westwood NAME ...`` with it: building every command's parser costs each
    run a few milliseconds."""
    parser = None
    for command, keywords, add_arguments in COMMANDS:
        if command == name:
            keywords = {k: v for k, v in keywords.items() if k != "help"}
            parser = _Parser(prog=f"westwood {name}", **keywords)
            add_arguments(parser)
    for command, module in MODULE_COMMANDS:
        if command == name:
            one = _OneCommand()
            importlib.import_module(module, __package__).add_parser(one)
            parser = one.parser
    if parser is not None:
        parser.set_defaults(command=name)
    return parser


# --- run ---------------------------------------------------------------------------------------


# `westwood run`'s work and table are in run_command.py (a plain run starts without this module).


# --- plot --------------------------------------------------------------------------------------


def cmd_plot(args: argparse.Namespace) -> int:
    from .report.runplot import parse_size, plot_run

    size = parse_size(args.segment_size) if args.segment_size is not None else None
    result = plot_run(args.run_dir, args.out, args.flows, size)
    if args.json:
        print(json.dumps({"files": [str(p) for p in result.paths], "notes": list(result.notes)}))
        return 0
    for note in result.notes:
        _say("note", note)
    if not result.paths:
        print("westwood: note: nothing to plot (the run has no TCP flow series)", file=sys.stderr)
    for path in result.paths:
        print(path)
    return 0


# --- reproduce ---------------------------------------------------------------------------------


def cmd_reproduce(args: argparse.Namespace) -> int:
    from .experiments import registry as experiments

    if args.json and not args.list:
        raise UsageError(
            "reproduce: --json goes with --list (the report itself is written to --out)"
        )
    if args.list and args.json:
        import json

        rows = [
            {"id": e.id, "kind": e.kind, "title": e.title, "paper": e.paper, "headline": e.headline}
            for e in experiments.EXPERIMENTS.values()
        ]
        print(json.dumps(rows))
        return 0
    if args.list:
        for e in experiments.EXPERIMENTS.values():
            mark = "*" if e.headline else " "
            print(f"{mark} {e.id:20} {e.kind:7} {e.title} ({e.paper})")
        return 0
    _check_seeds(args)
    executor = _executor(args)
    selected = experiments.get(args.ids, quick=args.quick)
    if args.no_testbed:
        selected = [e for e in selected if e.kind != "testbed"]
    extra = parse_assignments(args.overrides)
    from .reproduce import reproduce

    written = reproduce(
        selected,
        args.out,
        quick=args.quick,
        seeds=args.seeds,
        jobs=args.jobs,
        extra=extra,
        executor=executor,
        wait=args.wait,
    )
    index = next((p for p in written if p.name == "index.html"), None)
    print(f"wrote {len(written)} files; index: {index}")
    return 0


# --- sweep -------------------------------------------------------------------------------------

MAX_LISTED_FAILURES = 10


def cmd_sweep(args: argparse.Namespace) -> int:
    from . import sweeps

    if not args.out:
        raise UsageError("sweep: --out DIR is required (the store of the sweep's runs)")
    if args.rebuild:
        given = [
            name
            for name, value in (
                ("SCENARIO", args.scenario),
                ("--vary", args.vary),
                ("--set", args.overrides),
                ("--seeds", args.seeds),
                ("--jobs", args.jobs),
                ("--executor", args.executor),
                ("--scheduler", args.scheduler),
            )
            if value
        ]
        if given:
            raise UsageError(
                f"sweep --rebuild takes only --out DIR and --wait, not {', '.join(given)}"
            )
        result = sweeps.rebuild(args.out, wait=args.wait)
    else:
        if not args.scenario:
            raise UsageError("sweep: a SCENARIO is required (a file, or a name such as wireless)")
        axes = [sweeps.parse_vary(v) for v in args.vary]
        if not axes:
            raise UsageError(
                "sweep: at least one --vary KEY=V1,V2,... is required (e.g. --vary loss=0%,1%)"
            )
        fixed = parse_assignments(args.overrides)
        _check_seeds(args)
        seeds = args.seeds if args.seeds is not None else sweeps.DEFAULT_SEEDS
        executor = _executor(args)
        try:
            result = sweeps.sweep(
                args.scenario,
                axes,
                out=args.out,
                seeds=seeds,
                overrides=fixed,
                executor=executor,
                wait=args.wait,
            )
        except KeyboardInterrupt:
            print(
                f"westwood: interrupted; finished runs are kept in {args.out}/runs: run the same "
                "command again to resume",
                file=sys.stderr,
            )
            return 130
    failed = result.failed
    ok = len(result.rows) - len(failed)
    if args.json:
        axes = [a["key"] for a in sweeps.load_definition(args.out)["axes"]]
        outcome = {
            "runs": result.total,
            "ok": ok,
            "failed": len(failed),
            "from_store": None if args.rebuild else result.cached,
            "run_now": None if args.rebuild else result.ran,
            "not_run_yet": result.missing,
            "files": [str(p) for p in result.paths],
            "failures": [
                {**{a: row[a] for a in axes}, "seed": row["seed"], "error": row["error"]}
                for row in failed
            ],
        }
        print(json.dumps(outcome))
    else:
        counts = f"{result.total} runs: {ok} ok, {len(failed)} failed"
        if not args.rebuild:
            counts += f" ({result.cached} from the store, {result.ran} run now)"
        if result.missing:
            counts += f", {result.missing} not run yet"
        print(counts)
        for path in result.paths:
            print(path)
    if failed:
        print(f"westwood: {len(failed)} of {result.total} runs failed:", file=sys.stderr)
        axes = [a["key"] for a in sweeps.load_definition(args.out)["axes"]]
        for row in failed[:MAX_LISTED_FAILURES]:
            point = ", ".join(f"{a}={row[a]}" for a in axes)
            line = f"  {point}, seed {row['seed']}: {row['error']}"
            print(clip_long_values(line), file=sys.stderr)
        if len(failed) > MAX_LISTED_FAILURES:
            print(
                f"  ... and {len(failed) - MAX_LISTED_FAILURES} more (see "
                f"{Path(args.out) / sweeps.SUMMARY_MD})",
                file=sys.stderr,
            )
        return 1
    return 0


# --- bench -------------------------------------------------------------------------------------


def cmd_bench(args: argparse.Namespace) -> int:
    from . import bench

    result = bench.main(
        args.scenario,
        parse_assignments(args.overrides),
        args.scaling,
        args.quick,
        args.compare or (),
        args.rounds,
    )
    if args.json:
        print(json.dumps(result))
    elif args.compare:
        print(bench.format_compare(result))
    else:
        print(bench.format_report(result))
    reports = (result["before"], result["after"]) if args.compare else (result,)
    return 1 if any("error" in case for r in reports for case in r["cases"]) else 0


# --- replay ------------------------------------------------------------------------------------


def cmd_replay(args: argparse.Namespace) -> int:
    from .replay import main

    return main(args)


# --- scenarios ---------------------------------------------------------------------------------


def cmd_scenarios(args: argparse.Namespace) -> int:
    from .catalog import main

    return main(args)


# --- entry point -------------------------------------------------------------------------------


def _parse(arguments: List[str]):
    """The parser and the parsed arguments. ``westwood COMMAND ...`` is parsed by that command's
    parser alone (``command_parser``); anything else — no command, ``--help``, ``--version``, or
    arguments the command does not know, which the full parser reports in its own words — by
    the full parser."""
    command = command_parser(arguments[0]) if arguments else None
    if command is not None:
        args, unknown = command.parse_known_args(arguments[1:])
        if not unknown:
            return command, args
    parser = build_parser()
    return parser, parser.parse_args(arguments)


def main(argv: Optional[Sequence[str]] = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments[:1] == ["linux"]:
        from . import linux

        return linux.main(arguments[1:])
    if arguments[:1] in (["testbed"], ["emu"]):
        from . import testbed

        forward = testbed.main_testbed if arguments[0] == "testbed" else testbed.main_emu
        return forward(arguments[1:])
    try:
        parser, args = _parse(arguments)
    except SystemExit as exit_:  # argparse: usage errors exit 2, --help exits 0
        return exit_.code if isinstance(exit_.code, int) else EXIT_USAGE
    if not getattr(args, "func", None):
        parser.print_usage(sys.stderr)
        names = [c[0] for c in COMMANDS] + [c[0] for c in MODULE_COMMANDS + FORWARDED]
        print(f"westwood: error: a command is required ({', '.join(names)})", file=sys.stderr)
        return EXIT_USAGE
    return finish(args.func, args)
