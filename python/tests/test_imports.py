"""What the command line imports: ``westwood run`` loads only what one run needs, so its start-up
stays a few tens of milliseconds (docs/performance.md). pandas, matplotlib and dask (and
numpy, which pandas brings) are imported by the functions that use them, never by importing
the package or its command line."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import SHORT

HEAVY = ("pandas", "matplotlib", "dask", "numpy", "distributed", "pyarrow")


def loaded_after(code: str) -> list:
    """The heavy modules in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    listed = f"sorted(m for m in {HEAVY!r} if m in sys.modules)"
    probe = f"{code}\nimport json, sys\nprint(json.dumps({listed}))"
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_importing_the_command_line_imports_no_heavy_package():
    assert loaded_after("import westwood.cli") == []


def test_importing_the_package_imports_no_heavy_package():
    assert loaded_after("import westwood") == []


def test_a_run_imports_no_heavy_package():
    code = (
        "import contextlib, io, westwood.cli as c\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert c.main(['run', 'wireless', '--set', {SHORT!r}]) == 0\n"
        f"    assert c.main(['run', 'wireless', '--json', '--set', {SHORT!r}]) == 0\n"
    )
    assert loaded_after(code) == []


def test_the_public_names_load_when_used():
    code = (
        "import westwood\n"
        "from westwood import ScenarioError, run, sweep, replay, RunResult, SweepResult\n"
        "assert westwood.run is run and issubclass(ScenarioError, Exception)\n"
        "assert set(westwood.__all__) <= set(dir(westwood))\n"
        "try:\n"
        "    westwood.no_such_name\n"
        "except AttributeError:\n"
        "    pass\n"
        "else:\n"
        "    raise SystemExit('no AttributeError')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_each_command_parser_is_the_full_parsers_sub_parser():
    """``westwood COMMAND ...`` is parsed by the command's parser alone (``cli.command_parser``),
    which must say and accept exactly what the full parser's sub-parser does."""
    from westwood import cli

    full = cli.build_parser()
    (subparsers,) = [a for a in full._actions if isinstance(a, cli.argparse._SubParsersAction)]
    commands = [name for name, _, _ in cli.COMMANDS] + [name for name, _ in cli.MODULE_COMMANDS]
    assert {"run", "bench", "reproduce", "sweep", "analyze", "measure"} <= set(commands)
    for name in commands:
        alone, sub = cli.command_parser(name), subparsers.choices[name]
        assert alone.prog == sub.prog == f"westwood {name}"
        assert alone.format_help() == sub.format_help(), name
        assert alone.format_usage() == sub.format_usage(), name
    assert cli.command_parser("no-such-command") is None


def test_unknown_arguments_are_reported_by_the_full_parser(capsys):
    from westwood import cli

    assert cli.main(["run", "wireless", "--no-such-option"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: westwood [-h]"), err
    assert "westwood: error: unrecognized arguments: --no-such-option" in err


def test_a_run_loads_neither_the_run_engine_nor_the_analysis():
    """A single run needs neither the sweep/reproduction engine nor the capture analysis (nor
    the dataclasses, tempfile and shutil they bring): each costs start-up milliseconds."""
    code = (
        "import contextlib, io, sys, westwood.cli as c\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert c.main(['run', 'wireless', '--set', {SHORT!r}]) == 0\n"
        "unwanted = ('westwood.measure.analyze', 'westwood.runs', 'westwood.sweeps',\n"
        "            'westwood.files', 'dataclasses', 'tempfile')\n"
        "print([m for m in unwanted if m in sys.modules])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_measure_analyze_is_the_function_however_it_was_first_imported():
    """``westwood.measure.analyze`` is the function (docs/measurement.md), loaded lazily, even
    when the submodule of the same name was imported first (as `westwood analyze` does)."""
    for first in (
        "import westwood.measure",
        "import westwood.measure.analyze",
        "import importlib; importlib.import_module('westwood.measure.analyze')",
        "from westwood.measure import measure",
    ):
        code = (
            f"{first}\nimport westwood.measure as m\nfrom westwood.measure import analyze\n"
            "assert callable(analyze) and m.analyze is analyze and analyze.__name__ == 'analyze'\n"
            "assert m.Analysis.__name__ == 'Analysis'\n"
        )
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert proc.returncode == 0, (first, proc.stderr)


def test_importing_the_replay_submodule_leaves_the_replay_function():
    code = (
        "import westwood\n"
        "from westwood.replay import ReplayResult\n"
        "import westwood.replay\n"
        "assert callable(westwood.replay), westwood.replay\n"
        "assert westwood.replay.__name__ == 'replay'\n"
    )
    assert loaded_after(code) == []
