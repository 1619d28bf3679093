"""``westwood run``: one scenario, printed as a flow table (or JSON, or written to a directory).

The command is the one users start most, often for a run of a few milliseconds, so its start-up
is most of what they wait for (docs/performance.md). This module holds its work and nothing
that a run does not need: argparse (with re, gettext and locale), pathlib, typing and json stay
unimported. ``plain_arguments`` reads the command lines that need no parser to be understood
(``run SCENARIO`` with ``--set``, ``--seed``, ``--json``, ``--out``, ``--ack-trace``,
``--check-invariants``, ``--strict``, ``--max-memory``, each spelt out in full) into the
namespace argparse would make of them; anything else (help, a misspelt or abbreviated option, a
missing or second scenario, a value that looks like an option, ``--pcap``) it leaves to the full
command line (``cli.py``), which parses it, or reports it in argparse's words.
``tests/test_run_command.py`` checks that both read every command line alike.
"""

from __future__ import annotations

import os
import sys
from types import SimpleNamespace

from .errors import UsageError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import List, Optional, Sequence

# `westwood run`'s options with a value (the namespace attribute each sets) and its flags; the
# argparse definition is cli._run_arguments.
_VALUED = {"--seed": "seed", "--out": "out", "--max-memory": "max_memory"}
_FLAGS = {
    "--json": "json",
    "--ack-trace": "ack_trace",
    "--check-invariants": "check_invariants",
    "--strict": "strict",
}


def _defaults() -> dict:
    """The namespace of ``westwood run SCENARIO`` without options, as argparse makes it."""
    return dict(
        command="run",
        func=run,
        scenario=None,
        overrides=[],
        seed=None,
        out=None,
        ack_trace=False,
        json=False,
        pcap=None,
        pcap_links=None,
        pcap_snaplen=None,
        pcap_format=None,
        check_invariants=False,
        max_memory=None,
        strict=False,
    )


def parse_seed(text: str) -> int:
    """A ``--seed`` value (decimal, or 0x.. hexadecimal as Python writes integers); ValueError,
    with the message argparse shows (``cli._seed``), unless an integer from 0 to 2^64-1."""
    try:
        value = int(text, 0)
    except ValueError:
        raise ValueError(f"{text!r} is not an integer") from None
    if not 0 <= value < 2**64:
        raise ValueError(f"{text} is out of range (0 to 2^64-1)")
    return value


def plain_arguments(arguments: Sequence[str]) -> Optional[SimpleNamespace]:
    """The namespace of ``westwood run ARGUMENTS`` if they are plainly valid, else None (the
    caller then parses them with argparse, which also says what is wrong)."""
    namespace = _defaults()
    scenarios: List[str] = []
    words = iter(arguments)
    for word in words:
        if not word.startswith("-"):
            scenarios.append(word)
            continue
        option, equals, value = word.partition("=")
        if option in _FLAGS and not equals:
            namespace[_FLAGS[option]] = True
            continue
        if option != "--set" and option not in _VALUED:
            return None  # --help, --pcap..., abbreviations, unknown options: argparse's
        if not equals:
            value = next(words, None)
            if value is None or value.startswith("-"):
                return None  # a missing value, or one argparse may take for an option
        if option == "--set":
            namespace["overrides"].append(value)
        elif option == "--seed":
            try:
                namespace["seed"] = parse_seed(value)
            except ValueError:
                return None  # argparse says what is wrong with it
        else:
            namespace[_VALUED[option]] = value
    if len(scenarios) != 1:
        return None
    namespace["scenario"] = scenarios[0]
    return SimpleNamespace(**namespace)


def format_flow_table(summary: dict) -> str:
    header = [
        "flow",
        "cc",
        "goodput Mbps",
        "throughput Mbps",
        "bytes delivered",
        "retransmits",
        "timeouts",
        "fast retransmits",
    ]
    rows = [
        [
            str(f["name"]),
            str(f["cc"]),
            f"{f['goodput_bps'] / 1e6:.3f}",
            f"{f['throughput_bps'] / 1e6:.3f}",
            str(f["bytes_delivered"]),
            str(f["retransmits"]),
            str(f["timeouts"]),
            str(f["fast_retransmits"]),
        ]
        for f in summary["flows"]
    ]
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(cells: List[str]) -> str:
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))
        ).rstrip()

    out = [line(header)] + [line(r) for r in rows]
    out.append(
        f"scenario {summary['scenario']}, seed {summary['seed']}: "
        f"{summary['sim_seconds']:g} s simulated in {summary['wall_seconds']:.3f} s wall, "
        f"{summary['events']:,} events"
    )
    return "\n".join(out)


_MEMORY_UNITS = {"B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
_MEMORY_UNITS.update({"KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40})


def parse_memory(text: str) -> int:
    """A --max-memory size: a number and a unit (512MB, 4GB, 2GiB)."""
    import re

    m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([A-Za-z]+)\s*", text)
    scale = _MEMORY_UNITS.get(m.group(2).upper()) if m else None
    if scale is None:
        raise UsageError(f"--max-memory {text!r}: expected a size with a unit, e.g. 4GB or 512MiB")
    value = round(float(m.group(1)) * scale)
    if value < 1:
        raise UsageError(f"--max-memory {text!r}: must be at least 1 byte")
    if value >= 2**64:
        raise UsageError(f"--max-memory {text!r}: more than a 64-bit count of bytes holds (18 EB)")
    return value


def _file_size(path: str) -> str:
    size = os.stat(path).st_size
    return f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size:,} bytes"


def _wants_capture(args) -> bool:
    return any(
        getattr(args, name) is not None
        for name in ("pcap", "pcap_links", "pcap_snaplen", "pcap_format")
    )


def run(args) -> int:
    """``westwood run`` with parsed arguments (``plain_arguments``' or argparse's namespace)."""
    from .overrides import parse_assignments
    from .raw import run_raw

    if args.out is not None and not str(args.out).strip():
        raise UsageError("run: --out needs a directory name, not an empty string")
    if args.ack_trace and not args.out:
        raise UsageError("run: --ack-trace writes DIR/acks.csv, so it needs --out DIR")
    overrides = parse_assignments(args.overrides)
    pcap = None
    if _wants_capture(args):
        from .measure import simcapture

        pcap = simcapture.request(args, overrides)

    max_memory = parse_memory(args.max_memory) if args.max_memory is not None else None

    def run_once(series_dir=None, ack_trace=None):
        return run_raw(
            args.scenario,
            args.seed,
            overrides,
            check_invariants=args.check_invariants,
            ack_trace=ack_trace,
            series_dir=series_dir,
            max_memory=max_memory,
            pcap=pcap.core if pcap else None,
            strict=args.strict,
        )

    if args.out:
        from .output import ACK_TRACE_FILE, run_into

        raw, _ = run_into(args.out, run_once, ack_trace=args.ack_trace)
    else:
        raw = run_once()
    # A scenario that defeats itself (docs/scenarios.md, Warnings): said on stderr, so that
    # --json's stdout stays one JSON object; --strict refused it above instead.
    for warning in raw.summary.get("warnings", ()):
        print(f"warning: {warning['message']}", file=sys.stderr)
    if args.json:
        import json

        print(json.dumps(raw.summary))
    else:
        print(format_flow_table(raw.summary))
        if args.out:
            print(f"wrote {args.out}/")
        if args.ack_trace:
            trace = os.path.join(args.out, ACK_TRACE_FILE)
            print(f"per-ACK trace: {trace} ({_file_size(trace)})")
        if pcap:
            for path in pcap.paths:
                print(f"capture: {path} ({_file_size(path)})")
    return 0
