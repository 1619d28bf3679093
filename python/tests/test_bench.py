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


def test_bench_cases_each_in_their_own_process():
    proc = cli("bench", "--json", "--set", SHORT)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    cases = {c["case"]: c for c in result["cases"]}
    assert list(cases)[:2] == ["dumbbell", "fig9"] and "grid" in cases
    assert result["scenario"] == "dumbbell" and result["events"] == cases["dumbbell"]["events"]
    fig9 = cases["fig9"]
    assert fig9["scenario"] == "wireless" and ["loss", "1%"] in fig9["overrides"]
    assert fig9["sim_seconds"] == 5.0 and fig9["events_per_second"] > 0
    assert fig9["peak_rss_bytes"] > 1_000_000
    grid = cases["grid"]
    assert "skipped" in grid or "error" in grid or grid["events"] > 0


def test_bench_scaling_quick():
    proc = cli("bench", "--scaling", "--quick", "--json")
    assert proc.returncode == 0, proc.stderr
    scaling = json.loads(proc.stdout)["scaling"]
    times = scaling["time"]["points"]
    assert [p["sim_seconds"] for p in times] == [1.5, 3.0, 6.0]
    assert scaling["time"]["fit"]["slope"] > 0  # more simulated time costs more
    assert [p["flows"] for p in scaling["flows"]["points"]] == [2, 5, 10, 20]
    assert all(p["sim_seconds"] == 6.0 for p in scaling["flows"]["points"])
    sweep = scaling["sweep"]
    assert sweep["runs"] == 8 and sweep["jobs"] == 2
    assert sweep["wall_seconds_1"] > 0 and sweep["wall_seconds_2"] > 0 and sweep["speedup"] > 0
    text = cli("bench", "--scaling", "--quick")
    assert text.returncode == 0, text.stderr
    for word in ("simulated time", "flows", "sweep speed-up", "exponent"):
        assert word in text.stdout


def test_fit_line():
    from westwood.bench import fit_line

    fit = fit_line([1, 2, 4], [2, 4, 8])
    assert abs(fit["slope"] - 2) < 1e-12 and abs(fit["intercept"]) < 1e-12
    assert abs(fit["exponent"] - 1) < 1e-12
