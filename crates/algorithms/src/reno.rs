//! TCP Reno window rules, RFC 5681 §3.1-3.2.
//!
//! By default ([`WindowGrowth::PerAck`]) slow start grows cwnd by min(N, SMSS) per ACK (N = newly
//! acked bytes); congestion avoidance grows it by SMSS once per cwnd's worth of ACKs, which is the
//! integer-exact form of RFC 5681's per-ACK `cwnd += SMSS*SMSS/cwnd` (eq. 3). With delayed ACKs
//! that is half a segment per RTT, as in the ns-2 agents the seed papers used. With
//! [`WindowGrowth::ByteCounting`] (RFC 3465) slow start adds min(N, 2*SMSS) per ACK (§2.2) and
//! congestion avoidance one SMSS per cwnd's worth of *acknowledged bytes* (§2.1): one segment
//! per RTT whatever the ACK ratio. [`WindowGrowth::Linux`] counts the same way without the
//! per-ACK limit (Linux's `tcp_slow_start` and `tcp_cong_avoid_ai`). On a loss,
//! `ssthresh = max(FlightSize/2, 2*SMSS)` (eq. 4); after a timeout cwnd restarts from the loss
//! window, 1 SMSS.
//!
//! Deviation: FlightSize is capped at cwnd. Without SACK, everything above the first hole counts
//! as "in flight" even when the receiver holds it, so a timeout during a long NewReno recovery
//! (one hole per RTT after a slow-start overshoot) would otherwise set ssthresh to half of several
//! windows and overshoot again, cycle after cycle. ns-2, which the seed papers used, and Linux
//! both halve the congestion window instead; the cap keeps RFC 5681's intent for application-
//! limited senders (FlightSize < cwnd) and their behaviour otherwise.
//!
//! NewReno (RFC 6582), SACK (RFC 6675) and Tahoe use these same rules: they change only the
//! sender's loss recovery (Tahoe's 3-DUPACK event restarts cwnd from one segment, like a timeout
//! that keeps RFC 5681's DUPACK threshold).

use crate::congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig, WindowGrowth};

#[derive(Debug, Clone)]
pub struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    growth: WindowGrowth,
    /// Credit towards the next congestion-avoidance increment, bytes: SMSS per ACK
    /// ([`WindowGrowth::PerAck`]) or the bytes acknowledged (RFC 3465 §2.1 `bytes_acked`).
    avoidance_credit: u64,
}

impl Reno {
    pub fn new(config: WindowConfig) -> Self {
        assert!(config.mss > 0, "mss must be positive");
        Reno {
            mss: config.mss,
            cwnd: config.initial_cwnd.max(config.mss),
            ssthresh: config.initial_ssthresh.max(2 * config.mss),
            growth: config.window_growth,
            avoidance_credit: 0,
        }
    }

    /// RFC 5681 eq. (4), FlightSize capped at cwnd (see the module notes). With
    /// [`WindowGrowth::Linux`] the window is counted in packets, as Linux's is:
    /// `tcp_reno_ssthresh()` = `max(snd_cwnd >> 1, 2)`, so an odd window halves down to whole
    /// segments (5 -> 2) where RFC 5681's bytes give 2.5.
    pub fn halved_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        let half = bytes_in_flight.min(self.cwnd) / 2;
        let half = if self.growth == WindowGrowth::Linux { half / self.mss * self.mss } else { half };
        half.max(2 * self.mss)
    }

    /// Window growth on an ACK of new data outside recovery, shared by every controller whose
    /// increase is Reno's (the Westwood family changes only the decrease). The configured
    /// [`WindowGrowth`] decides how much an ACK covering several segments counts.
    pub fn grow(&mut self, newly_acked_bytes: u64) {
        if newly_acked_bytes == 0 {
            return;
        }
        let mut avoidance_bytes = newly_acked_bytes;
        if self.cwnd < self.ssthresh {
            let (increase, left) =
                self.growth.slow_start_step(newly_acked_bytes, self.cwnd, self.ssthresh, self.mss);
            self.cwnd += increase;
            self.avoidance_credit = 0;
            if left == 0 {
                return;
            }
            avoidance_bytes = left;
        }
        self.avoid(avoidance_bytes);
    }

    /// Congestion avoidance for `newly_acked_bytes`.
    fn avoid(&mut self, newly_acked_bytes: u64) {
        if self.growth == WindowGrowth::Linux {
            // tcp_cong_avoid_ai: credit earned at a smaller window is spent one segment first,
            // then every whole window of credit is a segment.
            if self.avoidance_credit >= self.cwnd {
                self.avoidance_credit = 0;
                self.cwnd += self.mss;
            }
            self.avoidance_credit += newly_acked_bytes;
            if self.avoidance_credit >= self.cwnd {
                let segments = self.avoidance_credit / self.cwnd;
                self.avoidance_credit -= segments * self.cwnd;
                self.cwnd += segments * self.mss;
            }
            return;
        }
        // RFC 3465 §2.1: one SMSS each time the credit reaches cwnd, the excess carried over.
        self.avoidance_credit += self.growth.avoidance_credit(newly_acked_bytes, self.mss);
        if self.avoidance_credit >= self.cwnd {
            self.avoidance_credit -= self.cwnd;
            self.cwnd += self.mss;
        }
    }

    /// Set ssthresh alone, leaving cwnd and its congestion-avoidance credit as they are (the
    /// UCLA agent's DUPACK rule for a window already below its new threshold).
    pub fn set_ssthresh(&mut self, ssthresh: u64) {
        self.ssthresh = ssthresh.max(2 * self.mss);
    }

    /// Set both thresholds directly (used by controllers built on Reno's growth).
    pub fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd.max(self.mss);
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.avoidance_credit = 0;
    }

    /// Take the window a trace recorded (bytes), held to `cwnd >= mss` and `ssthresh >= 2 mss`.
    /// The congestion-avoidance credit is kept when the window is the one already held (so
    /// observing it changes nothing) and restarts otherwise, as [`Reno::set_window`] restarts it.
    pub fn observe_window(&mut self, cwnd: u64, ssthresh: u64) {
        let cwnd = cwnd.max(self.mss);
        let ssthresh = ssthresh.max(2 * self.mss);
        if (cwnd, ssthresh) != (self.cwnd, self.ssthresh) {
            self.set_window(cwnd, ssthresh);
        }
    }

    pub fn mss(&self) -> u64 {
        self.mss
    }

    pub fn window_growth(&self) -> WindowGrowth {
        self.growth
    }
}

impl CongestionControl for Reno {
    fn on_ack(&mut self, ack: &AckEvent) {
        // During fast recovery the sender inflates its window itself (RFC 5681 §3.2 steps 4-5);
        // cwnd proper stays at ssthresh until recovery ends.
        if ack.in_recovery || ack.is_dupack || !ack.cwnd_limited {
            return;
        }
        self.grow(ack.newly_delivered_bytes);
    }

    fn on_congestion(&mut self, event: CongestionEvent) {
        match event {
            CongestionEvent::DuplicateAcks { bytes_in_flight, .. } => {
                let ssthresh = self.halved_ssthresh(bytes_in_flight);
                self.set_window(ssthresh, ssthresh);
            }
            // Tahoe: the same threshold, then slow start from one segment.
            CongestionEvent::DuplicateAcksSlowStart { bytes_in_flight, .. } => {
                let ssthresh = self.halved_ssthresh(bytes_in_flight);
                self.set_window(self.mss, ssthresh);
            }
            // RFC 5681 §3.1: when the segment has already been retransmitted by the timer,
            // ssthresh is held constant; the window still restarts from one segment.
            CongestionEvent::Timeout { repeated: true, .. } | CongestionEvent::TimeoutHeld { .. } => {
                self.set_window(self.mss, self.ssthresh)
            }
            CongestionEvent::Timeout { bytes_in_flight, .. } => {
                let ssthresh = self.halved_ssthresh(bytes_in_flight);
                self.set_window(self.mss, ssthresh);
            }
        }
    }

    fn on_recovery_exit(&mut self, _now_ns: u64) {
        // RFC 5681 §3.2 step 6 ("deflating" the window); RFC 6582 §3.2 step 3 option (2).
        self.cwnd = self.ssthresh;
        self.avoidance_credit = 0;
    }

    fn cwnd(&self) -> u64 {
        self.cwnd
    }

    fn ssthresh(&self) -> u64 {
        self.ssthresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1000;

    fn reno(initial_cwnd: u64, initial_ssthresh: u64) -> Reno {
        reno_with(initial_cwnd, initial_ssthresh, WindowGrowth::PerAck)
    }

    fn reno_with(initial_cwnd: u64, initial_ssthresh: u64, window_growth: WindowGrowth) -> Reno {
        Reno::new(WindowConfig { mss: MSS, initial_cwnd, initial_ssthresh, window_growth })
    }

    fn ack(newly: u64) -> AckEvent {
        AckEvent {
            now_ns: 0,
            ack_seq: 0,
            newly_acked_bytes: newly,
            newly_delivered_bytes: newly,
            is_dupack: false,
            rtt_sample_ns: None,
            in_recovery: false,
            bytes_in_flight: 10 * MSS,
            cwnd_limited: true,
        }
    }

    #[test]
    fn with_linux_growth_an_odd_window_halves_to_whole_segments() {
        for (growth, expected) in [(WindowGrowth::PerAck, 2500), (WindowGrowth::Linux, 2000)] {
            let mut r = reno_with(5 * MSS, 1 << 40, growth);
            r.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 5 * MSS });
            assert_eq!((r.ssthresh(), r.cwnd()), (expected, expected), "{growth:?}");
        }
        // The floor of two segments stays.
        let mut r = reno_with(3 * MSS, 1 << 40, WindowGrowth::Linux);
        r.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 3 * MSS });
        assert_eq!(r.ssthresh(), 2 * MSS);
    }

    #[test]
    fn slow_start_doubles_per_round_trip_without_delayed_acks() {
        let mut cc = reno(2 * MSS, u64::MAX / 2);
        for round in 0..5 {
            let segments = cc.cwnd() / MSS;
            for _ in 0..segments {
                cc.on_ack(&ack(MSS));
            }
            assert_eq!(cc.cwnd(), (2 * MSS) << (round + 1));
        }
    }

    #[test]
    fn slow_start_increase_is_capped_at_one_segment_per_ack() {
        let mut cc = reno(2 * MSS, u64::MAX / 2);
        cc.on_ack(&ack(2 * MSS)); // a delayed ACK covering two segments
        assert_eq!(cc.cwnd(), 3 * MSS);
    }

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_of_acks() {
        let mut cc = reno(10 * MSS, 10 * MSS);
        for _ in 0..9 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 10 * MSS);
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.cwnd(), 11 * MSS);
        for _ in 0..11 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 12 * MSS);
    }

    #[test]
    fn duplicate_acks_halve_the_flight_with_a_floor_of_two_segments() {
        let mut cc = reno(20 * MSS, 10 * MSS);
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 16 * MSS });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (8 * MSS, 8 * MSS));
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 3 * MSS });
        assert_eq!(cc.ssthresh(), 2 * MSS);
    }

    #[test]
    fn tahoe_duplicate_acks_halve_ssthresh_and_restart_from_one_segment() {
        let mut cc = reno(20 * MSS, 100 * MSS);
        cc.on_congestion(CongestionEvent::DuplicateAcksSlowStart { now_ns: 0, bytes_in_flight: 16 * MSS });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 8 * MSS));
        // Slow start again up to ssthresh.
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.cwnd(), 2 * MSS);
    }

    #[test]
    fn flight_size_above_cwnd_is_capped_at_cwnd() {
        let mut cc = reno(10 * MSS, 10 * MSS);
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 200 * MSS, repeated: false });
        assert_eq!(cc.ssthresh(), 5 * MSS);
    }

    #[test]
    fn timeout_restarts_from_one_segment() {
        let mut cc = reno(20 * MSS, 10 * MSS);
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 20 * MSS, repeated: false });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 10 * MSS));
        // The same segment times out again: ssthresh is held (RFC 5681 §3.1), not halved to 2.
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 20 * MSS, repeated: true });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 10 * MSS));
    }

    #[test]
    fn a_held_timeout_keeps_the_episodes_threshold() {
        // Fast recovery set ssthresh from a 20-segment flight; the RTO inside it keeps that.
        let mut cc = reno(20 * MSS, 100 * MSS);
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 20 * MSS });
        cc.on_congestion(CongestionEvent::TimeoutHeld { now_ns: 0, bytes_in_flight: 200 * MSS });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 10 * MSS));
    }

    #[test]
    fn recovery_acks_do_not_grow_the_window_and_exit_deflates_to_ssthresh() {
        let mut cc = reno(20 * MSS, 100 * MSS);
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 20 * MSS });
        let mut in_recovery = ack(MSS);
        in_recovery.in_recovery = true;
        cc.on_ack(&in_recovery);
        assert_eq!(cc.cwnd(), 10 * MSS);
        cc.on_recovery_exit(0);
        assert_eq!(cc.cwnd(), cc.ssthresh());
    }

    /// One round trip: the whole window acknowledged by ACKs of `per_ack` segments each (the
    /// last one possibly smaller), as a receiver with delayed ACKs does. Returns the growth.
    fn round_trip<C: CongestionControl>(cc: &mut C, per_ack: u64) -> u64 {
        let before = cc.cwnd();
        let mut left = before / MSS;
        while left > 0 {
            let n = left.min(per_ack);
            cc.on_ack(&ack(n * MSS));
            left -= n;
        }
        cc.cwnd() - before
    }

    #[test]
    fn byte_counting_doubles_slow_start_growth_with_delayed_acks() {
        // Two segments per ACK: per ACK, slow start grows by half the window per round trip
        // (x1.5); with byte counting by the whole window (x2), as without delayed ACKs.
        for segments in [4, 8, 16, 32] {
            let mut per_ack = reno(segments * MSS, u64::MAX / 4);
            let mut abc = reno_with(segments * MSS, u64::MAX / 4, WindowGrowth::ByteCounting);
            assert_eq!(round_trip(&mut per_ack, 2), segments / 2 * MSS);
            assert_eq!(round_trip(&mut abc, 2), segments * MSS);
        }
        let mut abc = reno_with(4 * MSS, u64::MAX / 4, WindowGrowth::ByteCounting);
        for round in 0..5 {
            round_trip(&mut abc, 2);
            assert_eq!(abc.cwnd(), (4 * MSS) << (round + 1));
        }
        // With one ACK per segment the two rules coincide.
        let mut per_ack = reno(4 * MSS, u64::MAX / 4);
        let mut abc = reno_with(4 * MSS, u64::MAX / 4, WindowGrowth::ByteCounting);
        for _ in 0..5 {
            assert_eq!(round_trip(&mut per_ack, 1), round_trip(&mut abc, 1));
        }
    }

    #[test]
    fn byte_counting_doubles_congestion_avoidance_growth_with_delayed_acks() {
        // A window of 20 segments in 10 delayed ACKs: byte counting adds a segment after one
        // round trip, per-ACK counting after two.
        let mut per_ack = reno(20 * MSS, 20 * MSS);
        let mut abc = reno_with(20 * MSS, 20 * MSS, WindowGrowth::ByteCounting);
        assert_eq!((round_trip(&mut per_ack, 2), round_trip(&mut abc, 2)), (0, MSS));
        assert_eq!(round_trip(&mut per_ack, 2), MSS);
        // Over 40 round trips: one segment per round trip against one per two.
        let mut per_ack = reno(20 * MSS, 20 * MSS);
        let mut abc = reno_with(20 * MSS, 20 * MSS, WindowGrowth::ByteCounting);
        let grown_per_ack: u64 = (0..40).map(|_| round_trip(&mut per_ack, 2)).sum();
        let grown_abc: u64 = (0..40).map(|_| round_trip(&mut abc, 2)).sum();
        assert_eq!(grown_abc, 40 * MSS);
        assert!((19 * MSS..=21 * MSS).contains(&grown_per_ack), "per-ACK growth {grown_per_ack}");
        // Without delayed ACKs both add one segment per round trip.
        let mut per_ack = reno(20 * MSS, 20 * MSS);
        let mut abc = reno_with(20 * MSS, 20 * MSS, WindowGrowth::ByteCounting);
        for _ in 0..10 {
            assert_eq!((round_trip(&mut per_ack, 1), round_trip(&mut abc, 1)), (MSS, MSS));
        }
    }

    #[test]
    fn byte_counting_slow_start_is_capped_at_two_segments_per_ack() {
        // RFC 3465 §2.2, L = 2*SMSS: a stretch ACK of five segments adds two.
        let mut abc = reno_with(2 * MSS, u64::MAX / 4, WindowGrowth::ByteCounting);
        abc.on_ack(&ack(5 * MSS));
        assert_eq!(abc.cwnd(), 4 * MSS);
        // Below the limit the bytes acknowledged count exactly, also partial segments.
        abc.on_ack(&ack(3 * MSS / 2));
        assert_eq!(abc.cwnd(), 4 * MSS + 3 * MSS / 2);
        abc.on_ack(&ack(300));
        assert_eq!(abc.cwnd(), 4 * MSS + 3 * MSS / 2 + 300);
        // Per ACK: one segment at most, whatever the ACK covers.
        let mut per_ack = reno(2 * MSS, u64::MAX / 4);
        per_ack.on_ack(&ack(5 * MSS));
        assert_eq!(per_ack.cwnd(), 3 * MSS);
        assert_eq!(WindowGrowth::ByteCounting.slow_start_step(10 * MSS, 2 * MSS, 4 * MSS, MSS), (2 * MSS, 0));
    }

    #[test]
    fn linux_growth_takes_a_stretch_ack_whole_up_to_ssthresh_and_the_rest_into_avoidance() {
        // After a timeout (cwnd 1) the retransmission's ACK covers the 54 segments the
        // receiver held: slow start to ssthresh (27), the other 27 segments are one window of
        // avoidance credit, one more segment (the kernel's trace: cwnd 1 -> 28 on that ACK).
        let mut linux = reno_with(MSS, 27 * MSS, WindowGrowth::Linux);
        linux.on_ack(&ack(54 * MSS));
        assert_eq!(linux.cwnd(), 28 * MSS);
        // RFC 3465 byte counting adds two segments, per-ACK counting one.
        let mut abc = reno_with(MSS, 27 * MSS, WindowGrowth::ByteCounting);
        abc.on_ack(&ack(54 * MSS));
        assert_eq!(abc.cwnd(), 3 * MSS);
        let mut per_ack = reno_with(MSS, 27 * MSS, WindowGrowth::PerAck);
        per_ack.on_ack(&ack(54 * MSS));
        assert_eq!(per_ack.cwnd(), 2 * MSS);
        // Slow start stops at ssthresh, where the other two rules may pass it by a segment.
        let mut linux = reno_with(9 * MSS, 10 * MSS, WindowGrowth::Linux);
        linux.on_ack(&ack(2 * MSS));
        assert_eq!(linux.cwnd(), 10 * MSS);
        let mut abc = reno_with(9 * MSS, 10 * MSS, WindowGrowth::ByteCounting);
        abc.on_ack(&ack(2 * MSS));
        assert_eq!(abc.cwnd(), 11 * MSS);
    }

    #[test]
    fn linux_growth_equals_byte_counting_for_ordinary_and_delayed_acks() {
        for per_ack in [1, 2] {
            let mut linux = reno_with(4 * MSS, 64 * MSS, WindowGrowth::Linux);
            let mut abc = reno_with(4 * MSS, 64 * MSS, WindowGrowth::ByteCounting);
            for _ in 0..30 {
                assert_eq!(round_trip(&mut linux, per_ack), round_trip(&mut abc, per_ack));
                assert_eq!(linux.cwnd(), abc.cwnd());
            }
            assert!(linux.cwnd() > 64 * MSS, "reached congestion avoidance");
        }
    }

    #[test]
    fn linux_avoidance_turns_every_window_of_credit_into_a_segment() {
        // tcp_cong_avoid_ai: an ACK of three windows adds three segments at once.
        let mut linux = reno_with(10 * MSS, 10 * MSS, WindowGrowth::Linux);
        linux.on_ack(&ack(30 * MSS + 500));
        assert_eq!(linux.cwnd(), 13 * MSS);
        // The 500 bytes left, and credit beyond the new window, come first as one segment.
        let mut linux = reno_with(10 * MSS, 10 * MSS, WindowGrowth::Linux);
        linux.on_ack(&ack(9 * MSS));
        linux.set_window(5 * MSS, 5 * MSS); // a loss rule: the credit starts again
        linux.on_ack(&ack(4 * MSS));
        assert_eq!(linux.cwnd(), 5 * MSS);
        linux.on_ack(&ack(MSS));
        assert_eq!(linux.cwnd(), 6 * MSS);
    }

    #[test]
    fn byte_counting_carries_the_excess_and_restarts_after_a_loss() {
        // RFC 3465 §2.1: bytes_acked -= cwnd, the excess counts towards the next segment.
        let mut cc = reno_with(10 * MSS, 10 * MSS, WindowGrowth::ByteCounting);
        for _ in 0..3 {
            cc.on_ack(&ack(4 * MSS));
        }
        assert_eq!(cc.cwnd(), 11 * MSS); // 12 segments acknowledged: 2 left over
        for _ in 0..9 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 12 * MSS); // 2 + 9 = 11 = the window of 11 segments

        // Nine segments of credit, then a loss: the credit is gone after recovery.
        let mut cc = reno_with(10 * MSS, 10 * MSS, WindowGrowth::ByteCounting);
        for _ in 0..9 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 10 * MSS);
        cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: 0, bytes_in_flight: 10 * MSS });
        cc.on_recovery_exit(0);
        assert_eq!((cc.cwnd(), cc.ssthresh()), (5 * MSS, 5 * MSS));
        for _ in 0..4 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 5 * MSS, "credit from before the loss must not count");
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.cwnd(), 6 * MSS);

        // After a timeout: slow start from one segment with L = 2*SMSS, then a fresh count.
        for _ in 0..3 {
            cc.on_ack(&ack(MSS));
        }
        cc.on_congestion(CongestionEvent::Timeout { now_ns: 0, bytes_in_flight: 6 * MSS, repeated: false });
        assert_eq!((cc.cwnd(), cc.ssthresh()), (MSS, 3 * MSS));
        cc.on_ack(&ack(4 * MSS));
        assert_eq!(cc.cwnd(), 3 * MSS); // slow start: +2 segments, now at ssthresh
        for _ in 0..2 {
            cc.on_ack(&ack(MSS));
        }
        assert_eq!(cc.cwnd(), 3 * MSS);
        cc.on_ack(&ack(MSS));
        assert_eq!(cc.cwnd(), 4 * MSS);
    }

    #[test]
    fn window_growth_names_round_trip() {
        for g in WindowGrowth::ALL {
            assert_eq!(WindowGrowth::from_name(g.name()), Some(g));
        }
        assert_eq!(WindowGrowth::from_name(" Byte_Counting "), Some(WindowGrowth::ByteCounting));
        assert_eq!(WindowGrowth::from_name("abc"), None);
        assert_eq!(WindowGrowth::default(), WindowGrowth::PerAck);
    }

    #[test]
    fn initial_window_follows_rfc5681() {
        assert_eq!(WindowConfig::rfc5681_initial_window(400), 4 * 400);
        assert_eq!(WindowConfig::rfc5681_initial_window(1000), 4 * 1000);
        assert_eq!(WindowConfig::rfc5681_initial_window(1460), 3 * 1460);
        assert_eq!(WindowConfig::rfc5681_initial_window(2500), 2 * 2500);
    }
}
