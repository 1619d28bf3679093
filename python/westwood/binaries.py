"""Finding and running the project's Rust binaries (westwood-linux, westwood-emu).

A binary is looked for, in order, at ``$<ENV_VAR>``, ``<repo>/target/release/<name>``,
``$CARGO_TARGET_DIR/release/<name>``, the package's own ``bin/`` (a wheel built by ``make
wheel`` carries both, with their eBPF programs built in), then on ``$PATH``; if none exists the
error says how to build it.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, List, Optional, Sequence

EXIT_USAGE = 2

# <linux/prctl.h>
PR_SET_PDEATHSIG = 1


# Where a wheel built by `make wheel` puts westwood-linux and westwood-emu.
PACKAGE_BIN = Path(__file__).resolve().parent / "bin"


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
        found.append(PACKAGE_BIN / self.name)
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
        if repo is None:
            # An installed package built without them (`maturin build`, `pip install` of the
            # sources): `make wheel` builds one that carries them.
            raise BinaryNotFound(
                f"{self.name} is not part of this installation of westwood and is not on PATH: "
                f"install a wheel built with `make wheel` (it carries {self.name}), or in a "
                f"clone of the westwood sources run `{self.build_hint}` ({self.needs}), then put "
                f"target/release/{self.name} on PATH or set {self.env_var} to it"
            )
        looked = ", ".join(str(p) for p in self.candidates(repo))
        raise BinaryNotFound(
            f"the {self.name} binary was not found (looked at {looked} and on PATH): build it "
            f"with `{self.build_hint}` in the repository ({self.needs}), or set {self.env_var}"
        )


def parent_death_signal(sig: int) -> Optional[Callable[[], None]]:
    """A ``preexec_fn`` that has the kernel send ``sig`` to the child when this process dies
    (``prctl(PR_SET_PDEATHSIG)``), or ``None`` where there is no such thing (not Linux).

    Without it a ``kill -9`` of the wrapper leaves the binary running its experiment to the end,
    namespaces and iperf3 included. With SIGTERM the binary cleans up and exits as on Ctrl-C.

    The kernel sends the signal when the *thread* that forked the child ends, not the process:
    spawn from a thread that waits for the child before it ends (``run`` and the testbed runs of
    ``westwood reproduce`` do, wherever they are called from).

    prctl is looked up here, before the fork: the function runs between fork and exec, where a
    process with threads can only safely make plain system calls. If this process died between
    the fork and the prctl, the child was re-parented already and would never get ``sig``: it
    checks its parent afterwards and exits, as prctl(2) advises.
    """
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    prctl.restype = ctypes.c_int
    parent = os.getpid()
    signum = int(signal.Signals(sig))  # ValueError here, not in the child, for a bad number

    def die_with_parent() -> None:
        # prctl fails only for an invalid signal number, which a checked one is not.
        prctl(PR_SET_PDEATHSIG, signum, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(128 + signum)

    return die_with_parent


def run(
    find: Callable[[], Path],
    argv: Sequence[str],
    prog: str,
    parent_death: Optional[int] = None,
) -> int:
    """Run the binary ``find()`` returns with ``argv`` and return its exit status.

    Ctrl-C reaches the child too (same process group); we wait for it to clean up (namespaces,
    iperf3, pins) and return its status. A child killed by a signal gives 128 + signal. With
    ``parent_death`` (a signal), the child gets that signal if we die first (kill -9 included:
    ``parent_death_signal``), so it does not outlive us.
    """
    try:
        binary = find()
    except BinaryNotFound as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return EXIT_USAGE
    preexec = parent_death_signal(parent_death) if parent_death is not None else None
    try:
        proc = subprocess.Popen([str(binary), *argv], preexec_fn=preexec)
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
