"""`westwood plot RUN_DIR`: window and BWE figures of a run directory, clean errors."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import assert_clean_error, cli
from westwood.errors import UsageError
from westwood.report.runplot import parse_size, plot_run

SHORT = "duration=8s"


@pytest.fixture(scope="module")
def westwood_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "ww"
    proc = cli(
        "run",
        "wireless",
        "--set",
        "cc=westwood",
        "--set",
        "loss=1%",
        "--set",
        SHORT,
        "--out",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def reno_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "reno"
    proc = cli("run", "wireless", "--set", "cc=reno", "--set", SHORT, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


def test_cli_plot_writes_figures_next_to_the_data(westwood_run: Path):
    proc = cli("plot", str(westwood_run))
    assert proc.returncode == 0, proc.stderr
    printed = [Path(line) for line in proc.stdout.splitlines()]
    flow_png, flow_svg = westwood_run / "flow_ftp.png", westwood_run / "flow_ftp.svg"
    assert flow_png in printed and flow_svg in printed
    for path in printed:
        assert path.is_file() and path.stat().st_size > 0, path
        assert path.parent == westwood_run
    assert flow_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    svg = flow_svg.read_text()
    for text in ("cwnd", "ssthresh", "BWE (Mb/s)", "segments", "Time (s)"):
        assert text in svg, text
    assert "note" not in proc.stderr  # the summary gives the segment size


def test_cli_plot_json_lists_the_figures(westwood_run: Path, tmp_path: Path):
    proc = cli("plot", str(westwood_run), "--out", str(tmp_path / "f"), "--json")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    names = sorted(Path(p).name for p in got["files"])
    assert got["notes"] == [] and {"flow_ftp.png", "flow_ftp.svg"} <= set(names), names
    assert all(Path(p).is_file() for p in got["files"])


def test_figure_axes_and_data(westwood_run: Path, tmp_path: Path):
    result = plot_run(westwood_run, out_dir=tmp_path / "figs")
    assert all(p.parent == tmp_path / "figs" for p in result.paths)
    window, bwe = result.figures["flow_ftp"].axes
    assert window.get_ylabel() == "cwnd, ssthresh (segments)"
    assert bwe.get_ylabel() == "BWE (Mb/s)" and bwe.get_xlabel() == "Time (s)"
    cwnd_line, ssthresh_line = window.get_lines()
    assert cwnd_line.get_label() == "cwnd" and ssthresh_line.get_label() == "ssthresh"
    summary = json.loads((westwood_run / "summary.json").read_text())
    assert summary["flows"][0]["segment_size"] == 400
    cwnd = cwnd_line.get_ydata()
    assert cwnd[0] == pytest.approx(4.0)  # RFC 5681 initial window of 400 B segments
    ssthresh = list(ssthresh_line.get_ydata())
    assert math.isnan(ssthresh[0])  # "unlimited" before the first loss is not drawn
    assert any(math.isfinite(s) and 1 <= s < 1000 for s in ssthresh)  # set after a loss
    bwe_values = [b for b in bwe.get_lines()[0].get_ydata() if math.isfinite(b)]
    assert bwe_values and 0.1 < max(bwe_values) < 2.5  # Mb/s on a 2 Mb/s link
    if "queues" in result.figures:
        assert result.figures["queues"].axes[0].get_ylabel() == "Queue length (packets)"


def test_reno_flow_has_no_bwe_panel(reno_run: Path, tmp_path: Path):
    result = plot_run(reno_run, out_dir=tmp_path)
    fig = result.figures["flow_ftp"]
    assert len(fig.axes) == 1
    assert "BWE" not in (tmp_path / "flow_ftp.svg").read_text()


def test_kb_when_the_summary_lacks_the_segment_size(westwood_run: Path, tmp_path: Path):
    run = tmp_path / "old"
    run.mkdir()
    for name in ("flow_series.csv", "link_series.csv"):
        (run / name).write_bytes((westwood_run / name).read_bytes())
    summary = json.loads((westwood_run / "summary.json").read_text())
    for flow in summary["flows"]:
        flow.pop("segment_size", None)
    (run / "summary.json").write_text(json.dumps(summary))
    proc = cli("plot", str(run), "--out", str(tmp_path / "figs"))
    assert proc.returncode == 0, proc.stderr
    assert "KB" in proc.stderr and "--segment-size" in proc.stderr
    svg = (tmp_path / "figs" / "flow_ftp.svg").read_text()
    assert "cwnd, ssthresh (KB)" in svg and "segment size unknown" in svg
    result = plot_run(run, out_dir=tmp_path / "figs")
    assert result.figures["flow_ftp"].axes[0].get_lines()[0].get_ydata()[0] == pytest.approx(1.6)
    forced = plot_run(run, out_dir=tmp_path / "figs", segment_size=400)
    assert forced.figures["flow_ftp"].axes[0].get_ylabel().endswith("(segments)")
    assert forced.notes == []


def test_flows_filter(westwood_run: Path, tmp_path: Path):
    proc = cli("plot", str(westwood_run), "--flows", "ftp", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "flow_ftp.svg").is_file()
    bad = cli("plot", str(westwood_run), "--flows", "ftp", "nosuch", "--out", str(tmp_path / "x"))
    assert_clean_error(bad, "nosuch", "ftp")
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize(
    "case", ["missing", "empty", "results_dir", "bad_json", "bad_csv", "cut_csv", "long_row"]
)
def test_not_a_run_directory(case: str, tmp_path: Path, westwood_run: Path):
    target = tmp_path / "d"
    if case != "missing":
        target.mkdir()
    if case == "results_dir":
        (target / "index.html").write_text("<html></html>")
    if case in ("bad_json", "bad_csv", "cut_csv", "long_row"):
        (target / "flow_series.csv").write_bytes((westwood_run / "flow_series.csv").read_bytes())
        (target / "summary.json").write_bytes((westwood_run / "summary.json").read_bytes())
    if case == "bad_json":
        (target / "summary.json").write_text("{not json")
    if case == "bad_csv":
        (target / "flow_series.csv").write_text("a,b\n1,2\n")
    series = (westwood_run / "flow_series.csv").read_text()
    if case == "cut_csv":
        # A file cut in the middle of a row (once a TypeError traceback).
        (target / "flow_series.csv").write_text(series[: len(series) // 2].rsplit(",", 3)[0])
    if case == "long_row":
        (target / "flow_series.csv").write_text(series + series.splitlines()[1] + ",1,2\n")
    proc = cli("plot", str(target))
    assert_clean_error(proc, str(target), "not a run directory")
    if case in ("cut_csv", "long_row"):
        assert "cut short or damaged" in proc.stderr
    assert not list(target.glob("*.png")) if target.exists() else True


def test_parse_size():
    assert parse_size("400") == 400
    assert parse_size("400B") == 400
    assert parse_size("1.5KB") == 1500
    assert parse_size("1KiB") == 1024
    for bad in ("", "abc", "0", "4 Mb"):
        with pytest.raises(UsageError):
            parse_size(bad)
    proc = cli("plot", "/nonexistent", "--segment-size", "x")
    assert_clean_error(proc, "--segment-size")
