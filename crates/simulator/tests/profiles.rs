//! TCP profiles (`profile = "paper" | "ns2" | "linux"`) and the behaviours they bundle, on whole
//! runs: a profile is exactly its keys set one by one, `paper` changes nothing, and the new
//! sender behaviours (`partial_ack_timer`, `fast_recovery_inflation`, `recovery_pacing = "prr"`)
//! do what they say on scripted losses.

mod common;

use common::*;
use westwood_simulator::model::{ErrorSpec, Inflation, PartialAckTimer, RecoveryPacing, Scenario};
use westwood_simulator::network::loss::drop_list::{self, DropListSpec};
use westwood_simulator::results::Summary;
use westwood_simulator::scenario::{load_file, load_str};
use westwood_simulator::tcp::Recovery;
use westwood_simulator::{run, run_with_ack_trace, RunOptions};
use westwood_trace::{AckRecord, CaState, TraceEvent};

const MSS: u64 = 1000;

fn scenarios_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

fn sets(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn simulate(scenario: &Scenario) -> Summary {
    let options = RunOptions { record_series: false, check_invariants: true };
    run(scenario, options).unwrap_or_else(|e| panic!("run failed: {e}")).summary
}

/// The summary as JSON without the wall-clock time.
fn strip(s: &Summary) -> serde_json::Value {
    let mut v = serde_json::to_value(s).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v
}

/// Every key the linux profile sets, as `--set tcp.KEY=VALUE` pairs.
const LINUX: &[(&str, &str)] = &[
    ("tcp.window_growth", "linux"),
    ("tcp.limited_transmit", "true"),
    ("tcp.recovery", "newreno"),
    ("tcp.partial_ack_timer", "every"),
    ("tcp.recovery_pacing", "prr"),
    ("tcp.fast_recovery_inflation", "true"),
    ("tcp.recovery_exit_growth", "true"),
    ("tcp.fast_retransmit_timer", "restart"),
    ("tcp.repeat_fast_retransmit", "false"),
    ("tcp.delayed_ack_timeout", "40ms"),
    ("tcp.ack_every", "2"),
    ("tcp.quick_acks", "16"),
    ("tcp.initial_cwnd", "10"),
    ("tcp.rto_initial", "1s"),
    ("tcp.rto_min", "200ms"),
    ("tcp.rto_max", "120s"),
    ("tcp.clock_granularity", "200ms"),
    ("tcp.timeout_threshold", "new_episode"),
    ("tcp.send_buffer", "linux"),
    ("tcp.cwnd_validation", "linux"),
    ("tcp.rtt_estimator", "linux"),
    ("tcp.timer_hz", "250"),
    ("tcp.prr_window", "linux"),
    ("tcp.prr_bound", "safe_ack"),
    ("tcp.receive_window", "linux"),
    ("tcp.reduction_base", "cwnd"),
    ("tcp.sack_next_seg", "linux"),
    ("tcp.loss_detection", "rack"),
    ("tcp.push_flag", "linux"),
    ("tcp.recovery_exit", "above_recover"),
    ("tcp.reordering", "linux"),
    ("tcp.frto", "true"),
];

/// `scenarios/wireless.toml` without the `[tcp]` keys a profile sets (the file sets the RTO,
/// delayed-ACK and initial-window keys explicitly, and explicit keys win over a profile).
fn wireless_without_profile_keys() -> String {
    let text = std::fs::read_to_string(scenarios_dir().join("wireless.toml")).unwrap();
    let keys = [
        "initial_cwnd",
        "rto_initial",
        "rto_min",
        "rto_max",
        "clock_granularity",
        "delayed_ack_timeout",
        "ack_every",
    ];
    let kept: Vec<&str> =
        text.lines().filter(|l| !keys.iter().any(|k| l.starts_with(&format!("{k} = ")))).collect();
    assert_eq!(text.lines().count() - kept.len(), keys.len(), "each key once in [tcp]");
    kept.join("\n")
}

#[test]
fn a_run_with_the_linux_profile_is_the_run_with_its_keys_set_one_by_one() {
    let text = wireless_without_profile_keys();
    for cc in ["westwood", "reno", "sack"] {
        let base = [("cc", cc), ("loss", "2%"), ("duration", "20s")];
        let load = |extra: &[(&str, &str)]| {
            let mut all = sets(&base);
            all.extend(sets(extra));
            load_str(&text, "wireless.toml", &all).unwrap()
        };
        let profile = load(&[("tcp.profile", "linux")]);
        // A SACK flow keeps its recovery: leave `recovery` out of the one-by-one list for it.
        let keys: Vec<(&str, &str)> =
            LINUX.iter().copied().filter(|(k, _)| cc != "sack" || *k != "tcp.recovery").collect();
        let one_by_one = load(&keys);
        assert_eq!(profile, one_by_one, "{cc}: the resolved scenarios");
        let a = simulate(&profile);
        let b = simulate(&one_by_one);
        assert_eq!(strip(&a), strip(&b), "{cc}: the runs");
        // And the profile does change the run.
        let plain = simulate(&load(&[]));
        assert_ne!(strip(&a)["flows"], strip(&plain)["flows"], "{cc}");
    }
    // On the file as committed, its explicit keys win: the profile then sets only the others.
    let path = scenarios_dir().join("wireless.toml");
    let base = [("cc", "westwood"), ("loss", "1%"), ("duration", "20s")];
    let mut with_profile = sets(&base);
    with_profile.push(("tcp.profile".into(), "linux".into()));
    let mut rest = sets(&base);
    rest.extend(sets(&[
        ("tcp.window_growth", "linux"),
        ("tcp.limited_transmit", "true"),
        ("tcp.recovery", "newreno"),
        ("tcp.partial_ack_timer", "every"),
        ("tcp.recovery_pacing", "prr"),
        ("tcp.quick_acks", "16"),
        ("tcp.timeout_threshold", "new_episode"),
        ("tcp.recovery_exit_growth", "true"),
        ("tcp.fast_retransmit_timer", "restart"),
        ("tcp.repeat_fast_retransmit", "false"),
        ("tcp.send_buffer", "linux"),
        ("tcp.cwnd_validation", "linux"),
        ("tcp.rtt_estimator", "linux"),
        ("tcp.timer_hz", "250"),
        ("tcp.prr_window", "linux"),
        ("tcp.prr_bound", "safe_ack"),
        ("tcp.receive_window", "linux"),
        ("tcp.reduction_base", "cwnd"),
        ("tcp.sack_next_seg", "linux"),
        ("tcp.loss_detection", "rack"),
        ("tcp.push_flag", "linux"),
        ("tcp.recovery_exit", "above_recover"),
        ("tcp.reordering", "linux"),
        ("tcp.frto", "true"),
    ]));
    let a = load_file(&path, &with_profile).unwrap();
    let b = load_file(&path, &rest).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.flows[0].tcp.rto.min, 1_000_000_000, "the file's rto_min");
    assert_eq!(strip(&simulate(&a)), strip(&simulate(&b)));
}

#[test]
fn the_paper_profile_changes_no_result_of_the_committed_scenarios() {
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("wireless.toml", &[("cc", "westwood"), ("loss", "1%"), ("duration", "30s")]),
        ("wireless.toml", &[("cc", "reno"), ("loss", "2%"), ("duration", "30s")]),
        ("udp_onoff.toml", &[("duration", "30s")]),
        ("dumbbell.toml", &[("duration", "10s")]),
        ("multipath.toml", &[("duration", "20s")]),
    ];
    for (file, base) in cases {
        let path = scenarios_dir().join(file);
        let plain = load_file(&path, &sets(base)).unwrap();
        let mut with = sets(base);
        with.push(("tcp.profile".into(), "paper".into()));
        let paper = load_file(&path, &with).unwrap();
        assert_eq!(paper, plain, "{file}");
        assert_eq!(strip(&simulate(&paper)), strip(&simulate(&plain)), "{file} {base:?}");
    }
}

/// A 2 Mb/s line (92 ms round trip, about 22 packets) with a 100-packet buffer and the window in
/// congestion avoidance at 40 segments from the start; the first transmissions of `drops` lost.
fn scripted(
    recovery: Recovery,
    drops: &[u64],
    edit: impl Fn(&mut westwood_simulator::model::TcpSpec),
) -> Scenario {
    let line = Line {
        recovery,
        duration: 10 * SECOND,
        receiver_window: 100 * MSS,
        queue: westwood_simulator::model::QueueLimit::Packets(100),
        ..Line::default()
    };
    let mut scenario = line.scenario();
    let tcp = &mut scenario.flows[0].tcp;
    tcp.initial_cwnd = 40 * MSS;
    tcp.initial_ssthresh = 40 * MSS;
    edit(tcp);
    let bottleneck = scenario.links.iter_mut().find(|l| l.name == "bottleneck").unwrap();
    bottleneck.errors = Some(ErrorSpec::one(drop_list::setting(DropListSpec {
        flow_name: "ftp.0".into(),
        flow: 0,
        segment_size: MSS,
        first_byte: 0,
        segments: drops.to_vec(),
        acks: vec![],
        retransmissions: vec![],
    })));
    scenario
}

#[test]
fn a_long_newreno_recovery_times_out_with_the_impatient_timer_and_not_with_every() {
    // Twelve holes in one window: NewReno repairs one per round trip (~100 ms), so recovery
    // outlasts the 1 s RTO. "first" restarts the timer at the first partial ACK only (RFC 6582
    // §4, Impatient): it fires while holes remain. "every" (ns-2's newreno_changes1_ 0, Linux)
    // restarts it on each: one recovery, no timeout.
    let drops: Vec<u64> = (0..12).map(|i| 50 + 2 * i).collect();
    let run_with = |policy: PartialAckTimer| {
        let s = scripted(Recovery::NewReno, &drops, |t| t.partial_ack_timer = policy);
        simulate(&s).flows[0].clone()
    };
    let first = run_with(PartialAckTimer::First);
    let every = run_with(PartialAckTimer::Every);
    eprintln!(
        "first: timeouts {} fast retransmits {} retransmits {} | every: timeouts {} fast retransmits {} retransmits {}",
        first.timeouts, first.fast_retransmits, first.retransmits, every.timeouts, every.fast_retransmits, every.retransmits
    );
    assert_eq!((every.timeouts, every.fast_retransmits), (0, 1));
    assert_eq!(every.retransmits, drops.len() as u64, "each hole resent once");
    assert!(first.timeouts >= 1, "the impatient timer fires during the long recovery");
    assert!(first.retransmits > every.retransmits, "go-back-N after the timeout resends more");
}

/// The per-ACK trace rows of a run.
fn trace(scenario: &Scenario) -> Vec<AckRecord> {
    let mut rows: Vec<AckRecord> = Vec::new();
    let options = RunOptions { record_series: false, check_invariants: true };
    run_with_ack_trace(scenario, options, &mut rows).unwrap();
    rows
}

#[test]
fn without_inflation_no_new_segment_is_sent_in_fast_recovery_before_the_retransmission_is_acknowledged() {
    // One loss (segment 60) in a window of 40 segments; Reno recovery (the UCLA Westwood agent's)
    // and NewReno; Reno and Westwood windows. In the trace, bytes in flight (snd_max - snd_una
    // without SACK) can only grow during the DUPACKs of recovery if new segments go out.
    for cc in ["reno", "westwood"] {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            let growth = |inflation: bool| {
                let s = scripted(recovery, &[60], |t| {
                    t.fast_recovery_inflation = if inflation { Inflation::Standard } else { Inflation::Off };
                    if cc == "westwood" {
                        t.cc_name = "westwood".into();
                        t.cc = westwood_simulator::model::CcSpec::named("westwood");
                    }
                });
                let rows = trace(&s);
                let start =
                    rows.iter().position(|r| r.event == TraceEvent::Recovery).expect("a fast recovery");
                let at_start = rows[start].in_flight_bytes;
                // The DUPACKs until the ACK of new data (the retransmission's).
                let dupacks: Vec<&AckRecord> =
                    rows[start + 1..].iter().take_while(|r| r.event == TraceEvent::Ack && r.dupack).collect();
                assert!(dupacks.len() >= 20, "{cc} {recovery:?}: {} DUPACKs", dupacks.len());
                assert!(dupacks.iter().all(|r| r.ca_state == CaState::Recovery));
                dupacks.iter().map(|r| r.in_flight_bytes).max().unwrap() - at_start
            };
            assert_eq!(
                growth(false),
                0,
                "{cc} {recovery:?}: new segments sent in recovery without inflation"
            );
            assert!(growth(true) > 0, "{cc} {recovery:?}: with inflation, DUPACKs let new segments out");
        }
    }
}

#[test]
fn prr_composes_with_every_control_and_recovery_and_keeps_the_invariants() {
    // Lossy wireless path, both directions, invariants checked on every event.
    let path = scenarios_dir().join("wireless.toml");
    for cc in ["reno", "westwood", "westwood-plus", "cubic"] {
        for recovery in ["reno", "newreno", "sack"] {
            let s = load_file(
                &path,
                &sets(&[
                    ("cc", cc),
                    ("loss", "3%"),
                    ("duration", "30s"),
                    ("tcp.recovery", recovery),
                    ("tcp.recovery_pacing", "prr"),
                ]),
            )
            .unwrap();
            assert_eq!(s.flows[0].tcp.recovery_pacing, RecoveryPacing::Prr);
            let f = &simulate(&s).flows[0];
            assert!(f.bytes_delivered > 0 && f.fast_retransmits > 0, "{cc} {recovery}: {f:?}");
        }
    }
}

#[test]
fn prr_spreads_the_reduction_over_recovery_and_ends_it_with_the_flight_at_ssthresh() {
    // One loss in a window of 40 segments (ssthresh 20 after it): RFC 6937 sends one segment
    // per two delivered (ssthresh / RecoverFS = 1/2) from the start of recovery, where Reno's
    // inflation sends nothing for the first half window of DUPACKs and then one per DUPACK.
    // Both end recovery with ssthresh in flight.
    for recovery in [Recovery::NewReno, Recovery::Sack] {
        // Per pacing: (segments sent on 10 DUPACKs of recovery, in flight at its end, ssthresh).
        let measure = |pacing: RecoveryPacing| {
            let s = scripted(recovery, &[60], |t| t.recovery_pacing = pacing);
            let rows = trace(&s);
            let start = rows.iter().position(|r| r.event == TraceEvent::Recovery).unwrap();
            let end = start + rows[start..].iter().position(|r| r.ca_state == CaState::Open).unwrap();
            let ssthresh = rows[start].ssthresh_bytes;
            // From the first ACK after the fast retransmission to the 10th after it: snd_max -
            // snd_una grows by what is sent (no SACK); pipe by what is sent less what is newly
            // SACKed (SACK, the one hole already marked lost and resent).
            let change = |f: fn(&AckRecord) -> u64| f(&rows[start + 11]) as i64 - f(&rows[start + 1]) as i64;
            let mut sent_by_10 = change(|r| r.in_flight_bytes);
            if recovery == Recovery::Sack {
                sent_by_10 += change(|r| r.sacked_bytes);
            }
            (sent_by_10 / MSS as i64, rows[end].in_flight_bytes, ssthresh)
        };
        let (prr_early, prr_left, ssthresh) = measure(RecoveryPacing::Prr);
        let (inflation_early, inflation_left, _) = measure(RecoveryPacing::Inflation);
        assert_eq!(ssthresh, 20 * MSS, "{recovery:?}");
        assert!((4..=5).contains(&prr_early), "{recovery:?}: PRR sent {prr_early} on 10 DUPACKs");
        assert_eq!(inflation_early, 0, "{recovery:?}: inflation sent {inflation_early} on 10 DUPACKs");
        // The ACK that ends recovery acknowledges everything sent before it: what is left in
        // flight is what was sent during recovery, within a segment of ssthresh.
        for left in [prr_left, inflation_left] {
            assert!(left.abs_diff(ssthresh) <= MSS, "{recovery:?}: {left} in flight at the end");
        }
    }
}
