//! Loss recovery: what the sender does between detecting a loss by duplicate ACKs and the end
//! of the episode — which segment to resend, when recovery ends, how the window is temporarily
//! inflated. The congestion control (crates/algorithms) only decides the window the sender falls
//! back to, so any control composes with any recovery; each control's reference pairs it with
//! one by default (`westwood_algorithms::registry::CcEntry::default_recovery`).
//!
//! Each recovery's procedures are `Sender` methods in its own file: `reno.rs` (RFC 5681 fast
//! recovery, and the DUPACK counting Reno, NewReno and Tahoe share), `newreno.rs` (RFC 6582
//! partial ACKs), `sack.rs` (RFC 6675), `tahoe.rs`; `prr.rs` paces any of them (RFC 6937),
//! `rack.rs` and `tlp.rs` detect losses for SACK as Linux does (RFC 8985). The sender holds a
//! `LossRecovery`, the recovery with the state it alone keeps, and its ACK and timer
//! handlers (`tcp/sender.rs`) call the hooks below, which are the only place that chooses by
//! recovery: the sender itself never asks which one it has.

use self::prr::Prr;
use self::sack::SackRecovery;
use super::sender::Sender;
use crate::model::{Inflation, Nanos, RecoveryExit, RecoveryPacing, TcpSpec};
use crate::network::Packet;

pub mod frto;
pub mod newreno;
pub mod prr;
pub mod rack;
pub mod reno;
pub mod sack;
pub mod tahoe;
pub mod tlp;

/// How the sender recovers from a loss detected by duplicate ACKs.
///
/// Recovery is the sender's business (which segment to retransmit, when recovery ends, how the
/// window is temporarily inflated by DUPACKs); the congestion control only decides the window
/// the sender falls back to. Any congestion control composes with any recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Recovery {
    /// RFC 5681 fast recovery: leave recovery on the first ACK that acknowledges new data.
    Reno,
    /// RFC 6582: stay in recovery until everything outstanding at loss detection is acknowledged;
    /// each partial ACK retransmits the next hole.
    NewReno,
    /// RFC 6675 with RFC 2018 SACK blocks: a scoreboard of what the receiver holds decides what
    /// is lost and what to resend; during recovery the sender keeps `pipe` (its estimate of the
    /// bytes in the network) below `cwnd`, with no window inflation.
    Sack,
    /// Jacobson's 1988 Tahoe: fast retransmit without fast recovery. On the `dupthresh`-th DUPACK
    /// the sender resends from `snd_una` in slow start from one segment (go-back-N), reporting
    /// [`CongestionEvent::DuplicateAcksSlowStart`](westwood_algorithms::CongestionEvent::DuplicateAcksSlowStart).
    Tahoe,
}

impl Recovery {
    /// Every recovery, in the order the documentation lists them.
    pub const ALL: [Recovery; 4] = [Recovery::Reno, Recovery::NewReno, Recovery::Sack, Recovery::Tahoe];

    pub fn name(self) -> &'static str {
        match self {
            Recovery::Reno => "reno",
            Recovery::NewReno => "newreno",
            Recovery::Sack => "sack",
            Recovery::Tahoe => "tahoe",
        }
    }

    /// The recovery named `name` (as [`Recovery::name`] spells it, case-insensitive).
    pub fn from_name(name: &str) -> Option<Recovery> {
        Recovery::ALL.into_iter().find(|r| r.name().eq_ignore_ascii_case(name.trim()))
    }
}

/// The sender's loss recovery with the state that belongs to it alone (the sender's own state,
/// the congestion state and PRR's, is shared by all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) enum LossRecovery {
    /// RFC 5681 (`reno.rs`): nothing of its own beyond what the sender keeps.
    Reno,
    /// RFC 6582 (`newreno.rs`). `partial_ack_seen`: a partial ACK has restarted the timer in this recovery ("Impatient",
    /// RFC 6582 §4).
    NewReno { partial_ack_seen: bool },
    /// RFC 6675 (`sack.rs`), with what it keeps beside the scoreboard.
    Sack(SackRecovery),
    /// Fast retransmit into slow start (`tahoe.rs`).
    Tahoe,
}

impl LossRecovery {
    pub(in crate::tcp) fn new(style: Recovery) -> Self {
        match style {
            Recovery::Reno => LossRecovery::Reno,
            Recovery::NewReno => LossRecovery::NewReno { partial_ack_seen: false },
            Recovery::Sack => LossRecovery::Sack(SackRecovery::default()),
            Recovery::Tahoe => LossRecovery::Tahoe,
        }
    }

    /// Which recovery this is.
    pub(in crate::tcp) fn style(&self) -> Recovery {
        match self {
            LossRecovery::Reno => Recovery::Reno,
            LossRecovery::NewReno { .. } => Recovery::NewReno,
            LossRecovery::Sack(_) => Recovery::Sack,
            LossRecovery::Tahoe => Recovery::Tahoe,
        }
    }

    /// RFC 6675's state, with SACK.
    pub(in crate::tcp) fn sack(&self) -> Option<&SackRecovery> {
        match self {
            LossRecovery::Sack(sack) => Some(sack),
            _ => None,
        }
    }

    pub(in crate::tcp) fn sack_mut(&mut self) -> Option<&mut SackRecovery> {
        match self {
            LossRecovery::Sack(sack) => Some(sack),
            _ => None,
        }
    }

    /// Recovery lasts until `recover` is acknowledged (RFC 6582 §3.2 step 3; RFC 6675 §5 (A)),
    /// rather than ending on the first ACK of new data (Reno; Tahoe has none to end).
    pub(in crate::tcp) fn ends_at_recover(&self) -> bool {
        matches!(self, LossRecovery::NewReno { .. } | LossRecovery::Sack(_))
    }

    /// DUPACKs for data sent before the last loss detection start no second reduction (RFC 6582
    /// §3.2 step 2). Tahoe applies the same test (ns-2's `bug_fix_`): its go-back-N resend makes
    /// such DUPACKs after every fast retransmit; so does Reno unless it repeats fast
    /// retransmits (`repeat_fast_retransmit = false`: ns-2's Reno agent, `bug_fix_`, no second
    /// fast retransmit in one window). SACK's guard is RFC 6675 §5.1's, in `sack.rs`.
    pub(in crate::tcp) fn guards_recover(&self, repeat_fast_retransmit: bool) -> bool {
        match self {
            LossRecovery::NewReno { .. } | LossRecovery::Tahoe => true,
            LossRecovery::Reno => !repeat_fast_retransmit,
            LossRecovery::Sack(_) => false,
        }
    }
}

/// What paces the sending in fast recovery, with its state (ns-3's `TcpRecoveryOps`: classic
/// or PRR). Either composes with any [`LossRecovery`] and any congestion control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::tcp) enum RecoveryPacer {
    /// RFC 5681 §3.2 steps 3-4 and RFC 6582 §3.2 (`recovery_pacing = "inflation"`): the usable
    /// window is the control's cwnd plus `bytes`, which DUPACKs inflate and NewReno partial ACKs
    /// deflate as `rule` says (`reno.rs`, `newreno.rs`), kept apart from the control's cwnd as
    /// ns-2 keeps `dupwnd_`. May go negative after partial ACKs. SACK never inflates.
    Inflation { rule: Inflation, bytes: i64 },
    /// RFC 6937 (`recovery_pacing = "prr"`, `prr.rs`).
    Prr(Prr),
}

impl RecoveryPacer {
    pub(in crate::tcp) fn new(spec: &TcpSpec) -> Self {
        match spec.recovery_pacing {
            RecoveryPacing::Inflation => {
                RecoveryPacer::Inflation { rule: spec.fast_recovery_inflation, bytes: 0 }
            }
            RecoveryPacing::Prr => RecoveryPacer::Prr(Prr::new(spec.prr_window, spec.prr_bound)),
        }
    }

    pub(in crate::tcp) fn prr(&self) -> Option<&Prr> {
        match self {
            RecoveryPacer::Prr(prr) => Some(prr),
            RecoveryPacer::Inflation { .. } => None,
        }
    }

    pub(in crate::tcp) fn prr_mut(&mut self) -> Option<&mut Prr> {
        match self {
            RecoveryPacer::Prr(prr) => Some(prr),
            RecoveryPacer::Inflation { .. } => None,
        }
    }

    /// The window inflation now, bytes (0 with PRR).
    pub(in crate::tcp) fn inflation(&self) -> i64 {
        match self {
            RecoveryPacer::Inflation { bytes, .. } => *bytes,
            RecoveryPacer::Prr(_) => 0,
        }
    }

    /// PRR's window in a reduction with `prr_window = "linux"` (Linux's `snd_cwnd`), if set.
    pub(in crate::tcp) fn reduction_cwnd(&self) -> Option<u64> {
        self.prr().and_then(|prr| prr.reduction_cwnd)
    }

    /// Fast recovery ended, by its last ACK or a timeout: no inflation, no PRR window, no hole
    /// waiting.
    pub(in crate::tcp) fn on_recovery_end(&mut self) {
        match self {
            RecoveryPacer::Inflation { bytes, .. } => *bytes = 0,
            RecoveryPacer::Prr(prr) => prr.finish(),
        }
    }
}

/// The hooks through which the sender's ACK and timer handlers reach the recovery.
impl Sender {
    /// Which recovery the sender uses.
    pub fn recovery_style(&self) -> Recovery {
        self.recovery.style()
    }

    /// Bytes in flight as this sender counts them: RFC 6675 `pipe` with SACK, else FlightSize.
    pub fn in_flight(&self) -> u64 {
        match self.recovery {
            LossRecovery::Sack(_) => self.pipe(),
            _ => self.snd_max - self.snd_una,
        }
    }

    /// The ACK's SACK blocks, before anything else of it is handled (RFC 6675 §5: the scoreboard
    /// is updated from every ACK): the bytes they SACK for the first time. Without SACK the
    /// blocks are ignored.
    pub(in crate::tcp) fn on_sack_blocks(&mut self, ack: &Packet, prior_fack: u64, now: Nanos) -> u64 {
        match self.recovery {
            LossRecovery::Sack(_) => self.sack_update_scoreboard(ack, prior_fack, now),
            _ => 0,
        }
    }

    /// What the ACK delivered (RFC 6937 DeliveredData, Linux's `tcp_newly_delivered()`), counted
    /// before its handling as Linux counts it in `tcp_clean_rtx_queue()` / `tcp_sacktag_write_queue()`:
    /// from the scoreboard with SACK, from the DUPACKs without.
    pub(in crate::tcp) fn delivered_data(
        &mut self,
        ack_seq: u64,
        una_before: u64,
        newly_sacked: u64,
        flight_before: u64,
    ) -> u64 {
        match self.recovery {
            // The scoreboard has this ACK's blocks but still holds what it acknowledges.
            LossRecovery::Sack(_) => self.scoreboard.unsacked_between(una_before, ack_seq) + newly_sacked,
            _ => self.dupack_delivered_data(ack_seq, una_before, flight_before),
        }
    }

    /// `snd_una` moved to `ack_seq`: with SACK, the scoreboard follows (`sack.rs`); the other
    /// recoveries keep nothing of it.
    pub(in crate::tcp) fn recovery_on_cumulative_ack(&mut self, ack_seq: u64) {
        if let LossRecovery::Sack(_) = self.recovery {
            self.sack_on_cumulative_ack(ack_seq);
        }
    }

    /// Linux's hold (`recovery_exit = "above_recover"`, NewReno only): the ACK of exactly
    /// `recover` keeps a non-SACK sender in recovery, as one more ACK of the reduction with no
    /// hole to resend.
    pub(in crate::tcp) fn held_at(&self, ack_seq: u64) -> bool {
        matches!(self.recovery, LossRecovery::NewReno { .. })
            && self.state.in_recovery()
            && self.recovery_exit == RecoveryExit::AboveRecover
            && self.recover == Some(ack_seq)
    }

    /// An ACK of new data that leaves the sender in recovery. Returns whether to restart the
    /// retransmission timer: NewReno's partial ACK decides (`newreno.rs`); with SACK the
    /// scoreboard was updated and sending follows from `pipe`.
    pub(in crate::tcp) fn on_partial_ack(
        &mut self,
        newly_acked_bytes: u64,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) -> bool {
        match self.recovery {
            LossRecovery::NewReno { .. } => self.newreno_partial_ack(newly_acked_bytes, now, out),
            _ => true,
        }
    }

    /// A DUPACK (the control has seen it): RFC 6675's with SACK (`sack.rs`), else counted
    /// towards fast retransmit (`reno.rs`).
    pub(in crate::tcp) fn recovery_on_duplicate_ack(
        &mut self,
        ack_seq: u64,
        bytes_in_flight: u64,
        sacked_new_data: bool,
        now: Nanos,
        out: &mut Vec<Packet>,
    ) {
        match self.recovery {
            LossRecovery::Sack(_) => {
                self.sack_duplicate_ack(ack_seq, bytes_in_flight, sacked_new_data, now, out)
            }
            _ => self.count_duplicate_ack(ack_seq, bytes_in_flight, now, out),
        }
    }

    /// Enough DUPACKs: Tahoe's fast retransmit into slow start, or fast recovery (Reno,
    /// NewReno). `recover` is set.
    pub(in crate::tcp) fn on_dupack_loss(&mut self, bytes_in_flight: u64, now: Nanos, out: &mut Vec<Packet>) {
        match self.recovery {
            LossRecovery::Tahoe => self.tahoe_fast_retransmit(bytes_in_flight, now),
            _ => self.enter_fast_recovery(bytes_in_flight, now, out),
        }
    }

    /// A timeout marks what is lost. With SACK (RFC 6675 §5.1, see `tcp/sender.rs`): the
    /// scoreboard is kept, everything un-SACKed is lost and is resent from `snd_una` by the
    /// scoreboard. Without, everything outstanding is resent (go-back-N from `snd_una`).
    pub(in crate::tcp) fn recovery_on_timeout(&mut self, now: Nanos) {
        match self.recovery {
            LossRecovery::Sack(_) => self.sack_on_timeout(now),
            _ => self.snd_nxt = self.snd_una,
        }
    }
}
