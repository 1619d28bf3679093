//! A unidirectional link: a drop-tail output queue, a transmitter of fixed rate, a propagation
//! delay and an optional channel error model.

use super::channel::ErrorModel;
use super::packet::Packet;
use crate::model::{Nanos, NANOS_PER_SECOND};
use std::collections::VecDeque;

/// Queue capacity after `bdp` has been resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capacity {
    Packets(u64),
    Bytes(u64),
}

impl std::fmt::Display for Capacity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Capacity::Packets(n) => write!(f, "{n} packets"),
            Capacity::Bytes(n) => write!(f, "{n} bytes"),
        }
    }
}

/// What happened to a packet offered to a link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enqueue {
    /// The link was idle: transmission started and ends at this time.
    Transmitting { done_at: Nanos },
    /// Waiting in the queue.
    Queued,
    /// The queue was full: dropped.
    Dropped,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub drops_overflow: u64,
    pub drops_error: u64,
    pub busy_time: Nanos,
}

#[derive(Debug)]
pub struct Link {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Nanos,
    pub capacity: Capacity,
    pub errors: Option<ErrorModel>,
    queue: VecDeque<Packet>,
    queued_bytes: u64,
    transmitting: Option<Packet>,
    pub stats: LinkStats,
}

impl Link {
    pub fn new(
        from: u32,
        to: u32,
        rate_bps: u64,
        delay: Nanos,
        capacity: Capacity,
        errors: Option<ErrorModel>,
    ) -> Self {
        assert!(rate_bps > 0, "link rate must be positive");
        Link {
            from,
            to,
            rate_bps,
            delay,
            capacity,
            errors,
            queue: VecDeque::new(),
            queued_bytes: 0,
            transmitting: None,
            stats: LinkStats::default(),
        }
    }

    /// Serialisation time of `size` bytes, rounded to the nearest nanosecond.
    pub fn transmission_time(&self, size: u32) -> Nanos {
        let bits = u128::from(size) * 8 * u128::from(NANOS_PER_SECOND);
        let rate = u128::from(self.rate_bps);
        ((bits + rate / 2) / rate) as Nanos
    }

    fn has_room_for(&self, packet: &Packet) -> bool {
        match self.capacity {
            Capacity::Packets(limit) => (self.queue.len() as u64) < limit,
            Capacity::Bytes(limit) => self.queued_bytes + u64::from(packet.size) <= limit,
        }
    }

    /// Offer a packet to the link at time `now`.
    pub fn enqueue(&mut self, packet: Packet, now: Nanos) -> Enqueue {
        if self.transmitting.is_none() {
            return Enqueue::Transmitting { done_at: self.start_transmission(packet, now) };
        }
        if !self.has_room_for(&packet) {
            self.stats.drops_overflow += 1;
            return Enqueue::Dropped;
        }
        self.queued_bytes += u64::from(packet.size);
        self.queue.push_back(packet);
        Enqueue::Queued
    }

    fn start_transmission(&mut self, packet: Packet, now: Nanos) -> Nanos {
        let duration = self.transmission_time(packet.size);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += u64::from(packet.size);
        self.stats.busy_time += duration;
        self.transmitting = Some(packet);
        now + duration
    }

    /// The packet on the wire has been fully serialised at `now`: return it (it now propagates
    /// for `delay`) and, if another packet was waiting, when that one's transmission ends.
    pub fn finish_transmission(&mut self, now: Nanos) -> (Packet, Option<Nanos>) {
        let sent = self.transmitting.take().expect("finish_transmission on an idle link");
        let next = self.queue.pop_front().map(|packet| {
            self.queued_bytes -= u64::from(packet.size);
            self.start_transmission(packet, now)
        });
        (sent, next)
    }

    /// Packets waiting (not counting the one being transmitted).
    pub fn queue_packets(&self) -> u64 {
        self.queue.len() as u64
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Whether the channel corrupts a packet that finished crossing the link.
    pub fn corrupts(&mut self, packet: &Packet) -> bool {
        let lost = self.errors.as_mut().is_some_and(|model| model.corrupts(packet.size));
        if lost {
            self.stats.drops_error += 1;
        }
        lost
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::PacketKind;

    fn packet(size: u32) -> Packet {
        Packet { kind: PacketKind::Data, flow: 0, src: 0, dst: 1, seq: 0, len: size, ack: 0, window: 0, size }
    }

    #[test]
    fn transmission_time_is_size_over_rate() {
        let link = Link::new(0, 1, 10_000_000, 0, Capacity::Packets(10), None);
        assert_eq!(link.transmission_time(1000), 800_000); // 8000 bits at 10 Mb/s = 0.8 ms
        let slow = Link::new(0, 1, 3, 0, Capacity::Packets(10), None);
        assert_eq!(slow.transmission_time(1), 2_666_666_667); // rounded to nearest ns
    }

    #[test]
    fn drop_tail_counts_waiting_packets_only() {
        let mut link = Link::new(0, 1, 1_000_000, 0, Capacity::Packets(2), None);
        assert!(matches!(link.enqueue(packet(100), 0), Enqueue::Transmitting { .. }));
        assert_eq!(link.enqueue(packet(100), 0), Enqueue::Queued);
        assert_eq!(link.enqueue(packet(100), 0), Enqueue::Queued);
        assert_eq!(link.enqueue(packet(100), 0), Enqueue::Dropped);
        assert_eq!(link.stats.drops_overflow, 1);
        assert_eq!(link.queue_packets(), 2);
    }

    #[test]
    fn byte_limit_admits_while_the_packet_fits() {
        let mut link = Link::new(0, 1, 1_000_000, 0, Capacity::Bytes(250), None);
        link.enqueue(packet(100), 0);
        assert_eq!(link.enqueue(packet(100), 0), Enqueue::Queued);
        assert_eq!(link.enqueue(packet(150), 0), Enqueue::Queued);
        assert_eq!(link.enqueue(packet(1), 0), Enqueue::Dropped);
        assert_eq!(link.queue_bytes(), 250);
    }

    #[test]
    fn finishing_starts_the_next_packet_back_to_back() {
        let mut link = Link::new(0, 1, 8_000_000, 0, Capacity::Packets(10), None);
        let Enqueue::Transmitting { done_at } = link.enqueue(packet(1000), 0) else { panic!() };
        assert_eq!(done_at, 1_000_000);
        link.enqueue(packet(500), 10);
        let (_, next) = link.finish_transmission(done_at);
        assert_eq!(next, Some(1_500_000));
        let (sent, next) = link.finish_transmission(1_500_000);
        assert_eq!((sent.size, next), (500, None));
        assert_eq!(link.stats.busy_time, 1_500_000);
    }
}
