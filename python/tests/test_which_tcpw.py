"""The "which TCPW" summary: every variant runs in fig. 9, fig. 10 and §4.3 with its own claim,
and the summary table finds each variant's number (and the testbed's, or its skip reason)."""

from __future__ import annotations

from westwood.experiments import registry
from westwood.papers import seed000, testbed, which_tcpw


def test_every_variant_is_a_series_and_a_claim_of_each_summary_experiment():
    labels = [v.label for v in which_tcpw.VARIANTS]
    assert labels[0] == "TCPW" and len(set(labels)) == len(labels)
    for row in which_tcpw.ROWS:
        e = registry.EXPERIMENTS[row.experiment]
        texts = [c.text for c in e.claims]
        for label in labels:
            assert row.claim(label) in texts, (row.experiment, label)
        names = [s.label for s in e.series]
        for label in labels:
            wanted = label if row.experiment != "sec4_3" else which_tcpw.mix_label(label)
            assert wanted in names, (row.experiment, wanted)
    # The testbed's claim the summary reads is the one testbed_fig9 judges.
    assert which_tcpw.TESTBED_FIG9_CLAIM in [c.text for c in testbed.FIG9.claims]


def test_variant_overrides_name_the_reference_they_follow():
    by_label = {v.label: v for v in which_tcpw.VARIANTS}
    assert by_label["TCPW"].single == {"cc": "westwood"}
    assert by_label["TCPW interval"].single["tcp.westwood"] == '{ sample = "interval" }'
    assert by_label["TCPW interval"].group_a["flows.a.westwood"] == '{ sample = "interval" }'
    # The UCLA agents run as ns-2.35 runs them, and are compared with ns-2.35's Reno.
    assert by_label["TCPW UCLA"].single == {"cc": "westwood-ucla", **which_tcpw.NS2_235}
    assert by_label["TCPW-NR UCLA"].group_a == {"cc_a": "westwood-ucla-nr", **which_tcpw.NS2_235}
    assert by_label["TCPW"].baseline == by_label["TCPW interval"].baseline == "Reno"
    assert by_label["TCPW UCLA"].baseline == which_tcpw.RENO_NS2_LABEL
    assert which_tcpw.RENO_NS2 == {"cc": "reno", **which_tcpw.NS2_235}
    for experiment in ("fig9", "fig10"):
        series = {s.label: dict(s.overrides) for s in registry.EXPERIMENTS[experiment].series}
        assert series[which_tcpw.RENO_NS2_LABEL] == which_tcpw.RENO_NS2
    # §4.3's TCPW mean counts the non-Reno flows, whichever variant the row runs.
    mix = {
        "per_cc": {
            "reno": {"flows": 10, "total_goodput_bps": 1e6},
            "westwood-ucla": {"flows": 10, "total_goodput_bps": 1.5e6},
        }
    }
    assert seed000._tcpw_mean(mix) == 1.5e5


def _claim(text, value, verdict="partly", unit=""):
    """A claim of the index as ``judge`` writes it: ``measured`` starts with the number as the
    claim formats it (a gain in %, a ratio)."""
    shown = f"{value:.0f}%" if unit == "%" else f"{value:.2f}"
    return {"claim": text, "value": value, "verdict": verdict, "measured": f"{shown} (detail)"}


def test_summary_table_puts_each_variant_beside_the_paper_and_the_testbed():
    fig9 = [
        _claim(which_tcpw.fig9_claim(v.label), 200.0 + 50 * i, unit="%")
        for i, v in enumerate(which_tcpw.VARIANTS)
    ]
    manifest = {
        "fig9": {"claims": fig9},
        "testbed_fig9": {"claims": [_claim(which_tcpw.TESTBED_FIG9_CLAIM, 1.5, "reproduced")]},
    }
    table = which_tcpw.summary_table(manifest)
    assert table["header"][:2] == ["Number", "Paper"]
    assert table["header"][2:-1] == [v.label for v in which_tcpw.VARIANTS]
    assert len(table["rows"]) == 1  # fig10 and sec4_3 did not run
    row = table["rows"][0]
    # The paper's gain, and the ratio it implies (what the testbed's claim measures).
    assert row[1] == "394% (ratio 4.94)"
    assert row[2:-1] == ["200% (partly)", "250% (partly)", "300% (partly)", "350% (partly)"]
    assert row[-1] == "1.50 (reproduced)"
    # A claim without a number says why, whatever its verdict (n/a, degenerate).
    manifest["fig9"] = {
        "claims": [
            {
                "claim": which_tcpw.fig9_claim("TCPW"),
                "value": None,
                "verdict": "n/a: degenerate",
                "measured": "degenerate — Reno at 1%: seed 3: flow ftp made no progress",
            }
        ]
    }
    row = which_tcpw.summary_table(manifest)["rows"][0]
    assert row[2].startswith("degenerate — Reno at 1%")

    # A skipped testbed says why; a variant whose claim is missing gets a dash, never a number.
    manifest["testbed_fig9"] = {"skipped": "no BPF struct_ops in this kernel"}
    manifest["fig9"] = {"claims": fig9[:1]}
    row = which_tcpw.summary_table(manifest)["rows"][0]
    assert row[-1] == "skipped: no BPF struct_ops in this kernel"
    assert row[3:-1] == ["–", "–", "–"]
    assert which_tcpw.summary_table({"fig3": {}}) is None


# A scenario that sets none of the keys NS2_235 names, so that the profile alone decides them.
BARE = """
[scenario]
name = "bare"
duration = "20s"
seed = 3
[topology]
nodes = ["a", "b", "c"]
[links.wired]
from = "a"
to = "b"
rate = "10Mbps"
delay = "45ms"
queue = "bdp"
[links.wireless]
from = "b"
to = "c"
rate = "2Mbps"
delay = "0.01ms"
queue = "bdp"
errors = { model = "bernoulli", rate = "2%", direction = "both" }
[tcp]
segment_size = "400B"
[flows.f]
from = "a"
to = "c"
"""


def test_the_ns2_settings_are_the_ns2_profile_where_a_scenario_sets_nothing(tmp_path):
    """NS2_235 spells out, as explicit keys, what `profile = "ns2"` sets: on a scenario that sets
    none of them, the profile alone and the profile with every key explicit run the same."""
    from westwood.api import run_raw

    path = tmp_path / "bare.toml"
    path.write_text(BARE)
    for cc in ("reno", "westwood-ucla", "westwood-ucla-nr"):
        alone = run_raw(path, overrides={"tcp.cc": cc, "tcp.profile": "ns2"}).summary
        spelled = run_raw(path, overrides={"tcp.cc": cc, **which_tcpw.NS2_235}).summary
        paper = run_raw(path, overrides={"tcp.cc": cc}).summary
        assert alone["flows"] == spelled["flows"], cc
        assert alone["flows"] != paper["flows"], cc  # the settings do change the run
