//! The per-ACK trace of a simulated run (`westwood run --ack-trace`, docs/ack-trace.md): its rows
//! against the run's own summary and time series on the seed 000 wireless path, determinism,
//! no effect on the results, and no file left by a run that fails.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use westwood_simulator::model::Scenario;
use westwood_simulator::results::{FlowSeries, RunResult, Summary};
use westwood_simulator::{run, run_with_ack_trace, run_with_ack_trace_file, scenario};
use westwood_simulator::{AckSink, RunError, RunOptions};
use westwood_trace::{read_ack_trace, AckRecord, CaState, TraceEvent, COLUMNS};

const RECORD: RunOptions = RunOptions { record_series: true, check_invariants: false };

fn scenario_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(format!("{name}.toml"))
}

fn wireless(overrides: &[(&str, &str)]) -> Scenario {
    let overrides: Vec<(String, String)> =
        overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    scenario::load_file(&scenario_file("wireless"), &overrides).unwrap()
}

/// A directory of its own for each test (they run in parallel).
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("westwood-ack-trace-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn traced(scenario: &Scenario, path: &Path) -> RunResult {
    run_with_ack_trace_file(scenario, RECORD, path).unwrap_or_else(|e| panic!("{}: {e}", scenario.name))
}

fn without_wall_time(mut summary: Summary) -> Summary {
    summary.wall_seconds = 0.0;
    summary
}

/// The series' samples of `flow`: (time ns, bwe, snd_una).
fn samples(series: &FlowSeries, flow: &str) -> Vec<(u64, f64, u64)> {
    (0..series.flow.len())
        .filter(|&i| series.flow[i] == flow)
        .map(|i| ((series.time_seconds[i] * 1e9).round() as u64, series.bwe_bps[i], series.snd_una[i]))
        .collect()
}

/// Every property of docs/ack-trace.md the run's own numbers can confirm; returns
/// sum(credited_bytes) / final ack for Westwood flows.
fn check_trace(label: &str, result: &RunResult, path: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(text.lines().next().unwrap(), COLUMNS.join(","), "{label}: header");
    let rows = read_ack_trace(path).unwrap();
    let summary = &result.summary;
    let series = result.flow_series.as_ref().unwrap();
    let mut by_flow: BTreeMap<&str, Vec<&AckRecord>> = BTreeMap::new();
    for r in &rows {
        by_flow.entry(r.flow.as_str()).or_default().push(r);
    }
    assert_eq!(by_flow.len(), summary.flows.len(), "{label}: one series of rows per flow");
    let mut ratio = None;
    for flow in &summary.flows {
        let rows = &by_flow[flow.name.as_str()];
        let label = format!("{label} {}", flow.name);
        let count = |e: TraceEvent| rows.iter().filter(|r| r.event == e).count() as u64;
        assert_eq!(count(TraceEvent::Recovery), flow.fast_retransmits, "{label}: recovery rows");
        assert_eq!(
            count(TraceEvent::Timeout) + count(TraceEvent::TimeoutHeld),
            flow.timeouts,
            "{label}: timeout rows"
        );
        for pair in rows.windows(2) {
            assert!(pair[0].ack <= pair[1].ack, "{label}: ack went back: {:?}", pair);
            if flow.recovery != "sack" {
                // Without SACK in_flight is snd_max - snd_una, and snd_max never goes back.
                let snd_max = |r: &AckRecord| r.ack + r.in_flight_bytes;
                assert!(snd_max(pair[0]) <= snd_max(pair[1]), "{label}: snd_max went back: {pair:?}");
            }
            assert!(pair[0].time_ns <= pair[1].time_ns, "{label}: time went back: {:?}", pair);
        }
        for r in rows {
            assert_eq!((r.cc.as_str(), r.mss), (flow.cc.as_str(), flow.segment_size), "{label}");
            if r.dupack {
                assert_eq!((r.event, r.acked_bytes), (TraceEvent::Ack, 0), "{label}: {r:?}");
            }
            match r.event {
                TraceEvent::Ack => assert!(r.dupack || r.acked_bytes > 0, "{label}: {r:?}"),
                TraceEvent::Recovery => {
                    let entered = if flow.recovery == "tahoe" { CaState::Loss } else { CaState::Recovery };
                    assert_eq!((r.acked_bytes, r.dupack, r.ca_state), (0, false, entered), "{label}");
                }
                TraceEvent::Timeout | TraceEvent::TimeoutHeld => {
                    assert_eq!((r.acked_bytes, r.dupack, r.ca_state), (0, false, CaState::Loss), "{label}")
                }
            }
            if flow.recovery != "sack" {
                assert_eq!(r.sacked_bytes, 0, "{label}: SACKed bytes without SACK");
            }
            assert!(r.rtt_us.is_none_or(|rtt| rtt >= flow.min_rtt_seconds * 1e6), "{label}: {r:?}");
        }
        // The last ACK is what the sender had acknowledged at the end: the series' last snd_una.
        let final_ack = rows.last().unwrap().ack;
        let (_, _, last_una) = *samples(series, &flow.name).last().unwrap();
        assert_eq!(final_ack, last_una, "{label}: final ack");
        assert!(final_ack <= flow.bytes_delivered, "{label}");
        let acked: u64 = rows.iter().map(|r| r.acked_bytes).sum();
        assert_eq!(acked, final_ack, "{label}: sum of acked_bytes");
        // Delayed ACKs: at least one ACK per two segments delivered (out-of-order segments are
        // ACKed at once, which more than makes up for the ACKs the lossy hop drops).
        let ack_rows = count(TraceEvent::Ack) as f64;
        let segments = flow.bytes_delivered as f64 / flow.segment_size as f64;
        assert!(ack_rows >= segments / 2.0, "{label}: {ack_rows} ACK rows for {segments} segments");

        let westwood = flow.cc.starts_with("westwood");
        for r in rows {
            assert_eq!(r.credited_bytes.is_some(), westwood, "{label}: credited_bytes {r:?}");
            assert_eq!(r.bwe_bps.is_some(), westwood, "{label}: bwe_bps {r:?}");
        }
        if westwood {
            let credited: u64 = rows.iter().filter_map(|r| r.credited_bytes).sum();
            ratio = Some(credited as f64 / final_ack as f64);
            check_bwe_against_series(&label, rows, &samples(series, &flow.name));
        }
    }
    ratio
}

/// At each series sample the estimate is the one left by the last row before it (rows at the
/// sample's own time may come before or after it: either value is accepted).
fn check_bwe_against_series(label: &str, rows: &[&AckRecord], samples: &[(u64, f64, u64)]) {
    let mut checked = 0;
    for &(t, bwe, _) in samples {
        let before = rows.partition_point(|r| r.time_ns < t);
        if before == 0 {
            continue;
        }
        let at = rows[before..].iter().take_while(|r| r.time_ns == t).map(|r| r.bwe_bps);
        let candidates: Vec<Option<f64>> = std::iter::once(rows[before - 1].bwe_bps).chain(at).collect();
        assert!(candidates.contains(&Some(bwe)), "{label}: series BWE {bwe} at {t} ns, trace {candidates:?}");
        checked += 1;
    }
    assert!(checked > samples.len() / 2, "{label}: only {checked} samples checked");
}

#[test]
fn the_trace_agrees_with_the_run_on_the_wireless_path() {
    let dir = scratch("agrees");
    let cases: &[(&str, &[(&str, &str)])] = &[
        ("westwood 1%", &[("cc", "westwood"), ("loss", "1%")]),
        ("westwood 2%", &[("cc", "westwood"), ("loss", "2%")]),
        ("westwood 3%", &[("cc", "westwood"), ("loss", "3%")]),
        ("westwood+sack 2%", &[("cc", "westwood"), ("loss", "2%"), ("tcp.recovery", "sack")]),
        ("westwood-plus 2%", &[("cc", "westwood-plus"), ("loss", "2%")]),
        ("reno 2%", &[("cc", "reno"), ("loss", "2%")]),
        ("newreno 2%", &[("cc", "newreno"), ("loss", "2%")]),
        ("sack 2%", &[("cc", "sack"), ("loss", "2%")]),
        ("tahoe 2%", &[("cc", "tahoe"), ("loss", "2%")]),
    ];
    let mut ratios = Vec::new();
    for (i, (label, overrides)) in cases.iter().enumerate() {
        let path = dir.join(format!("acks{i}.csv"));
        let result = traced(&wireless(overrides), &path);
        let f = &result.summary.flows[0];
        assert!(f.fast_retransmits > 0, "{label}: the case should see losses");
        if let Some(ratio) = check_trace(label, &result, &path) {
            eprintln!("{label}: sum(credited_bytes) / final ack = {ratio:.4}");
            ratios.push((label, ratio));
        }
    }
    // AckedCount (seed 000 §2.3) credits each delivered segment once over the run: a DUPACK
    // counts one, the cumulative ACK that covers it that much less.
    for (label, ratio) in ratios {
        assert!((ratio - 1.0).abs() <= 0.05, "{label}: sum(credited)/final ack = {ratio:.4}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_same_seed_gives_the_same_bytes_and_tracing_changes_no_result() {
    let dir = scratch("deterministic");
    let scenario = wireless(&[("cc", "westwood"), ("loss", "2%"), ("duration", "30s")]);
    let (a, b) = (dir.join("a.csv"), dir.join("b.csv"));
    let first = traced(&scenario, &a);
    let second = traced(&scenario, &b);
    let bytes = std::fs::read(&a).unwrap();
    assert!(bytes.len() > 100_000);
    assert!(bytes == std::fs::read(&b).unwrap(), "two runs of the same seed wrote different traces");
    let plain = run(&scenario, RECORD).unwrap();
    assert_eq!(without_wall_time(first.summary.clone()), without_wall_time(plain.summary.clone()));
    // Debug text, so that the series' NaNs (no estimate yet) compare equal.
    assert_eq!(format!("{:?}", first.flow_series), format!("{:?}", plain.flow_series));
    assert_eq!(format!("{:?}", first.link_series), format!("{:?}", plain.link_series));
    assert_eq!(without_wall_time(second.summary), without_wall_time(plain.summary));
    // And another seed gives another trace.
    let mut other = scenario.clone();
    other.seed += 1;
    traced(&other, &b);
    assert!(bytes != std::fs::read(&b).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rows_can_go_to_any_sink_in_time_order() {
    let scenario = wireless(&[("cc", "westwood"), ("loss", "1%"), ("duration", "10s")]);
    let mut rows: Vec<AckRecord> = Vec::new();
    let result = run_with_ack_trace(&scenario, RunOptions::default(), &mut rows).unwrap();
    assert!(result.flow_series.is_none());
    assert!(rows.windows(2).all(|p| p[0].time_ns <= p[1].time_ns));
    assert_eq!(rows.iter().filter(|r| r.event.is_timeout()).count() as u64, result.summary.flows[0].timeouts);
    // The first ACK: an RTT sample, RTTmin equal to it, and the state of slow start.
    let first = &rows[0];
    assert_eq!((first.event, first.ca_state, first.dupack), (TraceEvent::Ack, CaState::Open, false));
    assert_eq!(first.rtt_us, first.rtt_min_us);
    assert!(first.rtt_us.unwrap() > 90_000.0, "{first:?}");
    assert_eq!(first.ack, first.acked_bytes);
    assert!(first.ssthresh_bytes >= 2_147_483_647, "{first:?}");
}

#[test]
fn ca_states_follow_the_sender() {
    // NewReno at 3 %: recoveries, timeouts and DUPACKs below the threshold all occur.
    let scenario = wireless(&[("cc", "newreno"), ("loss", "3%")]);
    let mut rows: Vec<AckRecord> = Vec::new();
    run_with_ack_trace(&scenario, RunOptions::default(), &mut rows).unwrap();
    let mut seen = BTreeMap::new();
    for pair in rows.windows(2) {
        let (before, r) = (&pair[0], &pair[1]);
        *seen.entry(r.ca_state.as_str()).or_insert(0) += 1;
        if r.event != TraceEvent::Ack {
            continue;
        }
        match r.ca_state {
            // DUPACKs, or (new ACKs) the state just left.
            CaState::Disorder => assert!(r.dupack, "{r:?}"),
            CaState::Open => assert!(!r.dupack || before.ca_state == CaState::Loss, "{r:?}"),
            // Entered only by a loss reaction, left only by a new ACK.
            CaState::Recovery | CaState::Loss => {
                assert!(before.ca_state == r.ca_state || before.event != TraceEvent::Ack, "{before:?} {r:?}")
            }
            CaState::Cwr => panic!("the simulator has no ECN: {r:?}"),
        }
        if before.ca_state == CaState::Recovery && r.ca_state != CaState::Recovery {
            assert!(r.acked_bytes > 0, "recovery ends on a new ACK: {r:?}");
        }
    }
    for state in ["open", "disorder", "recovery", "loss"] {
        assert!(seen.get(state).copied().unwrap_or(0) > 0, "no {state} rows: {seen:?}");
    }
}

#[test]
fn generated_flows_are_named_by_their_table_and_number() {
    let text = r#"
[scenario]
name = "arrivals"
duration = "20s"
[topology]
nodes = ["a", "b"]
[links.ab]
from = "a"
to = "b"
rate = "2Mbps"
delay = "10ms"
queue = 50
duplex = true
[flows.web]
from = "a"
to = "b"
arrivals = { mean_interarrival = "2s", mean_duration = "4s" }
cc = "westwood"
"#;
    let scenario = scenario::load_str(text, "arrivals.toml", &[]).unwrap();
    let mut rows: Vec<AckRecord> = Vec::new();
    let result = run_with_ack_trace(&scenario, RunOptions::default(), &mut rows).unwrap();
    let started = result.summary.arrivals[0].flows_started;
    assert!(started >= 3, "{started}");
    let names: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.flow.as_str()).collect();
    let expected: std::collections::BTreeSet<String> = (1..=started).map(|k| format!("web#{k}")).collect();
    // A flow that closes before its first ACK has no rows.
    assert!(names.iter().all(|n| expected.contains(*n)), "{names:?}");
    assert!(names.len() as u64 >= started / 2, "{names:?} of {started}");
    assert!(rows.iter().all(|r| r.cc == "westwood" && r.credited_bytes.is_some()));
}

#[test]
fn a_run_that_fails_leaves_no_trace_file() {
    let dir = scratch("fails");
    let path = dir.join("acks.csv");
    // The ACKs have no way back: the network cannot be built.
    let text = r#"
[scenario]
name = "oneway"
duration = "10s"
[topology]
nodes = ["a", "b"]
[links.ab]
from = "a"
to = "b"
rate = "2Mbps"
delay = "10ms"
queue = 50
duplex = false
[flows.ftp]
from = "a"
to = "b"
"#;
    let scenario = scenario::load_str(text, "oneway.toml", &[]).unwrap();
    let err = run_with_ack_trace_file(&scenario, RECORD, &path).unwrap_err();
    assert!(matches!(&err, RunError::Scenario(e) if e.message.contains("no route back")), "{err}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "files left: {left:?}");

    // A directory that does not exist: the error names the file.
    let missing = dir.join("no/such/dir/acks.csv");
    let err = run_with_ack_trace_file(&wireless(&[]), RECORD, &missing).unwrap_err();
    assert!(matches!(err, RunError::Trace(_)), "{err}");
    assert!(err.to_string().contains("no/such/dir/acks.csv"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A sink that fails after `limit` rows, like a full disk.
struct FailingSink {
    rows: u64,
    limit: u64,
}

impl AckSink for FailingSink {
    fn write_row(&mut self, _row: &AckRecord) -> io::Result<()> {
        self.rows += 1;
        if self.rows > self.limit {
            return Err(io::Error::other("disk full"));
        }
        Ok(())
    }
}

#[test]
fn a_write_error_stops_the_run_with_an_error() {
    let scenario = wireless(&[("cc", "westwood"), ("loss", "1%")]);
    let mut sink = FailingSink { rows: 0, limit: 1000 };
    let err = run_with_ack_trace(&scenario, RunOptions::default(), &mut sink).unwrap_err();
    assert!(matches!(err, RunError::Trace(_)), "{err}");
    assert_eq!(err.to_string(), "cannot write the per-ACK trace: disk full");
    // The run stopped at the event that failed: no rows were offered after it.
    assert_eq!(sink.rows, 1001);
}
