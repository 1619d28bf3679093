"""``westwood linux ARGS``: forwards to the ``westwood-linux`` Rust binary.

That binary loads TCPW and Westwood+ into the running Linux kernel as BPF struct_ops congestion
controls ("tcpw", "tcpw_plus") and has the commands ``status``, ``load``, ``unload``, ``watch`` and
``bench`` (see docs/linux.md). It is found, in order, at:

1. ``$WESTWOOD_LINUX_BIN``;
2. ``<repo>/target/release/westwood-linux`` (the repository holding this package), and
   ``$CARGO_TARGET_DIR/release/westwood-linux`` if that variable is set;
3. ``westwood-linux`` on ``$PATH``.

If none exists the error says how to build it: ``cargo build --release -p westwood-linux``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence

BINARY = "westwood-linux"
BUILD_HINT = "cargo build --release -p westwood-linux"
EXIT_USAGE = 2


class BinaryNotFound(FileNotFoundError):
    """The westwood-linux binary is not built or not on PATH."""


def repo_root() -> Optional[Path]:
    """The repository this package lives in (the directory with crates/linux), if any."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "crates" / "linux" / "Cargo.toml").is_file():
            return parent
    return None


def candidates() -> List[Path]:
    """Where the binary is looked for, in order (PATH last, resolved by find_binary)."""
    found: List[Path] = []
    env = os.environ.get("WESTWOOD_LINUX_BIN")
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
    """The westwood-linux executable; BinaryNotFound with build advice if there is none."""
    env = os.environ.get("WESTWOOD_LINUX_BIN")
    if env and not (os.path.isfile(env) and os.access(env, os.X_OK)):
        raise BinaryNotFound(
            f"WESTWOOD_LINUX_BIN={env} is not an executable file; unset it or build the binary "
            f"with `{BUILD_HINT}`"
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
        f"`{BUILD_HINT}` in the repository (needs clang, llvm, bpftool, libelf-dev, zlib1g-dev, "
        f"pkg-config), or set WESTWOOD_LINUX_BIN"
    )


def main(argv: Sequence[str]) -> int:
    """Run ``westwood-linux ARGV`` and return its exit status.

    Ctrl-C reaches the child too (same process group); we wait for it to clean up (remove its
    namespaces, kill iperf3) and return its status. A child killed by a signal gives 128 + signal.
    """
    try:
        binary = find_binary()
    except BinaryNotFound as e:
        print(f"westwood linux: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        proc = subprocess.Popen([str(binary), *argv])
    except OSError as e:
        print(f"westwood linux: error: cannot run {binary}: {e}", file=sys.stderr)
        return EXIT_USAGE
    while True:
        try:
            code = proc.wait()
            break
        except KeyboardInterrupt:
            # The child got the same SIGINT and is cleaning up; give it the time it needs.
            continue
    if code < 0:
        return 128 - code if -code != signal.SIGINT else 130
    return code


if __name__ == "__main__":  # python -m westwood.linux ARGS
    sys.exit(main(sys.argv[1:]))
