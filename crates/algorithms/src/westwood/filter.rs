//! The TCPW bandwidth filter: a first-order low-pass filter discretised with the Tustin
//! (trapezoidal) rule, with a time-varying coefficient and virtual null samples (seed 000 §2.2).
//!
//! ```text
//! BWE_k = alpha_k * BWE_{k-1} + (1 - alpha_k) * (b_k + b_{k-1}) / 2
//! alpha_k = (2*tau - Delta_k) / (2*tau + Delta_k),   b_k = d_k / Delta_k
//! ```
//!
//! If `tau/m` passes without an ACK, the filter takes a virtual sample `b = 0` at that instant
//! (and every `tau/m` after it), so Delta never exceeds `tau/m` and the estimate decays as
//! `((2m-1)/(2m+1))^h` over `h` silent periods. There is no clock here: the virtual samples due
//! before an event are applied when the event arrives ([`TustinFilter::advance_to`]).
//!
//! The same step with a constant coefficient is the earlier filter of seed 001 §II (time constant
//! ten times the sampling time: alpha = 19/21), used by TCPW-TR.
//!
//! **Sampling** ([`Sampling`]): the paper's step averages the last two samples (the trapezoid,
//! [`Sampling::Trapezoid`], the default). Each sample `b_k = d_k / Delta_k` is the rate over its
//! own interval `(t_{k-1}, t_k]`, but the trapezoid gives the previous sample the weight
//! `(1 - alpha_k) / 2` of the *current* interval too: after a burst of closely spaced ACKs the
//! burst's high rate is stretched over the silence that follows, and the estimate over-reads
//! bursty ACK trains (docs/westwood.md has the measured factors). [`Sampling::Interval`] weights
//! each sample by its own interval instead: `BWE_k = alpha_k BWE_{k-1} + (1 - alpha_k) b_k`, and a
//! virtual null sample multiplies the estimate by alpha.

/// Nanoseconds per second, as f64.
const NS: f64 = 1e9;

/// `alpha = (2 tau - Delta) / (2 tau + Delta)`.
pub fn tustin_coefficient(tau_ns: f64, delta_ns: f64) -> f64 {
    (2.0 * tau_ns - delta_ns) / (2.0 * tau_ns + delta_ns)
}

/// One filter step: `alpha * estimate + (1 - alpha) * (sample + previous_sample) / 2`.
pub fn tustin_step(alpha: f64, estimate: f64, sample: f64, previous_sample: f64) -> f64 {
    alpha * estimate + (1.0 - alpha) * (sample + previous_sample) / 2.0
}

/// One filter step weighting the sample by its own interval only:
/// `alpha * estimate + (1 - alpha) * sample`.
pub fn interval_step(alpha: f64, estimate: f64, sample: f64) -> f64 {
    alpha * estimate + (1.0 - alpha) * sample
}

/// Which samples a Tustin step averages (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Sampling {
    /// Seed 000 §2.2 (and seed 001 §II, seed 004 eq. 1, the UCLA agent's filters 1-3):
    /// `(b_k + b_{k-1}) / 2`, the trapezoid of the last two samples.
    #[default]
    Trapezoid,
    /// `b_k` alone: each sample counts over the interval it was measured on.
    Interval,
}

impl Sampling {
    /// Both choices, in the order the documentation lists them.
    pub const ALL: [Sampling; 2] = [Sampling::Trapezoid, Sampling::Interval];

    /// The name scenarios and vector headers use: `"trapezoid"` or `"interval"`.
    pub fn name(self) -> &'static str {
        match self {
            Sampling::Trapezoid => "trapezoid",
            Sampling::Interval => "interval",
        }
    }

    /// The choice named `name` (as [`Sampling::name`] spells it, case-insensitive).
    pub fn from_name(name: &str) -> Option<Sampling> {
        Sampling::ALL.into_iter().find(|s| s.name().eq_ignore_ascii_case(name.trim()))
    }

    /// One step with coefficient `alpha`: [`tustin_step`] or [`interval_step`].
    pub fn step(self, alpha: f64, estimate: f64, sample: f64, previous_sample: f64) -> f64 {
        match self {
            Sampling::Trapezoid => tustin_step(alpha, estimate, sample, previous_sample),
            Sampling::Interval => interval_step(alpha, estimate, sample),
        }
    }
}

/// How the filter's coefficient is chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gain {
    /// Seed 000: `alpha_k` from each inter-arrival time, virtual samples every `tau/m`.
    Adaptive { tau_ns: u64, m: u32 },
    /// Seed 001: a constant coefficient from a fixed time-constant to sampling-time ratio.
    Fixed { ratio: f64 },
}

#[derive(Debug, Clone, PartialEq)]
pub struct TustinFilter {
    gain: Gain,
    sampling: Sampling,
    /// BWE_{k-1}, bits/s.
    estimate: f64,
    /// b_{k-1}, bits/s.
    previous_sample: f64,
    /// t_{k-1}: time of the last real or virtual sample; `None` before the first ACK.
    last_time: Option<u64>,
    /// Bytes reported by ACKs that arrived at the same instant as the previous sample: Delta
    /// would be zero, so they are carried into the next sample instead.
    carried_bytes: u64,
    /// The coefficient of the last step (for tests and traces).
    last_alpha: Option<f64>,
    virtual_samples: u64,
}

impl TustinFilter {
    /// The paper's filter ([`Sampling::Trapezoid`]).
    pub fn new(gain: Gain) -> Self {
        Self::with_sampling(gain, Sampling::Trapezoid)
    }

    pub fn with_sampling(gain: Gain, sampling: Sampling) -> Self {
        if let Gain::Adaptive { tau_ns, m } = gain {
            assert!(tau_ns > 0 && m >= 2, "tau must be positive and m >= 2 (Nyquist, seed 000 §2.2)");
        }
        TustinFilter {
            gain,
            sampling,
            estimate: 0.0,
            previous_sample: 0.0,
            last_time: None,
            carried_bytes: 0,
            last_alpha: None,
            virtual_samples: 0,
        }
    }

    pub fn sampling(&self) -> Sampling {
        self.sampling
    }

    /// Spacing of virtual samples, `tau/m`, if this filter takes them.
    pub fn virtual_interval_ns(&self) -> Option<u64> {
        match self.gain {
            Gain::Adaptive { tau_ns, m } => Some(tau_ns / u64::from(m)),
            Gain::Fixed { .. } => None,
        }
    }

    fn alpha(&self, delta_ns: u64) -> f64 {
        match self.gain {
            Gain::Adaptive { tau_ns, .. } => tustin_coefficient(tau_ns as f64, delta_ns as f64),
            Gain::Fixed { ratio } => tustin_coefficient(ratio, 1.0),
        }
    }

    /// Apply the virtual null samples due strictly before `now`.
    pub fn advance_to(&mut self, now: u64) {
        let (Some(interval), Some(mut last)) = (self.virtual_interval_ns(), self.last_time) else {
            return;
        };
        while last + interval < now {
            last += interval;
            let alpha = self.alpha(interval);
            self.estimate = self.sampling.step(alpha, self.estimate, 0.0, self.previous_sample);
            self.previous_sample = 0.0;
            self.carried_bytes = 0;
            self.last_alpha = Some(alpha);
            self.virtual_samples += 1;
        }
        self.last_time = Some(last);
    }

    /// An ACK reporting `delivered_bytes` arrived at `now`.
    pub fn on_ack(&mut self, now: u64, delivered_bytes: u64) {
        self.advance_to(now);
        let Some(last) = self.last_time else {
            // The first ACK only starts the clock: there is no inter-arrival time yet.
            self.last_time = Some(now);
            return;
        };
        let delta = now.saturating_sub(last);
        let bytes = delivered_bytes + self.carried_bytes;
        if delta == 0 {
            self.carried_bytes = bytes;
            return;
        }
        self.carried_bytes = 0;
        let sample = bytes as f64 * 8.0 * NS / delta as f64;
        let alpha = self.alpha(delta);
        self.estimate = self.sampling.step(alpha, self.estimate, sample, self.previous_sample);
        self.previous_sample = sample;
        self.last_time = Some(now);
        self.last_alpha = Some(alpha);
    }

    /// BWE, bits/s (as of the last event applied).
    pub fn estimate_bps(&self) -> f64 {
        self.estimate
    }

    /// The coefficient alpha of the last step, real or virtual.
    pub fn last_alpha(&self) -> Option<f64> {
        self.last_alpha
    }

    pub fn virtual_samples(&self) -> u64 {
        self.virtual_samples
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const TAU: u64 = 500 * MS;

    #[test]
    fn delta_of_a_tenth_of_tau_gives_19_21_and_2_21() {
        // Seed 000 §2.2: BWE_k = 19/21 BWE_{k-1} + 2/21 (b_k + b_{k-1})/2.
        let alpha = tustin_coefficient(TAU as f64, (TAU / 10) as f64);
        assert!((alpha - 19.0 / 21.0).abs() < 1e-15);
        assert!((1.0 - alpha - 2.0 / 21.0).abs() < 1e-15);
        let fixed = TustinFilter::new(Gain::Fixed { ratio: 10.0 });
        assert!((fixed.alpha(12_345) - 19.0 / 21.0).abs() < 1e-15);
    }

    #[test]
    fn one_step_matches_the_formula() {
        let mut f = TustinFilter::new(Gain::Adaptive { tau_ns: TAU, m: 2 });
        f.on_ack(0, 0);
        f.on_ack(10 * MS, 1000); // b = 8000 bits / 10 ms = 800 kb/s
        let alpha = tustin_coefficient(TAU as f64, (10 * MS) as f64);
        assert!((f.estimate_bps() - (1.0 - alpha) * 800_000.0 / 2.0).abs() < 1e-6);
        f.on_ack(20 * MS, 2000); // b = 1.6 Mb/s
        let expected = alpha * (1.0 - alpha) * 400_000.0 + (1.0 - alpha) * (1_600_000.0 + 800_000.0) / 2.0;
        assert!((f.estimate_bps() - expected).abs() < 1e-6);
    }

    #[test]
    fn a_steady_ack_clock_converges_to_the_delivery_rate() {
        let mut f = TustinFilter::new(Gain::Adaptive { tau_ns: TAU, m: 2 });
        // 1000 bytes every 4 ms = 2 Mb/s, for 10 s (20 time constants).
        for k in 0..2500u64 {
            f.on_ack(k * 4 * MS, 1000);
        }
        assert!((f.estimate_bps() - 2e6).abs() / 2e6 < 1e-6, "{}", f.estimate_bps());
        assert_eq!(f.virtual_samples(), 0);
    }

    #[test]
    fn silence_decays_by_the_virtual_sample_factor() {
        for m in [2u32, 4, 8] {
            let mut f = TustinFilter::new(Gain::Adaptive { tau_ns: TAU, m });
            for k in 0..2500u64 {
                f.on_ack(k * 4 * MS, 1000);
            }
            let last = 2499 * 4 * MS;
            let before = f.estimate_bps();
            let previous_sample = 2e6;
            let interval = TAU / u64::from(m);
            // h = 5 silent periods, then look just after the 5th virtual sample.
            f.advance_to(last + 5 * interval + 1);
            let ratio = (2.0 * m as f64 - 1.0) / (2.0 * m as f64 + 1.0);
            // First virtual step: ratio * BWE + b_{k-1} / (2m+1); then BWE *= ratio each.
            let first = ratio * before + previous_sample / (2.0 * m as f64 + 1.0);
            let expected = first * ratio.powi(4);
            assert!((f.estimate_bps() - expected).abs() < 1e-6 * before, "m={m}");
            assert_eq!(f.virtual_samples(), 5);
            assert!((f.last_alpha().unwrap() - ratio).abs() < 1e-12);
        }
    }

    #[test]
    fn no_virtual_sample_at_exactly_tau_over_m() {
        let mut f = TustinFilter::new(Gain::Adaptive { tau_ns: TAU, m: 2 });
        f.on_ack(0, 1000);
        f.on_ack(TAU / 2, 1000);
        assert_eq!(f.virtual_samples(), 0);
        f.on_ack(TAU + 1, 1000);
        assert_eq!(f.virtual_samples(), 1);
    }

    #[test]
    fn alpha_stays_in_the_open_unit_interval_for_every_reachable_delta() {
        // Virtual samples bound Delta by tau/m, so alpha >= (2m-1)/(2m+1) > 0; Delta >= 1 ns
        // keeps it below 1. Drive the filter with ACK gaps from 1 ns to 100 tau.
        let mut f = TustinFilter::new(Gain::Adaptive { tau_ns: TAU, m: 2 });
        let mut now = 0u64;
        f.on_ack(now, 0);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..20_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let gap = 1 + (state % 1000) * (state % 1000) * (state % 1000) * 50; // 1 ns .. 50 s
            now += gap;
            f.on_ack(now, 1000);
            let alpha = f.last_alpha().unwrap();
            assert!(alpha > 0.0 && alpha < 1.0, "alpha {alpha} after a gap of {gap} ns");
            assert!(alpha >= 0.6 - 1e-12);
            assert!(f.estimate_bps().is_finite() && f.estimate_bps() >= 0.0);
        }
    }

    #[test]
    fn acks_at_the_same_instant_are_carried_into_the_next_sample() {
        let mut a = TustinFilter::new(Gain::Adaptive { tau_ns: TAU, m: 2 });
        let mut b = a.clone();
        a.on_ack(0, 0);
        a.on_ack(10 * MS, 1000);
        a.on_ack(10 * MS, 1000);
        a.on_ack(20 * MS, 1000);
        b.on_ack(0, 0);
        b.on_ack(10 * MS, 1000);
        b.on_ack(20 * MS, 2000);
        assert_eq!(a.estimate_bps(), b.estimate_bps());
    }

    #[test]
    fn interval_step_weights_only_the_new_sample() {
        let mut f = TustinFilter::with_sampling(Gain::Adaptive { tau_ns: TAU, m: 2 }, Sampling::Interval);
        assert_eq!(f.sampling(), Sampling::Interval);
        f.on_ack(0, 0);
        f.on_ack(10 * MS, 1000); // b = 800 kb/s
        let alpha = tustin_coefficient(TAU as f64, (10 * MS) as f64);
        assert!((f.estimate_bps() - (1.0 - alpha) * 800_000.0).abs() < 1e-6);
        f.on_ack(20 * MS, 2000); // b = 1.6 Mb/s; the 800 kb/s sample is not averaged in again
        let expected = alpha * (1.0 - alpha) * 800_000.0 + (1.0 - alpha) * 1_600_000.0;
        assert!((f.estimate_bps() - expected).abs() < 1e-6);
        assert_eq!(Sampling::default(), Sampling::Trapezoid);
        for sampling in Sampling::ALL {
            assert_eq!(Sampling::from_name(&sampling.name().to_uppercase()), Some(sampling));
        }
    }

    #[test]
    fn interval_silence_decays_by_alpha_at_every_virtual_sample() {
        for m in [2u32, 4, 8] {
            let mut f = TustinFilter::with_sampling(Gain::Adaptive { tau_ns: TAU, m }, Sampling::Interval);
            for k in 0..2500u64 {
                f.on_ack(k * 4 * MS, 1000);
            }
            let before = f.estimate_bps();
            assert!((before - 2e6).abs() / 2e6 < 1e-6, "converges to the rate");
            let interval = TAU / u64::from(m);
            f.advance_to(2499 * 4 * MS + 5 * interval + 1);
            let ratio = (2.0 * m as f64 - 1.0) / (2.0 * m as f64 + 1.0);
            assert!((f.estimate_bps() - before * ratio.powi(5)).abs() < 1e-6 * before, "m={m}");
            assert_eq!(f.virtual_samples(), 5);
        }
    }
}
