//! What a run says about scenarios that defeat themselves, and the measurements that show it:
//! the per-flow stall (`stall.rs`), the summary's warnings and strict runs (`warnings.rs`),
//! random outage phases and random flow starts.

use westwood_simulator::model::{FlowStart, Scenario, NANOS_PER_SECOND};
use westwood_simulator::results::{RunResult, WarningKind};
use westwood_simulator::scenario::load_str;
use westwood_simulator::{run, run_with, RunControl, RunError, RunOptions};

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
    assert!(result.summary.warnings.is_empty(), "{:?}", result.summary.warnings);
}

#[test]
fn a_flow_whose_path_goes_down_stalls_at_least_as_long() {
    // The last hop loses everything from 10 s to 15 s (one outage of a 60 s period).
    let outage = "errors = { model = \"outage\", period = \"60s\", duration = \"5s\", offset = \"10s\" }";
    let result = simulate(&load(&path("30s", outage, ""), &[]));
    let flow = &result.summary.flows[0];
    assert!(flow.longest_stall_seconds >= 5.0, "stall {}", flow.longest_stall_seconds);
    // The RTO backoff through the outage adds at most a few seconds, and the flow recovers:
    // the stall is closed, only the last round trip is open at the end.
    assert!(flow.longest_stall_seconds < 15.0, "stall {}", flow.longest_stall_seconds);
    assert!(flow.final_stall_seconds < 0.5, "open at the end {}", flow.final_stall_seconds);

    // Down for good from 10 s (an outage longer than the rest of the run): stalled to the end.
    let forever = "errors = { model = \"outage\", period = \"100s\", duration = \"90s\", offset = \"10s\" }";
    let result = simulate(&load(&path("30s", forever, ""), &[]));
    let flow = &result.summary.flows[0];
    assert!((19.9..=20.0).contains(&flow.longest_stall_seconds), "stall {}", flow.longest_stall_seconds);
    assert_eq!(flow.final_stall_seconds, flow.longest_stall_seconds, "locked out until the end");
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

/// `path` with a 0.01 ms wired hop: the round trip is 0.04 ms, so `bdp` queues come out at one
/// packet.
fn tiny_round_trip(extra_links: &str) -> String {
    path("5s", "", "").replace("delay = \"45ms\"", "delay = \"0.01ms\"") + extra_links
}

#[test]
fn a_bdp_queue_of_a_packet_or_two_is_reported_where_data_crosses_it() {
    let result = simulate(&load(&tiny_round_trip(""), &[]));
    let warnings = &result.summary.warnings;
    let links: Vec<&str> = warnings.iter().map(|w| w.link.as_deref().unwrap()).collect();
    // The data's links; not their reverse halves, which carry only ACKs.
    assert_eq!(links, ["wired", "wireless"], "{warnings:?}");
    assert!(warnings.iter().all(|w| w.kind == WarningKind::SmallBdpQueue && w.origin.is_none()));
    assert_eq!(
        warnings[1].message,
        "link 'wireless': queue \"bdp\" came out at 1 packet (2 Mbps x 0.04 ms round trip): it cannot \
         absorb a burst; give the link a queue size (queue = 20) or queue = { limit = \"bdp\", rtt = \
         \"100ms\" }"
    );
    let json = serde_json::to_value(&result.summary.warnings[0]).unwrap();
    assert_eq!(json["kind"], "small_bdp_queue");
    assert!(json["origin"].is_null());

    // Either fix silences it.
    let sized = load(&tiny_round_trip(""), &[("links.wired.queue", "20"), ("links.wireless.queue", "20")]);
    assert!(simulate(&sized).summary.warnings.is_empty());
    let with_rtt = load(
        &tiny_round_trip(""),
        &[
            ("links.wired.queue", "{ limit = \"bdp\", rtt = \"100ms\" }"),
            ("links.wireless.queue", "{ limit = \"bdp\", rtt = \"100ms\" }"),
        ],
    );
    assert!(simulate(&with_rtt).summary.warnings.is_empty());
    // So does a floor under the bandwidth-delay product: the rule stays, the queue holds a burst.
    let floored = load(
        &tiny_round_trip(""),
        &[
            ("links.wired.queue", "{ limit = \"bdp\", min = 4 }"),
            ("links.wireless.queue", "{ limit = \"bdp\", min = 4 }"),
        ],
    );
    let result = simulate(&floored);
    assert!(result.summary.warnings.is_empty(), "{:?}", result.summary.warnings);
    assert!(result.summary.links.iter().all(|l| l.queue_limit == "4 packets"), "{:?}", result.summary.links);
}

/// A 20 Mbps CBR source behind a 1 Mbps access link with a one-packet queue: 95 % of its
/// packets never leave its node.
fn flooding_source() -> String {
    path("10s", "queue = 50", "")
        + "[links.udp_access]\nfrom = \"udp_src\"\nto = \"base\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = 1\n\
           [sources.udp3]\nkind = \"cbr\"\nfrom = \"udp_src\"\nto = \"mobile\"\nrate = \"20Mbps\"\n"
}

#[test]
fn a_sender_losing_most_of_its_packets_at_its_own_first_hop_is_reported() {
    let text = flooding_source().replace(
        "nodes = [\"src\", \"base\", \"mobile\"]",
        "nodes = [\"src\", \"base\", \"mobile\", \"udp_src\"]",
    );
    let result = simulate(&load(&text, &[("links.wired.queue", "50")]));
    let [warning] = result.summary.warnings.as_slice() else { panic!("{:?}", result.summary.warnings) };
    assert_eq!(warning.kind, WarningKind::FirstHopLoss);
    assert_eq!((warning.link.as_deref(), warning.origin.as_deref()), (Some("udp_access"), Some("udp3")));
    let sent = result.summary.sources[0].packets_sent;
    assert_eq!(sent, 25_000);
    assert_eq!(
        warning.message,
        format!(
            "source 'udp3' lost 95% of its {sent} packets to overflow at link 'udp_access', the first \
             hop from its node 'udp_src' (queue 1 packet): the scenario defeats itself; give that \
             link a larger queue"
        )
    );
    // The TCP flow's own drops are elsewhere (the shared wireless hop): no warning for it.
    assert!(result.summary.warnings.iter().all(|w| w.origin.as_deref() != Some("ftp")));

    // A queue that holds the burst of a slower source: fine.
    let ok = load(&text, &[("links.wired.queue", "50"), ("sources.udp3.rate", "900kbps")]);
    assert!(simulate(&ok).summary.warnings.is_empty());
}

#[test]
fn a_tcp_flow_losing_most_of_its_segments_at_its_first_hop_is_reported() {
    // A one-packet queue in front of a link 1000 times slower than the sender could go, with a
    // receiver window that lets it send far more than the link takes: RTO-driven go-back-N
    // resends a whole window into it each time.
    let text = path(
        "30s",
        "queue = 50",
        "receiver_window = \"1MB\"\ninitial_cwnd = 100\nrto_min = \"10ms\"\nrto_initial = \"10ms\"",
    )
    .replace("rate = \"10Mbps\"\ndelay = \"45ms\"", "rate = \"10kbps\"\ndelay = \"45ms\"\nqueue = 0");
    let result = simulate(&load(&text, &[]));
    let flow = &result.summary.flows[0];
    let wired = &result.summary.links[0];
    assert!(wired.drops_overflow * 2 > flow.segments_sent, "{flow:?} {wired:?}");
    let [w] = result.summary.warnings.as_slice() else { panic!("{:?}", result.summary.warnings) };
    assert_eq!(w.kind, WarningKind::FirstHopLoss);
    assert_eq!((w.link.as_deref(), w.origin.as_deref()), (Some("wired"), Some("ftp")));
    let share = (100.0 * wired.drops_overflow as f64 / flow.segments_sent as f64).round();
    let start =
        format!("flow 'ftp' lost {share}% of its {} packets to overflow at link 'wired'", flow.segments_sent);
    assert!(w.message.starts_with(&start), "{}", w.message);
    assert!(w.message.contains("from its node 'src' (queue 0 packets)"), "{}", w.message);
    // Locked out by the backoff, as the stall shows.
    assert!(flow.longest_stall_seconds > 5.0, "{flow:?}");
}

#[test]
fn a_strict_run_refuses_before_the_run_for_a_small_bdp_queue() {
    let s = load(&tiny_round_trip(""), &[]);
    let interrupted = || panic!("a refused run never starts");
    let control = RunControl { strict: true, interrupted: Some(&interrupted), ..RunControl::default() };
    match run_with(&s, RunOptions::default(), control) {
        Err(e @ RunError::Refused { .. }) => {
            let RunError::Refused { file, warnings } = &e else { unreachable!() };
            assert_eq!(file, "test.toml");
            assert_eq!(warnings.len(), 2);
            let text = e.to_string();
            assert!(text.starts_with("test.toml: refused (strict), 2 warnings:\n  link 'wired': "), "{text}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_strict_run_refuses_after_the_run_for_first_hop_loss_and_passes_a_healthy_one() {
    let text = flooding_source().replace(
        "nodes = [\"src\", \"base\", \"mobile\"]",
        "nodes = [\"src\", \"base\", \"mobile\", \"udp_src\"]",
    );
    let s = load(&text, &[("links.wired.queue", "50")]);
    let strict = || RunControl { strict: true, ..RunControl::default() };
    match run_with(&s, RunOptions::default(), strict()) {
        Err(e @ RunError::Refused { .. }) => {
            assert!(e.to_string().starts_with("test.toml: refused (strict): source 'udp3' lost 95%"), "{e}")
        }
        other => panic!("{other:?}"),
    }
    let healthy = load(&path("5s", "", ""), &[]);
    let result = run_with(&healthy, RunOptions::default(), strict()).unwrap();
    assert!(result.summary.warnings.is_empty());
    assert_eq!(result.summary.flows, run(&healthy, RunOptions::default()).unwrap().summary.flows);
}
