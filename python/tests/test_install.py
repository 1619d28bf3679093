"""The wheel works installed anywhere (issue #18): build it with maturin, install it into a fresh
venv outside the clone, and run the CLI from there, with no PYTHONPATH and no ./scenarios, so
that bare scenario names can only come from the package data.

Slow (a release build and a pip install of numpy/pandas/matplotlib/pyarrow: minutes), so the
whole module shares one build and one venv. Skipped only when maturin is not installed;
``-m "not install"`` deselects it.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from conftest import REPO

pytestmark = [
    pytest.mark.install,
    pytest.mark.skipif(
        importlib.util.find_spec("maturin") is None, reason="maturin is not installed"
    ),
]


def _check(cmd, **kwargs) -> subprocess.CompletedProcess:
    """Run ``cmd``; on failure, fail the test with its output (a bare CalledProcessError hides
    why a build or install broke)."""
    proc = subprocess.run(cmd, capture_output=True, text=True, **kwargs)
    if proc.returncode != 0:
        pytest.fail(f"{cmd} exited {proc.returncode}\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """A fresh venv (no system site-packages) holding the freshly built wheel, and a working
    directory outside the clone: the paths the tests run ``westwood`` with."""
    root = tmp_path_factory.mktemp("install")
    assert REPO not in root.parents, "the install must happen outside the clone"
    wheels = root / "wheels"
    # The wheel of the whole product: the simulator and the Linux tools (README.md, `make wheel`).
    _check(["make", "wheel", f"WHEEL_DIR={wheels}"], cwd=REPO, timeout=3600)
    (wheel,) = wheels.glob("westwood-*.whl")
    venv = root / "venv"
    _check([sys.executable, "-m", "venv", str(venv)], timeout=600)
    python = venv / "bin" / "python"
    _check([str(python), "-m", "pip", "install", "--quiet", str(wheel)], timeout=3600)
    work = root / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "WESTWOOD_SCENARIOS")}
    return {
        "westwood": str(venv / "bin" / "westwood"),
        "cwd": work,
        "env": env,
        "venv": venv,
        "wheel": wheel.name,
    }


def _westwood(installed: dict, *args: str) -> subprocess.CompletedProcess:
    return _check(
        [installed["westwood"], *args], cwd=installed["cwd"], env=installed["env"], timeout=1800
    )


def test_run_by_name(installed):
    proc = _westwood(installed, "run", "wireless", "--set", "duration=5s", "--json")
    summary = json.loads(proc.stdout)
    assert summary["scenario"] == "wireless"
    assert summary["sim_seconds"] == 5.0


def test_scenarios_come_from_the_installed_package(installed):
    proc = _westwood(installed, "scenarios")
    venv = str(installed["venv"].resolve())
    line = next(x for x in proc.stdout.splitlines() if x.startswith("wireless  "))
    assert "[package: " in line and venv in line, line


def test_the_docs_come_with_the_package(installed):
    """Help texts name docs/NAME.md; after pip install there is no clone to find them in."""
    proc = _westwood(installed, "docs", "--path")
    assert str(installed["venv"].resolve()) in proc.stdout, proc.stdout
    page = _westwood(installed, "docs", "docs/testbed.md").stdout
    assert page == (REPO / "docs" / "testbed.md").read_text(encoding="utf-8")


def test_the_linux_tools_come_with_the_package(installed):
    """westwood-linux and westwood-emu travel in the wheel (issue 33: from a wheel, `westwood
    linux status` and even `westwood testbed --help` once said "not part of the installed
    westwood package")."""
    status = _westwood(installed, "linux", "status").stdout
    assert "kernel" in status and "BTF" in status, status
    for command in ("linux", "emu", "testbed"):
        assert "usage:" in _westwood(installed, command, "--help").stdout.lower()
    # Each command has its own usage (issue 32).
    assert "--dry-run" in _westwood(installed, "testbed", "--help").stdout
    assert "--tau-ms" in _westwood(installed, "linux", "load", "--help").stdout


# What a manylinux wheel's ELF files may link: the glibc libraries auditwheel's manylinux
# policies allow (PEP 600 tags; every glibc system has them).
MANYLINUX_LIBRARIES = {
    "libc.so.6",
    "libm.so.6",
    "libgcc_s.so.1",
    "libpthread.so.0",
    "libdl.so.2",
    "librt.so.1",
    "ld-linux-x86-64.so.2",
}


def test_the_wheel_is_manylinux_and_its_binaries_need_no_more_than_its_tag(installed):
    """maturin tags the wheel from the extension module; westwood-linux and westwood-emu travel
    in it as package data, which it does not inspect: they must link only glibc's libraries
    (libelf and zlib statically, `make wheel`) and need no newer glibc than the tag says."""
    import re

    tag = re.search(r"manylinux_(\d+)_(\d+)_x86_64", installed["wheel"])
    assert tag, f"{installed['wheel']}: not a manylinux wheel"
    allowed = (int(tag.group(1)), int(tag.group(2)))
    (package,) = installed["venv"].glob("lib/python*/site-packages/westwood")
    for name in ("westwood-linux", "westwood-emu"):
        binary = package / "bin" / name
        dynamic = _check(["readelf", "-d", str(binary)]).stdout
        needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
        assert needed and needed <= MANYLINUX_LIBRARIES, f"{name} links {needed}"
        symbols = _check(["objdump", "-T", str(binary)]).stdout
        versions = {tuple(map(int, v)) for v in re.findall(r"GLIBC_(\d+)\.(\d+)", symbols)}
        assert max(versions) <= allowed, f"{name} needs GLIBC {max(versions)}, the tag {allowed}"


@pytest.mark.skipif(os.geteuid() != 0, reason="loading eBPF and running a testbed need root")
def test_linux_load_and_a_testbed_from_the_package(installed):
    _westwood(installed, "linux", "load", "tcpw_tr")
    try:
        assert "tcpw_tr" in _westwood(installed, "linux", "status").stdout
    finally:
        _westwood(installed, "linux", "unload", "tcpw_tr")
    out = installed["cwd"] / "tb"
    _westwood(
        installed, "testbed", "wireless", "--set", "cc=reno", "--duration", "3", "--out", str(out)
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["flows"][0]["goodput_bps"] > 0, summary["flows"]


@pytest.mark.skipif(os.geteuid() != 0, reason="an emulated path needs root (namespaces)")
def test_measure_against_an_emulated_path_from_the_package(installed):
    """The papers' method (`westwood measure`) against a server behind `westwood emu path`,
    both from the installed package, from an unrelated folder."""
    out = installed["cwd"] / "m"
    westwood = installed["westwood"]
    inner = (
        f"{westwood} measure $WESTWOOD_PATH_SERVER --cc reno,cubic --duration 2s --rounds 1 "
        f"--pause 0 --out {out} --json"
    )
    link = 'rate = "10Mbps"\ndelay = "10ms"\nqueue = 100'
    _westwood(installed, "emu", "path", "--link", link, "--", "sh", "-c", inner)
    records = sorted((out / "runs").glob("*.json"))
    assert [json.loads(p.read_text())["label"] for p in records] == ["reno", "cubic"]


def test_version_names_the_engine_build(installed):
    proc = _westwood(installed, "--version")
    assert proc.stdout.startswith("westwood "), proc.stdout
    assert "(engine " in proc.stdout


def test_reproduce_quick(installed):
    out = installed["cwd"] / "fig3"
    _westwood(installed, "reproduce", "fig3", "--quick", "--out", str(out))
    assert out.is_dir() and any(out.iterdir())
