"""The reproduction report over EVERY registered experiment (all seed papers), on tiny runs: the
HTML exists, each experiment has its section and files, and every claim has a verdict."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import fake_emu_binary
from westwood.claims import VERDICTS
from westwood.experiments import base, registry
from westwood.papers import which_tcpw
from westwood.reproduce import reproduce

TINY = "10s"  # simulated time of every run (scenarios may start flows a few seconds in)


def tiny(e):
    """The experiment with quick runs of TINY seconds (its own duration parameter) and at most
    the first and last quick x values of a sweep."""
    changes = {}
    if any(f.name == "quick_duration" for f in dataclasses.fields(e)):
        changes["quick_duration"] = TINY
    x = getattr(e, "x", None)
    if isinstance(x, base.Axis):
        values = x.values_for(True)
        changes["x"] = dataclasses.replace(
            x, quick_values=tuple(dict.fromkeys((values[0], values[-1])))
        )
    if not changes:
        return e
    try:
        return dataclasses.replace(e, **changes)
    except TypeError:  # a subclass with its own __init__: copy and set the fields
        import copy

        clone = copy.copy(e)
        for name, value in changes.items():
            object.__setattr__(clone, name, value)
        return clone


def test_report_covers_every_registered_experiment(tmp_path: Path, monkeypatch):
    # The testbed experiments run against a stand-in binary (real ones: test_testbed_reproduce).
    from westwood.experiments import testbed as testbed_experiments

    fake_emu_binary.install(tmp_path, monkeypatch)
    monkeypatch.setattr(testbed_experiments, "unavailable_reason", lambda: None)
    ids = list(registry.EXPERIMENTS)
    exps = [tiny(e) for e in registry.get(ids)]
    out = tmp_path / "results"
    reproduce(exps, out, quick=True, seeds=1, jobs=2)
    html = (out / "index.html").read_text()
    md = (out / "index.md").read_text()
    manifest = json.loads((out / "index.json").read_text())
    assert sorted(manifest) == sorted(ids)
    assert which_tcpw.HEADING in md and '<section id="which-tcpw">' in html
    # Readable on a phone: a viewport, tables that scroll in their own box; a contents list;
    # sections in natural order (fig3 before fig10, as the papers number them).
    assert '<meta name="viewport"' in html and '<div class="table">' in html
    assert "<nav><h2>Contents</h2>" in html and '<a href="#fig3">' in html
    assert html.index('<section id="fig3">') < html.index('<section id="fig10">')
    for exp_id, e in registry.EXPERIMENTS.items():
        assert f'<section id="{exp_id}">' in html, exp_id
        assert exp_id in md
        assert (out / f"{exp_id}.md").is_file(), exp_id
        entry = manifest[exp_id]
        assert len(entry["claims"]) == len(e.claims), exp_id
        for claim in entry["claims"]:
            assert claim["verdict"] in VERDICTS, (exp_id, claim)
            assert claim["measured"], (exp_id, claim)
        for _, name in entry["files"]:
            assert (out / name).is_file(), (exp_id, name)
