//! CUBIC congestion control, RFC 9438.
//!
//! After a congestion event the window follows a cubic function of the time since the current
//! congestion-avoidance stage began (§4.2):
//! ```text
//! W_cubic(t) = C * (t - K)^3 + W_max          K = cbrt((W_max - cwnd_epoch) / C)
//! ```
//! concave while below `W_max` (§4.4), convex above it (§4.5), never slower than an AIMD flow
//! tuned to Reno's average window (the Reno-friendly region, §4.3). Windows are in segments and
//! times in seconds, as in the RFC; `cwnd()` and `ssthresh()` report bytes.
//!
//! Choices, each within what RFC 9438 allows:
//! * C = 0.4 and beta_cubic = 0.7 (§5.1), fast convergence on (§4.7; it can be turned off in
//!   [`CubicParams`]).
//! * Slow start is RFC 5681's, as Reno's here (`cwnd += min(N, SMSS)` per ACK, §4.10; with
//!   [`WindowGrowth::ByteCounting`] RFC 3465's `cwnd += min(N, 2*SMSS)`, §2.2). HyStart
//!   (the optional hybrid slow start) is not implemented: the first slow start ends with a loss,
//!   so `W_max` is always defined, except when a scenario sets a finite initial ssthresh, where
//!   §4.10's rule for an undefined `W_max` applies (K = 0, W_max = cwnd at the stage's start).
//! * No clock: `t` is measured between ACK timestamps (`AckEvent::now_ns`), the stage starting at
//!   the first ACK of congestion avoidance (§4.2: `t = current_time - t_epoch`).
//! * RTT in `W_cubic(t + RTT)` is the smoothed RTT of RFC 6298 (gain 1/8), computed here from the
//!   Karn-valid samples the sender reports, as §4.1.2 defines it. (Linux uses the minimum RTT
//!   instead, which keeps queueing delay out of the look-ahead; with the smoothed RTT the target is
//!   slightly more aggressive on a deep queue. We follow the RFC.) Before the first sample, RTT = 0.
//! * Growth is counted per acknowledged segment: the §4.4/§4.5 increment `(target - cwnd)/cwnd`
//!   is applied once per SMSS of newly acknowledged data, like §4.3's `segments_acked` for
//!   `W_est`, so delayed ACKs do not halve it (Linux counts acknowledged packets the same way).
//!   [`WindowConfig::window_growth`] therefore only changes slow start here: congestion
//!   avoidance already counts bytes whichever rule is configured.
//! * FlightSize in §4.6's `ssthresh = flight_size * beta_cubic` is capped at cwnd, for the reason
//!   given in [`crate::reno`] (without SACK, everything above a hole counts as in flight).
//! * Multiplicative decrease sets `cwnd = ssthresh` at once; the sender's recovery (NewReno by
//!   default, or SACK, §4.2: CUBIC "does not make any changes to" fast recovery) then runs with
//!   that window and the window does not grow until recovery ends.
//! * Spurious-congestion undo (§4.9) is not implemented: nothing in the simulator detects
//!   spurious retransmissions.

use crate::congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig, WindowGrowth};

/// RFC 9438 constants.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CubicParams {
    /// C, segments / second^3 (§4.1.1; 0.4 per §5.1).
    pub c: f64,
    /// beta_cubic, the multiplicative decrease factor (§4.6; 0.7).
    pub beta: f64,
    /// §4.7 fast convergence: release bandwidth faster when W_max is shrinking.
    pub fast_convergence: bool,
}

impl Default for CubicParams {
    fn default() -> Self {
        CubicParams { c: 0.4, beta: 0.7, fast_convergence: true }
    }
}

impl CubicParams {
    /// alpha_cubic = 3 (1 - beta_cubic) / (1 + beta_cubic) (§4.3): the additive increase, in
    /// segments per RTT, of the AIMD flow whose average window equals Reno's.
    pub fn alpha_cubic(&self) -> f64 {
        3.0 * (1.0 - self.beta) / (1.0 + self.beta)
    }
}

#[derive(Debug, Clone)]
pub struct Cubic {
    params: CubicParams,
    mss: u64,
    /// Slow-start growth rule (congestion avoidance counts acknowledged bytes either way).
    growth: WindowGrowth,
    /// Congestion window, segments (fractional).
    cwnd: f64,
    /// Slow-start threshold, bytes.
    ssthresh: u64,
    /// W_max (§4.1.2), segments; `None` before the first congestion event.
    w_max: Option<f64>,
    /// cwnd just before the last reduction (§4.6 `cwnd_prior`), segments.
    cwnd_prior: f64,
    /// K (§4.2), seconds, for the current stage.
    k: f64,
    /// Start of the current congestion-avoidance stage (`t_epoch`); `None` until its first ACK.
    epoch_start_ns: Option<u64>,
    /// cwnd at `t_epoch`, segments.
    cwnd_epoch: f64,
    /// W_est (§4.3), segments.
    w_est: f64,
    /// The additive factor W_est currently grows with (alpha_cubic, then 1 once W_est reaches
    /// cwnd_prior, §4.3).
    alpha: f64,
    /// The last congestion event was a timeout: the next stage uses K = 0 and W_max = cwnd at
    /// its start (§4.8).
    after_timeout: bool,
    /// RFC 6298 smoothed RTT of the samples seen, ns.
    srtt_ns: Option<u64>,
}

impl Cubic {
    pub fn new(config: WindowConfig) -> Self {
        Self::with_params(config, CubicParams::default())
    }

    pub fn with_params(config: WindowConfig, params: CubicParams) -> Self {
        assert!(config.mss > 0, "mss must be positive");
        assert!(params.c > 0.0 && params.beta > 0.0 && params.beta < 1.0, "invalid CUBIC parameters");
        let mss = config.mss;
        Cubic {
            params,
            mss,
            growth: config.window_growth,
            cwnd: (config.initial_cwnd.max(mss) as f64) / mss as f64,
            ssthresh: config.initial_ssthresh.max(2 * mss),
            w_max: None,
            cwnd_prior: 0.0,
            k: 0.0,
            epoch_start_ns: None,
            cwnd_epoch: 0.0,
            w_est: 0.0,
            alpha: params.alpha_cubic(),
            after_timeout: false,
            srtt_ns: None,
        }
    }

    /// W_cubic(t) (§4.2, eq. 1), segments, for the current stage; `t` in seconds since `t_epoch`.
    pub fn w_cubic(&self, t: f64) -> f64 {
        let w_max = self.w_max.unwrap_or(self.cwnd);
        self.params.c * (t - self.k).powi(3) + w_max
    }

    /// K of the current stage, seconds.
    pub fn k(&self) -> f64 {
        self.k
    }

    /// W_max, segments (`None` before the first congestion event).
    pub fn w_max(&self) -> Option<f64> {
        self.w_max
    }

    /// W_est, the Reno-friendly estimate, segments.
    pub fn w_est(&self) -> f64 {
        self.w_est
    }

    /// The congestion window in (fractional) segments.
    pub fn cwnd_segments(&self) -> f64 {
        self.cwnd
    }

    /// Start of the current congestion-avoidance stage, ns, once its first ACK has arrived.
    pub fn epoch_start_ns(&self) -> Option<u64> {
        self.epoch_start_ns
    }

    /// Begin a congestion-avoidance stage at `now` (§4.2, §4.3, §4.8, §4.10).
    fn start_epoch(&mut self, now_ns: u64) {
        self.epoch_start_ns = Some(now_ns);
        self.cwnd_epoch = self.cwnd;
        match self.w_max {
            Some(w_max) if !self.after_timeout => {
                // eq. 2; negative when the stage starts above W_max (the curve is then convex
                // from the start and still passes through cwnd_epoch at t = 0).
                self.k = ((w_max - self.cwnd_epoch) / self.params.c).cbrt();
            }
            _ => {
                // §4.8 after a timeout, §4.10 when W_max is undefined.
                self.w_max = Some(self.cwnd_epoch);
                self.k = 0.0;
            }
        }
        self.after_timeout = false;
        self.w_est = self.cwnd_epoch;
        self.alpha = if self.w_est >= self.cwnd_prior { 1.0 } else { self.params.alpha_cubic() };
    }

    fn congestion_avoidance(&mut self, now_ns: u64, newly_acked_bytes: u64) {
        let epoch = match self.epoch_start_ns {
            Some(epoch) => epoch,
            None => {
                self.start_epoch(now_ns);
                now_ns
            }
        };
        let segments_acked = newly_acked_bytes as f64 / self.mss as f64;
        let t = now_ns.saturating_sub(epoch) as f64 / 1e9;
        let rtt = self.srtt_ns.unwrap_or(0) as f64 / 1e9;

        // §4.3, eq. 4, and the switch of alpha to 1 once W_est reaches cwnd_prior.
        self.w_est += self.alpha * segments_acked / self.cwnd;
        if self.w_est >= self.cwnd_prior {
            self.alpha = 1.0;
        }
        if self.w_cubic(t) < self.w_est {
            // Reno-friendly region: cwnd = W_est (never a decrease).
            self.cwnd = self.cwnd.max(self.w_est);
        } else {
            // Concave (§4.4) or convex (§4.5) region, the same rule: target clamped to
            // [cwnd, 1.5 cwnd] (§4.2), cwnd += (target - cwnd) / cwnd per segment acknowledged.
            let target = self.w_cubic(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
            self.cwnd += (target - self.cwnd) / self.cwnd * segments_acked;
        }
    }

    /// §4.6 ssthresh (bytes) from FlightSize capped at cwnd, floor of 2 segments.
    fn reduced_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        let flight = bytes_in_flight.min(self.cwnd()) as f64;
        ((flight * self.params.beta) as u64).max(2 * self.mss)
    }

    /// §4.8: after a timeout the window is one segment (RFC 5681), and the next congestion
    /// avoidance stage starts afresh (K = 0, W_max = cwnd at its start).
    fn restart_after_timeout(&mut self) {
        self.cwnd = 1.0;
        self.epoch_start_ns = None;
        self.after_timeout = true;
    }

    /// §4.6 and §4.7 at a loss detected by DUPACKs.
    fn multiplicative_decrease(&mut self, bytes_in_flight: u64, restart: bool) {
        let cwnd = self.cwnd;
        self.w_max = Some(match self.w_max {
            Some(w_max) if self.params.fast_convergence && cwnd < w_max => {
                cwnd * (1.0 + self.params.beta) / 2.0
            }
            _ => cwnd,
        });
        self.cwnd_prior = cwnd;
        self.ssthresh = self.reduced_ssthresh(bytes_in_flight);
        self.cwnd = if restart { 1.0 } else { self.ssthresh as f64 / self.mss as f64 };
        self.epoch_start_ns = None;
        self.after_timeout = false;
    }
}

impl CongestionControl for Cubic {
    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(r) = ack.rtt_sample_ns {
            // RFC 6298 §2.3: SRTT <- 7/8 SRTT + 1/8 R'.
            self.srtt_ns = Some(self.srtt_ns.map_or(r, |s| (7 * s + r) / 8));
        }
        if ack.in_recovery || ack.is_dupack || ack.newly_acked_bytes == 0 || !ack.cwnd_limited {
            return;
        }
        if self.cwnd() < self.ssthresh {
            // §4.10: RFC 5681 slow start (RFC 3465 §2.2 with byte counting; Linux's
            // tcp_slow_start, whose bytes beyond ssthresh go on to congestion avoidance).
            let cwnd_bytes = (self.cwnd * self.mss as f64) as u64;
            let (increase, left) =
                self.growth.slow_start_step(ack.newly_delivered_bytes, cwnd_bytes, self.ssthresh, self.mss);
            self.cwnd += increase as f64 / self.mss as f64;
            if left > 0 {
                self.congestion_avoidance(ack.now_ns, left);
            }
        } else {
            self.congestion_avoidance(ack.now_ns, ack.newly_delivered_bytes);
        }
    }

    fn on_congestion(&mut self, event: CongestionEvent) {
        match event {
            CongestionEvent::DuplicateAcks { bytes_in_flight, .. } => {
                self.multiplicative_decrease(bytes_in_flight, false)
            }
            // Tahoe recovery: the same reduction of ssthresh and W_max, slow start from one segment.
            CongestionEvent::DuplicateAcksSlowStart { bytes_in_flight, .. } => {
                self.multiplicative_decrease(bytes_in_flight, true)
            }
            // §4.8: cwnd as RFC 5681 (one segment), ssthresh with beta_cubic. A repeated timeout
            // of the same segment holds ssthresh (RFC 5681 §3.1).
            CongestionEvent::Timeout { bytes_in_flight, repeated, .. } => {
                if !repeated {
                    self.cwnd_prior = self.cwnd;
                    self.ssthresh = self.reduced_ssthresh(bytes_in_flight);
                }
                self.restart_after_timeout();
            }
            // The sender kept the loss episode's threshold (Linux's tcp_enter_loss): only the
            // window restarts.
            CongestionEvent::TimeoutHeld { .. } => self.restart_after_timeout(),
        }
    }

    /// cwnd was set to ssthresh at the loss and did not grow during recovery: nothing to deflate.
    fn on_recovery_exit(&mut self, _now_ns: u64) {}

    fn cwnd(&self) -> u64 {
        ((self.cwnd * self.mss as f64) as u64).max(self.mss)
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;
    const SECOND: u64 = 1_000_000_000;

    fn cubic(params: CubicParams, cwnd_segments: u64) -> Cubic {
        cubic_with(params, cwnd_segments, WindowGrowth::PerAck)
    }

    fn cubic_with(params: CubicParams, cwnd_segments: u64, window_growth: WindowGrowth) -> Cubic {
        Cubic::with_params(
            WindowConfig {
                mss: MSS,
                initial_cwnd: cwnd_segments * MSS,
                initial_ssthresh: u64::MAX / 4,
                window_growth,
            },
            params,
        )
    }

    fn ack(now_ns: u64, newly: u64, rtt_ns: Option<u64>) -> AckEvent {
        AckEvent {
            now_ns,
            ack_seq: 0,
            newly_acked_bytes: newly,
            newly_delivered_bytes: newly,
            is_dupack: false,
            rtt_sample_ns: rtt_ns,
            in_recovery: false,
            bytes_in_flight: 0,
            cwnd_limited: true,
        }
    }

    /// A CUBIC flow at `w_max` segments that has just lost a packet (DUPACKs, whole window in
    /// flight), with an RTT estimate of `rtt_ns`.
    fn after_loss(params: CubicParams, w_max: u64, rtt_ns: u64) -> Cubic {
        let mut cc = cubic(params, w_max);
        cc.on_ack(&ack(0, 0, Some(rtt_ns)));
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: w_max * MSS });
        cc
    }

    /// An ACK clock: every RTT, one ACK per segment of the window, evenly spread, each with an
    /// RTT sample; runs from `start` until `until`; calls `each` after every ACK.
    fn clock(cc: &mut Cubic, start: u64, until: u64, rtt_ns: u64, mut each: impl FnMut(u64, &Cubic)) -> u64 {
        let mut now = start;
        while now < until {
            let acks = (cc.cwnd() / MSS).max(1);
            for i in 0..acks {
                let t = now + rtt_ns * (i + 1) / acks;
                cc.on_ack(&ack(t, MSS, Some(rtt_ns)));
                each(t, cc);
            }
            now += rtt_ns;
        }
        now
    }

    #[test]
    fn multiplicative_decrease_uses_beta_and_k_brings_the_curve_back_to_w_max() {
        let mut cc = after_loss(CubicParams::default(), 100, 500 * MS);
        // §4.6: ssthresh = cwnd = 0.7 * 100 segments; §4.7: W_max = 100 (first loss).
        assert_eq!((cc.cwnd(), cc.ssthresh()), (70 * MSS, 70 * MSS));
        assert_eq!(cc.w_max(), Some(100.0));
        // The stage starts at its first ACK: K = cbrt((100 - 70) / 0.4) = cbrt(75).
        cc.on_ack(&ack(SECOND, MSS, None));
        assert_eq!(cc.epoch_start_ns(), Some(SECOND));
        assert!((cc.k() - 75f64.cbrt()).abs() < 1e-12, "K = {}", cc.k());
        assert!((cc.w_cubic(cc.k()) - 100.0).abs() < 1e-9);
        // At t = 0 the curve starts from cwnd_epoch.
        assert!((cc.w_cubic(0.0) - 70.0).abs() < 1e-9);
    }

    #[test]
    fn the_window_is_concave_up_to_w_max_then_convex() {
        // RTT 500 ms: W_est grows by ~0.53 segment per RTT, far below the cubic curve, so the
        // window follows W_cubic.
        let rtt = 500 * MS;
        let mut cc = after_loss(CubicParams::default(), 100, rtt);
        let k = 75f64.cbrt();
        let mut samples: Vec<(f64, f64)> = Vec::new();
        clock(&mut cc, 0, 3 * 4_217 * MS, rtt, |t, cc| samples.push((t as f64 / 1e9, cc.cwnd_segments())));
        let epoch = samples[0].0;
        let at = |x: f64| samples.iter().find(|&&(t, _)| t - epoch >= x).map(|&(_, w)| w).unwrap();
        // Near t = K the window is at the plateau W_max (it aims one RTT ahead).
        let plateau = at(k);
        assert!((plateau - 100.0).abs() < 2.0, "cwnd at K: {plateau}");
        // Concave: more growth in the first half of [0, K] than in the second.
        let first = at(k / 2.0) - at(0.0);
        let second = at(k) - at(k / 2.0);
        assert!(first > 2.0 * second, "concave: {first} then {second}");
        // Convex: growth accelerates after K.
        let third = at(1.5 * k) - at(k);
        let fourth = at(2.0 * k) - at(1.5 * k);
        assert!(fourth > 2.0 * third, "convex: {third} then {fourth}");
        assert!(at(2.0 * k) > 100.0);
        // Never in the Reno-friendly region on this path.
        assert!(cc.w_est() < 90.0, "W_est {}", cc.w_est());
    }

    #[test]
    fn short_rtts_put_cubic_in_the_reno_friendly_region() {
        // RTT 1 ms: 200 RTTs in 0.2 s. W_cubic(0.2 s) = 0.4 (0.2 - 4.22)^3 + 100 ~ 74 segments,
        // while W_est gains 0.53 segment per RTT up to cwnd_prior (100), then 1 per RTT.
        let rtt = MS;
        let mut cc = after_loss(CubicParams::default(), 100, rtt);
        let end = clock(&mut cc, 0, 200 * MS, rtt, |_, _| {});
        let epoch = cc.epoch_start_ns().unwrap();
        let t = (end - epoch) as f64 / 1e9;
        assert!(cc.w_cubic(t) < 80.0);
        assert!(cc.cwnd_segments() > 150.0, "cwnd {} segments", cc.cwnd_segments());
        assert!((cc.cwnd_segments() - cc.w_est()).abs() < 1e-9, "cwnd follows W_est");
        // The switch to alpha = 1 after W_est reaches cwnd_prior: from 70, 30 segments at ~0.53
        // per RTT take ~57 RTTs, then ~1 per RTT for the remaining ~143.
        assert!((cc.w_est() - 243.0).abs() < 15.0, "W_est {}", cc.w_est());
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_the_window_shrinks() {
        for (fast, expected) in [(true, 80.0 * 1.7 / 2.0), (false, 80.0)] {
            let params = CubicParams { fast_convergence: fast, ..CubicParams::default() };
            let mut cc = after_loss(params, 100, 100 * MS);
            assert_eq!(cc.w_max(), Some(100.0));
            // Grow to 80 segments, then lose again below W_max.
            cc.cwnd = 80.0;
            cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: SECOND, bytes_in_flight: 80 * MSS });
            let w_max = cc.w_max().unwrap();
            assert!((w_max - expected).abs() < 1e-9, "fast convergence {fast}: W_max {w_max}");
            assert_eq!(cc.cwnd(), 56 * MSS);
        }
    }

    #[test]
    fn timeout_restarts_from_one_segment_and_the_next_stage_has_k_zero() {
        let mut cc = after_loss(CubicParams::default(), 100, 100 * MS);
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 70 * MSS, repeated: false });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 49 * MSS));
        // A repeated timeout holds ssthresh.
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 70 * MSS, repeated: true });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 49 * MSS));
        // So does a timeout the sender holds (inside the loss episode).
        cc.on_congestion(CongestionEvent::TimeoutHeld { now_ns: 0, bytes_in_flight: 70 * MSS });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 49 * MSS));
        // Slow start (one segment per segment acknowledged) up to ssthresh, then the stage.
        let mut now = SECOND;
        while cc.cwnd() < cc.ssthresh() {
            now += MS;
            cc.on_ack(&ack(now, MSS, None));
        }
        assert_eq!(cc.epoch_start_ns(), None);
        cc.on_ack(&ack(now + MS, MSS, None));
        assert_eq!(cc.k(), 0.0);
        assert_eq!(cc.w_max(), Some(49.0));
    }

    #[test]
    fn tahoe_recovery_restarts_from_one_segment_with_the_cubic_threshold() {
        let mut cc = cubic(CubicParams::default(), 40);
        cc.on_congestion(CongestionEvent::DuplicateAcksSlowStart { now_ns: 0, bytes_in_flight: 40 * MSS });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 28 * MSS));
        assert_eq!(cc.w_max(), Some(40.0));
    }

    #[test]
    fn slow_start_is_reno_and_recovery_acks_do_not_grow_the_window() {
        let mut cc = cubic(CubicParams::default(), 2);
        cc.on_ack(&ack(MS, 2 * MSS, None)); // one delayed ACK: + one segment
        assert_eq!(cc.cwnd(), 3 * MSS);
        let mut recovering = ack(2 * MS, MSS, None);
        recovering.in_recovery = true;
        cc.on_ack(&recovering);
        assert_eq!(cc.cwnd(), 3 * MSS);
        assert!((CubicParams::default().alpha_cubic() - 0.9 / 1.7).abs() < 1e-12);
    }

    #[test]
    fn byte_counting_changes_slow_start_only() {
        let mut cc = cubic_with(CubicParams::default(), 2, WindowGrowth::ByteCounting);
        cc.on_ack(&ack(MS, 2 * MSS, None)); // one delayed ACK: + two segments
        assert_eq!(cc.cwnd(), 4 * MSS);
        cc.on_ack(&ack(2 * MS, 5 * MSS, None)); // a stretch ACK: L = 2 segments
        assert_eq!(cc.cwnd(), 6 * MSS);
        // Congestion avoidance counts acknowledged bytes under both rules: identical windows.
        let mut per_ack = after_loss(CubicParams::default(), 100, 100 * MS);
        let mut abc = per_ack.clone();
        abc.growth = WindowGrowth::ByteCounting;
        for i in 1..=500 {
            let a = ack(i * 10 * MS, 2 * MSS, Some(100 * MS));
            per_ack.on_ack(&a);
            abc.on_ack(&a);
        }
        assert_eq!(per_ack.cwnd_segments().to_bits(), abc.cwnd_segments().to_bits());
    }
}
