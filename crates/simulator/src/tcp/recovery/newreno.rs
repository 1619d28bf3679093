//! NewReno, RFC 6582: Reno's fast recovery (`reno.rs`) that stays in recovery until everything
//! outstanding at loss detection (`recover`) is acknowledged; each partial ACK resends the next
//! hole. DUPACKs for data sent before the last loss detection do not start a second reduction
//! (§3.2 step 2; the check is in the sender's DUPACK handling, shared with Tahoe).

use super::super::sender::Sender;
use super::{LossRecovery, RecoveryPacer};
use crate::model::{Inflation, Nanos, PartialAckTimer};
use crate::network::Packet;

impl Sender {
    /// RFC 6582 §3.2 step 3, a partial ACK in fast recovery: retransmit the next hole (PRR
    /// resends it when it allows), deflate the window by the amount acked and add back one
    /// SMSS (with `fast_recovery_inflation = "later_dupacks"`: drop the whole inflation). Returns whether to restart the retransmission timer: on the first partial ACK only
    /// ("Impatient", RFC 6582 §4, so a long train of holes falls back on the RTO) or on every
    /// one ("Slow-but-Steady").
    pub(in crate::tcp) fn newreno_partial_ack(
        &mut self,
        newly_acked_bytes: u64,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) -> bool {
        match self.pacing.prr_mut() {
            Some(prr) => prr.rexmit_pending = true,
            None => self.retransmit_first_unacked(now, out),
        }
        if let RecoveryPacer::Inflation { rule, bytes } = &mut self.pacing {
            match rule {
                Inflation::Off => {}
                // ns-2's partial_window_deflation_ 0: the window falls back to cwnd.
                Inflation::LaterDupacks => *bytes = 0,
                Inflation::Standard => {
                    *bytes -= newly_acked_bytes as i64;
                    if newly_acked_bytes >= self.mss {
                        *bytes += self.mss as i64;
                    }
                }
            }
        }
        let LossRecovery::NewReno { partial_ack_seen } = &mut self.recovery else { return true };
        let restart = !*partial_ack_seen || self.partial_ack_timer == PartialAckTimer::Every;
        *partial_ack_seen = true;
        restart
    }
}
