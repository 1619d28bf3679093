"""Finding and running the project's Rust binaries (westwood-linux, westwood-emu).

A binary is looked for, in order, at ``$<ENV_VAR>``, ``<repo>/target/release/<name>``,
``$CARGO_TARGET_DIR/release/<name>``, then on ``$PATH``; if none exists the error says how to
build it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

EXIT_USAGE = 2


class BinaryNotFound(FileNotFoundError):
    """A Rust binary of the project is not built or not on PATH."""


@dataclass(frozen=True)
class RustBinary:
    name: str  # e.g. "westwood-linux"
    env_var: str  # e.g. "WESTWOOD_LINUX_BIN"
    build_hint: str  # e.g. "cargo build --release -p westwood-linux"
    needs: str  # what building it needs, for the error message

    def candidates(self, repo: Optional[Path]) -> List[Path]:
        """Where the binary is looked for, in order (PATH last, resolved by ``find``)."""
        found: List[Path] = []
        env = os.environ.get(self.env_var)
        if env:
            found.append(Path(env))
        if repo is not None:
            found.append(repo / "target" / "release" / self.name)
        target_dir = os.environ.get("CARGO_TARGET_DIR")
        if target_dir:
            found.append(Path(target_dir) / "release" / self.name)
        return found

    def find(self, repo: Optional[Path]) -> Path:
        """The executable; BinaryNotFound with build advice if there is none."""
        env = os.environ.get(self.env_var)
        if env and not (os.path.isfile(env) and os.access(env, os.X_OK)):
            raise BinaryNotFound(
                f"{self.env_var}={env} is not an executable file; unset it or build the binary "
                f"with `{self.build_hint}`"
            )
        for path in self.candidates(repo):
            if path.is_file() and os.access(path, os.X_OK):
                return path
        on_path = shutil.which(self.name)
        if on_path:
            return Path(on_path)
        looked = ", ".join(str(p) for p in self.candidates(repo)) or "(no repository found)"
        raise BinaryNotFound(
            f"the {self.name} binary was not found (looked at {looked} and on PATH): build it "
            f"with `{self.build_hint}` in the repository ({self.needs}), or set {self.env_var}"
        )


def run(find: Callable[[], Path], argv: Sequence[str], prog: str) -> int:
    """Run the binary ``find()`` returns with ``argv`` and return its exit status.

    Ctrl-C reaches the child too (same process group); we wait for it to clean up (namespaces,
    iperf3, pins) and return its status. A child killed by a signal gives 128 + signal.
    """
    try:
        binary = find()
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
            # The child got the same SIGINT and is cleaning up; give it the time it needs.
            continue
    if code < 0:
        return 128 - code if -code != signal.SIGINT else 130
    return code
