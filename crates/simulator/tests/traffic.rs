//! Traffic forms beyond the static bulk flow: flows arriving during the run (seed 002 §IV-B),
//! exponential ON/OFF UDP sources, and the fairness / friendliness metrics of the summary.

use westwood_simulator::metrics;
use westwood_simulator::model::{Scenario, SourceKind};
use westwood_simulator::results::Summary;
use westwood_simulator::scenario::load_str;
use westwood_simulator::{run, RunOptions};

const S: u64 = 1_000_000_000;

fn load(text: &str, sets: &[(&str, &str)]) -> Scenario {
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_str(text, "t.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
}

fn simulate(scenario: &Scenario) -> Summary {
    let options = RunOptions { record_series: false, check_invariants: true };
    run(scenario, options).unwrap_or_else(|e| panic!("{e}")).summary
}

/// Seed 002 §IV-B shortened: the 8x8 grid, connections between random inner nodes arriving
/// every 2 s on average, each over its 4 edge-disjoint paths.
const GRID: &str = r#"
[scenario]
duration = "${duration}"
seed = 5
[parameters]
duration = "60s"
cc = "westwood"
mean_duration = "20s"
[topology]
generator = "grid"
delay = "10ms"
queue = 50
[routing]
multipath = { paths = 4, mode = "full" }
[tcp]
cc = "${cc}"
[flows.ftp]
among = "inner"
arrivals = { mean_interarrival = "2s", mean_duration = "${mean_duration}" }
"#;

#[test]
fn grid_connections_arrive_run_over_four_paths_and_close() {
    let s = load(GRID, &[]);
    let summary = simulate(&s);
    assert!(summary.flows.is_empty());
    let a = &summary.arrivals[0];
    eprintln!("{a:?}");
    // Poisson(30) arrivals in 60 s: 30 +- 5 sd.
    assert!((15..=45).contains(&a.flows_started), "{}", a.flows_started);
    assert_eq!(a.flows_started, a.flows_completed + a.flows_active_at_end);
    // With 20 s mean durations most of the flows started in the first 40 s have closed.
    assert!(a.flows_completed >= a.flows_started / 3, "{a:?}");
    // Every pair of inner nodes has four disjoint paths.
    assert_eq!(a.mean_paths, 4.0);
    assert!(a.mean_goodput_bps > 0.0 && a.bytes_delivered > 0);
    assert!(a.min_goodput_bps <= a.mean_goodput_bps && a.mean_goodput_bps <= a.max_goodput_bps);
    let index = a.fairness_index.unwrap();
    assert!(index > 1.0 / a.flows_started as f64 && index <= 1.0);
    // The same seed gives the same run; another seed other flows.
    let again = simulate(&s);
    assert_eq!(again.arrivals, summary.arrivals);
    assert_eq!(again.events, summary.events);
    let other = simulate(&load(GRID, &[("scenario.seed", "6")]));
    assert_ne!(other.arrivals[0].bytes_delivered, a.bytes_delivered);
}

#[test]
fn arrivals_between_fixed_endpoints_without_multipath() {
    let text = r#"
[scenario]
duration = "30s"
[topology]
generator = "dumbbell"
bottleneck_rate = "2Mbps"
bottleneck_delay = "20ms"
[flows.web]
from = "s1"
to = "r1"
arrivals = { mean_interarrival = "1s", mean_duration = "2s", max_flows = 10 }
"#;
    let summary = simulate(&load(text, &[]));
    let a = &summary.arrivals[0];
    assert_eq!(a.flows_started, 10);
    assert_eq!(a.mean_paths, 1.0);
    assert_eq!(a.cc, "reno");
    // At most 2 Mbps shared: the mean per-flow goodput cannot exceed the bottleneck.
    assert!(a.mean_goodput_bps > 0.0 && a.max_goodput_bps < 2e6, "{a:?}");
}

#[test]
fn arrival_tables_are_checked() {
    let base = "[scenario]\nduration = \"10s\"\n[topology]\nnodes = [\"a\", \"b\", \"c\"]\n\
                [links.l]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[flows.w]\n";
    let cases = [
        ("among = [\"a\"]\narrivals = { mean_interarrival = \"1s\", mean_duration = \"1s\" }", "flows.w.among"),
        ("from = \"a\"\nto = \"b\"\narrivals = { mean_interarrival = \"0s\", mean_duration = \"1s\" }", "flows.w.arrivals.mean_interarrival"),
        ("from = \"a\"\nto = \"b\"\narrivals = { mean_duration = \"1s\" }", "flows.w.arrivals.mean_interarrival"),
        ("from = \"a\"\nto = \"b\"\ncount = 2\narrivals = { mean_interarrival = \"1s\", mean_duration = \"1s\" }", "flows.w.count"),
        ("among = [\"a\", \"b\"]\nto = \"b\"\narrivals = { mean_interarrival = \"1s\", mean_duration = \"1s\" }", "flows.w.among"),
        ("from = \"a\"\nto = \"b\"\namong = \"x\"", "flows.w.among"),
        ("from = \"a\"\nto = \"b\"\nmultipath = { paths = 0 }", "flows.w.multipath.paths"),
        ("from = \"a\"\nto = \"b\"\nmultipath = { paths = 2, mode = \"half\" }", "flows.w.multipath.mode"),
        ("from = \"a\"\nto = \"b\"\nmultipath = { paths = 2, select = \"random\" }", "flows.w.multipath.select"),
    ];
    for (body, field) in cases {
        let err = load_str(&format!("{base}{body}\n"), "t.toml", &[]).unwrap_err();
        assert_eq!(err.field, field, "{body}: {err}");
    }
    // Loads, but c is not connected: the build says which pair has no route.
    let s = load(&format!("{base}among = [\"a\", \"b\", \"c\"]\narrivals = {{ mean_interarrival = \"1s\", mean_duration = \"1s\" }}\n"), &[]);
    let err = run(&s, RunOptions::default()).unwrap_err();
    assert!(err.field == "flows.w" && err.message.contains("'c'"), "{err}");
}

const ON_OFF: &str = r#"
[scenario]
duration = "2000s"
seed = 9
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "10Mbps"
delay = "1ms"
queue = 1000
[sources.u]
kind = "cbr"
from = "a"
to = "b"
rate = "1Mbps"
packet_size = "1000B"
on = { mean_on = "2s", mean_off = "6s" }
[sources.v]
kind = "cbr"
from = "a"
to = "b"
rate = "1Mbps"
on = { mean_on = "2s", mean_off = "6s" }
"#;

#[test]
fn exponential_on_off_sources_are_on_a_quarter_of_the_time_from_their_own_streams() {
    let s = load(ON_OFF, &[]);
    let SourceKind::Cbr { on, .. } = &s.sources[0].kind;
    let on_time: u64 = on.iter().map(|&(a, b)| b - a).sum();
    // ~250 cycles of mean 8 s; the ON fraction 2/8 has a standard error of about 0.02.
    let fraction = on_time as f64 / s.duration as f64;
    assert!((fraction - 0.25).abs() < 0.07, "ON {fraction}");
    assert!((150..=350).contains(&on.len()), "{} ON periods", on.len());
    assert_eq!(on[0].0, 0, "starts ON");
    assert!(on.windows(2).all(|w| w[0].1 <= w[1].0) && on.last().unwrap().1 <= 2000 * S);
    // Mean ON period ~2 s.
    let mean_on = on_time as f64 / on.len() as f64 / S as f64;
    assert!((mean_on - 2.0).abs() < 0.5, "mean ON {mean_on}");
    // Each source has its own stream: same parameters, different periods.
    let SourceKind::Cbr { on: other, .. } = &s.sources[1].kind;
    assert_ne!(on, other);
    // The stream depends on the seed and the name only: adding a source changes nothing.
    let alone = load(&ON_OFF[..ON_OFF.find("[sources.v]").unwrap()], &[]);
    let SourceKind::Cbr { on: same, .. } = &alone.sources[0].kind;
    assert_eq!(on, same);
    let reseeded = load(ON_OFF, &[("scenario.seed", "10")]);
    let SourceKind::Cbr { on: different, .. } = &reseeded.sources[0].kind;
    assert_ne!(on, different);
    // A run's seed (`--seed`, `seed=`) reaches the load, which draws the periods: the same
    // schedule as the file's seed set to it, not the file's own.
    let sets = westwood_simulator::scenario::with_seed(&[], Some(10));
    let run_seeded = load_str(ON_OFF, "test.toml", &sets).unwrap();
    let SourceKind::Cbr { on: run_periods, .. } = &run_seeded.sources[0].kind;
    assert_eq!((run_periods, run_seeded.seed), (different, 10));
    // The simulated source sends at its rate while ON and nothing while OFF.
    let summary = simulate(&load(ON_OFF, &[("scenario.duration", "200s")]));
    let u = &summary.sources[0];
    let on_seconds: f64 = u.on.iter().map(|[a, b]| b - a).sum();
    let expected = on_seconds * 1e6 / 8000.0;
    assert!(
        (u.packets_sent as f64 - expected).abs() <= u.on.len() as f64 + 1.0,
        "{} vs {expected}",
        u.packets_sent
    );
    assert_eq!(u.packets_received, u.packets_sent);
}

#[test]
fn summary_reports_fairness_and_per_protocol_shares() {
    // Seed 000 §4.3 in small: Reno and Westwood flows share a 2 Mbps bottleneck.
    let text = r#"
[scenario]
duration = "60s"
[topology]
generator = "dumbbell"
pairs = 4
bottleneck_rate = "2Mbps"
bottleneck_delay = "40ms"
[flows.reno]
from = "senders"
to = "receivers"
cc = "reno"
[flows.tcpw]
from = "senders"
to = "receivers"
cc = "westwood"
"#;
    let summary = simulate(&load(text, &[]));
    assert_eq!(summary.flows.len(), 8);
    let index = summary.fairness.index.unwrap();
    assert_eq!(summary.fairness.flows.len(), 8);
    assert!(index > 0.5 && index <= 1.0, "{index}");
    let goodputs: Vec<f64> = summary.flows.iter().map(|f| f.goodput_bps).collect();
    assert_eq!(metrics::jain_index(&goodputs), Some(index));
    assert_eq!(summary.per_cc.len(), 2);
    let (reno, tcpw) = (&summary.per_cc["reno"], &summary.per_cc["westwood"]);
    assert_eq!((reno.flows, tcpw.flows), (4, 4));
    let total = reno.total_goodput_bps + tcpw.total_goodput_bps;
    assert!(total > 1.6e6 && total <= 2e6, "{total}");
    assert!((reno.mean_goodput_bps * 4.0 - reno.total_goodput_bps).abs() < 1e-6);
    // A subset.
    let sub = metrics::fairness(&summary, &["reno.1", "tcpw.1"]).unwrap();
    assert_eq!(sub.flows, vec!["reno.1", "tcpw.1"]);
    let json = serde_json::to_value(&summary).unwrap();
    assert!(json["per_cc"]["westwood"]["mean_goodput_bps"].is_number());
    assert!(json["fairness"]["index"].is_number());
}

#[test]
fn the_committed_grid_scenario_is_seed_002_figure_16() {
    use westwood_simulator::model::{ArrivalEndpoints, MultipathMode, PathSelection};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/multipath_grid.toml");
    let s = westwood_simulator::scenario::load_file(&path, &[("delay".into(), "60ms".into())]).unwrap();
    assert_eq!((s.nodes.len(), s.links.len(), s.duration), (64, 224, 600 * S));
    assert!(s.links.iter().all(|l| l.rate_bps == 1_500_000 && l.delay == 60_000_000));
    let a = &s.arrivals[0];
    assert_eq!((a.mean_interarrival, a.mean_duration), (2 * S, 180 * S));
    let ArrivalEndpoints::Among(inner) = &a.endpoints else { panic!("random pairs") };
    assert_eq!(inner.len(), 36);
    let mp = a.multipath.unwrap();
    assert_eq!((mp.paths, mp.mode, mp.select), (4, MultipathMode::Full, PathSelection::Disjoint));
}
