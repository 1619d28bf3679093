//! Proportional Rate Reduction, RFC 6937 (`recovery_pacing = "prr"`, as Linux paces fast
//! recovery): instead of inflating the window by DUPACKs, each ACK in recovery lets out a share
//! of what it delivered, `prr_delivered * ssthresh / RecoverFS`, and PRR-SSRB catches up towards
//! `ssthresh` once `pipe` is below it (`prr_bound`: on every ACK, RFC 6937, or only on a "safe"
//! one, RFC 6937bis and Linux). With SACK it sends by `NextSeg`; without, new data after the
//! hole waiting for its retransmission.

use super::super::sender::Sender;
use crate::model::{Nanos, PrrBound, PrrWindow};
use crate::network::Packet;

/// RFC 6937's state for one recovery, and the flow's PRR rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) struct Prr {
    /// Bytes delivered to the receiver since recovery started (`prr_delivered`).
    pub(in crate::tcp) delivered: u64,
    /// Bytes sent since recovery started, the fast retransmission included (`prr_out`).
    pub(in crate::tcp) out: u64,
    /// What the control's reduction was computed from when recovery started (`RecoverFS`).
    pub(in crate::tcp) recover_fs: u64,
    /// The first hole (at `snd_una`) waits for its retransmission: the fast retransmission at
    /// the start of recovery, or without SACK the hole a partial ACK revealed.
    pub(in crate::tcp) rexmit_pending: bool,
    /// With `prr_window = "linux"`, once an ACK of the recovery delivered data: Linux's
    /// `snd_cwnd` (`tcp_cwnd_reduction()`), bytes; what reads the window uses it instead of the
    /// control's (`Sender::window`).
    pub(in crate::tcp) reduction_cwnd: Option<u64>,
    /// Which window a recovery holds (`prr_window`).
    window: PrrWindow,
    /// When PRR lets one segment more than was delivered (`prr_bound`).
    bound: PrrBound,
}

impl Prr {
    pub(in crate::tcp) fn new(window: PrrWindow, bound: PrrBound) -> Self {
        Prr {
            delivered: 0,
            out: 0,
            recover_fs: 0,
            rexmit_pending: false,
            reduction_cwnd: None,
            window,
            bound,
        }
    }

    /// RFC 6937 §3 at the start of recovery, before the fast retransmission.
    fn start(&mut self, recover_fs: u64) {
        *self = Prr { recover_fs, ..Prr::new(self.window, self.bound) };
    }

    /// The recovery is over: the control's window applies again and no hole waits.
    pub(in crate::tcp) fn finish(&mut self) {
        self.reduction_cwnd = None;
        self.rexmit_pending = false;
    }

    /// RFC 6937 §3: how many bytes an ACK that delivered `delivered` lets out with `pipe` in
    /// flight (may be negative: nothing). `safe_ack`: [`Sender::prr_safe_ack`].
    fn sndcnt(&self, delivered: u64, pipe: u64, ssthresh: u64, mss: u64, safe_ack: bool) -> i64 {
        if pipe > ssthresh {
            // CEIL(prr_delivered * ssthresh / RecoverFS), in whole segments as Linux counts.
            let share = u128::from(self.delivered) * u128::from(ssthresh);
            let segments = share.div_ceil(u128::from(self.recover_fs.max(1)) * u128::from(mss));
            (segments * u128::from(mss)).min(i64::MAX as u128) as i64 - self.out as i64
        } else {
            // PRR-SSRB: catch up towards ssthresh, at most one segment beyond what was delivered
            // (with `prr_bound = "safe_ack"`, only on a safe ACK).
            let extra = match self.bound {
                PrrBound::Ssrb => mss,
                PrrBound::SafeAck if safe_ack => mss,
                PrrBound::SafeAck => 0,
            };
            let limit = (self.delivered as i64 - self.out as i64).max(delivered as i64) + extra as i64;
            ((ssthresh - pipe) as i64).min(limit)
        }
    }
}

/// What marks losses, read before an ACK is handled so that PRR can tell whether the ACK marked
/// any (Linux's `tp->lost` before `tcp_ack()`, whose change is `rs->losses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) struct LossMarks {
    snd_una: u64,
    rack_marked: u64,
    lost_to: u64,
}

impl Sender {
    /// PRR's `pipe`: RFC 6675's with SACK; without, FlightSize less what the DUPACKs said the
    /// receiver holds and less the hole waiting to be resent.
    pub(in crate::tcp) fn prr_pipe(&self) -> u64 {
        if self.recovery.sack().is_some() {
            return self.pipe();
        }
        let hole = if self.pacing.prr().is_some_and(|prr| prr.rexmit_pending) {
            self.mss.min(self.snd_max - self.snd_una)
        } else {
            0
        };
        let held = self.reno_sacks.map_or(self.dup_credit, |sacks| sacks.sacked() * self.mss);
        (self.snd_max - self.snd_una).saturating_sub(held).saturating_sub(hole)
    }

    /// The loss marks before an ACK, for [`Sender::prr_safe_ack`].
    pub(in crate::tcp) fn loss_marks(&self) -> LossMarks {
        LossMarks {
            snd_una: self.snd_una,
            rack_marked: self.rack.as_ref().map_or(0, |rack| rack.marked),
            lost_to: self.sack_state().lost_to,
        }
    }

    /// RFC 6937bis's SafeACK (Linux: `FLAG_SND_UNA_ADVANCED && !newly_lost` in
    /// `tcp_cwnd_reduction()`) of the ACK just handled in a recovery: it advanced `snd_una` and
    /// marked nothing lost. Marks are RACK's, RFC 6675's `IsLost` boundary, or without SACK the
    /// head that an ACK in Recovery uncovers (`tcp_newreno_mark_lost()` marks it whenever
    /// `snd_una` advanced and data is left): a NewReno partial ACK is never safe.
    pub(in crate::tcp) fn prr_safe_ack(&self, before: LossMarks) -> bool {
        let advanced = self.snd_una > before.snd_una;
        let newly_lost = if self.recovery.sack().is_some() {
            self.rack.as_ref().map_or(0, |rack| rack.marked) != before.rack_marked
                || self.sack_state().lost_to > before.lost_to
        } else {
            advanced && self.snd_una < self.snd_max
        };
        advanced && !newly_lost
    }

    /// The hole `Prr::rexmit_pending` stands for: the first un-SACKed segment at
    /// `snd_una`.
    pub(in crate::tcp) fn pending_hole(&self) -> (u64, u64) {
        if let Some(lost) = self.rack_next_lost() {
            return lost;
        }
        let (start, end) =
            self.scoreboard.first_hole(self.snd_una, self.snd_max).unwrap_or((self.snd_una, self.snd_max));
        (start, (end - start).min(self.mss))
    }

    /// PRR: account the ACK's delivered data and send what RFC 6937 allows: first the hole
    /// waiting for its retransmission (the fast retransmission, or without SACK the hole a
    /// partial ACK revealed), then new data (without SACK) or `NextSeg` (with). `safe_ack`:
    /// [`Sender::prr_safe_ack`] of the ACK (false without one).
    pub(in crate::tcp) fn send_by_prr(
        &mut self,
        delivered: u64,
        safe_ack: bool,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        let Some(prr) = self.pacing.prr_mut() else { return };
        prr.delivered += delivered;
        let prr = *prr;
        if !self.started {
            return;
        }
        let pipe = self.prr_pipe();
        let mut sndcnt = if delivered == 0 {
            0
        } else {
            prr.sndcnt(delivered, pipe, self.cc.ssthresh(), self.mss, safe_ack)
        };
        if prr.rexmit_pending && prr.out == 0 {
            // The fast retransmission goes out whatever PRR says (as Linux forces it).
            sndcnt = sndcnt.max(self.pending_hole().1 as i64);
        }
        if delivered > 0 && prr.window == PrrWindow::Linux {
            // tcp_cwnd_reduction(): snd_cwnd = tcp_packets_in_flight() + sndcnt, in packets,
            // on every ACK that delivered something (it returns early on the others).
            let in_flight = pipe.div_ceil(self.mss) as i64;
            let allowed = sndcnt.div_euclid(self.mss as i64);
            let window = (in_flight + allowed).max(1) as u64 * self.mss;
            if let Some(prr) = self.pacing.prr_mut() {
                prr.reduction_cwnd = Some(window);
            }
        }
        if sndcnt <= 0 {
            return;
        }
        let mut left = sndcnt as u64;
        if prr.rexmit_pending {
            let (start, len) = self.pending_hole();
            if len > left {
                return;
            }
            self.transmit(start, len, now, out);
            if let Some(prr) = self.pacing.prr_mut() {
                prr.rexmit_pending = false;
            }
            self.raise_high_rxt(start + len);
            left -= len;
        }
        if self.recovery.sack().is_some() {
            self.send_by_scoreboard(self.pipe() + left, now, out);
            return;
        }
        loop {
            // Read each time: a segment of new data can wake the writer (`check_send_space`).
            let limit = self.send_limit();
            if self.snd_nxt >= limit {
                break;
            }
            let len = self.mss.min(limit - self.snd_nxt);
            if len > left || self.snd_nxt + len > self.snd_una + self.peer_window.max(self.mss) {
                break;
            }
            self.transmit(self.snd_nxt, len, now, out);
            self.snd_nxt += len;
            left -= len;
        }
    }

    /// New data the application has just written, within the window this ACK's PRR step set
    /// (`snd_cwnd = in flight + sndcnt`, `prr_window = "linux"`): what `tcp_push()` sends from
    /// `tcp_sendmsg()` in a recovery. Nothing without that window.
    pub(in crate::tcp) fn send_prr_window(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let Some(window) = self.pacing.reduction_cwnd() else { return };
        if self.recovery.sack().is_some() {
            self.send_by_scoreboard(window, now, out);
            return;
        }
        while self.prr_pipe() + self.mss <= window {
            let Some(len) = self.new_data_len() else { break };
            if self.snd_nxt != self.snd_max {
                break;
            }
            self.transmit(self.snd_max, len, now, out);
            self.snd_nxt = self.snd_max;
        }
    }

    /// RFC 6937 §3, at the start of recovery (before the fast retransmission): `RecoverFS` is
    /// what the control's reduction was computed from (`Sender::reduction_flight`): the
    /// FlightSize (limited transmit's segments left out, RFC 5681 §3.2 step 2), or with
    /// `reduction_base = "cwnd"` the window before the reduction, Linux's `prior_cwnd`
    /// (`tcp_init_cwnd_reduction()`). The two differ when the flight is not the window: a
    /// sender the receiver's window held back, or a non-SACK sender whose DUPACK count was
    /// reset at the end of the last recovery (`tcp_reset_reno_sack()`) with data still held
    /// above the next hole. Kernel tcpw then enters recovery with a window below its new
    /// ssthresh (BWE·RTTmin) and sends `ssthresh / prior_cwnd` segments per delivered one (the
    /// testbed's traces: 1.3-1.4 per DUPACK at prior_cwnd 25, ssthresh 35).
    pub(in crate::tcp) fn start_prr(&mut self, flight_size: u64) {
        if let Some(prr) = self.pacing.prr_mut() {
            prr.start(flight_size);
        }
    }
}
