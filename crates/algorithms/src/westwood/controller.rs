//! The Westwood controller: Reno's slow start and congestion avoidance, BWE-based loss rules.
//!
//! The growth is [`Reno::grow`]'s, so it follows the configured
//! [`WindowGrowth`](crate::congestion::WindowGrowth): per ACK (ns-2, the papers) or RFC 3465 byte
//! counting (Linux).
//!
//! After `n` DUPACKs (seed 000 §3.1):
//! ```text
//! ssthresh = (BWE * RTTmin) / seg_size;  if (cwin > ssthresh) cwin = ssthresh;
//! ```
//! then the sender's standard fast retransmit / fast recovery. After a timeout (§3.2):
//! ```text
//! ssthresh = max(2, (BWE * RTTmin) / seg_size);  cwin = 1;
//! ```
//! TCPW-TR divides the threshold by its reduction factor `a` (seed 001 §IV); the UCLA agent
//! divides the timeout's threshold by its own `a` ([`BandwidthEstimator::reduction_factor`]) and
//! takes RTTmin in coarse clock ticks ([`BandwidthEstimator::rtt_min_ns`]).
//!
//! AckedCount runs in the controller, with the rule the estimator's reference uses
//! ([`Westwood::new`]) or one chosen for the controller ([`Westwood::with_acked_count_rule`]).
//!
//! Units: BWE in bits/s, RTTmin in seconds, seg_size in bits, so the threshold is in segments;
//! it is floored to whole segments and held in bytes. Deviation: seed 000 §3.1 sets no floor
//! after DUPACKs; we apply the same floor of 2 segments as after a timeout (and as RFC 5681
//! requires), so a loss before the estimate has warmed up cannot leave a zero window.
//! When fast recovery ends, cwin is left as the loss rule set it (it is already at most
//! ssthresh); Reno's "deflate to ssthresh" would instead raise a slow-start window to ssthresh
//! in one step.

use super::{BandwidthEstimator, LossKind, PathState};
use crate::congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig};
use crate::reno::Reno;
use crate::westwood::{AckedCount, AckedCountRule};

#[derive(Debug, Clone)]
pub struct Westwood<E> {
    window: Reno,
    estimator: E,
    acked_count: AckedCount,
    /// `segments * mss` that AckedCount credited for the last ACK (0 before the first).
    last_credited_bytes: u64,
    path: PathState,
}

impl<E: BandwidthEstimator> Westwood<E> {
    /// The controller with the AckedCount rule of the estimator's reference
    /// ([`BandwidthEstimator::acked_count_rule`]: the paper's, the UCLA agent's for
    /// [`UclaEstimator`](super::UclaEstimator)).
    pub fn new(config: WindowConfig, estimator: E) -> Self {
        let rule = estimator.acked_count_rule();
        Self::with_acked_count_rule(config, estimator, rule)
    }

    /// The controller with the AckedCount rule `rule`.
    pub fn with_acked_count_rule(config: WindowConfig, estimator: E, rule: AckedCountRule) -> Self {
        Westwood {
            window: Reno::new(config),
            estimator,
            acked_count: AckedCount::with_rule(rule),
            last_credited_bytes: 0,
            path: PathState::default(),
        }
    }

    pub fn estimator(&self) -> &E {
        &self.estimator
    }

    pub fn acked_count_rule(&self) -> AckedCountRule {
        self.acked_count.rule()
    }

    /// RTTmin as the loss rules use it, ns: the smallest RTT sample (the UCLA agent's: the
    /// smallest in coarse ticks, 5 s before the first sample).
    pub fn min_rtt_ns(&self) -> Option<u64> {
        self.estimator.rtt_min_ns(&self.path)
    }

    /// Set the window to what a trace recorded (bytes), so that the estimators and the loss rules
    /// see the window the traced sender had: an ACK-trace replay calls it before each `on_ack`.
    /// Held to the controller's invariants (`cwnd >= mss`, `ssthresh >= 2 mss`). Observing the
    /// window the controller already has changes nothing; any other value restarts the
    /// congestion-avoidance credit, as a loss rule does.
    pub fn observe_window(&mut self, cwnd_bytes: u64, ssthresh_bytes: u64) {
        self.window.observe_window(cwnd_bytes, ssthresh_bytes);
    }

    fn update_path_rtt(&mut self, rtt: u64) {
        let p = &mut self.path;
        p.latest_rtt_ns = Some(rtt);
        p.min_rtt_ns = Some(p.min_rtt_ns.map_or(rtt, |m| m.min(rtt)));
        p.smoothed_rtt_ns = Some(p.smoothed_rtt_ns.map_or(rtt, |s| (7 * s + rtt) / 8));
    }

    /// `BWE * RTTmin / seg_size / a`, whole segments, at least 2, in bytes.
    fn bandwidth_threshold(&mut self, now_ns: u64, a: f64) -> u64 {
        let mss = self.window.mss();
        let bwe = self.estimator.estimate_at(now_ns);
        let rtt_min_s = self.estimator.rtt_min_ns(&self.path).unwrap_or(0) as f64 / 1e9;
        let segments = (bwe * rtt_min_s / (mss as f64 * 8.0) / a).floor();
        let segments = if segments.is_finite() { segments.max(2.0) as u64 } else { 2 };
        segments * mss
    }
}

impl<E: BandwidthEstimator> CongestionControl for Westwood<E> {
    fn min_rtt_ns(&self) -> Option<u64> {
        Westwood::min_rtt_ns(self)
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        if let Some(rtt) = ack.rtt_sample_ns {
            CongestionControl::on_rtt_sample(self, rtt);
        }
        let mss = self.window.mss();
        self.last_credited_bytes = self.acked_count.on_ack(ack.ack_seq, mss) * mss;
        self.path.cwnd = self.window.cwnd();
        self.estimator.on_ack(ack.now_ns, self.last_credited_bytes, &self.path);
        if !ack.in_recovery && !ack.is_dupack && ack.cwnd_limited {
            self.window.grow(ack.newly_delivered_bytes);
        }
    }

    fn on_congestion(&mut self, event: CongestionEvent) {
        let cwnd = self.window.cwnd();
        let in_slow_start = cwnd < self.window.ssthresh();
        match event {
            CongestionEvent::DuplicateAcks { now_ns, .. } => {
                let a = self.estimator.reduction_factor(LossKind::DuplicateAcks, in_slow_start);
                let ssthresh = self.bandwidth_threshold(now_ns, a);
                if cwnd <= ssthresh && self.estimator.keeps_window_progress() {
                    self.window.set_ssthresh(ssthresh);
                } else {
                    self.window.set_window(cwnd.min(ssthresh), ssthresh);
                }
            }
            // Over Tahoe (no fast recovery): the same threshold, cwin restarts from one segment.
            CongestionEvent::DuplicateAcksSlowStart { now_ns, .. } => {
                let a = self.estimator.reduction_factor(LossKind::DuplicateAcks, in_slow_start);
                let ssthresh = self.bandwidth_threshold(now_ns, a);
                self.window.set_window(self.window.mss(), ssthresh);
            }
            // Seed 000 §3.2 recomputes ssthresh at every coarse timeout, repeated or not (RFC
            // 5681 would hold it): we follow the paper, so a long silence lowers it further.
            CongestionEvent::Timeout { now_ns, .. } => {
                let a = self.estimator.reduction_factor(LossKind::Timeout, in_slow_start);
                let ssthresh = self.bandwidth_threshold(now_ns, a);
                self.window.set_window(self.window.mss(), ssthresh);
            }
            // The sender kept the episode's threshold (Linux's tcp_enter_loss): neither the
            // estimator nor the reduction factor hears of it; the window restarts.
            CongestionEvent::TimeoutHeld { .. } => {
                self.window.set_window(self.window.mss(), self.window.ssthresh());
            }
        }
    }

    fn on_recovery_exit(&mut self, _now_ns: u64) {}

    fn cwnd(&self) -> u64 {
        self.window.cwnd()
    }

    fn ssthresh(&self) -> u64 {
        self.window.ssthresh()
    }

    fn bandwidth_estimate_bps(&self) -> Option<f64> {
        Some(self.estimator.estimate_bps())
    }

    fn last_credited_bytes(&self) -> Option<u64> {
        Some(self.last_credited_bytes)
    }

    fn observe_window(&mut self, cwnd_bytes: u64, ssthresh_bytes: u64) {
        Westwood::observe_window(self, cwnd_bytes, ssthresh_bytes);
    }

    fn on_rtt_sample(&mut self, rtt_ns: u64) {
        self.update_path_rtt(rtt_ns);
        self.estimator.on_rtt_sample(rtt_ns);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::congestion::WindowGrowth;
    use crate::westwood::{
        AbseEstimator, AbseParams, PlusParams, Tcpw, TcpwAbse, TcpwEstimator, TcpwParams, TcpwTr, TcpwUcla,
        TrEstimator, UclaEstimator, UclaFilter, UclaParams, WestwoodPlus, WestwoodPlusEstimator,
    };

    const MSS: u64 = 1000;
    const MS: u64 = 1_000_000;

    fn config(cwnd_segments: u64, ssthresh_segments: u64) -> WindowConfig {
        WindowConfig {
            mss: MSS,
            initial_cwnd: cwnd_segments * MSS,
            initial_ssthresh: ssthresh_segments * MSS,
            window_growth: WindowGrowth::PerAck,
        }
    }

    fn ack(now_ns: u64, ack_seq: u64, newly: u64, rtt_ms: Option<u64>) -> AckEvent {
        AckEvent {
            now_ns,
            ack_seq,
            newly_acked_bytes: newly,
            newly_delivered_bytes: newly,
            is_dupack: newly == 0,
            rtt_sample_ns: rtt_ms.map(|r| r * MS),
            in_recovery: false,
            bytes_in_flight: 0,
            cwnd_limited: true,
        }
    }

    /// One segment acknowledged every 4 ms (2 Mb/s) for `seconds`, RTT samples of 100 ms.
    fn clock<C: CongestionControl>(cc: &mut C, seconds: u64) -> (u64, u64) {
        clock_with_rtt(cc, seconds, 100)
    }

    fn clock_with_rtt<C: CongestionControl>(cc: &mut C, seconds: u64, rtt_ms: u64) -> (u64, u64) {
        let mut seq = 0;
        let mut now = 0;
        for _ in 0..seconds * 250 {
            now += 4 * MS;
            seq += MSS;
            cc.on_ack(&ack(now, seq, MSS, Some(rtt_ms)));
        }
        (now, seq)
    }

    /// `rounds` round trips of delayed ACKs (two segments each) from a window of `cwnd`
    /// segments and a threshold of `ssthresh`; returns the growth in segments.
    fn delayed_ack_growth<C: CongestionControl>(cc: &mut C, rounds: u32) -> u64 {
        let before = cc.cwnd();
        let (mut now, mut seq) = (0, 0);
        for _ in 0..rounds {
            let mut left = cc.cwnd() / MSS;
            while left > 0 {
                let n = left.min(2);
                now += 4 * MS;
                seq += n * MSS;
                cc.on_ack(&ack(now, seq, n * MSS, Some(100)));
                left -= n;
            }
        }
        (cc.cwnd() - before) / MSS
    }

    /// (slow start, congestion avoidance) growth of the controller `make` builds, per ACK and with
    /// byte counting.
    fn growth_under_both_rules<C: CongestionControl>(make: impl Fn(WindowConfig) -> C) -> [(u64, u64); 2] {
        [WindowGrowth::PerAck, WindowGrowth::ByteCounting].map(|window_growth| {
            let slow_start =
                delayed_ack_growth(&mut make(WindowConfig { window_growth, ..config(8, 1000) }), 1);
            let avoidance =
                delayed_ack_growth(&mut make(WindowConfig { window_growth, ..config(20, 20) }), 2);
            (slow_start, avoidance)
        })
    }

    #[test]
    fn every_westwood_variant_inherits_the_window_growth_rule() {
        // Slow start from 8 segments, one round trip of delayed ACKs: +4 per ACK, +8 by bytes.
        // Congestion avoidance at 20 segments, two round trips: +1 per ACK, +2 by bytes.
        let expected = [(4, 1), (8, 2)];
        assert_eq!(
            growth_under_both_rules(|c| Tcpw::new(c, TcpwEstimator::new(TcpwParams::default()))),
            expected
        );
        assert_eq!(growth_under_both_rules(|c| TcpwTr::new(c, TrEstimator::new())), expected);
        assert_eq!(
            growth_under_both_rules(|c| TcpwUcla::new(c, UclaEstimator::new(UclaParams::default()))),
            expected
        );
        assert_eq!(
            growth_under_both_rules(|c| TcpwAbse::new(c, AbseEstimator::new(AbseParams::default()))),
            expected
        );
        assert_eq!(
            growth_under_both_rules(|c| WestwoodPlus::new(
                c,
                WestwoodPlusEstimator::new(PlusParams::default())
            )),
            expected
        );
        // And Reno itself, for reference.
        assert_eq!(growth_under_both_rules(Reno::new), expected);
    }

    #[test]
    fn three_dupacks_set_ssthresh_to_bwe_times_rttmin_and_cap_cwin() {
        // BWE converges to 2 Mb/s, RTTmin 100 ms: BWE*RTTmin/seg_size = 2e6*0.1/8000 = 25.
        let mut cc = Tcpw::new(config(100, 1000), TcpwEstimator::new(TcpwParams::default()));
        let (now, _) = clock(&mut cc, 20);
        let bwe = cc.bandwidth_estimate_bps().unwrap();
        assert!((bwe - 2e6).abs() < 1.0);
        let before = cc.cwnd();
        assert!(before > 25 * MSS);
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now + MS, bytes_in_flight: before });
        // The filter approaches 2 Mb/s from below, so the floor gives 24 or 25 segments.
        let segments = (bwe * 0.1 / 8000.0).floor() as u64;
        assert!(segments == 24 || segments == 25);
        assert_eq!((cc.ssthresh(), cc.cwnd()), (segments * MSS, segments * MSS));
    }

    #[test]
    fn a_smaller_window_is_kept_after_three_dupacks() {
        // RTT 1 s: the ideal window BWE*RTTmin is ~250 segments, above what cwin reached.
        let mut cc = Tcpw::new(config(10, 11), TcpwEstimator::new(TcpwParams::default()));
        let (now, _) = clock_with_rtt(&mut cc, 20, 1000);
        let before = cc.cwnd();
        let segments = (cc.bandwidth_estimate_bps().unwrap() * 1.0 / 8000.0).floor() as u64;
        assert!(before < segments * MSS, "cwnd {before}");
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now + MS, bytes_in_flight: before });
        assert_eq!((cc.ssthresh(), cc.cwnd()), (segments * MSS, before));
        cc.on_recovery_exit(now + 2 * MS);
        assert_eq!(cc.cwnd(), before, "recovery exit must not raise cwin to ssthresh");
    }

    #[test]
    fn timeout_sets_cwin_to_one_and_ssthresh_to_the_decayed_estimate() {
        let mut cc = Tcpw::new(config(100, 1000), TcpwEstimator::new(TcpwParams::default()));
        let (now, _) = clock(&mut cc, 20);
        // The RTO fires 1 s after the last ACK: three virtual samples (tau/m = 250 ms) fall
        // strictly before it, at +250, +500 and +750 ms.
        let rto_at = now + 1000 * MS;
        let ratio: f64 = 3.0 / 5.0;
        let bwe = (ratio * 2e6 + 2e6 / 5.0) * ratio * ratio;
        let expected_segments = (bwe * 0.1 / 8000.0).floor() as u64;
        cc.on_congestion(CongestionEvent::Timeout { now_ns: rto_at, bytes_in_flight: 0, repeated: false });
        assert_eq!(cc.cwnd(), MSS);
        assert_eq!(cc.ssthresh(), expected_segments * MSS);
        assert_eq!(expected_segments, 7); // 2e6 -> 0.576e6 bits/s; * 0.1 s / 8000 bits
    }

    #[test]
    fn timeout_threshold_has_a_floor_of_two_segments() {
        let mut cc = Tcpw::new(config(4, 1000), TcpwEstimator::new(TcpwParams::default()));
        cc.on_ack(&ack(MS, MSS, MSS, Some(100)));
        cc.on_congestion(CongestionEvent::Timeout {
            now_ns: 60_000 * MS,
            bytes_in_flight: 0,
            repeated: false,
        });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 2 * MSS));
    }

    #[test]
    fn rttmin_is_the_smallest_sample() {
        let mut cc = Tcpw::new(config(4, 1000), TcpwEstimator::new(TcpwParams::default()));
        for (i, rtt) in [120, 90, 150, 95].into_iter().enumerate() {
            cc.on_ack(&ack((i as u64 + 1) * MS, (i as u64 + 1) * MSS, MSS, Some(rtt)));
        }
        assert_eq!(cc.min_rtt_ns(), Some(90 * MS));
    }

    #[test]
    fn last_credited_bytes_is_what_acked_count_credited() {
        let mut cc = Tcpw::new(config(4, 1000), TcpwEstimator::new(TcpwParams::default()));
        assert_eq!(cc.last_credited_bytes(), Some(0));
        let mut reference = AckedCount::new();
        // Delayed ACKs, three DUPACKs, then the cumulative ACK that covers them.
        let acks = [(2, 2), (4, 2), (4, 0), (4, 0), (4, 0), (9, 5)];
        for (i, (seq, newly)) in acks.into_iter().enumerate() {
            cc.on_ack(&ack((i as u64 + 1) * MS, seq * MSS, newly * MSS, None));
            let expected = reference.on_ack(seq * MSS, MSS) * MSS;
            assert_eq!(cc.last_credited_bytes(), Some(expected), "ACK {i}");
        }
        assert_eq!(cc.last_credited_bytes(), Some(2 * MSS), "5 segments less the 3 DUPACKs");
        assert_eq!(Reno::new(config(4, 1000)).last_credited_bytes(), None);
    }

    #[test]
    fn tr_divides_the_threshold_by_a() {
        // In slow start (ssthresh huge): a = 1.25 after the first 3-DUPACK loss.
        let mut cc = TcpwTr::new(config(100, 100_000), TrEstimator::new());
        let (now, _) = clock(&mut cc, 20);
        let bwe = cc.bandwidth_estimate_bps().unwrap();
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: 0 });
        let expected = (bwe * 0.1 / 8000.0 / 1.25).floor() as u64 * MSS;
        assert_eq!(cc.ssthresh(), expected);
        assert_eq!(cc.estimator().reduction_factor_value(), 1.25);
        // Now cwin (20 segments, capped) >= ssthresh: congestion avoidance resets a to 1.
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: 0 });
        assert_eq!(cc.estimator().reduction_factor_value(), 1.0);
        assert_eq!(cc.ssthresh(), (bwe * 0.1 / 8000.0).floor() as u64 * MSS);
    }

    #[test]
    fn the_seed_001_loss_episode_does_not_make_the_estimate_surge() {
        // Steady 2 Mb/s clock, then the seed 001 §II-A episode with the same ACK spacing:
        // 20 DUPACKs, four delayed ACKs for the retransmissions, one cumulative ACK for 110..129.
        let run = |naive: bool| {
            let mut filter = TcpwEstimator::new(TcpwParams::default());
            let mut count = AckedCount::new();
            let path = PathState::default();
            let mut now = 0;
            let mut acks: Vec<u64> = (1..=2500).collect();
            acks.extend(std::iter::repeat_n(2500, 20));
            acks.extend([2502, 2504, 2506, 2508, 2530, 2531, 2532]);
            let mut previous = 0;
            let mut peak: f64 = 0.0;
            for (i, a) in acks.into_iter().enumerate() {
                now += 4 * MS;
                let credited = if naive { (a - previous).max(1) } else { count.on_ack(a * MSS, MSS) };
                previous = a;
                filter.on_ack(now, credited * MSS, &path);
                if i >= 2500 {
                    peak = peak.max(filter.estimate_bps());
                }
            }
            peak
        };
        let with_acked_count = run(false);
        let naive = run(true);
        eprintln!("peak BWE: AckedCount {with_acked_count:.0}, naive {naive:.0}");
        assert!(with_acked_count < 2.2e6, "peak with AckedCount {with_acked_count}");
        assert!(naive > 2.3e6, "naive counting should surge: {naive}");
    }

    fn ucla() -> TcpwUcla {
        // Filter type 0 (EWMA 0.9): converges in a few dozen ACKs, keeps the arithmetic simple.
        TcpwUcla::new(
            config(100, 100_000),
            UclaEstimator::new(UclaParams { filter: UclaFilter::Ewma, ..UclaParams::default() }),
        )
    }

    #[test]
    fn ucla_runs_the_ucla_acked_count_and_the_others_the_papers() {
        assert_eq!(ucla().acked_count_rule(), AckedCountRule::Ucla);
        let tcpw = Tcpw::new(config(4, 1000), TcpwEstimator::new(TcpwParams::default()));
        assert_eq!(tcpw.acked_count_rule(), AckedCountRule::Paper);
        let chosen = WestwoodPlus::with_acked_count_rule(
            config(4, 1000),
            WestwoodPlusEstimator::new(PlusParams::default()),
            AckedCountRule::Ucla,
        );
        assert_eq!(chosen.acked_count_rule(), AckedCountRule::Ucla);
        // The chosen rule is the one that credits: a stretch ACK of 5 segments counts 2.
        let mut cc = Tcpw::with_acked_count_rule(
            config(4, 1000),
            TcpwEstimator::new(TcpwParams::default()),
            AckedCountRule::Ucla,
        );
        cc.on_ack(&ack(MS, MSS, MSS, None));
        cc.on_ack(&ack(2 * MS, 6 * MSS, 5 * MSS, None));
        assert_eq!(cc.last_credited_bytes(), Some(2 * MSS));
    }

    #[test]
    fn ucla_rtt_min_is_in_coarse_ticks_from_5_s() {
        let mut cc = ucla();
        assert_eq!(cc.min_rtt_ns(), Some(5_000 * MS), "before any sample");
        cc.on_ack(&ack(MS, MSS, MSS, None));
        assert_eq!(cc.min_rtt_ns(), Some(5_000 * MS));
        cc.on_ack(&AckEvent { rtt_sample_ns: Some(104_900_000), ..ack(2 * MS, 2 * MSS, MSS, None) });
        assert_eq!(cc.min_rtt_ns(), Some(100 * MS));
    }

    #[test]
    fn ucla_dupack_threshold_is_not_divided_by_a_but_moves_it() {
        // 2 Mb/s clock, RTT samples of 100 ms (10 ticks): BWE * RTTmin / seg_size = 25 segments.
        let mut cc = ucla();
        let (now, _) = clock(&mut cc, 20);
        let bwe = cc.bandwidth_estimate_bps().unwrap();
        let whole = (bwe * 0.1 / 8000.0).floor() as u64;
        assert!(whole == 24 || whole == 25, "{whole}");
        // In slow start (cwnd 5100 segments < ssthresh 100000): a 0 -> 0.25, threshold undivided.
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: 0 });
        assert_eq!(cc.estimator().reduction_factor_value(), 0.25);
        assert_eq!((cc.ssthresh(), cc.cwnd()), (whole * MSS, whole * MSS));
        // Now cwnd == ssthresh: congestion avoidance, a = 1, the timeout divides by 1.
        cc.on_congestion(CongestionEvent::Timeout {
            now_ns: now + 1000 * MS,
            bytes_in_flight: 0,
            repeated: false,
        });
        assert_eq!(cc.estimator().reduction_factor_value(), 1.0);
        assert_eq!((cc.ssthresh(), cc.cwnd()), (whole * MSS, MSS), "no decay at the timeout");
        // cwnd 1 < ssthresh: slow start, a timeout adds 1: a = 2, the threshold is halved.
        cc.on_congestion(CongestionEvent::Timeout {
            now_ns: now + 3000 * MS,
            bytes_in_flight: 0,
            repeated: true,
        });
        assert_eq!(cc.estimator().reduction_factor_value(), 2.0);
        assert_eq!(cc.ssthresh(), (bwe * 0.1 / 8000.0 / 2.0).floor() as u64 * MSS);
    }

    #[test]
    fn a_held_timeout_restarts_the_window_and_leaves_threshold_estimate_and_factor() {
        let mut cc = ucla();
        let (now, _) = clock(&mut cc, 20);
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: 0 });
        let (ssthresh, bwe) = (cc.ssthresh(), cc.bandwidth_estimate_bps());
        let a = cc.estimator().reduction_factor_value();
        // Seconds later, inside the same episode: only the window changes.
        cc.on_congestion(CongestionEvent::TimeoutHeld { now_ns: now + 3000 * MS, bytes_in_flight: 0 });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, ssthresh));
        assert_eq!(cc.bandwidth_estimate_bps(), bwe);
        assert_eq!(cc.estimator().reduction_factor_value(), a);
    }

    #[test]
    fn ucla_dupack_loss_in_slow_start_carries_into_the_next_timeout() {
        let mut cc = ucla();
        let (now, _) = clock(&mut cc, 20);
        let bwe = cc.bandwidth_estimate_bps().unwrap();
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight: 0 });
        // Back in slow start by hand (a trace replay would observe it): a 0.25 -> 1.25.
        cc.observe_window(2 * MSS, 50 * MSS);
        cc.on_congestion(CongestionEvent::Timeout { now_ns: now, bytes_in_flight: 0, repeated: false });
        assert_eq!(cc.estimator().reduction_factor_value(), 1.25);
        assert_eq!(cc.ssthresh(), (bwe * 0.1 / 8000.0 / 1.25).floor() as u64 * MSS);
    }

    #[test]
    fn ucla_thresholds_have_a_floor_of_two_segments() {
        let mut cc = ucla();
        // No sample yet: BWE 0, RTTmin 5 s -> 0 segments -> 2.
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: MS, bytes_in_flight: 0 });
        assert_eq!(cc.ssthresh(), 2 * MSS);
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 2 * MS, bytes_in_flight: 0, repeated: false });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 2 * MSS));
        // Before any RTT sample the agent's RTTmin of 5 s counts: one sample of 8000 bits over
        // 3 ms gives BWE 0.1 * 2.67 Mb/s (EWMA), * 5 s / 8000 bits = 166.7 segments.
        let mut cc = ucla();
        cc.on_ack(&ack(MS, MSS, MSS, None));
        cc.on_ack(&ack(4 * MS, 2 * MSS, MSS, None));
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 4 * MS, bytes_in_flight: 0 });
        assert_eq!(cc.ssthresh(), 166 * MSS);
    }

    /// An estimate fixed at `bps`, with or without the UCLA agent's window rule.
    struct Fixed {
        bps: f64,
        keeps_progress: bool,
    }

    impl BandwidthEstimator for Fixed {
        fn on_ack(&mut self, _now_ns: u64, _delivered_bytes: u64, _path: &PathState) {}
        fn estimate_at(&mut self, _now_ns: u64) -> f64 {
            self.bps
        }
        fn estimate_bps(&self) -> f64 {
            self.bps
        }
        fn keeps_window_progress(&self) -> bool {
            self.keeps_progress
        }
    }

    #[test]
    fn the_uclas_dupack_rule_keeps_a_window_at_its_threshold_with_its_progress() {
        // Congestion avoidance at 20 segments; BWE x RTTmin = 2 Mb/s x 80 ms = 20 segments. The
        // window is already at the threshold: the agent keeps the 15 ACKs of progress towards
        // the 21st segment, the paper's rule (as implemented) starts counting again.
        let acks_to_grow = |keeps_progress: bool| {
            let mut cc = Westwood::new(config(20, 20), Fixed { bps: 2e6, keeps_progress });
            let mut seq = 0;
            let mut next = |cc: &mut Westwood<Fixed>| {
                seq += MSS;
                cc.on_ack(&ack(seq * 4, seq, MSS, Some(80)));
            };
            for _ in 0..15 {
                next(&mut cc);
            }
            assert_eq!(cc.cwnd(), 20 * MSS);
            cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 20 * MSS });
            assert_eq!((cc.cwnd(), cc.ssthresh()), (20 * MSS, 20 * MSS));
            let mut acks = 0;
            while cc.cwnd() == 20 * MSS {
                next(&mut cc);
                acks += 1;
            }
            acks
        };
        assert_eq!(acks_to_grow(true), 5);
        assert_eq!(acks_to_grow(false), 20);
        // Above the threshold both lower the window to it (and restart the progress).
        let mut cc = Westwood::new(config(30, 30), Fixed { bps: 2e6, keeps_progress: true });
        cc.on_ack(&ack(4, MSS, MSS, Some(80)));
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 30 * MSS });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (20 * MSS, 20 * MSS));
        assert!(UclaEstimator::new(UclaParams::default()).keeps_window_progress());
        assert!(!TcpwEstimator::new(TcpwParams::default()).keeps_window_progress());
    }

    #[test]
    fn observe_window_sets_what_the_estimators_and_loss_rules_see() {
        let mut cc = Tcpw::new(config(4, 1000), TcpwEstimator::new(TcpwParams::default()));
        cc.observe_window(30 * MSS, 20 * MSS);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (30 * MSS, 20 * MSS));
        // Held to the invariants.
        cc.observe_window(0, 0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 2 * MSS));
        // Through the CongestionControl trait (how a replay holding a `dyn` control calls it).
        let dynamic: &mut dyn CongestionControl = &mut cc;
        dynamic.observe_window(12 * MSS, 8 * MSS);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (12 * MSS, 8 * MSS));
        // Observing the window the controller has changes nothing, even mid-way through a
        // congestion-avoidance round: 10 ACKs at cwnd 10 add one segment either way.
        let run = |observe: bool| {
            let mut cc = Tcpw::new(config(10, 10), TcpwEstimator::new(TcpwParams::default()));
            for k in 1..=10u64 {
                if observe {
                    cc.observe_window(cc.cwnd(), cc.ssthresh());
                }
                cc.on_ack(&ack(k * MS, k * MSS, MSS, Some(100)));
            }
            cc.cwnd()
        };
        assert_eq!((run(false), run(true)), (11 * MSS, 11 * MSS));
        // ABSE reads the window before each ACK (eq. 4): the observed one. At 2 Mb/s and 100 ms
        // Th * RTT is 25 KB: an observed 10 KB window is uncongested (T_k = T_min), 100 KB is not.
        let abse_interval = |observed_cwnd: u64| {
            let mut cc = TcpwAbse::new(config(4, 1000), AbseEstimator::new(AbseParams::default()));
            let mut now = 0;
            for k in 1..=500u64 {
                now += 4 * MS;
                cc.observe_window(observed_cwnd, 1000 * MSS);
                cc.on_ack(&ack(now, k * MSS, MSS, Some(100)));
            }
            cc.estimator().sampling_interval_ns()
        };
        assert_eq!(abse_interval(10 * MSS), 50 * MS);
        assert!(abse_interval(100 * MSS) > 50 * MS, "cwnd 100 KB: congested, T_k > T_min");
        // TCPW-TR's phase at a loss is the observed one: slow start, a = 1.25.
        let mut tr = TcpwTr::new(config(100, 10), TrEstimator::new());
        tr.observe_window(5 * MSS, 50 * MSS);
        tr.on_congestion(CongestionEvent::DuplicateAcks { now_ns: MS, bytes_in_flight: 0 });
        assert_eq!(tr.estimator().reduction_factor_value(), 1.25);
    }
}
