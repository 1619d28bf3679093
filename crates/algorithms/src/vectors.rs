//! Test vectors for other implementations of these algorithms (the Linux eBPF `westwood` and
//! `westwood-plus`): scripted event sequences, and the state every variant reaches after each
//! event. The format, the generator command and how to replay are in `docs/vectors.md`.
//!
//! A sequence is produced by a small deterministic model of a sender talking to a controller
//! over one path — a bottleneck of fixed rate with an unbounded FIFO, a base RTT, a receiver
//! with or without delayed ACKs — with the loss episodes written into the script (segments
//! dropped by number, a blackout of the forward path, an application that stops writing). The
//! model keeps the sender's own books (SND.UNA, SND.MAX, the RTO timer, NewReno recovery per
//! RFC 6582, Karn's rule), so every event is one a real sender would report: DUPACKs only when
//! the ACK number repeats with data outstanding, `in_recovery` from the 3-DUPACK event to the ACK
//! that ends recovery, no RTT sample from an ACK that covers a retransmission.
//!
//! The model's own window follows RFC 5681 Reno rules and not the controller under test, so a
//! sequence's events are the same for every variant (*open loop*): each file is a pure function
//! of its events, and two variants can be compared event by event. Before the first loss the
//! model's window equals every variant's `cwnd`; after it, `in_flight` is Reno's.
//!
//! Nothing here depends on anything outside the crate: JSON is written by hand.

use crate::congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig, WindowGrowth};
use crate::registry::{self, CcEntry, ParamValue, ParamValues};
use crate::westwood::{AbseParams, AckedCountRule, PlusParams, Sampling, TcpwParams, UclaParams};
use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap};
use std::fmt::Write as _;

/// Version of the file format (header key `format`).
pub const FORMAT_VERSION: u32 = 1;

/// Initial ssthresh of every vector, bytes: "arbitrarily high" (RFC 5681 §3.1). 2^31 - 1 fits a
/// signed 32-bit integer and a double exactly; no sequence comes near it.
pub const INITIAL_SSTHRESH: u64 = 0x7fff_ffff;

/// The command that regenerates `vectors/` (run from the repository root).
pub const GENERATOR_COMMAND: &str = "cargo run -p westwood-algorithms --example generate_vectors -- vectors";

/// Duplicate ACKs that trigger fast retransmit.
pub const DUPTHRESH: u32 = 3;

// ---------------------------------------------------------------------------------------------
// Events, states, records
// ---------------------------------------------------------------------------------------------

/// One input to a congestion control, as the vectors carry it (times in whole microseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    /// An ACK, new or duplicate ([`CongestionControl::on_ack`]).
    Ack {
        time_us: u64,
        /// Cumulative acknowledgment number, bytes.
        ack: u64,
        /// Bytes newly acknowledged (0 for a DUPACK).
        acked_bytes: u64,
        dupack: bool,
        /// Karn-valid RTT sample, µs.
        rtt_us: Option<u64>,
        in_recovery: bool,
        /// Bytes outstanding before this ACK (SND.MAX - SND.UNA).
        in_flight: u64,
    },
    /// The third DUPACK: fast retransmit ([`CongestionEvent::DuplicateAcks`]).
    DupAcks { time_us: u64, in_flight: u64 },
    /// The retransmission timer expired ([`CongestionEvent::Timeout`]).
    Timeout { time_us: u64, in_flight: u64, repeated: bool },
    /// Fast recovery ended ([`CongestionControl::on_recovery_exit`]).
    RecoveryExit { time_us: u64 },
}

impl Event {
    pub fn time_us(&self) -> u64 {
        match *self {
            Event::Ack { time_us, .. }
            | Event::DupAcks { time_us, .. }
            | Event::Timeout { time_us, .. }
            | Event::RecoveryExit { time_us } => time_us,
        }
    }

    /// The `kind` field of the event's JSON object.
    pub fn kind(&self) -> &'static str {
        match self {
            Event::Ack { .. } => "ack",
            Event::DupAcks { .. } => "dupacks",
            Event::Timeout { .. } => "timeout",
            Event::RecoveryExit { .. } => "recovery_exit",
        }
    }

    /// Feed the event to a congestion control (times converted to nanoseconds).
    pub fn apply(&self, cc: &mut dyn CongestionControl) {
        match *self {
            Event::Ack { time_us, ack, acked_bytes, dupack, rtt_us, in_recovery, in_flight } => {
                cc.on_ack(&AckEvent {
                    now_ns: time_us * 1000,
                    ack_seq: ack,
                    newly_acked_bytes: acked_bytes,
                    newly_delivered_bytes: acked_bytes,
                    is_dupack: dupack,
                    rtt_sample_ns: rtt_us.map(|r| r * 1000),
                    in_recovery,
                    bytes_in_flight: in_flight,
                    cwnd_limited: true,
                })
            }
            Event::DupAcks { time_us, in_flight } => cc.on_congestion(CongestionEvent::DuplicateAcks {
                now_ns: time_us * 1000,
                bytes_in_flight: in_flight,
            }),
            Event::Timeout { time_us, in_flight, repeated } => cc.on_congestion(CongestionEvent::Timeout {
                now_ns: time_us * 1000,
                bytes_in_flight: in_flight,
                repeated,
            }),
            Event::RecoveryExit { time_us } => cc.on_recovery_exit(time_us * 1000),
        }
    }

    pub fn to_json(&self) -> String {
        match *self {
            Event::Ack { time_us, ack, acked_bytes, dupack, rtt_us, in_recovery, in_flight } => format!(
                "{{\"kind\":\"ack\",\"time_us\":{time_us},\"ack\":{ack},\
                 \"acked_bytes\":{acked_bytes},\"dupack\":{dupack},\"rtt_us\":{},\
                 \"in_recovery\":{in_recovery},\"in_flight\":{in_flight}}}",
                json_opt_u64(rtt_us)
            ),
            Event::DupAcks { time_us, in_flight } => {
                format!("{{\"kind\":\"dupacks\",\"time_us\":{time_us},\"in_flight\":{in_flight}}}")
            }
            Event::Timeout { time_us, in_flight, repeated } => format!(
                "{{\"kind\":\"timeout\",\"time_us\":{time_us},\"in_flight\":{in_flight},\"repeated\":{repeated}}}"
            ),
            Event::RecoveryExit { time_us } => {
                format!("{{\"kind\":\"recovery_exit\",\"time_us\":{time_us}}}")
            }
        }
    }
}

/// A controller's state after an event.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct State {
    /// BWE, bits/s (`None` for controls without one).
    pub bwe_bps: Option<f64>,
    /// Bytes.
    pub cwnd: u64,
    /// Bytes.
    pub ssthresh: u64,
    /// RTTmin, µs (`None` for controls that keep none, and before the first sample).
    pub rtt_min_us: Option<u64>,
}

impl State {
    pub fn to_json(&self) -> String {
        format!(
            "{{\"bwe_bps\":{},\"cwnd\":{},\"ssthresh\":{},\"rtt_min_us\":{}}}",
            self.bwe_bps.map_or_else(|| "null".to_string(), json_f64),
            self.cwnd,
            self.ssthresh,
            json_opt_u64(self.rtt_min_us)
        )
    }
}

/// One line of a vector file after the header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceRecord {
    pub event: Event,
    pub state: State,
}

impl TraceRecord {
    pub fn to_json(&self) -> String {
        format!("{{\"event\":{},\"state\":{}}}", self.event.to_json(), self.state.to_json())
    }
}

/// Shortest representation that reads back to the same double; `null` if not finite.
fn json_f64(x: f64) -> String {
    if x.is_finite() {
        format!("{x:?}")
    } else {
        "null".to_string()
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn json_opt_u64(x: Option<u64>) -> String {
    x.map_or_else(|| "null".to_string(), |v| v.to_string())
}

// ---------------------------------------------------------------------------------------------
// Variants
// ---------------------------------------------------------------------------------------------

/// The variants the vectors cover: each estimator with its default parameters, and TCPW with
/// each option of `docs/westwood.md` changed on its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    Reno,
    Westwood,
    WestwoodTr,
    WestwoodAbse,
    WestwoodPlus,
    /// The UCLA ns-2 agent's estimator and loss rules, its defaults (filter type 3).
    WestwoodUcla,
    /// TCPW with interval sampling.
    WestwoodInterval,
    /// TCPW with the UCLA agent's AckedCount rule.
    WestwoodAckedUcla,
}

impl Variant {
    pub const ALL: [Variant; 8] = [
        Variant::Reno,
        Variant::Westwood,
        Variant::WestwoodTr,
        Variant::WestwoodAbse,
        Variant::WestwoodPlus,
        Variant::WestwoodUcla,
        Variant::WestwoodInterval,
        Variant::WestwoodAckedUcla,
    ];

    /// The registered control the variant runs, the parameters it sets and the AckedCount rule
    /// (`None`: the control's reference's).
    fn setup(self) -> (&'static str, ParamValues, Option<AckedCountRule>) {
        let defaults = ParamValues::default();
        match self {
            Variant::Reno => ("reno", defaults, None),
            Variant::Westwood => ("westwood", defaults, None),
            Variant::WestwoodTr => ("westwood-tr", defaults, None),
            Variant::WestwoodAbse => ("westwood-abse", defaults, None),
            Variant::WestwoodPlus => ("westwood-plus", defaults, None),
            Variant::WestwoodUcla => ("westwood-ucla", defaults, None),
            Variant::WestwoodInterval => {
                ("westwood", defaults.with("sample", ParamValue::Sampling(Sampling::Interval)), None)
            }
            Variant::WestwoodAckedUcla => ("westwood", defaults, Some(AckedCountRule::Ucla)),
        }
    }

    /// The registry entry of the control the variant runs.
    pub fn cc(self) -> &'static CcEntry {
        let (name, _, _) = self.setup();
        registry::lookup(name).expect("every vector variant is a registered control")
    }

    /// The controller, freshly constructed through the registry.
    pub fn controller(self, config: WindowConfig) -> Box<dyn CongestionControl> {
        let (_, params, rule) = self.setup();
        (self.cc().build)(config, &params, rule)
    }

    /// The directory under `vectors/` and the header's `variant`: the `cc` name for each
    /// estimator with its defaults, `westwood-<option>` for TCPW with an option changed.
    pub fn name(self) -> &'static str {
        match self {
            Variant::WestwoodInterval => "westwood-interval",
            Variant::WestwoodAckedUcla => "westwood-acked-ucla",
            _ => self.cc().name,
        }
    }

    /// The estimator's parameters as a JSON object (times in µs). The folders that existed before
    /// the `sample` and `acked_count` options carry no key for them (they use the defaults,
    /// `trapezoid` and `paper`); the newer folders name both.
    pub fn params_json(self) -> String {
        match self {
            Variant::Reno => "{}".to_string(),
            Variant::Westwood => {
                let p = TcpwParams::default();
                format!("{{\"tau_us\":{},\"m\":{}}}", p.tau_ns / 1000, p.m)
            }
            Variant::WestwoodTr => format!(
                "{{\"time_constant_ratio\":{},\"reduction_step_dupacks\":0.25,\
                 \"reduction_step_timeout\":1.0,\"max_reduction_factor\":{}}}",
                json_f64(crate::westwood::tr::TIME_CONSTANT_RATIO),
                json_f64(crate::westwood::tr::MAX_REDUCTION_FACTOR)
            ),
            Variant::WestwoodAbse => {
                let p = AbseParams::default();
                format!(
                    "{{\"t_min_us\":{},\"n\":{},\"u_max_bps\":{},\"epsilon\":{},\"beta\":{}}}",
                    p.t_min_ns / 1000,
                    json_f64(p.n),
                    p.u_max_bps.map_or_else(|| "null".to_string(), json_f64),
                    json_f64(p.epsilon),
                    json_f64(p.beta)
                )
            }
            Variant::WestwoodPlus => {
                let p = PlusParams::default();
                format!("{{\"min_window_us\":{}}}", p.min_window_ns / 1000)
            }
            Variant::WestwoodUcla => {
                let p = UclaParams::default();
                format!(
                    "{{\"filter_type\":{},\"tau_us\":{},\"fr_alpha\":{},\"tick_us\":{},\
                     \"initial_rtt_min_us\":{},\"initial_reduction_factor\":{},\
                     \"reduction_step_dupacks\":{},\"reduction_step_timeout\":{},\
                     \"max_reduction_factor\":{},\"sample\":\"{}\",\"acked_count\":\"{}\"}}",
                    p.filter.filter_type(),
                    p.tau_ns / 1000,
                    json_f64(p.fr_alpha),
                    p.tick_ns / 1000,
                    p.initial_rtt_min_ns / 1000,
                    json_f64(crate::westwood::ucla::INITIAL_REDUCTION_FACTOR),
                    json_f64(crate::westwood::ucla::DUPACK_FACTOR_STEP),
                    json_f64(crate::westwood::ucla::TIMEOUT_FACTOR_STEP),
                    json_f64(crate::westwood::ucla::MAX_REDUCTION_FACTOR),
                    p.sample.name(),
                    AckedCountRule::Ucla.name()
                )
            }
            Variant::WestwoodInterval => tcpw_with_options(Sampling::Interval, AckedCountRule::Paper),
            Variant::WestwoodAckedUcla => tcpw_with_options(Sampling::Trapezoid, AckedCountRule::Ucla),
        }
    }
}

/// TCPW's default parameters with both options named.
fn tcpw_with_options(sample: Sampling, acked_count: AckedCountRule) -> String {
    let p = TcpwParams::default();
    format!(
        "{{\"tau_us\":{},\"m\":{},\"sample\":\"{}\",\"acked_count\":\"{}\"}}",
        p.tau_ns / 1000,
        p.m,
        sample.name(),
        acked_count.name()
    )
}

/// The window configuration of every vector with this MSS.
pub fn window_config(mss: u64) -> WindowConfig {
    WindowConfig {
        mss,
        initial_cwnd: WindowConfig::rfc5681_initial_window(mss),
        initial_ssthresh: INITIAL_SSTHRESH,
        // The vectors (and the kernel programs checked against them) grow per ACK.
        window_growth: WindowGrowth::PerAck,
    }
}

// ---------------------------------------------------------------------------------------------
// Files
// ---------------------------------------------------------------------------------------------

/// A scripted event sequence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sequence {
    pub name: &'static str,
    pub description: &'static str,
    pub mss: u64,
    pub events: Vec<Event>,
}

/// Feed a sequence to a variant and record the state after every event.
pub fn replay(variant: Variant, sequence: &Sequence) -> Vec<TraceRecord> {
    let mut cc = variant.controller(window_config(sequence.mss));
    sequence
        .events
        .iter()
        .map(|event| {
            event.apply(cc.as_mut());
            TraceRecord {
                event: *event,
                state: State {
                    bwe_bps: cc.bandwidth_estimate_bps(),
                    cwnd: cc.cwnd(),
                    ssthresh: cc.ssthresh(),
                    rtt_min_us: cc.min_rtt_ns().map(|ns| ns / 1000),
                },
            }
        })
        .collect()
}

/// The header line of a vector file.
pub fn header_json(variant: Variant, sequence: &Sequence) -> String {
    let config = window_config(sequence.mss);
    format!(
        "{{\"vector\":\"{}\",\"variant\":\"{}\",\"format\":{FORMAT_VERSION},\"mss\":{},\
         \"initial_cwnd\":{},\"initial_ssthresh\":{},\"params\":{},\"events\":{},\
         \"description\":{}}}",
        sequence.name,
        variant.name(),
        config.mss,
        config.initial_cwnd,
        config.initial_ssthresh,
        variant.params_json(),
        sequence.events.len(),
        json_string(sequence.description)
    )
}

/// A whole vector file: the header, then one record per event, each line ending in `\n`.
pub fn render(variant: Variant, sequence: &Sequence) -> String {
    let mut out = header_json(variant, sequence);
    out.push('\n');
    for record in replay(variant, sequence) {
        let _ = writeln!(out, "{}", record.to_json());
    }
    out
}

/// One generated file: its path relative to the `vectors/` folder, and its contents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorFile {
    pub path: String,
    pub contents: String,
}

/// Every vector file: `<variant>/<sequence>.jsonl` for each variant and sequence.
pub fn generate() -> Vec<VectorFile> {
    let sequences = sequences();
    Variant::ALL
        .iter()
        .flat_map(|&variant| {
            sequences.iter().map(move |sequence| VectorFile {
                path: format!("{}/{}.jsonl", variant.name(), sequence.name),
                contents: render(variant, sequence),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The scripts
// ---------------------------------------------------------------------------------------------

const MS: u64 = 1000;
const SECOND: u64 = 1_000_000;
/// Enough data never to run out.
const BULK: u64 = 1 << 40;

/// The scripted sequences, in a fixed order.
pub fn sequences() -> Vec<Sequence> {
    SCRIPTS.iter().map(Script::run).collect()
}

/// When the application writes.
#[derive(Debug, Clone, Copy)]
enum Trigger {
    At(u64),
    /// `idle` µs after everything written so far has been acknowledged.
    AfterDrain(u64),
}

#[derive(Debug, Clone, Copy)]
struct Script {
    name: &'static str,
    description: &'static str,
    mss: u64,
    /// Bottleneck rate, bits/s.
    rate_bps: u64,
    /// RTT of a lone segment on an empty path, µs.
    base_rtt_us: u64,
    /// ACKs reach the sender up to this much later (deterministic xorshift), µs.
    ack_jitter_us: u64,
    /// The receiver ACKs every `ack_every` in-order segments, or after 200 ms.
    ack_every: u32,
    /// Seed 001's receiver: a retransmission that fills part of a hole is ACKed with the delayed
    /// ACK policy; only the one that releases the out-of-order data is ACKed at once. Otherwise
    /// (RFC 5681 §4.2) every segment that fills all or part of a hole is ACKed at once.
    seed_001_receiver: bool,
    /// Application writes, in segments, each armed when the previous one has happened.
    writes: &'static [(Trigger, u64)],
    /// Segments (0-based numbers) the bottleneck drops on their first transmission.
    drops: &'static [u64],
    /// The forward path loses every segment sent in `[from, to)` µs.
    blackouts: &'static [(u64, u64)],
    end_us: u64,
}

const RATE: u64 = 2_000_000;
const RTT: u64 = 100 * MS;
const DELAYED_ACK_TIMEOUT_US: u64 = 200 * MS;
const MIN_RTO_US: u64 = SECOND;
const MAX_RTO_US: u64 = 60 * SECOND;

const SCRIPTS: &[Script] = &[
    Script {
        name: "steady",
        description: "2 Mb/s, 100 ms RTT, an ACK per segment: slow start until segment 60 is \
                      dropped, NewReno recovery, then congestion avoidance for 2 s (the queue \
                      and the RTT grow slowly)",
        mss: 1000,
        rate_bps: RATE,
        base_rtt_us: RTT,
        ack_jitter_us: 200,
        ack_every: 1,
        seed_001_receiver: false,
        writes: &[(Trigger::At(0), BULK)],
        drops: &[60],
        blackouts: &[],
        end_us: 3 * SECOND,
    },
    Script {
        name: "dupack-burst",
        description: "seed 001 sec. II-A with delayed ACKs: slow start ends with segment 120 \
                      dropped; in congestion avoidance segments 400-409 are lost and 410-429 \
                      delivered (20 DUPACKs, fast retransmit at the 3rd), the retransmissions \
                      are ACKed in pairs and one cumulative ACK for 408-429 ends recovery",
        mss: 1000,
        rate_bps: RATE,
        base_rtt_us: RTT,
        ack_jitter_us: 200,
        ack_every: 2,
        seed_001_receiver: true,
        writes: &[(Trigger::At(0), 430), (Trigger::AfterDrain(0), BULK)],
        drops: &[120, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409],
        blackouts: &[],
        end_us: 3 * SECOND,
    },
    Script {
        name: "rto",
        description: "ACK clock (segment 45 dropped in slow start), then a forward-path \
                      blackout from 1.3 s to 2.5 s: the RTO fires, its retransmission is lost, \
                      the backed-off RTO fires 2 s later, slow start restarts from one segment \
                      (go-back-N: no RTT sample until new data is acked)",
        mss: 1000,
        rate_bps: RATE,
        base_rtt_us: RTT,
        ack_jitter_us: 200,
        ack_every: 1,
        seed_001_receiver: false,
        writes: &[(Trigger::At(0), BULK)],
        drops: &[45],
        blackouts: &[(1300 * MS, 2500 * MS)],
        end_us: 5 * SECOND,
    },
    Script {
        name: "long-silence",
        description: "ACK clock (segment 45 dropped in slow start) for 300 segments, then the \
                      application pauses: all data acked, 3 s without ACKs and no timer running, \
                      then it writes again and ACKs resume (TCPW virtual samples)",
        mss: 1000,
        rate_bps: RATE,
        base_rtt_us: RTT,
        ack_jitter_us: 200,
        ack_every: 1,
        seed_001_receiver: false,
        writes: &[(Trigger::At(0), 300), (Trigger::AfterDrain(2900 * MS), BULK)],
        drops: &[45],
        blackouts: &[],
        end_us: 5 * SECOND,
    },
    Script {
        name: "delayed-acks",
        description: "an ACK every 2 segments: slow start until segment 60 is dropped, \
                      congestion avoidance; the \
                      application writes odd-sized blocks with 300 ms pauses, so the last \
                      segment of each is ACKed alone by the 200 ms delayed-ACK timer",
        mss: 1000,
        rate_bps: RATE,
        base_rtt_us: RTT,
        ack_jitter_us: 200,
        ack_every: 2,
        seed_001_receiver: false,
        writes: &[
            (Trigger::At(0), 201),
            (Trigger::AfterDrain(300 * MS), 101),
            (Trigger::AfterDrain(300 * MS), 101),
            (Trigger::AfterDrain(300 * MS), 101),
            (Trigger::AfterDrain(300 * MS), BULK),
        ],
        drops: &[60],
        blackouts: &[],
        end_us: 4 * SECOND,
    },
    Script {
        name: "mss1448",
        description: "MSS 1448 (5792 us per segment at 2 Mb/s), an ACK per segment: slow \
                      start, one drop, congestion avoidance, a second drop in congestion \
                      avoidance, then a blackout and an RTO",
        mss: 1448,
        rate_bps: RATE,
        base_rtt_us: RTT,
        ack_jitter_us: 200,
        ack_every: 1,
        seed_001_receiver: false,
        writes: &[(Trigger::At(0), BULK)],
        drops: &[45, 200],
        blackouts: &[(2200 * MS, 2700 * MS)],
        end_us: 4 * SECOND,
    },
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Happening {
    AppWrite,
    DataArrival(u64),
    AckArrival(u64),
    DelayedAckTimer(u64),
    RetransmissionTimer(u64),
}

#[derive(Debug, Clone, Copy)]
struct Sent {
    at: u64,
    retransmitted: bool,
}

/// The path, the sender's books and the receiver, in segments and µs.
struct Model {
    script: Script,
    service_us: u64,
    forward_us: u64,
    reverse_us: u64,
    now: u64,
    queue: BinaryHeap<Reverse<(u64, u64, Happening)>>,
    inserted: u64,
    events: Vec<Event>,
    // path
    link_free: u64,
    last_ack_arrival: u64,
    rng: u32,
    // application
    app_limit: u64,
    next_write: usize,
    drain_idle: Option<u64>,
    // sender
    snd_una: u64,
    snd_nxt: u64,
    snd_max: u64,
    sent: Vec<Sent>,
    lost: BTreeSet<u64>,
    cwnd: u64,
    ssthresh: u64,
    credit: u64,
    dupacks: u32,
    in_recovery: bool,
    recover: Option<u64>,
    inflation: i64,
    srtt: Option<u64>,
    rttvar: u64,
    rto_base: u64,
    backoffs: u32,
    rto_generation: u64,
    /// snd_una (segments) at the last timeout, to tell a repeated timeout (RFC 5681 §3.1).
    last_timeout_una: Option<u64>,
    rto_armed: bool,
    // receiver
    rcv_nxt: u64,
    out_of_order: BTreeSet<u64>,
    unacked: u32,
    delack_generation: u64,
    delack_armed: bool,
}

impl Script {
    fn run(&self) -> Sequence {
        let service = self.mss * 8 * SECOND / self.rate_bps;
        assert_eq!(service * self.rate_bps, self.mss * 8 * SECOND, "whole µs per segment");
        let forward = (self.base_rtt_us - service) / 2;
        let config = window_config(self.mss);
        let mut m = Model {
            script: *self,
            service_us: service,
            forward_us: forward,
            reverse_us: self.base_rtt_us - service - forward,
            now: 0,
            queue: BinaryHeap::new(),
            inserted: 0,
            events: Vec::new(),
            link_free: 0,
            last_ack_arrival: 0,
            rng: 0x2545_f491,
            app_limit: 0,
            next_write: 0,
            drain_idle: None,
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            sent: Vec::new(),
            lost: BTreeSet::new(),
            cwnd: config.initial_cwnd,
            ssthresh: config.initial_ssthresh,
            credit: 0,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            inflation: 0,
            srtt: None,
            rttvar: 0,
            rto_base: SECOND,
            backoffs: 0,
            rto_generation: 0,
            last_timeout_una: None,
            rto_armed: false,
            rcv_nxt: 0,
            out_of_order: BTreeSet::new(),
            unacked: 0,
            delack_generation: 0,
            delack_armed: false,
        };
        m.arm_next_write();
        while let Some(Reverse((time, _, happening))) = m.queue.pop() {
            if time > self.end_us {
                break;
            }
            m.now = time;
            match happening {
                Happening::AppWrite => m.on_app_write(),
                Happening::DataArrival(segment) => m.on_data(segment),
                Happening::AckArrival(ack) => m.on_ack(ack),
                Happening::DelayedAckTimer(generation) => {
                    if self.ack_every > 1 && m.delack_armed && generation == m.delack_generation {
                        m.send_ack();
                    }
                }
                Happening::RetransmissionTimer(generation) => {
                    if m.rto_armed && generation == m.rto_generation {
                        m.on_retransmission_timeout();
                    }
                }
            }
        }
        Sequence { name: self.name, description: self.description, mss: self.mss, events: m.events }
    }
}

impl Model {
    fn schedule(&mut self, at: u64, happening: Happening) {
        self.inserted += 1;
        self.queue.push(Reverse((at, self.inserted, happening)));
    }

    fn mss(&self) -> u64 {
        self.script.mss
    }

    // --- application -----------------------------------------------------------------------

    fn arm_next_write(&mut self) {
        match self.script.writes.get(self.next_write) {
            Some(&(Trigger::At(at), _)) => self.schedule(at.max(self.now), Happening::AppWrite),
            Some(&(Trigger::AfterDrain(idle), _)) => {
                self.drain_idle = Some(idle);
                self.check_drained();
            }
            None => {}
        }
    }

    fn check_drained(&mut self) {
        if self.snd_una == self.app_limit {
            if let Some(idle) = self.drain_idle.take() {
                self.schedule(self.now + idle, Happening::AppWrite);
            }
        }
    }

    fn on_app_write(&mut self) {
        let (_, segments) = self.script.writes[self.next_write];
        self.app_limit = self.app_limit.saturating_add(segments);
        self.next_write += 1;
        self.arm_next_write();
        self.send_available();
    }

    // --- path --------------------------------------------------------------------------------

    fn transmit(&mut self, segment: u64, retransmission: bool) {
        let now = self.now;
        let sent = Sent { at: now, retransmitted: retransmission };
        if segment as usize == self.sent.len() {
            self.sent.push(sent);
        } else {
            self.sent[segment as usize] = sent;
        }
        let dropped = (!retransmission && self.script.drops.contains(&segment))
            || self.script.blackouts.iter().any(|&(from, to)| from <= now && now < to);
        if dropped {
            self.lost.insert(segment);
        } else {
            self.lost.remove(&segment);
            let departure = now.max(self.link_free) + self.service_us;
            self.link_free = departure;
            self.schedule(departure + self.forward_us, Happening::DataArrival(segment));
        }
        if !self.rto_armed {
            self.arm_retransmission_timer();
        }
    }

    fn jitter(&mut self) -> u64 {
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        u64::from(x) % (self.script.ack_jitter_us + 1)
    }

    // --- receiver ------------------------------------------------------------------------------

    fn on_data(&mut self, segment: u64) {
        if segment < self.rcv_nxt || self.out_of_order.contains(&segment) {
            self.send_ack(); // a duplicate
            return;
        }
        if segment > self.rcv_nxt {
            self.out_of_order.insert(segment);
            self.send_ack(); // out of order: the DUPACK
            return;
        }
        let filled_gap = !self.out_of_order.is_empty();
        self.rcv_nxt += 1;
        while self.out_of_order.remove(&self.rcv_nxt) {
            self.rcv_nxt += 1;
        }
        let released = self.rcv_nxt > segment + 1;
        let immediate = if self.script.seed_001_receiver { released } else { filled_gap };
        if immediate || self.script.ack_every <= 1 {
            self.send_ack();
            return;
        }
        self.unacked += 1;
        if self.unacked >= self.script.ack_every {
            self.send_ack();
        } else if !self.delack_armed {
            self.delack_armed = true;
            self.delack_generation += 1;
            let generation = self.delack_generation;
            self.schedule(self.now + DELAYED_ACK_TIMEOUT_US, Happening::DelayedAckTimer(generation));
        }
    }

    fn send_ack(&mut self) {
        self.unacked = 0;
        self.delack_armed = false;
        self.delack_generation += 1;
        let jitter = self.jitter();
        let arrival = (self.now + self.reverse_us + jitter).max(self.last_ack_arrival);
        self.last_ack_arrival = arrival;
        self.schedule(arrival, Happening::AckArrival(self.rcv_nxt));
    }

    // --- sender --------------------------------------------------------------------------------

    fn send_available(&mut self) {
        let mss = self.mss();
        loop {
            if self.snd_nxt >= self.app_limit {
                break;
            }
            let window = (self.cwnd as i64 + self.inflation).max(0) as u64;
            if (self.snd_nxt - self.snd_una + 1) * mss > window {
                break;
            }
            let segment = self.snd_nxt;
            self.transmit(segment, segment < self.snd_max);
            self.snd_nxt += 1;
            self.snd_max = self.snd_max.max(self.snd_nxt);
        }
    }

    fn on_ack(&mut self, ack_segments: u64) {
        let mss = self.mss();
        if ack_segments < self.snd_una {
            return;
        }
        let in_flight = (self.snd_max - self.snd_una) * mss;
        if ack_segments > self.snd_una {
            let acked = ack_segments - self.snd_una;
            let ambiguous = (self.snd_una..ack_segments).any(|s| self.sent[s as usize].retransmitted);
            let rtt = (!ambiguous).then(|| self.now - self.sent[ack_segments as usize - 1].at);
            if let Some(r) = rtt {
                self.on_rtt_sample(r);
            }
            self.snd_una = ack_segments;
            self.snd_nxt = self.snd_nxt.max(ack_segments);
            self.dupacks = 0;
            self.lost = self.lost.split_off(&ack_segments);
            self.events.push(Event::Ack {
                time_us: self.now,
                ack: ack_segments * mss,
                acked_bytes: acked * mss,
                dupack: false,
                rtt_us: rtt,
                in_recovery: self.in_recovery,
                in_flight,
            });
            if self.in_recovery {
                if self.recover.is_none_or(|recover| ack_segments >= recover) {
                    // RFC 6582 §3.2 step 3, full acknowledgment: deflate to ssthresh.
                    self.in_recovery = false;
                    self.inflation = 0;
                    self.cwnd = self.ssthresh;
                    self.credit = 0;
                    self.events.push(Event::RecoveryExit { time_us: self.now });
                } else {
                    // Partial ACK: the holes were all resent at fast retransmit; deflate by the
                    // amount acked and add back one segment.
                    if self.lost.contains(&self.snd_una) {
                        self.transmit(self.snd_una, true);
                    }
                    self.inflation -= (acked * mss) as i64;
                    self.inflation += mss as i64;
                }
            } else {
                self.grow(acked * mss);
            }
            if self.snd_una < self.snd_max {
                self.arm_retransmission_timer();
            } else {
                self.rto_armed = false;
            }
            self.check_drained();
        } else if in_flight > 0 {
            self.dupacks += 1;
            self.events.push(Event::Ack {
                time_us: self.now,
                ack: ack_segments * mss,
                acked_bytes: 0,
                dupack: true,
                rtt_us: None,
                in_recovery: self.in_recovery,
                in_flight,
            });
            if self.in_recovery {
                self.inflation += mss as i64;
            } else if self.dupacks == DUPTHRESH && self.recover.is_none_or(|recover| ack_segments > recover) {
                self.events.push(Event::DupAcks { time_us: self.now, in_flight });
                self.ssthresh = (in_flight.min(self.cwnd) / 2).max(2 * mss);
                self.cwnd = self.ssthresh;
                self.credit = 0;
                self.in_recovery = true;
                self.recover = Some(self.snd_max);
                self.inflation = i64::from(DUPTHRESH) * mss as i64;
                // Resend every hole at once, as a SACK sender (and seed 001's example) would.
                let holes: Vec<u64> = self.lost.range(self.snd_una..self.snd_max).copied().collect();
                if holes.is_empty() {
                    self.transmit(self.snd_una, true);
                }
                for segment in holes {
                    self.transmit(segment, true);
                }
            }
        }
        self.send_available();
    }

    /// RFC 5681 growth, as `Reno::grow`.
    fn grow(&mut self, acked_bytes: u64) {
        let mss = self.mss();
        if self.cwnd < self.ssthresh {
            self.cwnd += acked_bytes.min(mss);
            self.credit = 0;
        } else {
            self.credit += mss;
            if self.credit >= self.cwnd {
                self.credit -= self.cwnd;
                self.cwnd += mss;
            }
        }
    }

    /// RFC 6298 §2.
    fn on_rtt_sample(&mut self, r: u64) {
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(r)) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        self.rto_base = self.srtt.unwrap_or(0) + (4 * self.rttvar).max(MS);
        self.backoffs = 0;
    }

    fn rto(&self) -> u64 {
        (self.rto_base.max(MIN_RTO_US) << self.backoffs.min(16)).min(MAX_RTO_US)
    }

    fn arm_retransmission_timer(&mut self) {
        self.rto_armed = true;
        self.rto_generation += 1;
        let generation = self.rto_generation;
        let at = self.now + self.rto();
        self.schedule(at, Happening::RetransmissionTimer(generation));
    }

    fn on_retransmission_timeout(&mut self) {
        let mss = self.mss();
        if self.snd_una == self.snd_max {
            self.rto_armed = false;
            return;
        }
        let in_flight = (self.snd_max - self.snd_una) * mss;
        let repeated = self.last_timeout_una == Some(self.snd_una);
        self.last_timeout_una = Some(self.snd_una);
        self.events.push(Event::Timeout { time_us: self.now, in_flight, repeated });
        if !repeated {
            self.ssthresh = (in_flight.min(self.cwnd) / 2).max(2 * mss);
        }
        self.cwnd = mss;
        self.credit = 0;
        self.backoffs += 1;
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        for segment in self.snd_una..self.snd_max {
            self.sent[segment as usize].retransmitted = true;
        }
        self.lost.clear();
        // Go back N.
        self.snd_nxt = self.snd_una;
        self.arm_retransmission_timer();
        self.send_available();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_numbers_read_back() {
        assert_eq!(json_f64(2e6), "2000000.0");
        assert_eq!(json_f64(1e-7), "1e-7");
        assert_eq!(json_f64(f64::NAN), "null");
    }

    #[test]
    fn sequences_are_deterministic() {
        assert_eq!(sequences(), sequences());
    }

    #[test]
    fn folders_of_estimators_with_their_defaults_are_their_cc_names() {
        for variant in Variant::ALL {
            let cc = variant.cc().name;
            match variant {
                Variant::WestwoodInterval | Variant::WestwoodAckedUcla => {
                    assert_eq!(cc, "westwood");
                    assert!(variant.name().starts_with("westwood-"));
                }
                _ => assert_eq!(variant.name(), cc),
            }
        }
    }
}
