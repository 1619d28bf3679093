"""``westwood linux ARGS``: forwards to the ``westwood-linux`` Rust binary.

That binary loads the Westwood family into the running Linux kernel as BPF struct_ops congestion
controls (the registry's eBPF twins, ``westwood.kernel_names``) and has the commands
``status``, ``load``, ``unload``, ``watch`` and ``bench`` (see docs/linux.md). It is found,
in order, at:

1. ``$WESTWOOD_LINUX_BIN``;
2. ``<repo>/target/release/westwood-linux`` (the repository holding this package), and
   ``$CARGO_TARGET_DIR/release/westwood-linux`` if that variable is set;
3. ``westwood-linux`` on ``$PATH``.

If none exists the error says how to build it: ``cargo build --release -p westwood-linux``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Sequence

from .binaries import BinaryNotFound, RustBinary, run  # noqa: F401  (BinaryNotFound: re-exported)

BINARY = "westwood-linux"
BUILD_HINT = "cargo build --release -p westwood-linux"


def repo_root() -> Optional[Path]:
    """The repository this package lives in (the directory with crates/linux), if any."""
    for parent in Path(__file__).resolve().parents:
        if (parent / "crates" / "linux" / "Cargo.toml").is_file():
            return parent
    return None


LINUX = RustBinary(
    name=BINARY,
    env_var="WESTWOOD_LINUX_BIN",
    build_hint=BUILD_HINT,
    needs="needs clang, llvm, bpftool, libelf-dev, zlib1g-dev, pkg-config",
)


def candidates() -> List[Path]:
    """Where the binary is looked for, in order (PATH last, resolved by find_binary)."""
    return LINUX.candidates(repo_root())


def find_binary() -> Path:
    """The westwood-linux executable; BinaryNotFound with build advice if there is none."""
    return LINUX.find(repo_root())


def main(argv: Sequence[str]) -> int:
    """Run ``westwood-linux ARGV`` and return its exit status (see ``binaries.run``)."""
    return run(find_binary, argv, "westwood linux")


if __name__ == "__main__":  # python -m westwood.linux ARGS
    sys.exit(main(sys.argv[1:]))
