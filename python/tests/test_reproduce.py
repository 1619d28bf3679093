"""`westwood reproduce`: a tiny reproduction writes every report and reuses its cache."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import os
from pathlib import Path

import pytest

import fake_emu_binary
from conftest import SHORT, cli, dir_entries, without_wall
from westwood.experiments import registry, sweep, trace
from westwood.locks import LOCK_FILE, DirectoryInUse, output_lock
from westwood.papers import which_tcpw
from westwood.reproduce import QUICK_SEEDS, reproduce
from westwood.runs import store


def tiny_fig9() -> sweep.Experiment:
    """fig9 with 2 x values, the Reno and NewReno series and 5 s runs."""
    fig9 = registry.EXPERIMENTS["fig9"]
    return dataclasses.replace(
        fig9,
        x=dataclasses.replace(fig9.x, values=(0, 2), quick_values=(0, 2)),
        series=fig9.series[:2],
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
    spec = store.plan(exp, True, 2)[0]
    entry = json.loads(store.cache_path(out / "runs", spec).read_text())
    entry["summary"]["flows"][0]["goodput_bps"] = 123_456_789.0
    store.cache_path(out / "runs", spec).write_text(json.dumps(entry))
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
    quick_x = registry.EXPERIMENTS["fig9"].x.values_for(True)
    series = len(registry.EXPERIMENTS["fig9"].series)  # 6 ccs + the other TCPWs
    assert runs == len(quick_x) * series * QUICK_SEEDS  # at most 3 seeds in quick mode
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
    spec = store.plan(exp, True, 1)[0]
    good = store.cache_path(out / "runs", spec).read_text()
    store.cache_path(out / "runs", spec).write_text(good[: len(good) // 2])  # truncated
    stderr = io.StringIO()
    reproduce([exp], out, quick=True, seeds=1, jobs=1, progress_stream=stderr)
    assert "(1 cached)" in stderr.getvalue()  # the other run; the truncated one reran
    rerun = json.loads(store.cache_path(out / "runs", spec).read_text())
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


@pytest.mark.parametrize("kwargs", [{"seeds": True}, {"seeds": "2"}, {"jobs": True}])
def test_api_counts_reject_bools_and_strings(tmp_path: Path, kwargs):
    """``seeds=True`` would silently be 1 seed; ``seeds="2"`` failed with a bare TypeError."""
    name = next(iter(kwargs))
    with pytest.raises(TypeError, match=f"{name} must be an integer"):
        reproduce([tiny_fig9()], tmp_path / "r", quick=True, **kwargs)
    assert not (tmp_path / "r" / "runs").exists()


def test_locked_out_is_refused_before_anything_runs(tmp_path: Path):
    """reproduce shares the run store and the lock of sweep (docs/sweeps.md)."""
    out = tmp_path / "r"
    with output_lock(out):
        with pytest.raises(DirectoryInUse, match=f"{out} is in use .*pid {os.getpid()}"):
            reproduce([tiny_fig9()], out, quick=True, seeds=1, progress_stream=io.StringIO())
        assert dir_entries(out) == [LOCK_FILE]


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
    xs, cells = sweep.aggregate(exp, rows)
    assert xs == [0, 2]
    reno0 = cells[0][0]
    assert reno0.n == 2 and reno0.mean == 2.0
    assert reno0.half_width == pytest.approx(12.706 * 1.0, rel=1e-3)  # t(0.975, 1) * s/sqrt(2)
    table = sweep.markdown_table(exp, xs, cells)
    assert "| 0 | 2.000 ± 12.706 | 2.000 ± 0.000 |" in table
    assert "| 2 | 0.500 ± 0.000 | 0.500 ± 1.271 |" in table


@pytest.mark.parametrize("exp_id", sorted(registry.EXPERIMENTS))
def test_every_registered_experiment_is_runnable(exp_id: str):
    """Each series (at the extreme x values of a sweep) is accepted by its scenario (10 s runs:
    some scenarios start flows a few seconds in),
    and a trace experiment's flow, bottleneck and sources are in the summary."""
    from westwood.api import run_raw
    from westwood.experiments.trace import bottleneck_rate, flow_record

    exp = registry.EXPERIMENTS[exp_id]
    xs = (exp.x.values[0], exp.x.values[-1]) if exp.kind in ("sweep", "testbed") else (0.0,)
    for x in xs:
        for series in exp.series:
            if (
                exp.kind == "testbed"
            ):  # its simulator side; the testbed side: test_testbed_reproduce
                overrides = exp.run_overrides(x, series, extra=[("duration", "10s")])
            else:
                overrides = exp.run_overrides(
                    x, series, quick=True, extra=[(exp.duration_parameter, "10s")]
                )
            summary = run_raw(exp.scenario, 1, overrides).summary
            if exp.kind in ("sweep", "testbed"):
                metric = getattr(series, "metric", None) or exp.metric
                assert not metric.value(summary) < 0  # NaN: no flow of that cc in this mix
                if not summary["flows"]:  # only flows arriving during the run
                    continue
                flow = summary["flows"][exp.metric.flow]
            elif exp.kind == "window":
                names = {f["name"] for f in summary["flows"]}
                assert set(exp.flows) <= names
                flow = summary["flows"][0]
            elif exp.kind == "table":
                for metric in exp.metrics:
                    assert not metric.value(summary) < 0
                flow = summary["flows"][0]
            else:
                flow = flow_record(summary, exp.flow)
                bottleneck_rate(summary, exp.bottleneck)
                assert summary["sources"], "a trace experiment compares BWE with CBR sources"
            if "cc" in series.overrides:
                assert flow["cc"] == series.overrides["cc"]


def test_claims_in_markdown_and_index(tmp_path: Path):
    fig9 = registry.EXPERIMENTS["fig9"]
    exp = dataclasses.replace(
        fig9,
        x=dataclasses.replace(fig9.x, values=(0, 1), quick_values=(0, 1)),
        series=(fig9.series[0], fig9.series[2]),  # Reno, TCPW
        quick_duration="10s",
    )
    out = tmp_path / "r"
    reproduce([exp], out, quick=True, seeds=1, jobs=2, progress_stream=io.StringIO())
    md = (out / "fig9.md").read_text()
    assert "## Claims" in md
    for claim in fig9.claims:
        assert claim.text in md
    manifest = json.loads((out / "index.json").read_text())
    claims = manifest["fig9"]["claims"]
    assert [c["claim"] for c in claims] == [c.text for c in fig9.claims]
    # TCPW's gain over Reno is judged; the claims whose inputs are not here are not available,
    # never a made-up number: SACK's (no SACK series), where the gain peaks (one seed: no
    # interval), the other TCPWs' (no series).
    gain = which_tcpw.fig9_claim("TCPW")
    assert [c["verdict"] for c in claims if c["claim"] == gain][0] in (
        "reproduced",
        "partly",
        "not reproduced",
    )
    assert all(c["verdict"] == "n/a" for c in claims if c["claim"] != gain)
    assert claims[0]["value"] > 0  # TCPW gains over Reno at 1% even in 10 s
    html = (out / "index.html").read_text()
    assert '<table class="claims">' in html and "throughput gain over Reno at 1% loss" in html
    assert "## fig9: claims" in (out / "index.md").read_text()


def tiny_fig3() -> trace.TraceExperiment:
    fig3 = registry.EXPERIMENTS["fig3"]
    return dataclasses.replace(fig3, series=fig3.series[:2])  # TCPW, TCPW TR


def test_trace_experiment_report_and_cache(tmp_path: Path):
    exp = tiny_fig3()
    out = tmp_path / "r"
    written = reproduce([exp], out, quick=True, seeds=2, jobs=2, progress_stream=io.StringIO())
    for name in ("fig3.csv", "fig3_trace.csv", "fig3.md", "fig3.png", "fig3.svg", "index.html"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
        assert out / name in written
    rows = _rows(out / "fig3.csv")
    assert len(rows) == 2 * 2 * 7  # series * seeds * steps
    tcpw = [r for r in rows if r["series"] == "TCPW" and r["seed"] == "1"]
    assert [float(r["available_mbps"]) for r in tcpw] == [5, 4, 3, 4, 3, 4, 5]
    assert float(tcpw[0]["available_payload_mbps"]) == pytest.approx(5 * 400 / 440)
    bwe = [float(r["mean_bwe_mbps"]) for r in tcpw]
    assert bwe[2] < bwe[1] < bwe[6]  # BWE follows the 3, 4, 5 Mb/s steps
    for r in tcpw:
        assert int(r["samples"]) > 0
        assert float(r["relative_error_percent"]) == pytest.approx(
            100 * float(r["mae_mbps"]) / float(r["available_payload_mbps"])
        )
    trace = _rows(out / "fig3_trace.csv")
    assert {r["series"] for r in trace} == {"TCPW", "TCPW TR"}
    assert float(trace[-1]["time_seconds"]) == pytest.approx(250.0)
    md = (out / "fig3.md").read_text()
    assert "skipping the first 5 s" in md and "from summary.json" in md
    assert "| 3 | 50–75 | udp1 udp2 | 3.00 | 2.73 |" in md
    assert exp.claims[0].text in md
    html = (out / "index.html").read_text()
    assert 'href="fig3_trace.csv"' in html and '<table class="claims">' in html
    svg = (out / "fig3.svg").read_text()
    assert "BWE (Mb/s)" in svg and "available bandwidth" in svg

    entries = [json.loads(p.read_text()) for p in (out / "runs").glob("*.json")]
    assert len(entries) == 4
    assert all(e["run"]["record"] is True and e["flow_series"]["bwe_bps"] for e in entries)
    stderr = io.StringIO()
    reproduce([exp], out, quick=True, seeds=2, jobs=2, progress_stream=stderr)
    assert "(4 cached)" in stderr.getvalue()


def test_recorded_run_without_series_in_cache_is_rerun(tmp_path: Path):
    exp = dataclasses.replace(tiny_fig3(), series=tiny_fig3().series[:1])
    out = tmp_path / "r"
    reproduce([exp], out, quick=True, seeds=1, jobs=1, progress_stream=io.StringIO())
    spec = store.plan(exp, True, 1)[0]
    assert spec.record
    path = store.cache_path(out / "runs", spec)
    entry = json.loads(path.read_text())
    del entry["flow_series"]
    path.write_text(json.dumps(entry))
    with pytest.raises(LookupError):
        store.load_series(out / "runs", spec)
    stderr = io.StringIO()
    reproduce([exp], out, quick=True, seeds=1, jobs=1, progress_stream=stderr)
    assert "cached" not in stderr.getvalue().splitlines()[-1]
    assert store.load_series(out / "runs", spec)["bwe_bps"]


def test_default_reproduce_runs_every_experiment(tmp_path: Path, monkeypatch):
    # The testbed sections run against a stand-in binary (or are skipped without root).
    fake_emu_binary.install(tmp_path, monkeypatch)
    out = tmp_path / "all"
    proc = cli("reproduce", "--quick", "--jobs", "2", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    manifest = json.loads((out / "index.json").read_text())
    headline = [i for i, e in registry.EXPERIMENTS.items() if e.headline]
    assert sorted(manifest) == sorted(headline)  # --quick without IDs: the headline ones
    html = (out / "index.html").read_text()
    for exp_id in headline:
        assert f'<section id="{exp_id}">' in html
        assert (out / f"{exp_id}.md").is_file()
    listing = cli("reproduce", "--list")
    assert "fig3" in listing.stdout and "trace" in listing.stdout and "fig9" in listing.stdout


def test_panels_draw_every_series_and_only_those():
    import dataclasses

    from westwood.experiments import registry
    from westwood.experiments.base import Panel

    for exp in registry.EXPERIMENTS.values():
        assert not getattr(exp, "panel_problems", lambda: [])(), exp.id
    fig9 = registry.EXPERIMENTS["fig9"]
    bad = dataclasses.replace(fig9, panels=(Panel("TCPW alone", ("TCPW", "Vegas")),))
    assert bad.panel_problems()[0] == "no series 'Vegas'"
    assert "series 'Reno' in no panel" in bad.panel_problems()
    assert bad.drawn_panels() == (), "a series in no panel: one plot"
    # A copy with fewer series (a test's) keeps the panels that still hold one.
    two = dataclasses.replace(fig9, series=fig9.series[:3])
    assert [p.series for p in two.drawn_panels()] == [
        ("Reno", "NewReno", "TCPW"),
        ("TCPW",),
        ("TCPW",),
    ]


def test_every_line_of_a_figure_has_a_colour_of_its_own_but_twins(tmp_path):
    """Fig. 9's eleven lines once had two in one colour (the dashed ns2-profile baseline took
    its neighbour's); a twin (the simulator's line beside the testbed's) takes its twin's."""
    import matplotlib

    from westwood.experiments import registry
    from westwood.experiments.testbed import SIMULATOR_SUFFIX
    from westwood.papers.testbed import FIG9 as TESTBED_FIG9
    from westwood.report import plots
    from westwood.stats import MeanCI

    matplotlib.use("Agg")
    fig9 = registry.EXPERIMENTS["fig9"]
    assert len(fig9.series) == 11 and not any(s.twin_of for s in fig9.series)
    xs = list(fig9.x.values)
    cells = [[MeanCI(3, 1.0 + i, 0.1) for _ in xs] for i, _ in enumerate(fig9.series)]
    captured = {}
    real = plots._save_both

    def keep(fig, stem):
        captured["axes"] = fig.axes
        return real(fig, stem)

    plots._save_both = keep
    try:
        plots.plot_experiment(fig9, xs, cells, tmp_path / "fig9")
    finally:
        plots._save_both = real
    # Fig. 9 in three panels (eleven lines in one plot could not be read), TCPW in each; every
    # series in one at least, in the same colour wherever it is.
    axes = captured["axes"]
    assert len(axes) == 3
    colour_of = {}
    for ax in axes:
        handles, labels = ax.get_legend_handles_labels()
        assert "TCPW" in labels, labels
        for handle, label in zip(handles, labels):
            colour = str(handle.lines[0].get_color())
            assert colour_of.setdefault(label, colour) == colour, label
    assert sorted(colour_of) == sorted(s.label for s in fig9.series)
    # One y axis for all, from 0 to above the highest line (a limit set on the first panel
    # once clipped the lines of the others).
    top = max(c.mean + c.half_width for row in cells for c in row)
    assert all(ax.get_ylim()[0] == 0 and ax.get_ylim()[1] >= top for ax in axes)
    colours = set(colour_of.values())
    assert len(colours) == 11, colours
    doubled = TESTBED_FIG9.as_sweep(False).series
    for s in doubled:
        if s.label.endswith(SIMULATOR_SUFFIX):
            assert s.twin_of == s.label[: -len(SIMULATOR_SUFFIX)]
