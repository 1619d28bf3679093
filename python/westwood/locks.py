"""One writer per output directory.

``westwood sweep`` and ``westwood reproduce`` hold an exclusive lock on their ``--out``
directory while they run: two of them on the same directory would both compute every run not
yet stored (each sees the other's runs only once they are committed) and overwrite each other's
reports. The lock is ``flock`` on ``DIR/.westwood.lock``, which records the holder's pid and
host. The kernel releases it when the holder exits in any way (Ctrl-C, ``kill -9``), so a
stale lock file is never in the way; the file itself is left in place (deleting it would let
two processes lock two different files of the same name).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import sys
from pathlib import Path
from typing import Iterator, Optional, TextIO

from .errors import UsageError
from .files import PathLike, make_directory, writing

LOCK_FILE = ".westwood.lock"


class DirectoryInUse(UsageError):
    """Another process holds the lock of the output directory (exit status 2, like bad input:
    the command cannot use that directory now)."""

    def __init__(self, directory: Path, holder: str) -> None:
        super().__init__(
            f"{directory} is in use by another westwood sweep or reproduce ({holder}); "
            "wait for it to finish (or pass --wait), or choose another --out"
        )
        self.directory = directory
        self.holder = holder


def _holder(fd: int) -> str:
    """Who holds the lock, as its lock file says: ``pid 1234`` (``on HOST`` when not this
    host), or ``pid unknown`` while the holder has not written it yet."""
    text = os.pread(fd, 512, 0).decode("utf-8", "replace").split()
    if not text or not text[0].isdigit():
        return "pid unknown"
    host = text[1] if len(text) > 1 else ""
    return f"pid {text[0]}" + (f" on {host}" if host and host != socket.gethostname() else "")


def _record_holder(fd: int) -> None:
    """Write our pid and host into the lock file, for the message of the next one to try (only
    a courtesy: the lock holds without it)."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {socket.gethostname()}\n".encode(), 0)


def _acquire(fd: int, directory: Path, wait: bool, note: Optional[TextIO]) -> None:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        if not wait:
            raise DirectoryInUse(directory, _holder(fd)) from None
    if note is not None:
        print(f"westwood: waiting for {_holder(fd)} to finish with {directory}", file=note)
    fcntl.flock(fd, fcntl.LOCK_EX)  # Ctrl-C interrupts the wait


@contextlib.contextmanager
def output_lock(
    directory: PathLike, wait: bool = False, note: Optional[TextIO] = None
) -> Iterator[Path]:
    """Hold the lock of ``directory`` (created if needed) for the ``with`` block.

    When another process holds it: raise ``DirectoryInUse`` naming the directory and the
    holder's pid, or with ``wait`` block until it is released (saying so on ``note``, default
    stderr). Worker processes forked inside the block share the lock; it is released for all of
    them when the block ends."""
    directory = make_directory(directory)
    path = directory / LOCK_FILE
    with writing(path):
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        _acquire(fd, directory, wait, note if note is not None else sys.stderr)
        try:
            _record_holder(fd)
            yield path
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
