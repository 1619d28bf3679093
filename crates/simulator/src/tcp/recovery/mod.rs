//! Loss recovery: what the sender does between detecting a loss by duplicate ACKs and the end
//! of the episode — which segment to resend, when recovery ends, how the window is temporarily
//! inflated. The congestion control (crates/algorithms) only decides the window the sender falls
//! back to, so any control composes with any recovery; each control's reference pairs it with
//! one by default (`westwood_algorithms::registry::CcEntry::default_recovery`).
//!
//! Each recovery's procedures are `Sender` methods in its own file: `reno.rs` (RFC 5681 fast
//! recovery), `newreno.rs` (RFC 6582 partial ACKs), `sack.rs` (RFC 6675), `tahoe.rs`; `prr.rs`
//! paces any of them (RFC 6937). The sender's ACK and timer handlers (`tcp/sender.rs`) choose
//! among them by [`Recovery`].

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
