//! The random send overhead (`[tcp] overhead`, docs/scenarios.md "Random send overhead"): off it
//! changes nothing; on, every data segment leaves its node in order within `overhead` of being
//! emitted, RTT samples run from when it left, runs are a function of the seed; and it removes
//! the drop-tail phase effect (Floyd & Jacobson 1992) that locks one of two NewReno flows out
//! on seed 004's LAN.

use std::path::PathBuf;

use westwood_simulator::model::{Nanos, Scenario};
use westwood_simulator::network::{Packet, PacketKind};
use westwood_simulator::pcap::PacketTap;
use westwood_simulator::results::Summary;
use westwood_simulator::{run, run_with, run_with_ack_trace, scenario, RunControl, RunOptions};
use westwood_trace::AckRecord;

const CHECKED: RunOptions = RunOptions { record_series: false, check_invariants: true };

/// Two senders into one receiver through a 10 Mb/s bottleneck of 20 packets: `{tcp}` is added
/// to `[tcp]`, `{flow}` to each flow's table.
fn line(tcp: &str, flow: &str) -> Scenario {
    let text = format!(
        r#"
[scenario]
name = "overhead"
duration = "10s"
seed = 1

[topology]
nodes = ["a", "b", "router", "dst"]

[links.a]
from = "a"
to = "router"
rate = "1Gbps"
delay = "1ms"
queue = 1000

[links.b]
from = "b"
to = "router"
rate = "1Gbps"
delay = "1ms"
queue = 1000

[links.bottleneck]
from = "router"
to = "dst"
rate = "10Mbps"
delay = "5ms"
queue = 20

[tcp]
cc = "newreno"
{tcp}

[flows.one]
from = "a"
to = "dst"
{flow}

[flows.two]
from = "b"
to = "dst"
{flow}
"#
    );
    scenario::load_str(&text, "overhead.toml", &[]).unwrap_or_else(|e| panic!("{e}"))
}

fn scenario_file(name: &str, overrides: &[(&str, &str)]) -> Scenario {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(format!("{name}.toml"));
    let overrides: Vec<(String, String)> =
        overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    scenario::load_file(&path, &overrides).unwrap_or_else(|e| panic!("{e}"))
}

/// The summary without its wall time and seed, as JSON: equal texts are byte-identical runs.
fn summary(scenario: &Scenario) -> String {
    let mut s: Summary = run(scenario, CHECKED).unwrap_or_else(|e| panic!("{e}")).summary;
    s.wall_seconds = 0.0;
    s.seed = 0;
    serde_json::to_string(&s).unwrap()
}

#[test]
fn an_overhead_of_zero_is_the_run_without_the_key() {
    let without = line("", "");
    for zero in [r#"overhead = "0s""#, r#"overhead = "0us""#, "overhead = 0"] {
        let with = line(zero, "");
        assert_eq!(with.flows[0].tcp.overhead, 0);
        assert_eq!(summary(&with), summary(&without), "{zero}");
    }
    // A flow's own key wins over [tcp]'s, as for every tcp key.
    let s = line(r#"overhead = "1ms""#, r#"overhead = "50us""#);
    assert!(s.flows.iter().all(|f| f.tcp.overhead == 50_000));
    let s = scenario_file("seed004_lan_single", &[("tcp.overhead", "83us")]);
    assert!(s.flows.iter().all(|f| f.tcp.overhead == 83_000));
}

#[test]
fn bad_overheads_are_refused_naming_the_file_the_field_and_the_fix() {
    let refuse = |value: &str, wants: &str| {
        let text = format!(
            "[scenario]\nname = \"x\"\nduration = \"1s\"\n[topology]\nnodes = [\"a\", \"b\"]\n\
             [links.l]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
             [tcp]\noverhead = {value}\n[flows.f]\nfrom = \"a\"\nto = \"b\"\n"
        );
        let e = scenario::load_str(&text, "bad.toml", &[]).unwrap_err();
        let shown = e.to_string();
        assert!(shown.starts_with("bad.toml: tcp.overhead: "), "{value}: {shown}");
        assert!(shown.contains(wants), "{value}: {shown}");
    };
    refuse(r#""-1ms""#, "expected a non-negative duration like \"10ms\"");
    refuse("-5", "expected a duration with a unit");
    refuse("0.5", "expected a duration with a unit");
    refuse(r#""83""#, "missing unit");
    refuse(r#""1s""#, "must be less than 1s");
    refuse(r#""2min""#, "must be less than 1s");
    refuse(r#""1s""#, "\"83us\"");
}

/// Where each flow's data segments enter their first link (the sender's access link), in order.
#[derive(Default)]
struct FirstHop {
    /// (flow, seq) of the data packets starting their transmission on links 0 and 1.
    data: Vec<(u32, u64)>,
}

impl PacketTap for FirstHop {
    fn transmit(&mut self, link: u32, packet: &Packet, _: Nanos) {
        if link < 2 && packet.kind == PacketKind::Data {
            self.data.push((packet.flow, packet.seq));
        }
    }
    fn arrive(&mut self, _: u32, _: &Packet, _: Nanos) {}
    fn failed(&self) -> bool {
        false
    }
    fn take_error(&mut self) -> Option<std::io::Error> {
        None
    }
}

#[test]
fn segments_leave_in_order_within_the_overhead_and_rtt_samples_run_from_their_departure() {
    // Lossy and congested: the invariant monitor (on here) checks, for every segment held,
    // emitted <= departure <= emitted + overhead, departures in emission order (a run that
    // broke either fails), with retransmissions among them.
    for overhead in ["83us", "5ms"] {
        let lossy = line(&format!("overhead = \"{overhead}\""), "");
        let result = run(&lossy, CHECKED).unwrap_or_else(|e| panic!("{overhead}: {e}"));
        let retransmits: u64 = result.summary.flows.iter().map(|f| f.retransmits).sum();
        assert!(retransmits > 0, "{overhead}: the queue of 20 overflows, so some segments are resent");
    }

    // Without losses, the order is visible on the wire: each flow's sequence numbers only grow
    // where its segments enter the first link.
    let roomy = |tcp: &str| {
        let mut s = line(&format!("receiver_window = \"8KB\"\ndelayed_ack = false\n{tcp}"), "");
        s.duration = 2_000_000_000;
        s
    };
    let jittered = roomy(r#"overhead = "1ms""#);
    let mut tap = FirstHop::default();
    let control = RunControl { packet_tap: Some(&mut tap), ..RunControl::default() };
    let summary = run_with(&jittered, CHECKED, control).unwrap().summary;
    assert!(summary.flows.iter().all(|f| f.retransmits == 0 && f.segments_sent > 500), "{summary:?}");
    for flow in 0..2 {
        let seqs: Vec<u64> = tap.data.iter().filter(|d| d.0 == flow).map(|d| d.1).collect();
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "flow {flow} left out of order");
    }

    // RTT samples: one flow on a 1 Gb/s path with an 8 KB window and an ACK per segment, so
    // that nothing waits anywhere but behind a segment of its own (8 us each): every sample is
    // the path's RTT within a few of those. Samples taken from when segments were emitted would
    // spread over the whole overhead (1 ms) more; taken from when they left, they do not.
    let rtts = |overhead: &str| {
        let text = format!(
            "[scenario]\nname = \"rtt\"\nduration = \"2s\"\n[topology]\nnodes = [\"a\", \"b\"]\n\
             [links.l]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Gbps\"\ndelay = \"5ms\"\nqueue = 100\n\
             [tcp]\nreceiver_window = \"8KB\"\ndelayed_ack = false\noverhead = \"{overhead}\"\n\
             [flows.f]\nfrom = \"a\"\nto = \"b\"\n"
        );
        let s = scenario::load_str(&text, "rtt.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let mut rows: Vec<AckRecord> = Vec::new();
        run_with_ack_trace(&s, CHECKED, &mut rows).unwrap();
        let samples: Vec<f64> = rows.iter().filter_map(|r| r.rtt_us).collect();
        let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max = samples.iter().copied().fold(0.0, f64::max);
        (samples.len(), min, max)
    };
    let (_, base_min, base_max) = rtts("0s");
    let (n, min, max) = rtts("1ms");
    assert!(n > 1000, "{n} samples");
    assert!((min - base_min).abs() < 0.01, "the path's RTT: {min} us, {base_min} us without overhead");
    let segment_us = 1040.0 * 8.0 / 1000.0;
    assert!(base_max - base_min <= 8.0 * segment_us, "without overhead: {base_min}..{base_max} us");
    assert!(max - min <= 8.0 * segment_us, "with 1 ms of overhead the samples spread over {min}..{max} us");
}

#[test]
fn the_overhead_is_drawn_from_the_seed() {
    let on = line(r#"overhead = "100us""#, "");
    let off = line("", "");
    let with_seed = |s: &Scenario, seed: u64| Scenario { seed, ..s.clone() };
    // The file has no other random component: without the overhead every seed is the same run.
    assert_eq!(summary(&with_seed(&off, 1)), summary(&with_seed(&off, 2)));
    assert_eq!(summary(&with_seed(&on, 1)), summary(&with_seed(&on, 1)), "same seed, same run");
    assert_ne!(summary(&with_seed(&on, 1)), summary(&with_seed(&on, 2)), "another seed, another run");
    assert_ne!(summary(&on), summary(&off));
}

/// Jain's index of one run of seed 004's LAN with two NewReno flows.
fn lan_fairness(seed: u64, overhead: &str) -> f64 {
    let s = scenario_file(
        "seed004_lan_single",
        &[("n", "2"), ("cc", "newreno"), ("duration", "10s"), ("tcp.overhead", overhead)],
    );
    let summary = run(&Scenario { seed, ..s }, CHECKED).unwrap().summary;
    summary.fairness.index.expect("two flows")
}

#[test]
fn a_packet_time_of_overhead_removes_the_phase_effect_lockout_on_the_lan() {
    // Two NewReno flows through the 100 Mb/s, 2.2 ms bottleneck with a BDP drop-tail queue,
    // random starts in [0, 100 ms]: without overhead, the phases of some seeds lock one flow
    // out (Jain's index near 0.5: it gets a few per cent of the link, timing out again and
    // again); with up to one bottleneck packet time (1040 B at 100 Mb/s = 83 us) of random
    // processing time per segment, F&J's remedy, no seed does.
    let seeds = 1..=8;
    let without: Vec<f64> = seeds.clone().map(|s| lan_fairness(s, "0s")).collect();
    let with: Vec<f64> = seeds.map(|s| lan_fairness(s, "83us")).collect();
    assert!(without.iter().filter(|&&j| j < 0.6).count() >= 2, "lockouts without overhead: {without:?}");
    assert!(with.iter().all(|&j| j > 0.95), "with 83us of overhead: {with:?}");
}
