//! A few committed scenarios, shortened, must give the summaries in `tests/golden/`, byte for
//! byte (wall time aside): a refactoring of the simulator may move code, not change a result.
//!
//! The cases cover every congestion control family, every loss recovery, each channel error
//! model (Bernoulli, Gilbert-Elliott, outages), UDP sources, queue overflow and multipath. When a
//! change is meant to alter results, regenerate the files with `WESTWOOD_BLESS=1 cargo test -p
//! westwood-simulator --test golden_summaries` and say why in the commit.

use std::path::PathBuf;

use westwood_simulator::scenario::load_file;
use westwood_simulator::{run, RunOptions};

/// A golden summary's case: (golden file, scenario file, overrides).
type Case = (&'static str, &'static str, &'static [(&'static str, &'static str)]);

const CASES: &[Case] = &[
    ("wireless_reno", "wireless.toml", &[("duration", "20s"), ("loss", "1%")]),
    ("wireless_westwood", "wireless.toml", &[("duration", "20s"), ("loss", "1%"), ("cc", "westwood")]),
    (
        "wireless_abse_newreno",
        "wireless.toml",
        &[("duration", "20s"), ("loss", "2%"), ("cc", "westwood-abse")],
    ),
    ("wireless_plus", "wireless.toml", &[("duration", "20s"), ("loss", "1%"), ("cc", "westwood-plus")]),
    ("wireless_ucla", "wireless.toml", &[("duration", "20s"), ("loss", "1%"), ("cc", "westwood-ucla")]),
    ("wireless_tr", "wireless.toml", &[("duration", "20s"), ("loss", "1%"), ("cc", "westwood-tr")]),
    ("wireless_sack", "wireless.toml", &[("duration", "20s"), ("loss", "2%"), ("cc", "sack")]),
    ("wireless_tahoe", "wireless.toml", &[("duration", "20s"), ("loss", "2%"), ("cc", "tahoe")]),
    ("wireless_cubic", "wireless.toml", &[("duration", "20s"), ("loss", "0.5%"), ("cc", "cubic")]),
    ("udp_onoff", "udp_onoff.toml", &[("duration", "30s")]),
    ("gilbert", "seed000_gilbert.toml", &[("duration", "30s"), ("cc", "westwood")]),
    ("leo_outages", "seed000_leo.toml", &[("duration", "30s")]),
    ("dumbbell_overflow", "dumbbell.toml", &[("duration", "10s"), ("flows", "3")]),
    ("multipath", "multipath.toml", &[("duration", "10s")]),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The summary of one case as committed: pretty JSON, wall time zeroed.
fn summary_json(scenario: &str, overrides: &[(&str, &str)]) -> String {
    let sets: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let path = root().join("../../scenarios").join(scenario);
    let scenario = load_file(&path, &sets).unwrap_or_else(|e| panic!("{e}"));
    let mut summary = run(&scenario, RunOptions::default()).unwrap_or_else(|e| panic!("{e}")).summary;
    summary.wall_seconds = 0.0;
    serde_json::to_string_pretty(&summary).unwrap() + "\n"
}

#[test]
fn shortened_scenarios_give_their_golden_summaries() {
    let bless = std::env::var_os("WESTWOOD_BLESS").is_some();
    let mut differ = Vec::new();
    for (name, scenario, overrides) in CASES {
        let got = summary_json(scenario, overrides);
        let file = root().join("tests/golden").join(format!("{name}.json"));
        if bless {
            std::fs::write(&file, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        if got != want {
            differ.push(*name);
        }
    }
    assert!(differ.is_empty(), "summaries differ from tests/golden/: {differ:?}");
}
