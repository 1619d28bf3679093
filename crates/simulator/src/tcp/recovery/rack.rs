//! RACK loss detection for SACK senders (RFC 8985; `loss_detection = "rack"`), as Linux runs it
//! with its default `tcp_recovery = 1` (`net/ipv4/tcp_recovery.c`).
//!
//! RFC 6675's `IsLost` counts SACKed segments above a hole; RACK looks at time instead. Every
//! segment remembers when it last left the sender. Each delivered segment (cumulatively ACKed or
//! newly SACKed) advances `RACK.xmit_ts` to the latest such send time and sets `RACK.rtt` to its
//! own RTT (`tcp_rack_advance()`; a retransmitted segment whose RTT is below the minimum RTT may
//! be the original's ACK and is ignored). A segment not yet delivered and sent before
//! `RACK.xmit_ts` is lost once `RACK.rtt + reo_wnd` has passed since it was sent
//! (`tcp_rack_detect_loss()`); while that time is still to come, a reordering timer fires when
//! it has (`tcp_rack_reo_timeout()`). Because the rule applies to retransmissions as well, a
//! lost retransmission is found by the next delivery of anything sent after it and resent,
//! where RFC 6675 waits for the retransmission timer.
//!
//! `reo_wnd` (`tcp_rack_reo_wnd()`): until reordering has been seen, 0 in recovery (and after a
//! timeout) and once `dupthresh` segments are SACKed, so that RACK marks a hole lost where the
//! DUPACK threshold would; otherwise a quarter of the minimum RTT, at most the smoothed RTT.
//! With fewer DUPACKs than that (small windows, the seed papers' lossy paths) the reordering
//! timer starts the recovery a quarter RTT later instead of the retransmission timer.
//!
//! Linux keeps the marks on its skbs (`TCPCB_SACKED_ACKED`, `TCPCB_LOST`,
//! `TCPCB_SACKED_RETRANS`) and counts them (`sacked_out`, `lost_out`, `retrans_out`); the
//! sender keeps the same marks on its [`SentSegment`](super::super::sender::SentSegment)s and
//! [`Rack`] the counts in bytes. `pipe` is then Linux's `tcp_packets_in_flight()`: sent, less
//! SACKed, less lost, plus retransmitted; the next segment to send is the first one marked lost
//! and not retransmitted since (`tcp_xmit_retransmit_queue()`), then new data.
//!
//! Recovery starts as soon as anything is marked lost (`tcp_time_to_recover()`: with RACK
//! the DUPACK count plays no part), on a DUPACK, on a cumulative ACK, or when the reordering
//! timer fires (`tcp_enter_recovery()` then, as from any state but Recovery).
//!
//! Not modelled: the reordering window's growth on DSACKs (`tcp_rack_update_reo_wnd()`: the
//! receiver sends no DSACK here), the DUPACK threshold's growth on reordering
//! (`tcp_check_sack_reordering()` raises `tp->reordering`; only `reord_seen` is kept), undo.
//! The tail loss probes that complete RACK-TLP are `tlp.rs`.

use westwood_algorithms::cubic_linux::HZ;

use super::super::congestion_state::CongestionState;
use super::super::sender::{Sender, SentSegment};
use crate::model::Nanos;
use crate::network::Packet;

/// One jiffy: the reordering timer is a kernel timer and fires on a tick.
pub(in crate::tcp) const JIFFY_NS: Nanos = 1_000_000_000 / HZ;
/// `TCP_TIMEOUT_MIN_US`, added to the reordering timer's wait (`tcp_rack_mark_lost()`).
pub(in crate::tcp) const TIMEOUT_MIN_NS: Nanos = 2_000_000;

/// RACK's state (Linux's `struct tcp_rack`, `reord_seen`) and the byte counts of the marks it
/// keeps on the sender's segments.
#[derive(Debug, Clone, Default)]
pub(in crate::tcp) struct Rack {
    /// `RACK.xmit_ts` and `RACK.end_seq`: the latest-sent segment delivered so far.
    xmit_at: Option<Nanos>,
    end_seq: u64,
    /// `RACK.rtt`: the RTT of the segment delivered last.
    rtt: Nanos,
    /// Something was delivered since the last detection (`rack.advanced`).
    advanced: bool,
    /// A segment never retransmitted was delivered below the highest SACKed one
    /// (`tp->reord_seen`): the reordering window stays open in recovery.
    reordering_seen: bool,
    /// When the reordering timer fires.
    pub(in crate::tcp) reo_deadline: Option<Nanos>,
    /// Un-SACKed bytes marked lost (`lost_out`).
    pub(in crate::tcp) lost_bytes: u64,
    /// Un-SACKed bytes retransmitted since they were last marked lost (`retrans_out`).
    pub(in crate::tcp) retrans_bytes: u64,
    /// Segments marked lost so far, a lost retransmission again (Linux's `tp->lost`, counted by
    /// `tcp_sum_lost()`): PRR asks whether an ACK marked any (`rs->losses`).
    pub(in crate::tcp) marked: u64,
}

/// `tcp_skb_sent_after()`: sent later, or at the same time with a higher end (one burst).
fn sent_after(at: Nanos, end: u64, other_at: Nanos, other_end: u64) -> bool {
    at > other_at || (at == other_at && end > other_end)
}

impl Rack {
    /// `tcp_rack_advance()`: `segment` was delivered at `now`.
    fn advance(&mut self, segment: &SentSegment, now: Nanos, min_rtt: Option<Nanos>) {
        let rtt = now.saturating_sub(segment.xmit_at);
        // The ACK of a retransmitted segment sooner than an RTT after the retransmission
        // acknowledges the original (no minimum yet: Linux's ~0U, so never trusted).
        if segment.resent && min_rtt.is_none_or(|min| rtt < min) {
            return;
        }
        self.advanced = true;
        self.rtt = rtt;
        if self.xmit_at.is_none_or(|at| sent_after(segment.xmit_at, segment.end, at, self.end_seq)) {
            self.xmit_at = Some(segment.xmit_at);
            self.end_seq = segment.end;
        }
    }

    /// `tcp_mark_skb_lost()`: mark an un-SACKed segment lost; a retransmission already marked
    /// lost was lost again and may be resent.
    fn mark_lost(&mut self, segment: &mut SentSegment) {
        if segment.lost {
            if segment.rexmit_out {
                segment.rexmit_out = false;
                self.retrans_bytes -= segment.len();
            }
        } else {
            segment.lost = true;
            self.lost_bytes += segment.len();
        }
        self.marked += 1;
    }

    /// `segment` was just retransmitted (`tcp_retransmit_skb()`): in flight again.
    pub(in crate::tcp) fn on_retransmit(&mut self, segment: &mut SentSegment) {
        if !segment.sacked && !segment.rexmit_out {
            segment.rexmit_out = true;
            self.retrans_bytes += segment.len();
        }
    }

    /// An un-SACKed segment was delivered at `now` (newly SACKed, or cumulatively ACKed): its
    /// marks leave the counts, RACK advances, and a segment never resent delivered below the
    /// highest SACK before this ACK (`prior_fack`) arrived after later ones: reordering
    /// (`tcp_sacktag_one()` / `tcp_clean_rtx_queue()` -> `tcp_check_sack_reordering()`).
    fn deliver(&mut self, segment: &SentSegment, prior_fack: u64, now: Nanos, min_rtt: Option<Nanos>) {
        if segment.lost {
            self.lost_bytes -= segment.len();
        }
        if segment.rexmit_out {
            self.retrans_bytes -= segment.len();
        }
        self.reordering_seen |= !segment.resent && segment.start < prior_fack;
        self.advance(segment, now, min_rtt);
    }
}

impl Sender {
    /// RACK's `pipe`: Linux's `tcp_packets_in_flight()` in bytes.
    pub(in crate::tcp) fn rack_pipe(&self, rack: &Rack) -> u64 {
        (self.snd_max - self.snd_una)
            .saturating_sub(self.scoreboard.sacked_bytes())
            .saturating_sub(rack.lost_bytes)
            + rack.retrans_bytes
    }

    /// The first segment marked lost and not retransmitted since (`tcp_xmit_retransmit_queue()`
    /// walks from the head), as `(seq, len)`.
    pub(in crate::tcp) fn rack_next_lost(&self) -> Option<(u64, u64)> {
        let rack = self.rack.as_ref()?;
        if rack.lost_bytes == 0 {
            return None;
        }
        self.outstanding.iter().find(|s| s.lost && !s.rexmit_out && !s.sacked).map(|s| (s.start, s.len()))
    }

    /// The ACK's SACK block `[from, to)` (clipped to the data above the ACK): the segments it
    /// SACKs for the first time are delivered. Called before the scoreboard records the block;
    /// `prior_fack` is the highest SACKed byte before this ACK.
    pub(in crate::tcp) fn rack_on_sack_block(&mut self, from: u64, to: u64, prior_fack: u64, now: Nanos) {
        let Some(mut rack) = self.rack.take() else { return };
        let min_rtt = self.rtt.min_rtt();
        let mut at = from;
        while let Some((hole_start, hole_end)) = self.scoreboard.first_hole(at, to) {
            let first = self.outstanding.partition_point(|s| s.start < hole_start);
            for segment in self.outstanding.range_mut(first..) {
                if segment.end > hole_end {
                    break;
                }
                if segment.sacked {
                    continue;
                }
                segment.sacked = true;
                rack.deliver(segment, prior_fack, now, min_rtt);
            }
            at = hole_end;
        }
        self.rack = Some(rack);
    }

    /// A segment leaves by a cumulative ACK (`tcp_clean_rtx_queue()`): delivered now unless it
    /// was SACKed before.
    pub(in crate::tcp) fn rack_on_cumulative_ack(
        &mut self,
        segment: &SentSegment,
        prior_fack: u64,
        now: Nanos,
    ) {
        let min_rtt = self.rtt.min_rtt();
        let Some(rack) = self.rack.as_mut() else { return };
        if !segment.sacked {
            rack.deliver(segment, prior_fack, now, min_rtt);
        }
    }

    /// `tcp_rack_reo_wnd()`.
    fn rack_reo_wnd(&self, rack: &Rack) -> Nanos {
        if !rack.reordering_seen {
            if self.state != CongestionState::Open {
                return 0;
            }
            let sacked_segments = self.scoreboard.sacked_bytes().div_ceil(self.mss);
            if sacked_segments >= u64::from(self.dupack_threshold) {
                return 0;
            }
        }
        let quarter_min_rtt = self.rtt.min_rtt().map_or(Nanos::MAX, |min| min / 4);
        quarter_min_rtt.min(self.rtt.srtt().unwrap_or(0))
    }

    /// `tcp_rack_detect_loss()` at `now`: mark lost what RACK says is, and arm the reordering
    /// timer for what it will say is (cleared when nothing waits).
    fn rack_detect_loss(&mut self, now: Nanos) {
        let Some(mut rack) = self.rack.take() else { return };
        let reo_wnd = self.rack_reo_wnd(&rack);
        let mut wait: Option<Nanos> = None;
        if let Some(rack_at) = rack.xmit_at {
            for segment in self.outstanding.iter_mut() {
                if segment.sacked || (segment.lost && !segment.rexmit_out) {
                    continue;
                }
                if !sent_after(rack_at, rack.end_seq, segment.xmit_at, segment.end) {
                    // Data sent for the first time goes in sequence order, and a resend goes
                    // after its original: everything beyond a never-resent segment sent after
                    // RACK.xmit_ts was sent after it too (the kernel's time-sorted list stops).
                    if segment.resent {
                        continue;
                    }
                    break;
                }
                let deadline = segment.xmit_at + rack.rtt + reo_wnd;
                if deadline <= now {
                    rack.mark_lost(segment);
                } else {
                    wait = wait.max(Some(deadline - now));
                }
            }
        }
        // tcp_rack_mark_lost(): usecs_to_jiffies(remaining + TCP_TIMEOUT_MIN_US), on a tick.
        rack.reo_deadline =
            wait.map(|w| (now / JIFFY_NS + (w + TIMEOUT_MIN_NS).div_ceil(JIFFY_NS)) * JIFFY_NS);
        self.rack = Some(rack);
    }

    /// `tcp_rack_mark_lost()`: detect on an ACK that delivered something.
    pub(in crate::tcp) fn rack_mark_lost(&mut self, now: Nanos) {
        if self.rack.as_mut().is_some_and(|rack| std::mem::take(&mut rack.advanced)) {
            self.rack_detect_loss(now);
        }
    }

    /// Whether RACK has marked something lost outside any recovery: time to recover
    /// (`tcp_time_to_recover()`'s "the loss is proven").
    pub(in crate::tcp) fn rack_recovery_due(&self) -> bool {
        self.rack.as_ref().is_some_and(|rack| rack.lost_bytes > 0) && self.state == CongestionState::Open
    }

    /// Start the recovery RACK found due, from an ACK or the reordering timer: the FlightSize is
    /// everything outstanding but what limited transmit sent.
    pub(in crate::tcp) fn rack_enter_recovery(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        self.enter_sack_recovery(self.flight_size(self.snd_max - self.snd_una), now, out);
    }

    /// The reordering timer fired (`tcp_rack_reo_timeout()`): mark what is now lost; if that
    /// changed the flight, enter recovery (from any state but Recovery, as `tcp_enter_recovery()`
    /// does; PRR then counts one segment delivered, `tcp_cwnd_reduction(sk, 1, ...)`) and resend.
    pub(in crate::tcp) fn rack_reo_timeout(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let Some(rack) = self.rack.as_mut() else { return };
        rack.reo_deadline = None;
        let before = self.pipe();
        self.rack_detect_loss(now);
        if self.pipe() == before {
            return;
        }
        let prr = self.pacing.prr().is_some();
        if !self.state.in_recovery() {
            self.state = CongestionState::Open;
            self.rack_enter_recovery(now, out);
            if prr {
                // tcp_cwnd_reduction(sk, 1, ..., 0): no ACK, so no safe one.
                self.send_by_prr(self.mss, false, now, out);
            } else {
                self.send_available(now, out);
            }
        } else if prr {
            // tcp_xmit_retransmit_queue() within the window the last ACK's PRR step set.
            self.send_prr_window(now, out);
        } else {
            self.send_available(now, out);
        }
        self.record_window_use();
    }

    /// After a timeout (`tcp_timeout_mark_lost()`): everything un-SACKed is lost, the head and
    /// whatever was sent longer than `RACK.rtt` ago (the rest may still arrive); resends are
    /// lost with it.
    pub(in crate::tcp) fn rack_timeout_mark_lost(&mut self, now: Nanos) {
        let Some(mut rack) = self.rack.take() else { return };
        rack.reo_deadline = None;
        for (index, segment) in self.outstanding.iter_mut().enumerate() {
            if segment.sacked {
                continue;
            }
            if index > 0 && segment.xmit_at + rack.rtt > now {
                continue;
            }
            rack.mark_lost(segment);
        }
        self.rack = Some(rack);
    }

    /// For the invariant monitor: the counts match the marks, and the marks the scoreboard.
    pub(in crate::tcp) fn check_rack_state(&self) -> Result<(), String> {
        let Some(rack) = self.rack.as_ref() else { return Ok(()) };
        let (mut sacked, mut lost, mut retrans) = (0, 0, 0);
        for segment in &self.outstanding {
            if segment.sacked != self.scoreboard.is_sacked(segment.start) {
                return Err(format!(
                    "RACK: segment [{}, {}) SACKed {} but the scoreboard says {}",
                    segment.start, segment.end, segment.sacked, !segment.sacked
                ));
            }
            if segment.sacked {
                sacked += segment.len();
                continue;
            }
            lost += if segment.lost { segment.len() } else { 0 };
            retrans += if segment.rexmit_out { segment.len() } else { 0 };
        }
        if (sacked, lost, retrans) != (self.scoreboard.sacked_bytes(), rack.lost_bytes, rack.retrans_bytes) {
            return Err(format!(
                "RACK counts sacked/lost/retransmitted {}/{}/{} bytes, the segments {sacked}/{lost}/{retrans}",
                self.scoreboard.sacked_bytes(),
                rack.lost_bytes,
                rack.retrans_bytes
            ));
        }
        Ok(())
    }
}
