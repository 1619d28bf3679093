//! A unidirectional link: an output queue (drop-tail, optionally behind RED), a transmitter of
//! fixed rate, a propagation delay and an optional channel error model.

use super::loss::{ErrorModel, LossCause};
use super::packet::Packet;
use super::red::Red;
use crate::engine::rng::RngStream;
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
    /// Dropped: the queue was full, or RED dropped it early.
    Dropped,
}

#[derive(Debug, Default, Clone, Copy)]
pub struct LinkStats {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    /// Arrivals that did not fit in the queue.
    pub drops_overflow: u64,
    /// Arrivals RED dropped early (before the queue was full).
    pub drops_red: u64,
    /// Packets lost to random channel errors.
    pub drops_error: u64,
    /// Packets lost in a scheduled outage.
    pub drops_outage: u64,
    pub busy_time: Nanos,
}

/// A link's delay variation (`LinkSpec::delay_variation`): an extra delay uniform in
/// `[0, max]` per packet, held back behind the packet before it so that nothing overtakes.
#[derive(Debug, Clone)]
pub struct DelayVariation {
    max: Nanos,
    rng: RngStream,
    /// When the last packet sent arrives at the far end.
    last_arrival: Nanos,
}

impl DelayVariation {
    pub fn new(max: Nanos, rng: RngStream) -> Self {
        DelayVariation { max, rng, last_arrival: 0 }
    }

    /// When a packet that would arrive at `earliest` without variation arrives.
    fn arrival(&mut self, earliest: Nanos) -> Nanos {
        // Uniform in [0, max]: max + 1 values; the modulo bias is below 2^-40 for any max
        // under 2^24 s.
        let extra = self.rng.next_u64() % (self.max + 1);
        let arrival = (earliest + extra).max(self.last_arrival);
        self.last_arrival = arrival;
        arrival
    }
}

/// What a link queues and carries: anything with a size on the wire. The emulator's links carry
/// [`Packet`]s; the simulator's carry handles of packets kept in one place (`sim.rs`), so that
/// a hop moves a few bytes, not the whole packet.
pub trait Frame: Copy {
    /// Bytes on the wire.
    fn wire_size(&self) -> u32;
}

impl Frame for Packet {
    #[inline]
    fn wire_size(&self) -> u32 {
        self.size
    }
}

#[derive(Debug)]
pub struct Link<F = Packet> {
    pub from: u32,
    pub to: u32,
    pub rate_bps: u64,
    pub delay: Nanos,
    pub capacity: Capacity,
    pub errors: Option<ErrorModel>,
    /// Extra delay per packet (`None`: every packet takes `delay`).
    variation: Option<Box<DelayVariation>>,
    /// RED in front of the queue (`None`: plain drop-tail).
    red: Option<Box<Red>>,
    /// The packet on the wire (when `transmitting`) at the front, then the waiting ones: one
    /// buffer, so a packet is not moved when its transmission starts.
    queue: VecDeque<F>,
    /// Bytes of the waiting packets.
    queued_bytes: u64,
    transmitting: bool,
    /// The last packet size serialised and its transmission time (a link carries mostly one
    /// size each way, and the division is the costliest step of a hop).
    last_transmission: (u32, Nanos),
    pub stats: LinkStats,
}

impl Link<Packet> {
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
            variation: None,
            red: None,
            queue: VecDeque::new(),
            queued_bytes: 0,
            transmitting: false,
            last_transmission: (0, 0),
            stats: LinkStats::default(),
        }
    }
}

impl<F: Frame> Link<F> {
    /// This link, not yet used, carrying frames of another type.
    pub fn carrying<G: Frame>(self) -> Link<G> {
        assert!(self.queue.is_empty() && !self.transmitting, "carrying() on a link in use");
        Link {
            from: self.from,
            to: self.to,
            rate_bps: self.rate_bps,
            delay: self.delay,
            capacity: self.capacity,
            errors: self.errors,
            variation: self.variation,
            red: self.red,
            queue: VecDeque::new(),
            queued_bytes: 0,
            transmitting: false,
            last_transmission: self.last_transmission,
            stats: self.stats,
        }
    }

    /// Serialisation time of `size` bytes, rounded to the nearest nanosecond.
    pub fn transmission_time(&self, size: u32) -> Nanos {
        let bits = u128::from(size) * 8 * u128::from(NANOS_PER_SECOND);
        let rate = u128::from(self.rate_bps);
        ((bits + rate / 2) / rate) as Nanos
    }

    /// [`Link::transmission_time`], remembered for the last size (the initial `(0, 0)` is right:
    /// a 0-byte packet takes no time).
    #[inline]
    fn transmission_time_cached(&mut self, size: u32) -> Nanos {
        let (last_size, last_time) = self.last_transmission;
        if size == last_size {
            return last_time;
        }
        let time = self.transmission_time(size);
        self.last_transmission = (size, time);
        time
    }

    /// Whether the queue can take `packet` now (a full queue overflows).
    #[inline]
    pub fn has_room_for(&self, packet: &F) -> bool {
        match self.capacity {
            Capacity::Packets(limit) => self.queue_packets() < limit,
            Capacity::Bytes(limit) => self.queued_bytes + u64::from(packet.wire_size()) <= limit,
        }
    }

    /// Vary the delay packet by packet, without reordering (see [`DelayVariation`]).
    pub fn with_delay_variation(mut self, variation: DelayVariation) -> Self {
        self.variation = Some(Box::new(variation));
        self
    }

    /// When a packet whose transmission ended at `now` arrives at the far end: `now + delay`,
    /// plus the variation's draw if the link has one.
    #[inline]
    pub fn arrival_time(&mut self, now: Nanos) -> Nanos {
        match self.variation.as_deref_mut() {
            None => now + self.delay,
            Some(v) => v.arrival(now + self.delay),
        }
    }

    /// Put RED in front of the queue (the capacity stays as the hard limit).
    pub fn with_red(mut self, red: Red) -> Self {
        self.red = Some(Box::new(red));
        self
    }

    pub fn red(&self) -> Option<&Red> {
        self.red.as_deref()
    }

    /// Offer a packet to the link at time `now`. (Inlined: it is on every hop, and its call
    /// cost as much as the work of an uneventful enqueue.)
    #[inline]
    pub fn enqueue(&mut self, packet: F, now: Nanos) -> Enqueue {
        if let Some(red) = self.red.as_deref_mut() {
            let waiting = self.queue.len() as u64 - u64::from(self.transmitting);
            if red.on_arrival(now, waiting, !self.transmitting) {
                self.stats.drops_red += 1;
                return Enqueue::Dropped;
            }
        }
        if !self.transmitting {
            let done_at = self.start_transmission(packet.wire_size(), now);
            self.queue.push_back(packet);
            return Enqueue::Transmitting { done_at };
        }
        if !self.has_room_for(&packet) {
            self.stats.drops_overflow += 1;
            if let Some(red) = self.red.as_deref_mut() {
                red.on_overflow();
            }
            return Enqueue::Dropped;
        }
        self.queued_bytes += u64::from(packet.wire_size());
        self.queue.push_back(packet);
        Enqueue::Queued
    }

    /// Start serialising a packet of `size` bytes (the one now at the queue's front).
    #[inline]
    fn start_transmission(&mut self, size: u32, now: Nanos) -> Nanos {
        let duration = self.transmission_time_cached(size);
        self.stats.packets_sent += 1;
        self.stats.bytes_sent += u64::from(size);
        self.stats.busy_time += duration;
        self.transmitting = true;
        now + duration
    }

    /// The packet on the wire has been fully serialised at `now`: return it (it now propagates
    /// for `delay`) and, if another packet was waiting, when that one's transmission ends.
    pub fn finish_transmission(&mut self, now: Nanos) -> (F, Option<Nanos>) {
        let mut sent = None;
        let next = self.finish_transmission_into(now, |packet| sent = Some(*packet));
        (sent.expect("a finished transmission hands its packet"), next)
    }

    /// [`Link::finish_transmission`], handing the packet to `sent` where it lies: the caller
    /// copies it once, to where it goes next, instead of receiving it through the stack.
    #[inline]
    pub fn finish_transmission_into(&mut self, now: Nanos, sent: impl FnOnce(&F)) -> Option<Nanos> {
        assert!(self.transmitting, "finish_transmission on an idle link");
        sent(self.queue.front().expect("the packet on the wire is at the front"));
        self.queue.pop_front();
        match self.queue.front() {
            Some(packet) => {
                let size = packet.wire_size();
                self.queued_bytes -= u64::from(size);
                Some(self.start_transmission(size, now))
            }
            None => {
                self.transmitting = false;
                if let Some(red) = self.red.as_deref_mut() {
                    red.on_idle(now);
                }
                None
            }
        }
    }

    /// The packet being transmitted, if any.
    pub fn transmitting(&self) -> Option<&F> {
        if self.transmitting {
            self.queue.front()
        } else {
            None
        }
    }

    /// Packets waiting (not counting the one being transmitted).
    pub fn queue_packets(&self) -> u64 {
        self.queue.len() as u64 - u64::from(self.transmitting)
    }

    pub fn queue_bytes(&self) -> u64 {
        self.queued_bytes
    }

    /// Whether the channel corrupts a packet that finished crossing the link at `now`.
    pub fn corrupts(&mut self, packet: &Packet, now: Nanos) -> bool {
        let Some(model) = self.errors.as_mut() else { return false };
        match model.loss(packet, now) {
            None => false,
            Some(LossCause::Error) => {
                self.stats.drops_error += 1;
                true
            }
            Some(LossCause::Outage) => {
                self.stats.drops_outage += 1;
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::{PacketKind, SackBlocks};

    fn packet(size: u32) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: 0,
            src: 0,
            dst: 1,
            seq: 0,
            len: size,
            ack: 0,
            window: 0,
            size,
            sack: SackBlocks::NONE,
            path: 0,
            push: false,
        }
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

    fn red_link(min_th: f64, max_th: f64, w_q: f64, limit: u64) -> Link {
        use crate::engine::rng::RngStream;
        use crate::model::{QueueLimit, RedSpec};
        let spec = RedSpec { min_th, max_th, w_q, ..RedSpec::with_limit(QueueLimit::Packets(limit)) };
        // 1000-byte packets at 8 Mb/s: 1 ms each, also RED's typical transmission time.
        let red = Red::new(&spec, 1_000_000.0, RngStream::new(1, "link:l:red"));
        Link::new(0, 1, 8_000_000, 0, Capacity::Packets(limit), None).with_red(red)
    }

    #[test]
    fn red_averages_the_waiting_queue_and_decays_it_over_idle_time() {
        let mut link = red_link(100.0, 200.0, 0.5, 2);
        let avg = |l: &Link| l.red().unwrap().average();
        assert!(matches!(link.enqueue(packet(1000), 0), Enqueue::Transmitting { .. })); // idle: 0
        assert_eq!(link.enqueue(packet(1000), 0), Enqueue::Queued); // q = 0
        assert_eq!(avg(&link), 0.0);
        assert_eq!(link.enqueue(packet(1000), 0), Enqueue::Queued); // q = 1
        assert_eq!(avg(&link), 0.5);
        assert_eq!(link.enqueue(packet(1000), 0), Enqueue::Dropped); // q = 2: full
        assert_eq!(avg(&link), 1.25);
        assert_eq!((link.stats.drops_overflow, link.stats.drops_red), (1, 0));
        assert_eq!(link.red().unwrap().count(), 0, "an overflow is a drop: the count restarts");
        assert_eq!(link.finish_transmission(1_000_000).1, Some(2_000_000));
        assert_eq!(link.finish_transmission(2_000_000).1, Some(3_000_000));
        assert_eq!(link.finish_transmission(3_000_000).1, None);
        // Idle from 3 ms. 10 ms idle = 10 typical transmissions: avg * (1 - w_q)^10 (no extra
        // ordinary step with q = 0).
        assert!(matches!(link.enqueue(packet(1000), 13_000_000), Enqueue::Transmitting { .. }));
        assert!((avg(&link) - 1.25 * 0.5f64.powi(10)).abs() < 1e-15);
    }

    #[test]
    fn red_drops_are_counted_apart_from_overflow_even_on_an_idle_link() {
        let mut link = red_link(0.5, 1.0, 1.0, 100);
        assert!(matches!(link.enqueue(packet(1000), 0), Enqueue::Transmitting { .. }));
        assert_eq!(link.enqueue(packet(1000), 0), Enqueue::Queued); // avg = q = 0
        assert_eq!(link.enqueue(packet(1000), 0), Enqueue::Dropped); // avg = q = 1 = max_th
        assert_eq!((link.stats.drops_red, link.stats.drops_overflow), (1, 0));
        link.finish_transmission(1_000_000);
        link.finish_transmission(2_000_000);
        // Idle now. An arrival right away finds avg = 1 * (1 - 1)^0 = 1 >= max_th: dropped,
        // although the link is idle.
        assert_eq!(link.enqueue(packet(1000), 2_000_000), Enqueue::Dropped);
        assert_eq!(link.stats.drops_red, 2);
        // After any idle time the average is 0 again (w_q = 1).
        assert!(matches!(link.enqueue(packet(1000), 2_000_001), Enqueue::Transmitting { .. }));
    }
}
