"""``westwood testbed ...`` and ``westwood emu ...``: forward to the ``westwood-emu`` Rust binary.

The binary (crates/emulator, see docs/testbed.md) runs a scenario's TCP flows as real kernel TCP
(iperf3, in network namespaces) through a user-space link emulator built from the simulator's
own links, writes the same files as ``westwood run --out`` and prints the simulator's result for
the same scenario beside the testbed's. ``westwood emu`` reaches its other commands:
``selftest`` (the emulator measured by itself), ``run`` (the emulator between two existing
interfaces) and ``cleanup`` (remove namespaces left by killed runs).

The binary is found, in order, at:

1. ``$WESTWOOD_EMU_BIN``;
2. ``<repo>/target/release/westwood-emu``, then ``$CARGO_TARGET_DIR/release/westwood-emu``;
3. ``westwood-emu`` on ``$PATH``.

If none exists the error says how to build it: ``cargo build --release -p westwood-emulator``.

A bare scenario name (``wireless``) is resolved here as for ``westwood run``
(``westwood.paths.resolve_scenario``) and handed to the binary as a path.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from .binaries import BinaryNotFound, RustBinary, run  # noqa: F401  (BinaryNotFound: re-exported)

BINARY = "westwood-emu"
BUILD_HINT = "cargo build --release -p westwood-emulator"
ENV_VAR = "WESTWOOD_EMU_BIN"

# Options of `westwood-emu testbed` that take a value (to find the SCENARIO positional).
_VALUE_OPTIONS = (
    "--cc",
    "--set",
    "--duration",
    "--seed",
    "--out",
    "--interval",
    "--fifo",
    "--pcap-snaplen",
)


def repo_root() -> Optional[Path]:
    """The repository this package lives in (the directory with crates/emulator), if any."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "crates" / "emulator" / "Cargo.toml").is_file():
            return parent
    return None


EMU = RustBinary(
    name=BINARY,
    env_var=ENV_VAR,
    build_hint=BUILD_HINT,
    needs="it needs what westwood-linux needs: clang, llvm, bpftool, libelf-dev, zlib1g-dev, "
    "pkg-config",
)


def candidates() -> List[Path]:
    """Where the binary is looked for, in order (PATH last, resolved by find_binary)."""
    return EMU.candidates(repo_root())


def find_binary() -> Path:
    """The westwood-emu executable; BinaryNotFound with build advice if there is none."""
    return EMU.find(repo_root())


def resolve_scenario_argument(argv: Sequence[str]) -> List[str]:
    """``argv`` of ``testbed`` with its SCENARIO positional resolved to a file path.

    A name that does not resolve is left as is: the binary reports it.
    """
    from .paths import resolve_scenario

    args = list(argv)
    i = 0
    while i < len(args):
        a = args[i]
        if a in _VALUE_OPTIONS:
            i += 2
            continue
        if a.startswith("-"):
            i += 1
            continue
        try:
            args[i] = os.fspath(resolve_scenario(a))
        except FileNotFoundError:
            pass
        break
    return args


def run_binary(argv: Sequence[str], prog: str) -> int:
    """Run ``westwood-emu ARGV`` and return its exit status (see ``binaries.run``).

    If this wrapper dies (even by ``kill -9``), the binary gets SIGTERM and removes its
    namespaces and iperf3 as on Ctrl-C, instead of running the experiment to its end.
    """
    return run(find_binary, argv, prog, parent_death=signal.SIGTERM)


def main_testbed(argv: Sequence[str]) -> int:
    """``westwood testbed SCENARIO [--cc ...] [--set K=V]... [--duration S] --out DIR``."""
    return run_binary(["testbed", *resolve_scenario_argument(argv)], "westwood testbed")


def main_emu(argv: Sequence[str]) -> int:
    """``westwood emu selftest|run|cleanup ...`` (``westwood emu testbed ...`` works too)."""
    args = list(argv)
    if args[:1] == ["testbed"]:
        return main_testbed(args[1:])
    return run_binary(args, "westwood emu")


if __name__ == "__main__":  # python -m westwood.testbed ARGS  (the testbed command)
    sys.exit(main_testbed(sys.argv[1:]))
