"""``westwood scenarios``: listing what bare names reach, copying one out, and the lookup order
seen from the command line (from a directory outside the clone)."""

from __future__ import annotations

from pathlib import Path

from conftest import SHORT, assert_clean_error, cli, cli_json
from westwood.catalog import read_summary
from westwood.paths import PACKAGE_SCENARIOS


def test_list_names_origin_description_parameters(tmp_path: Path):
    proc = cli("scenarios", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "wireless  [package: " in proc.stdout
    assert "2 Mbps lossy wireless hop" in proc.stdout
    assert "loss = 0%" in proc.stdout  # a parameter with its default ...
    assert "Bernoulli packet error probability" in proc.stdout  # ... and its comment


def test_read_summary_keeps_comments_and_hashes_in_strings(tmp_path: Path):
    path = tmp_path / "x.toml"
    path.write_text(
        '[scenario]\ndescription = "a # not a comment"\n[parameters]\n'
        'cc = "reno"  # the cc\nflows = 3\n[tcp]\ncc = "${cc}"\n',
        encoding="utf-8",
    )
    summary = read_summary(path)
    assert summary.description == "a # not a comment"
    assert [tuple(p) for p in summary.parameters] == [("cc", "reno", "the cc"), ("flows", "3", "")]


def test_copy_then_the_copy_wins_and_is_not_overwritten(tmp_path: Path):
    proc = cli("scenarios", "copy", "wireless", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    copy = tmp_path / "scenarios" / "wireless.toml"
    assert copy.read_text(encoding="utf-8") == (PACKAGE_SCENARIOS / "wireless.toml").read_text(
        encoding="utf-8"
    )
    copy.write_text(copy.read_text(encoding="utf-8").replace('loss = "0%"', 'loss = "3%"'))
    summary = cli_json("run", "wireless", "--set", SHORT, cwd=tmp_path)
    assert summary["parameters"]["loss"] == "3%"
    assert "[cwd: " in cli("scenarios", cwd=tmp_path).stdout
    assert_clean_error(cli("scenarios", "copy", "wireless", cwd=tmp_path), "already exists")
    assert "3%" in copy.read_text(encoding="utf-8")


def test_copy_to_a_directory_and_unknown_name(tmp_path: Path):
    proc = cli("scenarios", "copy", "dumbbell", "mine", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "mine" / "dumbbell.toml").is_file()
    assert_clean_error(cli("scenarios", "copy", "wirless", cwd=tmp_path), "did you mean wireless")
    assert_clean_error(cli("run", "wirless", cwd=tmp_path), "did you mean wireless")


def test_the_listings_as_json():
    import json

    from conftest import cli

    proc = cli("scenarios", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    wireless = next(r for r in rows if r["name"] == "wireless")
    assert wireless["description"] and {"name", "default", "comment"} <= set(
        wireless["parameters"][0]
    )
    proc = cli("reproduce", "--list", "--json")
    assert proc.returncode == 0, proc.stderr
    experiments = json.loads(proc.stdout)
    assert {"fig9", "testbed_linux"} <= {e["id"] for e in experiments}
    assert all(set(e) == {"id", "kind", "title", "paper", "headline"} for e in experiments)
    assert cli("reproduce", "--json").returncode == 2
