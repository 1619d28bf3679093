//! The validated, typed scenario the simulator runs.
//!
//! A scenario file (TOML, see `docs/scenarios.md`) is parsed, its parameters substituted and
//! every field checked by [`crate::scenario`]; the result is this model, in SI base units held as
//! integers (nanoseconds, bits per second, bytes). The simulator never sees TOML.

use westwood_algorithms::registry::{self, CcEntry, ParamValues};
use westwood_algorithms::westwood::AckedCountRule;
use westwood_algorithms::{WindowConfig, WindowGrowth};

use crate::tcp::Recovery;

/// Simulated time in integer nanoseconds.
pub type Nanos = u64;

pub const NANOS_PER_SECOND: Nanos = 1_000_000_000;

#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// Scenario name (from the file, or the file stem).
    pub name: String,
    /// Where the scenario came from (its file path), for error messages.
    pub source: String,
    /// Free text describing what the scenario models.
    pub description: String,
    /// Simulated time to run.
    pub duration: Nanos,
    /// Master seed; every component derives its own RNG stream from it and its name.
    pub seed: u64,
    /// Resolved parameter values as text (for reporting what was run).
    pub parameters: Vec<(String, String)>,
    pub nodes: Vec<NodeSpec>,
    /// Unidirectional links (a duplex link in the file becomes two entries).
    pub links: Vec<LinkSpec>,
    pub flows: Vec<FlowSpec>,
    /// Non-TCP traffic sources (UDP constant bit rate, ...).
    pub sources: Vec<SourceSpec>,
    /// TCP flows created during the run (`[flows.NAME] arrivals = {...}`).
    pub arrivals: Vec<ArrivalsSpec>,
    /// Interval between time-series samples when time series are recorded.
    pub sample_interval: Nanos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeSpec {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LinkSpec {
    /// Unique name; the reverse half of a duplex link `x` is named `x.reverse`.
    pub name: String,
    /// Index into `Scenario::nodes`.
    pub from: usize,
    pub to: usize,
    pub rate_bps: u64,
    pub delay: Nanos,
    /// Delay variation (`delay_variation`), ns: each packet propagates for `delay` plus a draw
    /// uniform in `[0, delay_variation]` from the link's stream `link:NAME:delay`, and arrives
    /// no earlier than the packet sent before it, so the link never reorders (what queueing on
    /// a path's other routers does to a flow, unlike a jitter that lets packets overtake). 0:
    /// every packet takes `delay`.
    pub delay_variation: Nanos,
    pub queue: QueueSpec,
    /// Channel errors applied to packets crossing this link, if any.
    pub errors: Option<ErrorSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueSpec {
    /// Drop-tail FIFO; the limit counts packets waiting, not the one being transmitted.
    DropTail(QueueLimit),
    /// Random Early Detection (Floyd & Jacobson 1993) in front of a FIFO with a hard limit.
    Red(RedSpec),
}

/// RED parameters (`network::red`). Thresholds and the average count packets waiting.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RedSpec {
    /// Hard limit of the FIFO behind RED (an arrival that does not fit is an overflow drop).
    pub limit: QueueLimit,
    /// Below `min_th` packets of average queue nothing is dropped early.
    pub min_th: f64,
    /// At `max_th` the early-drop probability reaches `max_p`; above it every arrival is dropped
    /// (or, with `gentle`, the probability rises linearly to 1 at `2 * max_th`).
    pub max_th: f64,
    pub max_p: f64,
    /// Weight of the EWMA of the queue length, in (0, 1].
    pub w_q: f64,
    pub gentle: bool,
    /// Bytes of the "typical small packet" whose transmission time `s` scales the idle-time
    /// correction (`m = idle / s`); `None`: the largest data packet crossing the link.
    pub mean_packet_size: Option<u64>,
}

impl RedSpec {
    /// min_th 5, max_th 15 packets, max_p 0.1, w_q 0.002, gentle off.
    pub fn with_limit(limit: QueueLimit) -> Self {
        RedSpec {
            limit,
            min_th: 5.0,
            max_th: 15.0,
            max_p: 0.1,
            w_q: 0.002,
            gentle: false,
            mean_packet_size: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    /// The bandwidth-delay product, resolved when the network is built: link rate times the
    /// largest round-trip propagation delay among the flows whose data crosses the link (or
    /// `rtt` when given), in packets of the largest data-packet size crossing it, and never
    /// fewer than `min` packets (at least 1).
    BandwidthDelayProduct {
        rtt: Option<Nanos>,
        min: u64,
    },
}

/// A link direction's channel loss models, as the scenario set them, in its order; a packet is
/// lost if any of them loses it. The models are an open set: each is one file in
/// `network::loss` that reads its scenario table into settings of its own type and builds its
/// state from them, listed once in its registry (`network::loss::MODELS`); this holds the
/// settings with their model's registry name, so nothing here names a model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ErrorSpec {
    pub models: Vec<LossSetting>,
}

impl ErrorSpec {
    /// One model on the link direction.
    pub fn one(setting: LossSetting) -> Self {
        ErrorSpec { models: vec![setting] }
    }

    /// The settings of every model of type `T` on the link direction, in the scenario's order.
    pub fn settings<T: LossSettings>(&self) -> impl Iterator<Item = &T> {
        self.models.iter().filter_map(LossSetting::get)
    }
}

/// The settings of one loss model, with the registry name of the model they belong to. Made
/// by the model's own file (`network::loss::bernoulli::setting`, ...).
#[derive(Debug, Clone)]
pub struct LossSetting {
    model: &'static str,
    settings: std::sync::Arc<dyn LossSettings>,
}

/// What a loss model's settings are: plain data of the model's own type.
pub trait LossSettings: std::any::Any + std::fmt::Debug + Send + Sync {}

impl<T: std::any::Any + std::fmt::Debug + Send + Sync> LossSettings for T {}

impl LossSetting {
    /// `settings` of the model registered as `model` (its first name).
    pub(crate) fn new<T: LossSettings>(model: &'static str, settings: T) -> Self {
        LossSetting { model, settings: std::sync::Arc::new(settings) }
    }

    /// The registry name of its model.
    pub fn model(&self) -> &'static str {
        self.model
    }

    /// Its settings, if they are of type `T`.
    pub fn get<T: LossSettings>(&self) -> Option<&T> {
        let any: &dyn std::any::Any = &*self.settings;
        any.downcast_ref()
    }
}

/// Settings are plain data, so their debug form says all they hold (every f64 printed so that
/// it reads back to the same value).
impl PartialEq for LossSetting {
    fn eq(&self, other: &Self) -> bool {
        self.model == other.model && format!("{:?}", self.settings) == format!("{:?}", other.settings)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    /// Node indices.
    pub src: usize,
    pub dst: usize,
    /// When the application starts handing data to TCP; [`FlowSpec::start_at`] resolves it.
    pub start: FlowStart,
    /// When the application stops handing data to TCP (`None`: runs to the end).
    pub stop: Option<Nanos>,
    pub tcp: TcpSpec,
    /// Per-packet round robin over several paths (seed 002); `None`: ordinary routing.
    pub multipath: Option<MultipathSpec>,
}

impl FlowSpec {
    /// When the flow starts in a run with master seed `seed`: its fixed start, or its draw
    /// from its own stream (see [`FlowStart::Uniform`]).
    pub fn start_at(&self, seed: u64) -> Nanos {
        self.start.resolve(seed, &self.name)
    }
}

/// When a bulk flow starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowStart {
    /// At this time.
    At(Nanos),
    /// At a time drawn uniformly in `[min, max]` (integer nanoseconds) from the flow's own
    /// stream `flow:NAME:start` of the run's seed, so flows that would otherwise start in
    /// lockstep (and synchronise their losses) are staggered, reproducibly: the same scenario
    /// and seed give the same starts, each flow of a `count` group its own.
    Uniform { min: Nanos, max: Nanos },
}

impl FlowStart {
    /// The earliest time the flow can start.
    pub fn earliest(self) -> Nanos {
        match self {
            FlowStart::At(t) | FlowStart::Uniform { min: t, .. } => t,
        }
    }

    /// The latest time the flow can start.
    pub fn latest(self) -> Nanos {
        match self {
            FlowStart::At(t) | FlowStart::Uniform { max: t, .. } => t,
        }
    }

    /// The start of flow `name` under master seed `seed`.
    pub fn resolve(self, seed: u64, name: &str) -> Nanos {
        match self {
            FlowStart::At(t) => t,
            FlowStart::Uniform { min, max } => {
                crate::engine::rng::RngStream::new(seed, &format!("flow:{name}:start"))
                    .uniform_inclusive(min, max)
            }
        }
    }
}

/// A traffic source that does not react to congestion.
#[derive(Debug, Clone, PartialEq)]
pub struct SourceSpec {
    pub name: String,
    /// Node indices.
    pub src: usize,
    pub dst: usize,
    pub kind: SourceKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SourceKind {
    /// UDP constant bit rate: packets of `packet_size` bytes (on the wire) at `rate_bps` during
    /// each `[start, stop)` interval of `on` (sorted, non-overlapping).
    Cbr { rate_bps: u64, packet_size: u64, on: Vec<(Nanos, Nanos)> },
}

/// Which congestion control a flow runs, with its parameters: an entry of
/// `westwood_algorithms::registry` and the parameters the scenario set for it.
#[derive(Debug, Clone, PartialEq)]
pub struct CcSpec {
    pub entry: &'static CcEntry,
    /// Only keys of the entry's parameter table; the control's defaults fill the rest.
    pub params: ParamValues,
}

impl CcSpec {
    /// The registered control `name` (scenario or kernel name) with its default parameters.
    ///
    /// # Panics
    /// If no control has that name: for code and tests that name a control they know.
    pub fn named(name: &str) -> CcSpec {
        let entry = registry::lookup(name).unwrap_or_else(|| panic!("no congestion control {name}"));
        CcSpec { entry, params: ParamValues::default() }
    }

    pub fn with_params(self, params: ParamValues) -> CcSpec {
        CcSpec { params, ..self }
    }

    /// The name outputs print.
    pub fn name(&self) -> &'static str {
        self.entry.name
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TcpSpec {
    /// The name the scenario gave (`"reno"`, `"newreno"`), reported in outputs.
    pub cc_name: String,
    pub cc: CcSpec,
    pub recovery: Recovery,
    /// Payload bytes per segment (SMSS).
    pub segment_size: u64,
    /// TCP/IP header bytes added to every packet (data and ACK).
    pub header_size: u64,
    /// Advertised receiver window, bytes.
    pub receiver_window: u64,
    /// Initial congestion window, bytes.
    pub initial_cwnd: u64,
    /// Initial slow-start threshold, bytes.
    pub initial_ssthresh: u64,
    /// Duplicate ACKs that trigger fast retransmit.
    pub dupack_threshold: u32,
    pub rto: RtoSpec,
    pub delayed_ack: DelayedAckSpec,
    /// How the window grows on ACKs of new data: per ACK (ns-2, the default) or by the bytes
    /// acknowledged (RFC 3465, as Linux does).
    pub window_growth: WindowGrowth,
    /// RFC 3042 limited transmit: a new segment beyond cwnd on each of the first
    /// `dupack_threshold - 1` DUPACKs, as Linux does. Off by default, as in ns-2's agents of the
    /// seed papers' era.
    pub limited_transmit: bool,
    /// NewReno: which partial ACKs restart the retransmission timer (RFC 6582 §4's
    /// "Impatient" first-only, the default, or every one).
    pub partial_ack_timer: PartialAckTimer,
    /// Which retransmission timeouts ask the control for a new threshold: every one (the
    /// default; ns-2's agents), or only one that opens a new loss episode (Linux).
    pub timeout_threshold: TimeoutThreshold,
    /// How the sender paces its sending during fast recovery: Reno's window inflation by
    /// DUPACKs (the default) or RFC 6937 Proportional Rate Reduction, as Linux does.
    pub recovery_pacing: RecoveryPacing,
    /// With `recovery_pacing = Inflation` and Reno or NewReno recovery: how the window is
    /// inflated by the DUPACKs of fast recovery ([`Inflation`]).
    pub fast_recovery_inflation: Inflation,
    /// Whether the ACK that ends fast recovery also grows the window as an ordinary ACK of new
    /// data (after the window is set back to what the control decided), as ns-2's agents
    /// (`recv_newack_helper()` -> `opencwnd()`) and Linux (`tcp_cong_avoid()` once the state is
    /// Open again) do. `false` (the default): that ACK only ends recovery.
    pub recovery_exit_growth: bool,
    /// What the fast retransmission does to the retransmission timer ([`FastRetransmitTimer`]).
    pub fast_retransmit_timer: FastRetransmitTimer,
    /// With Reno recovery: whether DUPACKs for data sent before the last fast retransmit may
    /// start another one (`true`, the default: RFC 5681 has no such test), or must wait until
    /// an ACK covers `recover`, the highest sequence sent at the last one (ns-2's `bug_fix_`;
    /// NewReno, RFC 6582 §3.2 step 2, and Tahoe always wait).
    pub repeat_fast_retransmit: bool,
    /// The Westwood variants' AckedCount rule (seed 000 §2.3's, or the UCLA agent's); `None`:
    /// the variant's own reference (docs/westwood.md). Always `None` for the other controls.
    pub acked_count: Option<AckedCountRule>,
    /// Random send overhead (`overhead`), ns: each data segment the sender emits, new or
    /// retransmitted, leaves its node after a delay drawn uniformly in `[0, overhead]` from the
    /// flow's stream `flow:NAME:overhead`, and no earlier than the flow's previous segment, so
    /// segments keep their order. The host processing-time jitter that Floyd & Jacobson ("On
    /// Traffic Phase Effects in Packet-Switched Gateways", 1992) added to break deterministic
    /// phase effects at drop-tail gateways (ns-2's `Agent/TCP overhead_`); the simulator applies
    /// it in `sim.rs`. 0 (the default): segments leave at once, as always; less than 1 s.
    pub overhead: Nanos,
    /// How much data the application has handed TCP beyond `snd_una` ([`SendBufferRule`]).
    pub send_buffer: SendBufferRule,
    /// Whether the window grows only while the sender uses all of it ([`CwndValidation`]).
    pub cwnd_validation: CwndValidation,
    /// How the retransmission timer's RTT estimate is kept ([`RttEstimatorRule`]).
    pub rtt_estimator: RttEstimatorRule,
    /// The kernel's `HZ` whose timer wheel the retransmission and delayed-ACK timers fire on
    /// (`tcp/timer_wheel.rs`); 0: they fire exactly when due.
    pub timer_hz: u32,
    /// The window a PRR recovery holds ([`PrrWindow`]).
    pub prr_window: PrrWindow,
    /// When PRR's reduction bound lets one segment more than was delivered ([`PrrBound`]).
    pub prr_bound: PrrBound,
    /// How the receiver's advertised window opens ([`ReceiveWindowRule`]).
    pub receive_window: ReceiveWindowRule,
    /// What the control's loss reduction is computed from ([`ReductionBase`]).
    pub reduction_base: ReductionBase,
    /// SACK recovery: which RFC 6675 `NextSeg` rules choose what to send ([`SackNextSeg`]).
    pub sack_next_seg: SackNextSeg,
    /// SACK: how the sender decides a segment is lost ([`LossDetection`]).
    pub loss_detection: LossDetection,
    /// Which segments carry PSH and what the receiver does with it ([`PushFlag`]).
    pub push_flag: PushFlag,
    /// NewReno recovery: the cumulative ACK that ends it ([`RecoveryExit`]).
    pub recovery_exit: RecoveryExit,
    /// Without SACK: whether the DUPACK threshold stays `dupack_threshold` ([`Reordering`]).
    pub reordering: Reordering,
    /// F-RTO after a retransmission timeout (RFC 5682 §2, as Linux's `tcp_process_loss()` with
    /// `tcp_frto` = 2): on the first ACK that advances `snd_una` but not to the data outstanding
    /// at the timeout, send new data before resending the rest; the next DUPACK shows the loss
    /// was real and the resending goes on. Without SACK only (`tcp/sender.rs`). `false`: the
    /// default.
    pub frto: bool,
    /// Bytes the application writes first, alone, before its bulk data, which it writes only
    /// once they are acknowledged: iperf3's 37-byte cookie on a test's data connection, whose
    /// short segment gives the run's smallest RTT sample (the testbed's simulator run sets it).
    /// Less than one segment; 0 (the default): none. Scripted drops number segments from the
    /// byte after it.
    pub preamble: u64,
}

impl TcpSpec {
    /// One flow of `cc` with `segment_size`-byte segments and everything else at the value a
    /// scenario's `[tcp]` without further keys gives it (the `paper` profile's), a 40-byte
    /// header, a 1 MB receiver window, RFC 5681's initial window and no initial threshold.
    /// Code that builds a flow without a scenario (tests, mostly) starts here and sets what it
    /// is about.
    pub fn defaults(cc: CcSpec, recovery: Recovery, segment_size: u64) -> TcpSpec {
        TcpSpec {
            cc_name: cc.name().to_string(),
            cc,
            recovery,
            segment_size,
            header_size: 40,
            receiver_window: 1_000_000,
            initial_cwnd: WindowConfig::rfc5681_initial_window(segment_size),
            initial_ssthresh: u64::MAX / 4,
            dupack_threshold: 3,
            rto: RtoSpec::default(),
            delayed_ack: DelayedAckSpec::default(),
            window_growth: WindowGrowth::default(),
            limited_transmit: false,
            partial_ack_timer: PartialAckTimer::default(),
            timeout_threshold: TimeoutThreshold::default(),
            recovery_pacing: RecoveryPacing::default(),
            fast_recovery_inflation: Inflation::default(),
            recovery_exit_growth: false,
            fast_retransmit_timer: FastRetransmitTimer::default(),
            repeat_fast_retransmit: true,
            acked_count: None,
            overhead: 0,
            send_buffer: SendBufferRule::default(),
            cwnd_validation: CwndValidation::default(),
            rtt_estimator: RttEstimatorRule::default(),
            timer_hz: 0,
            prr_window: PrrWindow::default(),
            prr_bound: PrrBound::default(),
            receive_window: ReceiveWindowRule::default(),
            reduction_base: ReductionBase::default(),
            sack_next_seg: SackNextSeg::default(),
            loss_detection: LossDetection::default(),
            push_flag: PushFlag::default(),
            recovery_exit: RecoveryExit::default(),
            reordering: Reordering::default(),
            frto: false,
            preamble: 0,
        }
    }
}

/// What a loss reduction halves (or, for CUBIC, multiplies by beta): the `FlightSize` the
/// sender reports with the loss, or its congestion window.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReductionBase {
    /// RFC 5681 §3.1 equation (4): `ssthresh = max(FlightSize / 2, 2·SMSS)`. The default.
    #[default]
    FlightSize,
    /// Linux: `tcp_reno_ssthresh()` and CUBIC's `cubictcp_recalc_ssthresh()` take `snd_cwnd`,
    /// so a sender the receiver's window held below its cwnd keeps more of it.
    Cwnd,
}

impl ReductionBase {
    pub const ALL: [ReductionBase; 2] = [ReductionBase::FlightSize, ReductionBase::Cwnd];

    /// The name scenarios use: `"flight_size"` or `"cwnd"`.
    pub fn name(self) -> &'static str {
        match self {
            ReductionBase::FlightSize => "flight_size",
            ReductionBase::Cwnd => "cwnd",
        }
    }

    pub fn from_name(name: &str) -> Option<ReductionBase> {
        ReductionBase::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Which RFC 6675 §4 `NextSeg` rules a SACK sender follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SackNextSeg {
    /// All four: lost holes, new data, un-SACKed data below the highest SACK, and one rescue
    /// retransmission per recovery. The default.
    #[default]
    Rfc6675,
    /// Rules (1) and (2) only, as Linux: `tcp_xmit_retransmit_queue()` resends only segments
    /// marked lost, then `tcp_write_xmit()` sends new data; Linux has no rescue retransmission
    /// and does not resend un-SACKed data it has not marked lost.
    Linux,
}

impl SackNextSeg {
    pub const ALL: [SackNextSeg; 2] = [SackNextSeg::Rfc6675, SackNextSeg::Linux];

    /// The name scenarios use: `"rfc6675"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            SackNextSeg::Rfc6675 => "rfc6675",
            SackNextSeg::Linux => "linux",
        }
    }

    pub fn from_name(name: &str) -> Option<SackNextSeg> {
        SackNextSeg::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// How a SACK sender decides that a segment is lost (`tcp/recovery/rack.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LossDetection {
    /// RFC 6675 `IsLost`: `DupThresh` SACKed segments above it. A lost retransmission waits
    /// for the retransmission timer. The default.
    #[default]
    Dupthresh,
    /// RACK (RFC 8985, Linux's `tcp_recovery = 1`): a segment is lost once a segment sent after
    /// it has been delivered and an RTT plus a reordering window has passed since it was sent
    /// (`tcp_rack_detect_loss()`), retransmissions included; a reordering timer marks what the
    /// window still held back.
    Rack,
}

impl LossDetection {
    pub const ALL: [LossDetection; 2] = [LossDetection::Dupthresh, LossDetection::Rack];

    /// The name scenarios use: `"dupthresh"` or `"rack"`.
    pub fn name(self) -> &'static str {
        match self {
            LossDetection::Dupthresh => "dupthresh",
            LossDetection::Rack => "rack",
        }
    }

    pub fn from_name(name: &str) -> Option<LossDetection> {
        LossDetection::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The PSH flag (`tcp/push.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PushFlag {
    /// No segment carries PSH; the receiver's delayed ACKs ignore it (ns-2's agents). The
    /// default.
    #[default]
    None,
    /// Linux at both ends: the sender marks PSH where `tcp_sendmsg_locked()` does for a bulk
    /// writer (every half of the largest window written, and where each write stops), and the
    /// receiver acknowledges a segment carrying PSH at once (`ICSK_ACK_PUSHED`,
    /// `tcp_cleanup_rbuf()`). With `send_buffer = "linux"` only (the writes it marks).
    Linux,
}

impl PushFlag {
    pub const ALL: [PushFlag; 2] = [PushFlag::None, PushFlag::Linux];

    /// The name scenarios use: `"none"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            PushFlag::None => "none",
            PushFlag::Linux => "linux",
        }
    }

    pub fn from_name(name: &str) -> Option<PushFlag> {
        PushFlag::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Which cumulative ACK ends NewReno (non-SACK) fast recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RecoveryExit {
    /// The ACK of `recover` itself (RFC 6582 §3.2 step 3: "acknowledges all of the data up to
    /// and including recover"). The default.
    #[default]
    AtRecover,
    /// Only an ACK beyond `recover`, as Linux: `tcp_try_undo_recovery()` holds a non-SACK
    /// connection in `TCP_CA_Recovery` while `snd_una == high_seq` ("Hold old state until
    /// something *above* high_seq is ACKed. For Reno it is MUST to prevent false fast
    /// retransmits"), so the ACK of `recover` is one more ACK of the window reduction (PRR,
    /// no growth) and the window grows only from the next one. SACK recovery ends at
    /// `recover` whatever this says (Linux holds only `tcp_is_reno` connections).
    AboveRecover,
}

impl RecoveryExit {
    pub const ALL: [RecoveryExit; 2] = [RecoveryExit::AtRecover, RecoveryExit::AboveRecover];

    /// The name scenarios use: `"at_recover"` or `"above_recover"`.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryExit::AtRecover => "at_recover",
            RecoveryExit::AboveRecover => "above_recover",
        }
    }

    pub fn from_name(name: &str) -> Option<RecoveryExit> {
        RecoveryExit::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// How a sender without SACK sets the number of DUPACKs that starts fast recovery
/// (`tcp/reordering.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Reordering {
    /// `dupack_threshold` for the whole connection (RFC 5681 §3.2). The default.
    #[default]
    Fixed,
    /// Linux's `tp->reordering` for a `tcp_is_reno` connection: it starts at
    /// `dupack_threshold` and becomes the segments outstanding whenever more DUPACKs arrive
    /// than segments could have left the network (`tcp_check_reno_reordering()`).
    Linux,
}

impl Reordering {
    pub const ALL: [Reordering; 2] = [Reordering::Fixed, Reordering::Linux];

    /// The name scenarios use: `"fixed"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            Reordering::Fixed => "fixed",
            Reordering::Linux => "linux",
        }
    }

    pub fn from_name(name: &str) -> Option<Reordering> {
        Reordering::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Whether the window grows on ACKs that arrive while the sender is not using all of it
/// (`tcp/window_use.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CwndValidation {
    /// Every ACK of new data outside recovery grows the window (RFC 5681 as written, ns-2's
    /// agents). The default.
    #[default]
    None,
    /// Linux's `tcp_is_cwnd_limited()`: only while the window was full in the current round
    /// trip, or in slow start below twice the most packets out in it.
    Linux,
}

impl CwndValidation {
    pub const ALL: [CwndValidation; 2] = [CwndValidation::None, CwndValidation::Linux];

    /// The name scenarios use: `"none"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            CwndValidation::None => "none",
            CwndValidation::Linux => "linux",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<CwndValidation> {
        CwndValidation::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// How the sender estimates the round-trip time for its retransmission timer
/// (`tcp/rtt.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RttEstimatorRule {
    /// RFC 6298 §2, fed the newest segment an ACK covers. The default.
    #[default]
    Rfc6298,
    /// Linux's `tcp_rtt_estimator()`, fed the oldest segment an ACK newly covers
    /// (`tcp_clean_rtx_queue()`'s `first_ackt`).
    Linux,
}

impl RttEstimatorRule {
    pub const ALL: [RttEstimatorRule; 2] = [RttEstimatorRule::Rfc6298, RttEstimatorRule::Linux];

    /// The name scenarios use: `"rfc6298"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            RttEstimatorRule::Rfc6298 => "rfc6298",
            RttEstimatorRule::Linux => "linux",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<RttEstimatorRule> {
        RttEstimatorRule::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The congestion window during a PRR recovery (`recovery_pacing = "prr"`,
/// `tcp/recovery/prr.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PrrWindow {
    /// The control's window after its reduction (the new `ssthresh`) stands: RFC 6937 paces
    /// what is sent by `sndcnt` and leaves the window to the end of recovery. The default.
    #[default]
    Ssthresh,
    /// Linux's `tcp_cwnd_reduction()`: after every ACK that delivered data, `snd_cwnd` = the
    /// packets in flight + `sndcnt`, so the window itself shrinks and grows with PRR; what
    /// reads the window (the send buffer's growth, cwnd validation, the per-ACK trace) sees it.
    Linux,
}

impl PrrWindow {
    pub const ALL: [PrrWindow; 2] = [PrrWindow::Ssthresh, PrrWindow::Linux];

    /// The name scenarios use: `"ssthresh"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            PrrWindow::Ssthresh => "ssthresh",
            PrrWindow::Linux => "linux",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<PrrWindow> {
        PrrWindow::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// PRR's reduction bound once `pipe` is at or below `ssthresh` (`recovery_pacing = "prr"`,
/// `tcp/recovery/prr.rs`): how fast the flight may climb back towards `ssthresh`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PrrBound {
    /// RFC 6937's PRR-SSRB: every ACK lets out what it delivered plus one segment, a slow start
    /// towards `ssthresh`. The default.
    #[default]
    Ssrb,
    /// RFC 6937bis (and Linux's `tcp_cwnd_reduction()` since 5.19): the extra segment only on a
    /// "safe" ACK, one that advances `snd_una` and marks nothing newly lost; any other ACK lets
    /// out what it delivered (packet conservation). A DUPACK, or a NewReno partial ACK (which
    /// marks the next hole lost), does not grow the flight.
    SafeAck,
}

impl PrrBound {
    pub const ALL: [PrrBound; 2] = [PrrBound::Ssrb, PrrBound::SafeAck];

    /// The name scenarios use: `"ssrb"` or `"safe_ack"`.
    pub fn name(self) -> &'static str {
        match self {
            PrrBound::Ssrb => "ssrb",
            PrrBound::SafeAck => "safe_ack",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<PrrBound> {
        PrrBound::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The window the receiver advertises (`tcp/receive_window.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ReceiveWindowRule {
    /// Every ACK offers the configured `receiver_window` (ns-2's sinks). The default.
    #[default]
    Fixed,
    /// Linux's receiver: 64 KiB at first, then two segments more for every segment that arrives
    /// in order once the receive buffer is autotuned (`tcp_grow_window()`,
    /// `tcp_rcv_space_adjust()`), up to a quarter of `tcp_rmem[2]` or the configured window.
    Linux,
}

impl ReceiveWindowRule {
    pub const ALL: [ReceiveWindowRule; 2] = [ReceiveWindowRule::Fixed, ReceiveWindowRule::Linux];

    /// The name scenarios use: `"fixed"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            ReceiveWindowRule::Fixed => "fixed",
            ReceiveWindowRule::Linux => "linux",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<ReceiveWindowRule> {
        ReceiveWindowRule::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The sender's socket buffer (`tcp/send_buffer.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum SendBufferRule {
    /// The application always has data ready (ns-2's FTP agents). The default.
    #[default]
    Unlimited,
    /// Linux's send-buffer autotuning (`tcp_sndbuf_expand()`): about two windows beyond
    /// `snd_una`, growing only when the buffer, not the window, held the sender back.
    Linux,
}

impl SendBufferRule {
    pub const ALL: [SendBufferRule; 2] = [SendBufferRule::Unlimited, SendBufferRule::Linux];

    /// The name scenarios use: `"unlimited"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            SendBufferRule::Unlimited => "unlimited",
            SendBufferRule::Linux => "linux",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<SendBufferRule> {
        SendBufferRule::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Which NewReno partial ACKs restart the retransmission timer (RFC 6582 §3.2 step 3, §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PartialAckTimer {
    /// Only the first partial ACK of a recovery ("Impatient": a long train of holes falls back
    /// on the timer). The default.
    #[default]
    First,
    /// Every partial ACK ("Slow-but-Steady"): ns-2's Newreno agent with `newreno_changes1_ 0`
    /// (its default until 2003), and Linux, which rearms the timer on every ACK that advances
    /// `snd_una`.
    Every,
}

impl PartialAckTimer {
    pub const ALL: [PartialAckTimer; 2] = [PartialAckTimer::First, PartialAckTimer::Every];

    /// The name scenarios use: `"first"` or `"every"`.
    pub fn name(self) -> &'static str {
        match self {
            PartialAckTimer::First => "first",
            PartialAckTimer::Every => "every",
        }
    }

    /// The policy named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<PartialAckTimer> {
        PartialAckTimer::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// Which retransmission timeouts ask the congestion control for a new `ssthresh`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TimeoutThreshold {
    /// Every timeout: the control gets `CongestionEvent::Timeout` (with `repeated` when the
    /// timer expires again for the same `snd_una`) and decides; ns-2's agents. The default.
    #[default]
    Always,
    /// Only a timeout that starts a new loss episode, as Linux's `tcp_enter_loss` ("reduce
    /// ssthresh if it has not yet been made inside this window"): the sender is not in fast
    /// recovery or after-timeout recovery, or the episode's recovery point is acknowledged, or
    /// (after a timeout) `snd_una` has advanced since it. Any other timeout (one during fast
    /// recovery, or a repeated one) is `CongestionEvent::TimeoutHeld`: the window restarts from
    /// one segment and `ssthresh` stays what the episode set.
    NewEpisode,
}

impl TimeoutThreshold {
    pub const ALL: [TimeoutThreshold; 2] = [TimeoutThreshold::Always, TimeoutThreshold::NewEpisode];

    /// The name scenarios use: `"always"` or `"new_episode"`.
    pub fn name(self) -> &'static str {
        match self {
            TimeoutThreshold::Always => "always",
            TimeoutThreshold::NewEpisode => "new_episode",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<TimeoutThreshold> {
        TimeoutThreshold::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// How the sender decides what it may send during fast recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum RecoveryPacing {
    /// Reno and NewReno: the window is the control's cwnd plus one segment per DUPACK
    /// (RFC 5681 §3.2, RFC 6582 §3.2; see `fast_recovery_inflation`); SACK: RFC 6675's
    /// `pipe < cwnd`. The default.
    #[default]
    Inflation,
    /// RFC 6937 Proportional Rate Reduction (PRR-SSRB), as Linux does: on every ACK in
    /// recovery, send in proportion to the data delivered (`ssthresh / RecoverFS`) while `pipe`
    /// is above the control's `ssthresh`, and catch up to it, at most one segment beyond what
    /// was delivered, once below.
    Prr,
}

impl RecoveryPacing {
    pub const ALL: [RecoveryPacing; 2] = [RecoveryPacing::Inflation, RecoveryPacing::Prr];

    /// The name scenarios use: `"inflation"` or `"prr"`.
    pub fn name(self) -> &'static str {
        match self {
            RecoveryPacing::Inflation => "inflation",
            RecoveryPacing::Prr => "prr",
        }
    }

    /// The pacing named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<RecoveryPacing> {
        RecoveryPacing::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// How fast recovery inflates the window by DUPACKs (Reno and NewReno recovery without PRR).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Inflation {
    /// RFC 5681 §3.2 steps 3-4 and RFC 6582 §3.2: `dupack_threshold` segments at the fast
    /// retransmit, one more per further DUPACK; a NewReno partial ACK deflates by the bytes it
    /// acknowledges and adds one segment back. The default.
    #[default]
    Standard,
    /// None: after the fast retransmit no new segment goes out until the window allows it again
    /// without inflation (the UCLA ns-2 Westwood agent, a Reno agent without `dupwnd_`).
    Off,
    /// Only the DUPACKs after the fast retransmit inflate, and a NewReno partial ACK drops the
    /// whole inflation: ns-2's `dupwnd_` as the UCLA `WestwoodNR` agent leaves it on ns-2.35
    /// (its `dupack_action()` does not set it, `exitFastRetrans_` keeps `recv()` from setting
    /// it, and its class has no `partial_window_deflation_` default, so the C++ 0 applies).
    LaterDupacks,
}

impl Inflation {
    pub const ALL: [Inflation; 3] = [Inflation::Standard, Inflation::Off, Inflation::LaterDupacks];

    /// The value scenarios write: `true`, `false` or `"later_dupacks"`.
    pub fn name(self) -> &'static str {
        match self {
            Inflation::Standard => "true",
            Inflation::Off => "false",
            Inflation::LaterDupacks => "later_dupacks",
        }
    }

    /// The rule named `name` (case-insensitive), as [`Inflation::name`] spells it.
    pub fn from_name(name: &str) -> Option<Inflation> {
        Inflation::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// What the fast retransmission does to the retransmission timer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FastRetransmitTimer {
    /// Nothing: the timer keeps the deadline the last ACK of new data set (RFC 6298 restarts
    /// it only on such ACKs, §5.3). The default.
    #[default]
    Running,
    /// Restart it, as ns-2's agents do (`dupack_action()` -> `reset_rtx_timer(1,0)`) and Linux
    /// (`tcp_xmit_retransmit_queue()` rearms it when it resends the head): a lost
    /// retransmission times out one RTO after it was sent.
    Restart,
}

impl FastRetransmitTimer {
    pub const ALL: [FastRetransmitTimer; 2] = [FastRetransmitTimer::Running, FastRetransmitTimer::Restart];

    /// The name scenarios use: `"running"` or `"restart"`.
    pub fn name(self) -> &'static str {
        match self {
            FastRetransmitTimer::Running => "running",
            FastRetransmitTimer::Restart => "restart",
        }
    }

    /// The rule named `name` (case-insensitive).
    pub fn from_name(name: &str) -> Option<FastRetransmitTimer> {
        FastRetransmitTimer::ALL.into_iter().find(|p| p.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// RFC 6298 retransmission timer parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RtoSpec {
    pub initial: Nanos,
    pub min: Nanos,
    pub max: Nanos,
    /// Clock granularity G.
    pub granularity: Nanos,
}

/// RFC 1122 / RFC 5681 §4.2 delayed ACKs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayedAckSpec {
    pub enabled: bool,
    /// ACK at the latest this long after the first unacknowledged segment.
    pub timeout: Nanos,
    /// ACK every this many full-sized segments.
    pub every_segments: u32,
    /// Quick ACKs (Linux's quick-ACK mode): acknowledge each of the first this many data
    /// segments at once, and again this many after a duplicate segment (a retransmission of
    /// data already received) arrives. 0: none (the default).
    pub quick_acks: u32,
}

impl Default for RtoSpec {
    fn default() -> Self {
        RtoSpec {
            initial: NANOS_PER_SECOND,
            min: NANOS_PER_SECOND,
            max: 60 * NANOS_PER_SECOND,
            granularity: 1_000_000,
        }
    }
}

impl Default for DelayedAckSpec {
    fn default() -> Self {
        DelayedAckSpec { enabled: true, timeout: 200_000_000, every_segments: 2, quick_acks: 0 }
    }
}

/// Per-packet round robin over the first `paths` paths between a flow's endpoints (seed 002).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MultipathSpec {
    /// How many paths to use (at most this many exist in some topologies; see `network::multipath`).
    pub paths: u8,
    pub mode: MultipathMode,
    pub select: PathSelection,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MultipathMode {
    /// Data and ACKs are both spread over the paths ("full multiple path", seed 002 §II-B).
    Full,
    /// Data is spread; ACKs take the single shortest path ("simple multiple path").
    Simple,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PathSelection {
    /// Edge-disjoint paths of least total hop count, shortest first.
    Disjoint,
    /// The k shortest loop-free paths by hop count (Yen), which may share links.
    Shortest,
}

/// Finite TCP transfers arriving during the run: a Poisson process of flows, each lasting an
/// exponentially distributed time (seed 002 §IV-B).
#[derive(Debug, Clone, PartialEq)]
pub struct ArrivalsSpec {
    pub name: String,
    pub endpoints: ArrivalEndpoints,
    /// Arrivals happen in `[start, stop)`; the first comes one inter-arrival time after `start`.
    pub start: Nanos,
    pub stop: Option<Nanos>,
    pub mean_interarrival: Nanos,
    pub mean_duration: Nanos,
    /// Most flows this table creates (a guard against runaway tables).
    pub max_flows: u64,
    pub tcp: TcpSpec,
    pub multipath: Option<MultipathSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrivalEndpoints {
    /// Every flow from `src` to `dst` (node indices).
    Fixed { src: usize, dst: usize },
    /// Each flow picks a sender uniformly among these nodes and a different receiver uniformly
    /// among the rest.
    Among(Vec<usize>),
}
