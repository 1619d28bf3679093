//! The validated, typed scenario the simulator runs.
//!
//! A scenario file (TOML, see `docs/scenarios.md`) is parsed, its parameters substituted and
//! every field checked by [`crate::scenario`]; the result is this model, in SI base units held as
//! integers (nanoseconds, bits per second, bytes). The simulator never sees TOML.

use westwood_algorithms::westwood::{AbseParams, PlusParams, TcpwParams};
use westwood_algorithms::Recovery;

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
    pub queue: QueueSpec,
    /// Channel errors applied to packets crossing this link, if any.
    pub errors: Option<ErrorSpec>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueueSpec {
    /// Drop-tail FIFO; the limit counts packets waiting, not the one being transmitted.
    DropTail(QueueLimit),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueueLimit {
    Packets(u64),
    Bytes(u64),
    /// The bandwidth-delay product, resolved when the network is built: link rate times the
    /// largest round-trip propagation delay among the flows whose data crosses the link (or
    /// `rtt` when given), in packets of the largest data-packet size crossing it.
    BandwidthDelayProduct {
        rtt: Option<Nanos>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ErrorSpec {
    /// Each packet is lost independently with this probability.
    PacketErrorRate(f64),
    /// Each bit is in error independently with this probability; a packet of `n` bytes is lost
    /// with probability `1 - (1 - ber)^(8n)`.
    BitErrorRate(f64),
}

#[derive(Debug, Clone, PartialEq)]
pub struct FlowSpec {
    pub name: String,
    /// Node indices.
    pub src: usize,
    pub dst: usize,
    pub start: Nanos,
    /// When the application stops handing data to TCP (`None`: runs to the end).
    pub stop: Option<Nanos>,
    pub tcp: TcpSpec,
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

/// Which congestion control a flow runs, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum CcSpec {
    /// RFC 5681 window rules (`reno` and `newreno`; they differ in `TcpSpec::recovery`).
    Reno,
    /// TCPW, seed 000.
    Westwood(TcpwParams),
    /// TCPW with the threshold reduction factor, seed 001.
    WestwoodTr,
    /// TCPW ABSE, seed 004.
    WestwoodAbse(AbseParams),
    /// Westwood+.
    WestwoodPlus(PlusParams),
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
        DelayedAckSpec { enabled: true, timeout: 200_000_000, every_segments: 2 }
    }
}
