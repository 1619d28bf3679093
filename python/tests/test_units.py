"""Pure-Python pieces: statistics, overrides, the experiment registry, cache keys, paths."""

from __future__ import annotations

import errno
import io
import math
import os
import pickle
from pathlib import Path

import pytest

from conftest import ENOSPC_TEXT, dir_entries, fill_disk
from westwood import checks, files, messages, stats
from westwood.errors import UsageError, WriteError
from westwood.experiments import base, registry
from westwood.files import staged_directory
from westwood.overrides import OverrideError, merge, normalize, parse_assignment
from westwood.paths import PACKAGE_SCENARIOS, resolve_scenario
from westwood.progress import Progress, format_duration
from westwood.runs import store


@pytest.mark.parametrize(
    "df, expected",
    [
        (1, 12.7062),
        (2, 4.3027),
        (3, 3.1824),
        (5, 2.5706),
        (10, 2.2281),
        (30, 2.0423),
        (120, 1.9799),
    ],
)
def test_t_quantile_matches_tables(df, expected):
    assert stats.t_quantile(0.95, df) == pytest.approx(expected, abs=1e-4)


def test_t_quantile_other_levels():
    assert stats.t_quantile(0.99, 5) == pytest.approx(4.0321, abs=1e-4)
    assert stats.t_quantile(0.90, 1) == pytest.approx(6.3138, abs=1e-4)
    with pytest.raises(ValueError):
        stats.t_quantile(1.0, 3)


def test_mean_ci():
    ci = stats.mean_ci([1.0, 2.0, 3.0])
    assert ci.n == 3 and ci.mean == 2.0
    assert ci.half_width == pytest.approx(4.3027 * 1.0 / math.sqrt(3), rel=1e-4)
    assert ci.low < 2.0 < ci.high
    one = stats.mean_ci([5.0])
    assert one.mean == 5.0 and math.isnan(one.half_width)
    assert stats.mean_ci([]).n == 0
    assert stats.mean_ci([2.0, 2.0]).half_width == 0.0


def test_parse_assignment():
    assert parse_assignment("loss=1%") == ("loss", "1%")
    assert parse_assignment("links.wired.rate = 10 Mbps") == ("links.wired.rate", "10 Mbps")
    assert parse_assignment("x=a=b") == ("x", "a=b")
    for bad in ("loss", "=3", ""):
        with pytest.raises(OverrideError):
            parse_assignment(bad)
    assert issubclass(OverrideError, UsageError)


def test_normalize_and_merge():
    assert normalize(None) == []
    assert normalize({"a": 1, "b": 0.5}) == [("a", "1"), ("b", "0.5")]
    assert normalize([("a", True)]) == [("a", "True")]
    with pytest.raises(OverrideError):
        normalize(["abc"])
    assert merge({"a": 1, "b": 2}, [("a", 3)]) == [("a", "3"), ("b", "2")]


def test_normalize_takes_a_string_as_one_assignment():
    """Iterating a string yields characters: "loss=1%" must not become override 'l', nor a
    two-character string a (key, value) pair."""
    assert normalize("loss=1%") == [("loss", "1%")]
    assert normalize(["loss=1%", ("cc", "reno")]) == [("loss", "1%"), ("cc", "reno")]
    for bad in ("loss", ["ab"], [("a", "b", "c")], [5]):
        with pytest.raises(OverrideError, match="override"):
            normalize(bad)
    for bad in (5, b"loss=1%"):
        with pytest.raises(TypeError, match="overrides must be"):
            normalize(bad)


def test_counts_reject_bools_and_strings():
    assert checks.count(3, "seeds") == 3
    for bad in (True, "2", 2.0):
        with pytest.raises(TypeError, match="seeds must be an integer"):
            checks.count(bad, "seeds")
    with pytest.raises(UsageError, match="seeds must be at least 1, not 0"):
        checks.count(0, "seeds")
    assert "…" in checks.describe("x" * 1000) and len(checks.describe("x" * 1000)) < 80


def test_axis_values_and_overrides():
    axis = base.Axis("loss", (0, 0.5, 1, 2, 3), "Packet error rate", "%")
    assert axis.values_for(False) == (0, 0.5, 1, 2, 3)
    assert axis.values_for(True) == (0, 1, 3)
    assert base.Axis("x", (1, 2, 3, 4), "x").values_for(True) == (1, 3, 4)
    assert axis.override(0.5) == ("loss", "0.5%")
    assert axis.override(2.0) == ("loss", "2%")
    assert axis.axis_label == "Packet error rate (%)"


def test_fig9_registry_entry():
    fig9 = registry.EXPERIMENTS["fig9"]
    assert fig9.scenario == "wireless" and fig9.x.parameter == "loss"
    assert fig9.x.values == (0, 0.5, 1, 1.5, 2, 3, 4, 5)
    assert [s.overrides["cc"] for s in fig9.series] == [
        "reno",
        "newreno",
        "westwood",
        "westwood-tr",
        "westwood-abse",
        "westwood-plus",
        "sack",  # "TCPW gains up to 394% over Reno or SACK"
        "westwood",  # with tcp.westwood = { sample = "interval" }
        "westwood-ucla",
        "westwood-ucla-nr",
        "reno",  # as ns-2.35 runs it: the UCLA agents' baseline
    ]
    assert fig9.series[10].overrides["tcp.profile"] == "ns2"
    assert fig9.series[7].overrides["tcp.westwood"] == '{ sample = "interval" }'
    assert fig9.x.values_for(True) == fig9.x.values  # runs are cheap: the full axis in quick
    assert fig9.seeds >= 3
    full = dict(fig9.run_overrides(1.5, fig9.series[1], quick=False))
    assert full == {"cc": "newreno", "loss": "1.5%"}
    quick = dict(fig9.run_overrides(1.5, fig9.series[0], quick=True, extra=[("cc", "x")]))
    assert quick == {"cc": "x", "loss": "1.5%", "duration": fig9.quick_duration}
    assert registry.get([]) == list(registry.EXPERIMENTS.values())
    assert registry.get(["fig9", "fig9"]) == [fig9]
    assert [e.id for e in registry.get([])][:2] == ["fig3", "fig4"]  # the paper's order: §4 first
    with pytest.raises(UsageError, match="fig0"):
        registry.get(["fig0"])


def test_cache_key():
    k = store.cache_key("fig9", [("loss", "1%"), ("cc", "reno")], 1)
    assert k == store.cache_key("fig9", [("cc", "reno"), ("loss", "1%")], 1)
    assert k != store.cache_key("fig9", [("loss", "1%"), ("cc", "reno")], 2)
    assert k != store.cache_key("fig9", [("loss", "2%"), ("cc", "reno")], 1)
    assert k != store.cache_key("fig10", [("loss", "1%"), ("cc", "reno")], 1)


def test_plan_covers_grid():
    fig9 = registry.EXPERIMENTS["fig9"]
    specs = store.plan(fig9, quick=False, seeds=3)
    # 7 protocols (with SACK) + 3 other TCPWs + ns-2.35's Reno (which_tcpw.py)
    assert len(specs) == 8 * 11 * 3
    assert len({s.key for s in specs}) == len(specs)
    assert {s.seed for s in specs} == {1, 2, 3}
    assert Path(specs[0].scenario_path).name == "wireless.toml"


def test_resolve_scenario(tmp_path: Path, monkeypatch):
    (tmp_path / "alpha.toml").write_text("")
    monkeypatch.setenv("WESTWOOD_SCENARIOS", str(tmp_path))
    assert resolve_scenario("alpha") == tmp_path / "alpha.toml"
    assert resolve_scenario("alpha.toml") == tmp_path / "alpha.toml"
    assert resolve_scenario(tmp_path / "alpha.toml") == tmp_path / "alpha.toml"
    assert resolve_scenario("wireless").name == "wireless.toml"
    with pytest.raises(FileNotFoundError, match="beta"):
        resolve_scenario("beta")
    with pytest.raises(FileNotFoundError):
        resolve_scenario(str(tmp_path / "sub" / "alpha.toml"))


def test_resolve_scenario_order(tmp_path: Path, monkeypatch):
    """$WESTWOOD_SCENARIOS beats ./scenarios, which beats the package's own files."""
    env, cwd = tmp_path / "env", tmp_path / "cwd"
    (cwd / "scenarios").mkdir(parents=True)
    env.mkdir()
    (cwd / "scenarios" / "wireless.toml").write_text("")
    monkeypatch.chdir(cwd)
    monkeypatch.delenv("WESTWOOD_SCENARIOS", raising=False)
    assert resolve_scenario("wireless") == cwd / "scenarios" / "wireless.toml"
    (env / "wireless.toml").write_text("")
    monkeypatch.setenv("WESTWOOD_SCENARIOS", str(env))
    assert resolve_scenario("wireless") == env / "wireless.toml"
    assert resolve_scenario("dumbbell") == PACKAGE_SCENARIOS / "dumbbell.toml"


def test_resolve_scenario_suggests_close_names():
    with pytest.raises(FileNotFoundError, match="did you mean wireless"):
        resolve_scenario("wirless")


def test_staged_directory(tmp_path: Path):
    out = tmp_path / "out"
    with pytest.raises(RuntimeError):
        with staged_directory(out) as stage:
            (stage / "a.txt").write_text("partial")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
    with staged_directory(out) as stage:
        (stage / "a.txt").write_text("done")
    assert (out / "a.txt").read_text() == "done"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_progress_line():
    stream = io.StringIO()
    p = Progress(4, cached=1, stream=stream, interval=0)
    assert p.eta_seconds() is None
    p.advance()
    p.advance()
    p.advance()
    text = stream.getvalue()
    assert "4/4 runs (1 cached)" in text and "ETA 0:00" in text
    assert format_duration(3725) == "1:02:05" and format_duration(65) == "1:05"


def test_cache_key_changes_with_the_scenario_file(tmp_path):
    scenario = tmp_path / "s.toml"
    scenario.write_text("a = 1\n")
    before = store.cache_key("fig9", [("loss", "1%")], 1, str(scenario))
    scenario.write_text("a = 2\n")
    store._file_digest.cache_clear()
    assert store.cache_key("fig9", [("loss", "1%")], 1, str(scenario)) != before


def test_atomic_write_on_a_full_disk_names_the_file_and_keeps_the_old_one(
    tmp_path: Path, monkeypatch
):
    target = tmp_path / "report.md"
    target.write_text("old")
    fill_disk(monkeypatch, tmp_path)
    with pytest.raises(WriteError) as info:
        files.write_text_atomic(target, "new")
    assert str(info.value) == f"cannot write {target}: {ENOSPC_TEXT}"
    assert isinstance(info.value, OSError) and info.value.errno == errno.ENOSPC
    assert target.read_text() == "old" and dir_entries(tmp_path) == ["report.md"]


def test_staged_write_error_names_the_file_in_the_output_directory(tmp_path: Path):
    out = tmp_path / "out"
    with pytest.raises(WriteError) as info:
        with staged_directory(out) as stage:
            with files.writing(stage / "flows.csv"):
                raise OSError(errno.EROFS, os.strerror(errno.EROFS))
    assert str(info.value) == f"cannot write {out / 'flows.csv'}: {os.strerror(errno.EROFS)}"
    assert dir_entries(tmp_path) == []


def test_write_error_crosses_process_boundaries():
    """A worker's failed commit reaches the driver pickled: it must stay a WriteError."""
    err = WriteError(errno.ENOSPC, ENOSPC_TEXT, "/store/runs/abc.json")
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is WriteError and str(again) == str(err) and again.errno == errno.ENOSPC


def test_clip_long_values_shortens_values_not_messages():
    big = "x" * 100_000
    clipped = "x" * messages.KEEP + "… (100000 bytes)"
    assert messages.clip_long_values(f'rate: "{big}" is not a rate') == (
        f'rate: "{clipped}" is not a rate'
    )
    assert messages.clip_long_values(f"--set '{big}': expected KEY=VALUE") == (
        f"--set '{clipped}': expected KEY=VALUE"
    )
    assert messages.clip_long_values(f"--set {big}: unknown parameter") == (
        f"--set {clipped}: unknown parameter"
    )
    prose = "it's a message of many words, none of them long, that goes on " * 5
    assert messages.clip_long_values(prose) == prose
    many = messages.clip_long_values("a b " * 100_000)
    assert len(many) < messages.MAX_MESSAGE + 30 and many.endswith("(400000 bytes)")
    assert messages.clip("é" * 300, 2) == "éé… (600 bytes)"


def test_a_missing_linux_tool_in_an_installed_package_says_how_to_get_it(monkeypatch):
    """From a wheel there is no repository: the message gives the one build command and where
    to put the result, never a bare "not found"."""
    from westwood.binaries import BinaryNotFound, RustBinary

    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("WESTWOOD_TEST_BIN", raising=False)
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    hint = "cargo build --release -p x"
    tool = RustBinary("westwood-nothing", "WESTWOOD_TEST_BIN", hint, "clang")
    with pytest.raises(BinaryNotFound) as caught:
        tool.find(None)
    message = str(caught.value)
    assert "westwood-nothing is not part of this installation of westwood" in message
    assert "install a wheel built with `make wheel`" in message
    assert "`cargo build --release -p x`" in message and "WESTWOOD_TEST_BIN" in message
