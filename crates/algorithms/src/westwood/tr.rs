//! TCPW with the threshold reduction factor (seed 001 §II, §IV).
//!
//! The estimator is the earlier Tustin filter with a constant coefficient — time constant ten
//! times the sampling time, so `BWE_k = 19/21 BWE_{k-1} + 1/21 (b_k + b_{k-1})` — and no virtual
//! samples. The factor `a` divides the BWE-based threshold: it grows by 0.25 at each 3-DUPACK
//! loss and by 1 at each timeout that happens in slow start (at most 4), and returns to 1 at a
//! loss in congestion avoidance; it starts at 1.
//!
//! [`TrParams::sample`] chooses the trapezoid of seed 001's filter (the default) or interval
//! sampling, `BWE_k = 19/21 BWE_{k-1} + 2/21 b_k` ([`Sampling`], see `filter.rs`).

use super::filter::{Gain, Sampling, TustinFilter};
use super::{BandwidthEstimator, LossKind, PathState};
use crate::registry::{Param, ParamKind, ParamValues};

/// Time-constant to sampling-time ratio of seed 001's filter.
pub const TIME_CONSTANT_RATIO: f64 = 10.0;
pub const MAX_REDUCTION_FACTOR: f64 = 4.0;

/// TCPW-TR's options. The filter's ratio and the factor's steps are seed 001's constants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TrParams {
    /// Which samples each step averages: [`Sampling::Trapezoid`] (seed 001 §II, the default) or
    /// [`Sampling::Interval`].
    pub sample: Sampling,
}

impl TrParams {
    /// The `[tcp] westwood_tr = { ... }` keys (crate::registry).
    pub const SCHEMA: &'static [Param] = &[
        Param { key: "sample", kind: ParamKind::Sampling },
        Param { key: "acked_count", kind: ParamKind::AckedCount },
    ];

    /// The defaults, with what a scenario set.
    pub fn from_values(v: &ParamValues) -> Self {
        TrParams { sample: v.sampling("sample").unwrap_or_default() }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TrEstimator {
    filter: TustinFilter,
    /// The threshold reduction factor `a`.
    a: f64,
}

impl Default for TrEstimator {
    fn default() -> Self {
        Self::new()
    }
}

impl TrEstimator {
    /// Seed 001 as written (trapezoid sampling).
    pub fn new() -> Self {
        Self::with_params(TrParams::default())
    }

    pub fn with_params(params: TrParams) -> Self {
        let gain = Gain::Fixed { ratio: TIME_CONSTANT_RATIO };
        TrEstimator { filter: TustinFilter::with_sampling(gain, params.sample), a: 1.0 }
    }

    pub fn reduction_factor_value(&self) -> f64 {
        self.a
    }
}

impl BandwidthEstimator for TrEstimator {
    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, _path: &PathState) {
        self.filter.on_ack(now_ns, delivered_bytes);
    }

    fn estimate_at(&mut self, _now_ns: u64) -> f64 {
        self.filter.estimate_bps()
    }

    fn estimate_bps(&self) -> f64 {
        self.filter.estimate_bps()
    }

    /// Seed 001 §IV-A and §IV-B. The pseudocode tests `cwin < ssthresh` (slow start) and
    /// `cwin > ssthresh` (congestion avoidance); at equality we follow Reno's window growth,
    /// which treats `cwin >= ssthresh` as congestion avoidance.
    fn reduction_factor(&mut self, event: LossKind, in_slow_start: bool) -> f64 {
        if in_slow_start {
            let step = match event {
                LossKind::DuplicateAcks => 0.25,
                LossKind::Timeout => 1.0,
            };
            self.a = (self.a + step).min(MAX_REDUCTION_FACTOR);
        } else {
            self.a = 1.0;
        }
        self.a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_factor_follows_the_pseudocode() {
        let mut tr = TrEstimator::new();
        let mut seen = Vec::new();
        for (event, slow_start) in [
            (LossKind::DuplicateAcks, true),
            (LossKind::DuplicateAcks, true),
            (LossKind::Timeout, true),
            (LossKind::Timeout, true),
            (LossKind::DuplicateAcks, true),
            (LossKind::DuplicateAcks, true),  // capped at 4
            (LossKind::DuplicateAcks, false), // congestion avoidance resets
            (LossKind::Timeout, true),
            (LossKind::Timeout, false),
        ] {
            seen.push(tr.reduction_factor(event, slow_start));
        }
        assert_eq!(seen, vec![1.25, 1.5, 2.5, 3.5, 3.75, 4.0, 1.0, 2.0, 1.0]);
    }

    #[test]
    fn the_filter_has_the_constant_19_21_coefficient() {
        let mut tr = TrEstimator::new();
        let path = PathState::default();
        tr.on_ack(0, 0, &path);
        tr.on_ack(1_000_000, 1000, &path); // b = 8 Mb/s
        assert!((tr.estimate_bps() - 8e6 / 21.0).abs() < 1e-6);
        tr.on_ack(101_000_000, 1000, &path); // 100 ms later: same coefficient, b = 80 kb/s
        let expected = 19.0 / 21.0 * 8e6 / 21.0 + (80e3 + 8e6) / 21.0;
        assert!((tr.estimate_bps() - expected).abs() < 1e-6);
    }

    #[test]
    fn interval_sampling_weights_the_new_sample_by_2_21() {
        let mut tr = TrEstimator::with_params(TrParams { sample: Sampling::Interval });
        let path = PathState::default();
        tr.on_ack(0, 0, &path);
        tr.on_ack(1_000_000, 1000, &path); // b = 8 Mb/s
        assert!((tr.estimate_bps() - 2.0 * 8e6 / 21.0).abs() < 1e-6);
        tr.on_ack(101_000_000, 1000, &path); // b = 80 kb/s; the 8 Mb/s sample is not reused
        let expected = 19.0 / 21.0 * 2.0 * 8e6 / 21.0 + 2.0 * 80e3 / 21.0;
        assert!((tr.estimate_bps() - expected).abs() < 1e-6);
    }
}
