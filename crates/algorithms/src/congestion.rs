//! The interface between a TCP sender and its congestion control.
//!
//! The sender owns sequence numbers, timers and retransmissions; the congestion control owns the
//! congestion window (`cwnd`) and the slow-start threshold (`ssthresh`). The sender reports
//! *every* ACK it receives — new and duplicate — with its arrival time, so that rate-based
//! controls such as TCP Westwood (seed 000 §2) can measure the ACK rate, run AckedCount (§2.3)
//! on the ACK sequence numbers and keep RTTmin, without any special case in the sender.

/// How a Reno-style window grows on an ACK of new data: per ACK, or by the bytes it acknowledges.
///
/// The rules differ only when an ACK covers more than one segment, i.e. with delayed ACKs
/// (RFC 5681 §4.2: an ACK for every second full-sized segment), after ACK losses and on the
/// cumulative ACK that follows a repaired loss. With delayed ACKs
/// [`PerAck`](WindowGrowth::PerAck) grows the window half as fast as the other two, in slow
/// start and in congestion avoidance; [`ByteCounting`](WindowGrowth::ByteCounting) and
/// [`Linux`](WindowGrowth::Linux) part only on stretch ACKs (three segments or more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum WindowGrowth {
    /// RFC 5681 §3.1 as ns-2 (and the seed papers' simulations) grow the window: in slow start
    /// `cwnd += min(N, SMSS)` per ACK (eq. 2), in congestion avoidance SMSS once per cwnd's
    /// worth of *ACKs* (the integer form of eq. 3, `cwnd += SMSS*SMSS/cwnd` per ACK).
    #[default]
    PerAck,
    /// RFC 3465 Appropriate Byte Counting with the largest limit it allows.
    ///
    /// * Slow start (RFC 3465 §2.2): `cwnd += min(N, L)` per ACK, N the newly acknowledged bytes,
    ///   with L = [`ABC_LIMIT_SEGMENTS`](WindowGrowth::ABC_LIMIT_SEGMENTS) × SMSS = 2·SMSS.
    ///   RFC 3465 also asks for L = 1·SMSS in the slow start that follows a retransmission
    ///   timeout; we keep 2·SMSS there too.
    /// * Congestion avoidance (RFC 3465 §2.1): `bytes_acked += N` per ACK; when
    ///   `bytes_acked >= cwnd`, `bytes_acked -= cwnd` and `cwnd += SMSS`.
    /// * `bytes_acked` starts again from zero whenever a loss rule sets the window (DUPACKs,
    ///   timeout, the end of fast recovery) and in slow start.
    ByteCounting,
    /// Linux's rule (`tcp_reno_cong_avoid`: `tcp_slow_start`, then `tcp_cong_avoid_ai` with what
    /// is left), counting what an ACK acknowledges without RFC 3465's limit:
    ///
    /// * Slow start: `cwnd = min(cwnd + N, ssthresh)`; the part of N that did not fit goes on
    ///   to congestion avoidance. A stretch ACK of k segments adds k, so the cumulative ACK
    ///   that follows a repaired loss after a timeout (everything the receiver held) takes the
    ///   window back to ssthresh at once, where [`ByteCounting`](WindowGrowth::ByteCounting)
    ///   needs a round trip per doubling.
    /// * Congestion avoidance: `bytes_acked += N`; while `bytes_acked >= cwnd`, whole windows
    ///   of it are turned into segments (`delta = bytes_acked / cwnd`, several per ACK if it
    ///   covers that much), and credit left from a smaller window is spent one segment first
    ///   ("apply them gently", `tcp_cong_avoid_ai`).
    /// * As with byte counting, the credit restarts whenever a loss rule sets the window and
    ///   in slow start.
    /// * N is [`AckEvent::newly_delivered_bytes`] (Linux's `tcp_newly_delivered()`), which a
    ///   sender with this rule counts as Linux does; and CUBIC under this rule is Linux's own
    ///   (`crate::cubic_linux`).
    Linux,
}

impl WindowGrowth {
    /// Every rule, in the order the documentation lists them.
    pub const ALL: [WindowGrowth; 3] =
        [WindowGrowth::PerAck, WindowGrowth::ByteCounting, WindowGrowth::Linux];

    /// RFC 3465 §2.2's L for [`WindowGrowth::ByteCounting`], in segments: at most this many
    /// SMSS per ACK in slow start (2, the largest value §2.2 allows).
    pub const ABC_LIMIT_SEGMENTS: u64 = 2;

    /// The name scenarios use: `"per_ack"`, `"byte_counting"` or `"linux"`.
    pub fn name(self) -> &'static str {
        match self {
            WindowGrowth::PerAck => "per_ack",
            WindowGrowth::ByteCounting => "byte_counting",
            WindowGrowth::Linux => "linux",
        }
    }

    /// The rule named `name` (as [`WindowGrowth::name`] spells it, case-insensitive).
    pub fn from_name(name: &str) -> Option<WindowGrowth> {
        WindowGrowth::ALL.into_iter().find(|g| g.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Slow start for an ACK of `newly_acked_bytes` with the window at `cwnd` below `ssthresh`:
    /// `(increase, left)`, the bytes cwnd grows by and those left for congestion avoidance.
    /// `min(N, SMSS)` (RFC 5681 §3.1 eq. 2) or `min(N, L)` with L = 2·SMSS (RFC 3465 §2.2),
    /// nothing left, even if cwnd passes ssthresh; Linux: up to ssthresh, the rest left.
    pub fn slow_start_step(self, newly_acked_bytes: u64, cwnd: u64, ssthresh: u64, mss: u64) -> (u64, u64) {
        match self {
            WindowGrowth::PerAck => (newly_acked_bytes.min(mss), 0),
            WindowGrowth::ByteCounting => (newly_acked_bytes.min(WindowGrowth::ABC_LIMIT_SEGMENTS * mss), 0),
            WindowGrowth::Linux => {
                let increase = newly_acked_bytes.min(ssthresh.saturating_sub(cwnd));
                (increase, newly_acked_bytes - increase)
            }
        }
    }

    /// What an ACK of `newly_acked_bytes` adds to the congestion-avoidance counter, which earns
    /// one SMSS of window each time it reaches cwnd: one SMSS per ACK (RFC 5681 eq. 3 in integer
    /// form), or the bytes acknowledged (RFC 3465 §2.1 `bytes_acked`, and Linux).
    pub fn avoidance_credit(self, newly_acked_bytes: u64, mss: u64) -> u64 {
        match self {
            WindowGrowth::PerAck => mss,
            WindowGrowth::ByteCounting | WindowGrowth::Linux => newly_acked_bytes,
        }
    }
}

/// Per-connection constants a congestion control needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowConfig {
    /// Sender maximum segment size (payload bytes), RFC 5681's SMSS.
    pub mss: u64,
    /// Initial window in bytes (RFC 5681 §3.1 IW).
    pub initial_cwnd: u64,
    /// Initial slow-start threshold in bytes ("arbitrarily high", RFC 5681 §3.1).
    pub initial_ssthresh: u64,
    /// How the window grows on ACKs of new data ([`WindowGrowth::PerAck`] unless a scenario
    /// asks for byte counting). Reno's rules and so the whole Westwood family follow it;
    /// CUBIC only in slow start (its congestion avoidance already counts acknowledged bytes).
    pub window_growth: WindowGrowth,
}

impl WindowConfig {
    /// RFC 5681 §3.1 initial window: min(4*SMSS, max(2*SMSS, 4380 bytes)), rounded down to whole
    /// segments because the sender only sends full-sized segments.
    pub fn rfc5681_initial_window(mss: u64) -> u64 {
        let bytes = (4 * mss).min((2 * mss).max(4380));
        (bytes / mss).max(1) * mss
    }
}

/// One ACK as the sender saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AckEvent {
    /// Arrival time at the sender, nanoseconds on the connection's clock.
    pub now_ns: u64,
    /// Cumulative acknowledgment number (next byte the receiver expects).
    pub ack_seq: u64,
    /// Bytes this ACK newly acknowledged cumulatively (0 for a DUPACK).
    pub newly_acked_bytes: u64,
    /// What the window grows by: the bytes this ACK delivered. Linux counts them so
    /// (`tcp_newly_delivered()`, handed to `cong_avoid`): bytes newly acknowledged that no SACK
    /// (without SACK, no DUPACK: `tcp_remove_reno_sacks`) had reported yet, at least one
    /// segment, plus bytes newly SACKed; so the cumulative ACK that ends a recovery grows the
    /// window by what it repaired, not by everything the receiver held. Senders without that
    /// rule set it to `newly_acked_bytes`.
    pub newly_delivered_bytes: u64,
    /// True when the ACK repeats the previous cumulative ACK while data is outstanding.
    pub is_dupack: bool,
    /// A valid RTT sample taken from this ACK (Karn's rule already applied), nanoseconds.
    pub rtt_sample_ns: Option<u64>,
    /// The sender was in fast recovery when this ACK arrived.
    pub in_recovery: bool,
    /// Bytes outstanding before this ACK was processed (RFC 5681 FlightSize).
    pub bytes_in_flight: u64,
    /// The sender has been using its whole window (Linux's `tcp_is_cwnd_limited()`: cwnd
    /// filled in the current round trip, or in slow start below twice the most sent in it).
    /// Controls grow cwnd only when true, so a window the receiver, the send buffer or the
    /// application held back does not grow without bound. A sender without this rule (ns-2's
    /// agents, RFC 5681 as written) always sets it.
    pub cwnd_limited: bool,
}

/// A loss signal the sender reports to the congestion control.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CongestionEvent {
    /// `dupthresh` duplicate ACKs: fast retransmit, about to enter fast recovery.
    DuplicateAcks { now_ns: u64, bytes_in_flight: u64 },
    /// `dupthresh` duplicate ACKs seen by a sender without fast recovery (Tahoe's):
    /// it retransmits and goes back to `snd_una` in slow start. `ssthresh` follows the control's
    /// DUPACK rule; `cwnd` restarts from the loss window, one segment (as after a timeout).
    DuplicateAcksSlowStart { now_ns: u64, bytes_in_flight: u64 },
    /// The retransmission timer expired. `repeated`: it expired again for a segment already
    /// retransmitted by the timer (snd_una has not moved since the last timeout).
    Timeout { now_ns: u64, bytes_in_flight: u64, repeated: bool },
    /// The retransmission timer expired inside a loss episode whose threshold is already set,
    /// and the sender does not ask for a new one (Linux's `tcp_enter_loss`: "reduce ssthresh if
    /// it has not yet been made inside this window"; an RTO during fast recovery, or a repeated
    /// one). The window restarts from one segment; `ssthresh` and the control's loss state
    /// stay as they are (Linux calls neither `ssthresh` nor `CA_EVENT_LOSS`).
    TimeoutHeld { now_ns: u64, bytes_in_flight: u64 },
}

/// A congestion control: owns `cwnd` and `ssthresh` (bytes), reacts to ACKs and loss signals.
///
/// Implementations must be deterministic functions of the event sequence and must keep
/// `cwnd() >= mss`.
pub trait CongestionControl {
    /// Called for every ACK, duplicate or not, in arrival order.
    fn on_ack(&mut self, ack: &AckEvent);

    /// Called once per loss detection (3rd DUPACK or RTO) before the sender retransmits.
    fn on_congestion(&mut self, event: CongestionEvent);

    /// Called when fast recovery ends (the ACK that ended it was already passed to `on_ack`).
    fn on_recovery_exit(&mut self, now_ns: u64);

    /// Congestion window, bytes.
    fn cwnd(&self) -> u64;

    /// Slow-start threshold, bytes.
    fn ssthresh(&self) -> u64;

    /// The control's bandwidth estimate in bits/s, for controls that keep one (Westwood family).
    fn bandwidth_estimate_bps(&self) -> Option<f64> {
        None
    }

    /// RTTmin, ns, for controls whose loss rules use one (the Westwood family): what the test
    /// vectors and per-ACK traces record beside the window.
    fn min_rtt_ns(&self) -> Option<u64> {
        None
    }

    /// Bytes the last ACK credited to the bandwidth estimate (AckedCount, seed 000 §2.3), for
    /// controls that keep one: it differs from the bytes the ACK acknowledged (DUPACKs count one
    /// segment each, a cumulative ACK after them less), and per-ACK traces record it.
    fn last_credited_bytes(&self) -> Option<u64> {
        None
    }

    /// Set `cwnd` and `ssthresh` (bytes) to values observed elsewhere, e.g. a per-ACK trace of
    /// another sender replayed through this control's estimator (`westwood replay`), so that
    /// what the control sees of its own window on the next event is the observed sender's.
    /// Controls whose estimate does not depend on their window may ignore it (the default).
    fn observe_window(&mut self, _cwnd_bytes: u64, _ssthresh_bytes: u64) {}

    /// A Karn-valid RTT sample that came without an ACK to report (`on_ack` takes an ACK's own
    /// sample): e.g. the kernel's trace carries the sample of an ACK its estimator was not fed
    /// on the loss reaction that follows. Controls that keep no RTT state ignore it.
    fn on_rtt_sample(&mut self, _rtt_ns: u64) {}
}
