"""``westwood run`` without argparse: ``run_command.plain_arguments`` must read every command line
it accepts exactly as the argparse parser does, and leave everything else to it; a plain run must
start without argparse, re, json, pathlib or typing (docs/performance.md); and the core's JSON
decoder, which spares a run the json module, must give what json.loads gives."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from conftest import SHORT
from westwood import _core, cli, launch
from westwood.paths import find_scenario
from westwood.run_command import plain_arguments

# Command lines (after `run`) that plain_arguments reads itself.
PLAIN = [
    ["wireless"],
    ["wireless", "--set", "loss=1%"],
    ["--set", "loss=1%", "wireless", "--set", "cc=westwood", "--set", "duration=5s"],
    ["wireless", "--set=loss=1%", "--set=cc=reno"],
    ["wireless", "--set", "note=a=b"],
    ["wireless", "--set", ""],
    ["wireless", "--seed", "7"],
    ["wireless", "--seed=0x1F"],
    ["wireless", "--seed", "18446744073709551615"],
    ["wireless", "--seed", "1_000"],
    ["wireless", "--seed", "3", "--seed", "4"],
    ["wireless", "--json"],
    ["wireless", "--out", "runs/w", "--ack-trace"],
    ["--out=runs/w", "wireless", "--out", "other"],
    ["wireless", "--check-invariants", "--json", "--json"],
    ["wireless", "--strict", "--json"],
    ["wireless", "--max-memory", "2GB"],
    ["wireless", "--max-memory=512 MiB"],
    ["scenarios/wireless.toml", "--set", "loss= 2% "],
    [""],
]

# Command lines it leaves to argparse: help, abbreviations, unknown options, captures, missing or
# extra positionals, values that look like options, bad seeds, flags given values.
DEFERRED = [
    [],
    ["--help"],
    ["wireless", "-h"],
    ["wireless", "--js"],
    ["wireless", "--se", "1"],
    ["wireless", "--no-such-option"],
    ["wireless", "--pcap", "caps"],
    ["wireless", "--pcap-links", "wired"],
    ["a", "b"],
    ["wireless", "--set"],
    ["wireless", "--set", "-x=1"],
    ["wireless", "--out", "--json"],
    ["wireless", "--seed", "-1"],
    ["wireless", "--seed", "x"],
    ["wireless", "--seed", str(2**64)],
    ["wireless", "--json=yes"],
    ["wireless", "--strict=1"],
    ["wireless", "--stric"],
    ["wireless", "--"],
    ["--", "wireless"],
    ["-1"],
]


def argparse_namespace(arguments):
    parser = cli.command_parser("run")
    return vars(parser.parse_args(arguments))


@pytest.mark.parametrize("arguments", PLAIN, ids=lambda a: " ".join(a) or "''")
def test_plain_command_lines_read_as_argparse_reads_them(arguments):
    plain = plain_arguments(arguments)
    assert plain is not None, arguments
    assert vars(plain) == argparse_namespace(arguments)


@pytest.mark.parametrize("arguments", DEFERRED, ids=lambda a: " ".join(a) or "none")
def test_other_command_lines_are_left_to_argparse(arguments):
    assert plain_arguments(arguments) is None


def test_every_run_option_is_known_to_the_reader_or_left_to_argparse():
    """An option added to the run parser but not to the reader is left to argparse (safe); one
    the reader knows must exist in the parser under the same name."""
    parser = cli.command_parser("run")
    options = {s for action in parser._actions for s in action.option_strings}
    from westwood import run_command

    assert set(run_command._VALUED) | set(run_command._FLAGS) | {"--set"} <= options
    assert set(run_command._defaults()) == set(argparse_namespace(["wireless"]))


def test_deferred_command_lines_get_argparse_messages(capsys):
    assert launch.main(["run", "wireless", "--seed", "-1"]) == 2
    assert "argument --seed: -1 is out of range" in capsys.readouterr().err
    assert launch.main(["run", "wireless", "--se", "1"]) == 2
    assert "ambiguous option: --se" in capsys.readouterr().err


def test_launch_and_the_full_command_line_print_the_same_run(capsys):
    arguments = ["run", "wireless", "--set", SHORT, "--set", "loss=1%", "--seed", "3", "--json"]
    assert launch.main(arguments) == 0
    fast = json.loads(capsys.readouterr().out)
    assert cli.main(arguments) == 0
    full = json.loads(capsys.readouterr().out)
    for summary in (fast, full):
        summary.pop("wall_seconds")
    assert fast == full and fast["seed"] == 3


def test_launch_reports_input_errors_as_the_command_line_does(capsys):
    assert launch.main(["run", "no-such-scenario-xyz"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("westwood: error: no-such-scenario-xyz: scenario not found"), err
    assert launch.main(["run", "wireless", "--set", "nokey"]) == 2
    assert "westwood: error: --set 'nokey': expected KEY=VALUE" in capsys.readouterr().err
    assert launch.main(["run", "wireless", "--ack-trace"]) == 2
    assert "--ack-trace writes DIR/acks.csv, so it needs --out DIR" in capsys.readouterr().err


SLOW_TO_IMPORT = ("argparse", "re", "json", "pathlib", "typing", "enum", "gettext", "locale")


def test_a_plain_run_imports_no_parser_and_no_slow_module():
    code = (
        "import contextlib, io, sys\n"
        "before = set(sys.modules)\n"
        "from westwood.launch import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['run', 'wireless', '--set', {SHORT!r}, '--seed', '2']) == 0\n"
        f"print(sorted(m for m in {SLOW_TO_IMPORT!r} if m in sys.modules and m not in before))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_the_console_script_and_python_m_use_the_launcher():
    from importlib.metadata import entry_points

    (script,) = [e for e in entry_points(group="console_scripts") if e.name == "westwood"]
    assert script.value == "westwood.launch:main"
    proc = subprocess.run(
        [sys.executable, "-m", "westwood", "run", "wireless", "--set", SHORT],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("flow  cc")


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "b": [1.5, -2, 0.1, 1e-7, 5e-324, 1.7976931348623157e308], "c": null}',
        '{"z": true, "a": false, "m": {"y": 2, "x": [{}, []]}, "s": "caf\\u00e9 \\"q\\" \\n"}',
        "[18446744073709551615, -9223372036854775808, 0, -0.0, 2.5e-3, 123456789.123456789]",
        '{"k": 1, "k": 2, "j": 3}',
        '"just a string"',
        "3.141592653589793",
        "  [1, 2]  ",
    ],
)
def test_the_cores_json_decoder_gives_what_json_loads_gives(text):
    decoded, expected = _core.json_loads(text), json.loads(text)
    assert decoded == expected
    assert json.dumps(decoded) == json.dumps(expected)  # key order, and ints stay ints
    assert repr(decoded) == repr(expected)  # floats to the last bit


def test_the_cores_json_decoder_decodes_a_whole_summary_alike():
    wireless = find_scenario("wireless")
    summary_json, _, _ = _core.run(wireless, [("duration", "20s"), ("loss", "1%")])
    decoded, expected = _core.json_loads(summary_json), json.loads(summary_json)
    assert json.dumps(decoded) == json.dumps(expected)
    assert all(
        math.isnan(a) and math.isnan(b) or a == b
        for a, b in zip(_floats(decoded), _floats(expected))
    )


def _floats(value):
    if isinstance(value, float):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _floats(item)
    elif isinstance(value, list):
        for item in value:
            yield from _floats(item)


@pytest.mark.parametrize("text", ["", "{", "[1,]", "{} {}", "nul", '{"a" 1}'])
def test_the_cores_json_decoder_refuses_what_is_not_json(text):
    with pytest.raises(ValueError, match="invalid JSON"):
        _core.json_loads(text)
