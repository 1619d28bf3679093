//! The sender's tests (`tcp/sender.rs`): each recovery, limited transmit, PRR, the timer, and
//! the Linux rules of the `linux` profile, driven ACK by ACK without a network.

use super::sender::*;
use super::Recovery;
use crate::model::{
    CcSpec, CwndValidation, LossDetection, PrrBound, PrrWindow, PushFlag, RecoveryExit, ReductionBase,
    Reordering, SackNextSeg, SendBufferRule, NANOS_PER_SECOND,
};
use crate::model::{
    FastRetransmitTimer, Inflation, Nanos, PartialAckTimer, RecoveryPacing, TcpSpec, TimeoutThreshold,
};
use crate::network::{Packet, PacketKind, SackBlocks};
use westwood_algorithms::WindowGrowth;
use westwood_algorithms::{Reno, WindowConfig};
use westwood_trace::{CaState, TraceEvent};

const MSS: u64 = 1000;
const MS: Nanos = 1_000_000;

fn sender(recovery: Recovery, initial_segments: u64) -> Sender {
    sender_with(recovery, initial_segments, false, 3)
}

fn sender_with(recovery: Recovery, initial_segments: u64, limited_transmit: bool, dupthresh: u32) -> Sender {
    sender_spec(recovery, initial_segments, |spec| {
        spec.limited_transmit = limited_transmit;
        spec.dupack_threshold = dupthresh;
    })
}

/// A Reno-window sender with `initial_segments` of initial window, the defaults edited by
/// `edit`.
fn sender_spec(recovery: Recovery, initial_segments: u64, edit: impl FnOnce(&mut TcpSpec)) -> Sender {
    let mut spec = TcpSpec {
        receiver_window: 1 << 30,
        initial_cwnd: initial_segments * MSS,
        initial_ssthresh: 1 << 40,
        ..TcpSpec::defaults(CcSpec::named("reno"), recovery, MSS)
    };
    edit(&mut spec);
    let config = WindowConfig {
        mss: MSS,
        initial_cwnd: spec.initial_cwnd,
        initial_ssthresh: spec.initial_ssthresh,
        window_growth: spec.window_growth,
    };
    Sender::new(0, 0, 1, &spec, Box::new(Reno::new(config)))
}

/// The PRR state of a sender that paces by PRR.
fn prr(s: &Sender) -> super::recovery::prr::Prr {
    *s.pacing.prr().expect("the sender paces by PRR")
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
        sack: SackBlocks::NONE,
        path: 0,
        push: false,
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

/// An ACK of `n` segments carrying SACK blocks (in segments, most recent first).
fn sack_ack(n: u64, blocks: &[(u64, u64)]) -> Packet {
    let mut packet = ack(n);
    for &(start, end) in blocks {
        assert!(packet.sack.push(n * MSS, start * MSS, end * MSS));
    }
    packet
}

#[test]
fn sack_enters_recovery_when_the_first_hole_is_lost_and_resends_every_hole_without_partial_acks() {
    // 10 segments outstanding; 2 and 5 lost.
    let (mut s, _) = started(Recovery::Sack, 10);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out); // cwnd 11: sends 10, 11, 12
    out.clear();
    s.on_ack(&sack_ack(2, &[(3, 4)]), 101 * MS, &mut out);
    s.on_ack(&sack_ack(2, &[(3, 5)]), 101 * MS, &mut out);
    assert!(!s.in_recovery(), "2 SACKed segments are not enough");
    assert!(out.is_empty());
    // A third SACKed segment makes 2 lost: recovery, resend 2 at once.
    s.on_ack(&sack_ack(2, &[(6, 7), (3, 5)]), 102 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.stats.fast_retransmits, 1);
    assert_eq!(seqs(&out), vec![2]);
    // FlightSize 11 segments (2..13): cwnd = ssthresh = 5.5 segments, no inflation.
    assert_eq!((s.cwnd(), s.ssthresh()), (5500, 5500));
    // pipe: un-SACKed 2, 5, 7..13 = 8 segments, minus lost 2, plus retransmitted 2.
    assert_eq!(s.pipe(), 8 * MSS);
    out.clear();
    // SACKs for 7, 8: 5 becomes lost once three segments above it are SACKed.
    s.on_ack(&sack_ack(2, &[(6, 8), (3, 5)]), 103 * MS, &mut out);
    assert!(out.is_empty(), "pipe 7 segments > cwnd 5.5");
    s.on_ack(&sack_ack(2, &[(6, 9), (3, 5)]), 104 * MS, &mut out);
    // 5 is lost now (6, 7, 8 above it): pipe = 2 (resent) + 9..13 = 5 segments, 5.5 - 5 < 1.
    assert_eq!(s.pipe(), 5 * MSS);
    assert!(out.is_empty());
    s.on_ack(&sack_ack(2, &[(6, 10), (3, 5)]), 105 * MS, &mut out);
    // pipe 4 segments: one segment fits, and NextSeg rule 1 picks the lost hole 5.
    assert_eq!(seqs(&out), vec![5]);
    out.clear();
    // The retransmission of 2 arrives: partial ACK to 5. Still in recovery; 10..13 in flight.
    s.on_ack(&sack_ack(5, &[(6, 10)]), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.stats.retransmits, 2);
    // Rule 2: new data once nothing is lost, while pipe allows.
    assert!(seqs(&out).iter().all(|&seq| seq >= 13), "{:?}", seqs(&out));
    // The retransmission of 5 arrives with everything up to 13: recovery ends.
    out.clear();
    s.on_ack(&ack(13), 210 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.stats.timeouts, 0);
    assert!(s.check_sack_state().is_ok());
}

#[test]
fn sack_counts_only_duplicate_acks_that_sack_new_data() {
    let (mut s, _) = started(Recovery::Sack, 10);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    for _ in 0..5 {
        s.on_ack(&sack_ack(2, &[(3, 4)]), 101 * MS, &mut out);
    }
    assert!(!s.in_recovery(), "repeated SACK information is not a DUPACK for recovery");
    // Without SACK blocks (e.g. reordered ACKs) RFC 5681 counting is not used either.
    for _ in 0..5 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
    }
    assert!(!s.in_recovery());
}

#[test]
fn sack_rescue_retransmission_resends_the_highest_unsacked_segment_once() {
    // 2 and 9 lost, but nothing is SACKed above 9: it is not "lost" by IsLost.
    let (mut s, _) = started(Recovery::Sack, 10);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    s.stop(); // no new data: rule 2 cannot fill the pipe
    out.clear();
    for top in 4..=6 {
        s.on_ack(&sack_ack(2, &[(3, top)]), 101 * MS, &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(seqs(&out), vec![2]);
    out.clear();
    // 2's retransmission is acknowledged along with 3..9; 9..13 remain un-SACKed. The window
    // has room and rules 1-3 find nothing: one rescue retransmission of the highest segment.
    s.on_ack(&ack(9), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(seqs(&out), vec![12]);
    out.clear();
    // Another partial ACK with room in the window: no second rescue in this recovery.
    s.on_ack(&ack(10), 210 * MS, &mut out);
    assert!(s.in_recovery());
    assert!(out.is_empty(), "one rescue per recovery: {:?}", seqs(&out));
}

#[test]
fn with_linux_next_seg_rules_a_sack_sender_resends_only_what_it_marked_lost() {
    // As the rescue test above, with sack_next_seg = "linux": nothing goes out after the
    // partial ACK (Linux has no rescue retransmission, and no rule (3)).
    let mut s = sender_spec(Recovery::Sack, 10, |t| t.sack_next_seg = SackNextSeg::Linux);
    let mut out = Vec::new();
    s.start(0, &mut out);
    s.on_ack(&ack(2), 100 * MS, &mut out);
    s.stop();
    out.clear();
    for top in 4..=6 {
        s.on_ack(&sack_ack(2, &[(3, top)]), 101 * MS, &mut out);
    }
    assert_eq!(seqs(&out), vec![2], "the lost hole is resent");
    out.clear();
    s.on_ack(&ack(9), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert!(out.is_empty(), "no rescue: {:?}", seqs(&out));
}

#[test]
fn with_a_cwnd_reduction_base_reno_halves_its_window_not_a_smaller_flight_and_prr_divides_by_it() {
    // cwnd 20 segments, but the receiver's window let only 10 out: RFC 5681 halves the
    // FlightSize (5), Linux's tcp_reno_ssthresh the window (10). PRR's RecoverFS follows:
    // RFC 6937's FlightSize (10) or Linux's prior_cwnd = snd_cwnd (20,
    // tcp_init_cwnd_reduction()), the divisor of tcp_cwnd_reduction()'s proportional step.
    for (base, ssthresh, recover_fs) in [(ReductionBase::FlightSize, 5, 10), (ReductionBase::Cwnd, 10, 20)] {
        let mut s = sender_spec(Recovery::NewReno, 20, |t| {
            t.initial_ssthresh = 10 * MSS;
            t.receiver_window = 10 * MSS;
            t.reduction_base = base;
            t.recovery_pacing = RecoveryPacing::Prr;
        });
        let mut out = Vec::new();
        let narrow = |n: u64| Packet { window: 10 * MSS, ..ack(n) };
        s.start(0, &mut out);
        s.on_ack(&narrow(1), MS, &mut out);
        for i in 0..3 {
            s.on_ack(&narrow(1), (2 + i) * MS, &mut out);
        }
        assert!(s.in_recovery());
        assert_eq!(s.ssthresh() / MSS, ssthresh, "{base:?}");
        assert_eq!(prr(&s).recover_fs / MSS, recover_fs, "{base:?}");
    }
}

#[test]
fn sack_rule_3_resends_unsacked_data_below_the_highest_sack_when_nothing_else_can_go() {
    // 0..10 outstanding, no more data; 0 and 8 lost.
    let (mut s, _) = started(Recovery::Sack, 10);
    s.stop();
    let mut out = Vec::new();
    for top in 2..=4 {
        s.on_ack(&sack_ack(0, &[(1, top)]), 100 * MS, &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(seqs(&out), vec![0]);
    assert_eq!(s.cwnd(), 5 * MSS);
    out.clear();
    // pipe: 8 and 9 in flight, 0 resent: 3 segments; nothing to send by rules 1-3 (8 is not
    // below the highest SACK), and no rescue before the first retransmission is acked.
    s.on_ack(&sack_ack(0, &[(1, 8)]), 101 * MS, &mut out);
    assert_eq!(s.pipe(), 3 * MSS);
    assert!(out.is_empty());
    // 9 SACKed: 8 is below the highest SACK but only one SACKed segment lies above it, so
    // it is not lost; rule (3) resends it since rules (1) and (2) have nothing.
    s.on_ack(&sack_ack(0, &[(9, 10), (1, 8)]), 102 * MS, &mut out);
    assert!(!s.scoreboard().is_lost(8 * MSS, 3, MSS));
    assert_eq!(seqs(&out), vec![8]);
    assert_eq!(s.pipe(), 3 * MSS);
}

#[test]
fn sack_timeout_keeps_the_scoreboard_and_resends_only_unsacked_segments() {
    let (mut s, _) = started(Recovery::Sack, 8);
    let mut out = Vec::new();
    // 0 and 2 lost; 1 and 3 SACKed (not enough for recovery).
    s.on_ack(&sack_ack(0, &[(1, 2)]), 100 * MS, &mut out);
    s.on_ack(&sack_ack(0, &[(3, 4), (1, 2)]), 101 * MS, &mut out);
    assert!(!s.in_recovery());
    out.clear();
    s.on_timer(s.timer_deadline().unwrap(), &mut out);
    assert_eq!(s.stats.timeouts, 1);
    assert_eq!(seqs(&out), vec![0], "one segment: cwnd = 1");
    out.clear();
    // 0 is acknowledged: cwnd 2, the holes 2, 4, 5 are resent, SACKed 3 is skipped.
    s.on_ack(&sack_ack(2, &[(3, 4)]), 1200 * MS, &mut out);
    assert_eq!(seqs(&out), vec![2, 4]);
    assert_eq!(s.stats.fast_retransmits, 0, "no SACK recovery before RecoveryPoint");
}

/// `started` with limited transmit on.
fn started_lt(recovery: Recovery, segments: u64, dupthresh: u32) -> (Sender, Vec<Packet>) {
    let mut s = sender_with(recovery, segments, true, dupthresh);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(seqs(&out), (0..segments).collect::<Vec<_>>());
    (s, out)
}

fn flight(s: &Sender) -> u64 {
    s.snd_max() - s.snd_una()
}

#[test]
fn without_limited_transmit_the_first_duplicate_acks_send_nothing() {
    let (mut s, _) = started(Recovery::Reno, 4);
    let mut out = Vec::new();
    for _ in 0..2 {
        s.on_ack(&ack(0), 100 * MS, &mut out);
    }
    assert!(out.is_empty());
    assert_eq!(s.stats.limited_transmits, 0);
}

#[test]
fn limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicate_acks() {
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Tahoe] {
        // cwnd 4, segment 0 lost: each of the first two DUPACKs lets one new segment out
        // (RFC 3042 §2).
        let (mut s, _) = started_lt(recovery, 4, 3);
        let mut out = Vec::new();
        s.on_ack(&ack(0), 100 * MS, &mut out);
        assert_eq!(seqs(&out), vec![4], "{recovery:?}");
        assert_eq!((s.cwnd(), flight(&s)), (4 * MSS, 5 * MSS), "cwnd is not changed");
        out.clear();
        s.on_ack(&ack(0), 101 * MS, &mut out);
        assert_eq!(seqs(&out), vec![5], "{recovery:?}");
        assert_eq!((s.cwnd(), flight(&s)), (4 * MSS, 6 * MSS), "FlightSize = cwnd + 2 SMSS");
        assert_eq!(s.stats.limited_transmits, 2);
        assert_eq!(s.stats.fast_retransmits, 0);
        // The third is fast retransmit; FlightSize for the reduction leaves out the two
        // limited-transmit segments (RFC 5681 §3.2 step 2): ssthresh = 4/2 segments.
        out.clear();
        s.on_ack(&ack(0), 102 * MS, &mut out);
        assert_eq!(seqs(&out), vec![0], "{recovery:?}");
        assert_eq!(s.stats.fast_retransmits, 1);
        assert_eq!(s.ssthresh(), 2 * MSS, "{recovery:?}");
        assert_eq!(s.stats.limited_transmits, 2, "nothing more by limited transmit");
    }
}

#[test]
fn limited_transmit_never_takes_flight_beyond_cwnd_plus_two_segments() {
    for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Tahoe, Recovery::Sack] {
        // 10 outstanding; ACK 2 grows cwnd to 11 and sends 10..13: FlightSize 11 = cwnd.
        let (mut s, _) = started_lt(recovery, 10, 3);
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out);
        assert_eq!(flight(&s), s.cwnd());
        // DUPACKs (SACKing one more segment each, so they count for SACK too): never more
        // than cwnd + 2 SMSS outstanding while no recovery has started.
        for (i, top) in (4..=12).enumerate() {
            out.clear();
            let before = s.stats.limited_transmits;
            s.on_ack(&sack_ack(2, &[(3, top)]), (101 + i as u64) * MS, &mut out);
            if s.stats.fast_retransmits == 0 {
                assert!(flight(&s) <= s.cwnd() + 2 * MSS, "{recovery:?}: flight {}", flight(&s));
                assert!(s.stats.limited_transmits > before, "{recovery:?}: DUPACK {} sent nothing", i + 1);
            }
        }
        assert_eq!(s.stats.limited_transmits, 2, "{recovery:?}");
        assert_eq!(s.stats.fast_retransmits, 1, "{recovery:?}");
    }
    // After a recovery Reno's cwnd (5.5 segments) is far below what is outstanding: the
    // DUPACKs that follow send nothing.
    let (mut s, _) = started_lt(Recovery::Reno, 10, 3);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    for _ in 0..3 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
    }
    s.on_ack(&ack(5), 200 * MS, &mut out);
    assert!(!s.in_recovery());
    assert!(flight(&s) > s.cwnd() + 2 * MSS);
    out.clear();
    let before = s.stats.limited_transmits;
    for _ in 0..2 {
        s.on_ack(&ack(5), 201 * MS, &mut out);
    }
    assert!(out.is_empty(), "{:?}", seqs(&out));
    assert_eq!(s.stats.limited_transmits, before);
}

#[test]
fn limited_transmit_scales_with_the_dupack_threshold_and_respects_the_receiver_window_and_the_data() {
    // dupthresh 5: four DUPACKs may each send one segment, up to cwnd + 4 SMSS.
    let (mut s, _) = started_lt(Recovery::NewReno, 4, 5);
    let mut out = Vec::new();
    for _ in 0..4 {
        s.on_ack(&ack(0), 100 * MS, &mut out);
    }
    assert_eq!(seqs(&out), vec![4, 5, 6, 7]);
    assert_eq!(s.stats.fast_retransmits, 0);
    out.clear();
    s.on_ack(&ack(0), 101 * MS, &mut out);
    assert_eq!(seqs(&out), vec![0], "the fifth is fast retransmit");
    // The receiver's window (5 segments) allows one more segment only.
    let (mut s, _) = started_lt(Recovery::Reno, 4, 3);
    let mut out = Vec::new();
    let mut small = ack(0);
    small.window = 5 * MSS;
    for _ in 0..2 {
        s.on_ack(&small, 100 * MS, &mut out);
    }
    assert_eq!(seqs(&out), vec![4]);
    // No data left to send: nothing.
    let (mut s, _) = started_lt(Recovery::Reno, 4, 3);
    s.stop();
    let mut out = Vec::new();
    for _ in 0..2 {
        s.on_ack(&ack(0), 100 * MS, &mut out);
    }
    assert!(out.is_empty());
    // Go-back-N after a timeout under way (snd_nxt < snd_max): only previously unsent data
    // may go, so nothing.
    let (mut s, _) = started_lt(Recovery::NewReno, 8, 3);
    let mut out = Vec::new();
    s.on_timer(s.timer_deadline().unwrap(), &mut out);
    out.clear();
    for _ in 0..2 {
        s.on_ack(&ack(0), 1100 * MS, &mut out);
    }
    assert!(out.is_empty(), "{:?}", seqs(&out));
}

#[test]
fn sack_limited_transmit_sends_new_data_while_pipe_is_below_cwnd() {
    // RFC 6675 §5 step (3): cwnd 4, segment 0 lost.
    let (mut s, _) = started_lt(Recovery::Sack, 4, 3);
    let mut out = Vec::new();
    // 1 SACKed: pipe = 0, 2, 3 = 3 segments, one new segment fits.
    s.on_ack(&sack_ack(0, &[(1, 2)]), 100 * MS, &mut out);
    assert_eq!(seqs(&out), vec![4]);
    assert_eq!(s.pipe(), 4 * MSS);
    // The same SACK information again is no DUPACK (RFC 3042 §2's note): nothing.
    out.clear();
    s.on_ack(&sack_ack(0, &[(1, 2)]), 100 * MS, &mut out);
    assert!(out.is_empty());
    s.on_ack(&sack_ack(0, &[(1, 3)]), 101 * MS, &mut out);
    assert_eq!(seqs(&out), vec![5]);
    assert_eq!((s.cwnd(), flight(&s)), (4 * MSS, 6 * MSS));
    assert!(!s.in_recovery());
    // Three SACKed segments: 0 is lost, recovery; FlightSize for the reduction is 4 segments.
    out.clear();
    s.on_ack(&sack_ack(0, &[(1, 4)]), 102 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(seqs(&out), vec![0]);
    assert_eq!((s.cwnd(), s.ssthresh()), (2 * MSS, 2 * MSS));
    assert_eq!(s.stats.limited_transmits, 2);
    assert!(s.check_sack_state().is_ok());
}

#[test]
fn tahoe_fast_retransmit_restarts_slow_start_from_snd_una() {
    let (mut s, _) = started(Recovery::Tahoe, 10);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out); // sends 10, 11, 12
    out.clear();
    for _ in 0..3 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
    }
    assert_eq!(seqs(&out), vec![2]);
    assert_eq!(s.stats.fast_retransmits, 1);
    assert!(!s.in_recovery(), "Tahoe has no fast recovery");
    assert_eq!((s.cwnd(), s.ssthresh()), (MSS, 5500));
    // More DUPACKs do nothing (no inflation).
    out.clear();
    for _ in 0..5 {
        s.on_ack(&ack(2), 102 * MS, &mut out);
    }
    assert!(out.is_empty());
    // The retransmission is acknowledged up to 5 (where the next loss is): slow start from
    // there, go-back-N: 5 and 6 are sent again.
    s.on_ack(&ack(5), 200 * MS, &mut out);
    assert_eq!(seqs(&out), vec![5, 6]);
    // DUPACKs caused by the go-back-N resend of data the receiver holds do not trigger
    // another fast retransmit (below `recover`).
    out.clear();
    for _ in 0..3 {
        s.on_ack(&ack(5), 201 * MS, &mut out);
    }
    assert_eq!(s.stats.fast_retransmits, 1);
}

/// (event, ack in segments, dupack, ca_state) of the observations since the last call.
fn rows(s: &mut Sender) -> Vec<(TraceEvent, u64, bool, CaState)> {
    s.take_observations().map(|o| (o.event, o.ack / MSS, o.dupack, o.ca_state)).collect()
}

#[test]
fn observations_put_the_dupack_before_the_loss_reaction_it_triggers() {
    use CaState::{Disorder, Loss, Open, Recovery as InRecovery};
    use TraceEvent::{Ack, Recovery as Fr, Timeout};
    let (mut s, _) = started(Recovery::NewReno, 10);
    s.observe();
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    for _ in 0..3 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
    }
    let expected =
        [(Ack, 2, false, Open), (Ack, 2, true, Disorder), (Ack, 2, true, Disorder), (Ack, 2, true, Disorder)];
    assert_eq!(rows(&mut s), [&expected[..], &[(Fr, 2, false, InRecovery)]].concat());
    // A partial ACK stays in recovery; the full one leaves it.
    s.on_ack(&ack(5), 200 * MS, &mut out);
    s.on_ack(&ack(13), 300 * MS, &mut out);
    assert_eq!(rows(&mut s), [(Ack, 5, false, InRecovery), (Ack, 13, false, Open)]);
    // An RTO: `loss` until what was outstanding then is acknowledged.
    let outstanding = s.snd_max() / MSS;
    s.on_timer(s.timer_deadline().unwrap(), &mut out);
    s.on_ack(&ack(14), 2000 * MS, &mut out);
    s.on_ack(&ack(outstanding), 2100 * MS, &mut out);
    assert_eq!(
        rows(&mut s),
        [(Timeout, 13, false, Loss), (Ack, 14, false, Loss), (Ack, outstanding, false, Open)]
    );
    // Without observe(), nothing is recorded.
    let (mut quiet, _) = started(Recovery::NewReno, 10);
    quiet.on_ack(&ack(2), 100 * MS, &mut out);
    assert!(rows(&mut quiet).is_empty());
}

/// `started` with the spec edited by `edit`.
fn started_spec(recovery: Recovery, segments: u64, edit: impl FnOnce(&mut TcpSpec)) -> (Sender, Vec<Packet>) {
    let mut s = sender_spec(recovery, segments, edit);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(seqs(&out), (0..segments).collect::<Vec<_>>());
    (s, out)
}

#[test]
fn newreno_restarts_the_timer_on_the_first_partial_ack_or_on_every_one() {
    for (policy, every) in [(PartialAckTimer::First, false), (PartialAckTimer::Every, true)] {
        // 10 outstanding; 2, 5 and 8 lost.
        let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| t.partial_ack_timer = policy);
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out); // RTT sample 100 ms: RTO 1 s (rto_min)
        for _ in 0..3 {
            s.on_ack(&ack(2), 101 * MS, &mut out);
        }
        assert!(s.in_recovery());
        assert_eq!(s.timer_deadline(), Some(1100 * MS), "restarted by the ACK of new data at 100 ms");
        // The first partial ACK restarts the timer either way (RFC 6582 §4).
        s.on_ack(&ack(5), 200 * MS, &mut out);
        assert_eq!(s.timer_deadline(), Some(1200 * MS), "{policy:?}");
        // The second: only "every" restarts it.
        s.on_ack(&ack(8), 300 * MS, &mut out);
        assert!(s.in_recovery());
        let expected = if every { 1300 * MS } else { 1200 * MS };
        assert_eq!(s.timer_deadline(), Some(expected), "{policy:?}");
        s.on_ack(&ack(9), 400 * MS, &mut out);
        let expected = if every { 1400 * MS } else { 1200 * MS };
        assert_eq!(s.timer_deadline(), Some(expected), "{policy:?}");
        // Leaving recovery restarts it whatever the policy.
        s.on_ack(&ack(s.snd_max() / MSS), 500 * MS, &mut out);
        assert!(!s.in_recovery());
    }
}

#[test]
fn new_episode_timeouts_keep_the_threshold_inside_a_loss_episode_as_linux_does() {
    // 20 outstanding (Reno: ssthresh from FlightSize / 2); 2 lost, then the recovery stalls.
    for rule in [TimeoutThreshold::Always, TimeoutThreshold::NewEpisode] {
        let linux = rule == TimeoutThreshold::NewEpisode;
        let (mut s, _) = started_spec(Recovery::NewReno, 20, |t| t.timeout_threshold = rule);
        s.observe();
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out); // snd_max 22
        for _ in 0..3 {
            s.on_ack(&ack(2), 101 * MS, &mut out);
        }
        assert!(s.in_recovery());
        let in_recovery = s.ssthresh();
        s.take_observations().count();

        // The RTO during fast recovery: Linux keeps the episode's threshold, RFC 5681 (the
        // default) halves again (the flight, capped at the reduced cwnd).
        s.on_timer(s.timer_deadline().unwrap(), &mut out);
        let event = s.take_observations().last().unwrap().event;
        assert_eq!(s.cwnd(), MSS);
        if linux {
            assert_eq!((event, s.ssthresh()), (TraceEvent::TimeoutHeld, in_recovery));
        } else {
            assert_eq!(event, TraceEvent::Timeout);
            assert_eq!(s.ssthresh(), in_recovery / 2);
        }
        let after_first = s.ssthresh();

        // It expires again with snd_una unmoved: held (Reno holds a repeated one anyway).
        s.on_timer(s.timer_deadline().unwrap(), &mut out);
        let event = s.take_observations().last().unwrap().event;
        let expected = if linux { TraceEvent::TimeoutHeld } else { TraceEvent::Timeout };
        assert_eq!((event, s.ssthresh()), (expected, after_first));

        // snd_una advances (still short of the recovery point), then the timer expires:
        // a new threshold either way (Linux zeroed icsk_retransmits on that ACK).
        let at = s.timer_deadline().unwrap();
        s.on_ack(&ack(3), at - MS, &mut out);
        s.take_observations().count();
        s.on_timer(s.timer_deadline().unwrap(), &mut out);
        let event = s.take_observations().last().unwrap().event;
        assert_eq!(event, TraceEvent::Timeout, "{rule:?}");
        assert_eq!(s.stats.timeouts, 3);
    }
}

#[test]
fn without_inflation_no_new_segment_goes_out_until_the_retransmission_is_acknowledged() {
    for inflation in [true, false] {
        for recovery in [Recovery::Reno, Recovery::NewReno] {
            // 10 outstanding; ACK 2 sends 10..12 (cwnd 11). Segment 2 lost: 3..12 make ten
            // DUPACKs; the third is the fast retransmit (ssthresh = cwnd = 5.5 segments).
            let rule = if inflation { Inflation::Standard } else { Inflation::Off };
            let (mut s, _) = started_spec(recovery, 10, |t| t.fast_recovery_inflation = rule);
            let mut out = Vec::new();
            s.on_ack(&ack(2), 100 * MS, &mut out);
            let first_new = s.snd_max();
            out.clear();
            for _ in 0..10 {
                s.on_ack(&ack(2), 101 * MS, &mut out);
            }
            assert!(s.in_recovery());
            assert_eq!(s.stats.fast_retransmits, 1);
            let new: Vec<u64> = out.iter().filter(|p| p.seq >= first_new).map(|p| p.seq / MSS).collect();
            if inflation {
                // cwnd 5.5 + 3 + 7 DUPACKs = 15.5 segments from snd_una 2: 13..16 go out.
                assert_eq!(new, vec![13, 14, 15, 16], "{recovery:?}");
            } else {
                assert!(new.is_empty(), "{recovery:?}: new segments {new:?} before the retransmission's ACK");
                assert_eq!(seqs(&out), vec![2], "{recovery:?}: only the fast retransmission");
            }
            // The retransmission is acknowledged (everything up to 13): recovery ends and the
            // window, cwnd = ssthresh = 5.5 segments, lets new data out.
            out.clear();
            s.on_ack(&ack(first_new / MSS), 200 * MS, &mut out);
            assert!(!s.in_recovery());
            assert!(!out.is_empty(), "{recovery:?}");
            assert!(out.iter().all(|p| p.seq >= first_new));
        }
    }
}

#[test]
fn without_inflation_a_newreno_partial_ack_resends_the_hole_and_nothing_new() {
    // 10 outstanding, ACK 2 sends 10..12; 2 and 5 lost: 3, 4, 6..12 make nine DUPACKs.
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| t.fast_recovery_inflation = Inflation::Off);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    out.clear();
    for _ in 0..9 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
    }
    assert_eq!(seqs(&out), vec![2]);
    out.clear();
    // Partial ACK to 5: the hole is resent; FlightSize (5..12, 8 segments) is above cwnd.
    s.on_ack(&ack(5), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(seqs(&out), vec![5]);
}

#[test]
fn later_dupacks_inflation_starts_at_zero_and_a_partial_ack_drops_it() {
    // The UCLA WestwoodNR agent's dupwnd_ on ns-2.35. 10 outstanding, ACK 2 sends 10..12
    // (cwnd 11); 2 and 5 lost: 3, 4, 6..12 make nine DUPACKs, the third the fast retransmit
    // (ssthresh = cwnd = 5.5 segments). The inflation counts the six DUPACKs after it.
    let (mut s, _) =
        started_spec(Recovery::NewReno, 10, |t| t.fast_recovery_inflation = Inflation::LaterDupacks);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    out.clear();
    for i in 0..9 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
        if i == 2 {
            assert_eq!(s.pacing.inflation(), 0, "nothing at the fast retransmit");
        }
    }
    assert_eq!(s.pacing.inflation(), 6 * MSS as i64);
    // cwnd 5.5 + 6 = 11.5 segments from snd_una 2: nothing beyond 13 may go yet.
    assert_eq!(seqs(&out), vec![2]);
    // The partial ACK to 5 resends the hole and drops the inflation altogether.
    out.clear();
    s.on_ack(&ack(5), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.pacing.inflation(), 0);
    assert_eq!(seqs(&out), vec![5]);
    // The standard rule keeps 6 - 3 + 1 = 4 segments of it (3 + 6 DUPACKs, deflated by the
    // three acknowledged, one added back).
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |_| {});
    s.on_ack(&ack(2), 100 * MS, &mut Vec::new());
    for _ in 0..9 {
        s.on_ack(&ack(2), 101 * MS, &mut Vec::new());
    }
    assert_eq!(s.pacing.inflation(), 9 * MSS as i64);
    s.on_ack(&ack(5), 200 * MS, &mut Vec::new());
    assert_eq!(s.pacing.inflation(), 7 * MSS as i64);
}

#[test]
fn with_recovery_exit_growth_the_ack_that_ends_recovery_grows_the_window() {
    // ns-2's agents and Linux: recovery ends (cwnd = ssthresh = 5.5 segments) and the ACK
    // then grows the window as any ACK of new data does: in congestion avoidance it earns
    // one ACK's credit of the six the next segment takes.
    for (exit_growth, acks_to_grow) in [(false, 6), (true, 5)] {
        let (mut s, _) = started_spec(Recovery::Reno, 10, |t| t.recovery_exit_growth = exit_growth);
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out); // cwnd 11, 2 lost
        for _ in 0..3 {
            s.on_ack(&ack(2), 101 * MS, &mut out);
        }
        assert!(s.in_recovery());
        let ssthresh = s.ssthresh();
        assert_eq!(ssthresh, 5 * MSS + MSS / 2);
        s.on_ack(&ack(6), 200 * MS, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), ssthresh);
        let mut acks = 0;
        let mut next = 6;
        while s.cwnd() == ssthresh {
            next += 1;
            s.on_ack(&ack(next), 300 * MS, &mut out);
            acks += 1;
        }
        assert_eq!(acks, acks_to_grow, "exit growth {exit_growth}");
    }
}

#[test]
fn a_fast_retransmit_restarts_the_timer_when_the_rule_says_so() {
    for (rule, expected) in [
        (FastRetransmitTimer::Running, 100 * MS + NANOS_PER_SECOND),
        (FastRetransmitTimer::Restart, 150 * MS + NANOS_PER_SECOND),
    ] {
        for recovery in [Recovery::Reno, Recovery::NewReno, Recovery::Tahoe] {
            let (mut s, _) = started_spec(recovery, 10, |t| t.fast_retransmit_timer = rule);
            let mut out = Vec::new();
            s.on_ack(&ack(2), 100 * MS, &mut out); // the timer: 100 ms + RTO (1 s)
            for _ in 0..3 {
                s.on_ack(&ack(2), 150 * MS, &mut out);
            }
            assert_eq!(s.stats.fast_retransmits, 1);
            assert_eq!(s.timer_deadline(), Some(expected), "{rule:?} {recovery:?}");
        }
    }
}

#[test]
fn reno_without_repeated_fast_retransmits_waits_for_recover() {
    // 10 outstanding, ACK 2 sends 10..12; 2 and 5 lost. The partial ACK to 5 ends Reno's
    // recovery; the DUPACKs that follow it (for data sent before the fast retransmit) start
    // a second one only if the rule allows (ns-2's bug_fix_ does not).
    for repeat in [true, false] {
        let (mut s, _) = started_spec(Recovery::Reno, 10, |t| t.repeat_fast_retransmit = repeat);
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out);
        for _ in 0..9 {
            s.on_ack(&ack(2), 101 * MS, &mut out);
        }
        s.on_ack(&ack(5), 200 * MS, &mut out);
        assert!(!s.in_recovery());
        for _ in 0..3 {
            s.on_ack(&ack(5), 201 * MS, &mut out);
        }
        assert_eq!(s.stats.fast_retransmits, if repeat { 2 } else { 1 }, "repeat {repeat}");
    }
}

/// One ACK of a PRR recovery: what was sent, and (bytes delivered, bytes sent, pipe before
/// sending, pipe after).
fn prr_step(s: &mut Sender, packet: &Packet, now: Nanos) -> (Vec<u64>, [u64; 4]) {
    let mut out = Vec::new();
    let delivered_before = prr(s).delivered;
    s.on_ack(packet, now, &mut out);
    let after = s.prr_pipe();
    let sent: u64 = out.iter().map(|p| u64::from(p.len)).sum();
    (seqs(&out), [prr(s).delivered - delivered_before, sent, after - sent.min(after), after])
}

#[test]
fn prr_reduces_the_flight_in_proportion_and_ends_recovery_at_ssthresh() {
    // RFC 6937 with SACK, the single-loss example of its successor RFC 9937 §8: cwnd =
    // FlightSize = 20 segments, segment 0 lost, Reno (ssthresh 10), limited transmit.
    let (mut s, _) = started_spec(Recovery::Sack, 20, |t| {
        t.limited_transmit = true;
        t.recovery_pacing = RecoveryPacing::Prr;
    });
    let mut sent = Vec::new();
    let mut steps = Vec::new();
    // ACKs 1..21: each SACKs one more segment of the original flight (1..19), then the two
    // limited-transmit segments (20, 21).
    for k in 1..=21 {
        let (segs, step) = prr_step(&mut s, &sack_ack(0, &[(1, k + 1)]), (100 + k) * MS);
        sent.push(segs);
        steps.push(step);
        if k >= 3 {
            assert!(s.in_recovery());
            assert_eq!(s.ssthresh(), 10 * MSS);
        }
    }
    // N N R, then one new segment every other ACK while pipe > ssthresh (PRR's
    // ssthresh / RecoverFS = 1/2), then, once pipe has come down to ssthresh, one for one
    // (PRR-SSRB). RFC 9937's figure sends at ACK 19 rather than 20: it keeps the
    // proportional part at pipe == ssthresh, where RFC 6937 and Linux
    // (`tcp_cwnd_reduction`: `delta = ssthresh - in_flight`, proportional only if < 0) stop.
    let n = |v: &[u64]| v.to_vec();
    let mut expected: Vec<Vec<u64>> = vec![n(&[20]), n(&[21]), n(&[0]), vec![]];
    for i in 0..7 {
        expected.push(vec![22 + i]);
        expected.push(vec![]);
    }
    expected.extend([vec![], vec![29], vec![30]]);
    assert_eq!(sent, expected);
    // From the ACK after the fast retransmission: while pipe > ssthresh, never more sent
    // than delivered (pipe only falls); once at or below ssthresh, never above it.
    for (k, &[delivered, sent, before, after]) in steps.iter().enumerate().skip(3) {
        if before > 10 * MSS {
            assert!(sent <= delivered, "ACK {}: sent {sent} for {delivered} delivered", k + 1);
        } else {
            assert!(after <= 10 * MSS, "ACK {}: pipe {before} -> {after}", k + 1);
        }
    }
    // The proportional part: what recovery sent is ssthresh / RecoverFS of what was
    // delivered, rounded up.
    assert_eq!((prr(&s).delivered, prr(&s).out), (19 * MSS, 10 * MSS));
    // pipe is at ssthresh: the retransmission and the 9 new segments 22..30.
    assert_eq!(s.prr_pipe(), 10 * MSS);
    // The retransmission's ACK covers everything up to 22: recovery ends, the control's
    // window is ssthresh and the flight (22..30) one segment below it: one more goes out.
    let mut out = Vec::new();
    s.on_ack(&sack_ack(22, &[]), 200 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!((s.cwnd(), s.ssthresh()), (10 * MSS, 10 * MSS));
    assert_eq!(seqs(&out), vec![31]);
    assert_eq!(s.snd_max() - s.snd_una(), 10 * MSS);
    assert!(s.check_sack_state().is_ok());
}

#[test]
fn prr_slow_start_reduction_bound_catches_up_at_most_one_segment_beyond_delivery() {
    // A burst: 15 of 20 segments lost (0..14), only 15..19 arrive, no new data to send, so
    // pipe falls far below ssthresh (10): PRR-SSRB sends at most DeliveredData + 1 segment
    // per ACK (RFC 6937 §3), and never beyond ssthresh.
    let (mut s, _) = started_spec(Recovery::Sack, 20, |t| t.recovery_pacing = RecoveryPacing::Prr);
    s.stop();
    let mut out = Vec::new();
    let mut history = Vec::new();
    for k in 15..20 {
        out.clear();
        let delivered_before = prr(&s).delivered;
        s.on_ack(&sack_ack(0, &[(15, k + 1)]), (100 + k) * MS, &mut out);
        let sent = out.len() as u64 * MSS;
        history.push(seqs(&out));
        if s.in_recovery() && k > 17 {
            let delivered = prr(&s).delivered - delivered_before;
            assert!(sent <= delivered + MSS, "ACK {k}: sent {sent} for {delivered} delivered");
            assert!(s.pipe() <= s.ssthresh(), "ACK {k}: pipe {}", s.pipe());
        }
    }
    // Recovery at the third SACKed segment: 0..14 are lost (IsLost: 3 SACKed above), pipe 0.
    assert_eq!(history[0..2], [Vec::<u64>::new(), Vec::new()]);
    // Entry: the fast retransmission, then SSRB: DeliveredData 1 + 1 segment.
    assert_eq!(history[2], vec![0, 1]);
    assert_eq!(history[3], vec![2, 3]);
    assert_eq!(history[4], vec![4, 5]);
    assert!(s.check_sack_state().is_ok());
}

#[test]
fn with_the_safe_ack_bound_prr_adds_the_extra_segment_only_on_an_ack_that_advances_without_a_loss() {
    // The burst above (0..14 lost of 20, no new data), under each bound. RFC 6937's SSRB adds
    // a segment on every ACK; RFC 6937bis and Linux (`tcp_cwnd_reduction()`: `sndcnt++` only
    // if FLAG_SND_UNA_ADVANCED && !newly_lost) only on an ACK that advances snd_una and marks
    // nothing lost, so a SACK-only ACK lets out what it delivered.
    for bound in PrrBound::ALL {
        let (mut s, _) = started_spec(Recovery::Sack, 20, |t| {
            t.recovery_pacing = RecoveryPacing::Prr;
            t.prr_bound = bound;
        });
        s.stop();
        let mut history = Vec::new();
        for k in 15..20 {
            let mut out = Vec::new();
            s.on_ack(&sack_ack(0, &[(15, k + 1)]), (100 + k) * MS, &mut out);
            history.push(seqs(&out));
        }
        // The retransmission of 0 arrives: snd_una advances, IsLost marks nothing new.
        let mut out = Vec::new();
        s.on_ack(&sack_ack(1, &[(15, 20)]), 200 * MS, &mut out);
        history.push(seqs(&out));
        let expected: Vec<Vec<u64>> = match bound {
            PrrBound::Ssrb => vec![vec![], vec![], vec![0, 1], vec![2, 3], vec![4, 5], vec![6, 7]],
            PrrBound::SafeAck => vec![vec![], vec![], vec![0], vec![1], vec![2], vec![3, 4]],
        };
        assert_eq!(history, expected, "{}", bound.name());
        assert!(s.pipe() <= s.ssthresh());
        assert!(s.check_sack_state().is_ok());
    }
}

#[test]
fn without_sack_a_partial_ack_is_never_safe_for_prr() {
    // Linux's tcp_newreno_mark_lost() marks the head lost on every ACK that advances snd_una in
    // Recovery: a partial ACK marks the next hole, so PRR gets no extra segment from it.
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| {
        t.recovery_pacing = RecoveryPacing::Prr;
        t.prr_bound = PrrBound::SafeAck;
    });
    let mut out = Vec::new();
    for _ in 0..3 {
        s.on_ack(&ack(0), 100 * MS, &mut out);
    }
    assert!(s.in_recovery());
    let marks = s.loss_marks();
    s.on_ack(&ack(5), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert!(!s.prr_safe_ack(marks), "a partial ACK uncovers the next hole");
    // The ACK that leaves nothing outstanding marks nothing.
    s.stop();
    let marks = s.loss_marks();
    s.on_ack(&ack(s.snd_max() / MSS), 300 * MS, &mut out);
    assert!(s.prr_safe_ack(marks));
}

#[test]
fn prr_without_sack_counts_duplicate_acks_as_delivered_and_resends_the_hole_when_allowed() {
    // NewReno, 10 outstanding, ACK 2 sends 10..12 (FlightSize 11, cwnd 11); 2 and 5 lost.
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| t.recovery_pacing = RecoveryPacing::Prr);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    out.clear();
    let mut per_ack = Vec::new();
    // 3, 4, 6..12 arrive: nine DUPACKs.
    for _ in 0..9 {
        let mut o = Vec::new();
        s.on_ack(&ack(2), 101 * MS, &mut o);
        per_ack.push(seqs(&o));
    }
    // Third DUPACK: fast retransmit of 2 (ssthresh 5.5 segments, RecoverFS 11). Then one
    // segment per two DUPACKs: CEIL(prr_delivered * 5.5 / 11) - prr_out.
    assert_eq!(per_ack[..3], [vec![], vec![], vec![2]]);
    assert_eq!(prr(&s).recover_fs, 11 * MSS);
    let new: Vec<u64> = per_ack[3..].iter().flatten().copied().collect();
    assert_eq!(new, vec![13, 14, 15]);
    assert_eq!((prr(&s).delivered, prr(&s).out), (7 * MSS, 4 * MSS));
    // Partial ACK to 5 (the retransmission of 2 with 3 and 4): it counts one segment
    // delivered (its DUPACKs counted the others). pipe: 5..15 less the 7 segments the
    // DUPACKs said are held (6..12) and the hole 5 = 13..15, 3 segments, below ssthresh:
    // PRR-SSRB sends up to ssthresh (2.5 segments): the hole first, then 16.
    let mut o = Vec::new();
    s.on_ack(&ack(5), 200 * MS, &mut o);
    assert!(s.in_recovery());
    assert_eq!(prr(&s).delivered, 8 * MSS);
    assert_eq!(seqs(&o), vec![5, 16]);
    assert!(!prr(&s).rexmit_pending);
    assert_eq!(s.prr_pipe(), 5 * MSS);
    // Its ACK (with 6..15) ends recovery (recover = 13): the control's window, ssthresh,
    // applies again.
    o.clear();
    s.on_ack(&ack(16), 300 * MS, &mut o);
    assert!(!s.in_recovery());
    assert_eq!(s.cwnd(), s.ssthresh());
    assert_eq!(s.stats.timeouts, 0);
}

#[test]
fn with_the_linux_prr_window_the_window_is_what_is_in_flight_once_prr_has_sent() {
    // The NewReno recovery above (2 and 5 lost). Linux's tcp_cwnd_reduction() sets snd_cwnd =
    // packets in flight + sndcnt on every ACK that delivered something, and then sends
    // sndcnt: with data to send, the flight after each such ACK is the window.
    for rule in [PrrWindow::Linux, PrrWindow::Ssthresh] {
        let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| {
            t.recovery_pacing = RecoveryPacing::Prr;
            t.prr_window = rule;
        });
        s.observe();
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out);
        let mut windows = Vec::new();
        for k in 0..9 {
            s.on_ack(&ack(2), (101 + k) * MS, &mut out);
            if s.in_recovery() {
                windows.push(s.window() / MSS);
                match rule {
                    PrrWindow::Linux => assert_eq!(s.window(), s.prr_pipe(), "DUPACK {}", k + 1),
                    PrrWindow::Ssthresh => assert_eq!(s.window(), s.cwnd()),
                }
            }
        }
        s.on_ack(&ack(5), 200 * MS, &mut out);
        assert!(s.in_recovery());
        if rule == PrrWindow::Linux {
            // The third DUPACK: 11 out, 3 held, the hole lost: 7 in flight, and the fast
            // retransmission.
            assert_eq!(windows[0], 8);
            assert_eq!(s.window(), s.prr_pipe(), "the partial ACK");
        }
        // The trace and the flow's series show the same window.
        let last = s.take_observations().last().unwrap();
        assert_eq!(last.cwnd_bytes, s.window());
        // The end of recovery: the control's window again.
        s.on_ack(&ack(16), 300 * MS, &mut out);
        assert!(!s.in_recovery());
        assert_eq!((s.window(), s.cwnd()), (s.ssthresh(), s.ssthresh()));
    }
}

#[test]
fn with_linux_growth_the_ack_that_ends_sack_recovery_grows_the_window_by_what_it_repaired() {
    // SACK, PRR, exit growth; 10 out, ACK 2 (slow start to 12) sends 10..13; 2 lost and 3..13
    // SACKed one by one, so the retransmission's ACK of 14 covers twelve segments of which
    // eleven were SACKed: Linux's tcp_newly_delivered() counts one, RFC 5681 all twelve.
    for (by_delivered, expect_growth) in [(true, false), (false, true)] {
        let (mut s, _) = started_spec(Recovery::Sack, 10, |t| {
            t.recovery_pacing = RecoveryPacing::Prr;
            t.recovery_exit_growth = true;
            t.window_growth = WindowGrowth::Linux;
            t.initial_ssthresh = 12 * MSS;
        });
        s.grows_by_delivered = by_delivered;
        let mut out = Vec::new();
        s.on_ack(&ack(2), 100 * MS, &mut out);
        for k in 3..14 {
            s.on_ack(&sack_ack(2, &[(3, k + 1)]), 101 * MS, &mut out);
        }
        assert!(s.in_recovery());
        let ssthresh = s.ssthresh();
        s.on_ack(&ack(14), 200 * MS, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd() > ssthresh, expect_growth, "by delivered {by_delivered}: cwnd {}", s.cwnd());
    }
}

#[test]
fn with_linux_reordering_dupacks_beyond_the_flight_after_a_timeout_raise_the_threshold() {
    for (rule, needed) in [(Reordering::Fixed, 3), (Reordering::Linux, 4)] {
        let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| {
            t.limited_transmit = true;
            t.reordering = rule;
        });
        let mut out = Vec::new();
        // A timeout: everything outstanding is lost, 0 resent with a window of one.
        let deadline = s.timer_deadline().unwrap();
        s.on_timer(deadline, &mut out);
        assert_eq!(seqs(&out), vec![0]);
        // The resend repairs 0..8; the window of two resends 9 and sends 10, beyond high_seq.
        let t = deadline + 100 * MS;
        out.clear();
        s.on_ack(&ack(9), t, &mut out);
        assert_eq!(seqs(&out), vec![9, 10]);
        // DUPACKs for 9, the application having written up to 13: each of the first two
        // lets one new segment out (limited transmit, or with Linux's count the place the
        // held segment left), the third none, and the loss episode keeps them from starting
        // a recovery; with Linux's count the fourth and fifth outnumber what is outstanding
        // (9..12, 9 itself lost) and raise the threshold to 4.
        s.data_limit = Some(13 * MSS);
        for k in 0..5 {
            s.on_ack(&ack(9), t + (1 + k) * MS, &mut out);
        }
        assert_eq!(s.snd_max(), 13 * MSS, "{rule:?}");
        assert_eq!(s.stats.fast_retransmits, 0, "{rule:?}: no recovery inside the loss episode");
        assert_eq!(s.reordering(), needed, "{rule:?}");
        // Everything acknowledged: the episode ends, then the next hole (at 13) needs
        // `needed` DUPACKs.
        s.data_limit = None;
        out.clear();
        s.on_ack(&ack(13), t + 100 * MS, &mut out);
        assert_eq!(s.ca_state(), CaState::Open);
        assert!(!out.is_empty());
        for k in 1..needed {
            s.on_ack(&ack(13), t + (100 + k) * MS, &mut out);
            assert_eq!(s.stats.fast_retransmits, 0, "{rule:?}: DUPACK {k}");
        }
        out.clear();
        s.on_ack(&ack(13), t + 200 * MS, &mut out);
        assert_eq!(s.stats.fast_retransmits, 1, "{rule:?}");
        assert_eq!(seqs(&out)[0], 13, "{rule:?}: the hole is resent");
    }
}

#[test]
fn with_frto_the_first_partial_ack_after_a_timeout_sends_new_data_and_a_dupack_resumes_the_resend() {
    for frto in [false, true] {
        let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| t.frto = frto);
        let mut out = Vec::new();
        // A timeout from Open: 0..9 outstanding, 0 resent with a window of one.
        let deadline = s.timer_deadline().unwrap();
        s.on_timer(deadline, &mut out);
        assert_eq!(seqs(&out), vec![0]);
        assert_eq!(s.frto_armed(), frto);
        // The resend repairs 0..8, 9 is still missing; the window is two.
        let t = deadline + 100 * MS;
        out.clear();
        s.on_ack(&ack(9), t, &mut out);
        if !frto {
            assert_eq!(seqs(&out), vec![9, 10], "go-back-N resends 9 first");
            continue;
        }
        // Step 2b: two new segments, 9 waits.
        assert_eq!(seqs(&out), vec![10, 11]);
        assert_eq!(s.ca_state(), CaState::Loss);
        // Step 3a: their DUPACK shows the loss real; it counts one segment held, which lets
        // the resend of 9 into the window of two.
        out.clear();
        s.on_ack(&ack(9), t + 100 * MS, &mut out);
        assert!(!s.frto_armed());
        assert_eq!(seqs(&out), vec![9]);
        // The second DUPACK frees one more: the resend goes on beyond the new data.
        out.clear();
        s.on_ack(&ack(9), t + 101 * MS, &mut out);
        assert_eq!(seqs(&out), vec![12]);
        // 9's ACK covers 10 and 11 too: the episode ends, nothing is resent twice.
        out.clear();
        s.on_ack(&ack(12), t + 200 * MS, &mut out);
        assert_eq!(s.ca_state(), CaState::Open);
        assert!(seqs(&out).iter().all(|&seq| seq >= 13), "{:?}", seqs(&out));
        assert_eq!(s.stats.retransmits, 2, "0 and 9 only");
    }
}

#[test]
fn a_preamble_goes_alone_and_the_bulk_data_follows_its_acknowledgment() {
    let mut s = sender_spec(Recovery::NewReno, 4, |t| t.preamble = 37);
    let mut out = Vec::new();
    s.start(0, &mut out);
    assert_eq!(out.iter().map(|p| (p.seq, p.len)).collect::<Vec<_>>(), vec![(0, 37)]);
    // Its ACK gives an RTT sample of its own; then full segments from byte 37.
    out.clear();
    let mut a = ack(0);
    a.ack = 37;
    s.on_ack(&a, 90 * MS, &mut out);
    assert_eq!(s.min_rtt(), Some(90 * MS));
    let sent: Vec<(u64, u32)> = out.iter().map(|p| (p.seq, p.len)).collect();
    assert_eq!(sent[0], (37, 1000));
    assert!(sent.len() >= 4 && sent.iter().all(|&(_, len)| len == 1000), "{sent:?}");
}

#[test]
fn frto_ends_with_its_loss_episode() {
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| t.frto = true);
    let mut out = Vec::new();
    let deadline = s.timer_deadline().unwrap();
    s.on_timer(deadline, &mut out);
    assert!(s.frto_armed());
    // The resend of 0 repairs everything: the episode ends at once, and F-RTO with it.
    s.on_ack(&ack(10), deadline + 100 * MS, &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert!(!s.frto_armed());
}

#[test]
fn frto_is_armed_by_a_timeout_from_open_or_a_repeated_one_not_by_one_in_recovery() {
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| t.frto = true);
    let mut out = Vec::new();
    for k in 0..3 {
        s.on_ack(&ack(0), (k + 1) * MS, &mut out);
    }
    assert!(s.in_recovery());
    let deadline = s.timer_deadline().unwrap();
    s.on_timer(deadline, &mut out);
    assert!(!s.frto_armed(), "a timeout in recovery");
    let again = s.timer_deadline().unwrap();
    s.on_timer(again, &mut out);
    assert!(s.frto_armed(), "a second timeout with nothing acknowledged since");
}

/// NewReno with PRR, exit growth and Linux's growth, as the linux profile, the defaults edited
/// by `edit`, in fast recovery for segment 2: 10 out, ACK 2 (two segments, slow start) sends
/// 10..13, so recover is 14; DUPACKs come from 3.., 10 of them.
fn newreno_recovery_for_segment_2(edit: impl FnOnce(&mut TcpSpec)) -> Sender {
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| {
        t.recovery_pacing = RecoveryPacing::Prr;
        t.recovery_exit_growth = true;
        t.window_growth = WindowGrowth::Linux;
        edit(t);
    });
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    for _ in 0..10 {
        s.on_ack(&ack(2), 101 * MS, &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(s.recover, Some(14 * MSS));
    s
}

#[test]
fn linux_holds_newreno_recovery_until_an_ack_beyond_recover() {
    // Segment 2 lost; the retransmission of 2 brings the cumulative ACK of exactly `recover`.
    for (exit, ends_at_recover) in [(RecoveryExit::AtRecover, true), (RecoveryExit::AboveRecover, false)] {
        let mut s = newreno_recovery_for_segment_2(|t| t.recovery_exit = exit);
        let ssthresh = s.ssthresh();
        let mut out = Vec::new();
        s.on_ack(&ack(14), 200 * MS, &mut out);
        assert_eq!(s.in_recovery(), !ends_at_recover, "{exit:?}");
        if ends_at_recover {
            // RFC 6582: recovery ends with the ACK of recover; of its twelve segments the
            // DUPACKs had reported ten, so it delivered two, fewer than the six (a window of
            // 6 segments) one segment of growth takes.
            assert_eq!(s.cwnd(), ssthresh, "{exit:?}");
            continue;
        }
        // tcp_try_undo_recovery's hold: no growth, and nothing below snd_una to resend (new
        // data only, as PRR allows).
        assert!(s.cwnd() <= ssthresh, "held: cwnd {} ssthresh {ssthresh}", s.cwnd());
        assert!(out.iter().all(|p| p.seq >= 14 * MSS), "held: resent {:?}", seqs(&out));
        // The next ACK (beyond recover) ends recovery: the window restarts from ssthresh and
        // grows by what this ACK acknowledged (one segment of the six the next one takes).
        s.on_ack(&ack(15), 300 * MS, &mut out);
        assert!(!s.in_recovery());
        assert_eq!(s.cwnd(), ssthresh);
        assert_eq!(s.stats.fast_retransmits, 1);
    }
}

#[test]
fn held_at_recover_linux_ignores_dupacks_until_the_timeout() {
    // As above, but the first segment sent in recovery (14) is lost too: the ACK of exactly
    // recover holds the sender in Recovery, and the DUPACKs the segments above 14 bring find
    // tcp_fastretrans_alert() resetting sacked_out and returning before counting them: no
    // delivery, no PRR sending, no fast retransmit; the RTO repairs the hole. Linux's traces
    // show it (docs/testbed.md): DUPACK rows in Recovery with sacked_out 0, window and
    // flight unchanged, then the RTO.
    let mut s = newreno_recovery_for_segment_2(|t| {
        t.recovery_exit = RecoveryExit::AboveRecover;
        t.prr_window = PrrWindow::Linux;
    });
    let mut out = Vec::new();
    s.on_ack(&ack(14), 200 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(s.dup_credit, 0, "the held ACK resets Linux's sacked_out");
    let (window, snd_max) = (s.window(), s.snd_max());
    for k in 0..8 {
        out.clear();
        s.on_ack(&ack(14), (201 + k) * MS, &mut out);
        assert!(out.is_empty(), "DUPACK {k} while held sent {:?}", seqs(&out));
        assert!(s.in_recovery());
        assert_eq!((s.dup_credit, s.window(), s.snd_max()), (0, window, snd_max));
    }
    assert_eq!(s.stats.fast_retransmits, 1);
    // The retransmission timer resends the hole.
    let deadline = s.timer_deadline().unwrap();
    out.clear();
    s.on_timer(deadline, &mut out);
    assert_eq!((s.stats.timeouts, seqs(&out).first().copied()), (1, Some(14)));
}

/// The segments of `MSS` bytes a Linux send buffer sized for `2 * nr_segs` holds
/// (`send_buffer.rs`: sized per `linux_per_mss`, filled at `linux_skb_truesize`).
fn linux_buffer_segments(nr_segs: u64) -> u64 {
    use super::send_buffer::{linux_per_mss, linux_skb_truesize};
    (2 * nr_segs * linux_per_mss(MSS)).div_ceil(linux_skb_truesize(MSS))
}

#[test]
fn a_linux_send_buffer_stops_new_data_two_windows_beyond_a_stuck_hole() {
    // NewReno with PRR, as the linux profile: 10 segments out, segment 0 lost. The buffer
    // is sized for 2 x max(TCP_INIT_CWND, cwnd) = 20 segments from the start
    // (tcp_init_buffer_space), which hold 26 of 1000 bytes at their truesize.
    let linux = linux_buffer_segments(10);
    assert_eq!(linux, 26);
    for (rule, expect_end) in [(SendBufferRule::Linux, Some(linux)), (SendBufferRule::Unlimited, None)] {
        let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| {
            t.limited_transmit = true;
            t.recovery_pacing = RecoveryPacing::Prr;
            t.send_buffer = rule;
        });
        assert_eq!(s.send_buffer.segments(), expect_end);
        // DUPACKs for ever: segment 0's retransmission is lost too; PRR keeps sending new
        // data as DUPACKs report segments delivered.
        let mut highest = 0;
        for i in 0..60 {
            let mut out = Vec::new();
            s.on_ack(&ack(0), (i + 1) * MS, &mut out);
            highest = highest.max(s.snd_max() / MSS);
        }
        match expect_end {
            // Nothing beyond snd_una + the buffer, and the buffer did not grow: PRR's window
            // (flight + sndcnt) stayed within half of it.
            Some(end) => {
                assert_eq!(highest, end);
                assert_eq!(s.send_buffer.segments(), Some(linux));
                // The retransmission arrives: one ACK covers all the written segments. The
                // writer, woken by it (the whole buffer is free), fills the buffer again, and
                // the sender must push that data now: nothing else would wake it (no data in
                // flight, no timer).
                let mut out = Vec::new();
                s.on_ack(&ack(linux), 100 * MS, &mut out);
                assert!(!seqs(&out).is_empty(), "nothing sent after the ACK of everything written");
                assert!(s.snd_max() > s.snd_una());
            }
            None => assert!(highest > 40, "unlimited: {highest}"),
        }
    }
}

#[test]
fn a_linux_send_buffer_grows_to_twice_the_window_when_it_held_the_sender_back() {
    // Slow start from 10 segments: every ACK of one segment lets two out; the buffer of
    // 26 segments (sized for 20) holds the sender back once cwnd passes 13 in flight ...
    let (mut s, _) = started_spec(Recovery::NewReno, 10, |t| {
        t.window_growth = WindowGrowth::Linux;
        t.send_buffer = SendBufferRule::Linux;
    });
    for n in 1..=40 {
        let mut out = Vec::new();
        s.on_ack(&ack(n), n * MS, &mut out);
        // ... and never beyond what the buffer holds.
        let buffer = s.send_buffer.segments().unwrap();
        assert!(s.snd_max() / MSS <= n + buffer, "ack {n}: {} > {n} + {buffer}", s.snd_max() / MSS);
        // Twice the window after every ACK, as `ss -m` showed the kernel's sk_sndbuf in slow
        // start (tcp_event_new_data_sent(): after the first of the ACK's two segments the
        // flight is one below cwnd); expanding only when the buffer held the sender back
        // leaves it anywhere between one and two windows.
        assert_eq!(buffer, linux_buffer_segments((s.cwnd() / MSS).max(10)), "ack {n}");
    }
    assert!(s.send_buffer.segments().unwrap() >= 80, "{:?}", s.send_buffer.segments());
}

#[test]
fn with_linux_cwnd_validation_a_window_the_receiver_holds_back_stops_growing() {
    // Congestion avoidance at 20 segments; the receiver's window allows only 10 in flight.
    for (rule, grows) in [(CwndValidation::Linux, false), (CwndValidation::None, true)] {
        let mut s = sender_spec(Recovery::NewReno, 20, |t| {
            t.initial_ssthresh = 10 * MSS;
            t.window_growth = WindowGrowth::Linux;
            t.cwnd_validation = rule;
        });
        let mut out = Vec::new();
        s.start(0, &mut out);
        let small_window = |n: u64| Packet { window: 10 * MSS, ..ack(n) };
        // The first round trip filled the window (20 out of 20): it may grow once.
        let mut before = s.cwnd();
        for n in 1..=100 {
            let mut out = Vec::new();
            s.on_ack(&small_window(n), n * MS, &mut out);
            assert!(s.snd_max() <= (n + 20) * MSS);
            if n == 25 {
                before = s.cwnd();
            }
        }
        assert_eq!(s.cwnd() > before, grows, "{rule:?}: cwnd {} -> {}", before / MSS, s.cwnd() / MSS);
        // A full window again grows it.
        let mut out = Vec::new();
        let wide = 1000;
        s.on_ack(&Packet { window: wide * MSS, ..ack(101) }, 101 * MS, &mut out);
        let at = s.cwnd();
        for n in 102..=200 {
            let mut out = Vec::new();
            s.on_ack(&Packet { window: wide * MSS, ..ack(n) }, n * MS, &mut out);
        }
        assert!(s.cwnd() > at, "{rule:?}: a window-limited sender grows");
    }
}

/// A SACK sender with RACK-TLP (`loss_detection = "rack"`) and `segments` sent at time 0.
fn started_rack(segments: u64) -> (Sender, Vec<Packet>) {
    started_spec(Recovery::Sack, segments, |t| t.loss_detection = LossDetection::Rack)
}

#[test]
fn rack_waits_a_quarter_rtt_on_one_sack_and_marks_the_hole_lost_at_once_on_three() {
    // Segment 2 lost; 3 SACKed at 101 ms. RACK.rtt is 101 ms (3 was sent at 0), the
    // reordering window min_rtt / 4 = 25 ms: 2 is lost at 126 ms, the timer fires on the tick
    // after 126 + 2 ms (32 jiffies of 4 ms).
    let (mut s, _) = started_rack(10);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    out.clear();
    s.on_ack(&sack_ack(2, &[(3, 4)]), 101 * MS, &mut out);
    assert!(!s.in_recovery());
    assert_eq!(s.timer_deadline(), Some(128 * MS));
    s.on_timer(128 * MS, &mut out);
    assert!(s.in_recovery(), "the reordering timer starts the recovery");
    assert_eq!((s.stats.fast_retransmits, seqs(&out)[0]), (1, 2));
    assert!(s.check_sack_state().is_ok(), "{:?}", s.check_sack_state());

    // Three SACKed segments: no reordering window (tcp_rack_reo_wnd()), lost on that ACK.
    let (mut s, _) = started_rack(10);
    s.on_ack(&ack(2), 100 * MS, &mut out);
    out.clear();
    s.on_ack(&sack_ack(2, &[(3, 4)]), 101 * MS, &mut out);
    s.on_ack(&sack_ack(2, &[(3, 5)]), 102 * MS, &mut out);
    assert!(!s.in_recovery());
    s.on_ack(&sack_ack(2, &[(3, 6)]), 103 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!(seqs(&out), vec![2]);
    assert!(s.check_sack_state().is_ok(), "{:?}", s.check_sack_state());
}

/// Segment 2 lost, recovery by three SACKs at 103 ms, then the SACKs of everything else sent
/// before the retransmission, then of a segment sent after it at `later`.
fn rack_lost_retransmission(loss_detection: LossDetection, later: Nanos) -> (Sender, Vec<u64>) {
    let (mut s, _) = started_spec(Recovery::Sack, 10, |t| t.loss_detection = loss_detection);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out); // cwnd 11: 10, 11, 12 go at 100 ms
    for (i, top) in (4..=10).enumerate() {
        s.on_ack(&sack_ack(2, &[(3, top)]), (101 + i as u64) * MS, &mut out);
    }
    assert!(s.in_recovery());
    assert_eq!(seqs(&out)[..4], [10, 11, 12, 2], "the hole resent at 103 ms");
    for top in 11..=13 {
        s.on_ack(&sack_ack(2, &[(3, top)]), 200 * MS, &mut out);
    }
    let sent_after: Vec<u64> = seqs(&out).into_iter().filter(|&n| n >= 13).collect();
    assert!(!sent_after.is_empty(), "{:?}", seqs(&out));
    out.clear();
    // The resend of 2 was lost too; the next segment sent after it is SACKed.
    let next = sent_after[0];
    s.on_ack(&sack_ack(2, &[(3, 13), (next, next + 1)]), later, &mut out);
    assert!(s.check_sack_state().is_ok(), "{:?}", s.check_sack_state());
    (s, seqs(&out))
}

#[test]
fn rack_resends_a_lost_retransmission_once_a_segment_sent_after_it_is_sacked_an_rtt_later() {
    // 2 went again at 103 ms; a segment sent at 104 ms or later is SACKed at 300 ms: RACK.rtt
    // at most 196 ms, 103 + 196 < 300, so the resend is lost and goes a third time.
    let (s, sent) = rack_lost_retransmission(LossDetection::Rack, 300 * MS);
    assert_eq!(sent.first(), Some(&2), "{sent:?}");
    assert_eq!((s.stats.retransmits, s.stats.timeouts), (2, 0));
    // RFC 6675's IsLost has nothing to say about a resent segment: it waits for the RTO.
    let (s, sent) = rack_lost_retransmission(LossDetection::Dupthresh, 300 * MS);
    assert!(!sent.contains(&2), "{sent:?}");
    assert_eq!(s.stats.retransmits, 1);
}

#[test]
fn a_tail_loss_probe_sends_new_data_two_rtts_after_the_last_send_and_its_sack_starts_recovery() {
    // 4..8 go at 100 ms (cwnd 5) and are all lost. The probe timer: 2 srtt + 2 ms = 202 ms,
    // on a tick: 204 ms after 100 ms, well before the RTO.
    let (mut s, _) = started_rack(4);
    let mut out = Vec::new();
    s.on_ack(&ack(4), 100 * MS, &mut out);
    assert_eq!(seqs(&out), (4..9).collect::<Vec<_>>());
    out.clear();
    assert_eq!(s.timer_deadline(), Some(304 * MS));
    s.on_timer(304 * MS, &mut out);
    assert_eq!(seqs(&out), vec![9], "new data, beyond cwnd");
    assert_eq!((s.stats.retransmits, s.stats.timeouts), (0, 0));
    assert!(!s.in_recovery());
    out.clear();
    // Its SACK: everything sent before it and longer than RACK.rtt + 25 ms ago is lost.
    s.on_ack(&sack_ack(4, &[(9, 10)]), 404 * MS, &mut out);
    assert!(s.in_recovery());
    assert_eq!((s.stats.fast_retransmits, s.stats.timeouts), (1, 0));
    assert_eq!(seqs(&out).first(), Some(&4));
    assert!(s.check_sack_state().is_ok(), "{:?}", s.check_sack_state());
}

#[test]
fn with_no_new_data_the_probe_resends_the_last_segment_and_only_one_probe_is_outstanding() {
    let (mut s, _) = started_rack(4);
    let mut out = Vec::new();
    s.on_ack(&ack(2), 100 * MS, &mut out);
    s.stop();
    out.clear();
    let probe_at = s.timer_deadline().expect("a probe timer");
    assert!(probe_at < 100 * MS + NANOS_PER_SECOND, "the probe comes before the RTO");
    s.on_timer(probe_at, &mut out);
    assert_eq!(seqs(&out), vec![6], "the last segment again (cwnd 5: 2..6 out)");
    assert_eq!(s.stats.retransmits, 1);
    // The retransmission timer runs from the probe; no second probe before it settles.
    out.clear();
    let rto_at = s.timer_deadline().expect("the retransmission timer");
    assert!(rto_at > probe_at + 100 * MS);
    s.on_timer(rto_at, &mut out);
    assert_eq!(s.stats.timeouts, 1);
}

#[test]
fn with_the_linux_push_flag_psh_goes_on_every_half_window_written_and_on_each_writes_end() {
    // A 16-segment window (max_window / 2 = 8 segments) and Linux's send buffer: the first
    // write is 20 segments (2 x TCP_INIT_CWND): PSH on segment 9 (the first past 8 written),
    // on 18, and on 20, where the write stopped.
    let linux = |t: &mut TcpSpec| {
        t.push_flag = PushFlag::Linux;
        t.send_buffer = SendBufferRule::Linux;
        t.receiver_window = 16 * MSS;
    };
    let pushed =
        |out: &[Packet]| -> Vec<u64> { out.iter().filter(|p| p.push).map(|p| p.seq / MSS + 1).collect() };
    let (mut s, out) = started_spec(Recovery::NewReno, 10, linux);
    assert_eq!(pushed(&out), vec![9]);
    let mut out = Vec::new();
    s.on_ack(&Packet { window: 16 * MSS, ..ack(8) }, 100 * MS, &mut out);
    assert!(pushed(&out).contains(&18), "{:?} in {:?}", pushed(&out), seqs(&out));
    // Without the rule nothing carries PSH.
    let (_, out) = started_spec(Recovery::NewReno, 10, |t| t.send_buffer = SendBufferRule::Linux);
    assert!(out.iter().all(|p| !p.push));
}

#[test]
fn a_resent_probe_that_repaired_a_loss_reduces_the_window_once_and_a_duplicate_of_it_does_not() {
    // The receiver's window (5 segments) is full: the probe resends the last segment, 6.
    let probed = || {
        let (mut s, _) = started_rack(4);
        let mut out = Vec::new();
        s.on_ack(&Packet { window: 5 * MSS, ..ack(2) }, 100 * MS, &mut out);
        assert_eq!(seqs(&out), vec![4, 5, 6]);
        out.clear();
        let probe_at = s.timer_deadline().expect("a probe timer");
        s.on_timer(probe_at, &mut out);
        assert_eq!((seqs(&out), s.stats.retransmits), (vec![6], 1));
        (s, probe_at)
    };
    // Everything up to the probe acknowledged, then data beyond it: the probe repaired a loss
    // (an ACK beyond tlp_high_seq), one reduction (Reno: half the FlightSize, the six segments
    // 7..12 that the ACK of 7 let out).
    let (mut s, probe_at) = probed();
    let mut out = Vec::new();
    assert!(s.ssthresh() > 100 * MSS);
    s.on_ack(&Packet { window: 10 * MSS, ..ack(7) }, probe_at + 100 * MS, &mut out);
    assert!(s.ssthresh() > 100 * MSS, "an ACK of exactly the probe settles nothing yet");
    assert!(!out.is_empty());
    s.on_ack(&Packet { window: 10 * MSS, ..ack(8) }, probe_at + 200 * MS, &mut out);
    assert_eq!(s.ssthresh(), 3 * MSS);
    assert!(!s.in_recovery());
    // A duplicate ACK of the probe (both copies arrived): no reduction, ever.
    let (mut s, probe_at) = probed();
    s.on_ack(&Packet { window: 5 * MSS, ..ack(7) }, probe_at + 100 * MS, &mut out);
    s.on_ack(&Packet { window: 5 * MSS, ..ack(7) }, probe_at + 101 * MS, &mut out);
    s.on_ack(&Packet { window: 10 * MSS, ..ack(8) }, probe_at + 200 * MS, &mut out);
    assert!(s.ssthresh() > 100 * MSS, "ssthresh {}", s.ssthresh());
}

/// NewReno with Linux's growth and Linux's DUPACK count (`reordering = "linux"`), as the linux
/// profile has them, `segments` out.
fn started_with_linux_count(segments: u64) -> Sender {
    let (s, _) = started_spec(Recovery::NewReno, segments, |t| {
        t.window_growth = WindowGrowth::Linux;
        t.reordering = Reordering::Linux;
    });
    s
}

#[test]
fn with_linux_count_the_dupacks_of_a_go_back_n_resend_take_nothing_from_the_next_ack() {
    // Traced on the testbed (tcpw, fig. 9 path): after an RTO the resend reaches segments the
    // receiver holds, and their DUPACKs come before new data is out beyond `high_seq`, where
    // `tcp_process_loss()` does not count them; the next cumulative ACK then delivers all it
    // covers, and slow start grows by that (`tcp_remove_reno_sacks()` with `sacked_out` 0).
    let mut s = started_with_linux_count(20);
    let mut out = Vec::new();
    let deadline = s.timer_deadline().unwrap();
    s.on_timer(deadline, &mut out);
    assert_eq!(s.cwnd(), MSS);
    let t = deadline + 100 * MS;
    s.on_ack(&ack(2), t, &mut out);
    assert_eq!(s.cwnd(), 3 * MSS, "0 and 1 delivered");
    s.on_ack(&ack(2), t + MS, &mut out);
    assert_eq!(s.ca_state(), CaState::Loss);
    s.on_ack(&ack(5), t + 2 * MS, &mut out);
    assert_eq!(s.cwnd(), 6 * MSS, "2, 3 and 4 delivered: the DUPACK before counted nothing");
}

#[test]
fn with_linux_count_an_ack_of_new_data_outside_recovery_clears_what_the_dupacks_counted() {
    // Two DUPACKs in Open count two segments held; the ACK of one segment delivers one
    // (`tcp_remove_reno_sacks()`: at least the hole), then `tcp_fastretrans_alert()` resets the
    // count, so the next ACK of two delivers both, and slow start grows by three in all.
    let mut s = started_with_linux_count(10);
    let mut out = Vec::new();
    s.on_ack(&ack(0), MS, &mut out);
    s.on_ack(&ack(0), 2 * MS, &mut out);
    let before = s.cwnd();
    s.on_ack(&ack(1), 100 * MS, &mut out);
    s.on_ack(&ack(3), 101 * MS, &mut out);
    assert_eq!(s.ca_state(), CaState::Open);
    assert_eq!(s.cwnd(), before + 3 * MSS);
}
