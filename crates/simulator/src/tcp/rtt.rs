//! RFC 6298 round-trip time estimation and retransmission timeout.

use crate::model::{Nanos, RtoSpec};

#[derive(Debug, Clone)]
pub struct RttEstimator {
    spec: RtoSpec,
    srtt: Option<Nanos>,
    rttvar: Nanos,
    /// RTO before backoff.
    base_rto: Nanos,
    /// Number of consecutive backoffs (RFC 6298 §5.5).
    backoffs: u32,
    min_rtt: Option<Nanos>,
}

impl RttEstimator {
    pub fn new(spec: RtoSpec) -> Self {
        RttEstimator { spec, srtt: None, rttvar: 0, base_rto: spec.initial, backoffs: 0, min_rtt: None }
    }

    /// Feed a valid sample (Karn's rule is the caller's job). A new sample also ends any backoff
    /// (RFC 6298 §5.7: the RTO is recomputed from the estimator).
    pub fn on_sample(&mut self, r: Nanos) {
        match self.srtt {
            None => {
                // §2.2
                self.srtt = Some(r);
                self.rttvar = r / 2;
            }
            Some(srtt) => {
                // §2.3, beta = 1/4 then alpha = 1/8; RTTVAR uses the old SRTT.
                self.rttvar = (3 * self.rttvar + srtt.abs_diff(r)) / 4;
                self.srtt = Some((7 * srtt + r) / 8);
            }
        }
        let srtt = self.srtt.unwrap_or(r);
        self.base_rto = srtt + self.spec.granularity.max(4 * self.rttvar);
        self.backoffs = 0;
        self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
    }

    /// Current retransmission timeout: §2.4 minimum, §2.5 maximum, §5.5 exponential backoff.
    pub fn rto(&self) -> Nanos {
        let backed_off = self.base_rto.max(self.spec.min).saturating_mul(1u64 << self.backoffs.min(32));
        backed_off.min(self.spec.max)
    }

    /// Double the RTO after a timeout (§5.5).
    pub fn back_off(&mut self) {
        if self.rto() < self.spec.max {
            self.backoffs += 1;
        }
    }

    pub fn srtt(&self) -> Option<Nanos> {
        self.srtt
    }

    pub fn min_rtt(&self) -> Option<Nanos> {
        self.min_rtt
    }

    /// The RTO's lower bound (§2.4; Linux's `tcp_rto_min`).
    pub fn min_rto(&self) -> Nanos {
        self.spec.min
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: Nanos = 1_000_000;

    fn spec(min: Nanos) -> RtoSpec {
        RtoSpec { initial: 1000 * MS, min, max: 60_000 * MS, granularity: MS }
    }

    #[test]
    fn first_sample_sets_srtt_and_half_variance() {
        let mut est = RttEstimator::new(spec(0));
        assert_eq!(est.rto(), 1000 * MS);
        est.on_sample(100 * MS);
        assert_eq!(est.srtt(), Some(100 * MS));
        assert_eq!(est.rto(), 100 * MS + 4 * 50 * MS);
    }

    #[test]
    fn later_samples_use_the_rfc_gains() {
        let mut est = RttEstimator::new(spec(0));
        est.on_sample(100 * MS);
        est.on_sample(200 * MS);
        // rttvar = 3/4*50 + 1/4*100 = 62.5 ms; srtt = 7/8*100 + 1/8*200 = 112.5 ms
        assert_eq!(est.srtt(), Some(112_500_000));
        assert_eq!(est.rto(), 112_500_000 + 4 * 62_500_000);
        assert_eq!(est.min_rtt(), Some(100 * MS));
    }

    #[test]
    fn granularity_bounds_the_variance_term_and_min_rto_applies() {
        let mut est = RttEstimator::new(spec(200 * MS));
        for _ in 0..50 {
            est.on_sample(10 * MS);
        }
        assert_eq!(est.rto(), 200 * MS);
        let mut fine = RttEstimator::new(spec(0));
        for _ in 0..200 {
            fine.on_sample(10 * MS);
        }
        assert_eq!(fine.rto(), 10 * MS + MS);
    }

    #[test]
    fn backoff_doubles_up_to_the_maximum_and_a_sample_resets_it() {
        let mut est = RttEstimator::new(spec(1000 * MS));
        est.back_off();
        assert_eq!(est.rto(), 2000 * MS);
        for _ in 0..20 {
            est.back_off();
        }
        assert_eq!(est.rto(), 60_000 * MS);
        est.on_sample(100 * MS);
        assert_eq!(est.rto(), 1000 * MS);
    }
}
