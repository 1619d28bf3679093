//! `westwood replay`: a per-ACK trace (`docs/ack-trace.md`) fed back through the Rust
//! estimators, whose BWE is then compared with the trace's own BWE and with the delivery rate.
//!
//! A gap between the kernel's tcpw* and the simulator's Westwood has two possible causes: the
//! ACK streams differ, or the estimators do. Replaying one stream through both splits them: the
//! same input must give the same BWE (bit for bit against the simulator, within the fixed-point
//! error against the kernel). Semantics and how to read the output: `docs/replay.md`.
//!
//! This is an estimator-level replay, not a TCP simulation: nothing is sent, the trace's window
//! is imposed on the control before every row ([`CongestionControl::observe_window`]) and the
//! control only turns the trace's ACKs and loss reactions into a BWE and, at loss rows, a
//! threshold. The congestion controls and their parameters are resolved exactly as a scenario's
//! `[tcp]` table resolves them (`--set` takes the same keys and values), with the trace's `mss`
//! as the segment size.
//!
//! Pure: the only I/O is reading the trace. Rows stream through: memory is bounded by the number
//! of flows and one delivery-rate window per flow; what to keep of the rows is the caller's
//! choice ([`Decimator`] bounds a plot's series).

use std::cell::Cell;
use std::collections::{HashMap, VecDeque};
use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;
use std::rc::Rc;

use serde::Serialize;
use westwood_algorithms::{AckEvent, CongestionControl, CongestionEvent};
use westwood_trace::{AckRecord, AckTraceReader, CaState, TraceError, TraceEvent};

use crate::model::TcpSpec;
use crate::scenario::{self, ScenarioError};

/// The delivery rate's window is one RTTmin, but never less than this (100 ms), unless
/// [`ReplayConfig::delivery_window_ns`] fixes it.
pub const MIN_DELIVERY_WINDOW_NS: u64 = 100_000_000;

/// Rows between two calls of the progress callback.
pub const PROGRESS_EVERY_ROWS: u64 = 4096;

/// Which sender wrote the trace: it decides what the control saw of the window when an ACK
/// arrived, and where AckedCount starts (`docs/replay.md`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TraceOrigin {
    /// `westwood run --ack-trace`: a row is taken after the control's `on_ack` and the sender's
    /// handling of the ACK, so the window the control saw is the previous row's. AckedCount
    /// starts at the first ACK (the Rust reference's rule).
    Simulator,
    /// `westwood linux watch --acks`, the testbed's `acks.csv` (cc `tcpw*`): a row is taken in
    /// `in_ack_event`, when the estimator ran, before the kernel grows the window, so the window
    /// the estimator saw is the row's own. AckedCount starts at `snd_una` when the control was
    /// initialised (`tcpw.bpf.c` `start_acked_count`): the first ACK is credited with what it
    /// acknowledges.
    Kernel,
}

impl TraceOrigin {
    pub const ALL: [TraceOrigin; 2] = [TraceOrigin::Simulator, TraceOrigin::Kernel];

    pub fn name(self) -> &'static str {
        match self {
            TraceOrigin::Simulator => "simulator",
            TraceOrigin::Kernel => "kernel",
        }
    }

    pub fn from_name(name: &str) -> Option<TraceOrigin> {
        TraceOrigin::ALL.into_iter().find(|o| o.name().eq_ignore_ascii_case(name.trim()))
    }

    /// The origin a flow's `cc` column implies: the kernel's trace names its eBPF program (the
    /// registry's kernel name of a control whose twin is ours), the simulator's the control.
    pub fn of_trace_cc(cc: &str) -> TraceOrigin {
        let ebpf = westwood_algorithms::registry::lookup(cc)
            .is_some_and(|e| e.ebpf.is_some() && e.kernel == Some(cc));
        if ebpf {
            TraceOrigin::Kernel
        } else {
            TraceOrigin::Simulator
        }
    }
}

/// What to replay.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReplayConfig {
    /// Congestion controls, as a scenario names them (`westwood`, `westwood-plus`, ...).
    pub ccs: Vec<String>,
    /// `--set KEY=VALUE` overrides of the `[tcp]` table (`westwood={ tau = "1s" }`, or
    /// `tcp.westwood.tau=1s`), applied in order to every control they concern: a variant's
    /// parameter table (`westwood`, `westwood_abse`, ...) only to that variant.
    pub overrides: Vec<(String, String)>,
    /// The trace's origin; `None`: per flow, from its `cc` column ([`TraceOrigin::of_trace_cc`]).
    pub origin: Option<TraceOrigin>,
    /// A fixed delivery-rate window, ns; `None`: max(RTTmin, 100 ms).
    pub delivery_window_ns: Option<u64>,
}

/// Why a replay failed.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayError {
    /// The trace: the file, the line and the column.
    Trace(TraceError),
    /// A setting: `key` names it as the user wrote it (`--cc`, `--set westwood.m`,
    /// `--delivery-window`, `--origin`).
    Setting { key: String, message: String },
    /// The progress callback asked to stop.
    Interrupted,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Trace(e) => e.fmt(f),
            ReplayError::Setting { key, message } => write!(f, "{key}: {message}"),
            ReplayError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for ReplayError {}

impl From<TraceError> for ReplayError {
    fn from(e: TraceError) -> Self {
        ReplayError::Trace(e)
    }
}

fn setting(key: impl Into<String>, message: impl Into<String>) -> ReplayError {
    ReplayError::Setting { key: key.into(), message: message.into() }
}

/// `--delivery-window` text (`"250ms"`) as ns.
pub fn parse_delivery_window(text: &str) -> Result<u64, ReplayError> {
    match crate::fields::units::parse_duration(text) {
        Ok(0) => Err(setting("--delivery-window", "must be longer than 0")),
        Ok(ns) => Ok(ns),
        Err(m) => Err(setting("--delivery-window", m)),
    }
}

/// `--origin` text: `simulator` or `kernel`.
pub fn parse_origin(text: &str) -> Result<TraceOrigin, ReplayError> {
    TraceOrigin::from_name(text)
        .ok_or_else(|| setting("--origin", format!("{text:?} is not one of simulator, kernel")))
}

// ------------------------------------------------------------------------------------------
// Resolving the controls like a scenario's [tcp] table.

/// A one-flow scenario whose `[tcp]` table names `cc` and the segment size `mss`: what the
/// overrides are applied to, so that they take exactly a scenario's keys and values. `tables`:
/// (empty) parameter tables, so that `--set westwood.tau=1s` has a table to set a key in.
fn scenario_text(cc: &str, mss: u64, tables: &[String]) -> String {
    let mut text = format!(
        "[scenario]\nduration = \"1s\"\n[topology]\nnodes = [\"sender\", \"receiver\"]\n\
         [links.path]\nfrom = \"sender\"\nto = \"receiver\"\nrate = \"1Gbps\"\ndelay = \"1ms\"\n\
         [flows.replay]\nfrom = \"sender\"\nto = \"receiver\"\n\
         [tcp]\ncc = {}\nsegment_size = \"{mss}B\"\n",
        toml::Value::String(cc.to_string())
    );
    for table in tables {
        text.push_str(&format!("[tcp.{table}]\n"));
    }
    text
}

fn tcp_spec(
    cc: &str,
    mss: u64,
    tables: &[String],
    overrides: &[(String, String)],
) -> Result<TcpSpec, ScenarioError> {
    let scenario = scenario::load_str(&scenario_text(cc, mss, tables), "replay", overrides)?;
    Ok(scenario.flows[0].tcp.clone())
}

/// A scenario error as the replay's user should read it: the field becomes the option.
fn from_scenario(e: ScenarioError) -> ReplayError {
    let field = e.field.strip_prefix("--set ").unwrap_or(&e.field);
    let key = field.strip_prefix("tcp.").unwrap_or(field);
    if key == "cc" {
        setting("--cc", e.message)
    } else if key.is_empty() || key == "tcp" {
        setting("--set", e.message)
    } else {
        setting(format!("--set {key}"), e.message)
    }
}

/// One control to replay and the overrides that concern it.
#[derive(Debug, Clone)]
struct Setup {
    cc: String,
    /// The parameter tables its overrides set (`westwood_abse` for `westwood-abse`;
    /// `westwood_ucla` for both UCLA agents).
    tables: Vec<String>,
    overrides: Vec<(String, String)>,
}

impl Setup {
    fn spec(&self, mss: u64) -> Result<TcpSpec, ScenarioError> {
        tcp_spec(&self.cc, mss, &self.tables, &self.overrides)
    }
}

/// The ccs and overrides, checked: each cc is one a scenario accepts, each override key one its
/// `[tcp]` table accepts with a value it accepts.
fn setups(config: &ReplayConfig) -> Result<Vec<Setup>, ReplayError> {
    if config.ccs.is_empty() {
        return Err(setting("--cc", "name at least one congestion control, e.g. westwood"));
    }
    let mut names: Vec<String> = Vec::new();
    for cc in &config.ccs {
        let name = cc.trim().to_ascii_lowercase();
        if name.is_empty() {
            return Err(setting("--cc", "an empty congestion control name"));
        }
        if names.contains(&name) {
            return Err(setting("--cc", format!("{name:?} is named twice")));
        }
        tcp_spec(&name, 1000, &[], &[]).map_err(from_scenario)?;
        names.push(name);
    }
    // Each override, as a key of the [tcp] table; a parameter table goes to the replayed
    // controls that take it alone (a scenario rejects another variant's table).
    let mut keyed: Vec<(TableTakers, (String, String))> = Vec::new();
    for (key, value) in &config.overrides {
        let key = key.trim();
        let inner = key.strip_prefix("tcp.").unwrap_or(key);
        let table = inner.split('.').next().unwrap_or("").trim().trim_matches('"');
        match table {
            "cc" => return Err(setting(format!("--set {inner}"), "choose the controls with --cc")),
            "segment_size" => {
                return Err(setting(
                    format!("--set {inner}"),
                    "the segment size is the trace's `mss` column (per flow)",
                ))
            }
            _ => {}
        }
        let takers = parameter_table_takers(table);
        if !takers.is_empty() && !takers.iter().any(|t| names.contains(t)) {
            let owners: Vec<String> = takers.iter().map(|t| format!("{t:?}")).collect();
            return Err(setting(
                format!("--set {inner}"),
                format!(
                    "parameters of cc = {}, which is not replayed (--cc {})",
                    owners.join(" or "),
                    names.join(",")
                ),
            ));
        }
        let owners = (!takers.is_empty()).then(|| (table.to_string(), takers));
        keyed.push((owners, (format!("tcp.{inner}"), value.clone())));
    }
    let mut out = Vec::new();
    for name in names {
        let mine =
            |owners: &Option<(String, Vec<String>)>| owners.as_ref().is_none_or(|(_, t)| t.contains(&name));
        let overrides: Vec<(String, String)> =
            keyed.iter().filter(|(owners, _)| mine(owners)).map(|(_, kv)| kv.clone()).collect();
        let mut tables: Vec<String> = Vec::new();
        for (owners, _) in &keyed {
            if let (true, Some((table, _))) = (mine(owners), owners) {
                if !tables.contains(table) {
                    tables.push(table.clone());
                }
            }
        }
        let setup = Setup { cc: name, tables, overrides };
        setup.spec(1000).map_err(from_scenario)?;
        out.push(setup);
    }
    Ok(out)
}

/// A parameter table an override sets and the controls that take it; `None`: a plain `[tcp]` key.
type TableTakers = Option<(String, Vec<String>)>;

/// The controls whose parameter table is `key` in the registry (`westwood_abse`:
/// `westwood-abse`; `westwood_ucla`: both UCLA agents); none for a plain `[tcp]` key.
fn parameter_table_takers(key: &str) -> Vec<String> {
    westwood_algorithms::registry::entries()
        .into_iter()
        .filter(|e| e.parameters.as_ref().is_some_and(|t| t.key == key))
        .map(|e| e.name.to_string())
        .collect()
}

// ------------------------------------------------------------------------------------------
// Per-row output and the report.

/// One replayed row: what the callback of [`Replayer::push`] / [`replay_file`] gets.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplayRow<'a> {
    /// 1-based data row of the trace file (all flows).
    pub row: u64,
    /// Line of the file (the header is line 1).
    pub line: u64,
    pub flow: &'a str,
    pub time_ns: u64,
    pub event: TraceEvent,
    pub trace_bwe_bps: Option<f64>,
    /// The replayed BWE after the row, per cc in [`ReplayConfig::ccs`] order (`None` for a
    /// control without an estimator).
    pub bwe_bps: &'a [Option<f64>],
    /// ACK progress over the delivery window ending at this row, bits/s (`None` until one window
    /// has passed since the flow's first row).
    pub delivery_bps: Option<f64>,
    pub trace_ssthresh_bytes: u64,
    /// The replayed ssthresh after the row, per cc.
    pub ssthresh_bytes: &'a [u64],
    pub trace_credited_bytes: Option<u64>,
    /// What the replayed AckedCount credited (`ack` rows of controls with an estimator).
    pub credited_bytes: &'a [Option<u64>],
}

/// Where a largest difference happened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Extreme {
    /// The difference: bits/s for an absolute one, a fraction of the trace's BWE for a relative
    /// one.
    pub value: f64,
    pub row: u64,
    pub line: u64,
    pub time_s: f64,
    pub event: &'static str,
    pub trace_bwe_bps: f64,
    pub replay_bwe_bps: f64,
}

/// A loss row whose replayed threshold differs from the trace's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SsthreshMismatch {
    pub row: u64,
    pub line: u64,
    pub time_s: f64,
    pub event: &'static str,
    pub trace_ssthresh_bytes: u64,
    pub replay_ssthresh_bytes: u64,
}

/// An `ack` row whose replayed AckedCount credit differs from the trace's.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CreditMismatch {
    pub row: u64,
    pub line: u64,
    pub time_s: f64,
    pub trace_credited_bytes: u64,
    pub replay_credited_bytes: u64,
}

/// One control replayed over one flow.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CcReport {
    pub cc: String,
    /// Time-weighted mean of the replayed BWE (each row's value held until the flow's next row).
    pub mean_bwe_bps: Option<f64>,
    /// Rows where both the trace and the replay have a BWE.
    pub compared_rows: u64,
    /// Of those, rows with the same f64, bit for bit.
    pub identical_rows: u64,
    /// Largest |replay - trace| BWE, bits/s.
    pub max_abs_diff: Option<Extreme>,
    /// Largest |replay - trace| / trace over rows with a positive trace BWE.
    pub max_rel_diff: Option<Extreme>,
    /// `recovery`, `timeout` and `timeout_held` rows.
    pub loss_rows: u64,
    /// Loss rows whose replayed ssthresh equals the trace's.
    pub ssthresh_equal: u64,
    /// Largest |replay - trace| ssthresh at a loss row, bytes.
    pub ssthresh_max_abs_diff_bytes: u64,
    pub first_ssthresh_mismatch: Option<SsthreshMismatch>,
    /// `ack` rows where both the trace and the replay have an AckedCount credit.
    pub credit_rows: u64,
    pub credit_equal: u64,
    pub first_credit_mismatch: Option<CreditMismatch>,
}

/// One flow of the trace.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlowReport {
    pub flow: String,
    /// The trace's `cc` column (of its first row).
    pub trace_cc: String,
    pub origin: TraceOrigin,
    pub mss: u64,
    pub rows: u64,
    /// Leading rows not replayed: the kernel's trace of the SYN-ACK before the control's init.
    pub skipped_rows: u64,
    /// Kernel traces: `recovery` rows without the ACK that triggered them (not fed to the
    /// estimator, so not traced, but their RTT sample was taken: see the notes).
    pub untraced_acks: u64,
    pub ack_rows: u64,
    pub recovery_rows: u64,
    /// `timeout` and `timeout_held` rows (every RTO).
    pub timeout_rows: u64,
    pub start_s: f64,
    pub duration_s: f64,
    /// Time-weighted mean of the trace's BWE.
    pub mean_trace_bwe_bps: Option<f64>,
    /// Time-weighted mean of the delivery rate (over the rows that have one).
    pub mean_delivery_bps: Option<f64>,
    /// The delivery window at the end of the flow, seconds.
    pub delivery_window_s: f64,
    pub replays: Vec<CcReport>,
    /// What may make the comparison inexact (a trace that starts mid-connection, an mss that
    /// changes, ...).
    pub notes: Vec<String>,
}

/// The whole replay.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReplayReport {
    /// The trace as it was named.
    pub trace: String,
    pub rows: u64,
    pub ccs: Vec<String>,
    /// How the delivery rate was measured: `"max(RTTmin, 100 ms)"` or a fixed window.
    pub delivery_window: String,
    pub flows: Vec<FlowReport>,
}

// ------------------------------------------------------------------------------------------
// Running statistics.

/// A time-weighted mean of a step function sampled at rows (plain mean when no time passes).
#[derive(Debug, Clone, Copy, Default)]
struct TimeMean {
    weighted: f64,
    weight: f64,
    sum: f64,
    count: u64,
}

impl TimeMean {
    /// `value` held for `dt_ns` (the value of the previous row, until this one).
    fn hold(&mut self, value: Option<f64>, dt_ns: u64) {
        if let Some(v) = value {
            self.weighted += v * dt_ns as f64;
            self.weight += dt_ns as f64;
        }
    }

    fn sample(&mut self, value: Option<f64>) {
        if let Some(v) = value {
            self.sum += v;
            self.count += 1;
        }
    }

    fn mean(&self) -> Option<f64> {
        if self.weight > 0.0 {
            Some(self.weighted / self.weight)
        } else if self.count > 0 {
            Some(self.sum / self.count as f64)
        } else {
            None
        }
    }
}

#[derive(Debug, Clone, Default)]
struct CcStats {
    bwe: TimeMean,
    compared: u64,
    identical: u64,
    max_abs: Option<Extreme>,
    max_rel: Option<Extreme>,
    loss_rows: u64,
    ssthresh_equal: u64,
    ssthresh_max_abs: u64,
    first_ssthresh_mismatch: Option<SsthreshMismatch>,
    credit_rows: u64,
    credit_equal: u64,
    first_credit_mismatch: Option<CreditMismatch>,
}

/// ACK progress over a sliding window: `(ack(t) - ack(t - W)) * 8 / W`, `ack(x)` the cumulative
/// ACK of the last row at or before `x` (before the first row: the ACK before it).
#[derive(Debug, Clone)]
struct Delivery {
    start_ns: u64,
    /// Rows with `time > t - W`, oldest first.
    window: VecDeque<(u64, u64)>,
    /// `ack(t - W)`.
    base_ack: u64,
}

impl Delivery {
    fn new(start_ns: u64, ack_before: u64) -> Self {
        Delivery { start_ns, window: VecDeque::new(), base_ack: ack_before }
    }

    fn on_row(&mut self, time_ns: u64, ack: u64, window_ns: u64) -> Option<f64> {
        match self.window.back_mut() {
            Some(last) if last.0 == time_ns => last.1 = last.1.max(ack),
            _ => self.window.push_back((time_ns, ack)),
        }
        let edge = time_ns.checked_sub(window_ns)?;
        while let Some(&(t, a)) = self.window.front() {
            if t > edge {
                break;
            }
            self.base_ack = a;
            self.window.pop_front();
        }
        if edge < self.start_ns {
            return None;
        }
        Some(ack.saturating_sub(self.base_ack) as f64 * 8e9 / window_ns as f64)
    }
}

/// What the next row needs to know of the previous one.
#[derive(Debug, Clone, Copy)]
struct Previous {
    time_ns: u64,
    event: TraceEvent,
    cwnd: u64,
    ssthresh: u64,
    ca_state: CaState,
    in_flight: u64,
    trace_bwe: Option<f64>,
    delivery: Option<f64>,
}

struct FlowState {
    name: String,
    trace_cc: String,
    origin: TraceOrigin,
    mss: u64,
    controls: Vec<Box<dyn CongestionControl>>,
    /// The first row was fed ([`FlowState::start`]).
    started: bool,
    /// Rows before it that the traced control never fed to its estimator.
    skipped: u64,
    /// Kernel `recovery` rows without the ACK that triggered them, and the first one's line.
    untraced_acks: u64,
    first_untraced_ack: Option<u64>,
    /// The cumulative ACK before the flow's first row: subtracted from every ACK number fed.
    base_ack: u64,
    /// Added to the ACK numbers after the first `ack` row (the kernel's AckedCount start).
    ack_shift: u64,
    first_ack_fed: bool,
    previous: Option<Previous>,
    last_replay_bwe: Vec<Option<f64>>,
    last_timeout_ack: Option<u64>,
    delivery: Delivery,
    rtt_min_us: Option<f64>,
    rows: u64,
    ack_rows: u64,
    recovery_rows: u64,
    timeout_rows: u64,
    start_ns: u64,
    end_ns: u64,
    trace_bwe: TimeMean,
    delivery_mean: TimeMean,
    window_ns: u64,
    stats: Vec<CcStats>,
    other_mss: Option<(u64, u64)>,
    time_went_back: Option<u64>,
}

impl FlowState {
    /// The window, threshold, state and flight the control saw when `rec`'s event arrived: the
    /// row before's, but for what the kernel traces with the event itself.
    fn window_seen(&self, rec: &AckRecord) -> (u64, u64, CaState, u64) {
        match self.previous {
            None => (rec.cwnd_bytes, rec.ssthresh_bytes, rec.ca_state, rec.in_flight_bytes),
            Some(p) => {
                let (c, s) = if self.origin == TraceOrigin::Kernel && rec.event == TraceEvent::Ack {
                    (rec.cwnd_bytes, rec.ssthresh_bytes)
                } else {
                    (p.cwnd, p.ssthresh)
                };
                let state = if self.origin == TraceOrigin::Kernel { rec.ca_state } else { p.ca_state };
                (c, s, state, p.in_flight)
            }
        }
    }

    /// After `rec` was fed: each control's estimate, threshold and credit into the row's
    /// outputs, and the comparison with the trace's into the control's statistics (`dt`: the
    /// time since the row before, for the time means).
    #[allow(clippy::too_many_arguments)]
    fn compare(
        &mut self,
        row: u64,
        line: u64,
        rec: &AckRecord,
        dt: u64,
        bwe_out: &mut [Option<f64>],
        ssthresh_out: &mut [u64],
        credited_out: &mut [Option<u64>],
    ) {
        let time_s = seconds(rec.time_ns);
        let event_name = rec.event.as_str();
        for (k, cc) in self.controls.iter().enumerate() {
            let bwe = cc.bandwidth_estimate_bps();
            let stats = &mut self.stats[k];
            if self.previous.is_some() {
                stats.bwe.hold(self.last_replay_bwe[k], dt);
            }
            stats.bwe.sample(bwe);
            self.last_replay_bwe[k] = bwe;
            bwe_out[k] = bwe;
            ssthresh_out[k] = cc.ssthresh();
            credited_out[k] = if rec.event == TraceEvent::Ack { cc.last_credited_bytes() } else { None };
            if let (Some(t), Some(r)) = (rec.bwe_bps, bwe) {
                stats.compared += 1;
                if t.to_bits() == r.to_bits() {
                    stats.identical += 1;
                }
                let extreme = |value| Extreme {
                    value,
                    row,
                    line,
                    time_s,
                    event: event_name,
                    trace_bwe_bps: t,
                    replay_bwe_bps: r,
                };
                let abs = (r - t).abs();
                if stats.max_abs.as_ref().is_none_or(|m| abs > m.value) {
                    stats.max_abs = Some(extreme(abs));
                }
                if t > 0.0 {
                    let rel = abs / t;
                    if stats.max_rel.as_ref().is_none_or(|m| rel > m.value) {
                        stats.max_rel = Some(extreme(rel));
                    }
                }
            }
            if rec.event != TraceEvent::Ack {
                stats.loss_rows += 1;
                let replayed = ssthresh_out[k];
                if replayed == rec.ssthresh_bytes {
                    stats.ssthresh_equal += 1;
                } else {
                    stats.ssthresh_max_abs =
                        stats.ssthresh_max_abs.max(replayed.abs_diff(rec.ssthresh_bytes));
                    if stats.first_ssthresh_mismatch.is_none() {
                        stats.first_ssthresh_mismatch = Some(SsthreshMismatch {
                            row,
                            line,
                            time_s,
                            event: event_name,
                            trace_ssthresh_bytes: rec.ssthresh_bytes,
                            replay_ssthresh_bytes: replayed,
                        });
                    }
                }
            }
            if let (Some(t), Some(r)) =
                (rec.credited_bytes.filter(|_| rec.event == TraceEvent::Ack), credited_out[k])
            {
                stats.credit_rows += 1;
                if t == r {
                    stats.credit_equal += 1;
                } else if stats.first_credit_mismatch.is_none() {
                    stats.first_credit_mismatch = Some(CreditMismatch {
                        row,
                        line,
                        time_s,
                        trace_credited_bytes: t,
                        replay_credited_bytes: r,
                    });
                }
            }
        }
    }

    /// Feed `rec` (line `line`) to every control: the window it saw, a loss row's RTT sample,
    /// then the ACK or the loss reaction.
    fn feed(&mut self, line: u64, rec: &AckRecord) {
        let (cwnd, ssthresh, state, in_flight) = self.window_seen(rec);
        for cc in &mut self.controls {
            cc.observe_window(cwnd, ssthresh);
        }
        // A loss row's RTT sample: the kernel's estimator took it with this loss reaction (from
        // an ACK it was not fed; docs/ack-trace.md), before computing the threshold.
        if rec.event != TraceEvent::Ack {
            if let Some(us) = rec.rtt_us {
                for cc in &mut self.controls {
                    cc.on_rtt_sample((us * 1000.0).round() as u64);
                }
            }
        }
        match rec.event {
            TraceEvent::Ack => {
                self.ack_rows += 1;
                let relative = rec.ack.saturating_sub(self.base_ack);
                let ack_seq = if self.first_ack_fed { relative + self.ack_shift } else { relative };
                self.first_ack_fed = true;
                let event = AckEvent {
                    now_ns: rec.time_ns,
                    ack_seq,
                    newly_acked_bytes: rec.acked_bytes,
                    newly_delivered_bytes: rec.acked_bytes,
                    is_dupack: rec.dupack,
                    rtt_sample_ns: rec.rtt_us.map(|us| (us * 1000.0).round() as u64),
                    in_recovery: state == CaState::Recovery,
                    bytes_in_flight: in_flight,
                    cwnd_limited: true,
                };
                for cc in &mut self.controls {
                    cc.on_ack(&event);
                }
            }
            TraceEvent::Recovery => {
                self.recovery_rows += 1;
                // The kernel traces the ACK that triggers recovery just before (same time), unless
                // it did not feed it to the estimator (a window update: not a DUPACK by RFC 5681).
                let traced =
                    self.previous.is_some_and(|p| p.event == TraceEvent::Ack && p.time_ns == rec.time_ns);
                if self.origin == TraceOrigin::Kernel && !traced {
                    self.untraced_acks += 1;
                    self.first_untraced_ack.get_or_insert(line);
                }
                // Tahoe's fast retransmit goes back to slow start: the simulator marks it `loss`.
                let event = if self.origin == TraceOrigin::Simulator && rec.ca_state == CaState::Loss {
                    CongestionEvent::DuplicateAcksSlowStart {
                        now_ns: rec.time_ns,
                        bytes_in_flight: in_flight,
                    }
                } else {
                    CongestionEvent::DuplicateAcks { now_ns: rec.time_ns, bytes_in_flight: in_flight }
                };
                for cc in &mut self.controls {
                    cc.on_congestion(event);
                }
            }
            TraceEvent::Timeout | TraceEvent::TimeoutHeld => {
                self.timeout_rows += 1;
                let repeated = self.last_timeout_ack == Some(rec.ack);
                self.last_timeout_ack = Some(rec.ack);
                // The traced stack decided whether the timeout asked for a new threshold.
                let event = if rec.event == TraceEvent::TimeoutHeld {
                    CongestionEvent::TimeoutHeld { now_ns: rec.time_ns, bytes_in_flight: in_flight }
                } else {
                    CongestionEvent::Timeout { now_ns: rec.time_ns, bytes_in_flight: in_flight, repeated }
                };
                for cc in &mut self.controls {
                    cc.on_congestion(event);
                }
            }
        }
    }

    /// 6.18 passes the SYN-ACK of an active open to `in_ack_event` before the control's `init`:
    /// tcpw.bpf.c then traces a row from its zeroed state (an ACK number counted from 0, a
    /// credit of 0) and `init` starts everything afresh. AckedCount credits every ACK it is fed at
    /// least one segment, so a credit of 0 before the first real row marks that row.
    fn is_kernel_pre_init(&self, rec: &AckRecord) -> bool {
        self.origin == TraceOrigin::Kernel && rec.event == TraceEvent::Ack && rec.credited_bytes == Some(0)
    }

    /// The flow's first fed row: where ACK numbers and the delivery rate start from.
    fn start(&mut self, rec: &AckRecord) {
        self.started = true;
        self.base_ack = match rec.event {
            TraceEvent::Ack => rec.ack.saturating_sub(rec.acked_bytes),
            _ => rec.ack,
        };
        // The kernel credits its first ACK with what it acknowledges (AckedCount starts at
        // snd_una at init); the Rust reference counts its first ACK as one segment and remembers
        // it as if a DUPACK had reported it. Feeding the first ACK one segment below the ones
        // after it (every later ACK number is shifted up by one mss) makes the second ACK cover
        // that extra segment, which cancels the remembered one: from the second ACK on both
        // count the same. The first ACK's own credit stays one segment (docs/replay.md).
        let kernel_start = self.origin == TraceOrigin::Kernel && rec.event == TraceEvent::Ack && !rec.dupack;
        self.ack_shift = if kernel_start { self.mss } else { 0 };
        self.delivery = Delivery::new(rec.time_ns, self.base_ack);
        self.start_ns = rec.time_ns;
        self.end_ns = rec.time_ns;
    }
}

/// Feeds rows to one controller set per flow; see the module notes and `docs/replay.md`.
pub struct Replayer {
    config: ReplayConfig,
    setups: Vec<Setup>,
    specs: HashMap<u64, Vec<TcpSpec>>,
    flows: Vec<FlowState>,
    index: HashMap<String, usize>,
    rows: u64,
    bwe: Vec<Option<f64>>,
    ssthresh: Vec<u64>,
    credited: Vec<Option<u64>>,
}

fn seconds(ns: u64) -> f64 {
    ns as f64 / 1e9
}

impl Replayer {
    /// Check the controls and overrides (before any row is read).
    pub fn new(config: &ReplayConfig) -> Result<Replayer, ReplayError> {
        if config.delivery_window_ns == Some(0) {
            return Err(setting("--delivery-window", "must be longer than 0"));
        }
        let setups = setups(config)?;
        let ccs = setups.iter().map(|s| s.cc.clone()).collect();
        let n = setups.len();
        Ok(Replayer {
            config: ReplayConfig { ccs, ..config.clone() },
            setups,
            specs: HashMap::new(),
            flows: Vec::new(),
            index: HashMap::new(),
            rows: 0,
            bwe: vec![None; n],
            ssthresh: vec![0; n],
            credited: vec![None; n],
        })
    }

    /// The controls, normalised (lower case), in column order.
    pub fn ccs(&self) -> &[String] {
        &self.config.ccs
    }

    /// The TCP settings of each control for segment size `mss` (resolved once per size).
    fn specs_for(&mut self, mss: u64) -> Result<&[TcpSpec], ReplayError> {
        if !self.specs.contains_key(&mss) {
            let specs =
                self.setups.iter().map(|s| s.spec(mss)).collect::<Result<Vec<_>, _>>().map_err(|e| {
                    let e = from_scenario(e);
                    match e {
                        ReplayError::Setting { key, message } => ReplayError::Setting {
                            key,
                            message: format!("{message} (with the trace's mss of {mss} bytes)"),
                        },
                        other => other,
                    }
                })?;
            self.specs.insert(mss, specs);
        }
        Ok(&self.specs[&mss])
    }

    fn flow_index(&mut self, rec: &AckRecord) -> Result<usize, ReplayError> {
        if let Some(&i) = self.index.get(&rec.flow) {
            return Ok(i);
        }
        let mss = rec.mss.max(1);
        let controls: Vec<Box<dyn CongestionControl>> =
            self.specs_for(mss)?.iter().map(crate::sim::congestion_control).collect();
        let origin = self.config.origin.unwrap_or_else(|| TraceOrigin::of_trace_cc(&rec.cc));
        let n = controls.len();
        let state = FlowState {
            name: rec.flow.clone(),
            trace_cc: rec.cc.clone(),
            origin,
            mss,
            controls,
            started: false,
            skipped: 0,
            untraced_acks: 0,
            first_untraced_ack: None,
            base_ack: 0,
            ack_shift: 0,
            first_ack_fed: false,
            previous: None,
            last_replay_bwe: vec![None; n],
            last_timeout_ack: None,
            delivery: Delivery::new(rec.time_ns, 0),
            rtt_min_us: None,
            rows: 0,
            ack_rows: 0,
            recovery_rows: 0,
            timeout_rows: 0,
            start_ns: rec.time_ns,
            end_ns: rec.time_ns,
            trace_bwe: TimeMean::default(),
            delivery_mean: TimeMean::default(),
            window_ns: self.config.delivery_window_ns.unwrap_or(MIN_DELIVERY_WINDOW_NS),
            stats: vec![CcStats::default(); n],
            other_mss: None,
            time_went_back: None,
        };
        self.flows.push(state);
        let i = self.flows.len() - 1;
        self.index.insert(rec.flow.clone(), i);
        Ok(i)
    }

    /// Replay one row (`line`: its line in the file, for the report).
    pub fn push(&mut self, line: u64, rec: &AckRecord) -> Result<ReplayRow<'_>, ReplayError> {
        let i = self.flow_index(rec)?;
        self.rows += 1;
        let row = self.rows;
        let fixed_window = self.config.delivery_window_ns;
        let flow = &mut self.flows[i];
        flow.rows += 1;
        if !flow.started {
            if flow.is_kernel_pre_init(rec) {
                flow.skipped += 1;
                for (k, cc) in flow.controls.iter().enumerate() {
                    self.bwe[k] = cc.bandwidth_estimate_bps();
                    self.ssthresh[k] = cc.ssthresh();
                    self.credited[k] = None;
                }
                let flow = &self.flows[i];
                return Ok(ReplayRow {
                    row,
                    line,
                    flow: &flow.name,
                    time_ns: rec.time_ns,
                    event: rec.event,
                    trace_bwe_bps: rec.bwe_bps,
                    bwe_bps: &self.bwe,
                    delivery_bps: None,
                    trace_ssthresh_bytes: rec.ssthresh_bytes,
                    ssthresh_bytes: &self.ssthresh,
                    trace_credited_bytes: rec.credited_bytes,
                    credited_bytes: &self.credited,
                });
            }
            flow.start(rec);
        }
        if rec.mss != flow.mss && flow.other_mss.is_none() {
            flow.other_mss = Some((line, rec.mss));
        }
        if rec.time_ns < flow.end_ns && flow.time_went_back.is_none() {
            flow.time_went_back = Some(line);
        }

        flow.feed(line, rec);

        // RTTmin as far as the trace tells, for the delivery window.
        for v in [rec.rtt_us, rec.rtt_min_us].into_iter().flatten() {
            if v > 0.0 {
                flow.rtt_min_us = Some(flow.rtt_min_us.map_or(v, |m| m.min(v)));
            }
        }
        flow.window_ns = fixed_window.unwrap_or_else(|| {
            let rtt_min_ns = flow.rtt_min_us.map_or(0, |us| (us * 1000.0).round() as u64);
            rtt_min_ns.max(MIN_DELIVERY_WINDOW_NS)
        });
        let delivery = flow.delivery.on_row(rec.time_ns, rec.ack, flow.window_ns);

        // Means: the previous row's values held until this row.
        let dt = flow.previous.map_or(0, |p| rec.time_ns.saturating_sub(p.time_ns));
        if let Some(p) = flow.previous {
            flow.trace_bwe.hold(p.trace_bwe, dt);
            flow.delivery_mean.hold(p.delivery, dt);
        }
        flow.trace_bwe.sample(rec.bwe_bps);
        flow.delivery_mean.sample(delivery);

        flow.compare(row, line, rec, dt, &mut self.bwe, &mut self.ssthresh, &mut self.credited);

        flow.end_ns = flow.end_ns.max(rec.time_ns);
        flow.previous = Some(Previous {
            time_ns: rec.time_ns,
            event: rec.event,
            cwnd: rec.cwnd_bytes,
            ssthresh: rec.ssthresh_bytes,
            ca_state: rec.ca_state,
            in_flight: rec.in_flight_bytes,
            trace_bwe: rec.bwe_bps,
            delivery,
        });
        let flow = &self.flows[i];
        Ok(ReplayRow {
            row,
            line,
            flow: &flow.name,
            time_ns: rec.time_ns,
            event: rec.event,
            trace_bwe_bps: rec.bwe_bps,
            bwe_bps: &self.bwe,
            delivery_bps: delivery,
            trace_ssthresh_bytes: rec.ssthresh_bytes,
            ssthresh_bytes: &self.ssthresh,
            trace_credited_bytes: rec.credited_bytes,
            credited_bytes: &self.credited,
        })
    }

    /// The report, flows in order of first appearance. `trace` names the input.
    pub fn finish(self, trace: &str) -> ReplayReport {
        let delivery_window = match self.config.delivery_window_ns {
            Some(ns) => format!("{} ms", ns as f64 / 1e6),
            None => "max(RTTmin, 100 ms)".to_string(),
        };
        let ccs = self.config.ccs.clone();
        let flows = self
            .flows
            .into_iter()
            .map(|f| {
                let mut notes = Vec::new();
                if f.skipped > 0 {
                    notes.push(format!(
                        "{} leading row(s) with a credit of 0 not replayed: the kernel traced the \
                         SYN-ACK before the control's init",
                        f.skipped
                    ));
                }
                if let Some(line) = f.first_untraced_ack {
                    notes.push(format!(
                        "{} recovery row(s) triggered by an ACK the estimator was not fed (a \
                         window update; the first at line {line}); its RTT sample, if any, is on \
                         the recovery row and was replayed there",
                        f.untraced_acks
                    ));
                }
                if f.base_ack > 0 {
                    notes.push(format!(
                        "the trace starts at ACK {} of this flow, not at its first byte: the \
                         estimators start from nothing there, the traced sender did not",
                        f.base_ack
                    ));
                }
                if let Some((line, mss)) = f.other_mss {
                    notes.push(format!(
                        "the mss changes to {mss} at line {line}; the replay keeps {} (the first row's)",
                        f.mss
                    ));
                }
                if let Some(line) = f.time_went_back {
                    notes.push(format!("time goes back at line {line}"));
                }
                let replays = ccs
                    .iter()
                    .zip(f.stats)
                    .map(|(cc, s)| CcReport {
                        cc: cc.clone(),
                        mean_bwe_bps: s.bwe.mean(),
                        compared_rows: s.compared,
                        identical_rows: s.identical,
                        max_abs_diff: s.max_abs,
                        max_rel_diff: s.max_rel,
                        loss_rows: s.loss_rows,
                        ssthresh_equal: s.ssthresh_equal,
                        ssthresh_max_abs_diff_bytes: s.ssthresh_max_abs,
                        first_ssthresh_mismatch: s.first_ssthresh_mismatch,
                        credit_rows: s.credit_rows,
                        credit_equal: s.credit_equal,
                        first_credit_mismatch: s.first_credit_mismatch,
                    })
                    .collect();
                FlowReport {
                    flow: f.name,
                    trace_cc: f.trace_cc,
                    origin: f.origin,
                    mss: f.mss,
                    rows: f.rows,
                    skipped_rows: f.skipped,
                    untraced_acks: f.untraced_acks,
                    ack_rows: f.ack_rows,
                    recovery_rows: f.recovery_rows,
                    timeout_rows: f.timeout_rows,
                    start_s: seconds(f.start_ns),
                    duration_s: seconds(f.end_ns - f.start_ns),
                    mean_trace_bwe_bps: f.trace_bwe.mean(),
                    mean_delivery_bps: f.delivery_mean.mean(),
                    delivery_window_s: seconds(f.window_ns),
                    replays,
                    notes,
                }
            })
            .collect();
        ReplayReport { trace: trace.to_string(), rows: self.rows, ccs, delivery_window, flows }
    }
}

// ------------------------------------------------------------------------------------------
// Reading a trace.

/// Progress of a replay, for a caller that reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub rows: u64,
    pub bytes_read: u64,
    /// The trace's size, when it is a file.
    pub total_bytes: Option<u64>,
}

/// Counts the bytes the trace reader consumes, for progress (the reader knows the lines).
struct Counted<R> {
    inner: R,
    bytes: Rc<Cell<u64>>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes.set(self.bytes.get() + n as u64);
        Ok(n)
    }
}

/// Replay the trace read from `input` (`name` names it in errors and the report). `on_row` gets
/// every replayed row; `progress` is called every [`PROGRESS_EVERY_ROWS`] rows and stops the
/// replay ([`ReplayError::Interrupted`]) by returning false.
pub fn replay_reader<R: BufRead>(
    input: R,
    name: &str,
    total_bytes: Option<u64>,
    config: &ReplayConfig,
    on_row: &mut dyn FnMut(&ReplayRow<'_>),
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<ReplayReport, ReplayError> {
    let mut replayer = Replayer::new(config)?;
    let bytes = Rc::new(Cell::new(0u64));
    let mut reader = AckTraceReader::new(Counted { inner: input, bytes: Rc::clone(&bytes) }, name)?;
    while let Some(rec) = reader.next_record()? {
        let row = replayer.push(reader.line() as u64, &rec)?;
        on_row(&row);
        if row.row % PROGRESS_EVERY_ROWS == 0
            && !progress(&Progress { rows: row.row, bytes_read: bytes.get(), total_bytes })
        {
            return Err(ReplayError::Interrupted);
        }
    }
    Ok(replayer.finish(name))
}

/// [`replay_reader`] on the file at `path`.
pub fn replay_file(
    path: impl AsRef<Path>,
    config: &ReplayConfig,
    on_row: &mut dyn FnMut(&ReplayRow<'_>),
    progress: &mut dyn FnMut(&Progress) -> bool,
) -> Result<ReplayReport, ReplayError> {
    let path = path.as_ref();
    let name = path.display().to_string();
    // Settings first: a bad --cc or --set is reported whatever the trace.
    Replayer::new(config)?;
    let file = File::open(path).map_err(|e| TraceError {
        file: name.clone(),
        line: 0,
        column: None,
        message: e.to_string(),
    })?;
    let total = file.metadata().ok().map(|m| m.len());
    replay_reader(BufReader::with_capacity(1 << 16, file), &name, total, config, on_row, progress)
}

// ------------------------------------------------------------------------------------------
// Bounding what a caller keeps for a plot.

/// Keeps a bounded, evenly spread subset of a stream of unknown length: every point until
/// `2 * max_points` are held, then every second one of those and every `2^k`-th from then on
/// (between `max_points` and `2 * max_points` points), the last point always included.
#[derive(Debug, Clone)]
pub struct Decimator<T> {
    max_points: usize,
    stride: u64,
    seen: u64,
    points: Vec<T>,
    last: Option<T>,
}

impl<T> Decimator<T> {
    pub fn new(max_points: usize) -> Self {
        Decimator { max_points: max_points.max(1), stride: 1, seen: 0, points: Vec::new(), last: None }
    }

    pub fn push(&mut self, point: T) {
        if self.seen.is_multiple_of(self.stride) {
            self.points.push(point);
            self.last = None;
        } else {
            self.last = Some(point);
        }
        self.seen += 1;
        if self.points.len() >= 2 * self.max_points {
            let mut k = 0;
            self.points.retain(|_| {
                k += 1;
                k % 2 == 1
            });
            self.stride *= 2;
        }
    }

    /// Points seen so far.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    pub fn into_points(self) -> Vec<T> {
        let mut points = self.points;
        points.extend(self.last);
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use westwood_trace::{AckTraceWriter, COLUMNS};

    fn row(time_ms: u64, ack: u64, acked: u64) -> AckRecord {
        AckRecord {
            time_ns: time_ms * 1_000_000,
            flow: "f".into(),
            cc: "westwood".into(),
            event: TraceEvent::Ack,
            ack,
            acked_bytes: acked,
            dupack: acked == 0,
            credited_bytes: Some(1000),
            rtt_us: Some(100_000.0),
            bwe_bps: Some(1e6),
            cwnd_bytes: 10_000,
            ssthresh_bytes: 1 << 40,
            mss: 1000,
            ..AckRecord::default()
        }
    }

    fn text(rows: &[AckRecord]) -> String {
        let mut w = AckTraceWriter::new(Vec::new()).unwrap();
        for r in rows {
            w.write(r).unwrap();
        }
        String::from_utf8(w.into_inner()).unwrap()
    }

    fn config(ccs: &[&str], sets: &[(&str, &str)]) -> ReplayConfig {
        ReplayConfig {
            ccs: ccs.iter().map(|s| s.to_string()).collect(),
            overrides: sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..ReplayConfig::default()
        }
    }

    fn key_of(e: ReplayError) -> String {
        match e {
            ReplayError::Setting { key, message } => format!("{key} | {message}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn settings_take_a_scenario_s_tcp_keys_and_name_the_key() {
        assert!(Replayer::new(&config(&["westwood", "Westwood-Plus"], &[])).is_ok());
        let ok = config(
            &["westwood", "westwood-abse"],
            &[("westwood", "{ tau = \"1s\", m = 4 }"), ("tcp.westwood_abse.n", "5")],
        );
        let r = Replayer::new(&ok).unwrap();
        assert_eq!(r.ccs(), ["westwood", "westwood-abse"]);
        // Each parameter table went to its own variant only.
        assert_eq!(r.setups[0].overrides.len(), 1);
        assert_eq!(r.setups[1].overrides, vec![("tcp.westwood_abse.n".to_string(), "5".to_string())]);

        // A table several controls take goes to each replayed one that takes it: the UCLA
        // agents share theirs (this was refused: "parameters of cc = westwood-ucla, which is
        // not replayed", the owner guessed from the table's name).
        let nr = Replayer::new(&config(&["westwood-ucla-nr"], &[("westwood_ucla.filter", "1")])).unwrap();
        assert_eq!(nr.setups[0].overrides, vec![("tcp.westwood_ucla.filter".to_string(), "1".to_string())]);
        let both = config(&["westwood-ucla", "westwood-ucla-nr", "reno"], &[("westwood_ucla.filter", "1")]);
        let both = Replayer::new(&both).unwrap();
        assert_eq!(both.setups.iter().map(|s| s.overrides.len()).collect::<Vec<_>>(), [1, 1, 0]);

        type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
        let cases: &[Case] = &[
            (&["vegas"], &[], "--cc | unknown congestion control \"vegas\""),
            (&[], &[], "--cc | name at least one"),
            (&["westwood", "WESTWOOD"], &[], "--cc | \"westwood\" is named twice"),
            (&["westwood"], &[("westwood", "{ m = 1 }")], "--set westwood.m |"),
            (&["westwood"], &[("westwood.tau", "0s")], "--set westwood.tau |"),
            (
                &["westwood"],
                &[("westwood_abse", "{ n = 5 }")],
                "--set westwood_abse | parameters of cc = \"westwood-abse\", which is not replayed",
            ),
            (
                &["westwood"],
                &[("westwood_ucla.filter", "1")],
                "--set westwood_ucla.filter | parameters of cc = \"westwood-ucla\" or \"westwood-ucla-nr\", \
                 which is not replayed",
            ),
            (&["westwood"], &[("loss", "1%")], "--set loss |"),
            (
                &["westwood"],
                &[("segment_size", "400B")],
                "--set segment_size | the segment size is the trace's",
            ),
            (&["westwood"], &[("cc", "reno")], "--set cc | choose the controls with --cc"),
        ];
        for (ccs, sets, expected) in cases {
            let e = Replayer::new(&config(ccs, sets)).err().unwrap_or_else(|| panic!("{ccs:?} {sets:?}"));
            let text = key_of(e);
            assert!(text.starts_with(expected), "{ccs:?} {sets:?}: {text}");
        }
    }

    #[test]
    fn delivery_rate_is_ack_progress_over_the_window() {
        let mut d = Delivery::new(0, 0);
        let w = 100_000_000;
        // 1000 bytes every 10 ms: 800 kb/s once a full window has passed.
        let mut out = Vec::new();
        for k in 0..30u64 {
            out.push(d.on_row(k * 10_000_000, (k + 1) * 1000, w));
        }
        assert!(out[..10].iter().all(Option::is_none), "{out:?}");
        for v in &out[10..] {
            assert_eq!(*v, Some(800_000.0));
        }
    }

    #[test]
    fn rows_carry_their_line_numbers_and_a_bad_row_names_line_and_column() {
        let rows = [row(10, 1000, 1000), row(20, 2000, 1000), row(30, 3000, 1000)];
        let mut t = text(&rows);
        let mut lines = Vec::new();
        let report = replay_reader(
            t.as_bytes(),
            "t.csv",
            None,
            &config(&["westwood"], &[]),
            &mut |r| lines.push((r.row, r.line)),
            &mut |_| true,
        )
        .unwrap();
        assert_eq!(lines, [(1, 2), (2, 3), (3, 4)]);
        assert_eq!(report.rows, 3);
        assert_eq!(report.flows[0].rows, 3);
        t = t.replacen(",westwood,ack,2000,", ",westwood,ack,x,", 1);
        let e =
            replay_reader(t.as_bytes(), "t.csv", None, &config(&["westwood"], &[]), &mut |_| {}, &mut |_| {
                true
            })
            .unwrap_err();
        assert!(e.to_string().starts_with("t.csv:3: column `ack`"), "{e}");
        let e = replay_reader(
            "a,b\n".as_bytes(),
            "h.csv",
            None,
            &config(&["westwood"], &[]),
            &mut |_| {},
            &mut |_| true,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("h.csv:1:"), "{e}");
        assert!(text(&[]).starts_with(&COLUMNS.join(",")));
    }

    #[test]
    fn the_window_before_an_ack_is_the_previous_row_s_or_the_kernel_s_own() {
        // A control that records what window it was shown.
        let rows = [
            AckRecord { cwnd_bytes: 4000, ..row(10, 1000, 1000) },
            AckRecord { cwnd_bytes: 5000, ..row(20, 2000, 1000) },
            AckRecord { cwnd_bytes: 6000, ..row(30, 3000, 1000) },
        ];
        for (origin, expected) in
            [(TraceOrigin::Simulator, [4000, 4000, 5000]), (TraceOrigin::Kernel, [4000, 5000, 6000])]
        {
            let mut r =
                Replayer::new(&ReplayConfig { origin: Some(origin), ..config(&["westwood"], &[]) }).unwrap();
            let mut seen = Vec::new();
            for (k, rec) in rows.iter().enumerate() {
                r.push(k as u64 + 2, rec).unwrap();
                // Westwood grows from the observed window by one segment (slow start, per ACK).
                seen.push(r.flows[0].controls[0].cwnd() - 1000);
            }
            assert_eq!(seen, expected, "{origin:?}");
        }
    }

    #[test]
    fn decimation_keeps_a_bounded_even_subset_and_the_last_point() {
        let mut d = Decimator::new(100);
        for k in 0..10_000u32 {
            d.push(k);
        }
        assert_eq!(d.seen(), 10_000);
        let points = d.into_points();
        assert!(points.len() >= 100 && points.len() <= 201, "{}", points.len());
        assert_eq!(*points.last().unwrap(), 9_999);
        let stride = points[1] - points[0];
        assert!(points.windows(2).take(points.len() - 2).all(|w| w[1] - w[0] == stride));
        let mut small = Decimator::new(100);
        (0..50u32).for_each(|k| small.push(k));
        assert_eq!(small.into_points(), (0..50).collect::<Vec<_>>());
    }
}
