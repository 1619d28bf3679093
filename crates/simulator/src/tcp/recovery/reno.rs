//! Reno fast recovery, RFC 5681 §3.2: at `dupthresh` DUPACKs the first unacknowledged segment
//! is resent and the window is inflated by the DUPACKs (kept apart from the control's `cwnd`, as
//! ns-2 keeps `dupwnd_`), one segment per further DUPACK; the first ACK of new data ends
//! recovery. NewReno (`newreno.rs`) enters and inflates the same way.

use westwood_algorithms::CongestionEvent;
use westwood_trace::TraceEvent;

use super::super::sender::Sender;
use crate::model::{Inflation, Nanos, RecoveryPacing};
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
        self.partial_ack_seen = false;
        // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3*SMSS, the inflation being ours. The UCLA
        // WestwoodNR agent's dupwnd_ starts at 0: only later DUPACKs inflate.
        self.inflation = match self.fast_recovery_inflation {
            Inflation::Standard if self.inflates() => i64::from(self.dupack_threshold) * self.mss as i64,
            _ => 0,
        };
        self.start_prr(reported);
        self.observe_now(now, TraceEvent::Recovery, 0, false, None);
        if self.recovery_pacing == RecoveryPacing::Prr {
            // Sent by PRR at the end of this ACK, counted in prr_out like anything it sends.
            self.rexmit_pending = true;
        } else {
            self.retransmit_first_unacked(now, out);
        }
        self.fast_retransmit_timer_rule(now);
    }

    /// RFC 5681 §3.2 step 4: in fast recovery each further DUPACK means a segment left the
    /// network; the window is inflated by one segment (when the sender inflates).
    pub(in crate::tcp) fn inflate_on_duplicate_ack(&mut self) {
        if self.inflates() {
            self.inflation += self.mss as i64;
        }
    }
}
