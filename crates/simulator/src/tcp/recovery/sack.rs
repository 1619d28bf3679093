//! SACK loss recovery, RFC 6675 with RFC 2018 SACK blocks: the sender's scoreboard
//! (`tcp/sack.rs`) says what is lost; `NextSeg` (§4) chooses what to send and `pipe` (§4
//! `SetPipe`) keeps the data in the network below `cwnd`, with no window inflation; recovery
//! ends when `RecoveryPoint` is acknowledged, and a timeout's resend is driven by the same
//! scoreboard (§5.1).

use westwood_algorithms::CongestionEvent;
use westwood_trace::TraceEvent;

use super::super::congestion_state::CongestionState;
use super::super::sender::Sender;
use crate::model::{Nanos, SackNextSeg};
use crate::network::Packet;

/// What RFC 6675's recovery keeps beside the scoreboard (which the sender keeps: RACK and the
/// trace read it too).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) struct SackRecovery {
    /// Un-SACKed bytes below this are lost (`IsLost`; only ever moves forward). Unused with
    /// RACK, which marks segments instead.
    pub(in crate::tcp) lost_to: u64,
    /// One past the highest byte retransmitted in this recovery (`HighRxt` + 1).
    pub(in crate::tcp) high_rxt: u64,
    /// `RescueRxt` + 1 (`None`: undefined).
    pub(in crate::tcp) rescue_rxt: Option<u64>,
}

/// Which `NextSeg` rule (RFC 6675 §4) chose a segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) enum NextSegRule {
    /// (1) a lost hole above `HighRxt`.
    Lost,
    /// (2) new data.
    New,
    /// (3) un-SACKed data above `HighRxt` below the highest SACKed byte.
    Unsacked,
    /// (4) the rescue retransmission of the highest un-SACKed data.
    Rescue,
}

impl Sender {
    /// RFC 6675's state; its defaults (nothing lost, nothing resent) without SACK.
    pub(in crate::tcp) fn sack_state(&self) -> SackRecovery {
        self.recovery.sack().copied().unwrap_or_default()
    }

    /// Sending is chosen by RFC 6675 `NextSeg` and limited by `pipe` (SACK loss recovery, and
    /// the resend after a timeout, §5.1).
    pub(in crate::tcp) fn scoreboard_driven(&self) -> bool {
        self.recovery.sack().is_some() && self.state != CongestionState::Open
    }

    /// RFC 6675 `SetPipe()`.
    pub fn pipe(&self) -> u64 {
        if let Some(rack) = self.rack.as_ref() {
            return self.rack_pipe(rack);
        }
        let sack = self.sack_state();
        self.scoreboard.pipe(self.snd_una, self.snd_max, sack.lost_to, sack.high_rxt)
    }

    /// RFC 6675 §5: the scoreboard is updated from every ACK (RACK sees each block first). The
    /// bytes newly SACKed.
    pub(in crate::tcp) fn sack_update_scoreboard(
        &mut self,
        ack: &Packet,
        prior_fack: u64,
        now: Nanos,
    ) -> u64 {
        let ack_seq = ack.ack;
        let mut newly_sacked = 0;
        for (start, end) in ack.sack.iter(ack_seq) {
            if end > self.snd_max && self.bad_sack_block.is_none() {
                self.bad_sack_block = Some((start, end));
            }
            self.rack_on_sack_block(start.max(ack_seq), end.min(self.snd_max), prior_fack, now);
            newly_sacked += self.scoreboard.update(ack_seq, self.snd_max, start, end);
        }
        newly_sacked
    }

    /// `snd_una` moved to `ack_seq`: the scoreboard forgets what it covers and RFC 6675's
    /// `IsLost` boundary follows (RACK marks losses later in the ACK).
    pub(in crate::tcp) fn sack_on_cumulative_ack(&mut self, ack_seq: u64) {
        self.scoreboard.advance(ack_seq);
        if self.rack.is_none() {
            self.update_lost_boundary();
        }
    }

    /// RFC 6675 §5.1 after a timeout (see `tcp/sender.rs`): keep the scoreboard, everything
    /// un-SACKed is lost, resend it from `snd_una` by the scoreboard.
    pub(in crate::tcp) fn sack_on_timeout(&mut self, now: Nanos) {
        self.rack_timeout_mark_lost(now);
        self.forget_loss_probe();
        let (snd_una, snd_max) = (self.snd_una, self.snd_max);
        if let Some(sack) = self.recovery.sack_mut() {
            *sack = SackRecovery { lost_to: snd_max, high_rxt: snd_una, rescue_rxt: None };
        }
    }

    /// Moves `HighRxt` up to `end` (a segment ending there was just retransmitted).
    pub(in crate::tcp) fn raise_high_rxt(&mut self, end: u64) {
        if let Some(sack) = self.recovery.sack_mut() {
            sack.high_rxt = sack.high_rxt.max(end);
        }
    }

    /// RFC 6675 §5 step (C): send while `cwnd - pipe >= SMSS` (`cwnd` the control's, or PRR's
    /// `pipe + sndcnt`).
    pub(in crate::tcp) fn send_by_scoreboard(&mut self, cwnd: u64, now: Nanos, out: &mut Vec<Packet>) {
        let mut pipe = self.pipe();
        while pipe + self.mss <= cwnd {
            let Some((seq, len, rule)) = self.next_seg() else { break };
            self.transmit(seq, len, now, out);
            match rule {
                NextSegRule::Lost | NextSegRule::Unsacked => self.raise_high_rxt(seq + len),
                NextSegRule::New => self.snd_nxt = self.snd_max,
                NextSegRule::Rescue => {
                    let recover = self.recover;
                    if let Some(sack) = self.recovery.sack_mut() {
                        sack.rescue_rxt = recover;
                    }
                }
            }
            // (C.4)
            pipe += len;
        }
    }

    /// RFC 6675 §5 step (3), SACK's limited transmit: on a DUPACK (one that SACKs new data) that
    /// does not start loss recovery, send previously unsent data while `cwnd - pipe >= SMSS`.
    pub(in crate::tcp) fn sack_limited_transmit(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        if self.snd_nxt != self.snd_max {
            return;
        }
        // (3.1) HighRxt = HighACK: nothing retransmitted counts twice in pipe.
        let snd_una = self.snd_una;
        if let Some(sack) = self.recovery.sack_mut() {
            sack.high_rxt = snd_una;
        }
        // (3.2)-(3.3)
        while self.pipe() + self.mss <= self.cc.cwnd() {
            let Some(len) = self.new_data_len() else { break };
            self.send_limited(len, now, out);
        }
    }

    /// RFC 6675 §4 `NextSeg()`: the next segment to send, `(seq, len, rule)`.
    pub(in crate::tcp) fn next_seg(&self) -> Option<(u64, u64, NextSegRule)> {
        let sack = self.sack_state();
        let from = sack.high_rxt.max(self.snd_una);
        let segment = |(s, e): (u64, u64)| (s, (e - s).min(self.mss));
        // (1) The first un-SACKed byte above HighRxt that IsLost (so below the highest SACK);
        // with RACK, the first segment marked lost and not resent since.
        let lost = match self.rack {
            Some(_) => self.rack_next_lost(),
            None => self.scoreboard.first_hole(from, sack.lost_to.min(self.snd_max)).map(segment),
        };
        if let Some((s, len)) = lost {
            return Some((s, len, NextSegRule::Lost));
        }
        // (2) New data, if the application has some and the receiver's window allows.
        if let Some(len) = self.new_data_len() {
            return Some((self.snd_max, len, NextSegRule::New));
        }
        // Linux stops here: it resends only what it marked lost, then new data
        // (`sack_next_seg = "linux"`, and always with RACK, which is Linux's).
        if self.sack_next_seg == SackNextSeg::Linux || self.rack.is_some() {
            return None;
        }
        // (3) Un-SACKed data above HighRxt and below the highest SACKed byte.
        if let Some(highest) = self.scoreboard.highest_sacked() {
            if let Some(hole) = self.scoreboard.first_hole(from, highest) {
                let (s, len) = segment(hole);
                return Some((s, len, NextSegRule::Unsacked));
            }
        }
        // (4) Once per recovery, after the first retransmission is acknowledged: the segment
        // holding the highest un-SACKed byte.
        if self.state.in_recovery() && sack.rescue_rxt.is_none_or(|rescue| self.snd_una > rescue) {
            if let Some((s, e)) = self.scoreboard.last_hole(self.snd_una, self.snd_max) {
                let start = s.max(e.saturating_sub(self.mss));
                return Some((start, e - start, NextSegRule::Rescue));
            }
        }
        None
    }

    /// SACK: move the `IsLost` boundary up to what the scoreboard now implies.
    pub(in crate::tcp) fn update_lost_boundary(&mut self) {
        let Some(boundary) = self.scoreboard.lost_boundary(self.dupack_threshold, self.mss) else { return };
        if let Some(sack) = self.recovery.sack_mut() {
            sack.lost_to = sack.lost_to.max(boundary);
        }
    }

    /// RFC 6675 §5 step (4).
    pub(in crate::tcp) fn enter_sack_recovery(
        &mut self,
        bytes_in_flight: u64,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        self.stats.fast_retransmits += 1;
        // (4.1) RecoveryPoint = HighData.
        self.recover = Some(self.snd_max);
        // (4.2) the control sets ssthresh and cwnd.
        let reported = self.reduction_flight(bytes_in_flight);
        self.cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: reported });
        self.state.enter_recovery();
        self.start_prr(reported);
        self.forget_loss_probe();
        self.observe_now(now, TraceEvent::Recovery, 0, false, None);
        self.fast_retransmit_timer_rule(now);
        // (4.3) Retransmit the segment at HighACK + 1; HighRxt and RescueRxt are its end. With
        // RACK, the first segment it marked lost and has not resent (none when the loss that
        // starts this recovery is a resend still in flight: Linux's fast retransmission then
        // finds nothing in tcp_xmit_retransmit_queue()).
        let first = match self.rack {
            Some(_) => self.rack_next_lost(),
            None => Some(self.pending_hole()),
        };
        let Some((start, len)) = first else { return };
        let prr = self.pacing.prr().is_some();
        let snd_una = self.snd_una;
        if let Some(sack) = self.recovery.sack_mut() {
            sack.rescue_rxt = Some(start + len);
            // With PRR it goes out at the end of this ACK, with whatever else PRR allows.
            sack.high_rxt = if prr { snd_una } else { start + len };
        }
        if let Some(prr) = self.pacing.prr_mut() {
            prr.rexmit_pending = true;
            return;
        }
        self.transmit(start, len, now, out);
        // (4.4)-(4.5): pipe and step (C) run in send_available.
    }

    /// Consistency of the SACK state, for the invariant monitor: the scoreboard lies within
    /// `[snd_una, snd_max)`, sorted, disjoint and non-adjacent, its byte count matches, and
    /// `pipe` never exceeds twice the flight (each un-SACKed byte counts at most twice).
    pub fn check_sack_state(&self) -> Result<(), String> {
        if let Some((s, e)) = self.bad_sack_block {
            return Err(format!("SACK block [{s}, {e}) reaches beyond the data sent"));
        }
        if self.recovery.sack().is_none() {
            return Ok(());
        }
        self.check_rack_state()?;
        let ranges = self.scoreboard.ranges();
        let mut previous_end = None;
        let mut total = 0;
        for &(s, e) in ranges {
            if s >= e || s < self.snd_una || e > self.snd_max || previous_end.is_some_and(|p| s <= p) {
                return Err(format!(
                    "SACK scoreboard {ranges:?} is not sorted disjoint ranges within [{}, {})",
                    self.snd_una, self.snd_max
                ));
            }
            previous_end = Some(e);
            total += e - s;
        }
        if total != self.scoreboard.sacked_bytes() {
            return Err(format!(
                "SACK scoreboard counts {} bytes, holds {total}",
                self.scoreboard.sacked_bytes()
            ));
        }
        let pipe = self.pipe();
        if pipe > 2 * (self.snd_max - self.snd_una) {
            return Err(format!("pipe {pipe} above twice the flight {}", self.snd_max - self.snd_una));
        }
        Ok(())
    }

    /// RFC 6675 §5: a duplicate ACK with SACK — counted if it SACKs new data; loss recovery
    /// starts at `DupThresh` of them or when `IsLost(HighACK + 1)`; otherwise limited transmit.
    pub(in crate::tcp) fn sack_duplicate_ack(
        &mut self,
        ack_seq: u64,
        bytes_in_flight: u64,
        sacked_new_data: bool,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        if self.rack.is_some() {
            self.rack_mark_lost(now);
        } else {
            self.update_lost_boundary();
        }
        // RFC 6675 §2: with SACK, a duplicate ACK counts if it SACKs new data.
        if sacked_new_data && !self.state.in_recovery() {
            self.dupacks += 1;
        }
        // The ACK's row comes before the loss reaction it may trigger, as in the kernel.
        self.observe_now(now, TraceEvent::Ack, 0, true, None);
        if self.state.in_recovery() {
            return;
        }
        // §5 steps 1-2: DupThresh DUPACKs, or IsLost(HighACK + 1). With RACK, anything marked
        // lost (tcp_time_to_recover()), whatever the DUPACK count.
        let due = match self.rack.as_ref() {
            Some(rack) => rack.lost_bytes > 0,
            None => self.dupacks >= self.dupack_threshold || self.sack_state().lost_to > self.snd_una,
        };
        // §5.1: no new recovery before the RecoveryPoint of a timeout is acknowledged.
        let blocked = self.recover.is_some_and(|recover| ack_seq < recover);
        if due && !blocked {
            self.enter_sack_recovery(self.flight_size(bytes_in_flight), now, out);
        } else if self.limited_transmit && sacked_new_data && !blocked && !self.state.in_loss() {
            // §5 step (3).
            self.sack_limited_transmit(now, out);
        }
    }
}
