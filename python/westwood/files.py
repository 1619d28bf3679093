"""Writing files so that an error or an interrupt never leaves a partial one behind, and so
that a failed write (a full disk, a read-only directory) names the file it was writing."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Union

from .errors import WriteError

PathLike = Union[str, "os.PathLike[str]"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def make_readable(path: PathLike) -> None:
    """Give a file made by ``tempfile.mkstemp`` (mode 0600) the mode ``open`` would have given
    it (0666 minus the umask), so reports are readable like any other file."""
    os.chmod(path, 0o666 & ~_umask())


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the platform allows opening directories)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


# The Rust core reports a failed write as an OSError carrying only a message that names the
# temporary file ("cannot write /tmp/x.tmp: No space left on device (os error 28)").
_CANNOT_WRITE = re.compile(r"^cannot write [^:]*: ")


def failure_reason(err: OSError, path: Optional[PathLike] = None) -> str:
    """Why writing ``path`` failed, without the path: the OS's text, or the message of an
    OSError that has only a message, less its own "cannot write ...:" and "PATH:"."""
    if err.strerror:
        return err.strerror
    text = _CANNOT_WRITE.sub("", str(err))
    if path is not None:
        text = text.removeprefix(f"{os.fspath(path)}: ")
    return text or type(err).__name__


def _final_name(filename: Optional[str], temporary: PathLike, final: PathLike) -> Optional[Path]:
    """Where ``filename`` (``temporary`` itself, or a file inside a ``temporary`` directory)
    will be once renamed into place at ``final``; None if it is somewhere else."""
    if filename is None:
        return None
    name, temporary = Path(filename), Path(temporary)
    if name == temporary:
        return Path(final)
    try:
        return Path(final) / name.relative_to(temporary)
    except ValueError:
        return None


@contextlib.contextmanager
def writing(path: PathLike) -> Iterator[None]:
    """Report any OSError raised inside as a ``WriteError`` naming ``path``: use it around code
    that only writes ``path``, so that a full disk names the file instead of a bare
    ``[Errno 28] No space left on device``."""
    try:
        yield
    except WriteError:
        raise
    except OSError as err:
        raise WriteError(err.errno, failure_reason(err, path), os.fspath(path)) from err


@contextlib.contextmanager
def named_as_final(temporary: PathLike, final: PathLike) -> Iterator[None]:
    """Re-raise a ``WriteError`` naming ``temporary`` (or a file in it) as one naming where it
    was going (``final``): the temporary name means nothing to the user, and it is gone by the
    time the message is read. Other errors pass unchanged."""
    try:
        yield
    except WriteError as err:
        name = _final_name(err.filename, temporary, final)
        if name is None:
            raise
        raise WriteError(err.errno, err.strerror, os.fspath(name)) from err


def make_directory(path: PathLike) -> Path:
    """``mkdir -p path``; a failure is a ``WriteError`` naming ``path``."""
    path = Path(path)
    with writing(path):
        path.mkdir(parents=True, exist_ok=True)
    return path


def process_gone(pid: int) -> bool:
    """No process ``pid`` exists (another user's process counts as existing)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return pid <= 0


def remove_left_behind(
    parent: Path, pattern: "re.Pattern[str]", pids: Optional[Iterable[int]] = None
) -> int:
    """Remove the files and directories of this user in ``parent`` whose names ``pattern``
    matches, its first group the PID of the process that made them: those of ``pids`` (processes
    just killed), or with ``pids`` None those of every process that no longer exists. A kill -9
    gives a process no chance to remove its own. Returns how many went."""
    wanted = None if pids is None else set(pids)
    try:
        names = os.listdir(parent)
    except OSError:
        return 0
    removed = 0
    for name in names:
        m = pattern.fullmatch(name)
        if not m:
            continue
        pid = int(m.group(1))
        if wanted is not None:
            if pid not in wanted:
                continue
        elif pid == os.getpid() or not process_gone(pid):
            continue
        path = parent / name
        with contextlib.suppress(OSError):
            if path.is_symlink() or path.lstat().st_uid != os.getuid():
                continue
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink()
        removed += not path.exists()
    return removed


def remove_stale_siblings(parent: Path, prefix: str, suffix: str) -> None:
    """Remove the temporary files and staging directories named ``{prefix}{pid}.XXXX{suffix}``
    (as ``_temporary_beside`` and ``staged_directory`` name them) that processes no longer
    running left in ``parent`` (a staging directory of a large run holds hundreds of
    megabytes)."""
    pattern = re.compile(re.escape(prefix) + r"(\d+)\.[A-Za-z0-9_]+" + re.escape(suffix))
    remove_left_behind(parent, pattern)


def _temporary_beside(path: Path, suffix: str) -> str:
    """An empty file beside ``path`` (same directory, hence same filesystem, so that renaming it
    onto ``path`` is atomic), readable like a file ``open`` would have made."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        remove_stale_siblings(path.parent, f".{path.name}.", suffix)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{path.name}.{os.getpid()}.", suffix=suffix, dir=path.parent
        )
        os.close(fd)
        try:
            make_readable(tmp)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    return tmp


def write_bytes_atomic(path: PathLike, write, suffix: str = ".tmp") -> None:
    """Call ``write(tmp_path)`` to produce the file at a temporary path beside ``path``, then
    rename it into place (for writers that want a path, such as Parquet's): ``path`` is the
    complete new file or what it was before, never a part.

    ``write`` reports its own write failures as a ``WriteError`` naming the path it was given
    (``writing(tmp_path)``); they are re-raised naming ``path``. Its other errors pass through
    unchanged (a run that streams into the file fails for reasons of its own, too)."""
    path = Path(path)
    tmp = _temporary_beside(path, suffix)
    try:
        with named_as_final(tmp, path):
            write(tmp)
        with writing(path):
            os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomic(path: PathLike, text: str, durable: bool = False) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place. With
    ``durable`` the data is flushed to disk (fsync) before the rename and the rename after it,
    so that after a crash of the machine the file is there and complete."""

    def write(tmp: str) -> None:
        with writing(tmp), open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())

    write_bytes_atomic(path, write)
    if durable:
        _fsync_directory(Path(path).parent)


def write_json_atomic(path: PathLike, value: Any, durable: bool = False) -> None:
    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n", durable)


def write_text_in_place(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` in place: only for files of a ``staged_directory``."""
    with writing(path), open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


@contextlib.contextmanager
def staged_directory(out_dir: PathLike) -> Iterator[Path]:
    """Yield an empty staging directory next to ``out_dir``; on success move its files into
    ``out_dir`` (created if needed, same-named files replaced), on error delete it.

    So a failure part-way never creates ``out_dir`` nor leaves partial files in it. A
    ``WriteError`` naming a staged file is re-raised naming the file in ``out_dir``.
    """
    out_dir = Path(out_dir)
    with writing(out_dir):
        parent = out_dir.resolve().parent
        parent.mkdir(parents=True, exist_ok=True)
        remove_stale_siblings(parent, f".{out_dir.name}.", ".tmp")
        stage = Path(
            tempfile.mkdtemp(prefix=f".{out_dir.name}.{os.getpid()}.", suffix=".tmp", dir=parent)
        )
    try:
        with named_as_final(stage, out_dir):
            yield stage
        with writing(out_dir):
            out_dir.mkdir(parents=True, exist_ok=True)
            for entry in sorted(stage.iterdir()):
                os.replace(entry, out_dir / entry.name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
