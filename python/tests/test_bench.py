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


def test_bench_records_the_machine_and_the_whole_process():
    result = json.loads(cli("bench", "--json", "--set", SHORT).stdout)
    machine = result["machine"]
    assert machine["cpus"] >= 1
    assert len(machine["load_before"]) == 3 and len(machine["load_after"]) == 3
    for case in result["cases"]:
        if "events" in case:
            # a whole `westwood run`: start-up, loading and the run, so longer than the run
            assert case["process_seconds"] > case["wall_seconds"], case
    text = cli("bench", "--set", SHORT).stdout
    assert "whole process" in text and "CPUs, load average" in text


def test_bench_compare_two_json_outputs(tmp_path):
    proc = cli("bench", "--json", "--set", SHORT)
    assert proc.returncode == 0, proc.stderr
    before = json.loads(proc.stdout)
    after = json.loads(proc.stdout)
    for case in after["cases"]:
        if "wall_seconds" in case:
            case["wall_seconds"] /= 2  # a build twice as fast
    (tmp_path / "before.json").write_text(json.dumps(before))
    (tmp_path / "after.json").write_text(json.dumps(after))
    paths = (str(tmp_path / "before.json"), str(tmp_path / "after.json"))
    result = json.loads(cli("bench", "--json", "--compare", *paths).stdout)
    rows = {row["case"]: row for row in result["compare"]}
    assert {"dumbbell", "fig9"} <= set(rows)
    dumbbell = rows["dumbbell"]
    assert abs(dumbbell["speedup"] - 2) < 1e-9 and dumbbell["same_events"]
    assert dumbbell["process_speedup"] == 1 and dumbbell["rss_ratio"] == 1
    assert result["before"] == before and result["after"] == after
    text = cli("bench", "--compare", *paths)
    assert text.returncode == 0, text.stderr
    assert "engine wall" in text.stdout and "(x2.00)" in text.stdout


def test_bench_compare_a_json_output_with_this_build(tmp_path):
    """BEFORE alone: AFTER is this build, measured now; the same build simulates the same
    events."""
    saved = tmp_path / "before.json"
    saved.write_text(cli("bench", "--json", "--scenario", "wireless", "--set", SHORT).stdout)
    proc = cli("bench", "--json", "--scenario", "wireless", "--set", SHORT, "--compare", str(saved))
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)["compare"]
    assert row["case"] == "custom" and row["same_events"] and row["speedup"] > 0


def test_bench_compare_refuses_what_is_neither_an_output_nor_a_build(tmp_path):
    (tmp_path / "notes.txt").write_text("not json")
    proc = cli("bench", "--compare", str(tmp_path / "notes.txt"))
    assert proc.returncode == 2
    assert "neither a `westwood bench --json` output nor a build" in proc.stderr


def test_a_build_is_found_from_its_checkout_venv_or_interpreter(tmp_path):
    from westwood.bench import load_side

    venv = tmp_path / "checkout" / ".venv" / "bin"
    venv.mkdir(parents=True)
    (venv / "python").write_text("")
    (venv / "python").chmod(0o755)
    (venv / "westwood").write_text("")
    (venv / "westwood").chmod(0o755)
    python = str(venv / "python")
    assert load_side(str(tmp_path / "checkout")) == ("build", python)
    assert load_side(str(tmp_path / "checkout" / ".venv")) == ("build", python)
    assert load_side(str(venv / "westwood")) == ("build", python)


def test_rounds_report_medians():
    from westwood.bench import median_case

    rounds = [
        {
            "case": "x",
            "events": 100,
            "packets": 50,
            "wall_seconds": w,
            "process_seconds": p,
            "peak_rss_bytes": r,
        }
        for w, p, r in ((3.0, 5.0, 30), (1.0, 4.0, 10), (2.0, 6.0, 20))
    ]
    median = median_case(rounds)
    assert (median["wall_seconds"], median["process_seconds"], median["peak_rss_bytes"]) == (
        2.0,
        5.0,
        20,
    )
    assert median["events_per_second"] == 50 and median["rounds"] == 3
    failed = median_case([rounds[0], {"case": "x", "error": "boom"}])
    assert failed["error"] == "boom"
