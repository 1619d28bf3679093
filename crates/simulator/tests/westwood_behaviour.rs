//! The Westwood family in the simulator: invariants, the bandwidth estimate against the known
//! available bandwidth (seed 000 §4.1, fig. 3) and the headline gain over Reno on a lossy
//! wireless path (seed 000 §5.1, fig. 9).

mod common;

use common::*;
use std::path::PathBuf;
use westwood_simulator::model::{CcSpec, QueueLimit};
use westwood_simulator::tcp::Recovery;
use westwood_simulator::{run, scenario, RunOptions};

fn variants() -> Vec<(&'static str, CcSpec)> {
    vec![
        ("westwood", CcSpec::named("westwood")),
        ("westwood-tr", CcSpec::named("westwood-tr")),
        ("westwood-abse", CcSpec::named("westwood-abse")),
        ("westwood-plus", CcSpec::named("westwood-plus")),
        ("westwood-ucla", CcSpec::named("westwood-ucla")),
    ]
}

fn scenario_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(format!("{name}.toml"))
}

#[test]
fn invariants_hold_for_every_variant_and_recovery() {
    for (cc_name, cc) in variants() {
        for recovery in Recovery::ALL {
            for (data_loss, ack_loss, queue) in [
                (0.0, 0.0, QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 }),
                (0.02, 0.02, QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 }),
                (0.1, 0.0, QueueLimit::Packets(4)),
            ] {
                let line = Line {
                    cc_name,
                    cc: cc.clone(),
                    recovery,
                    data_loss,
                    ack_loss,
                    queue,
                    flows: 3,
                    duration: 30 * SECOND,
                    ..Line::default()
                };
                let options = RunOptions { record_series: false, check_invariants: true };
                let summary =
                    run(&line.scenario(), options).unwrap_or_else(|e| panic!("{cc_name}: {e}")).summary;
                for f in &summary.flows {
                    assert!(
                        f.bytes_delivered > 0,
                        "{cc_name} {recovery:?} loss {data_loss}: nothing delivered"
                    );
                    assert_eq!(f.cc, cc_name);
                }
            }
        }
    }
}

#[test]
fn tcpw_bandwidth_estimate_follows_the_available_bandwidth_under_udp_on_off() {
    let scenario = scenario::load_file(&scenario_file("udp_onoff"), &[]).unwrap();
    let result = run(&scenario, RunOptions { record_series: true, check_invariants: true }).unwrap();
    let series = result.flow_series.unwrap();
    // Available bandwidth for TCP in wire bits/s, then in payload bits/s (BWE counts payload).
    let payload_share = 400.0 / 440.0;
    let steps = [
        (0.0, 25.0, 5e6),
        (25.0, 50.0, 4e6),
        (50.0, 75.0, 3e6),
        (75.0, 125.0, 4e6),
        (125.0, 175.0, 3e6),
        (175.0, 200.0, 4e6),
        (200.0, 250.0, 5e6),
    ];
    for (start, end, wire) in steps {
        let available = wire * payload_share;
        // Leave the filter 5 s (10 tau) to settle after each change.
        let window: Vec<f64> = series
            .time_seconds
            .iter()
            .zip(&series.bwe_bps)
            .filter(|(&t, _)| t >= start + 5.0 && t < end)
            .map(|(_, &b)| b)
            .collect();
        let mean_abs_error = window.iter().map(|b| (b - available).abs()).sum::<f64>() / window.len() as f64;
        let relative = mean_abs_error / available;
        eprintln!(
            "{start:>5}-{end:<5} s: available {:.2} Mb/s, BWE MAE {:.3} Mb/s ({:.1}%)",
            available / 1e6,
            mean_abs_error / 1e6,
            100.0 * relative
        );
        assert!(relative < 0.15, "step {start}-{end} s: BWE off by {:.1}% on average", 100.0 * relative);
    }
}

#[test]
fn tcpw_gains_several_fold_over_reno_at_one_percent_wireless_loss() {
    // Seed 000 §5.1: "TCPW gains up to 394% over Reno or SACK ... at a realistic packet error
    // probability of 1%". Averaged over seeds, the ratio must be at least 3.
    let goodput = |cc: &str| {
        let mut total = 0.0;
        for seed in 1..=4u64 {
            let overrides = [("cc".to_string(), cc.to_string()), ("loss".to_string(), "1%".to_string())];
            let mut s = scenario::load_file(&scenario_file("wireless"), &overrides).unwrap();
            s.seed = seed;
            total += run(&s, RunOptions::default()).unwrap().summary.flows[0].goodput_bps;
        }
        total / 4.0
    };
    let (reno, tcpw) = (goodput("reno"), goodput("westwood"));
    eprintln!("1% loss: Reno {:.3} Mb/s, TCPW {:.3} Mb/s, ratio {:.2}", reno / 1e6, tcpw / 1e6, tcpw / reno);
    assert!(tcpw / reno >= 3.0, "TCPW/Reno = {:.2}", tcpw / reno);
}
