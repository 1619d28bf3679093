//! Loss recovery compared the way Fall & Floyd (1996, "Simulation-based comparisons of Tahoe,
//! Reno and SACK TCP", CCR 26(3)) compared it: one flow, a window of about 20 packets, and
//! exactly 1, 2, 3 or 4 packets dropped from one window by a scripted drop list. Their findings:
//!
//! * Tahoe recovers every case with one fast retransmit and a slow start (go-back-N), no RTO;
//! * Reno handles one drop with fast recovery; two drops cost two fast retransmits (two
//!   halvings); three or more usually need the retransmission timer;
//! * NewReno recovers every case without the timer, one dropped packet per round trip;
//! * SACK recovers every case without the timer in about one round trip.
//!
//! Also CUBIC against Reno on a long fat pipe after a loss (RFC 9438's reason to exist).

mod common;

use common::*;
use westwood_simulator::model::{CcSpec, ErrorSpec, QueueLimit, Scenario};
use westwood_simulator::network::loss::drop_list::{self, DropListSpec};
use westwood_simulator::results::FlowSummary;
use westwood_simulator::tcp::Recovery;
use westwood_simulator::{run, RunOptions};

/// Segments of the window the drops are taken from. Slow start (from 4 segments, one ACK per
/// segment) reaches ssthresh = 20 segments around segment 30; segments 49-70 are sent in one
/// round trip with a window of 21 segments.
const DROPS: [u64; 4] = [60, 62, 64, 66];
/// The transfer whose completion time is compared, segments.
const TRANSFER: u64 = 200;
const MSS: u64 = 1000;

/// Fall & Floyd's path: 0.8 Mb/s bottleneck with 100 ms one-way delay behind a fast access
/// link (a bandwidth-delay product of about 19 packets), one ACK per segment (ns-1's sink), a
/// queue that never overflows, slow start up to ssthresh = 20 segments then congestion
/// avoidance, so the window is about 20 segments when `drops` segments are dropped from it.
/// The receiver window does not limit (a limit at 20 would also cap Reno's inflated window and
/// keep it from sending during recovery).
fn fall_floyd(recovery: Recovery, drops: usize) -> Scenario {
    let line = Line {
        bottleneck_bps: 800_000,
        bottleneck_delay: 100 * MS,
        access_delay: MS / 10,
        queue: QueueLimit::Packets(1000),
        recovery,
        delayed_ack: false,
        duration: 10 * SECOND,
        ..Line::default()
    };
    let mut scenario = line.scenario();
    scenario.flows[0].tcp.initial_ssthresh = 20 * MSS;
    let bottleneck = scenario.links.iter_mut().find(|l| l.name == "bottleneck").unwrap();
    bottleneck.errors = (drops > 0).then(|| {
        ErrorSpec::one(drop_list::setting(DropListSpec {
            flow_name: "ftp.0".into(),
            flow: 0,
            segment_size: MSS,
            first_byte: 0,
            segments: DROPS[..drops].to_vec(),
            acks: vec![],
            retransmissions: vec![],
        }))
    });
    scenario.sample_interval = MS;
    scenario
}

struct Outcome {
    flow: FlowSummary,
    /// When the first `TRANSFER` segments had all been delivered, seconds.
    completion: f64,
}

fn simulate(scenario: &Scenario) -> Outcome {
    let options = RunOptions { record_series: true, check_invariants: true };
    let result = run(scenario, options).unwrap_or_else(|e| panic!("{e}"));
    let series = result.flow_series.unwrap();
    let i = series.bytes_delivered.iter().position(|&b| b >= TRANSFER * MSS).expect("transfer completes");
    Outcome { flow: result.summary.flows[0].clone(), completion: series.time_seconds[i] }
}

#[test]
fn fall_and_floyd_one_to_four_drops_from_one_window() {
    let recoveries = [Recovery::Tahoe, Recovery::Reno, Recovery::NewReno, Recovery::Sack];
    let baseline = simulate(&fall_floyd(Recovery::Reno, 0));
    assert_eq!(
        (baseline.flow.timeouts, baseline.flow.fast_retransmits, baseline.flow.retransmits),
        (0, 0, 0)
    );
    // Round trip with an empty queue: propagation plus one packet's transmission.
    let rtt = 2.0 * (0.1 + 0.0001) + 1040.0 * 8.0 / 800_000.0;
    eprintln!(
        "no drops: {TRANSFER} segments delivered at {:.3} s (base RTT {rtt:.3} s)",
        baseline.completion
    );
    eprintln!(
        "{:<8} {:>5} {:>8} {:>9} {:>5} {:>10} {:>8}",
        "recovery", "drops", "timeouts", "fast_rtx", "rtx", "complete_s", "delay_s"
    );
    let mut table = Vec::new();
    for recovery in recoveries {
        for drops in 1..=4 {
            let o = simulate(&fall_floyd(recovery, drops));
            eprintln!(
                "{:<8} {:>5} {:>8} {:>9} {:>5} {:>10.3} {:>8.3}",
                recovery.name(),
                drops,
                o.flow.timeouts,
                o.flow.fast_retransmits,
                o.flow.retransmits,
                o.completion,
                o.completion - baseline.completion
            );
            table.push((recovery, drops, o));
        }
    }
    let get = |recovery: Recovery, drops: usize| {
        &table.iter().find(|(r, d, _)| *r == recovery && *d == drops).unwrap().2
    };
    for drops in 1..=4 {
        // Tahoe: one fast retransmit, then slow start resends the rest of the window; no RTO.
        let tahoe = get(Recovery::Tahoe, drops);
        assert_eq!((tahoe.flow.timeouts, tahoe.flow.fast_retransmits), (0, 1), "Tahoe, {drops} drops");
        // NewReno: one fast retransmit, then one hole per partial ACK; no RTO; every extra
        // drop costs another round trip of recovery (partly hidden by the data the inflated
        // window keeps sending meanwhile).
        let newreno = get(Recovery::NewReno, drops);
        assert_eq!((newreno.flow.timeouts, newreno.flow.fast_retransmits), (0, 1), "NewReno, {drops} drops");
        assert_eq!(newreno.flow.retransmits, drops as u64, "NewReno resends exactly the drops");
        if drops > 1 {
            let step = newreno.completion - get(Recovery::NewReno, drops - 1).completion;
            assert!(step > 0.3 * rtt && step < 1.5 * rtt, "NewReno: {drops} drops take {step:.3} s more");
        }
        // SACK: one recovery, exactly the dropped segments resent, no RTO; all holes are resent
        // within about one round trip, so extra drops cost far less than with NewReno.
        let sack = get(Recovery::Sack, drops);
        assert_eq!((sack.flow.timeouts, sack.flow.fast_retransmits), (0, 1), "SACK, {drops} drops");
        assert_eq!(sack.flow.retransmits, drops as u64, "SACK resends exactly the drops");
        let extra = sack.completion - get(Recovery::Sack, 1).completion;
        let newreno_extra = newreno.completion - get(Recovery::NewReno, 1).completion;
        assert!(extra < 0.6 * rtt, "SACK: {drops} drops cost {extra:.3} s more than one");
        if drops >= 3 {
            assert!(extra <= 0.5 * newreno_extra, "SACK {extra:.3} s vs NewReno {newreno_extra:.3} s");
        }
        assert!(sack.completion <= newreno.completion + 1e-9, "SACK no slower than NewReno");
        assert!(sack.completion < tahoe.completion, "SACK faster than Tahoe's slow start");
    }
    // Reno: one drop is fast recovery; two drops, two fast retransmits (two halvings) and no
    // RTO; three and four drops, the retransmission timer.
    let reno = |d| get(Recovery::Reno, d);
    assert_eq!((reno(1).flow.timeouts, reno(1).flow.fast_retransmits), (0, 1));
    assert_eq!((reno(2).flow.timeouts, reno(2).flow.fast_retransmits), (0, 2));
    for drops in 3..=4 {
        assert!(reno(drops).flow.timeouts >= 1, "Reno, {drops} drops: no timeout");
        assert!(reno(drops).completion > get(Recovery::Sack, drops).completion + 0.5);
    }
    // With one drop, Reno, NewReno and SACK do the same thing.
    let one = [Recovery::Reno, Recovery::NewReno, Recovery::Sack].map(|r| get(r, 1).completion);
    assert!(one.iter().all(|&c| (c - one[0]).abs() < 0.01), "one drop: {one:?}");
}

#[test]
fn cubic_refills_a_long_fat_pipe_faster_than_reno_after_a_loss() {
    // 100 Mb/s, 100 ms RTT: a bandwidth-delay product of ~1200 packets, a queue of 1000 (deep
    // enough for slow start's bursts). Slow start ends at ssthresh = 1000 segments without a
    // loss; segment 10000
    // (sent in congestion avoidance) is dropped. Reno halves to ~500 segments and climbs back
    // by one segment per two round trips (delayed ACKs); CUBIC falls to 70 % and returns to
    // W_max in K = cbrt(0.3 W_max / C) ~ 9 s, then probes beyond it.
    let run_with = |cc_name: &'static str, cc: CcSpec, recovery: Recovery| {
        let line = Line {
            bottleneck_bps: 100_000_000,
            bottleneck_delay: 49 * MS,
            access_delay: MS,
            queue: QueueLimit::Packets(1000),
            cc_name,
            cc,
            recovery,
            receiver_window: 1 << 30,
            duration: 25 * SECOND,
            ..Line::default()
        };
        let mut scenario = line.scenario();
        scenario.flows[0].tcp.initial_ssthresh = 1000 * MSS;
        let bottleneck = scenario.links.iter_mut().find(|l| l.name == "bottleneck").unwrap();
        bottleneck.errors = Some(ErrorSpec::one(drop_list::setting(DropListSpec {
            flow_name: "ftp.0".into(),
            flow: 0,
            segment_size: MSS,
            first_byte: 0,
            segments: vec![10_000],
            acks: vec![],
            retransmissions: vec![],
        })));
        let options = RunOptions { record_series: true, check_invariants: true };
        let result = run(&scenario, options).unwrap_or_else(|e| panic!("{cc_name}: {e}"));
        let series = result.flow_series.unwrap();
        let flow = result.summary.flows[0].clone();
        let at = |t: f64| series.time_seconds.iter().position(|&x| x >= t - 1e-9).unwrap();
        // The loss: the first sample where ssthresh fell below its initial 1000 segments.
        let loss = series.ssthresh_bytes.iter().position(|&s| s < 1000 * MSS).expect("a loss");
        let t_loss = series.time_seconds[loss];
        let window_after = series.cwnd_bytes[loss];
        let delivered = series.bytes_delivered[at(t_loss + 20.0)] - series.bytes_delivered[loss];
        (flow, t_loss, window_after, delivered)
    };
    let (reno, reno_loss, reno_window, reno_bytes) =
        run_with("newreno", CcSpec::named("reno"), Recovery::NewReno);
    let (cubic, cubic_loss, cubic_window, cubic_bytes) =
        run_with("cubic", CcSpec::named("cubic"), Recovery::NewReno);
    let (cubic_sack, _, _, cubic_sack_bytes) = run_with("cubic", CcSpec::named("cubic"), Recovery::Sack);
    let mbps = |bytes: u64| bytes as f64 * 8.0 / 20.0 / 1e6;
    eprintln!(
        "20 s after the loss: newreno {:.1} Mb/s (loss at {reno_loss:.1} s, cwnd {} after), cubic {:.1} Mb/s \
         (loss at {cubic_loss:.1} s, cwnd {} after), cubic+sack {:.1} Mb/s; timeouts {} {} {}",
        mbps(reno_bytes),
        reno_window / MSS,
        mbps(cubic_bytes),
        cubic_window / MSS,
        mbps(cubic_sack_bytes),
        reno.timeouts,
        cubic.timeouts,
        cubic_sack.timeouts
    );
    assert_eq!((reno.timeouts, cubic.timeouts, cubic_sack.timeouts), (0, 0, 0));
    assert!(cubic_bytes as f64 > 1.3 * reno_bytes as f64, "CUBIC {cubic_bytes} vs Reno {reno_bytes}");
    assert!(cubic_sack_bytes as f64 > 1.3 * reno_bytes as f64);
}

#[test]
fn sack_needs_fewer_timeouts_than_newreno_when_bursts_of_drops_hit_small_buffers() {
    // Eight flows on a small buffer: drop-tail overflows take several packets from one window.
    let base = || Line {
        queue: QueueLimit::Packets(5),
        flows: 8,
        bottleneck_bps: 10_000_000,
        duration: 60 * SECOND,
        ..Line::default()
    };
    let options = RunOptions { record_series: false, check_invariants: true };
    let total = |recovery: Recovery| {
        let summary = run(&Line { recovery, ..base() }.scenario(), options).unwrap().summary;
        let timeouts: u64 = summary.flows.iter().map(|f| f.timeouts).sum();
        let goodput: f64 = summary.flows.iter().map(|f| f.goodput_bps).sum();
        (timeouts, goodput)
    };
    let results = Recovery::ALL.map(|r| (r, total(r)));
    for (r, (timeouts, goodput)) in results {
        eprintln!("{:<8} timeouts {timeouts:>4}, goodput {:.2} Mb/s", r.name(), goodput / 1e6);
    }
    let of = |r: Recovery| results.iter().find(|(x, _)| *x == r).unwrap().1;
    assert!(of(Recovery::Sack).0 < of(Recovery::NewReno).0, "SACK timeouts");
    assert!(of(Recovery::Sack).0 < of(Recovery::Reno).0);
    assert!(of(Recovery::Sack).1 > of(Recovery::NewReno).1, "SACK goodput");
}
