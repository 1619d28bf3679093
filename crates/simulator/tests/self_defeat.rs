//! What a run says about scenarios that defeat themselves, and the measurements that show it:
//! the per-flow stall (`stall.rs`), random outage phases and random flow starts.

use westwood_simulator::model::{FlowStart, Scenario, NANOS_PER_SECOND};
use westwood_simulator::results::RunResult;
use westwood_simulator::scenario::load_str;
use westwood_simulator::{run, RunOptions};

/// A 10 Mbps wired hop and a 2 Mbps last hop, one bulk flow: `scenarios/wireless.toml`'s
/// path without its errors, plus `extra` TOML.
fn path(duration: &str, wireless: &str, extra: &str) -> String {
    format!(
        "[scenario]\nduration = \"{duration}\"\n\
         [topology]\nnodes = [\"src\", \"base\", \"mobile\"]\n\
         [links.wired]\nfrom = \"src\"\nto = \"base\"\nrate = \"10Mbps\"\ndelay = \"45ms\"\n\
         [links.wireless]\nfrom = \"base\"\nto = \"mobile\"\nrate = \"2Mbps\"\ndelay = \"0.01ms\"\n{wireless}\n\
         [tcp]\nsegment_size = \"400B\"\n\
         [flows.ftp]\nfrom = \"src\"\nto = \"mobile\"\n{extra}\n"
    )
}

fn load(text: &str, overrides: &[(&str, &str)]) -> Scenario {
    let sets: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_str(text, "test.toml", &sets).unwrap_or_else(|e| panic!("{e}"))
}

fn simulate(s: &Scenario) -> RunResult {
    run(s, RunOptions { record_series: true, check_invariants: true }).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_clean_bulk_flow_stalls_for_well_under_a_second() {
    // Clean: no errors, and a receiver window (64 KB, 145 segments) the 2 Mbps hop's queue
    // holds, so nothing is ever lost.
    let result = simulate(&load(&path("30s", "queue = 200", "receiver_window = \"64KB\""), &[]));
    assert_eq!(result.summary.flows[0].retransmits, 0);
    let flow = &result.summary.flows[0];
    assert!(flow.longest_stall_seconds < 0.5, "stall {}", flow.longest_stall_seconds);
    // At least the first round trip passes before anything is acknowledged.
    assert!(flow.longest_stall_seconds >= 0.09, "stall {}", flow.longest_stall_seconds);
    assert_eq!(flow.start_seconds, 0.0);
}

#[test]
fn a_flow_whose_path_goes_down_stalls_at_least_as_long() {
    // The last hop loses everything from 10 s to 15 s (one outage of a 60 s period).
    let outage = "errors = { model = \"outage\", period = \"60s\", duration = \"5s\", offset = \"10s\" }";
    let result = simulate(&load(&path("30s", outage, ""), &[]));
    let flow = &result.summary.flows[0];
    assert!(flow.longest_stall_seconds >= 5.0, "stall {}", flow.longest_stall_seconds);
    // The RTO backoff through the outage adds at most a few seconds, and the flow recovers.
    assert!(flow.longest_stall_seconds < 15.0, "stall {}", flow.longest_stall_seconds);

    // Down for good from 10 s (an outage longer than the rest of the run): stalled to the end.
    let forever = "errors = { model = \"outage\", period = \"100s\", duration = \"90s\", offset = \"10s\" }";
    let result = simulate(&load(&path("30s", forever, ""), &[]));
    let stall = result.summary.flows[0].longest_stall_seconds;
    assert!((19.9..=20.0).contains(&stall), "stall {stall}");
}

#[test]
fn the_stall_ends_with_the_flows_active_time() {
    // Stopped at 12 s: the outage from 10 s to 40 s stalls it for the 2 s of its active time
    // left, less the last round trip's ACKs that got out before the outage.
    let outage = "errors = { model = \"outage\", period = \"60s\", duration = \"30s\", offset = \"10s\" }";
    let result = simulate(&load(&path("50s", outage, "stop = \"12s\""), &[]));
    let stall = result.summary.flows[0].longest_stall_seconds;
    assert!((1.9..=2.0).contains(&stall), "stall {stall}");
}

#[test]
fn a_random_start_is_drawn_per_flow_and_seed_and_goodput_follows_it() {
    let text = path("20s", "", "count = 3\nstart = { min = \"1s\", max = \"5s\" }");
    let starts = |seed: u64| {
        let mut s = load(&text, &[]);
        s.seed = seed; // as `--seed` sets it, after loading
        let result = simulate(&s);
        for f in &result.summary.flows {
            assert!((1.0..=5.0).contains(&f.start_seconds), "{}: {}", f.name, f.start_seconds);
            assert!((f.active_seconds - (20.0 - f.start_seconds)).abs() < 1e-9, "{}", f.name);
            let goodput = f.bytes_delivered as f64 * 8.0 / f.active_seconds;
            assert!((f.goodput_bps - goodput).abs() < 1e-6, "{}", f.name);
        }
        result.summary.flows.iter().map(|f| f.start_seconds).collect::<Vec<_>>()
    };
    let first = starts(1);
    assert_eq!(first, starts(1), "reproducible from scenario and seed");
    assert_ne!(first, starts(2), "another seed, other starts");
    assert!(first[0] != first[1] && first[1] != first[2], "each flow its own draw: {first:?}");
    let s = load(&text, &[]);
    assert_eq!(first[1], s.flows[1].start_at(1) as f64 / NANOS_PER_SECOND as f64);
    assert!(matches!(s.flows[1].start, FlowStart::Uniform { .. }));
}

/// The first instant (to the 10 ms sample) at which link `link` has dropped a packet in an outage.
fn first_outage(result: &RunResult, link: &str) -> f64 {
    let series = result.link_series.as_ref().unwrap();
    (0..series.time_seconds.len())
        .find(|&i| series.link[i] == link && series.drops_outage[i] > 0)
        .map(|i| series.time_seconds[i])
        .expect("an outage dropped something")
}

#[test]
fn a_random_outage_phase_follows_the_seed() {
    // A constant stream across the hop shows where the first outage falls.
    let outage =
        "errors = { model = \"outage\", period = \"4s\", duration = \"100ms\", offset = \"random\" }";
    let text = format!(
        "{}[sources.cbr]\nkind = \"cbr\"\nfrom = \"base\"\nto = \"mobile\"\nrate = \"100kbps\"\npacket_size = \"100B\"\n",
        path("10s", outage, "")
    );
    let phase = |seed: u64| {
        let mut s = load(&text, &[]);
        s.seed = seed;
        first_outage(&simulate(&s), "wireless")
    };
    let phases: Vec<f64> = (1..=6).map(phase).collect();
    assert!(phases.iter().all(|&p| p < 4.2), "{phases:?}");
    assert_eq!(phases[0], phase(1), "reproducible");
    let distinct: std::collections::HashSet<u64> = phases.iter().map(|p| p.to_bits()).collect();
    assert!(distinct.len() >= 5, "seeds give different phases: {phases:?}");
    // The committed default, offset 0: the first outage at once.
    let fixed = text.replace("offset = \"random\"", "offset = \"0s\"");
    assert!(first_outage(&simulate(&load(&fixed, &[])), "wireless") < 0.1);
}
