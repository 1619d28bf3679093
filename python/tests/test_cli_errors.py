"""Bad input: exit status 2, a message naming the file and field, no traceback, no output files."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import (
    ENOSPC_TEXT,
    GOOD_SCENARIO,
    SHORT,
    assert_clean_error,
    cli,
    dir_entries,
    fill_disk,
    write_scenario,
)
from westwood.cli import EXIT_USAGE, main

BAD_SCENARIOS = {
    # name: (text, words the message must contain besides the file name)
    "unknown_key": (
        GOOD_SCENARIO.replace('delay = "10ms"', 'delay = "10ms"\ncolour = "red"'),
        ["links.wired.colour", "unknown key"],
    ),
    "bad_unit": (GOOD_SCENARIO.replace('"10Mbps"', '"10Mbsp"'), ["links.wired.rate", "Mbsp"]),
    "negative_rate": (GOOD_SCENARIO.replace('"10Mbps"', '"-10Mbps"'), ["links.wired.rate"]),
    "undefined_node": (
        GOOD_SCENARIO.replace('from = "b"\nto = "c"', 'from = "b"\nto = "mars"'),
        ["links.radio.to", "mars"],
    ),
    "no_route": (
        GOOD_SCENARIO.replace('nodes = ["a", "b", "c"]', 'nodes = ["a", "b", "c", "d"]').replace(
            '[flows.bulk]\nfrom = "a"\nto = "c"', '[flows.bulk]\nfrom = "a"\nto = "d"'
        ),
        ["flows.bulk", "route"],
    ),
    "bad_toml": (GOOD_SCENARIO.replace('rate = "2Mbps"', 'rate = "2Mbps'), ["line"]),
}


def test_good_scenario_runs(good_scenario: Path, tmp_path: Path):
    """The base of the bad-input cases is itself valid (so each case tests one mistake)."""
    proc = cli("run", str(good_scenario), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert len(dir_entries(tmp_path / "out")) == 5


@pytest.mark.parametrize("case", sorted(BAD_SCENARIOS))
def test_bad_scenario(case: str, tmp_path: Path):
    text, needles = BAD_SCENARIOS[case]
    assert text != GOOD_SCENARIO
    path = write_scenario(tmp_path, f"bad_{case}", text)
    out = tmp_path / "out"
    proc = cli("run", str(path), "--out", str(out))
    assert_clean_error(proc, f"bad_{case}.toml", *needles)
    assert not out.exists()
    assert dir_entries(tmp_path) == [f"bad_{case}.toml"]  # no staging directory left either


def test_unknown_set_parameter(good_scenario: Path, tmp_path: Path):
    out = tmp_path / "out"
    out.mkdir()
    proc = cli("run", str(good_scenario), "--set", "los=1%", "--out", str(out))
    assert_clean_error(proc, "good.toml", "--set los", "loss")
    assert dir_entries(out) == []


def test_bad_set_value(good_scenario: Path):
    proc = cli("run", str(good_scenario), "--set", "loss=lots")
    assert_clean_error(proc, "good.toml", "links.radio.errors.rate", "lots")


def test_malformed_set(good_scenario: Path, tmp_path: Path):
    proc = cli("run", str(good_scenario), "--set", "loss", "--out", str(tmp_path / "out"))
    assert_clean_error(proc, "--set", "KEY=VALUE")
    assert not (tmp_path / "out").exists()


def test_missing_scenario_file(tmp_path: Path):
    proc = cli("run", str(tmp_path / "nope.toml"))
    assert_clean_error(proc, "nope.toml", "not found")
    proc = cli("run", "no_such_scenario_name")
    assert_clean_error(proc, "no_such_scenario_name", "not found")


def test_usage_errors_exit_2():
    for args in (
        ["run"],
        ["run", "wireless", "--seed", "x"],
        ["run", "wireless", "--seed", "-1"],
        ["reproduce", "--seeds", "many"],
        ["frobnicate"],
        [],
    ):
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_unknown_experiment(tmp_path: Path):
    proc = cli("reproduce", "fig999", "--out", str(tmp_path / "r"))
    assert_clean_error(proc, "fig999", "fig9")
    assert not (tmp_path / "r").exists()


def test_bench_bad_set():
    proc = cli("bench", "--set", "nonsense_parameter=3")
    assert_clean_error(proc, "nonsense_parameter")


# --- results that cannot be written ------------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["run", "wireless", "--set", SHORT],
        ["run", "wireless", "--set", SHORT, "--ack-trace"],
        ["sweep", "wireless", "--vary", "loss=0%", "--seeds", "1", "--set", SHORT],
        ["reproduce", "fig9", "--quick"],
    ],
)
def test_out_that_cannot_be_written_is_named(tmp_path: Path, args):
    """An OSError while writing says which path, not a bare ``[Errno 20] Not a directory``
    (root may write anywhere, so a file in the way stands for a read-only directory)."""
    blocker = tmp_path / "a_file"
    blocker.write_text("")
    out = blocker / "out"
    proc = cli(*args, "--out", str(out))
    assert_clean_error(proc, f"cannot write {out}: ")
    assert proc.stderr.count("\n") == 1
    assert dir_entries(tmp_path) == ["a_file"]


def test_disk_full_names_the_file_and_leaves_no_part(
    good_scenario: Path, tmp_path: Path, monkeypatch, capsys
):
    out = tmp_path / "out"
    fill_disk(monkeypatch, tmp_path)
    assert main(["run", str(good_scenario), "--out", str(out)]) == EXIT_USAGE
    captured = capsys.readouterr()
    assert captured.err == f"westwood: error: cannot write {out / 'flows.csv'}: {ENOSPC_TEXT}\n"
    assert dir_entries(tmp_path) == ["good.toml"]  # neither out nor its staging directory


# --- huge inputs -------------------------------------------------------------------------------

HUGE = "x" * 100_000  # one argument may be up to 128 KiB on Linux


@pytest.mark.parametrize(
    "args",
    [
        ["run", "wireless", "--set", f"loss={HUGE}"],  # quoted back by the core
        ["run", "wireless", "--set", f"{HUGE}=1"],  # unquoted, twice, by the core
        ["run", "wireless", "--set", HUGE],  # not KEY=VALUE: Python's message
        ["run", "wireless", "--seed", HUGE],  # argparse's message
        ["reproduce", HUGE],
    ],
)
def test_huge_inputs_are_not_echoed_whole(args):
    proc = cli(*args)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "… (100000 bytes)" in proc.stderr
    assert len(proc.stderr) < 1500, proc.stderr[:2000]


def test_huge_values_of_failed_sweep_runs_are_clipped(tmp_path: Path):
    out = tmp_path / "s"
    proc = cli("sweep", "wireless", "--vary", f"loss={HUGE}", "--seeds", "1", "--out", str(out))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "westwood: 1 of 1 runs failed:" in proc.stderr
    assert len(proc.stderr) < 1500, proc.stderr[:2000]
