"""`westwood bench`."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import SHORT, cli


def test_bench_json_keys():
    proc = cli("bench", "--json", "--set", SHORT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    for key in (
        "wall_seconds",
        "events",
        "events_per_second",
        "packets_per_second",
        "peak_rss_bytes",
    ):
        assert key in result, key
    assert result["events"] > 0
    assert result["wall_seconds"] > 0
    assert result["events_per_second"] > 0 and result["packets_per_second"] > 0
    assert result["peak_rss_bytes"] > 1_000_000  # bytes, not KiB
    assert result["sim_seconds"] == 5.0


def test_bench_text():
    proc = cli("bench", "--set", SHORT)
    assert proc.returncode == 0, proc.stderr
    for word in ("wall time", "events/s", "packets/s", "peak RSS"):
        assert word in proc.stdout


def test_bench_does_not_import_pandas_or_matplotlib():
    code = (
        "import sys, westwood.cli as c\n"
        f"assert c.main(['bench', '--json', '--set', {SHORT!r}]) == 0\n"
        "heavy = [m for m in ('pandas', 'matplotlib', 'numpy') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
