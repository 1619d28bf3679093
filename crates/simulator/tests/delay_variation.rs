//! A link's delay variation (`[links.NAME] delay_variation`, docs/scenarios.md): each packet
//! propagates for the link's delay plus a uniform draw in `[0, delay_variation]`, never
//! overtaking the packet before it; the draws are the link's own stream, a function of the
//! seed; and a link without it is what it always was.

use westwood_simulator::model::{Nanos, Scenario};
use westwood_simulator::network::{Packet, PacketKind};
use westwood_simulator::pcap::PacketTap;
use westwood_simulator::{run, run_with, scenario, RunControl, RunOptions};

const CHECKED: RunOptions = RunOptions { record_series: false, check_invariants: true };
const MS: Nanos = 1_000_000;

/// One 10 Mb/s link of 20 ms each way (`{variation}` added to its table), a flow over it with a
/// window of 64 KB and no loss.
fn path(variation: &str, seed: u64) -> Scenario {
    let text = format!(
        r#"
[scenario]
name = "variation"
duration = "5s"
seed = {seed}

[topology]
nodes = ["a", "b"]

[links.l]
from = "a"
to = "b"
rate = "10Mbps"
delay = "20ms"
queue = 1000
{variation}

[tcp]
cc = "newreno"
receiver_window = "64KB"

[flows.one]
from = "a"
to = "b"
"#
    );
    scenario::load_str(&text, "variation.toml", &[]).unwrap()
}

/// Every data packet's time on the wire: (seq, end of its transmission at 10 Mb/s, arrival),
/// in the order packets arrived.
#[derive(Default)]
struct Wire {
    started: std::collections::HashMap<u64, Nanos>,
    arrivals: Vec<(u64, Nanos, Nanos)>,
}

impl PacketTap for Wire {
    fn transmit(&mut self, link: u32, packet: &Packet, now: Nanos) {
        if link == 0 && packet.kind == PacketKind::Data {
            self.started.insert(packet.seq, now);
        }
    }
    fn arrive(&mut self, link: u32, packet: &Packet, now: Nanos) {
        if link == 0 && packet.kind == PacketKind::Data {
            let transmitted = self.started[&packet.seq] + Nanos::from(packet.size) * 800; // 10 Mb/s
            self.arrivals.push((packet.seq, transmitted, now));
        }
    }
    fn failed(&self) -> bool {
        false
    }
    fn take_error(&mut self) -> Option<std::io::Error> {
        None
    }
}

fn wire(s: &Scenario) -> Wire {
    let mut tap = Wire::default();
    let control = RunControl { packet_tap: Some(&mut tap), ..RunControl::default() };
    let summary = run_with(s, CHECKED, control).unwrap().summary;
    assert_eq!(summary.flows[0].retransmits, 0, "no loss, no reordering: nothing is resent");
    tap
}

#[test]
fn packets_are_delayed_by_up_to_the_variation_and_keep_their_order() {
    let s = path(r#"delay_variation = "10ms""#, 1);
    assert_eq!(s.links.iter().map(|l| l.delay_variation).collect::<Vec<_>>(), [10 * MS, 10 * MS]);
    let tap = wire(&s);
    assert!(tap.arrivals.len() > 1000, "{}", tap.arrivals.len());
    // In order at the far end: sequence numbers and arrival times only grow.
    assert!(tap.arrivals.windows(2).all(|w| w[0].0 < w[1].0 && w[0].2 <= w[1].2));
    // Each propagates for 20 ms and at most 10 ms more, or is held behind the one before it.
    let mut extras = Vec::new();
    let mut previous = 0;
    for &(_, transmitted, arrived) in &tap.arrivals {
        let extra = arrived - transmitted - 20 * MS;
        assert!(extra <= 10 * MS || arrived == previous, "{extra} ns more than the variation");
        if arrived != previous {
            extras.push(extra);
        }
        previous = arrived;
    }
    // The draws spread over the whole range.
    let (low, high) = (extras.iter().min().unwrap(), extras.iter().max().unwrap());
    assert!(*low < MS && *high > 9 * MS, "{low} {high}");
}

#[test]
fn the_variation_is_a_function_of_the_seed_and_absent_it_changes_nothing() {
    let arrivals = |s: &Scenario| wire(s).arrivals;
    let varied = arrivals(&path(r#"delay_variation = "10ms""#, 1));
    assert_eq!(varied, arrivals(&path(r#"delay_variation = "10ms""#, 1)));
    assert_ne!(varied, arrivals(&path(r#"delay_variation = "10ms""#, 2)));
    // None, or 0: every packet takes the delay, as before.
    let plain = run(&path("", 1), CHECKED).unwrap().summary;
    let zero = run(&path(r#"delay_variation = "0ms""#, 1), CHECKED).unwrap().summary;
    assert_eq!(format!("{:?}", plain.flows), format!("{:?}", zero.flows));
    let varied = run(&path(r#"delay_variation = "10ms""#, 1), CHECKED).unwrap().summary;
    assert!(varied.flows[0].goodput_bps < plain.flows[0].goodput_bps, "a longer mean RTT, less goodput");
    assert!(varied.flows[0].min_rtt_seconds >= plain.flows[0].min_rtt_seconds);
}

#[test]
fn a_bad_variation_is_refused_naming_the_field() {
    for (value, says) in [(r#""fast""#, "links.l.delay_variation"), ("-5", "links.l.delay_variation")] {
        let text = format!(
            "[scenario]\nname = \"x\"\nduration = \"1s\"\n[topology]\nnodes = [\"a\", \"b\"]\n\
             [links.l]\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n\
             delay_variation = {value}\n"
        );
        let err = scenario::load_str(&text, "x.toml", &[]).unwrap_err().to_string();
        assert!(err.contains(says), "{value}: {err}");
    }
}
