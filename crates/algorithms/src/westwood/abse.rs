//! TCPW ABSE, Adaptive Bandwidth Share Estimation (seed 004 §2.1, after Wang et al. 2002).
//!
//! The Tustin filter of TCPW (eq. 1) with two adaptations:
//! * **adaptive sampling** (eq. 2-4): the sample `s_k` is the data reported in the last `T_k`
//!   over `T_k`. A throughput filter `Th_k = eps Th_{k-1} + (1-eps) * (data in the last RTT)/RTT`
//!   (eps = 0.6) measures the congestion level: when `Th_k * RTT > cwin` the path is not
//!   congested and `T_k = T_min`; otherwise `T_k = RTT (cwin - Th_k RTTmin) / cwin`.
//! * **adaptive gain** (eq. 5-6): the instability `U_k = beta U_{k-1} + (1-beta)|s_k - s_{k-1}|`
//!   (beta = 0.6) sets `tau_k = RTT + N RTT U_k / U_max`.
//!
//! RTT is TCP's smoothed RTT (seed 004: "obtained from the smoothed RTT estimated in TCP").
//!
//! Choices the seed leaves open (all settable through [`AbseParams`]):
//! * `T_min` = 50 ms, the floor Westwood+ puts on its sampling window for the same reason:
//!   enough ACKs per sample at moderate rates. `T_k` from eq. 4 is also held at or above
//!   `T_min`, since it reaches 0 as `Th_k RTTmin` approaches `cwin`.
//! * `N` = 10: `tau_k` ranges from one RTT to 11 RTTs (TCPW's fixed 500 ms is about 5 RTTs of
//!   the seed papers' 100 ms paths).
//! * `U_max` = the largest `U_k` seen so far on the connection (`None`), so `U_k/U_max` is in
//!   [0, 1]; a fixed value (bits/s) can be given instead, and the ratio is then capped at 1.
//! * Before the first RTT sample, `T_min` stands in for RTT.
//! * `alpha_k` is clamped at 0 if an ACK gap exceeds `2 tau_k` (the seed has no virtual samples).

use super::filter::{tustin_coefficient, tustin_step};
use super::{BandwidthEstimator, PathState};
use std::collections::VecDeque;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AbseParams {
    pub t_min_ns: u64,
    pub n: f64,
    /// Fixed U_max in bits/s, or `None` for the running maximum.
    pub u_max_bps: Option<f64>,
    /// Throughput filter gain epsilon (eq. 3).
    pub epsilon: f64,
    /// Instability filter gain beta (eq. 5).
    pub beta: f64,
}

impl Default for AbseParams {
    fn default() -> Self {
        AbseParams { t_min_ns: 50_000_000, n: 10.0, u_max_bps: None, epsilon: 0.6, beta: 0.6 }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AbseEstimator {
    params: AbseParams,
    /// (arrival time, bytes reported) of recent ACKs, oldest first.
    history: VecDeque<(u64, u64)>,
    last_ack: Option<u64>,
    /// Th_k, bits/s.
    throughput: Option<f64>,
    /// s_{k-1}, bits/s.
    previous_sample: f64,
    /// U_k and the largest U seen.
    instability: f64,
    max_instability: f64,
    /// The estimate, bits/s.
    estimate: f64,
    /// T_k and tau_k of the last step, ns (for traces).
    last_interval_ns: u64,
    last_tau_ns: f64,
}

impl AbseEstimator {
    pub fn new(params: AbseParams) -> Self {
        AbseEstimator {
            params,
            history: VecDeque::new(),
            last_ack: None,
            throughput: None,
            previous_sample: 0.0,
            instability: 0.0,
            max_instability: 0.0,
            estimate: 0.0,
            last_interval_ns: 0,
            last_tau_ns: 0.0,
        }
    }

    /// Bytes reported by ACKs in `(now - window, now]`.
    fn bytes_within(&self, now: u64, window: u64) -> u64 {
        let since = now.saturating_sub(window);
        self.history.iter().rev().take_while(|&&(t, _)| t > since || window > now).map(|&(_, d)| d).sum()
    }

    /// T_k of the last step, ns.
    pub fn sampling_interval_ns(&self) -> u64 {
        self.last_interval_ns
    }

    /// tau_k of the last step, ns.
    pub fn tau_ns(&self) -> f64 {
        self.last_tau_ns
    }

    pub fn instability_bps(&self) -> f64 {
        self.instability
    }
}

impl BandwidthEstimator for AbseEstimator {
    const NAME: &'static str = "westwood-abse";

    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, path: &PathState) {
        let p = self.params;
        let rtt = path.smoothed_rtt_ns.unwrap_or(p.t_min_ns).max(1);
        let rtt_min = path.min_rtt_ns.unwrap_or(rtt);
        self.history.push_back((now_ns, delivered_bytes));
        let keep = rtt.max(p.t_min_ns);
        while self.history.front().is_some_and(|&(t, _)| t + keep < now_ns) {
            self.history.pop_front();
        }
        let Some(last_ack) = self.last_ack.replace(now_ns) else {
            return; // the first ACK only starts the clock
        };

        // eq. 3: throughput over the last RTT, smoothed.
        let recent = self.bytes_within(now_ns, rtt) as f64 * 8.0 * 1e9 / rtt as f64;
        let throughput = match self.throughput {
            None => recent,
            Some(previous) => p.epsilon * previous + (1.0 - p.epsilon) * recent,
        };
        self.throughput = Some(throughput);

        // eq. 4: the sampling interval from the congestion level.
        let cwnd_bits = path.cwnd as f64 * 8.0;
        let rtt_s = rtt as f64 / 1e9;
        let interval = if throughput * rtt_s > cwnd_bits || cwnd_bits == 0.0 {
            p.t_min_ns
        } else {
            let fraction = (cwnd_bits - throughput * rtt_min as f64 / 1e9) / cwnd_bits;
            ((rtt as f64 * fraction) as u64).max(p.t_min_ns)
        };
        self.last_interval_ns = interval;

        // eq. 2: the bandwidth share sample.
        let sample = self.bytes_within(now_ns, interval) as f64 * 8.0 * 1e9 / interval as f64;

        // eq. 5-6: instability and the filter gain.
        self.instability = p.beta * self.instability + (1.0 - p.beta) * (sample - self.previous_sample).abs();
        self.max_instability = self.max_instability.max(self.instability);
        let u_max = p.u_max_bps.unwrap_or(self.max_instability);
        let ratio = if u_max > 0.0 { (self.instability / u_max).min(1.0) } else { 0.0 };
        let tau = rtt as f64 * (1.0 + p.n * ratio);
        self.last_tau_ns = tau;

        // eq. 1
        let delta = now_ns.saturating_sub(last_ack) as f64;
        let alpha = tustin_coefficient(tau, delta).max(0.0);
        self.estimate = tustin_step(alpha, self.estimate, sample, self.previous_sample);
        self.previous_sample = sample;
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

    fn path(cwnd: u64) -> PathState {
        PathState {
            cwnd,
            smoothed_rtt_ns: Some(100 * MS),
            latest_rtt_ns: Some(100 * MS),
            min_rtt_ns: Some(100 * MS),
        }
    }

    #[test]
    fn uncongested_path_samples_over_t_min_and_converges_to_the_rate() {
        let mut e = AbseEstimator::new(AbseParams::default());
        // 1000 bytes every 4 ms = 2 Mb/s; Th*RTT = 25 KB exceeds cwnd = 10 KB: not congested.
        for k in 0..5000u64 {
            e.on_ack(k * 4 * MS, 1000, &path(10_000));
        }
        assert_eq!(e.sampling_interval_ns(), 50 * MS);
        // Eq. 2 counts the ACKs in (t_k - T_k, t_k]: 13 ACKs of 1000 bytes in 50 ms when they
        // come every 4 ms, so each sample is 2.08 Mb/s — the window-edge bias of the formula.
        assert!((e.estimate_bps() - 13.0 * 8000.0 / 0.05).abs() < 1.0, "{}", e.estimate_bps());
    }

    #[test]
    fn congestion_lengthens_the_sampling_interval_per_eq_4() {
        let mut e = AbseEstimator::new(AbseParams::default());
        // 2 Mb/s delivered, cwnd 100 KB >> Th*RTT = 25 KB: T = RTT (cwnd - Th RTTmin)/cwnd.
        for k in 0..5000u64 {
            e.on_ack(k * 4 * MS, 1000, &path(100_000));
        }
        let expected = 100.0 * (100_000.0 - 25_000.0) / 100_000.0;
        let got = e.sampling_interval_ns() as f64 / MS as f64;
        assert!((got - expected).abs() < 1.0, "T_k = {got} ms, expected {expected}");
    }

    #[test]
    fn a_steady_stream_has_low_instability_and_tau_near_one_rtt() {
        let mut e = AbseEstimator::new(AbseParams { u_max_bps: Some(1e6), ..AbseParams::default() });
        for k in 0..5000u64 {
            e.on_ack(k * 4 * MS, 1000, &path(10_000));
        }
        assert!(e.instability_bps() < 1e5, "U = {}", e.instability_bps());
        assert!(e.tau_ns() < 2.0 * (100 * MS) as f64, "tau = {}", e.tau_ns());
        // Jittery stream: alternate 2 and 6 ms gaps; instability and tau rise.
        let mut jittery = AbseEstimator::new(AbseParams { u_max_bps: Some(1e6), ..AbseParams::default() });
        let mut t = 0;
        for k in 0..5000u64 {
            t += if k % 50 < 25 { MS } else { 7 * MS };
            jittery.on_ack(t, 1000, &path(10_000));
        }
        assert!(jittery.instability_bps() > e.instability_bps());
        assert!(jittery.tau_ns() > e.tau_ns());
    }
}
