//! Tahoe (Jacobson 1988; the "TCP Tahoe" of Fall & Floyd 1996): fast retransmit without fast
//! recovery. At `dupthresh` DUPACKs the sender goes back to `snd_una` in slow start from one
//! segment, reporting `CongestionEvent::DuplicateAcksSlowStart` to the control.

use westwood_algorithms::CongestionEvent;
use westwood_trace::TraceEvent;

use super::super::sender::Sender;
use crate::model::Nanos;

impl Sender {
    /// Jacobson's Tahoe at `dupthresh` DUPACKs: fast retransmit, then slow start from
    /// `snd_una` (go-back-N): send_available resends `snd_una` first, with cwnd = 1 SMSS.
    pub(in crate::tcp) fn tahoe_fast_retransmit(&mut self, bytes_in_flight: u64, now: Nanos) {
        let reported = self.reduction_flight(bytes_in_flight);
        self.cc.on_congestion(CongestionEvent::DuplicateAcksSlowStart {
            now_ns: now,
            bytes_in_flight: reported,
        });
        self.snd_nxt = self.snd_una;
        self.state.enter_loss(self.snd_max);
        self.observe_now(now, TraceEvent::Recovery, 0, false, None);
        self.fast_retransmit_timer_rule(now);
    }
}
