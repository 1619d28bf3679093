//! Reno fast recovery, RFC 5681 §3.2: at `dupthresh` DUPACKs the first unacknowledged segment
//! is resent and the window is inflated by the DUPACKs (kept apart from the control's `cwnd`, as
//! ns-2 keeps `dupwnd_`), one segment per further DUPACK; the first ACK of new data ends
//! recovery. NewReno (`newreno.rs`) enters and inflates the same way.

use westwood_algorithms::CongestionEvent;
use westwood_trace::TraceEvent;

use super::super::reordering::RenoSacks;
use super::super::sender::Sender;
use super::{LossRecovery, RecoveryPacer};
use crate::model::{Inflation, Nanos};
use crate::network::Packet;

impl Sender {
    /// RFC 5681 §3.2 steps 2-3 (Reno and NewReno): the control sets the window, fast recovery
    /// starts with the window inflated by the `dupthresh` DUPACKs (ours, not the control's), and
    /// the first unacknowledged segment is resent (by PRR at the end of the ACK, when it paces).
    pub(in crate::tcp) fn enter_fast_recovery(
        &mut self,
        bytes_in_flight: u64,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        let reported = self.reduction_flight(bytes_in_flight);
        self.cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: reported });
        self.state.enter_recovery();
        if let LossRecovery::NewReno { partial_ack_seen } = &mut self.recovery {
            *partial_ack_seen = false;
        }
        // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3*SMSS, the inflation being ours. The UCLA
        // WestwoodNR agent's dupwnd_ starts at 0: only later DUPACKs inflate.
        let dupthresh_bytes = i64::from(self.dupack_threshold) * self.mss as i64;
        if let RecoveryPacer::Inflation { rule, bytes } = &mut self.pacing {
            *bytes = if *rule == Inflation::Standard { dupthresh_bytes } else { 0 };
        }
        self.start_prr(reported);
        self.observe_now(now, TraceEvent::Recovery, 0, false, None);
        match self.pacing.prr_mut() {
            // Sent by PRR at the end of this ACK, counted in prr_out like anything it sends.
            Some(prr) => prr.rexmit_pending = true,
            None => self.retransmit_first_unacked(now, out),
        }
        self.fast_retransmit_timer_rule(now);
    }

    /// RFC 5681 §3.2 step 4: in fast recovery each further DUPACK means a segment left the
    /// network; the window is inflated by one segment (when the sender inflates).
    pub(in crate::tcp) fn inflate_on_duplicate_ack(&mut self) {
        let mss = self.mss as i64;
        if let RecoveryPacer::Inflation { rule: Inflation::Standard | Inflation::LaterDupacks, bytes } =
            &mut self.pacing
        {
            *bytes += mss;
        }
    }

    /// The ACK's DeliveredData (RFC 6937 §3) without SACK: one segment per DUPACK (while the
    /// DUPACKs do not claim more than FlightSize less one segment), and on a cumulative ACK what
    /// it covers beyond the segments earlier DUPACKs claimed, at least one segment (Linux's
    /// `tcp_add_reno_sack()` / `tcp_remove_reno_sacks()`).
    pub(in crate::tcp) fn dupack_delivered_data(
        &mut self,
        ack_seq: u64,
        una_before: u64,
        flight_before: u64,
    ) -> u64 {
        if let Some(sacks) = self.reno_sacks {
            // Linux's own count (`tcp_count_delivered()` from `tcp_remove_reno_sacks()` and
            // `tcp_add_reno_sack()`): a DUPACK delivers what it adds to `sacked_out`, nothing
            // where the count ignores it (in Loss before new data is out beyond `high_seq`,
            // or held at it) or clamps it; a cumulative ACK what it covers beyond `sacked_out`,
            // at least one segment. The DUPACKs of a go-back-N resend in Loss are not taken
            // from the ACKs after it, and a count reset on leaving a state leaves nothing over.
            return if ack_seq > una_before {
                let acked = ack_seq - una_before;
                acked.saturating_sub(sacks.sacked() * self.mss).max(acked.min(self.mss))
            } else if flight_before > 0 && self.reno_sacks_after_dupack().is_some_and(|(_, counted)| counted)
            {
                self.mss
            } else {
                0
            };
        }
        if ack_seq > una_before {
            let acked = ack_seq - una_before;
            let first = acked.min(self.mss);
            let delivered = acked.saturating_sub(self.dup_credit).max(first);
            self.dup_credit = self.dup_credit.saturating_sub(acked - first);
            delivered
        } else if flight_before > 0 {
            if self.held_at_recover() {
                // Held at `recover` (`recovery_exit = "above_recover"`): tcp_fastretrans_alert()
                // resets a non-SACK sender's `sacked_out` (tcp_reset_reno_sack()) and returns
                // through tcp_try_undo_recovery() before counting the DUPACK, so it delivers
                // nothing: PRR sends nothing and the hole above `recover` waits for the RTO.
                self.dup_credit = 0;
                return 0;
            }
            let cap = (self.snd_max - self.snd_una).saturating_sub(self.mss);
            let credit = self.mss.min(cap.saturating_sub(self.dup_credit));
            self.dup_credit += credit;
            credit
        } else {
            0
        }
    }

    /// A DUPACK without SACK (Reno, NewReno, Tahoe; RFC 5681 §3.2): counted, with Linux's count
    /// where the flow keeps it (`tcp/reordering.rs`); in fast recovery it inflates the window; at
    /// the threshold it starts fast retransmit unless `recover` guards against it; before, RFC
    /// 3042's limited transmit.
    pub(in crate::tcp) fn count_duplicate_ack(
        &mut self,
        ack_seq: u64,
        bytes_in_flight: u64,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        self.dupacks += 1;
        self.frto_on_duplicate_ack();
        let counted = self.count_reno_dupack();
        // The ACK's row comes before the loss reaction it may trigger, as in the kernel.
        self.observe_now(now, TraceEvent::Ack, 0, true, None);
        if self.state.in_recovery() {
            self.inflate_on_duplicate_ack();
            return;
        }
        let linux_threshold = self.reno_sacks.filter(RenoSacks::raises_threshold);
        let loss_detected = match linux_threshold {
            Some(sacks) => sacks.loss_detected(),
            None => self.dupacks >= self.dupack_threshold,
        };
        if !loss_detected {
            // RFC 3042 §2 (RFC 5681 §3.2 step 1): the first DUPACKs may send new data (with
            // Linux's count, those it counted: a clamped DUPACK frees nothing in flight).
            // In Loss, Linux's count already lets the held segments' places out (the send
            // path's `loss_held_bytes`), which is all limited transmit is to Linux.
            if self.limited_transmit && counted && self.loss_held_bytes() == 0 {
                self.limited_transmit_one(now, out);
            }
            return;
        }
        if linux_threshold.is_none() && self.dupacks != self.dupack_threshold {
            return;
        }
        let bytes_in_flight = self.flight_size(bytes_in_flight);
        // RFC 6582 §3.2 step 2 (`LossRecovery::guards_recover`): DUPACKs for data sent before
        // the last loss detection (e.g. the go-back-N resend after a timeout) must not trigger a
        // second reduction.
        let guarded = self.recovery.guards_recover(self.repeat_fast_retransmit);
        if guarded && self.recover.is_some_and(|recover| ack_seq <= recover) {
            return;
        }
        self.stats.fast_retransmits += 1;
        self.recover = Some(self.snd_max);
        self.on_dupack_loss(bytes_in_flight, now, out);
    }
}
