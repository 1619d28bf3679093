//! Westwood+ (Grieco & Mascolo, "Performance evaluation and comparison of Westwood+, New Reno,
//! and Vegas TCP congestion control", CCR 2004; the `tcp_westwood` module Linux ships).
//!
//! Instead of one sample per ACK, Westwood+ counts the bytes ACKs report (AckedCount) over a
//! window of one RTT — at least 50 ms — and takes one sample per window, `bk / window`. The
//! samples go through two cascaded EWMAs with gain 7/8; the first sample initialises both. This
//! keeps ACK compression from inflating the estimate.

use super::{BandwidthEstimator, PathState};
use crate::registry::{Param, ParamKind, ParamValues};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlusParams {
    /// Lower bound of the sampling window (Linux `TCP_WESTWOOD_RTT_MIN`, 50 ms).
    pub min_window_ns: u64,
}

impl Default for PlusParams {
    fn default() -> Self {
        PlusParams { min_window_ns: 50_000_000 }
    }
}

impl PlusParams {
    /// The `[tcp] westwood_plus = { ... }` keys (crate::registry): no `sample`, since Westwood+
    /// has no Tustin step.
    pub const SCHEMA: &'static [Param] = &[
        Param { key: "min_window", kind: ParamKind::FilterTime },
        Param { key: "acked_count", kind: ParamKind::AckedCount },
    ];

    /// The defaults, with what a scenario set.
    pub fn from_values(v: &ParamValues) -> Self {
        PlusParams { min_window_ns: v.nanos("min_window").unwrap_or(PlusParams::default().min_window_ns) }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct WestwoodPlusEstimator {
    params: PlusParams,
    /// Start of the current sampling window; `None` before the first ACK.
    window_start: Option<u64>,
    /// Bytes reported in the current window.
    bytes: u64,
    /// First EWMA stage (Linux `bw_ns_est`), bits/s.
    first_stage: f64,
    /// Second stage, the estimate (Linux `bw_est`), bits/s.
    estimate: f64,
    samples: u64,
}

fn ewma_7_8(old: f64, sample: f64) -> f64 {
    (7.0 * old + sample) / 8.0
}

impl WestwoodPlusEstimator {
    pub fn new(params: PlusParams) -> Self {
        WestwoodPlusEstimator {
            params,
            window_start: None,
            bytes: 0,
            first_stage: 0.0,
            estimate: 0.0,
            samples: 0,
        }
    }

    pub fn samples(&self) -> u64 {
        self.samples
    }
}

impl BandwidthEstimator for WestwoodPlusEstimator {
    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, path: &PathState) {
        let Some(start) = self.window_start else {
            self.window_start = Some(now_ns);
            self.bytes = delivered_bytes;
            return;
        };
        self.bytes += delivered_bytes;
        // Like Linux, no window closes before the first RTT sample.
        let Some(rtt) = path.latest_rtt_ns else {
            return;
        };
        let elapsed = now_ns.saturating_sub(start);
        if elapsed > rtt.max(self.params.min_window_ns) {
            let sample = self.bytes as f64 * 8.0 * 1e9 / elapsed as f64;
            if self.samples == 0 {
                self.first_stage = sample;
                self.estimate = sample;
            } else {
                self.first_stage = ewma_7_8(self.first_stage, sample);
                self.estimate = ewma_7_8(self.estimate, self.first_stage);
            }
            self.samples += 1;
            self.bytes = 0;
            self.window_start = Some(now_ns);
        }
    }

    fn estimate_at(&mut self, _now_ns: u64) -> f64 {
        self.estimate
    }

    fn estimate_bps(&self) -> f64 {
        self.estimate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn path(rtt_ms: u64) -> PathState {
        PathState { latest_rtt_ns: Some(rtt_ms * MS), ..PathState::default() }
    }

    #[test]
    fn one_sample_per_rtt_window_and_the_first_initialises_both_stages() {
        let mut e = WestwoodPlusEstimator::new(PlusParams::default());
        // 1000 bytes per ms = 8 Mb/s, RTT 100 ms.
        for t in 0..=101 {
            e.on_ack(t * MS, 1000, &path(100));
        }
        assert_eq!(e.samples(), 1);
        // The window [0, 101 ms] holds 102 ACKs (the first opened it).
        assert!((e.estimate_bps() - 102_000.0 * 8.0 / 0.101).abs() < 1.0);
    }

    #[test]
    fn windows_are_at_least_50_ms_and_stages_cascade() {
        let mut e = WestwoodPlusEstimator::new(PlusParams::default());
        for t in 0..=51 {
            e.on_ack(t * MS, 1000, &path(10));
        }
        assert_eq!(e.samples(), 1);
        let first = e.estimate_bps();
        // Then a window at half the rate: 1000 bytes every 2 ms.
        for k in 1..=26 {
            e.on_ack((51 + 2 * k) * MS, 1000, &path(10));
        }
        assert_eq!(e.samples(), 2);
        let sample = 26_000.0 * 8.0 / 0.052;
        let stage1 = (7.0 * first + sample) / 8.0;
        assert!((e.estimate_bps() - (7.0 * first + stage1) / 8.0).abs() < 1e-6);
    }

    #[test]
    fn no_sample_before_an_rtt_is_known() {
        let mut e = WestwoodPlusEstimator::new(PlusParams::default());
        for t in 0..1000 {
            e.on_ack(t * MS, 1000, &PathState::default());
        }
        assert_eq!(e.samples(), 0);
    }
}
