//! `window_growth = "byte_counting"` (RFC 3465, as Linux grows the window) against the default
//! per-ACK growth (ns-2, RFC 5681 eq. 2-3) on whole runs with delayed ACKs: byte counting grows
//! the window twice as fast per round trip, which shows in slow start and in the goodput a lossy
//! path allows.

mod common;

use common::*;
use westwood_algorithms::WindowGrowth;
use westwood_simulator::model::QueueLimit;
use westwood_simulator::results::Summary;
use westwood_simulator::{run, RunOptions};

fn simulate(line: &Line) -> Summary {
    let options = RunOptions { record_series: false, check_invariants: true };
    match run(&line.scenario(), options) {
        Ok(result) => result.summary,
        Err(e) => panic!("run failed: {e}"),
    }
}

#[test]
fn byte_counting_doubles_the_window_per_round_trip_in_slow_start() {
    // 100 Mb/s, 100 ms RTT, a queue that never fills: nothing but slow start for 0.8 s (about
    // eight round trips from an initial window of 4 segments).
    let cwnd_at = |window_growth: WindowGrowth, delayed_ack: bool| {
        let line = Line {
            bottleneck_bps: 100_000_000,
            bottleneck_delay: 49 * MS,
            access_delay: MS,
            queue: QueueLimit::Packets(100_000),
            duration: 800 * MS,
            delayed_ack,
            window_growth,
            ..Line::default()
        };
        let options = RunOptions { record_series: true, check_invariants: true };
        let result = run(&line.scenario(), options).unwrap();
        assert_eq!(result.summary.flows[0].retransmits, 0, "the run must stay loss-free");
        let series = result.flow_series.unwrap();
        let last = series.cwnd_bytes.len() - 1;
        (series.cwnd_bytes[last] / 1000, result.summary.flows[0].bytes_delivered)
    };
    let (per_ack, per_ack_bytes) = cwnd_at(WindowGrowth::PerAck, true);
    let (abc, abc_bytes) = cwnd_at(WindowGrowth::ByteCounting, true);
    eprintln!("after 0.8 s of slow start with delayed ACKs: cwnd {per_ack} segments per ACK, {abc} by bytes");
    // Roughly 4·1.5^7 ≈ 68 against 4·2^7 = 512 segments (the last round trip is partial).
    assert!(abc >= 4 * per_ack, "cwnd per ACK {per_ack}, byte counting {abc}");
    assert!(abc_bytes >= 3 * per_ack_bytes, "delivered per ACK {per_ack_bytes}, byte counting {abc_bytes}");
    // With an ACK for every segment the two rules are the same rule.
    assert_eq!(cwnd_at(WindowGrowth::PerAck, false), cwnd_at(WindowGrowth::ByteCounting, false));
}

/// Mathis, Semke, Mahdavi, Ott (1997): BW = MSS/RTT * sqrt(3/(2 b p)), b segments per ACK
/// worth of window growth.
fn mathis_bps(mss: f64, rtt: f64, p: f64, b: f64) -> f64 {
    8.0 * mss / rtt * (3.0 / (2.0 * b * p)).sqrt()
}

#[test]
fn byte_counting_gives_reno_more_goodput_at_one_percent_loss() {
    // The path of the Mathis/Padhye check in tcp_behaviour.rs: 100 Mb/s, 100 ms RTT, 1 % loss,
    // so only the loss process limits the window. Per ACK, delayed ACKs make b = 2 (half a
    // segment per RTT); byte counting makes b = 1, so the sawtooth is sqrt(2) higher.
    let p = 0.01;
    let mean = |window_growth: WindowGrowth| {
        let goodputs: Vec<f64> = (1..=4)
            .map(|seed| {
                let line = Line {
                    bottleneck_bps: 100_000_000,
                    bottleneck_delay: 49 * MS,
                    access_delay: MS,
                    data_loss: p,
                    duration: 200 * SECOND,
                    seed,
                    window_growth,
                    ..Line::default()
                };
                simulate(&line).flows[0].goodput_bps
            })
            .collect();
        goodputs.iter().sum::<f64>() / goodputs.len() as f64
    };
    let per_ack = mean(WindowGrowth::PerAck);
    let abc = mean(WindowGrowth::ByteCounting);
    let ratio = abc / per_ack;
    let mathis_b1 = mathis_bps(1000.0, 0.1, p, 1.0);
    eprintln!(
        "p = 1 %: per ACK {per_ack:.0} b/s, byte counting {abc:.0} b/s (x{ratio:.2}); Mathis b = 1: {mathis_b1:.0}"
    );
    assert!((1.2..=1.6).contains(&ratio), "byte counting / per ACK = {ratio:.2}, expected about sqrt(2)");
    assert!(
        (0.6..=1.1).contains(&(abc / mathis_b1)),
        "byte counting / Mathis(b = 1) = {:.2}",
        abc / mathis_b1
    );
}

#[test]
fn the_wireless_scenario_with_byte_counting_gives_reno_more_goodput_at_one_percent_loss() {
    // scenarios/wireless.toml (seed 000 fig. 8-9: 2 Mb/s lossy hop, 400-byte segments, delayed
    // ACKs) through the scenario front end and `--set tcp.window_growth=...`, three seeds.
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wireless.toml");
    let goodput = |growth: &str| -> f64 {
        (1..=3)
            .map(|seed| {
                let sets: Vec<(String, String)> = [
                    ("cc", "reno".to_string()),
                    ("loss", "1%".to_string()),
                    ("duration", "60s".to_string()),
                    ("scenario.seed", seed.to_string()),
                    ("tcp.window_growth", growth.to_string()),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
                let scenario = westwood_simulator::scenario::load_file(&path, &sets).unwrap();
                let options = RunOptions { record_series: false, check_invariants: true };
                run(&scenario, options).unwrap().summary.flows[0].goodput_bps
            })
            .sum::<f64>()
            / 3.0
    };
    let per_ack = goodput("per_ack");
    let abc = goodput("byte_counting");
    eprintln!("wireless, reno, 1 % loss, 60 s: per ACK {per_ack:.0} b/s, byte counting {abc:.0} b/s");
    assert!(abc > 1.2 * per_ack, "per ACK {per_ack:.0} b/s, byte counting {abc:.0} b/s");
}
