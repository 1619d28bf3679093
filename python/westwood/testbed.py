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
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence

BINARY = "westwood-emu"
BUILD_HINT = "cargo build --release -p westwood-emulator"
ENV_VAR = "WESTWOOD_EMU_BIN"
EXIT_USAGE = 2

# Options of `westwood-emu testbed` that take a value (to find the SCENARIO positional).
_VALUE_OPTIONS = ("--cc", "--set", "--duration", "--seed", "--out", "--interval", "--fifo")


class BinaryNotFound(FileNotFoundError):
    """The westwood-emu binary is not built or not on PATH."""


def repo_root() -> Optional[Path]:
    """The repository this package lives in (the directory with crates/emulator), if any."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "crates" / "emulator" / "Cargo.toml").is_file():
            return parent
    return None


def candidates() -> List[Path]:
    """Where the binary is looked for, in order (PATH last, resolved by find_binary)."""
    found: List[Path] = []
    env = os.environ.get(ENV_VAR)
    if env:
        found.append(Path(env))
    root = repo_root()
    if root is not None:
        found.append(root / "target" / "release" / BINARY)
    target_dir = os.environ.get("CARGO_TARGET_DIR")
    if target_dir:
        found.append(Path(target_dir) / "release" / BINARY)
    return found


def find_binary() -> Path:
    """The westwood-emu executable; BinaryNotFound with build advice if there is none."""
    env = os.environ.get(ENV_VAR)
    if env and not (os.path.isfile(env) and os.access(env, os.X_OK)):
        raise BinaryNotFound(
            f"{ENV_VAR}={env} is not an executable file; unset it or build the binary with "
            f"`{BUILD_HINT}`"
        )
    for path in candidates():
        if path.is_file() and os.access(path, os.X_OK):
            return path
    on_path = shutil.which(BINARY)
    if on_path:
        return Path(on_path)
    looked = ", ".join(str(p) for p in candidates()) or "(no repository found)"
    raise BinaryNotFound(
        f"the {BINARY} binary was not found (looked at {looked} and on PATH): build it with "
        f"`{BUILD_HINT}` in the repository (it needs what westwood-linux needs: clang, llvm, "
        f"bpftool, libelf-dev, zlib1g-dev, pkg-config), or set {ENV_VAR}"
    )


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
    """Run ``westwood-emu ARGV`` and return its exit status.

    Ctrl-C reaches the child too (same process group); we wait for it to clean up (namespaces,
    iperf3, tcpw if it loaded it) and return its status. A child killed by a signal gives
    128 + signal.
    """
    try:
        binary = find_binary()
    except BinaryNotFound as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        proc = subprocess.Popen([str(binary), *argv])
    except OSError as e:
        print(f"{prog}: error: cannot run {binary}: {e}", file=sys.stderr)
        return EXIT_USAGE
    while True:
        try:
            code = proc.wait()
            break
        except KeyboardInterrupt:
            continue
    if code < 0:
        return 128 - code if -code != signal.SIGINT else 130
    return code


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
