//! The committed test vectors (`vectors/`, docs/vectors.md).
//!
//! First, the committed files must be exactly what the generator produces now: they are the
//! contract the eBPF implementation is checked against, so a change in the algorithms or the
//! scripts must show up as a reviewed diff of `vectors/`, not silently.
//!
//! The other tests read only the committed files and check them against the seed papers'
//! rules, each on its own, so that a wrong vector fails for a stated reason: the events are ones
//! a sender would report, windows stay within bounds, TCPW's estimate decays over silence as
//! seed 000 §2.2 predicts, the loss rules of seed 000 §3 and seed 001 §IV hold line by line, and
//! the seed 001 §II-A episode does not inflate the estimate.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use westwood_algorithms::vectors::{self, GENERATOR_COMMAND};
use westwood_algorithms::westwood::{AckedCount, AckedCountRule};

fn vectors_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../vectors")
}

// ---------------------------------------------------------------------------------------------
// (a) The committed files are the generator's output.
// ---------------------------------------------------------------------------------------------

#[test]
fn committed_vectors_match_the_generator() {
    let root = vectors_dir();
    let stale = format!(
        "vectors/ is out of date with the generator: rerun `{GENERATOR_COMMAND}` from the \
         repository root, review the diff (the eBPF implementation is checked against these \
         files) and commit it"
    );
    let generated = vectors::generate();
    for file in &generated {
        let path = root.join(&file.path);
        let committed =
            fs::read_to_string(&path).unwrap_or_else(|e| panic!("{stale}\n{}: {e}", path.display()));
        let mut theirs = committed.lines();
        for (number, ours) in file.contents.lines().enumerate() {
            match theirs.next() {
                Some(line) if line == ours => {}
                Some(line) => panic!(
                    "{stale}\n{}:{}\n committed: {line}\n generated: {ours}",
                    path.display(),
                    number + 1
                ),
                None => panic!("{stale}\n{}: the committed file ends at line {}", path.display(), number + 1),
            }
        }
        if let Some(line) = theirs.next() {
            panic!(
                "{stale}\n{}: the committed file has extra lines from line {}: {line}",
                path.display(),
                file.contents.lines().count() + 1
            );
        }
        assert!(
            committed.ends_with('\n') && !committed.contains('\r'),
            "{stale}\n{}: line endings differ",
            path.display()
        );
    }
    let expected: Vec<String> = generated.iter().map(|f| f.path.clone()).collect();
    for file in committed_files() {
        assert!(
            expected.contains(&file),
            "{stale}\nvectors/{file} is not produced by the generator any more"
        );
    }
}

/// Paths (relative to `vectors/`) of every committed `.jsonl` file.
fn committed_files() -> Vec<String> {
    let mut files = Vec::new();
    let root = vectors_dir();
    for dir in fs::read_dir(&root).expect("vectors/ exists") {
        let dir = dir.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        for file in fs::read_dir(&dir).unwrap() {
            let path = file.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/"));
            }
        }
    }
    files.sort();
    files
}

// ---------------------------------------------------------------------------------------------
// Reading the committed files
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
struct Line {
    kind: String,
    time_us: u64,
    ack: u64,
    acked_bytes: u64,
    dupack: bool,
    rtt_us: Option<u64>,
    in_recovery: bool,
    in_flight: u64,
    /// Timeout of a segment the timer already retransmitted (RFC 5681 §3.1 holds ssthresh).
    repeated: bool,
    /// The event object as written, to compare events across variants.
    event: Value,
    bwe: Option<f64>,
    cwnd: u64,
    ssthresh: u64,
    rtt_min_us: Option<u64>,
}

#[derive(Debug)]
struct VectorFile {
    path: String,
    variant: String,
    vector: String,
    mss: u64,
    header: Value,
    lines: Vec<Line>,
}

impl VectorFile {
    fn param(&self, key: &str) -> f64 {
        self.header["params"][key].as_f64().unwrap_or_else(|| panic!("{}: params.{key}", self.path))
    }
}

fn u(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} is not an unsigned integer in {v}"))
}

fn parse_line(text: &str, path: &str, number: usize) -> Line {
    let v: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("{path}:{number}: not JSON ({e}): {text}"));
    let e = &v["event"];
    let s = &v["state"];
    let kind = e["kind"].as_str().expect("event.kind").to_string();
    let is_ack = kind == "ack";
    Line {
        time_us: u(e, "time_us"),
        ack: if is_ack { u(e, "ack") } else { 0 },
        acked_bytes: if is_ack { u(e, "acked_bytes") } else { 0 },
        dupack: is_ack && e["dupack"].as_bool().expect("event.dupack"),
        rtt_us: e["rtt_us"].as_u64(),
        in_recovery: is_ack && e["in_recovery"].as_bool().expect("event.in_recovery"),
        in_flight: if kind == "recovery_exit" { 0 } else { u(e, "in_flight") },
        repeated: e.get("repeated").and_then(Value::as_bool).unwrap_or(false),
        event: e.clone(),
        bwe: s["bwe_bps"].as_f64(),
        cwnd: u(s, "cwnd"),
        ssthresh: u(s, "ssthresh"),
        rtt_min_us: s["rtt_min_us"].as_u64(),
        kind,
    }
}

fn load(relative: &str) -> VectorFile {
    let path = vectors_dir().join(relative);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut lines = text.lines();
    let header: Value = serde_json::from_str(lines.next().expect("a header line")).unwrap();
    let lines: Vec<Line> = lines.enumerate().map(|(i, l)| parse_line(l, relative, i + 2)).collect();
    VectorFile {
        path: relative.to_string(),
        variant: header["variant"].as_str().unwrap().to_string(),
        vector: header["vector"].as_str().unwrap().to_string(),
        mss: u(&header, "mss"),
        lines,
        header,
    }
}

fn all_files() -> Vec<VectorFile> {
    let files: Vec<VectorFile> = committed_files().iter().map(|f| load(f)).collect();
    assert!(!files.is_empty(), "no vectors committed");
    files
}

fn files_of(variant: &str) -> Vec<VectorFile> {
    all_files().into_iter().filter(|f| f.variant == variant).collect()
}

fn is_loss(line: &Line) -> bool {
    line.kind == "dupacks" || line.kind == "timeout"
}

/// `max(2, floor(BWE * RTTmin / (8 * mss) / a))` segments, in bytes (seed 000 §3, 001 §IV).
/// Returns the set of acceptable values: both neighbours when the quotient is within 1e-9 of a
/// whole number, so float rounding in the check cannot flip the floor.
fn bandwidth_thresholds(bwe: f64, rtt_min_us: u64, mss: u64, a: f64) -> Vec<u64> {
    let x = bwe * (rtt_min_us as f64 / 1e6) / (8.0 * mss as f64) / a;
    let mut out: Vec<u64> = [x - 1e-9, x + 1e-9].iter().map(|y| (y.floor().max(2.0) as u64) * mss).collect();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------------------------
// (b) Checks on the committed files
// ---------------------------------------------------------------------------------------------

#[test]
fn headers_describe_their_files() {
    for f in all_files() {
        let expected_path = format!("{}/{}.jsonl", f.variant, f.vector);
        assert_eq!(f.path, expected_path, "header names another file");
        assert_eq!(u(&f.header, "events") as usize, f.lines.len(), "{}", f.path);
        let iw = westwood_algorithms::WindowConfig::rfc5681_initial_window(f.mss);
        assert_eq!(u(&f.header, "initial_cwnd"), iw, "{}", f.path);
        assert!(u(&f.header, "initial_ssthresh") >= 1 << 30, "{}", f.path);
        assert!(f.header["params"].is_object(), "{}", f.path);
        assert!(f.lines.len() >= 200, "{}: only {} events", f.path, f.lines.len());
    }
}

#[test]
fn every_variant_sees_the_same_events() {
    let mut by_vector: BTreeMap<String, Vec<VectorFile>> = BTreeMap::new();
    for f in all_files() {
        by_vector.entry(f.vector.clone()).or_default().push(f);
    }
    for (vector, files) in by_vector {
        assert_eq!(files.len(), vectors::Variant::ALL.len(), "{vector}: one file per variant");
        let first = &files[0];
        for other in &files[1..] {
            assert_eq!(first.lines.len(), other.lines.len(), "{vector}");
            for (i, (a, b)) in first.lines.iter().zip(&other.lines).enumerate() {
                assert_eq!(
                    a.event,
                    b.event,
                    "{vector}: line {} differs between {} and {}",
                    i + 2,
                    first.variant,
                    other.variant
                );
            }
        }
    }
}

#[test]
fn events_are_those_a_sender_would_report() {
    for f in files_of("westwood") {
        let mss = f.mss;
        let mut previous_time = 0;
        let mut snd_una = 0; // highest cumulative ACK so far
        let mut dupacks = 0;
        let mut in_recovery = false;
        for (i, l) in f.lines.iter().enumerate() {
            let at = format!("{}:{}", f.path, i + 2);
            assert!(l.time_us >= previous_time, "{at}: time goes back");
            previous_time = l.time_us;
            match l.kind.as_str() {
                "ack" => {
                    assert_eq!(l.in_recovery, in_recovery, "{at}: in_recovery flag");
                    assert_eq!(l.acked_bytes % mss, 0, "{at}: whole segments");
                    if l.dupack {
                        assert_eq!(l.ack, snd_una, "{at}: a DUPACK repeats the ACK number");
                        assert_eq!(l.acked_bytes, 0, "{at}");
                        assert!(l.in_flight > 0, "{at}: DUPACK with nothing outstanding");
                        assert_eq!(l.rtt_us, None, "{at}: no RTT sample from a DUPACK");
                        dupacks += 1;
                    } else {
                        assert!(l.ack > snd_una, "{at}: a new ACK advances");
                        assert_eq!(l.ack - snd_una, l.acked_bytes, "{at}: acked_bytes");
                        assert!(l.acked_bytes <= l.in_flight, "{at}: acks unsent data");
                        dupacks = 0;
                        snd_una = l.ack;
                    }
                    if let Some(rtt) = l.rtt_us {
                        assert!(rtt >= 100_000, "{at}: RTT below the path's base RTT");
                    }
                }
                "dupacks" => {
                    assert!(!in_recovery, "{at}: 3-DUPACK event during recovery");
                    assert_eq!(dupacks, 3, "{at}: fast retransmit at the 3rd DUPACK");
                    let before = &f.lines[i - 1];
                    assert!(before.dupack && before.time_us == l.time_us, "{at}");
                    assert_eq!(before.in_flight, l.in_flight, "{at}");
                    in_recovery = true;
                }
                "recovery_exit" => {
                    assert!(in_recovery, "{at}: exit without recovery");
                    let before = &f.lines[i - 1];
                    assert!(
                        before.kind == "ack" && before.in_recovery && !before.dupack,
                        "{at}: recovery ends on an ACK of new data"
                    );
                    assert_eq!(before.time_us, l.time_us, "{at}");
                    in_recovery = false;
                }
                "timeout" => {
                    assert!(l.in_flight > 0, "{at}: timeout with nothing outstanding");
                    in_recovery = false;
                    dupacks = 0;
                }
                other => panic!("{at}: unknown kind {other}"),
            }
        }
    }
}

/// Open loop: the scripts' sender follows Reno's window, which every variant shares until the
/// first loss; up to there it never has more outstanding than the controller's cwnd allows.
#[test]
fn before_the_first_loss_the_sender_stays_within_cwnd() {
    for f in all_files() {
        let mut cwnd = u(&f.header, "initial_cwnd");
        for (i, l) in f.lines.iter().take_while(|l| !is_loss(l)).enumerate() {
            assert!(
                l.in_flight <= cwnd,
                "{}:{}: {} bytes outstanding, cwnd {cwnd}",
                f.path,
                i + 2,
                l.in_flight
            );
            cwnd = l.cwnd;
        }
    }
}

#[test]
fn cwnd_is_at_least_one_segment_on_every_line() {
    for f in all_files() {
        for (i, l) in f.lines.iter().enumerate() {
            assert!(l.cwnd >= f.mss, "{}:{}: cwnd {} < mss {}", f.path, i + 2, l.cwnd, f.mss);
        }
    }
}

#[test]
fn ssthresh_is_at_least_two_segments_after_any_loss() {
    for f in all_files() {
        let mut lost = false;
        for (i, l) in f.lines.iter().enumerate() {
            lost |= is_loss(l);
            if lost {
                assert!(
                    l.ssthresh >= 2 * f.mss,
                    "{}:{}: ssthresh {} after a loss",
                    f.path,
                    i + 2,
                    l.ssthresh
                );
            }
        }
    }
}

#[test]
fn the_sequences_exercise_what_they_are_named_for() {
    let count = |f: &VectorFile, kind: &str| f.lines.iter().filter(|l| l.kind == kind).count();
    for f in files_of("westwood") {
        let longest_gap = f.lines.windows(2).map(|w| w[1].time_us - w[0].time_us).max().unwrap();
        match f.vector.as_str() {
            "steady" => {
                assert_eq!(count(&f, "dupacks"), 1);
                assert_eq!(count(&f, "timeout"), 0);
                assert!(f.lines.last().unwrap().time_us >= 2_500_000);
            }
            "dupack-burst" => assert_eq!(count(&f, "dupacks"), 2),
            "rto" => {
                assert_eq!(count(&f, "timeout"), 2, "an RTO and a backed-off RTO");
                let first_ack_after =
                    f.lines.iter().skip_while(|l| l.kind != "timeout").find(|l| l.kind == "ack").unwrap();
                assert_eq!(first_ack_after.rtt_us, None, "Karn: no sample after an RTO");
            }
            "long-silence" => {
                assert!(longest_gap >= 3_000_000, "longest ACK gap {longest_gap} µs");
                assert_eq!(count(&f, "timeout"), 0, "nothing outstanding, no RTO");
            }
            "delayed-acks" => {
                let acks: Vec<&Line> =
                    f.lines.iter().filter(|l| l.kind == "ack" && !l.dupack && !l.in_recovery).collect();
                let pairs = acks.iter().filter(|l| l.acked_bytes == 2 * f.mss).count();
                let timer = acks
                    .iter()
                    .filter(|l| l.acked_bytes == f.mss && l.rtt_us.is_some_and(|r| r >= 300_000))
                    .count();
                assert!(pairs * 10 >= acks.len() * 9, "{pairs} of {} ACKs", acks.len());
                assert!(timer >= 3, "{timer} delayed-ACK timer ACKs");
            }
            "mss1448" => {
                assert_eq!(f.mss, 1448);
                assert_eq!(count(&f, "dupacks"), 2);
                assert_eq!(count(&f, "timeout"), 1);
            }
            other => panic!("unexpected vector {other}"),
        }
    }
}

/// The filter of seed 000 §2.2 after a silence: the first virtual sample at `tau/m` after the
/// last ACK gives `r*BWE + b_prev/(2m+1)` (r = (2m-1)/(2m+1)), each further one multiplies by r.
fn virtual_samples_before(t_last: u64, t: u64, interval: u64) -> u64 {
    // Samples at t_last + j*interval, j >= 1, strictly before t.
    (t - t_last - 1) / interval
}

#[test]
fn tcpw_estimate_decays_by_the_virtual_sample_factor_over_silences() {
    let mut checked = 0;
    for f in files_of("westwood") {
        let tau = f.param("tau_us");
        let m = f.param("m");
        let interval = (tau / m) as u64;
        let r = (2.0 * m - 1.0) / (2.0 * m + 1.0);
        for (i, l) in f.lines.iter().enumerate().skip(3) {
            let (last, before_last) = (&f.lines[i - 1], &f.lines[i - 2]);
            let first_after_silence = l.kind == "ack" && l.time_us - last.time_us > interval;
            if !first_after_silence {
                continue;
            }
            // The last real sample: the last ACK's credit over its spacing. Skip the rare
            // silences whose last sample is not that simple (after a loss event, after ACKs
            // sharing a timestamp, after another silence).
            let simple = last.kind == "ack"
                && before_last.kind == "ack"
                && !last.dupack
                && !last.in_recovery
                && last.time_us > before_last.time_us
                && before_last.time_us > f.lines[i - 3].time_us
                && last.time_us - before_last.time_us <= interval;
            if !simple {
                continue;
            }
            let b_prev = last.acked_bytes as f64 * 8e6 / (last.time_us - before_last.time_us) as f64;
            let h = virtual_samples_before(last.time_us, l.time_us, interval);
            assert!(h >= 1);
            let bwe = last.bwe.unwrap();
            let decayed = r.powi(h as i32 - 1) * (r * bwe + b_prev / (2.0 * m + 1.0));
            // Then the real sample, over the time since the last virtual one.
            let delta = (l.time_us - (last.time_us + h * interval)) as f64;
            let alpha = (2.0 * tau - delta) / (2.0 * tau + delta);
            let b = l.acked_bytes as f64 * 8e6 / delta;
            let expected = alpha * decayed + (1.0 - alpha) * b / 2.0;
            let got = l.bwe.unwrap();
            assert!(
                (got - expected).abs() <= 1e-9 * bwe,
                "{}:{}: BWE {got} after {h} virtual samples, expected {expected} \
                 (decay ((2m-1)/(2m+1))^h from {bwe})",
                f.path,
                i + 2
            );
            if f.vector == "long-silence" {
                assert!(h >= 11, "a 3 s silence is at least 11 periods of tau/m");
                assert!(decayed < bwe * r.powi(h as i32 - 1), "the estimate decays");
            }
            checked += 1;
        }
        // The RTO is taken after a silence too: the estimate at the timeout is decayed by the
        // virtual samples due before it, and a backed-off RTO continues the same decay.
        let mut last_ack: Option<(u64, f64, f64)> = None; // (time, BWE, last sample)
        let mut previous_timeout: Option<(u64, f64)> = None; // (virtual samples, BWE)
        for (i, l) in f.lines.iter().enumerate() {
            match l.kind.as_str() {
                "ack" => {
                    let before = &f.lines[i.saturating_sub(1)];
                    let spacing = l.time_us.saturating_sub(before.time_us);
                    let sample = if spacing > 0 && !l.dupack && before.kind == "ack" {
                        l.acked_bytes as f64 * 8e6 / spacing as f64
                    } else {
                        f64::NAN
                    };
                    last_ack = Some((l.time_us, l.bwe.unwrap(), sample));
                    previous_timeout = None;
                }
                "timeout" => {
                    let (t_last, bwe, b_prev) = last_ack.unwrap();
                    let h = virtual_samples_before(t_last, l.time_us, interval);
                    let got = l.bwe.unwrap();
                    let expected = match previous_timeout {
                        None => r.powi(h as i32 - 1) * (r * bwe + b_prev / (2.0 * m + 1.0)),
                        Some((h0, bwe0)) => bwe0 * r.powi((h - h0) as i32),
                    };
                    assert!(
                        (got - expected).abs() <= 1e-9 * bwe,
                        "{}:{}: BWE at the RTO {got}, expected {expected} after {h} virtual \
                         samples",
                        f.path,
                        i + 2
                    );
                    previous_timeout = Some((h, got));
                    checked += 1;
                }
                _ => {}
            }
        }
    }
    assert!(checked >= 5, "only {checked} silences checked");
}

#[test]
fn rtt_min_is_the_smallest_rtt_sample_so_far() {
    // The UCLA agent keeps RTTmin in coarse ticks: its own test below.
    for f in all_files().into_iter().filter(|f| f.variant != "reno" && f.variant != "westwood-ucla") {
        let mut min: Option<u64> = None;
        for (i, l) in f.lines.iter().enumerate() {
            if let Some(r) = l.rtt_us {
                min = Some(min.map_or(r, |m| m.min(r)));
            }
            assert_eq!(l.rtt_min_us, min, "{}:{}", f.path, i + 2);
        }
    }
}

/// Seed 000 §3.1-3.2 (no reduction factor): TCPW (with either option), ABSE and Westwood+.
#[test]
fn westwood_thresholds_are_bwe_times_rttmin_in_whole_segments() {
    let mut checked = 0;
    for variant in ["westwood", "westwood-abse", "westwood-plus", "westwood-interval", "westwood-acked-ucla"]
    {
        for f in files_of(variant) {
            for (i, l) in f.lines.iter().enumerate() {
                let at = format!("{}:{}", f.path, i + 2);
                let before = &f.lines[i - usize::from(i > 0)];
                match l.kind.as_str() {
                    "dupacks" => {
                        // At the 3rd DUPACK: no silence, so the preceding line's BWE is the
                        // estimate the rule uses.
                        let bwe = before.bwe.unwrap();
                        assert_eq!(l.bwe, before.bwe, "{at}: BWE moved at the loss");
                        let allowed = bandwidth_thresholds(bwe, before.rtt_min_us.unwrap(), f.mss, 1.0);
                        assert!(
                            allowed.contains(&l.ssthresh),
                            "{at}: ssthresh {} from BWE {bwe}, RTTmin {:?}: expected {allowed:?}",
                            l.ssthresh,
                            before.rtt_min_us
                        );
                        assert_eq!(l.cwnd, before.cwnd.min(l.ssthresh), "{at}: cwnd");
                        checked += 1;
                    }
                    "timeout" => {
                        // The estimate brought up to the RTO (decayed, for TCPW).
                        let bwe = l.bwe.unwrap();
                        let allowed = bandwidth_thresholds(bwe, l.rtt_min_us.unwrap(), f.mss, 1.0);
                        assert!(allowed.contains(&l.ssthresh), "{at}: ssthresh {}", l.ssthresh);
                        assert_eq!(l.cwnd, f.mss, "{at}: cwnd after an RTO");
                        checked += 1;
                    }
                    "recovery_exit" => {
                        assert_eq!(
                            (l.cwnd, l.ssthresh),
                            (before.cwnd, before.ssthresh),
                            "{at}: recovery exit leaves the window as the loss rule set it"
                        );
                    }
                    _ => {}
                }
            }
        }
    }
    assert!(checked >= 20, "{checked}");
}

/// Seed 001 §IV: the threshold is divided by `a`, which grows by 0.25 at a 3-DUPACK loss and
/// by 1 at a timeout in slow start (at most 4) and returns to 1 at a loss in congestion
/// avoidance.
#[test]
fn tr_thresholds_are_divided_by_the_reduction_factor() {
    let mut checked = 0;
    for f in files_of("westwood-tr") {
        let max_a = f.param("max_reduction_factor");
        let mut a: f64 = 1.0;
        for (i, l) in f.lines.iter().enumerate() {
            if !is_loss(l) {
                continue;
            }
            let before = &f.lines[i - 1];
            let slow_start = before.cwnd < before.ssthresh;
            a = if slow_start {
                let step = if l.kind == "dupacks" { 0.25 } else { 1.0 };
                (a + step).min(max_a)
            } else {
                1.0
            };
            let allowed = bandwidth_thresholds(before.bwe.unwrap(), before.rtt_min_us.unwrap(), f.mss, a);
            assert!(
                allowed.contains(&l.ssthresh),
                "{}:{}: ssthresh {} with a = {a}: expected {allowed:?}",
                f.path,
                i + 2,
                l.ssthresh
            );
            checked += 1;
        }
    }
    assert!(checked >= 6, "{checked}");
}

/// RFC 5681 eq. (4), FlightSize capped at cwnd (reno.rs); ssthresh held on a repeated timeout;
/// cwnd = ssthresh at recovery exit.
#[test]
fn reno_halves_the_window() {
    for f in files_of("reno") {
        for (i, l) in f.lines.iter().enumerate() {
            let at = format!("{}:{}", f.path, i + 2);
            let before = &f.lines[i - usize::from(i > 0)];
            assert_eq!(l.bwe, None, "{at}");
            match l.kind.as_str() {
                "timeout" if l.repeated => {
                    assert_eq!((l.ssthresh, l.cwnd), (before.ssthresh, f.mss), "{at}: repeated timeout");
                }
                "dupacks" | "timeout" => {
                    let ssthresh = (l.in_flight.min(before.cwnd) / 2).max(2 * f.mss);
                    assert_eq!(l.ssthresh, ssthresh, "{at}");
                    let cwnd = if l.kind == "dupacks" { ssthresh } else { f.mss };
                    assert_eq!(l.cwnd, cwnd, "{at}");
                }
                "recovery_exit" => assert_eq!(l.cwnd, l.ssthresh, "{at}"),
                _ => {}
            }
        }
    }
}

/// Seed 001 §II-A: 20 DUPACKs, the retransmissions ACKed in pairs, one cumulative ACK. With
/// AckedCount the estimate must not surge: at most 1.1 times its value before the episode.
#[test]
fn the_seed_001_episode_does_not_inflate_westwood_bwe() {
    let f = load("westwood/dupack-burst.jsonl");
    let mss = f.mss;
    // The episode is the last loss of the sequence.
    let loss = f.lines.iter().rposition(|l| l.kind == "dupacks").unwrap();
    let first_dupack = (0..loss).rev().find(|&i| !f.lines[i].dupack).unwrap() + 1;
    let exit = loss + f.lines[loss..].iter().position(|l| l.kind == "recovery_exit").unwrap();
    let episode = &f.lines[first_dupack..exit];
    let dupacks: Vec<&Line> = episode.iter().filter(|l| l.dupack).collect();
    let new: Vec<&Line> = episode.iter().filter(|l| l.kind == "ack" && !l.dupack).collect();
    assert_eq!(dupacks.len(), 20, "20 DUPACKs");
    let hole = dupacks[0].ack;
    let advances: Vec<u64> = new.iter().map(|l| l.acked_bytes / mss).collect();
    assert_eq!(advances, [2, 2, 2, 2, 22], "four delayed ACKs, one cumulative");
    assert_eq!(new.last().unwrap().ack, hole + 30 * mss);

    let before = f.lines[first_dupack - 1].bwe.unwrap();
    let peak =
        episode.iter().chain(std::iter::once(&f.lines[exit])).filter_map(|l| l.bwe).fold(0.0, f64::max);
    assert!(peak <= 1.1 * before, "BWE {before} before the episode, peak {peak} during it");
}

// ---------------------------------------------------------------------------------------------
// (c) The options and the UCLA agent (docs/westwood.md)
// ---------------------------------------------------------------------------------------------

/// Interval sampling over a silence: each virtual sample multiplies the estimate by
/// `r = (2m-1)/(2m+1)` (no `b_prev` term), then the real sample counts alone:
/// `alpha BWE + (1 - alpha) b`.
#[test]
fn interval_estimate_decays_by_alpha_over_silences() {
    let mut checked = 0;
    for f in files_of("westwood-interval") {
        assert_eq!(f.header["params"]["sample"], "interval", "{}", f.path);
        let tau = f.param("tau_us");
        let m = f.param("m");
        let interval = (tau / m) as u64;
        let r = (2.0 * m - 1.0) / (2.0 * m + 1.0);
        let mut last_ack: Option<(u64, f64)> = None; // (time, BWE)
        for (i, l) in f.lines.iter().enumerate() {
            let at = format!("{}:{}", f.path, i + 2);
            if l.kind == "timeout" {
                let (t_last, bwe) = last_ack.unwrap();
                let h = virtual_samples_before(t_last, l.time_us, interval);
                let expected = bwe * r.powi(h as i32);
                assert!((l.bwe.unwrap() - expected).abs() <= 1e-9 * bwe + 1e-9, "{at}: BWE at the RTO");
                checked += 1;
            }
            if l.kind != "ack" {
                continue;
            }
            if let Some((t_last, bwe)) = last_ack {
                // The real sample after h >= 1 virtual ones (the ACK gap since the last ACK; a
                // timeout in between leaves the clock where the virtual samples left it).
                let gap = l.time_us - t_last;
                let previous_kind = &f.lines[i - 1].kind;
                if gap > interval && previous_kind == "ack" && l.time_us > t_last {
                    let h = virtual_samples_before(t_last, l.time_us, interval);
                    let decayed = bwe * r.powi(h as i32);
                    let delta = (l.time_us - (t_last + h * interval)) as f64;
                    let alpha = (2.0 * tau - delta) / (2.0 * tau + delta);
                    // An ACK of new data outside recovery, nothing accounted for by DUPACKs:
                    // AckedCount credits what it acknowledges.
                    let b = l.acked_bytes as f64 * 8e6 / delta;
                    if !l.dupack && !l.in_recovery {
                        let expected = alpha * decayed + (1.0 - alpha) * b;
                        let got = l.bwe.unwrap();
                        assert!(
                            (got - expected).abs() <= 1e-9 * bwe.max(got),
                            "{at}: BWE {got} after {h} virtual samples, expected {expected}"
                        );
                        checked += 1;
                    }
                }
            }
            last_ack = Some((l.time_us, l.bwe.unwrap()));
        }
    }
    assert!(checked >= 5, "only {checked} silences checked");
}

/// The UCLA AckedCount rule changes only what an ACK credits: TCPW with it has the same state
/// as TCPW with the paper's rule up to the first ACK the two rules credit differently, and a
/// different estimate there. The rules differ only on ACKs of more than two segments and on
/// ACKs covered by earlier DUPACKs; with an ACK per segment (and a single hole per recovery)
/// they agree throughout, so only `dupack-burst` (delayed ACKs during a 10-segment hole) departs.
#[test]
fn acked_ucla_departs_from_westwood_where_the_rules_credit_differently() {
    let mut departed = Vec::new();
    for f in files_of("westwood-acked-ucla") {
        assert_eq!(f.header["params"]["acked_count"], "ucla", "{}", f.path);
        let paper_file = load(&format!("westwood/{}.jsonl", f.vector));
        let (mut paper, mut ucla) = (AckedCount::new(), AckedCount::with_rule(AckedCountRule::Ucla));
        for (i, (l, p)) in f.lines.iter().zip(&paper_file.lines).enumerate() {
            let at = format!("{}:{}", f.path, i + 2);
            let credits_differ = l.kind == "ack" && paper.on_ack(l.ack, f.mss) != ucla.on_ack(l.ack, f.mss);
            if credits_differ {
                assert_ne!(l.bwe, p.bwe, "{at}: the credits differ, the estimates should");
                departed.push(f.vector.clone());
                break;
            }
            assert_eq!(
                (l.bwe, l.cwnd, l.ssthresh, l.rtt_min_us),
                (p.bwe, p.cwnd, p.ssthresh, p.rtt_min_us),
                "{at}: same credits so far, same state"
            );
        }
    }
    assert_eq!(departed, ["dupack-burst"], "sequences where the rules credit differently");
}

/// The UCLA agent's RTTmin: the smallest `max(1, floor(rtt / tick)) * tick` over the samples,
/// 5 s before the first.
#[test]
fn ucla_rtt_min_is_the_smallest_coarse_sample_from_5_s() {
    for f in files_of("westwood-ucla") {
        let tick = f.param("tick_us") as u64;
        let mut min = f.param("initial_rtt_min_us") as u64;
        assert_eq!((tick, min), (10_000, 5_000_000), "{}", f.path);
        for (i, l) in f.lines.iter().enumerate() {
            if let Some(r) = l.rtt_us {
                min = min.min((r / tick).max(1) * tick);
            }
            assert_eq!(l.rtt_min_us, Some(min), "{}:{}", f.path, i + 2);
        }
    }
}

/// The UCLA agent's loss rules, with its factor `a` tracked from the lines (0 at the start; in
/// slow start +0.25 at 3 DUPACKs and +1 at a timeout, at most 4; 1 in congestion avoidance):
/// the DUPACK threshold is not divided by `a`, the timeout's is; the estimate does not decay at
/// a loss; recovery exit changes nothing.
#[test]
fn ucla_loss_rules_follow_the_agent() {
    let mut checked = 0;
    let mut divided_timeouts = 0;
    for f in files_of("westwood-ucla") {
        let params = &f.header["params"];
        assert_eq!((params["filter_type"].as_u64(), params["tau_us"].as_u64()), (Some(3), Some(1_000_000)));
        let max_a = f.param("max_reduction_factor");
        let mut a = f.param("initial_reduction_factor");
        for (i, l) in f.lines.iter().enumerate() {
            let at = format!("{}:{}", f.path, i + 2);
            let before = &f.lines[i - usize::from(i > 0)];
            match l.kind.as_str() {
                "dupacks" | "timeout" => {
                    let timeout = l.kind == "timeout";
                    let slow_start = before.cwnd < before.ssthresh;
                    let step =
                        f.param(if timeout { "reduction_step_timeout" } else { "reduction_step_dupacks" });
                    a = if slow_start { (a + step).min(max_a) } else { 1.0 };
                    assert_eq!(l.bwe, before.bwe, "{at}: the estimate moved at the loss");
                    let divisor = if timeout { a } else { 1.0 };
                    let allowed = bandwidth_thresholds(l.bwe.unwrap(), l.rtt_min_us.unwrap(), f.mss, divisor);
                    assert!(
                        allowed.contains(&l.ssthresh),
                        "{at}: ssthresh {} with a = {a} ({}): expected {allowed:?}",
                        l.ssthresh,
                        l.kind
                    );
                    let cwnd = if timeout { f.mss } else { before.cwnd.min(l.ssthresh) };
                    assert_eq!(l.cwnd, cwnd, "{at}: cwnd");
                    checked += 1;
                    divided_timeouts += usize::from(timeout && a > 1.0);
                }
                "recovery_exit" => {
                    assert_eq!((l.cwnd, l.ssthresh), (before.cwnd, before.ssthresh), "{at}");
                }
                _ => {}
            }
        }
    }
    assert!(checked >= 10, "{checked}");
    assert!(divided_timeouts >= 1, "no timeout with a > 1 in the vectors");
}

/// Seed 001 §II-A under the UCLA agent's AckedCount: the estimate does not surge either.
#[test]
fn the_seed_001_episode_does_not_inflate_bwe_with_the_ucla_rule() {
    for variant in ["westwood-acked-ucla", "westwood-ucla"] {
        let f = load(&format!("{variant}/dupack-burst.jsonl"));
        let loss = f.lines.iter().rposition(|l| l.kind == "dupacks").unwrap();
        let first_dupack = (0..loss).rev().find(|&i| !f.lines[i].dupack).unwrap() + 1;
        let exit = loss + f.lines[loss..].iter().position(|l| l.kind == "recovery_exit").unwrap();
        let before = f.lines[first_dupack - 1].bwe.unwrap();
        let peak = f.lines[first_dupack..=exit].iter().filter_map(|l| l.bwe).fold(0.0, f64::max);
        assert!(peak <= 1.1 * before, "{variant}: BWE {before} before the episode, peak {peak} during it");
    }
}
