"""Writing files so that an error or an interrupt never leaves a partial one behind."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterator, Union

from .tables import Columns, column_rows

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


def write_text_atomic(path: PathLike, text: str, durable: bool = False) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it into place. With
    ``durable`` the data is flushed to disk (fsync) before the rename and the rename after it,
    so that after a crash of the machine the file is there and complete."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        make_readable(tmp)
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
            if durable:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
        if durable:
            _fsync_directory(path.parent)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: PathLike, value: Any, durable: bool = False) -> None:
    write_text_atomic(path, json.dumps(value, indent=2, ensure_ascii=False) + "\n", durable)


def write_bytes_atomic(path: PathLike, write) -> None:
    """Call ``write(tmp_path)`` to produce the file at a temporary path beside ``path``, then
    rename it into place (for writers that want a path, such as Parquet's)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        make_readable(tmp)
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_columns_csv(path: PathLike, columns: Columns) -> None:
    with open(path, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(list(columns))
        writer.writerows(column_rows(columns))


@contextlib.contextmanager
def staged_directory(out_dir: PathLike) -> Iterator[Path]:
    """Yield an empty staging directory next to ``out_dir``; on success move its files into
    ``out_dir`` (created if needed, same-named files replaced), on error delete it.

    So a failure part-way never creates ``out_dir`` nor leaves partial files in it.
    """
    out_dir = Path(out_dir)
    parent = out_dir.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    stage = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}.", suffix=".tmp", dir=parent))
    try:
        yield stage
        out_dir.mkdir(parents=True, exist_ok=True)
        for entry in sorted(stage.iterdir()):
            os.replace(entry, out_dir / entry.name)
    finally:
        shutil.rmtree(stage, ignore_errors=True)
