"""Shared helpers: run the CLI in a subprocess, write small scenario files."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

import pytest

REPO = Path(__file__).resolve().parents[2]

# Every run in the suite is short: the repository scenarios run for their default duration
# (tens of simulated seconds) only where that is the point of the test.
SHORT = "duration=5s"

# A valid two-link scenario that bad-input tests break one field at a time.
GOOD_SCENARIO = """\
[scenario]
duration = "2s"
seed = 7

[parameters]
loss = "0%"

[topology]
nodes = ["a", "b", "c"]

[links.wired]
from = "a"
to = "b"
rate = "10Mbps"
delay = "10ms"

[links.radio]
from = "b"
to = "c"
rate = "2Mbps"
delay = "1ms"
errors = { model = "bernoulli", rate = "${loss}" }

[flows.bulk]
from = "a"
to = "c"
cc = "reno"
"""


def cli(*args: str, cwd=None, env: Dict[str, str] = None) -> subprocess.CompletedProcess:
    """``python -m westwood ARGS`` as a user would run it."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "westwood", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=full_env,
        timeout=300,
    )


def cli_json(*args: str, **kwargs) -> dict:
    proc = cli(*args, "--json", **kwargs)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def write_scenario(directory: Path, name: str, text: str) -> Path:
    path = directory / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def good_scenario(tmp_path: Path) -> Path:
    return write_scenario(tmp_path, "good", GOOD_SCENARIO)


def assert_clean_error(proc: subprocess.CompletedProcess, *needles: str) -> None:
    """Exit status 2, one ``westwood: error:`` message naming ``needles``, no traceback."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.startswith("westwood: error: "), proc.stderr
    for needle in needles:
        assert needle in proc.stderr, (needle, proc.stderr)
    assert proc.stdout == ""


def without_wall(summary: dict) -> dict:
    copy = json.loads(json.dumps(summary))
    copy.pop("wall_seconds")
    return copy


def dir_entries(path: Path) -> List[str]:
    return sorted(p.name for p in path.iterdir()) if path.exists() else []


ENOSPC_TEXT = os.strerror(errno.ENOSPC)


class _FullDiskFile:
    """A file opened for writing on a full disk: opening works, every write fails (ENOSPC)."""

    def __init__(self, file) -> None:
        self._file = file

    def write(self, data) -> int:
        raise OSError(errno.ENOSPC, ENOSPC_TEXT)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._file.close()

    def __getattr__(self, name):
        return getattr(self._file, name)


def fill_disk(monkeypatch, directory: Path) -> None:
    """Make writes of westwood's files under ``directory`` fail as on a full disk: files opened
    for writing by ``westwood.files`` (every atomic write and the run files) accept no byte.
    Forked sweep workers inherit it."""
    import builtins

    from westwood import files

    real_open = builtins.open
    root = directory.resolve()

    def full_open(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        inside = root == Path(file).resolve() or root in Path(file).resolve().parents
        return _FullDiskFile(handle) if inside and set(mode) & set("wax+") else handle

    monkeypatch.setattr(files, "open", full_open, raising=False)


@pytest.fixture
def fake_emu(tmp_path, monkeypatch):
    """The testbed's binary replaced by fake_emu_binary (canned results, no root), and the
    machine taken to be able to run a testbed; returns the fake's call log."""
    import fake_emu_binary
    from westwood.experiments import testbed

    monkeypatch.setattr(testbed, "unavailable_reason", lambda: None)
    return fake_emu_binary.install(tmp_path, monkeypatch)
