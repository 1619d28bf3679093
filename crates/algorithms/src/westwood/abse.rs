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
//! * **Bounded history** (`history_slot_ns`, [`HISTORY_SLOTS`]): eq. 2-3 sum the bytes of the
//!   ACKs of the last `T_k` / RTT, so the sender must remember recent ACKs. They are kept in
//!   time slots: an ACK that arrives less than the slot width `q` after the *start* time of the
//!   newest slot is merged into it (its bytes are added, the start time stays), otherwise it
//!   opens a new slot stamped with its own arrival time. A slot counts in a window iff its start
//!   time is inside it (`t > now - W`, the same test eq. 2 applies to single ACKs), so merging
//!   can only move the bytes of an ACK up to `q` earlier. At most [`HISTORY_SLOTS`] slots are
//!   kept (the oldest is dropped when a new one would exceed it), and slots older than
//!   `max(RTT, T_min)` (the longest window used) are dropped; bytes that left the history never
//!   count. `q` defaults to `T_min / 32` (1.5625 ms for the default 50 ms): ACKs of one burst
//!   share a slot, and 512 slots hold at least `512 q` = 16 `T_min` (800 ms) of history, more
//!   than any window as long as the smoothed RTT stays below that. With ACKs spaced `q` or more
//!   apart (e.g. every 4 ms at 2 Mb/s and 1000-byte segments) nothing is merged and the sums are
//!   exactly the per-ACK sums of eq. 2-3. This is what lets the eBPF core
//!   (`kernel/westwood_core.h`) compute the same sums with a fixed-size ring.
//!
//! [`AbseParams::sample`] chooses eq. 1 as written, the trapezoid `(s_k + s_{k-1}) / 2` (the
//! default), or interval sampling, `alpha_k s^_{k-1} + (1 - alpha_k) s_k` ([`Sampling`], see
//! `filter.rs`).

use super::filter::{tustin_coefficient, Sampling};
use super::{BandwidthEstimator, PathState};
use crate::registry::{Param, ParamKind, ParamValues};
use std::collections::VecDeque;

/// Most history slots an estimator keeps (`WWC_ABSE_SLOTS` of `kernel/westwood_core.h`).
pub const HISTORY_SLOTS: usize = 512;

/// Default slot width as a fraction of `T_min`: `q = T_min / HISTORY_SLOT_DIVISOR`.
pub const HISTORY_SLOT_DIVISOR: u64 = 32;

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
    /// Width `q` of a history slot, ns: an ACK less than `q` after the start of the newest slot
    /// is merged into it. `None`: `t_min_ns / 32` (see the module notes). Values below 1 ns act
    /// as 1 ns (only ACKs at the same instant share a slot; the C core reads 0 as the default).
    pub history_slot_ns: Option<u64>,
    /// Which samples eq. 1 averages: [`Sampling::Trapezoid`] (as seed 004 writes it, the
    /// default) or [`Sampling::Interval`].
    pub sample: Sampling,
}

impl Default for AbseParams {
    fn default() -> Self {
        AbseParams {
            t_min_ns: 50_000_000,
            n: 10.0,
            u_max_bps: None,
            epsilon: 0.6,
            beta: 0.6,
            history_slot_ns: None,
            sample: Sampling::Trapezoid,
        }
    }
}

impl AbseParams {
    /// The `[tcp] westwood_abse = { ... }` keys (crate::registry).
    pub const SCHEMA: &'static [Param] = &[
        Param { key: "t_min", kind: ParamKind::FilterTime },
        Param { key: "n", kind: ParamKind::Number { min: 0.0, max: f64::INFINITY } },
        Param { key: "u_max", kind: ParamKind::RateOrAuto },
        Param { key: "epsilon", kind: ParamKind::Number { min: 0.0, max: 1.0 } },
        Param { key: "beta", kind: ParamKind::Number { min: 0.0, max: 1.0 } },
        Param { key: "sample", kind: ParamKind::Sampling },
        Param { key: "acked_count", kind: ParamKind::AckedCount },
    ];

    /// The defaults, with what a scenario set.
    pub fn from_values(v: &ParamValues) -> Self {
        let d = AbseParams::default();
        AbseParams {
            t_min_ns: v.nanos("t_min").unwrap_or(d.t_min_ns),
            n: v.number("n").unwrap_or(d.n),
            u_max_bps: v.rate("u_max").unwrap_or(d.u_max_bps),
            epsilon: v.number("epsilon").unwrap_or(d.epsilon),
            beta: v.number("beta").unwrap_or(d.beta),
            sample: v.sampling("sample").unwrap_or(d.sample),
            ..d
        }
    }

    /// The slot width `q` in effect, ns (at least 1).
    pub fn slot_width_ns(&self) -> u64 {
        self.history_slot_ns.unwrap_or(self.t_min_ns / HISTORY_SLOT_DIVISOR).max(1)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct AbseEstimator {
    params: AbseParams,
    /// History slots (start time, bytes reported by the ACKs merged into the slot), oldest
    /// first; start times strictly increase. At most [`HISTORY_SLOTS`].
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

    /// Record an ACK in the history (merging it into the newest slot if that slot started less
    /// than `q` ago), then drop the slots beyond [`HISTORY_SLOTS`] and those older than `keep`.
    fn record(&mut self, now: u64, bytes: u64, keep: u64) {
        let q = self.params.slot_width_ns();
        match self.history.back_mut() {
            Some((start, sum)) if now.saturating_sub(*start) < q => *sum += bytes,
            _ => {
                self.history.push_back((now, bytes));
                if self.history.len() > HISTORY_SLOTS {
                    self.history.pop_front();
                }
            }
        }
        while self.history.front().is_some_and(|&(t, _)| t + keep < now) {
            self.history.pop_front();
        }
    }

    /// Bytes of the history slots whose start time is in `(now - window, now]` (all of them when
    /// `window > now`).
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

    /// Number of history slots held (at most [`HISTORY_SLOTS`]).
    pub fn history_slots(&self) -> usize {
        self.history.len()
    }
}

impl BandwidthEstimator for AbseEstimator {
    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, path: &PathState) {
        let p = self.params;
        let rtt = path.smoothed_rtt_ns.unwrap_or(p.t_min_ns).max(1);
        let rtt_min = path.min_rtt_ns.unwrap_or(rtt);
        self.record(now_ns, delivered_bytes, rtt.max(p.t_min_ns));
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
        self.estimate = p.sample.step(alpha, self.estimate, sample, self.previous_sample);
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

    #[test]
    fn the_slot_width_defaults_to_t_min_over_32() {
        assert_eq!(AbseParams::default().slot_width_ns(), 1_562_500);
        let p = AbseParams { t_min_ns: 20 * MS, ..AbseParams::default() };
        assert_eq!(p.slot_width_ns(), 625_000);
        assert_eq!(AbseParams { history_slot_ns: Some(0), ..p }.slot_width_ns(), 1);
        assert_eq!(AbseParams { history_slot_ns: Some(7), ..p }.slot_width_ns(), 7);
    }

    #[test]
    fn acks_less_than_a_slot_after_its_start_share_it_and_count_from_its_start() {
        let mut e = AbseEstimator::new(AbseParams::default());
        let keep = 1000 * MS;
        for (t, bytes) in
            [(10 * MS, 100), (10 * MS + 500_000, 200), (11 * MS + 562_499, 300), (11 * MS + 562_500, 400)]
        {
            e.record(t, bytes, keep);
        }
        assert_eq!(e.history, VecDeque::from(vec![(10 * MS, 600), (11 * MS + 562_500, 400)]));
        // A slot counts iff its start is in (now - W, now]: all three merged ACKs count from 10 ms.
        let now = 60 * MS;
        assert_eq!(e.bytes_within(now, 50 * MS), 400);
        assert_eq!(e.bytes_within(now, 50 * MS + 1), 1000);
        assert_eq!(e.bytes_within(now, 2 * now), 1000);
    }

    #[test]
    fn the_history_is_bounded_by_its_slot_count() {
        // An ACK every 100 us for 1 s, windows of 2 s: 16 ACKs per slot (a new one every 1.6 ms),
        // 625 slots opened, only the newest 512 kept; the bytes of the dropped ones no longer
        // count.
        let mut e = AbseEstimator::new(AbseParams::default());
        for k in 0..10_000u64 {
            e.record(k * 100_000, 1000, 2000 * MS);
        }
        assert_eq!(e.history_slots(), HISTORY_SLOTS);
        let newest: u64 = e.history.iter().map(|&(_, b)| b).sum();
        assert_eq!(newest, 512 * 16 * 1000);
        assert_eq!(e.history.front().unwrap().0, (625 - 512) * 1_600_000);
        assert_eq!(e.bytes_within(999_900_000, 2000 * MS), newest);
    }

    #[test]
    fn acks_spaced_by_a_slot_or_more_are_never_merged() {
        // The 4 ms clock of the tests above: identical to a history of single ACKs (q = 1 ns).
        for cwnd in [10_000, 100_000] {
            let mut slotted = AbseEstimator::new(AbseParams::default());
            let mut single =
                AbseEstimator::new(AbseParams { history_slot_ns: Some(1), ..AbseParams::default() });
            for k in 0..2000u64 {
                slotted.on_ack(k * 4 * MS, 1000, &path(cwnd));
                single.on_ack(k * 4 * MS, 1000, &path(cwnd));
                assert_eq!(slotted.estimate_bps(), single.estimate_bps());
            }
            assert_eq!(slotted.history_slots(), single.history_slots());
        }
    }

    #[test]
    fn interval_sampling_changes_only_the_eq_1_step() {
        // Same stream, both choices: the instability, T_k and tau are the same; eq. 1 differs by
        // (1 - alpha) (s_k - s_{k-1}) / 2 at each step.
        let mut trapezoid = AbseEstimator::new(AbseParams::default());
        let mut interval =
            AbseEstimator::new(AbseParams { sample: Sampling::Interval, ..AbseParams::default() });
        let mut t = 0;
        let mut before = (0.0, 0.0);
        for k in 0..400u64 {
            t += if k % 10 < 5 { MS } else { 7 * MS };
            before = (interval.estimate_bps(), interval.previous_sample);
            trapezoid.on_ack(t, 1000, &path(10_000));
            interval.on_ack(t, 1000, &path(10_000));
            assert_eq!(trapezoid.instability_bps(), interval.instability_bps());
            assert_eq!(trapezoid.sampling_interval_ns(), interval.sampling_interval_ns());
            assert_eq!(trapezoid.tau_ns(), interval.tau_ns());
        }
        let alpha = tustin_coefficient(interval.tau_ns(), 7.0 * MS as f64);
        let expected = alpha * before.0 + (1.0 - alpha) * interval.previous_sample;
        assert!((interval.estimate_bps() - expected).abs() < 1e-6 * expected, "{}", interval.estimate_bps());
        assert_ne!(interval.estimate_bps(), trapezoid.estimate_bps());
        assert!(before.1 > 0.0);
    }
}
