//! The receiving end of a bulk TCP flow.
//!
//! Delayed ACKs per RFC 1122 §4.2.3.2 and RFC 5681 §4.2: an ACK for at least every second
//! full-sized segment and within 200 ms of the first unacknowledged one; an immediate ACK for an
//! out-of-order segment (the DUPACK the sender counts), for a duplicate, and for a segment that
//! fills all or part of a gap. Out-of-order data waits in a reassembly buffer; the application
//! reads in-order data as soon as it arrives, so the advertised window stays at its configured
//! size (a simplification: real stacks shrink it by the bytes held out of order).

use crate::model::{DelayedAckSpec, Nanos};
use crate::network::{Packet, PacketKind};
use std::collections::BTreeMap;

#[derive(Debug)]
pub struct Receiver {
    flow: u32,
    /// This endpoint's node and the sender's node.
    node: u32,
    peer: u32,
    header_size: u32,
    window: u64,
    delayed_ack: DelayedAckSpec,
    /// Next in-order byte expected (the cumulative ACK number).
    rcv_nxt: u64,
    /// Out-of-order segments: start -> end.
    reassembly: BTreeMap<u64, u64>,
    /// Segments received in order and not yet acknowledged.
    unacked_segments: u32,
    delayed_ack_deadline: Option<Nanos>,
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
        window: u64,
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
            unacked_segments: 0,
            delayed_ack_deadline: None,
            wire_bytes_received: 0,
            acks_sent: 0,
        }
    }

    /// Handle an arriving data segment; ACKs go to `out`. Returns the in-order bytes it released.
    pub fn on_data(&mut self, segment: &Packet, now: Nanos, out: &mut Vec<Packet>) -> Option<Delivery> {
        self.wire_bytes_received += u64::from(segment.size);
        let start = segment.seq;
        let end = segment.seq + u64::from(segment.len);
        if end <= self.rcv_nxt {
            // A duplicate: tell the sender where we are at once.
            self.send_ack(now, out);
            return None;
        }
        if start > self.rcv_nxt {
            let stored = self.reassembly.entry(start).or_insert(end);
            *stored = (*stored).max(end);
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
        if filled_gap || !self.delayed_ack.enabled {
            self.send_ack(now, out);
        } else {
            self.unacked_segments += 1;
            if self.unacked_segments >= self.delayed_ack.every_segments {
                self.send_ack(now, out);
            } else if self.delayed_ack_deadline.is_none() {
                self.delayed_ack_deadline = Some(now + self.delayed_ack.timeout);
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
        self.acks_sent += 1;
        out.push(Packet {
            kind: PacketKind::Ack,
            flow: self.flow,
            src: self.node,
            dst: self.peer,
            seq: 0,
            len: 0,
            ack: self.rcv_nxt,
            window: self.window,
            size: self.header_size,
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
        let spec = DelayedAckSpec { enabled: delayed, timeout: 200_000_000, every_segments: 2 };
        Receiver::new(0, 1, 0, 40, 65_535, spec)
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
    fn duplicates_are_acknowledged_and_never_delivered_twice() {
        let mut rx = receiver(false);
        let mut out = Vec::new();
        assert!(rx.on_data(&segment(0), 0, &mut out).is_some());
        assert_eq!(rx.on_data(&segment(0), 0, &mut out), None);
        assert_eq!(acks(&out), vec![1, 1]);
        assert_eq!(rx.rcv_nxt(), 1000);
    }
}
