//! `limited_transmit = true` (RFC 3042, as Linux does it) against the default (off, as ns-2's
//! agents of the seed papers): a loss in a small window that leaves too few segments behind it
//! for three DUPACKs is recovered by fast retransmit instead of the retransmission timer, the
//! invariants hold, and with the key absent or false every result is what it was.

mod common;

use common::*;
use westwood_algorithms::WindowGrowth;
use westwood_simulator::model::{ErrorSpec, Scenario};
use westwood_simulator::network::loss::drop_list::{self, DropListSpec};
use westwood_simulator::results::{FlowSummary, Summary};
use westwood_simulator::tcp::Recovery;
use westwood_simulator::{run, RunOptions};

const MSS: u64 = 1000;

fn simulate(scenario: &Scenario) -> Summary {
    let options = RunOptions { record_series: false, check_invariants: true };
    match run(scenario, options) {
        Ok(result) => result.summary,
        Err(e) => panic!("run failed: {e}"),
    }
}

/// The initial window of 4 segments, in congestion avoidance from the start (ssthresh 4
/// segments), delayed ACKs on; segment 1 is dropped. Segment 0 waits for its delayed ACK, so
/// segment 2 (out of order) makes the receiver acknowledge segment 0 at once: a new ACK, not a
/// DUPACK. It lets segment 4 out; segments 3 and 4 make two DUPACKs, and nothing else is in
/// flight: without limited transmit the sender waits for the timer.
fn four_segment_window(recovery: Recovery, limited_transmit: bool) -> FlowSummary {
    let line = Line { recovery, limited_transmit, duration: 5 * SECOND, ..Line::default() };
    let mut scenario = line.scenario();
    scenario.flows[0].tcp.initial_ssthresh = 4 * MSS;
    assert_eq!(scenario.flows[0].tcp.initial_cwnd, 4 * MSS);
    let bottleneck = scenario.links.iter_mut().find(|l| l.name == "bottleneck").unwrap();
    bottleneck.errors = Some(ErrorSpec::one(drop_list::setting(DropListSpec {
        flow_name: "ftp.0".into(),
        flow: 0,
        segment_size: MSS,
        first_byte: 0,
        segments: vec![1],
        acks: vec![],
        retransmissions: vec![],
    })));
    simulate(&scenario).flows[0].clone()
}

#[test]
fn a_loss_in_a_four_segment_window_is_a_fast_retransmit_with_limited_transmit_not_a_timeout() {
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Tahoe, Recovery::Sack] {
        let off = four_segment_window(recovery, false);
        let on = four_segment_window(recovery, true);
        eprintln!(
            "{:<8} off: timeouts {} fast retransmits {} retransmits {} goodput {:.0} b/s | on: timeouts {} \
             fast retransmits {} retransmits {} goodput {:.0} b/s",
            recovery.name(),
            off.timeouts,
            off.fast_retransmits,
            off.retransmits,
            off.goodput_bps,
            on.timeouts,
            on.fast_retransmits,
            on.retransmits,
            on.goodput_bps
        );
        // With limited transmit: one fast retransmit, exactly the dropped segment resent (Tahoe
        // too: the cumulative ACK of the resend covers everything after it).
        assert_eq!((on.timeouts, on.fast_retransmits), (0, 1), "{recovery:?} with limited transmit");
        assert_eq!(on.retransmits, 1, "{recovery:?}");
        if recovery == Recovery::Sack {
            // SACK needs no DUPACK count: the SACK block on the new ACK, then the two DUPACKs'
            // blocks make three SACKed segments above the hole (RFC 6675 IsLost).
            assert_eq!((off.timeouts, off.fast_retransmits), (0, 1), "SACK without limited transmit");
        } else {
            assert_eq!((off.timeouts, off.fast_retransmits), (1, 0), "{recovery:?} without limited transmit");
            assert!(on.goodput_bps > off.goodput_bps, "{recovery:?}");
        }
    }
}

/// `scenarios/wireless.toml` (2 Mb/s lossy hop, Bernoulli loss both ways, 400-byte segments,
/// delayed ACKs, windows of a few segments at 2-5 % loss) with byte-counting growth, as the
/// testbed's simulator run has it.
fn wireless(cc: &str, loss: &str, seed: u64, limited_transmit: Option<bool>) -> Summary {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wireless.toml");
    let mut sets: Vec<(String, String)> = [
        ("cc", cc.to_string()),
        ("loss", loss.to_string()),
        ("duration", "40s".to_string()),
        ("scenario.seed", seed.to_string()),
        ("tcp.window_growth", "byte_counting".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    if let Some(on) = limited_transmit {
        sets.push(("tcp.limited_transmit".to_string(), on.to_string()));
    }
    let scenario = westwood_simulator::scenario::load_file(&path, &sets).unwrap();
    simulate(&scenario)
}

#[test]
fn limited_transmit_saves_reno_timeouts_on_the_lossy_wireless_path() {
    // Sums over two seeds at 2 % and 5 % loss, 40 s each.
    let mut timeouts = [0u64; 2];
    let mut fast = [0u64; 2];
    let mut goodput = [0f64; 2];
    for loss in ["2%", "5%"] {
        for seed in 1..=2 {
            for (i, on) in [false, true].into_iter().enumerate() {
                let f = &wireless("reno", loss, seed, Some(on)).flows[0];
                timeouts[i] += f.timeouts;
                fast[i] += f.fast_retransmits;
                goodput[i] += f.goodput_bps;
            }
        }
    }
    eprintln!(
        "wireless reno, 2 % and 5 % loss, seeds 1-2, 40 s: timeouts {} -> {}, fast retransmits {} -> {}, \
         goodput sum {:.0} -> {:.0} b/s",
        timeouts[0], timeouts[1], fast[0], fast[1], goodput[0], goodput[1]
    );
    assert!(
        (timeouts[1] as f64) < 0.8 * timeouts[0] as f64,
        "timeouts {} without, {} with limited transmit",
        timeouts[0],
        timeouts[1]
    );
    assert!(fast[1] > fast[0], "fast retransmits {} without, {} with", fast[0], fast[1]);
}

#[test]
fn invariants_hold_with_limited_transmit_for_every_recovery_and_loss_both_ways() {
    // check_invariants: every byte delivered once and in order, sequence numbers monotonic,
    // cwnd at least one segment, the SACK scoreboard and pipe consistent.
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Tahoe, Recovery::Sack] {
        for (data_loss, ack_loss) in [(0.02, 0.0), (0.05, 0.05), (0.1, 0.02)] {
            for seed in 1..=2 {
                for window_growth in [WindowGrowth::PerAck, WindowGrowth::ByteCounting] {
                    let line = Line {
                        recovery,
                        data_loss,
                        ack_loss,
                        seed,
                        window_growth,
                        limited_transmit: true,
                        duration: 30 * SECOND,
                        ..Line::default()
                    };
                    let flow = &simulate(&line.scenario()).flows[0];
                    assert!(flow.bytes_delivered > 0, "{recovery:?} {data_loss} {ack_loss} {seed}");
                }
            }
        }
    }
}

#[test]
fn the_default_is_off_and_false_changes_nothing() {
    // The key absent and `false` give the same run, to the byte, on the lossy wireless path.
    for cc in ["reno", "westwood", "newreno", "sack"] {
        let absent = wireless(cc, "2%", 1, None);
        let off = wireless(cc, "2%", 1, Some(false));
        let strip = |s: &Summary| {
            let mut v = serde_json::to_value(s).unwrap();
            v.as_object_mut().unwrap().remove("wall_seconds");
            v
        };
        assert_eq!(strip(&absent), strip(&off), "{cc}");
        // And `true` does change the lossy run.
        let on = wireless(cc, "2%", 1, Some(true));
        assert_ne!(strip(&absent)["flows"], strip(&on)["flows"], "{cc}");
    }
    // The series too (all but the BWE column, NaN without Westwood), for a SACK flow.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wireless.toml");
    let series = |extra: &[(&str, &str)]| {
        let mut sets = vec![("cc".to_string(), "sack".to_string()), ("loss".to_string(), "3%".to_string())];
        sets.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        let scenario = westwood_simulator::scenario::load_file(&path, &sets).unwrap();
        let options = RunOptions { record_series: true, check_invariants: true };
        let s = run(&scenario, options).unwrap().flow_series.unwrap();
        (s.cwnd_bytes, s.ssthresh_bytes, s.bytes_delivered, s.snd_una, s.snd_max)
    };
    assert_eq!(series(&[]), series(&[("tcp.limited_transmit", "false")]));
    assert_ne!(series(&[]), series(&[("flows.ftp.limited_transmit", "true")]));
}
