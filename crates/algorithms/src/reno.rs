//! TCP Reno window rules, RFC 5681 §3.1-3.2.
//!
//! Slow start grows cwnd by min(N, SMSS) per ACK (N = newly acked bytes); congestion avoidance
//! grows it by SMSS once per cwnd's worth of ACKs, which is the integer-exact form of RFC 5681's
//! per-ACK `cwnd += SMSS*SMSS/cwnd` (eq. 3). With delayed ACKs that is half a segment per RTT,
//! as in the ns-2 agents the seed papers used. On a loss, `ssthresh = max(FlightSize/2, 2*SMSS)`
//! (eq. 4); after a timeout cwnd restarts from the loss window, 1 SMSS.
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

use crate::congestion::{AckEvent, CongestionControl, CongestionEvent, WindowConfig};

#[derive(Debug, Clone)]
pub struct Reno {
    mss: u64,
    cwnd: u64,
    ssthresh: u64,
    /// ACKs counted towards the next congestion-avoidance increment, in units of SMSS.
    avoidance_credit: u64,
}

impl Reno {
    pub fn new(config: WindowConfig) -> Self {
        assert!(config.mss > 0, "mss must be positive");
        Reno {
            mss: config.mss,
            cwnd: config.initial_cwnd.max(config.mss),
            ssthresh: config.initial_ssthresh.max(2 * config.mss),
            avoidance_credit: 0,
        }
    }

    /// RFC 5681 eq. (4), FlightSize capped at cwnd (see the module notes).
    pub fn halved_ssthresh(&self, bytes_in_flight: u64) -> u64 {
        (bytes_in_flight.min(self.cwnd) / 2).max(2 * self.mss)
    }

    /// Window growth on an ACK of new data outside recovery, shared by every controller whose
    /// increase is Reno's (the Westwood family changes only the decrease).
    pub fn grow(&mut self, newly_acked_bytes: u64) {
        if newly_acked_bytes == 0 {
            return;
        }
        if self.cwnd < self.ssthresh {
            self.cwnd += newly_acked_bytes.min(self.mss);
            self.avoidance_credit = 0;
        } else {
            self.avoidance_credit += self.mss;
            if self.avoidance_credit >= self.cwnd {
                self.avoidance_credit -= self.cwnd;
                self.cwnd += self.mss;
            }
        }
    }

    /// Set both thresholds directly (used by controllers built on Reno's growth).
    pub fn set_window(&mut self, cwnd: u64, ssthresh: u64) {
        self.cwnd = cwnd.max(self.mss);
        self.ssthresh = ssthresh.max(2 * self.mss);
        self.avoidance_credit = 0;
    }

    pub fn mss(&self) -> u64 {
        self.mss
    }
}

impl CongestionControl for Reno {
    fn name(&self) -> &'static str {
        "reno"
    }

    fn on_ack(&mut self, ack: &AckEvent) {
        // During fast recovery the sender inflates its window itself (RFC 5681 §3.2 steps 4-5);
        // cwnd proper stays at ssthresh until recovery ends.
        if ack.in_recovery || ack.is_dupack {
            return;
        }
        self.grow(ack.newly_acked_bytes);
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
            CongestionEvent::Timeout { repeated: true, .. } => self.set_window(self.mss, self.ssthresh),
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
        Reno::new(WindowConfig { mss: MSS, initial_cwnd, initial_ssthresh })
    }

    fn ack(newly: u64) -> AckEvent {
        AckEvent {
            now_ns: 0,
            ack_seq: 0,
            newly_acked_bytes: newly,
            is_dupack: false,
            rtt_sample_ns: None,
            in_recovery: false,
            bytes_in_flight: 10 * MSS,
        }
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

    #[test]
    fn initial_window_follows_rfc5681() {
        assert_eq!(WindowConfig::rfc5681_initial_window(400), 4 * 400);
        assert_eq!(WindowConfig::rfc5681_initial_window(1000), 4 * 1000);
        assert_eq!(WindowConfig::rfc5681_initial_window(1460), 3 * 1460);
        assert_eq!(WindowConfig::rfc5681_initial_window(2500), 2 * 2500);
    }
}
