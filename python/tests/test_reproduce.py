"""`westwood reproduce`: a tiny reproduction writes every report and reuses its cache."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

import pytest

from conftest import SHORT, cli, dir_entries, without_wall
from westwood import experiments, report, runner
from westwood.reproduce import reproduce


def tiny_fig9() -> experiments.Experiment:
    """fig9 with 2 x values and 5 s runs."""
    fig9 = experiments.EXPERIMENTS["fig9"]
    return dataclasses.replace(
        fig9,
        x=dataclasses.replace(fig9.x, values=(0, 2), quick_values=(0, 2)),
        quick_duration="5s",
    )


def _rows(path: Path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_tiny_reproduction_and_cache(tmp_path: Path):
    exp = tiny_fig9()
    out = tmp_path / "results"
    stderr = io.StringIO()
    written = reproduce([exp], out, quick=True, seeds=2, jobs=2, progress_stream=stderr)
    for name in ("fig9.csv", "fig9.md", "fig9.png", "fig9.svg", "index.md", "index.html"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
        assert out / name in written
    assert "8/8 runs" in stderr.getvalue()

    rows = _rows(out / "fig9.csv")
    assert len(rows) == 2 * 2 * 2  # x values * series * seeds
    assert {(r["loss"], r["series"], r["seed"]) for r in rows} == {
        (x, s, seed) for x in ("0", "2") for s in ("Reno", "NewReno") for seed in ("1", "2")
    }
    for column in ("goodput_mbps", "throughput_mbps", "retransmits", "timeouts", "events"):
        assert column in rows[0]
    assert all(float(r["sim_seconds"]) == 5.0 for r in rows)
    lossy = [float(r["goodput_mbps"]) for r in rows if r["loss"] == "2"]
    assert len(set(lossy)) > 1  # seeds differ under loss

    md = (out / "fig9.md").read_text()
    assert "| Packet error rate (%) | Reno | NewReno |" in md
    assert "±" in md and "Student t" in md
    assert (out / "fig9.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "<svg" in (out / "fig9.svg").read_text()
    html = (out / "index.html").read_text()
    for target in ("fig9.md", "fig9.csv", "fig9.png", "fig9.svg"):
        assert f'href="{target}"' in html
    assert "westwood reproduce fig9 --quick --seeds 2 --out" in html
    assert "<table>" in html and "<th>NewReno</th>" in html
    assert "westwood reproduce fig9 --quick --seeds 2 --out" in (out / "index.md").read_text()

    cached = sorted((out / "runs").glob("*.json"))
    assert len(cached) == 8
    # Tamper with one cached summary: a second invocation must use it instead of rerunning.
    spec = runner.plan(exp, True, 2)[0]
    entry = json.loads(runner.cache_path(out / "runs", spec).read_text())
    entry["summary"]["flows"][0]["goodput_bps"] = 123_456_789.0
    runner.cache_path(out / "runs", spec).write_text(json.dumps(entry))
    stderr = io.StringIO()
    reproduce([exp], out, quick=True, seeds=2, jobs=2, progress_stream=stderr)
    assert "(8 cached)" in stderr.getvalue()
    assert any(
        float(r["goodput_mbps"]) == pytest.approx(123.456789) for r in _rows(out / "fig9.csv")
    )
    assert sorted((out / "runs").glob("*.json")) == cached


def test_cli_quick_reproduce_resumes(tmp_path: Path):
    out = tmp_path / "res"
    args = ("reproduce", "fig9", "--quick", "--set", SHORT, "--jobs", "2", "--out", str(out))
    first = cli(*args)
    assert first.returncode == 0, first.stderr
    assert {"fig9.csv", "fig9.md", "fig9.png", "fig9.svg", "index.md", "index.html", "runs"} <= set(
        dir_entries(out)
    )
    runs = len(dir_entries(out / "runs"))
    quick_x = experiments.EXPERIMENTS["fig9"].x.values_for(True)
    assert runs == len(quick_x) * 2  # one seed in quick mode
    assert "ETA" in first.stderr
    second = cli(*args)
    assert second.returncode == 0, second.stderr
    assert f"({runs} cached)" in second.stderr
    assert len(dir_entries(out / "runs")) == runs
    assert f"--set {SHORT}" in (out / "index.md").read_text()


def test_interrupted_cache_entry_is_recomputed(tmp_path: Path):
    exp = dataclasses.replace(tiny_fig9(), series=tiny_fig9().series[:1])
    out = tmp_path / "r"
    reproduce([exp], out, quick=True, seeds=1, jobs=1, progress_stream=io.StringIO())
    spec = runner.plan(exp, True, 1)[0]
    good = runner.cache_path(out / "runs", spec).read_text()
    runner.cache_path(out / "runs", spec).write_text(good[: len(good) // 2])  # truncated
    stderr = io.StringIO()
    reproduce([exp], out, quick=True, seeds=1, jobs=1, progress_stream=stderr)
    assert "(1 cached)" in stderr.getvalue()  # the other run; the truncated one reran
    rerun = json.loads(runner.cache_path(out / "runs", spec).read_text())
    assert rerun["run"] == spec.identity()
    before = json.loads(good)["summary"]
    assert without_wall(rerun["summary"]) == without_wall(before)  # deterministic rerun


def test_failing_run_reports_error_and_keeps_finished_runs(tmp_path: Path):
    out = tmp_path / "r"
    proc = cli("reproduce", "fig9", "--quick", "--set", "cc=nosuchcc", "--out", str(out))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert "nosuchcc" in proc.stderr
    assert not (out / "fig9.csv").exists()


def test_aggregate_and_markdown_table():
    exp = tiny_fig9()
    rows = [
        {"loss": x, "series": s, "seed": seed, "goodput_mbps": v}
        for x, s, seed, v in [
            (0, "Reno", 1, 1.0),
            (0, "Reno", 2, 3.0),
            (0, "NewReno", 1, 2.0),
            (0, "NewReno", 2, 2.0),
            (2, "Reno", 1, 0.5),
            (2, "Reno", 2, 0.5),
            (2, "NewReno", 1, 0.4),
            (2, "NewReno", 2, 0.6),
        ]
    ]
    xs, cells = report.aggregate(exp, rows)
    assert xs == [0, 2]
    reno0 = cells[0][0]
    assert reno0.n == 2 and reno0.mean == 2.0
    assert reno0.half_width == pytest.approx(12.706 * 1.0, rel=1e-3)  # t(0.975, 1) * s/sqrt(2)
    table = report.markdown_table(exp, xs, cells)
    assert "| 0 | 2.000 ± 12.706 | 2.000 ± 0.000 |" in table
    assert "| 2 | 0.500 ± 0.000 | 0.500 ± 1.271 |" in table


@pytest.mark.parametrize("exp_id", sorted(experiments.EXPERIMENTS))
def test_every_registered_experiment_is_runnable(exp_id: str):
    """Each series at the extreme x values is accepted by its scenario (1 s runs)."""
    from westwood.api import run_raw

    exp = experiments.EXPERIMENTS[exp_id]
    for x in (exp.x.values[0], exp.x.values[-1]):
        for series in exp.series:
            overrides = exp.run_overrides(
                x, series, quick=True, extra=[(exp.duration_parameter, "1s")]
            )
            summary = run_raw(exp.scenario, 1, overrides).summary
            assert exp.metric.value(summary) >= 0
            if "cc" in series.overrides:
                assert summary["flows"][exp.metric.flow]["cc"] == series.overrides["cc"]
