//! The TCP Westwood family: Reno's window growth, with the window after a loss set from an
//! end-to-end bandwidth estimate (BWE) instead of halved ("faster recovery").
//!
//! Each variant is one bandwidth estimator plugged into the same controller:
//!
//! | `cc`              | estimator                      | source |
//! |-------------------|--------------------------------|--------|
//! | `westwood`        | [`tcpw::TcpwEstimator`]        | seed 000 §2-3: Tustin filter, time-varying alpha, virtual samples |
//! | `westwood-tr`     | [`tr::TrEstimator`]            | seed 001 §II, §IV: constant-gain filter, threshold reduction factor `a` |
//! | `westwood-abse`   | [`abse::AbseEstimator`]        | seed 004 §2.1: adaptive sampling interval and filter gain |
//! | `westwood-plus`   | [`plus::WestwoodPlusEstimator`]| Grieco & Mascolo (Linux `tcp_westwood`): one sample per RTT, two 7/8 EWMAs |
//! | `westwood-ucla`   | [`ucla::UclaEstimator`]        | UCLA ns-2 module `tcp-westwood.cc` v1.3 (2002), `Agent/TCP/Westwood` (and `WestwoodNR`) |
//!
//! Shared pieces: [`acked_count`] decides how much data an ACK reports (seed 000 §2.3, or the
//! UCLA agent's rule: [`AckedCountRule`]), [`filter`] is the Tustin low-pass filter (trapezoid or
//! interval sampling: [`Sampling`]), [`controller`] applies the loss rules (§3.1, §3.2).
//! `docs/westwood.md` traces every variant and option to its reference.

pub mod abse;
pub mod acked_count;
pub mod controller;
pub mod filter;
pub mod plus;
pub mod tcpw;
pub mod tr;
pub mod ucla;

pub use abse::{AbseEstimator, AbseParams};
pub use acked_count::{AckedCount, AckedCountRule};
pub use controller::Westwood;
pub use filter::{Gain, Sampling, TustinFilter};
pub use plus::{PlusParams, WestwoodPlusEstimator};
pub use tcpw::{TcpwEstimator, TcpwParams};
pub use tr::{TrEstimator, TrParams};
pub use ucla::{UclaEstimator, UclaFilter, UclaParams};

/// What an estimator may know about the path when an ACK arrives.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PathState {
    /// Congestion window before this ACK, bytes.
    pub cwnd: u64,
    /// Smoothed RTT (RFC 6298 gains) of the samples seen so far, ns.
    pub smoothed_rtt_ns: Option<u64>,
    /// The most recent RTT sample, ns.
    pub latest_rtt_ns: Option<u64>,
    /// RTTmin: the smallest RTT sample of the connection, ns.
    pub min_rtt_ns: Option<u64>,
}

/// A bandwidth estimator: turns the ACK stream into BWE (bits/s).
pub trait BandwidthEstimator {
    /// An ACK arrived at `now_ns` reporting `delivered_bytes` (AckedCount's credit).
    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, path: &PathState);

    /// Bring the estimate up to `now_ns` (for estimators that decay during silence) and return
    /// it: called at loss time, which may be long after the last ACK (a timeout).
    fn estimate_at(&mut self, now_ns: u64) -> f64;

    /// The estimate as of the last event, bits/s.
    fn estimate_bps(&self) -> f64;

    /// What the loss rule divides this loss's threshold by. Called once per loss, before the
    /// threshold is computed, so an estimator can keep a factor's state: 1 for all variants but
    /// TCPW-TR (seed 001 §IV: its factor `a`) and the UCLA agent (which updates its `a` at both
    /// kinds of loss but divides only the timeout's threshold by it).
    fn reduction_factor(&mut self, _event: LossKind, _in_slow_start: bool) -> f64 {
        1.0
    }

    /// A Karn-valid RTT sample arrived (the controller has already taken it into `PathState`;
    /// called before [`BandwidthEstimator::on_ack`] for the same ACK). For estimators that keep
    /// their own RTT statistics, as the UCLA agent keeps RTTmin in clock ticks.
    fn on_rtt_sample(&mut self, _rtt_ns: u64) {}

    /// RTTmin as the loss rules use it: the controller's (the smallest RTT sample) unless the
    /// estimator keeps its own.
    fn rtt_min_ns(&self, path: &PathState) -> Option<u64> {
        path.min_rtt_ns
    }

    /// The AckedCount procedure of the estimator's reference, which [`Westwood::new`] runs:
    /// the paper's, except for the UCLA agent.
    fn acked_count_rule(&self) -> AckedCountRule {
        AckedCountRule::Paper
    }

    /// Whether the DUPACK rule leaves a window already at or below the new threshold as it is,
    /// with the congestion-avoidance progress it has made, as the UCLA agent does
    /// (`if (cwnd_ > ssthresh_) cwnd_ = ssthresh_;` on ns-2's fractional `cwnd_`). Otherwise
    /// the rule sets the window anew (`cwin = min(cwin, ssthresh)`) and the progress restarts,
    /// as after any loss rule (RFC 3465 §2.1's `bytes_acked`).
    fn keeps_window_progress(&self) -> bool {
        false
    }
}

/// Which loss signal the controller is reacting to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossKind {
    DuplicateAcks,
    Timeout,
}

/// TCPW (seed 000).
pub type Tcpw = Westwood<TcpwEstimator>;
/// TCPW with the threshold reduction factor (seed 001).
pub type TcpwTr = Westwood<TrEstimator>;
/// TCPW ABSE (seed 004).
pub type TcpwAbse = Westwood<AbseEstimator>;
/// Westwood+.
pub type WestwoodPlus = Westwood<WestwoodPlusEstimator>;
/// The UCLA ns-2 agent (`Agent/TCP/Westwood`; `westwood-ucla-nr` is the same controller over
/// NewReno recovery).
pub type TcpwUcla = Westwood<UclaEstimator>;
