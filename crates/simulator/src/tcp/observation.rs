//! What a sender records, when asked to, for the per-ACK trace (`docs/ack-trace.md`): one
//! [`AckObservation`] per ACK its congestion control saw and one per loss reaction.
//!
//! The sender takes the numbers at the exact moment the trace defines (after the control's
//! `on_ack`, after `on_congestion`), which no caller could do from outside; turning them into
//! named CSV rows is the simulator's job (`crate::ack_trace`), so the sender does no I/O.

use crate::model::Nanos;
use westwood_trace::{CaState, TraceEvent};

/// One trace row without the flow's names. Units: ns and bytes, as in the sender.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AckObservation {
    pub time_ns: Nanos,
    pub event: TraceEvent,
    /// `snd_una` after the event.
    pub ack: u64,
    pub acked_bytes: u64,
    pub dupack: bool,
    pub sacked_bytes: u64,
    pub credited_bytes: Option<u64>,
    pub rtt_ns: Option<Nanos>,
    pub bwe_bps: Option<f64>,
    pub rtt_min_ns: Option<Nanos>,
    pub cwnd_bytes: u64,
    pub ssthresh_bytes: u64,
    pub ca_state: CaState,
    pub in_flight_bytes: u64,
}
