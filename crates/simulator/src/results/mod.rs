//! What a run produces: one summary record plus optional time series — the result schema.
//!
//! The testbed (crates/emulator) writes the same records, so simulated and measured runs can
//! be compared row by row. The records' fields are the schema (serialised by `serde`, once);
//! [`columns`] declares the column order of their tables, which the emulator's writer and the
//! Python front end (through `westwood._core`) read from here.
//!
//! The metrics in the records are computed elsewhere ([`crate::metrics`]: Jain's index, the
//! per-control shares; [`crate::traffic`]: arrivals): this module only declares them.

pub mod columns;
pub mod csv;

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// Record per-flow and per-link time series every `Scenario::sample_interval`.
    pub record_series: bool,
    /// Check TCP invariants (in-order exactly-once delivery, cwnd >= 1 segment, monotone
    /// sequence numbers) on every event and fail the run on the first violation.
    pub check_invariants: bool,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    /// Resolved scenario parameters, name -> value as text.
    pub parameters: std::collections::BTreeMap<String, String>,
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    /// Events processed by the engine.
    pub events: u64,
    /// Packets (data and ACK) that started a link transmission.
    pub packets: u64,
    pub flows: Vec<FlowSummary>,
    /// Jain's fairness index over the goodput of every flow in `flows` (`crate::metrics`).
    pub fairness: Fairness,
    /// Per congestion control: flows, mean and total goodput (friendliness), fairness among them.
    pub per_cc: std::collections::BTreeMap<String, CcShare>,
    /// Flows created during the run by `[flows.NAME] arrivals`, aggregated per table.
    pub arrivals: Vec<ArrivalsSummary>,
    pub sources: Vec<SourceSummary>,
    pub links: Vec<LinkSummary>,
    /// What makes this run defeat itself (`crate::warnings`): empty for a healthy run.
    pub warnings: Vec<Warning>,
}

/// A sign that a scenario defeats itself: a result measured on it says more about the
/// scenario's mistake than about the protocols. Found by [`crate::warnings`]; a strict run
/// (`RunControl::strict`) refuses instead of reporting them.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Warning {
    pub kind: WarningKind,
    /// The link at fault, if one is.
    pub link: Option<String>,
    /// The flow or source that suffers, if one does.
    pub origin: Option<String>,
    /// One sentence: what is wrong, why it matters, how to fix the scenario.
    pub message: String,
}

#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WarningKind {
    /// A `"bdp"` queue resolved to fewer than `warnings::MIN_BDP_QUEUE_PACKETS` packets on a
    /// link that data crosses (found when the network is built).
    SmallBdpQueue,
    /// A flow or source lost more than half of what it sent to overflow at the first link of
    /// its path (found after the run).
    FirstHopLoss,
}

/// Jain's index over named flows, on their goodput.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct Fairness {
    /// `null` when there are no flows.
    pub index: Option<f64>,
    /// The flows it was computed over.
    pub flows: Vec<String>,
}

/// The share of one congestion control among the flows of a run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CcShare {
    pub flows: usize,
    /// Mean goodput per flow, bits/s: the friendliness comparison.
    pub mean_goodput_bps: f64,
    pub total_goodput_bps: f64,
    /// Jain's index among this control's flows (`null` without flows).
    pub fairness_index: Option<f64>,
}

/// What one arrivals table did over the run.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct ArrivalsSummary {
    pub name: String,
    pub cc: String,
    pub mean_interarrival_seconds: f64,
    pub mean_duration_seconds: f64,
    /// Flows created.
    pub flows_started: u64,
    /// Flows whose time was up before the end of the run.
    pub flows_completed: u64,
    /// Flows still open when the run ended (their active time is cut at the end).
    pub flows_active_at_end: u64,
    /// Mean over flows of each flow's goodput (in-order payload bytes over its active time),
    /// bits/s: the "average throughput of the connections" of seed 002 fig. 17.
    pub mean_goodput_bps: f64,
    pub min_goodput_bps: f64,
    pub max_goodput_bps: f64,
    /// Jain's index over the flows' goodputs (`null` without flows).
    pub fairness_index: Option<f64>,
    /// Payload bytes delivered in order, all flows together.
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Mean number of paths a flow spread its data over (1 without multipath).
    pub mean_paths: f64,
    /// The longest stall of any of the table's flows, seconds (see
    /// [`FlowSummary::longest_stall_seconds`]).
    pub longest_stall_seconds: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SourceSummary {
    pub name: String,
    /// `cbr`.
    pub kind: String,
    pub src: String,
    pub dst: String,
    pub rate_bps: u64,
    /// Bytes on the wire per packet.
    pub packet_size: u64,
    /// ON intervals, [start, stop) in seconds.
    pub on: Vec<[f64; 2]>,
    pub packets_sent: u64,
    pub packets_received: u64,
}

#[derive(Debug, Clone, Default, Serialize, PartialEq)]
pub struct FlowSummary {
    pub name: String,
    /// Congestion control as named in the scenario.
    pub cc: String,
    /// Loss recovery the sender used (`reno`, `newreno`, `sack`, `tahoe`).
    pub recovery: String,
    /// Payload bytes per segment and header bytes per packet.
    pub segment_size: u64,
    pub header_size: u64,
    pub src: String,
    pub dst: String,
    /// Unique payload bytes delivered in order to the receiving application, bits/s over the
    /// flow's active time.
    pub goodput_bps: f64,
    /// All data-packet bytes (payload + headers, duplicates included) that reached the receiver,
    /// bits/s over the flow's active time.
    pub throughput_bps: f64,
    pub bytes_delivered: u64,
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Active time: from the flow's start to its stop or the end of the run, seconds.
    pub active_seconds: f64,
    /// Smallest RTT sample seen, seconds (0 if none).
    pub min_rtt_seconds: f64,
    /// Paths the data is spread over (1: ordinary routing; see `multipath`).
    pub paths: usize,
    /// When the flow started, seconds: its `start`, or the time drawn for a random start.
    pub start_seconds: f64,
    /// The longest time during the active time in which the sender had data to deliver and its
    /// cumulative ACK point did not advance, seconds (`crate::stall`): about one RTO at most on
    /// a healthy path, most of the run for a flow locked out by RTO backoff.
    pub longest_stall_seconds: f64,
    /// The stall still open at the end of the active time, seconds: the time since the
    /// cumulative ACK point last advanced. A flow locked out until the end shows its lockout
    /// here; one that recovered from a long stall, only its last round trips.
    pub final_stall_seconds: f64,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct LinkSummary {
    pub name: String,
    pub from: String,
    pub to: String,
    pub rate_bps: u64,
    pub delay_seconds: f64,
    /// Queue discipline: `droptail` or `red`.
    pub queue_type: String,
    /// Queue limit after resolving `bdp` (RED's hard limit).
    pub queue_limit: String,
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Packets dropped because the queue was full.
    pub drops_overflow: u64,
    /// Packets RED dropped early (before the queue was full).
    pub drops_red: u64,
    /// Packets lost to random channel errors (Bernoulli, bit errors, Gilbert-Elliott).
    pub drops_error: u64,
    /// Packets lost in scheduled outages.
    pub drops_outage: u64,
    /// Fraction of the run the link was transmitting.
    pub utilization: f64,
}

/// Column-oriented time series, ready for a DataFrame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlowSeries {
    pub time_seconds: Vec<f64>,
    pub flow: Vec<String>,
    pub cwnd_bytes: Vec<u64>,
    pub ssthresh_bytes: Vec<u64>,
    pub srtt_seconds: Vec<f64>,
    /// Bandwidth estimate in bits/s for controls that keep one, NaN otherwise.
    pub bwe_bps: Vec<f64>,
    pub bytes_delivered: Vec<u64>,
    /// Highest sequence number sent so far (for sequence-number-vs-time plots).
    pub snd_max: Vec<u64>,
    /// Oldest unacknowledged sequence number (everything below it is acknowledged).
    pub snd_una: Vec<u64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkSeries {
    pub time_seconds: Vec<f64>,
    pub link: Vec<String>,
    pub queue_packets: Vec<u64>,
    pub queue_bytes: Vec<u64>,
    /// RED's average queue, packets (NaN on drop-tail links).
    pub queue_avg_packets: Vec<f64>,
    /// Cumulative drops by cause since the start of the run.
    pub drops_overflow: Vec<u64>,
    pub drops_red: Vec<u64>,
    pub drops_error: Vec<u64>,
    pub drops_outage: Vec<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunResult {
    pub summary: Summary,
    /// Present when `RunOptions::record_series` was set.
    pub flow_series: Option<FlowSeries>,
    pub link_series: Option<LinkSeries>,
}
