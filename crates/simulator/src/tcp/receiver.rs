//! The receiving end of a bulk TCP flow.
//!
//! Delayed ACKs per RFC 1122 §4.2.3.2 and RFC 5681 §4.2: an ACK for at least every second
//! full-sized segment and within 200 ms of the first unacknowledged one; an immediate ACK for an
//! out-of-order segment (the DUPACK the sender counts), for a duplicate, and for a segment that
//! fills all or part of a gap. Out-of-order data waits in a reassembly buffer; the application
//! reads in-order data as soon as it arrives. The advertised window is the configured size, or
//! opens as Linux's does (`receive_window.rs`); the bytes held out of order never reduce it (a
//! simplification: real stacks count them against the receive buffer).
//!
//! Quick ACKs (`DelayedAckSpec::quick_acks` = N > 0, Linux's quick-ACK mode): the first N ACKs
//! the receiver sends go out at once for every in-order segment, and a duplicate segment (a
//! retransmission of data already received) grants N more, as Linux's `tcp_incr_quickack` at
//! the first data segment and `tcp_enter_quickack_mode` on a retransmission do. Each ACK sent
//! uses one (`tcp_dec_quickack_mode`). Linux caps N at `rcv_wnd / (2·rcv_mss)` (5 at connection
//! start with its initial 10-segment window, `TCP_MAX_QUICKACKS` = 16 once the window has
//! opened) and also re-enters the mode after a silence longer than the RTO; neither is modelled.
//! With Linux's window (`receive_window = "linux"`) every in-order segment that opens the window
//! asks for one quick ACK (`tcp_grow_window()`: `icsk_ack.quick |= 1`), so Linux's receiver
//! acknowledges every segment until its window reaches the clamp (on the testbed's fig. 9 path
//! about the first 10 s).
//!
//! PSH (`push_flag = "linux"`, `with_push_acks`): an in-order segment carrying PSH is
//! acknowledged at once, with whatever in-order data is still unacknowledged, as Linux's
//! `tcp_cleanup_rbuf()` does once the application has read it (`tcp/push.rs`).
//!
//! With SACK on (the flow's recovery is `sack`; both ends are assumed to have agreed on it), every
//! ACK sent while data is held out of order carries up to three RFC 2018 blocks, built as §4
//! says: the first block is the contiguous range holding the segment that triggered the ACK
//! (unless that segment advanced the cumulative ACK), then the most recently reported blocks that
//! are not subsets of one already included. The receiver keeps every held range in the order it
//! last changed, so older ranges fill the option when fewer than three are recent. The buffer is
//! never purged (no reneging) and no D-SACK (RFC 2883) is sent. An ACK's size stays `header_size`:
//! the option's bytes (up to 28 with padding) are not counted.

use super::receive_window::ReceiveWindow;
use super::timer_wheel::TimerWheel;
use crate::model::{DelayedAckSpec, Nanos};
use crate::network::{Packet, PacketKind, SackBlocks};
use std::collections::BTreeMap;

#[derive(Debug)]
pub struct Receiver {
    flow: u32,
    /// This endpoint's node and the sender's node.
    node: u32,
    peer: u32,
    header_size: u32,
    window: ReceiveWindow,
    delayed_ack: DelayedAckSpec,
    /// Next in-order byte expected (the cumulative ACK number).
    rcv_nxt: u64,
    /// Out-of-order data as disjoint, non-adjacent ranges: start -> end.
    reassembly: BTreeMap<u64, u64>,
    /// Send SACK blocks (RFC 2018).
    sack: bool,
    /// With SACK: the ranges of `reassembly`, most recently changed first.
    sack_order: Vec<(u64, u64)>,
    /// Segments received in order and not yet acknowledged.
    unacked_segments: u32,
    delayed_ack_deadline: Option<Nanos>,
    /// Quick ACKs left (Linux's `icsk_ack.quick`).
    quick_acks_left: u32,
    /// A segment carrying PSH is acknowledged at once (`push_flag = "linux"`).
    push_acks: bool,
    /// When the delayed-ACK timer really fires (`timer_hz`).
    timer_wheel: TimerWheel,
    /// Bytes (payload and headers, duplicates included) of every data packet that arrived.
    pub wire_bytes_received: u64,
    pub acks_sent: u64,
}

/// Bytes newly handed to the application, as the half-open range `[from, to)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Delivery {
    pub from: u64,
    pub to: u64,
}

impl Receiver {
    pub fn new(
        flow: u32,
        node: u32,
        peer: u32,
        header_size: u32,
        window: ReceiveWindow,
        delayed_ack: DelayedAckSpec,
    ) -> Self {
        Receiver {
            flow,
            node,
            peer,
            header_size,
            window,
            delayed_ack,
            rcv_nxt: 0,
            reassembly: BTreeMap::new(),
            sack: false,
            sack_order: Vec::new(),
            unacked_segments: 0,
            delayed_ack_deadline: None,
            quick_acks_left: delayed_ack.quick_acks,
            push_acks: false,
            timer_wheel: TimerWheel::default(),
            wire_bytes_received: 0,
            acks_sent: 0,
        }
    }

    /// Attach RFC 2018 SACK blocks to the ACKs.
    pub fn with_sack(mut self, enabled: bool) -> Self {
        self.sack = enabled;
        self
    }

    /// Acknowledge an in-order segment carrying PSH at once, as Linux does once the application
    /// has read it (`tcp_measure_rcv_mss()` sets `ICSK_ACK_PUSHED`, `tcp_cleanup_rbuf()` acts on
    /// it; the application here reads at once).
    pub fn with_push_acks(mut self, enabled: bool) -> Self {
        self.push_acks = enabled;
        self
    }

    /// The delayed-ACK timer fires on this timer wheel (`timer_hz`, `timer_wheel.rs`): Linux's
    /// `icsk_delack_timer` is a `timer_list`, so a 40 ms delayed ACK goes out 40-44 ms after
    /// the segment at HZ 250.
    pub fn with_timer_wheel(mut self, wheel: TimerWheel) -> Self {
        self.timer_wheel = wheel;
        self
    }

    /// Hold `[start, end)` out of order, merged with the ranges it overlaps or touches.
    fn hold(&mut self, start: u64, end: u64) {
        let (mut s, mut e) = (start, end);
        if let Some((&ps, &pe)) = self.reassembly.range(..=s).next_back() {
            if pe >= s {
                s = ps;
                e = e.max(pe);
                self.reassembly.remove(&ps);
            }
        }
        while let Some((&ns, &ne)) = self.reassembly.range(s..).next() {
            if ns > e {
                break;
            }
            e = e.max(ne);
            self.reassembly.remove(&ns);
        }
        self.reassembly.insert(s, e);
        if self.sack {
            // RFC 2018 §4: this range first, then the others most recent first; ranges it
            // swallowed are subsets of it and go.
            self.sack_order.retain(|&(rs, re)| !(s <= rs && re <= e));
            self.sack_order.insert(0, (s, e));
        }
    }

    /// Handle an arriving data segment; ACKs go to `out`. Returns the in-order bytes it released.
    pub fn on_data(&mut self, segment: &Packet, now: Nanos, out: &mut Vec<Packet>) -> Option<Delivery> {
        self.wire_bytes_received += u64::from(segment.size);
        let start = segment.seq;
        let end = segment.seq + u64::from(segment.len);
        if end <= self.rcv_nxt {
            // A duplicate: tell the sender where we are at once (and, with quick ACKs, keep
            // acknowledging at once for a while: the sender is retransmitting).
            self.quick_acks_left = self.quick_acks_left.max(self.delayed_ack.quick_acks);
            self.send_ack(now, out);
            return None;
        }
        if start > self.rcv_nxt {
            self.hold(start, end);
            // Acknowledged at once anyway (an out-of-order segment).
            let _ = self.window.on_data(end - start, false, self.rcv_nxt, self.sack);
            self.send_ack(now, out);
            return None;
        }
        let from = self.rcv_nxt;
        let filled_gap = !self.reassembly.is_empty();
        self.rcv_nxt = end;
        while let Some((&s, &e)) = self.reassembly.first_key_value() {
            if s > self.rcv_nxt {
                break;
            }
            self.rcv_nxt = self.rcv_nxt.max(e);
            self.reassembly.remove(&s);
        }
        if self.window.on_data(end - start, true, self.rcv_nxt, self.sack) {
            // tcp_grow_window(): a window that opens is announced at once.
            self.quick_acks_left |= 1;
        }
        if filled_gap && self.sack {
            let rcv_nxt = self.rcv_nxt;
            self.sack_order.retain(|&(s, _)| s > rcv_nxt);
        }
        let pushed = self.push_acks && segment.push;
        if filled_gap || !self.delayed_ack.enabled || self.quick_acks_left > 0 || pushed {
            self.send_ack(now, out);
        } else {
            self.unacked_segments += 1;
            if self.unacked_segments >= self.delayed_ack.every_segments {
                self.send_ack(now, out);
            } else if self.delayed_ack_deadline.is_none() {
                self.delayed_ack_deadline = Some(self.timer_wheel.fire_at(now, self.delayed_ack.timeout));
            }
        }
        Some(Delivery { from, to: self.rcv_nxt })
    }

    /// The delayed-ACK timer expired.
    pub fn on_timer(&mut self, now: Nanos, out: &mut Vec<Packet>) {
        if self.delayed_ack_deadline.is_some_and(|deadline| deadline <= now) {
            self.send_ack(now, out);
        }
    }

    fn send_ack(&mut self, _now: Nanos, out: &mut Vec<Packet>) {
        self.unacked_segments = 0;
        self.delayed_ack_deadline = None;
        self.quick_acks_left = self.quick_acks_left.saturating_sub(1);
        self.acks_sent += 1;
        let mut sack = SackBlocks::NONE;
        if self.sack {
            for &(s, e) in self.sack_order.iter().take(SackBlocks::MAX) {
                sack.push(self.rcv_nxt, s, e);
            }
        }
        out.push(Packet {
            kind: PacketKind::Ack,
            flow: self.flow,
            src: self.node,
            dst: self.peer,
            seq: 0,
            len: 0,
            ack: self.rcv_nxt,
            window: self.window.advertised(),
            size: self.header_size,
            sack,
            path: 0,
            push: false,
        });
    }

    pub fn timer_deadline(&self) -> Option<Nanos> {
        self.delayed_ack_deadline
    }

    pub fn rcv_nxt(&self) -> u64 {
        self.rcv_nxt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u32 = 1000;

    fn receiver(delayed: bool) -> Receiver {
        let spec =
            DelayedAckSpec { enabled: delayed, timeout: 200_000_000, every_segments: 2, quick_acks: 0 };
        Receiver::new(0, 1, 0, 40, ReceiveWindow::fixed(65_535), spec)
    }

    fn segment(index: u64) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: 0,
            src: 0,
            dst: 1,
            seq: index * u64::from(MSS),
            len: MSS,
            ack: 0,
            window: 0,
            size: MSS + 40,
            sack: SackBlocks::NONE,
            path: 0,
            push: false,
        }
    }

    fn acks(out: &[Packet]) -> Vec<u64> {
        out.iter().map(|p| p.ack / u64::from(MSS)).collect()
    }

    #[test]
    fn acks_every_second_segment_and_arms_the_timer_for_the_first() {
        let mut rx = receiver(true);
        let mut out = Vec::new();
        rx.on_data(&segment(0), 0, &mut out);
        assert!(out.is_empty());
        assert_eq!(rx.timer_deadline(), Some(200_000_000));
        rx.on_data(&segment(1), 10, &mut out);
        assert_eq!(acks(&out), vec![2]);
        assert_eq!(rx.timer_deadline(), None);
    }

    #[test]
    fn with_push_acks_a_segment_carrying_psh_is_acknowledged_at_once_and_shifts_the_pairs() {
        let mut rx = receiver(true).with_push_acks(true);
        let mut out = Vec::new();
        rx.on_data(&segment(0), 0, &mut out);
        rx.on_data(&segment(1), 0, &mut out);
        // Segment 2 carries PSH: acknowledged alone; then 3 and 4 pair, where without PSH 2
        // and 3 would.
        rx.on_data(&Packet { push: true, ..segment(2) }, 0, &mut out);
        assert_eq!(acks(&out), vec![2, 3]);
        rx.on_data(&segment(3), 0, &mut out);
        rx.on_data(&segment(4), 0, &mut out);
        assert_eq!(acks(&out), vec![2, 3, 5]);
        // Without the rule PSH changes nothing.
        let mut plain = receiver(true);
        let mut out = Vec::new();
        for i in 0..5 {
            plain.on_data(&Packet { push: i == 2, ..segment(i) }, 0, &mut out);
        }
        assert_eq!(acks(&out), vec![2, 4]);
    }

    #[test]
    fn while_linux_opens_its_window_every_segment_is_acknowledged() {
        // 64 KiB at first (65 segments of 1 000 B): pairs until that much has arrived and the
        // buffer is autotuned, then a quick ACK per segment while rcv_ssthresh grows.
        let spec = DelayedAckSpec { enabled: true, timeout: 200_000_000, every_segments: 2, quick_acks: 0 };
        let window = ReceiveWindow::new(crate::model::ReceiveWindowRule::Linux, 1_000_000, u64::from(MSS));
        let mut rx = Receiver::new(0, 1, 0, 40, window, spec);
        let mut out = Vec::new();
        for i in 0..64 {
            rx.on_data(&segment(i), 0, &mut out);
        }
        assert_eq!(out.len(), 32, "every second segment");
        out.clear();
        // The 65th completes the first window (the buffer is autotuned, nothing grows yet):
        // it waits for its pair; from the 66th on every segment grows the window.
        for i in 64..144 {
            rx.on_data(&segment(i), 0, &mut out);
        }
        assert_eq!(out.len(), 79, "each segment once the window opens");
    }

    #[test]
    fn the_timer_acks_a_lone_segment() {
        let mut rx = receiver(true);
        let mut out = Vec::new();
        rx.on_data(&segment(0), 0, &mut out);
        rx.on_timer(199_999_999, &mut out);
        assert!(out.is_empty());
        rx.on_timer(200_000_000, &mut out);
        assert_eq!(acks(&out), vec![1]);
    }

    #[test]
    fn out_of_order_segments_get_immediate_duplicate_acks_and_the_gap_fill_acks_at_once() {
        let mut rx = receiver(true);
        let mut out = Vec::new();
        rx.on_data(&segment(0), 0, &mut out);
        rx.on_data(&segment(1), 0, &mut out);
        for i in 3..6 {
            rx.on_data(&segment(i), 0, &mut out);
        }
        assert_eq!(acks(&out), vec![2, 2, 2, 2]);
        let delivery = rx.on_data(&segment(2), 0, &mut out);
        assert_eq!(acks(&out), vec![2, 2, 2, 2, 6]);
        assert_eq!(delivery, Some(Delivery { from: 2000, to: 6000 }));
    }

    #[test]
    fn quick_acks_acknowledge_every_segment_at_the_start_and_after_a_duplicate() {
        let spec = DelayedAckSpec { enabled: true, timeout: 200_000_000, every_segments: 2, quick_acks: 3 };
        let mut rx = Receiver::new(0, 1, 0, 40, ReceiveWindow::fixed(65_535), spec);
        let mut out = Vec::new();
        for i in 0..6 {
            rx.on_data(&segment(i), 0, &mut out);
        }
        // Three quick ACKs, then one ACK per two segments again.
        assert_eq!(acks(&out), vec![1, 2, 3, 5]);
        assert_eq!(rx.timer_deadline(), Some(200_000_000), "segment 5 waits for its delayed ACK");
        out.clear();
        // A duplicate (a retransmission of data held) is acknowledged at once and grants three
        // more: its own ACK takes one, so the next two segments are acknowledged at once.
        rx.on_data(&segment(2), 1, &mut out);
        for i in 6..10 {
            rx.on_data(&segment(i), 2, &mut out);
        }
        assert_eq!(acks(&out), vec![6, 7, 8, 10]);
        // Without quick ACKs (the default) nothing changes.
        let mut plain = receiver(true);
        let mut out = Vec::new();
        for i in 0..4 {
            plain.on_data(&segment(i), 0, &mut out);
        }
        assert_eq!(acks(&out), vec![2, 4]);
    }

    #[test]
    fn duplicates_are_acknowledged_and_never_delivered_twice() {
        let mut rx = receiver(false);
        let mut out = Vec::new();
        assert!(rx.on_data(&segment(0), 0, &mut out).is_some());
        assert_eq!(rx.on_data(&segment(0), 0, &mut out), None);
        assert_eq!(acks(&out), vec![1, 1]);
        assert_eq!(rx.rcv_nxt(), 1000);
    }
}

#[cfg(test)]
mod sack_tests {
    use super::*;

    const MSS: u64 = 1000;

    fn receiver() -> Receiver {
        let spec = DelayedAckSpec { enabled: true, timeout: 200_000_000, every_segments: 2, quick_acks: 0 };
        Receiver::new(0, 1, 0, 40, ReceiveWindow::fixed(1 << 20), spec).with_sack(true)
    }

    fn segment(index: u64) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: 0,
            src: 0,
            dst: 1,
            seq: index * MSS,
            len: MSS as u32,
            ack: 0,
            window: 0,
            size: MSS as u32 + 40,
            sack: SackBlocks::NONE,
            path: 0,
            push: false,
        }
    }

    /// Deliver segments; return the SACK blocks (in segments) of the last ACK sent.
    fn blocks_after(rx: &mut Receiver, segments: &[u64]) -> (u64, Vec<(u64, u64)>) {
        let mut out = Vec::new();
        for &i in segments {
            rx.on_data(&segment(i), 0, &mut out);
        }
        let ack = out.last().expect("an ACK");
        (ack.ack / MSS, ack.sack.iter(ack.ack).map(|(s, e)| (s / MSS, e / MSS)).collect())
    }

    #[test]
    fn the_first_block_holds_the_segment_that_triggered_the_ack() {
        let mut rx = receiver();
        // 0 arrives, 1 is lost, 2 and 3 arrive: one block [2, 4).
        assert_eq!(blocks_after(&mut rx, &[0, 2, 3]), (1, vec![(2, 4)]));
        // 5 lost, 6 arrives: its block first, the older one after.
        assert_eq!(blocks_after(&mut rx, &[6]), (1, vec![(6, 7), (2, 4)]));
        // 8 arrives, then 4 fills between [2, 4) and 5's hole: [2, 5) first.
        assert_eq!(blocks_after(&mut rx, &[8]), (1, vec![(8, 9), (6, 7), (2, 4)]));
        assert_eq!(blocks_after(&mut rx, &[4]), (1, vec![(2, 5), (8, 9), (6, 7)]));
        // At most three blocks: a fourth range drops the least recent from the option.
        assert_eq!(blocks_after(&mut rx, &[10]), (1, vec![(10, 11), (2, 5), (8, 9)]));
        // The least recent range is still held, and reported again once a block goes away.
        // 1 arrives: the ACK advances to 5 (1 and [2, 5)); that segment is not reported.
        assert_eq!(blocks_after(&mut rx, &[1]), (5, vec![(10, 11), (8, 9), (6, 7)]));
        // 7 merges [6, 7) and [8, 9) into [6, 9).
        assert_eq!(blocks_after(&mut rx, &[7]), (5, vec![(6, 9), (10, 11)]));
        // Filling everything: no more blocks.
        assert_eq!(blocks_after(&mut rx, &[5, 9]), (11, vec![]));
    }

    #[test]
    fn a_duplicate_of_held_data_reports_its_range_first() {
        let mut rx = receiver();
        assert_eq!(blocks_after(&mut rx, &[0, 2, 4]), (1, vec![(4, 5), (2, 3)]));
        assert_eq!(blocks_after(&mut rx, &[2]), (1, vec![(2, 3), (4, 5)]));
    }

    #[test]
    fn without_sack_no_blocks_are_sent() {
        let spec = DelayedAckSpec { enabled: true, timeout: 200_000_000, every_segments: 2, quick_acks: 0 };
        let mut rx = Receiver::new(0, 1, 0, 40, ReceiveWindow::fixed(1 << 20), spec);
        assert_eq!(blocks_after(&mut rx, &[0, 2, 3]), (1, vec![]));
    }
}
