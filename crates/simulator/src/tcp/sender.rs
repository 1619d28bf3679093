//! The sending end of a bulk ("FTP") TCP flow.
//!
//! Implements what RFC 5681 leaves to the sender — sending within min(cwnd, rwnd), fast
//! retransmit on the `dupack_threshold`-th duplicate ACK, fast recovery with window inflation —
//! plus RFC 6582 NewReno partial-ACK handling and the RFC 6298 retransmission timer with Karn's
//! rule and exponential backoff. The congestion window itself belongs to the
//! [`CongestionControl`], which sees every ACK; recovery keeps its temporary window inflation
//! separately (like ns-2's `dupwnd_`), so any congestion control composes with any recovery.
//!
//! Deviations: no limited transmit (RFC 3042), as in the ns-2 agents of the seed papers; after a
//! timeout the sender goes back to `snd_una` and resends everything outstanding as the window
//! allows (go-back-N), since without SACK it cannot know what the receiver holds.

use super::rtt::RttEstimator;
use crate::model::{Nanos, TcpSpec};
use crate::network::{Packet, PacketKind};
use std::collections::VecDeque;
use westwood_algorithms::{AckEvent, CongestionControl, CongestionEvent, Recovery};

#[derive(Debug, Clone, Copy)]
struct SentSegment {
    start: u64,
    end: u64,
    sent_at: Nanos,
    /// Sent more than once: its ACK gives no RTT sample (Karn).
    retransmitted: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct SenderStats {
    /// Segments put on the wire, retransmissions included.
    pub segments_sent: u64,
    pub retransmits: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
}

pub struct Sender {
    flow: u32,
    node: u32,
    peer: u32,
    mss: u64,
    header_size: u64,
    dupack_threshold: u32,
    recovery_style: Recovery,
    cc: Box<dyn CongestionControl>,
    rtt: RttEstimator,

    /// Oldest unacknowledged byte.
    snd_una: u64,
    /// Next byte to send (moves back to `snd_una` after a timeout).
    snd_nxt: u64,
    /// Highest byte sent + 1.
    snd_max: u64,
    /// The application has handed TCP data up to here (`None`: unlimited).
    data_limit: Option<u64>,
    started: bool,
    peer_window: u64,

    dupacks: u32,
    in_recovery: bool,
    /// RFC 6582 `recover`: highest sequence number sent when the last loss was detected.
    recover: Option<u64>,
    /// Window inflation during fast recovery, bytes (may go negative after partial ACKs).
    inflation: i64,
    partial_ack_seen: bool,

    outstanding: VecDeque<SentSegment>,
    rto_deadline: Option<Nanos>,
    /// snd_una at the last timeout: a timeout with snd_una unchanged is a repeated one.
    last_timeout_una: Option<u64>,
    pub stats: SenderStats,
}

impl Sender {
    pub fn new(flow: u32, node: u32, peer: u32, spec: &TcpSpec, cc: Box<dyn CongestionControl>) -> Self {
        Sender {
            flow,
            node,
            peer,
            mss: spec.segment_size,
            header_size: spec.header_size,
            dupack_threshold: spec.dupack_threshold,
            recovery_style: spec.recovery,
            cc,
            rtt: RttEstimator::new(spec.rto),
            snd_una: 0,
            snd_nxt: 0,
            snd_max: 0,
            data_limit: None,
            started: false,
            peer_window: spec.receiver_window,
            dupacks: 0,
            in_recovery: false,
            recover: None,
            inflation: 0,
            partial_ack_seen: false,
            outstanding: VecDeque::new(),
            rto_deadline: None,
            last_timeout_una: None,
            stats: SenderStats::default(),
        }
    }

    /// The application starts writing (bulk: as fast as TCP takes it).
    pub fn start(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        self.started = true;
        self.send_available(now, out);
    }

    /// The application stops writing: what was already sent is all there is to deliver.
    pub fn stop(&mut self) {
        self.data_limit = Some(self.snd_max);
    }

    /// Usable window: cwnd plus recovery inflation, never below one segment.
    fn window(&self) -> u64 {
        let inflated = self.cc.cwnd() as i64 + self.inflation;
        (inflated.max(self.mss as i64) as u64).min(self.peer_window.max(self.mss))
    }

    fn send_available(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        if !self.started {
            return;
        }
        let window = self.window();
        let limit = self.data_limit.unwrap_or(u64::MAX);
        while self.snd_nxt < limit {
            let len = self.mss.min(limit - self.snd_nxt);
            if self.snd_nxt + len > self.snd_una + window {
                break;
            }
            self.transmit(self.snd_nxt, len, now, out);
            self.snd_nxt += len;
        }
    }

    fn transmit(&mut self, seq: u64, len: u64, now: Nanos, out: &mut Vec<Packet>) {
        let end = seq + len;
        if seq < self.snd_max {
            self.stats.retransmits += 1;
            if let Ok(index) = self.outstanding.binary_search_by_key(&seq, |s| s.start) {
                self.outstanding[index].retransmitted = true;
            }
        } else {
            self.outstanding.push_back(SentSegment { start: seq, end, sent_at: now, retransmitted: false });
            self.snd_max = end;
        }
        self.stats.segments_sent += 1;
        if self.rto_deadline.is_none() {
            // RFC 6298 §5.1
            self.rto_deadline = Some(now + self.rtt.rto());
        }
        out.push(Packet {
            kind: PacketKind::Data,
            flow: self.flow,
            src: self.node,
            dst: self.peer,
            seq,
            len: len as u32,
            ack: 0,
            window: 0,
            size: (len + self.header_size) as u32,
        });
    }

    fn retransmit_first_unacked(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        let len = self.mss.min(self.snd_max - self.snd_una);
        if len > 0 {
            self.transmit(self.snd_una, len, now, out);
        }
    }

    fn restart_timer(&mut self, now: Nanos) {
        // RFC 6298 §5.2-5.3
        self.rto_deadline = if self.snd_una < self.snd_max { Some(now + self.rtt.rto()) } else { None };
    }

    /// Handle an arriving ACK.
    pub fn on_ack(&mut self, ack: &Packet, now: Nanos, out: &mut Vec<Packet>) {
        let ack_seq = ack.ack;
        if ack_seq < self.snd_una || ack_seq > self.snd_max {
            return; // old or impossible
        }
        self.peer_window = ack.window;
        let bytes_in_flight = self.snd_max - self.snd_una;
        if ack_seq > self.snd_una {
            self.on_new_ack(ack_seq, bytes_in_flight, now, out);
        } else if bytes_in_flight > 0 {
            self.on_duplicate_ack(ack_seq, bytes_in_flight, now, out);
        }
        self.send_available(now, out);
    }

    fn on_new_ack(&mut self, ack_seq: u64, bytes_in_flight: u64, now: Nanos, out: &mut Vec<Packet>) {
        let newly_acked_bytes = ack_seq - self.snd_una;
        // Karn: an ACK that covers any retransmitted segment is ambiguous and gives no sample.
        let mut sample = None;
        let mut ambiguous = false;
        while let Some(segment) = self.outstanding.front() {
            if segment.end > ack_seq {
                break;
            }
            ambiguous |= segment.retransmitted;
            sample = Some(now - segment.sent_at);
            self.outstanding.pop_front();
        }
        let rtt_sample_ns = if ambiguous { None } else { sample };
        if let Some(r) = rtt_sample_ns {
            self.rtt.on_sample(r);
        }
        self.snd_una = ack_seq;
        self.snd_nxt = self.snd_nxt.max(ack_seq);
        self.dupacks = 0;

        self.cc.on_ack(&AckEvent {
            now_ns: now,
            ack_seq,
            newly_acked_bytes,
            is_dupack: false,
            rtt_sample_ns,
            in_recovery: self.in_recovery,
            bytes_in_flight,
        });

        let mut restart = true;
        if self.in_recovery {
            let full_ack = match self.recovery_style {
                Recovery::Reno => true,
                Recovery::NewReno => self.recover.is_none_or(|recover| ack_seq >= recover),
            };
            if full_ack {
                self.exit_recovery(now);
            } else {
                // RFC 6582 §3.2 step 3, partial ACK: retransmit the next hole, deflate by the
                // amount acked and add back one SMSS; restart the timer on the first one only
                // ("Impatient" variant) so a long train of holes falls back on the RTO.
                self.retransmit_first_unacked(now, out);
                self.inflation -= newly_acked_bytes as i64;
                if newly_acked_bytes >= self.mss {
                    self.inflation += self.mss as i64;
                }
                restart = !self.partial_ack_seen;
                self.partial_ack_seen = true;
            }
        }
        if restart || self.snd_una == self.snd_max {
            self.restart_timer(now);
        }
    }

    fn on_duplicate_ack(&mut self, ack_seq: u64, bytes_in_flight: u64, now: Nanos, out: &mut Vec<Packet>) {
        self.dupacks += 1;
        self.cc.on_ack(&AckEvent {
            now_ns: now,
            ack_seq,
            newly_acked_bytes: 0,
            is_dupack: true,
            rtt_sample_ns: None,
            in_recovery: self.in_recovery,
            bytes_in_flight,
        });
        if self.in_recovery {
            // RFC 5681 §3.2 step 4: each further DUPACK means a segment left the network.
            self.inflation += self.mss as i64;
            return;
        }
        if self.dupacks != self.dupack_threshold {
            return;
        }
        // RFC 6582 §3.2 step 2: DUPACKs for data sent before the last loss detection (e.g. the
        // go-back-N resend after a timeout) must not trigger a second reduction.
        if self.recovery_style == Recovery::NewReno && self.recover.is_some_and(|recover| ack_seq <= recover)
        {
            return;
        }
        self.stats.fast_retransmits += 1;
        self.recover = Some(self.snd_max);
        self.cc.on_congestion(CongestionEvent::DuplicateAcks { now_ns: now, bytes_in_flight });
        self.in_recovery = true;
        self.partial_ack_seen = false;
        // RFC 5681 §3.2 step 3: cwnd = ssthresh + 3*SMSS, the inflation being ours.
        self.inflation = i64::from(self.dupack_threshold) * self.mss as i64;
        self.retransmit_first_unacked(now, out);
    }

    fn exit_recovery(&mut self, now: Nanos) {
        self.in_recovery = false;
        self.inflation = 0;
        self.cc.on_recovery_exit(now);
    }

    /// The retransmission timer fired at `now` (the caller checked `timer_deadline`).
    pub fn on_timer(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        match self.rto_deadline {
            Some(deadline) if deadline <= now => {}
            _ => return,
        }
        if self.snd_una == self.snd_max {
            self.rto_deadline = None;
            return;
        }
        self.stats.timeouts += 1;
        let bytes_in_flight = self.snd_max - self.snd_una;
        let repeated = self.last_timeout_una == Some(self.snd_una);
        self.last_timeout_una = Some(self.snd_una);
        self.cc.on_congestion(CongestionEvent::Timeout { now_ns: now, bytes_in_flight, repeated });
        self.rtt.back_off();
        self.in_recovery = false;
        self.inflation = 0;
        self.dupacks = 0;
        self.recover = Some(self.snd_max);
        for segment in &mut self.outstanding {
            segment.retransmitted = true;
        }
        self.snd_nxt = self.snd_una;
        self.rto_deadline = Some(now + self.rtt.rto());
        self.send_available(now, out);
    }

    pub fn timer_deadline(&self) -> Option<Nanos> {
        self.rto_deadline
    }

    pub fn cwnd(&self) -> u64 {
        self.cc.cwnd()
    }

    pub fn ssthresh(&self) -> u64 {
        self.cc.ssthresh()
    }

    pub fn bandwidth_estimate_bps(&self) -> Option<f64> {
        self.cc.bandwidth_estimate_bps()
    }

    pub fn srtt(&self) -> Option<Nanos> {
        self.rtt.srtt()
    }

    pub fn min_rtt(&self) -> Option<Nanos> {
        self.rtt.min_rtt()
    }

    pub fn snd_una(&self) -> u64 {
        self.snd_una
    }

    pub fn snd_max(&self) -> u64 {
        self.snd_max
    }

    pub fn mss(&self) -> u64 {
        self.mss
    }

    pub fn in_recovery(&self) -> bool {
        self.in_recovery
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CcSpec, DelayedAckSpec, RtoSpec};
    use westwood_algorithms::{Reno, WindowConfig};

    const MSS: u64 = 1000;
    const MS: Nanos = 1_000_000;

    fn sender(recovery: Recovery, initial_segments: u64) -> Sender {
        let spec = TcpSpec {
            cc_name: "reno".into(),
            cc: CcSpec::Reno,
            recovery,
            segment_size: MSS,
            header_size: 40,
            receiver_window: 1 << 30,
            initial_cwnd: initial_segments * MSS,
            initial_ssthresh: 1 << 40,
            dupack_threshold: 3,
            rto: RtoSpec::default(),
            delayed_ack: DelayedAckSpec::default(),
        };
        let config = WindowConfig {
            mss: MSS,
            initial_cwnd: spec.initial_cwnd,
            initial_ssthresh: spec.initial_ssthresh,
        };
        Sender::new(0, 0, 1, &spec, Box::new(Reno::new(config)))
    }

    fn ack(n: u64) -> Packet {
        Packet {
            kind: PacketKind::Ack,
            flow: 0,
            src: 1,
            dst: 0,
            seq: 0,
            len: 0,
            ack: n * MSS,
            window: 1 << 30,
            size: 40,
        }
    }

    fn seqs(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.seq / MSS).collect()
    }

    /// Start with `segments` outstanding segments 0..segments.
    fn started(recovery: Recovery, segments: u64) -> (Sender, Vec<Packet>) {
        let mut s = sender(recovery, segments);
        let mut out = Vec::new();
        s.start(0, &mut out);
        assert_eq!(seqs(&out), (0..segments).collect::<Vec<_>>());
        (s, out)
    }

    #[test]
    fn sends_a_window_then_one_segment_per_acked_segment_in_slow_start() {
        let (mut s, _) = started(Recovery::Reno, 4);
        let mut out = Vec::new();
        s.on_ack(&ack(1), 100 * MS, &mut out);
        // cwnd 5: segments 4 and 5.
        assert_eq!(seqs(&out), vec![4, 5]);
        assert_eq!(s.srtt(), Some(100 * MS));
    }

    #[test]
    fn third_duplicate_ack_retransmits_and_halves() {
        let (mut s, _) = started(Recovery::Reno, 10);
        let mut out = Vec::new();
        // One ACK for two segments grows cwnd by one SMSS (RFC 5681 §3.1): 11, sends 10..12.
        s.on_ack(&ack(2), 100 * MS, &mut out);
        assert_eq!(seqs(&out), vec![10, 11, 12]);
        out.clear();
        for _ in 0..2 {
            s.on_ack(&ack(2), 101 * MS, &mut out);
        }
        assert!(out.is_empty());
        assert_eq!(s.stats.fast_retransmits, 0);
        s.on_ack(&ack(2), 102 * MS, &mut out);
        assert_eq!(seqs(&out), vec![2]);
        assert_eq!(s.stats.fast_retransmits, 1);
        assert!(s.in_recovery());
        // FlightSize was 11 segments (2..12): ssthresh = cwnd = 5.5 segments, in bytes.
        assert_eq!((s.cwnd(), s.ssthresh()), (5500, 5500));
    }

    fn into_recovery(recovery: Recovery) -> Sender {
        // 10 outstanding, segments 2 and 5 lost; ACK 2 repeated by 3..9 arriving.
        let (mut s, _) = started(recovery, 10);
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out);
        for _ in 0..3 {
            s.on_ack(&ack(2), 101 * MS, &mut out);
        }
        assert!(s.in_recovery());
        s
    }

    #[test]
    fn reno_leaves_recovery_on_a_partial_ack() {
        let mut s = into_recovery(Recovery::Reno);
        let mut out = Vec::new();
        s.on_ack(&ack(5), 200 * MS, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), s.ssthresh());
        assert!(!seqs(&out).contains(&5), "Reno does not retransmit on a partial ACK");
    }

    #[test]
    fn newreno_retransmits_the_next_hole_on_a_partial_ack_and_exits_on_the_full_ack() {
        let mut s = into_recovery(Recovery::NewReno);
        let recover = s.snd_max();
        let mut out = Vec::new();
        s.on_ack(&ack(5), 200 * MS, &mut out);
        assert!(s.in_recovery());
        assert_eq!(seqs(&out).first(), Some(&5));
        assert_eq!(s.stats.retransmits, 2);
        out.clear();
        s.on_ack(&ack(recover / MSS), 300 * MS, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), s.ssthresh());
    }

    #[test]
    fn timeout_goes_back_to_snd_una_with_one_segment_and_backs_off() {
        let (mut s, _) = started(Recovery::NewReno, 4);
        let deadline = s.timer_deadline().unwrap();
        assert_eq!(deadline, 1000 * MS); // initial RTO 1 s
        let mut out = Vec::new();
        s.on_timer(deadline - 1, &mut out);
        assert!(out.is_empty(), "the timer must not fire early");
        s.on_timer(deadline, &mut out);
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!((s.stats.timeouts, s.cwnd()), (1, MSS));
        assert_eq!(s.timer_deadline(), Some(deadline + 2000 * MS));
        // The ACK of the retransmission is ambiguous: no RTT sample (Karn).
        out.clear();
        s.on_ack(&ack(1), deadline + 100 * MS, &mut out);
        assert_eq!(s.srtt(), None);
        // Slow start from one segment resends 1 and 2.
        assert_eq!(seqs(&out), vec![1, 2]);
    }

    #[test]
    fn newreno_ignores_duplicate_acks_below_recover_after_a_timeout() {
        let (mut s, _) = started(Recovery::NewReno, 8);
        let mut out = Vec::new();
        s.on_timer(s.timer_deadline().unwrap(), &mut out);
        out.clear();
        for _ in 0..3 {
            s.on_ack(&ack(0), 1100 * MS, &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, 0);
    }

    #[test]
    fn the_timer_stops_when_everything_is_acknowledged_and_stop_limits_data() {
        let (mut s, _) = started(Recovery::Reno, 2);
        s.stop();
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out);
        assert!(out.is_empty());
        assert_eq!(s.timer_deadline(), None);
    }
}
