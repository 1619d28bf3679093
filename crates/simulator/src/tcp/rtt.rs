//! Round-trip time estimation and the retransmission timeout: RFC 6298, or Linux's
//! `tcp_rtt_estimator()` (`rtt_estimator = "linux"`).
//!
//! Linux keeps RFC 6298's SRTT (gain 1/8) but not its RTTVAR. `mdev` follows the absolute
//! error with gain 1/4, except that a sample below SRTT by more than a quarter of `mdev` moves it
//! with gain 1/32 (the "Eifel" damping: a falling RTT does not swell the timeout); the variance
//! term of the RTO, `rttvar`, is the largest `4 · mdev` of the current round trip, at least
//! `tcp_rto_min`, and falls by a quarter of its excess over that largest value only once per
//! round trip (when `snd_una` passes the `snd_nxt` of the round's first sample, `rtt_seq`).
//! The RTO is `srtt + rttvar` (`__tcp_set_rto()`), so `tcp_rto_min` bounds the variance term,
//! not the RTO. Linux feeds it the oldest segment an ACK newly acknowledges (`first_ackt`).

use crate::model::{Nanos, RtoSpec, RttEstimatorRule};

/// Linux's estimator state beyond SRTT, in nanoseconds at Linux's scales (`mdev` and `rttvar`
/// hold four times the mean deviation, as `mdev_us` and `rttvar_us` do).
#[derive(Debug, Clone, Copy)]
struct LinuxVariance {
    mdev: i64,
    mdev_max: i64,
    rttvar: i64,
    /// `tp->rtt_seq`: the round trip ends once `snd_una` passes it.
    rtt_seq: u64,
}

/// What each rule keeps besides SRTT.
#[derive(Debug, Clone, Copy)]
enum Variance {
    /// RFC 6298's RTTVAR.
    Rfc6298 {
        rttvar: Nanos,
    },
    Linux(LinuxVariance),
}

#[derive(Debug, Clone)]
pub struct RttEstimator {
    spec: RtoSpec,
    srtt: Option<Nanos>,
    variance: Variance,
    /// RTO before backoff.
    base_rto: Nanos,
    /// Number of consecutive backoffs (RFC 6298 §5.5).
    backoffs: u32,
    min_rtt: Option<Nanos>,
}

impl RttEstimator {
    pub fn new(spec: RtoSpec) -> Self {
        RttEstimator::with_rule(spec, RttEstimatorRule::Rfc6298)
    }

    pub fn with_rule(spec: RtoSpec, rule: RttEstimatorRule) -> Self {
        let variance = match rule {
            RttEstimatorRule::Rfc6298 => Variance::Rfc6298 { rttvar: 0 },
            RttEstimatorRule::Linux => {
                Variance::Linux(LinuxVariance { mdev: 0, mdev_max: 0, rttvar: 0, rtt_seq: 0 })
            }
        };
        RttEstimator { spec, srtt: None, variance, base_rto: spec.initial, backoffs: 0, min_rtt: None }
    }

    /// Feed a valid sample (Karn's rule is the caller's job): `oldest` from the oldest segment
    /// the ACK newly covers, `newest` from the newest, with `snd_una` already moved to the ACK
    /// and `snd_nxt` the next segment to send. Linux's estimator takes the oldest
    /// (`first_ackt`), RFC 6298's (as this simulator has always read it) the newest; the path's
    /// minimum RTT follows the newest. A new sample also ends any backoff (RFC 6298 §5.7;
    /// Linux's `tcp_ack_update_rtt()`).
    pub fn on_sample(&mut self, oldest: Nanos, newest: Nanos, snd_una: u64, snd_nxt: u64) {
        match &mut self.variance {
            Variance::Linux(linux) => {
                let srtt = linux_estimate(linux, self.srtt, oldest, self.spec.min, snd_una, snd_nxt);
                self.srtt = Some(srtt);
                self.base_rto = srtt + linux.rttvar as Nanos;
            }
            Variance::Rfc6298 { rttvar } => {
                let r = newest;
                let srtt = match self.srtt {
                    // §2.2
                    None => {
                        *rttvar = r / 2;
                        r
                    }
                    // §2.3, beta = 1/4 then alpha = 1/8; RTTVAR uses the old SRTT.
                    Some(srtt) => {
                        *rttvar = (3 * *rttvar + srtt.abs_diff(r)) / 4;
                        (7 * srtt + r) / 8
                    }
                };
                self.srtt = Some(srtt);
                self.base_rto = srtt + self.spec.granularity.max(4 * *rttvar);
            }
        }
        self.backoffs = 0;
        self.min_rtt = Some(self.min_rtt.map_or(newest, |m| m.min(newest)));
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

/// `tcp_rtt_estimator()` on sample `r` with the previous SRTT; returns the new SRTT. Linux
/// holds `8 · srtt` and shifts; the same integer steps here, in nanoseconds.
fn linux_estimate(
    v: &mut LinuxVariance,
    srtt: Option<Nanos>,
    r: Nanos,
    rto_min: Nanos,
    snd_una: u64,
    snd_nxt: u64,
) -> Nanos {
    let r = r as i64;
    let rto_min = rto_min as i64;
    let Some(srtt) = srtt else {
        // No previous measure: srtt = r, mdev = r / 2 (so that the RTO is 3 · r).
        v.mdev = r << 1;
        v.rttvar = v.mdev.max(rto_min);
        v.mdev_max = v.rttvar;
        v.rtt_seq = snd_nxt;
        return r.max(1) as Nanos;
    };
    let mut srtt8 = (srtt as i64) << 3;
    let mut m = r - (srtt8 >> 3);
    srtt8 += m;
    if m < 0 {
        m = -m;
        m -= v.mdev >> 2;
        if m > 0 {
            m >>= 3;
        }
    } else {
        m -= v.mdev >> 2;
    }
    v.mdev += m;
    if v.mdev > v.mdev_max {
        v.mdev_max = v.mdev;
        if v.mdev_max > v.rttvar {
            v.rttvar = v.mdev_max;
        }
    }
    if snd_una > v.rtt_seq {
        if v.mdev_max < v.rttvar {
            v.rttvar -= (v.rttvar - v.mdev_max) >> 2;
        }
        v.rtt_seq = snd_nxt;
        v.mdev_max = rto_min;
    }
    (srtt8 >> 3).max(1) as Nanos
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
        est.on_sample(100 * MS, 100 * MS, 0, 0);
        assert_eq!(est.srtt(), Some(100 * MS));
        assert_eq!(est.rto(), 100 * MS + 4 * 50 * MS);
    }

    #[test]
    fn later_samples_use_the_rfc_gains() {
        let mut est = RttEstimator::new(spec(0));
        est.on_sample(100 * MS, 100 * MS, 0, 0);
        est.on_sample(200 * MS, 200 * MS, 0, 0);
        // rttvar = 3/4*50 + 1/4*100 = 62.5 ms; srtt = 7/8*100 + 1/8*200 = 112.5 ms
        assert_eq!(est.srtt(), Some(112_500_000));
        assert_eq!(est.rto(), 112_500_000 + 4 * 62_500_000);
        assert_eq!(est.min_rtt(), Some(100 * MS));
    }

    #[test]
    fn granularity_bounds_the_variance_term_and_min_rto_applies() {
        let mut est = RttEstimator::new(spec(200 * MS));
        for _ in 0..50 {
            est.on_sample(10 * MS, 10 * MS, 0, 0);
        }
        assert_eq!(est.rto(), 200 * MS);
        let mut fine = RttEstimator::new(spec(0));
        for _ in 0..200 {
            fine.on_sample(10 * MS, 10 * MS, 0, 0);
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
        est.on_sample(100 * MS, 100 * MS, 0, 0);
        assert_eq!(est.rto(), 1000 * MS);
    }

    fn linux(min: Nanos) -> RttEstimator {
        RttEstimator::with_rule(spec(min), RttEstimatorRule::Linux)
    }

    #[test]
    fn linux_starts_at_three_rtts_and_bounds_the_variance_term_by_rto_min() {
        // tcp_rtt_estimator(): srtt = r, rttvar = max(2 r, rto_min); RTO = srtt + rttvar.
        let mut est = linux(200 * MS);
        est.on_sample(100 * MS, 100 * MS, 0, 10);
        assert_eq!((est.srtt(), est.rto()), (Some(100 * MS), 300 * MS));
        let mut small = linux(200 * MS);
        small.on_sample(50 * MS, 50 * MS, 0, 10);
        assert_eq!(small.rto(), 50 * MS + 200 * MS, "rto_min bounds rttvar, the RTO is above it");
    }

    #[test]
    fn linux_keeps_the_rounds_largest_deviation_and_lets_it_fall_once_a_round() {
        // A spike: mdev (x4) = 3/4 · 200 + 100 = 250 ms, above rttvar (200): rttvar 250.
        let mut est = linux(200 * MS);
        est.on_sample(100 * MS, 100 * MS, 0, 10);
        est.on_sample(200 * MS, 200 * MS, 5, 10);
        assert_eq!(est.srtt(), Some(112_500_000));
        assert_eq!(est.rto(), 112_500_000 + 250 * MS);
        // Back to 100 ms within the round (snd_una 8 < rtt_seq 10): the falling sample moves
        // mdev by 1/32 only and rttvar keeps the round's largest.
        est.on_sample(100 * MS, 100 * MS, 8, 12);
        let rto_in_round = est.rto();
        assert_eq!(rto_in_round, est.srtt().unwrap() + 250 * MS);
        // The round ends (snd_una 11 > 10): rttvar falls by a quarter of its excess over the
        // round's largest mdev (250): it stays; the next round's largest is at least rto_min.
        est.on_sample(100 * MS, 100 * MS, 11, 20);
        assert_eq!(est.rto(), est.srtt().unwrap() + 250 * MS);
        est.on_sample(100 * MS, 100 * MS, 21, 30);
        // mdev_max was reset to rto_min (200) at the last round's end and mdev stayed below it:
        // rttvar = 250 - (250 - 200) / 4.
        assert_eq!(est.rto(), est.srtt().unwrap() + 237_500_000);
    }

    #[test]
    fn rfc6298_falls_faster_than_linux_after_a_spike() {
        let mut rfc_spec = spec(200 * MS);
        rfc_spec.granularity = 200 * MS;
        let (mut rfc, mut lin) = (RttEstimator::new(rfc_spec), linux(200 * MS));
        for (k, r) in [100, 400, 100, 100, 100, 100].into_iter().enumerate() {
            let k = k as u64;
            rfc.on_sample(r * MS, r * MS, k, k + 1);
            lin.on_sample(r * MS, r * MS, k, k + 1);
        }
        assert!(lin.rto() > rfc.rto(), "linux {} rfc {}", lin.rto(), rfc.rto());
    }
}
