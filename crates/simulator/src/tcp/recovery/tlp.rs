//! Tail loss probes (RFC 8985 §7), the "TLP" of RACK-TLP, as Linux sends them with its default
//! `tcp_early_retrans = 3` (`tcp_schedule_loss_probe()`, `tcp_send_loss_probe()`,
//! `tcp_process_tlp_ack()`), for SACK senders with `loss_detection = "rack"`.
//!
//! RACK finds a loss only when something sent after it is delivered; a loss at the tail of a
//! flight has nothing after it, and without a probe it waits for the retransmission timer. So
//! whenever the sender is in the Open state (nothing SACKed, lost or resent) with data out, a
//! probe timer runs: twice the smoothed RTT, plus `rto_min` when a single segment is out (its
//! ACK may be delayed) or two milliseconds otherwise, but never past the RTO. When it fires the
//! sender sends one segment whatever the congestion window says: new data if it has some and the
//! receiver's window allows, else the last segment again. The probe's ACK (or its SACK) is a
//! delivery after the tail, so RACK can mark the tail lost and start a recovery. At most one
//! probe is outstanding (`tlp_high_seq`). When a resent probe turns out to have repaired a loss
//! (an ACK beyond it), the window is reduced once, as a recovery would (the CWR state:
//! `tcp_init_cwnd_reduction()` then `tcp_end_cwnd_reduction()`); a DUPACK that SACKs nothing
//! says the original arrived too, and nothing is reduced.
//!
//! Not modelled: DSACK (the receiver sends none here), the probe's skip when the last segment
//! is still in the host's queue.

use westwood_algorithms::CongestionEvent;
use westwood_trace::CaState;

use super::super::sender::Sender;
use super::rack::{JIFFY_NS, TIMEOUT_MIN_NS};
use crate::model::Nanos;
use crate::network::Packet;

/// `TCP_TIMEOUT_INIT`: the probe's wait before the first RTT sample.
const TIMEOUT_INIT_NS: Nanos = 1_000_000_000;

/// The probe timer and the probe in flight.
#[derive(Debug, Clone, Default)]
pub(in crate::tcp) struct TailLossProbe {
    /// When the probe timer fires.
    pub(in crate::tcp) deadline: Option<Nanos>,
    /// `tlp_high_seq`: `snd_max` when the last probe went, until an ACK settles it.
    high_seq: Option<u64>,
    /// The last probe resent data (`tlp_retrans`); else it was new data.
    resent: bool,
}

impl Sender {
    /// `tcp_schedule_loss_probe()` after an ACK or a send: arm the probe timer in the Open state
    /// with data out; elsewhere the retransmission timer rules alone (`tcp_rearm_rto()`).
    pub(in crate::tcp) fn schedule_loss_probe(&mut self, now: Nanos) {
        if self.tlp.is_none() {
            return;
        }
        let open = self.ca_state() == CaState::Open && self.snd_max > self.snd_una;
        let deadline = open.then(|| {
            let wait = self.rtt.srtt().map_or(TIMEOUT_INIT_NS, |srtt| {
                let extra = if self.packets_out() == 1 { self.rtt.min_rto() } else { TIMEOUT_MIN_NS };
                (2 * srtt + extra).div_ceil(JIFFY_NS) * JIFFY_NS
            });
            // "If the RTO formula yields an earlier time, then use that time."
            self.rto_timer.deadline().map_or(now + wait, |rto| rto.min(now + wait))
        });
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.deadline = deadline;
        }
    }

    /// The probe timer fired (`tcp_send_loss_probe()`): send the probe unless one is still
    /// unsettled, and restart the retransmission timer from now.
    pub(in crate::tcp) fn send_loss_probe(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let Some(tlp) = self.tlp.as_mut() else { return };
        tlp.deadline = None;
        if tlp.high_seq.is_some() || self.snd_max == self.snd_una {
            return;
        }
        let resent = match self.new_data_len() {
            Some(len) if self.snd_nxt == self.snd_max => {
                self.transmit(self.snd_max, len, now, out);
                self.snd_nxt = self.snd_max;
                false
            }
            _ => {
                let Some(last) = self.outstanding.back().copied() else { return };
                self.transmit(last.start, last.len(), now, out);
                true
            }
        };
        if let Some(tlp) = self.tlp.as_mut() {
            tlp.high_seq = Some(self.snd_max);
            tlp.resent = resent;
        }
        self.rto_timer.start(now, self.rtt.rto());
        self.record_window_use();
    }

    /// `tcp_process_tlp_ack()`: what an ACK at `ack_seq` says of the outstanding probe.
    /// `advanced`: it moved `snd_una`; `sacked`: it SACKed new data.
    pub(in crate::tcp) fn process_tlp_ack(&mut self, ack_seq: u64, advanced: bool, sacked: bool, now: Nanos) {
        let Some(tlp) = self.tlp.as_mut() else { return };
        let Some(high_seq) = tlp.high_seq else { return };
        if ack_seq < high_seq {
            return;
        }
        if !tlp.resent || (!advanced && !sacked && ack_seq == high_seq) {
            // New data acknowledged, or a pure DUPACK: the original and the probe both arrived.
            tlp.high_seq = None;
        } else if ack_seq > high_seq {
            // The resent probe repaired a loss: one reduction, as the CWR state makes it.
            tlp.high_seq = None;
            let flight = self.reduction_flight(self.snd_max - self.snd_una);
            self.cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: flight });
            self.cc.on_recovery_exit(now);
        }
    }

    /// A recovery or a timeout settles the probe (`tcp_init_cwnd_reduction()`,
    /// `tcp_enter_loss()`): none is outstanding or due.
    pub(in crate::tcp) fn forget_loss_probe(&mut self) {
        if let Some(tlp) = self.tlp.as_mut() {
            *tlp = TailLossProbe::default();
        }
    }
}
