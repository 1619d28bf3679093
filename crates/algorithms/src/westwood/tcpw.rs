//! TCPW's estimator (seed 000 §2.2): every ACK is a sample `b_k = d_k / Delta_k`, smoothed by the
//! Tustin filter with `alpha_k = (2 tau - Delta_k) / (2 tau + Delta_k)` and virtual null samples
//! every `tau/m` of silence. [`TcpwParams::sample`] chooses the paper's trapezoid of the last two
//! samples (the default) or interval sampling ([`Sampling`], see `filter.rs`).

use super::filter::{Gain, Sampling, TustinFilter};
use super::{BandwidthEstimator, PathState};
use crate::registry::{Param, ParamKind, ParamValues};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TcpwParams {
    /// Filter time constant tau (1/tau is the cut-off frequency): 500 ms in seed 000 §4.
    pub tau_ns: u64,
    /// Virtual samples every tau/m without ACKs, m >= 2 (Nyquist). Default 2: the largest
    /// spacing the sampling theorem allows, so the fewest artificial samples; the decay per unit
    /// of silence barely depends on m (per tau: (3/5)^2 = 0.36 for m = 2, e^-1 = 0.37 as m grows).
    pub m: u32,
    /// Which samples each step averages: [`Sampling::Trapezoid`] (seed 000 §2.2, the default) or
    /// [`Sampling::Interval`].
    pub sample: Sampling,
}

impl Default for TcpwParams {
    fn default() -> Self {
        TcpwParams { tau_ns: 500_000_000, m: 2, sample: Sampling::Trapezoid }
    }
}

impl TcpwParams {
    /// The `[tcp] westwood = { ... }` keys (crate::registry).
    pub const SCHEMA: &'static [Param] = &[
        Param { key: "tau", kind: ParamKind::FilterTime },
        Param { key: "m", kind: ParamKind::Integer { min: 2, max: u32::MAX, beyond: "" } },
        Param { key: "sample", kind: ParamKind::Sampling },
        Param { key: "acked_count", kind: ParamKind::AckedCount },
    ];

    /// The defaults, with what a scenario set.
    pub fn from_values(v: &ParamValues) -> Self {
        let d = TcpwParams::default();
        TcpwParams {
            tau_ns: v.nanos("tau").unwrap_or(d.tau_ns),
            m: v.integer("m").unwrap_or(d.m),
            sample: v.sampling("sample").unwrap_or(d.sample),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct TcpwEstimator {
    filter: TustinFilter,
}

impl TcpwEstimator {
    pub fn new(params: TcpwParams) -> Self {
        let gain = Gain::Adaptive { tau_ns: params.tau_ns, m: params.m };
        TcpwEstimator { filter: TustinFilter::with_sampling(gain, params.sample) }
    }

    pub fn filter(&self) -> &TustinFilter {
        &self.filter
    }
}

impl BandwidthEstimator for TcpwEstimator {
    fn on_ack(&mut self, now_ns: u64, delivered_bytes: u64, _path: &PathState) {
        self.filter.on_ack(now_ns, delivered_bytes);
    }

    fn estimate_at(&mut self, now_ns: u64) -> f64 {
        self.filter.advance_to(now_ns);
        self.filter.estimate_bps()
    }

    fn estimate_bps(&self) -> f64 {
        self.filter.estimate_bps()
    }
}
