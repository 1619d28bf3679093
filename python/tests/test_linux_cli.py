"""`westwood linux ...` forwards to the westwood-linux binary."""

import os
import stat

from westwood import cli, linux


def test_linux_forwards_arguments_and_exit_code(tmp_path, monkeypatch, capfd):
    fake = tmp_path / "westwood-linux"
    fake.write_text('#!/bin/sh\necho "args: $*"\nexit 3\n')
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("WESTWOOD_LINUX_BIN", str(fake))
    assert cli.main(["linux", "status", "--json"]) == 3
    assert "args: status --json" in capfd.readouterr().out


def test_missing_binary_explains_how_to_build_it(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("WESTWOOD_LINUX_BIN", str(tmp_path / "nope"))
    monkeypatch.setattr(linux, "repo_root", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CARGO_TARGET_DIR", raising=False)
    assert cli.main(["linux", "status"]) == 2
    err = capfd.readouterr().err
    assert "cargo build --release -p westwood-linux" in err
    assert os.environ["PATH"] == str(tmp_path)
