//! The authors' own ns-2 agent: UCLA `tcp-westwood.cc` v1.3 (2002), `Agent/TCP/Westwood` (on
//! Reno) and `Agent/TCP/WestwoodNR` (on NewReno). Both are this estimator in the controller; the
//! recovery (Reno or NewReno, and NewReno's window inflation) is the sender's. What follows is
//! our description of the agent's rules, not its code.
//!
//! **Per ACK.** AckedCount with the agent's rule ([`AckedCountRule::Ucla`]: the controller runs
//! it, and [`Westwood::new`](super::Westwood::new) picks it from
//! [`BandwidthEstimator::acked_count_rule`]); the sample is the credited bits (`8 * mss` per
//! segment) over the ACK gap `Delta`, smoothed by one of four filters (the agent's
//! `filter_type_`, [`UclaFilter`]):
//!
//! | type | filter |
//! |---|---|
//! | 0 | EWMA `BWE = a BWE + (1 - a) b`, `a` = `fr_alpha_` (0.9) |
//! | 1 | `BWE = 0.9047 BWE + 0.0476 (b + b_prev)` (Tustin at `tau/Delta` = 10, the agent's decimals) |
//! | 2 | `BWE = 0.93548 BWE + 0.03225 (b + b_prev)` (Tustin at `tau/Delta` = 15) |
//! | 3 | Tustin with time constant `tau` (`tau_`, 1 s) and idle periods, below |
//!
//! Filter 3: the gap holds `idle = floor(2 Delta / tau)` whole periods of `tau/2`, which are
//! taken out of it (`Delta -= idle tau/2`); if what is left is under 10 ms and `idle > 0`, one
//! period is given back as the sample's interval (`Delta = tau/2`, `idle -= 1`: the few ms left
//! are dropped). Each idle period is a null sample at
//! `tau/2`: `BWE = 0.6 BWE + 0.2 b_prev`, then `b_prev = 0`. The ACK's sample is taken over the
//! *remaining* `Delta`, `b = bits / Delta`, and with `k = 2 tau / Delta`:
//! `BWE = BWE (k - 1)/(k + 1) + (b + b_prev)/(k + 1)`, `b_prev = b`. (So a gap of 2.3 s at
//! `tau` = 1 s is 4 idle periods and a sample over 0.3 s; a gap of exactly 1 s is 2 periods and
//! nothing left, hence 1 idle period and a sample over 0.5 s.)
//!
//! With [`Sampling::Interval`] (not the agent's: the option of `docs/westwood.md`) every
//! `(b + b_prev)` becomes `2 b` and an idle period multiplies the estimate by 0.6; filter 0 has
//! no trapezoid and ignores the choice.
//!
//! **RTTmin** is kept in ns-2's coarse clock ticks: the smallest `max(1, floor(rtt / tick +
//! phase)) * tick` over the RTT samples, starting from 5 s. ns-2 (no timestamps) counts
//! `floor((rtt + tickoff) / tick)` ticks with `tickoff` the send time's phase in the tick; we
//! take the phase as 0. The RTT samples already include any delayed-ACK wait, as ns-2's do.
//!
//! **Loss rules** (through [`BandwidthEstimator::reduction_factor`]): the factor `a`
//! (`fr_a_`, 0 at the start) changes at every loss: `+0.25` after 3 DUPACKs and `+1` after a
//! timeout when in slow start (`ssthresh > cwnd`), at most 4; `a = 1` otherwise. After 3
//! DUPACKs the threshold is **not** divided by `a`: `ssthresh = max(2, floor(BWE RTTmin /
//! seg_size))`, `cwnd = ssthresh` only if `cwnd > ssthresh`. After a timeout `ssthresh = max(2,
//! floor(BWE RTTmin / seg_size / a))`, `cwnd = 1`. A DUPACK loss in slow start thus raises the
//! `a` a later timeout starts from. Because `a` starts at 0, the first timeout sets it to 1
//! either way (slow start: 0 + 1; congestion avoidance: 1), and a first DUPACK loss in slow
//! start leaves it at 0.25.
//!
//! Choices of ours, where the agent gives no rule we can reproduce:
//! * the filter type defaults to 3: the agent's constructor sets `filter_type_` 1, the UCLA
//!   distribution's `ns-default.tcl` block sets 3 (reported to us; we could not read it);
//! * the first ACK only starts the clock (its credit is not a sample), as [`TustinFilter`] does;
//! * ACKs at the same instant (`Delta = 0`, an infinite sample in the agent) are carried into
//!   the next sample, as [`TustinFilter`] does;
//! * the estimate does not decay at a loss: the agent's filter moves only on ACKs, so a timeout
//!   uses the estimate of the last ACK (the idle periods are applied at the next ACK);
//! * the tick phase is 0 (above).
//!
//! [`TustinFilter`]: super::TustinFilter

use super::filter::Sampling;
use super::{AckedCountRule, BandwidthEstimator, LossKind, PathState};
use crate::registry::{Param, ParamKind, ParamValues};

/// Nanoseconds per second, as f64.
const NS: f64 = 1e9;

/// Filter 3: a remainder shorter than this after taking out the idle periods gives one back.
pub const SHORT_REMAINDER_NS: u64 = 10_000_000;
/// Filter 3's idle period (a null sample at `Delta = tau/2`): `BWE = 0.6 BWE + 0.2 b_prev`.
pub const IDLE_ESTIMATE_WEIGHT: f64 = 0.6;
pub const IDLE_SAMPLE_WEIGHT: f64 = 0.2;
/// The agent's factor `a` (`fr_a_`): its value at the start, its steps, its bound.
pub const INITIAL_REDUCTION_FACTOR: f64 = 0.0;
pub const DUPACK_FACTOR_STEP: f64 = 0.25;
pub const TIMEOUT_FACTOR_STEP: f64 = 1.0;
pub const MAX_REDUCTION_FACTOR: f64 = 4.0;

/// The agent's `filter_type_`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UclaFilter {
    /// Type 0: EWMA with gain `fr_alpha`.
    Ewma,
    /// Type 1: `0.9047 BWE + 0.0476 (b + b_prev)`, the Tustin step at `tau/Delta` = 10 (19/21,
    /// 1/21) in the agent's decimals.
    TustinRatio10,
    /// Type 2: `0.93548 BWE + 0.03225 (b + b_prev)`, the Tustin step at `tau/Delta` = 15 (29/31,
    /// 1/31).
    TustinRatio15,
    /// Type 3: Tustin with time constant `tau` and idle periods of `tau/2` (the default).
    #[default]
    TimeConstant,
}

impl UclaFilter {
    /// Types 0 to 3, in order.
    pub const ALL: [UclaFilter; 4] =
        [UclaFilter::Ewma, UclaFilter::TustinRatio10, UclaFilter::TustinRatio15, UclaFilter::TimeConstant];

    /// The filter of `filter_type_` `t` (0-3).
    pub fn from_type(t: u8) -> Option<UclaFilter> {
        UclaFilter::ALL.get(usize::from(t)).copied()
    }

    /// The agent's `filter_type_` number.
    pub fn filter_type(self) -> u8 {
        match self {
            UclaFilter::Ewma => 0,
            UclaFilter::TustinRatio10 => 1,
            UclaFilter::TustinRatio15 => 2,
            UclaFilter::TimeConstant => 3,
        }
    }

    /// (weight of the estimate, weight of `b + b_prev`) of the constant-coefficient types 1
    /// and 2, as the agent writes them.
    pub fn constant_coefficients(self) -> Option<(f64, f64)> {
        match self {
            UclaFilter::TustinRatio10 => Some((0.9047, 0.0476)),
            UclaFilter::TustinRatio15 => Some((0.93548, 0.03225)),
            UclaFilter::Ewma | UclaFilter::TimeConstant => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UclaParams {
    /// `filter_type_`; default 3 (see the module notes).
    pub filter: UclaFilter,
    /// `tau_`, filter 3's time constant: 1 s.
    pub tau_ns: u64,
    /// `fr_alpha_`, filter 0's gain: 0.9.
    pub fr_alpha: f64,
    /// ns-2's `tcp_tick_`, the RTT clock granularity: 10 ms (ns-2's default since 2002; 100 ms
    /// before).
    pub tick_ns: u64,
    /// RTTmin before the first RTT sample (the agent's initial value): 5 s.
    pub initial_rtt_min_ns: u64,
    /// [`Sampling::Trapezoid`] (the agent's, the default) or [`Sampling::Interval`].
    pub sample: Sampling,
}

impl Default for UclaParams {
    fn default() -> Self {
        UclaParams {
            filter: UclaFilter::TimeConstant,
            tau_ns: 1_000_000_000,
            fr_alpha: 0.9,
            tick_ns: 10_000_000,
            initial_rtt_min_ns: 5_000_000_000,
            sample: Sampling::Trapezoid,
        }
    }
}

impl UclaParams {
    /// The `[tcp] westwood_ucla = { ... }` keys (crate::registry), for both agents.
    pub const SCHEMA: &'static [Param] = &[
        Param {
            key: "filter",
            kind: ParamKind::Integer { min: 0, max: 3, beyond: "the agent has 0, 1, 2 and 3 (filter_type_)" },
        },
        Param { key: "tau", kind: ParamKind::FilterTime },
        Param { key: "alpha", kind: ParamKind::Number { min: 0.0, max: 1.0 } },
        Param { key: "tick", kind: ParamKind::ClockTick },
        Param { key: "initial_rtt_min", kind: ParamKind::Duration },
        Param { key: "sample", kind: ParamKind::Sampling },
        Param { key: "acked_count", kind: ParamKind::AckedCount },
    ];

    /// The defaults, with what a scenario set.
    pub fn from_values(v: &ParamValues) -> Self {
        let d = UclaParams::default();
        UclaParams {
            filter: v.integer("filter").map_or(d.filter, |t| {
                u8::try_from(t)
                    .ok()
                    .and_then(UclaFilter::from_type)
                    .expect("filter checked against the schema")
            }),
            tau_ns: v.nanos("tau").unwrap_or(d.tau_ns),
            fr_alpha: v.number("alpha").unwrap_or(d.fr_alpha),
            tick_ns: v.nanos("tick").unwrap_or(d.tick_ns),
            initial_rtt_min_ns: v.nanos("initial_rtt_min").unwrap_or(d.initial_rtt_min_ns),
            sample: v.sampling("sample").unwrap_or(d.sample),
        }
    }
}

/// An RTT sample as ns-2 measures it without timestamps, in whole ticks of at least one
/// (`max(1, floor(rtt / tick))`, phase 0), converted back to ns.
pub fn coarse_rtt_ns(rtt_ns: u64, tick_ns: u64) -> u64 {
    (rtt_ns / tick_ns).max(1) * tick_ns
}

/// Filter 3's split of an ACK gap: (idle periods of `tau/2`, the remaining interval in ns).
pub fn split_gap(gap_ns: u64, tau_ns: u64) -> (u64, f64) {
    let half = tau_ns as f64 / 2.0;
    let mut idle = gap_ns.saturating_mul(2) / tau_ns;
    let mut remaining = gap_ns as f64 - idle as f64 * half;
    if remaining < SHORT_REMAINDER_NS as f64 && idle > 0 {
        remaining = half;
        idle -= 1;
    }
    (idle, remaining)
}

#[derive(Debug, Clone, PartialEq)]
pub struct UclaEstimator {
    params: UclaParams,
    /// BWE, bits/s.
    estimate: f64,
    /// `b_prev`, bits/s.
    previous_sample: f64,
    /// Time of the last ACK that gave a sample; `None` before the first ACK.
    last_time: Option<u64>,
    /// Bytes of ACKs that arrived at the same instant as the last sample.
    carried_bytes: u64,
    /// RTTmin in coarse ticks, ns.
    rtt_min_ns: u64,
    /// The factor `a` (`fr_a_`).
    a: f64,
    /// Idle periods applied so far (filter 3).
    idle_periods: u64,
    /// The interval the last sample was taken over, ns (filter 3: what the idle periods left).
    last_interval_ns: f64,
}

impl UclaEstimator {
    pub fn new(params: UclaParams) -> Self {
        assert!(params.tau_ns > 0 && params.tick_ns > 0, "tau and the tick must be positive");
        UclaEstimator {
            params,
            estimate: 0.0,
            previous_sample: 0.0,
            last_time: None,
            carried_bytes: 0,
            rtt_min_ns: params.initial_rtt_min_ns,
            a: INITIAL_REDUCTION_FACTOR,
            idle_periods: 0,
            last_interval_ns: 0.0,
        }
    }

    pub fn params(&self) -> &UclaParams {
        &self.params
    }

    /// The factor `a` as the last loss left it.
    pub fn reduction_factor_value(&self) -> f64 {
        self.a
    }

    /// Filter 3's idle periods applied so far.
    pub fn idle_periods(&self) -> u64 {
        self.idle_periods
    }

    /// The interval the last sample was taken over, ns.
    pub fn last_interval_ns(&self) -> f64 {
        self.last_interval_ns
    }

    /// The smoothing step of types 1-3 for a sample `b`: `w_e BWE + w_s (b + b_prev)`, or
    /// `w_e BWE + 2 w_s b` with interval sampling.
    fn trapezoid_or_interval(&self, estimate_weight: f64, sample_weight: f64, sample: f64) -> f64 {
        match self.params.sample {
            Sampling::Trapezoid => {
                estimate_weight * self.estimate + sample_weight * (sample + self.previous_sample)
            }
            Sampling::Interval => estimate_weight * self.estimate + sample_weight * 2.0 * sample,
        }
    }

    /// Filter 3's null samples for `idle` periods of `tau/2`. Once the estimate and `b_prev` are
    /// both 0 further periods change nothing, which bounds the work of any silence.
    fn apply_idle_periods(&mut self, idle: u64) {
        for _ in 0..idle {
            if self.estimate == 0.0 && self.previous_sample == 0.0 {
                break;
            }
            self.estimate = self.trapezoid_or_interval(IDLE_ESTIMATE_WEIGHT, IDLE_SAMPLE_WEIGHT, 0.0);
            self.previous_sample = 0.0;
        }
        self.idle_periods += idle;
    }

    /// One ACK's sample of `bits` over the gap `gap_ns` (> 0).
    fn filter(&mut self, gap_ns: u64, bits: f64) {
        let mut interval = gap_ns as f64;
        if self.params.filter == UclaFilter::TimeConstant {
            let (idle, remaining) = split_gap(gap_ns, self.params.tau_ns);
            self.apply_idle_periods(idle);
            interval = remaining;
        }
        let sample = bits * NS / interval;
        self.estimate = match self.params.filter {
            UclaFilter::Ewma => {
                let a = self.params.fr_alpha;
                a * self.estimate + (1.0 - a) * sample
            }
            UclaFilter::TustinRatio10 | UclaFilter::TustinRatio15 => {
                let (estimate_weight, sample_weight) =
                    self.params.filter.constant_coefficients().expect("types 1 and 2");
                self.trapezoid_or_interval(estimate_weight, sample_weight, sample)
            }
            UclaFilter::TimeConstant => {
                let k = 2.0 * self.params.tau_ns as f64 / interval;
                self.trapezoid_or_interval((k - 1.0) / (k + 1.0), 1.0 / (k + 1.0), sample)
            }
        };
        self.previous_sample = sample;
        self.last_interval_ns = interval;
    }
}

impl BandwidthEstimator for UclaEstimator {
    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, _path: &PathState) {
        let Some(last) = self.last_time else {
            self.last_time = Some(now_ns);
            return;
        };
        let gap = now_ns.saturating_sub(last);
        let bytes = delivered_bytes + self.carried_bytes;
        if gap == 0 {
            self.carried_bytes = bytes;
            return;
        }
        self.carried_bytes = 0;
        self.filter(gap, bytes as f64 * 8.0);
        self.last_time = Some(now_ns);
    }

    /// No decay: the agent's filter moves only on ACKs.
    fn estimate_at(&mut self, _now_ns: u64) -> f64 {
        self.estimate
    }

    fn estimate_bps(&self) -> f64 {
        self.estimate
    }

    /// The agent's `fr_a_`: updated at both kinds of loss, divides only the timeout's threshold.
    fn reduction_factor(&mut self, event: LossKind, in_slow_start: bool) -> f64 {
        let step = match event {
            LossKind::DuplicateAcks => DUPACK_FACTOR_STEP,
            LossKind::Timeout => TIMEOUT_FACTOR_STEP,
        };
        self.a = if in_slow_start { (self.a + step).min(MAX_REDUCTION_FACTOR) } else { 1.0 };
        match event {
            LossKind::DuplicateAcks => 1.0,
            LossKind::Timeout => self.a,
        }
    }

    fn on_rtt_sample(&mut self, rtt_ns: u64) {
        self.rtt_min_ns = self.rtt_min_ns.min(coarse_rtt_ns(rtt_ns, self.params.tick_ns));
    }

    fn rtt_min_ns(&self, _path: &PathState) -> Option<u64> {
        Some(self.rtt_min_ns)
    }

    /// `dupack_action()` lowers `cwnd_` only if it is above the new `ssthresh_`; ns-2's window
    /// is a double, so a window left alone keeps its fraction (`opencwnd()`'s `1/cwnd_` per ACK).
    fn keeps_window_progress(&self) -> bool {
        true
    }

    fn acked_count_rule(&self) -> AckedCountRule {
        AckedCountRule::Ucla
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const SECOND: u64 = 1_000_000_000;

    fn estimator(filter: UclaFilter, sample: Sampling) -> UclaEstimator {
        UclaEstimator::new(UclaParams { filter, sample, ..UclaParams::default() })
    }

    /// An estimator of `filter` that has seen one sample of 8 Mb/s (1000 bytes over 1 ms) after
    /// its first ACK at 0: returns it with (estimate, b_prev).
    fn after_one_sample(filter: UclaFilter, sample: Sampling) -> (UclaEstimator, f64, f64) {
        let mut e = estimator(filter, sample);
        let path = PathState::default();
        e.on_ack(0, 0, &path);
        e.on_ack(MS, 1000, &path);
        let (estimate, previous) = (e.estimate, e.previous_sample);
        assert_eq!(previous, 8e6);
        (e, estimate, previous)
    }

    #[test]
    fn filter_types_map_to_the_agent_numbers() {
        for t in 0..4u8 {
            assert_eq!(UclaFilter::from_type(t).unwrap().filter_type(), t);
        }
        assert_eq!(UclaFilter::from_type(4), None);
        assert_eq!(UclaParams::default().filter.filter_type(), 3);
        assert_eq!(UclaFilter::TustinRatio10.constant_coefficients(), Some((0.9047, 0.0476)));
        assert_eq!(UclaFilter::TustinRatio15.constant_coefficients(), Some((0.93548, 0.03225)));
        // The agent's decimals are the Tustin coefficients at tau/Delta = 10 and 15, rounded.
        assert!((0.9047f64 - 19.0 / 21.0).abs() < 1e-4 && (0.0476f64 - 1.0 / 21.0).abs() < 1e-4);
        assert!((0.93548f64 - 29.0 / 31.0).abs() < 1e-5 && (0.03225f64 - 1.0 / 31.0).abs() < 1e-5);
    }

    #[test]
    fn each_filter_type_has_its_coefficients() {
        let path = PathState::default();
        // The second sample: 1000 bytes over 4 ms = 2 Mb/s.
        let b = 2e6;
        for sample in Sampling::ALL {
            for filter in UclaFilter::ALL {
                let (mut e, before, previous) = after_one_sample(filter, sample);
                e.on_ack(5 * MS, 1000, &path);
                let trapezoid = sample == Sampling::Trapezoid;
                let (first, second) = match filter {
                    UclaFilter::Ewma => (0.1 * 8e6, 0.9 * before + 0.1 * b),
                    UclaFilter::TustinRatio10 | UclaFilter::TustinRatio15 => {
                        let (we, ws) = filter.constant_coefficients().unwrap();
                        let pair = if trapezoid { b + previous } else { 2.0 * b };
                        (if trapezoid { ws * 8e6 } else { 2.0 * ws * 8e6 }, we * before + ws * pair)
                    }
                    UclaFilter::TimeConstant => {
                        // k = 2 tau / Delta = 2000 (1 ms), then 500 (4 ms).
                        let first = if trapezoid { 8e6 / 2001.0 } else { 2.0 * 8e6 / 2001.0 };
                        let pair = if trapezoid { b + previous } else { 2.0 * b };
                        (first, before * 499.0 / 501.0 + pair / 501.0)
                    }
                };
                assert!((before - first).abs() < 1e-6, "{filter:?} {sample:?}: first {before} vs {first}");
                let got = e.estimate_bps();
                assert!((got - second).abs() < 1e-6, "{filter:?} {sample:?}: second {got} vs {second}");
            }
        }
    }

    #[test]
    fn a_gap_of_2_3_tau_is_four_idle_periods_and_a_sample_over_0_3_s() {
        assert_eq!(split_gap(2300 * MS, SECOND).0, 4);
        assert!((split_gap(2300 * MS, SECOND).1 - 300.0 * MS as f64).abs() < 1e-3);
        let path = PathState::default();
        for sample in Sampling::ALL {
            let (mut e, before, previous) = after_one_sample(UclaFilter::TimeConstant, sample);
            e.on_ack(MS + 2300 * MS, 3000, &path); // 24000 bits over the remaining 0.3 s: 80 kb/s
            assert_eq!(e.idle_periods(), 4);
            assert!((e.last_interval_ns() - 300.0 * MS as f64).abs() < 1e-3);
            let idle = match sample {
                // First idle period averages in b_prev, the others only decay.
                Sampling::Trapezoid => (0.6 * before + 0.2 * previous) * 0.6f64.powi(3),
                Sampling::Interval => before * 0.6f64.powi(4),
            };
            let k = 2.0 / 0.3;
            let b = 24_000.0 / 0.3;
            // b_prev is 0 after the idle periods: the trapezoid averages b with it.
            let weight = if sample == Sampling::Trapezoid { 1.0 } else { 2.0 };
            let expected = idle * (k - 1.0) / (k + 1.0) + weight * b / (k + 1.0);
            assert!(
                (e.estimate_bps() - expected).abs() < 1e-6,
                "{sample:?}: {} vs {expected}",
                e.estimate_bps()
            );
        }
    }

    #[test]
    fn a_gap_of_exactly_tau_gives_one_period_back() {
        // 2 idle periods leave nothing (< 10 ms): 1 idle period, a sample over tau/2.
        assert_eq!(split_gap(SECOND, SECOND), (1, 500.0 * MS as f64));
        // 9.9 ms left: a period is given back and the sample interval is tau/2 (the 9.9 ms are
        // dropped, as the agent sets Delta = tau/2); 10 ms left is a sample over 10 ms.
        assert_eq!(split_gap(SECOND + 9_900_000, SECOND), (1, 500.0 * MS as f64));
        assert_eq!(split_gap(SECOND + 10 * MS, SECOND), (2, 10.0 * MS as f64));
        // Gaps under tau/2 have no idle period, however short.
        assert_eq!(split_gap(3 * MS, SECOND), (0, 3.0 * MS as f64));
        assert_eq!(split_gap(499 * MS, SECOND), (0, 499.0 * MS as f64));
        let path = PathState::default();
        let (mut e, before, previous) = after_one_sample(UclaFilter::TimeConstant, Sampling::Trapezoid);
        e.on_ack(MS + SECOND, 1000, &path);
        assert_eq!(e.idle_periods(), 1);
        let idle = 0.6 * before + 0.2 * previous;
        let expected = idle * 3.0 / 5.0 + (8000.0 / 0.5) / 5.0; // k = 4
        assert!((e.estimate_bps() - expected).abs() < 1e-6);
    }

    #[test]
    fn the_other_filter_types_have_no_idle_periods() {
        let path = PathState::default();
        for filter in [UclaFilter::Ewma, UclaFilter::TustinRatio10, UclaFilter::TustinRatio15] {
            let (mut e, _, _) = after_one_sample(filter, Sampling::Trapezoid);
            e.on_ack(MS + 3 * SECOND, 1000, &path);
            assert_eq!(e.idle_periods(), 0, "{filter:?}");
            assert_eq!(e.last_interval_ns(), (3 * SECOND) as f64);
        }
    }

    #[test]
    fn rtt_min_is_the_smallest_coarse_sample_from_5_s() {
        let mut e = UclaEstimator::new(UclaParams::default());
        let path = PathState { min_rtt_ns: Some(7), ..PathState::default() };
        assert_eq!(e.rtt_min_ns(&path), Some(5 * SECOND), "the agent's initial RTTmin");
        e.on_rtt_sample(6 * SECOND);
        assert_eq!(e.rtt_min_ns(&path), Some(5 * SECOND), "above the initial value: no change");
        e.on_rtt_sample(104_900_000); // 10.49 ticks -> 10
        assert_eq!(e.rtt_min_ns(&path), Some(100 * MS));
        e.on_rtt_sample(109_999_999);
        assert_eq!(e.rtt_min_ns(&path), Some(100 * MS));
        e.on_rtt_sample(99_999_999); // 9.99 ticks -> 9
        assert_eq!(e.rtt_min_ns(&path), Some(90 * MS));
        e.on_rtt_sample(3 * MS); // under a tick: one tick
        assert_eq!(e.rtt_min_ns(&path), Some(10 * MS));
        e.on_rtt_sample(0);
        assert_eq!(e.rtt_min_ns(&path), Some(10 * MS));
        assert_eq!(coarse_rtt_ns(250 * MS, 100 * MS), 200 * MS, "ns-2 before 2002: 100 ms ticks");
    }

    #[test]
    fn the_factor_starts_at_0_and_divides_only_timeouts() {
        let mut e = UclaEstimator::new(UclaParams::default());
        let mut seen = Vec::new();
        for (event, slow_start) in [
            (LossKind::DuplicateAcks, true),  // a = 0.25, divisor 1
            (LossKind::Timeout, true),        // a = 1.25 (carried over from the DUPACK loss)
            (LossKind::Timeout, true),        // 2.25
            (LossKind::DuplicateAcks, true),  // 2.5, divisor 1
            (LossKind::Timeout, true),        // 3.5
            (LossKind::Timeout, true),        // 4 (capped)
            (LossKind::DuplicateAcks, true),  // 4 (capped), divisor 1
            (LossKind::DuplicateAcks, false), // congestion avoidance: 1
            (LossKind::Timeout, false),       // 1
            (LossKind::Timeout, true),        // 2
        ] {
            let divisor = e.reduction_factor(event, slow_start);
            seen.push((divisor, e.reduction_factor_value()));
        }
        assert_eq!(
            seen,
            vec![
                (1.0, 0.25),
                (1.25, 1.25),
                (2.25, 2.25),
                (1.0, 2.5),
                (3.5, 3.5),
                (4.0, 4.0),
                (1.0, 4.0),
                (1.0, 1.0),
                (1.0, 1.0),
                (2.0, 2.0)
            ]
        );
        // From a = 0, the first timeout gives a = 1 in either phase.
        for slow_start in [true, false] {
            let mut e = UclaEstimator::new(UclaParams::default());
            assert_eq!(e.reduction_factor(LossKind::Timeout, slow_start), 1.0);
        }
    }

    #[test]
    fn acks_at_the_same_instant_are_carried() {
        let path = PathState::default();
        let mut a = UclaEstimator::new(UclaParams::default());
        let mut b = a.clone();
        for (t, bytes) in [(0, 0), (10 * MS, 1000), (10 * MS, 1000), (20 * MS, 1000)] {
            a.on_ack(t, bytes, &path);
        }
        for (t, bytes) in [(0, 0), (10 * MS, 1000), (20 * MS, 2000)] {
            b.on_ack(t, bytes, &path);
        }
        assert_eq!(a.estimate_bps(), b.estimate_bps());
        assert!(a.estimate_bps().is_finite() && a.estimate_bps() > 0.0);
    }

    #[test]
    fn a_long_silence_ends_in_bounded_work() {
        let path = PathState::default();
        let (mut e, _, _) = after_one_sample(UclaFilter::TimeConstant, Sampling::Trapezoid);
        e.on_ack(MS + 3_600 * SECOND, 1000, &path); // an hour: 7,199 idle periods
        assert_eq!(e.idle_periods(), 7199);
        assert!(e.estimate_bps().is_finite());
        assert_eq!(e.estimate_at(MS + 7_200 * SECOND), e.estimate_bps(), "no decay at a loss");
    }
}
