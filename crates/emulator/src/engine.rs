//! The emulator's engine: the simulator's own links driven by timestamps the caller supplies.
//!
//! Each emulated link is a `westwood_simulator::network::Link` — the same drop-tail (or RED)
//! queue, transmitter and channel error models (Bernoulli, BER, Gilbert-Elliott, outages) the
//! simulator runs, built by `westwood_simulator::sim::build_links` from a scenario — so the
//! emulator shares their implementation rather than copying it. What this module adds:
//!
//! * routes: a packet follows a list of links (the scenario's path between two nodes), leaving
//!   at an output port the caller names;
//! * an event list (the simulator's `EventQueue`) in *virtual* time: a transmission that ends
//!   at `t` starts the next one at `t`, not at the moment the caller gets round to it, so late
//!   wake-ups never lower the rate; a packet is released at its exact scheduled instant and
//!   the caller is told that instant (its lateness is the caller's business);
//! * delay lines: a link may spread the packets it has sent round robin over several delay
//!   lines with extra delays (`set_lines`), which reorders them as multipath routing would.
//!
//! No clock, no I/O: the unit tests drive it with synthetic timestamps, the real-time loop
//! (`realtime.rs`) with CLOCK_MONOTONIC nanoseconds since the run's epoch.
//!
//! Semantics follow the simulator: a packet's `size` is what the link serialises (the IP packet:
//! payload plus TCP/IP headers); the queue limit counts packets waiting, not the one on the
//! wire; the channel is looked at when the packet has fully arrived at the far end (end of the
//! propagation delay, plus the line's extra delay), and that instant is what an outage window
//! or a Gilbert-Elliott state refers to.

use westwood_simulator::engine::EventQueue;
use westwood_simulator::model::Nanos;
use westwood_simulator::network::link::Link;
use westwood_simulator::network::{Enqueue, Packet, PacketKind, SackBlocks};

use crate::segments::Tag;

/// Index into the routes given to [`Emulator::new`].
pub type RouteId = u32;

/// A path through the emulated links and the port packets leave by at its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Indices of the links, in order (empty: delivered at once).
    pub links: Vec<u32>,
    /// Output port (the caller's numbering).
    pub port: u16,
}

/// Why a packet was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The queue was full.
    Overflow,
    /// RED dropped it early.
    Red,
    /// A random channel error (Bernoulli, BER, Gilbert-Elliott).
    Error,
    /// A scheduled outage.
    Outage,
}

/// What became of a packet.
#[derive(Debug, PartialEq)]
pub enum Outcome<P> {
    /// Fully arrived at the end of its route at `at` (virtual time): send it out of `port` now.
    Delivered { at: Nanos, route: RouteId, port: u16, size: u32, payload: P },
    /// Dropped on `link` at `at`.
    Dropped { at: Nanos, route: RouteId, link: u32, cause: DropCause, size: u32, payload: P },
}

struct InFlight<P> {
    payload: P,
    size: u32,
    route: RouteId,
    hop: u16,
    /// The flow and segment the packet is, for scripted drops (`segments.rs`).
    tag: Option<Tag>,
    /// The links' error models apply to it (not to a frame the simulator does not have:
    /// [`Emulator::offer_outside`]).
    errors: bool,
}

#[derive(Debug, Clone, Copy)]
enum Event {
    /// The link's transmitter finished the packet on the wire.
    TxDone(u32),
    /// A packet reached the far end of a link.
    Arrive { link: u32, slot: u32 },
}

/// Links, routes and the packets in them.
pub struct Emulator<P> {
    links: Vec<Link>,
    /// Extra delay of each delay line, per link (empty: one line, no extra delay).
    lines: Vec<Vec<Nanos>>,
    next_line: Vec<usize>,
    routes: Vec<Route>,
    queue: EventQueue<Event>,
    slots: Vec<Option<InFlight<P>>>,
    free: Vec<u32>,
    events: u64,
}

impl<P> Emulator<P> {
    /// `routes[i].links` index into `links`; panics on an out-of-range index.
    pub fn new(links: Vec<Link>, routes: Vec<Route>) -> Self {
        for route in &routes {
            assert!(route.links.iter().all(|&l| (l as usize) < links.len()), "route through an unknown link");
            assert!(route.links.len() < u16::MAX as usize, "route too long");
        }
        let n = links.len();
        Emulator {
            links,
            lines: vec![Vec::new(); n],
            next_line: vec![0; n],
            routes,
            queue: EventQueue::new(),
            slots: Vec::new(),
            free: Vec::new(),
            events: 0,
        }
    }

    /// Spread what link `link` sends round robin over delay lines with these extra delays
    /// (added to the link's propagation delay); packets on a shorter line overtake those on a
    /// longer one. An empty list (the default) is one line with no extra delay.
    pub fn set_lines(&mut self, link: usize, extra_delays: Vec<Nanos>) {
        self.lines[link] = extra_delays;
        self.next_line[link] = 0;
    }

    pub fn links(&self) -> &[Link] {
        &self.links
    }

    pub fn routes(&self) -> &[Route] {
        &self.routes
    }

    /// Into the links (with their statistics), e.g. at the end of a run.
    pub fn into_links(self) -> Vec<Link> {
        self.links
    }

    /// Events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    /// Packets inside the emulator (queued, on a wire or propagating).
    pub fn in_flight(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// The emulator's clock: the time of the last event processed.
    pub fn now(&self) -> Nanos {
        self.queue.now()
    }

    /// When the next internal event is due (the caller should call [`Emulator::advance`] then).
    pub fn next_event(&self) -> Option<Nanos> {
        self.queue.peek_time()
    }

    /// A packet of `size` bytes enters `route` at `now`. Call [`Emulator::advance`]`(now)`
    /// first so that what happened before `now` has happened (a time before the emulator's
    /// clock is taken as the clock). A packet that cannot enter (queue full, RED) is reported
    /// in `out` at once, as is one on an empty route (delivered).
    pub fn offer(&mut self, now: Nanos, route: RouteId, size: u32, payload: P, out: &mut Vec<Outcome<P>>) {
        self.offer_tagged(now, route, size, None, payload, out);
    }

    /// [`Emulator::offer`] for a packet the caller knows as segment or ACK `tag` of a flow, which
    /// a `drop-list` error model may name.
    pub fn offer_tagged(
        &mut self,
        now: Nanos,
        route: RouteId,
        size: u32,
        tag: Option<Tag>,
        payload: P,
        out: &mut Vec<Outcome<P>>,
    ) {
        self.enter_route(now, InFlight { payload, size, route, hop: 0, tag, errors: true }, out);
    }

    /// [`Emulator::offer`] for a packet outside the scenario (a handshake, a close, another
    /// connection: `segments::Seen::simulated` false): it takes its place in the queues and on
    /// the wire, but no error model draws for it or drops it, so the scenario's packets meet
    /// the same draws as in the simulator.
    pub fn offer_outside(
        &mut self,
        now: Nanos,
        route: RouteId,
        size: u32,
        payload: P,
        out: &mut Vec<Outcome<P>>,
    ) {
        self.enter_route(now, InFlight { payload, size, route, hop: 0, tag: None, errors: false }, out);
    }

    /// A packet enters its route's first link (or, on a route without links, is delivered).
    fn enter_route(&mut self, now: Nanos, flight: InFlight<P>, out: &mut Vec<Outcome<P>>) {
        let now = now.max(self.queue.now());
        let r = &self.routes[flight.route as usize];
        if r.links.is_empty() {
            let InFlight { payload, size, route, .. } = flight;
            out.push(Outcome::Delivered { at: now, route, port: r.port, size, payload });
            return;
        }
        let slot = match self.free.pop() {
            Some(s) => {
                self.slots[s as usize] = Some(flight);
                s
            }
            None => {
                self.slots.push(Some(flight));
                (self.slots.len() - 1) as u32
            }
        };
        let first = r.links[0];
        self.enter(now, first, slot, out);
    }

    /// Process every event due at or before `now`, in time order, reporting deliveries and
    /// drops in `out` (with their virtual times).
    pub fn advance(&mut self, now: Nanos, out: &mut Vec<Outcome<P>>) {
        while let Some(t) = self.queue.peek_time() {
            if t > now {
                break;
            }
            let (t, event) = self.queue.pop().expect("peeked");
            self.events += 1;
            match event {
                Event::TxDone(l) => {
                    let link = &mut self.links[l as usize];
                    let (sent, next) = link.finish_transmission(t);
                    if let Some(done_at) = next {
                        self.queue.schedule(done_at, Event::TxDone(l));
                    }
                    let lines = &self.lines[l as usize];
                    let extra = if lines.is_empty() {
                        0
                    } else {
                        let i = self.next_line[l as usize];
                        self.next_line[l as usize] = (i + 1) % lines.len();
                        lines[i]
                    };
                    let arrive = link.arrival_time(t) + extra;
                    self.queue.schedule(arrive, Event::Arrive { link: l, slot: sent.seq as u32 });
                }
                Event::Arrive { link: l, slot } => {
                    let f = self.slots[slot as usize].as_ref().expect("live slot");
                    let seen = channel_packet(f.size, f.tag);
                    let errors = f.errors;
                    let link = &mut self.links[l as usize];
                    let outages = link.stats.drops_outage;
                    if errors && link.corrupts(&seen, t) {
                        let cause = if link.stats.drops_outage > outages {
                            DropCause::Outage
                        } else {
                            DropCause::Error
                        };
                        let f = self.release(slot);
                        out.push(Outcome::Dropped {
                            at: t,
                            route: f.route,
                            link: l,
                            cause,
                            size: f.size,
                            payload: f.payload,
                        });
                        continue;
                    }
                    let f = self.slots[slot as usize].as_mut().expect("live slot");
                    f.hop += 1;
                    let route = &self.routes[f.route as usize];
                    match route.links.get(f.hop as usize) {
                        Some(&next) => self.enter(t, next, slot, out),
                        None => {
                            let port = route.port;
                            let f = self.release(slot);
                            out.push(Outcome::Delivered {
                                at: t,
                                route: f.route,
                                port,
                                size: f.size,
                                payload: f.payload,
                            });
                        }
                    }
                }
            }
        }
    }

    /// The packet in `slot` arrives at link `l`'s queue at `now`.
    fn enter(&mut self, now: Nanos, l: u32, slot: u32, out: &mut Vec<Outcome<P>>) {
        let size = self.slots[slot as usize].as_ref().expect("live slot").size;
        let link = &mut self.links[l as usize];
        let red_drops = link.stats.drops_red;
        match link.enqueue(packet(slot, size), now) {
            Enqueue::Transmitting { done_at } => self.queue.schedule(done_at, Event::TxDone(l)),
            Enqueue::Queued => {}
            Enqueue::Dropped => {
                let cause =
                    if link.stats.drops_red > red_drops { DropCause::Red } else { DropCause::Overflow };
                let f = self.release(slot);
                out.push(Outcome::Dropped {
                    at: now,
                    route: f.route,
                    link: l,
                    cause,
                    size: f.size,
                    payload: f.payload,
                });
            }
        }
    }

    fn release(&mut self, slot: u32) -> InFlight<P> {
        let f = self.slots[slot as usize].take().expect("live slot");
        self.free.push(slot);
        f
    }
}

/// What the simulator's link sees of a packet: its size, and our slot in `seq`.
fn packet(slot: u32, size: u32) -> Packet {
    Packet {
        kind: PacketKind::Data,
        flow: 0,
        src: 0,
        dst: 0,
        seq: u64::from(slot),
        len: 0,
        ack: 0,
        window: 0,
        size,
        sack: SackBlocks::NONE,
        path: 0,
        push: false,
    }
}

/// What a link's channel sees of a packet: its size, and for a tagged one its flow and numbers
/// (a `drop-list` looks at those). An untagged packet belongs to no flow.
fn channel_packet(size: u32, tag: Option<Tag>) -> Packet {
    let mut p = Packet { flow: u32::MAX, ..packet(0, size) };
    if let Some(tag) = tag {
        p.flow = tag.flow;
        p.kind = tag.kind;
        p.seq = tag.seq;
        p.ack = tag.ack;
    }
    p
}

/// Links described in the scenario format, for the standalone emulator and the self-test:
/// `links` is the body of one `[links.NAME]` table each (`rate`, `delay`, `queue`, `errors`,
/// `duplex`...), e.g. `rate = "10Mbps"\ndelay = "20ms"\nqueue = 100`. The links join nodes
/// `a` and `b`; a queue of `"bdp"` is sized for the links' own round trip. Returns the links
/// as the simulator builds them (duplex ones as two, `NAME` then `NAME.reverse`) and their
/// names.
pub fn links_from_toml(
    seed: u64,
    links: &[(&str, &str)],
) -> Result<(Vec<Link>, Vec<String>), westwood_simulator::scenario::ScenarioError> {
    let mut text = format!(
        "[scenario]\nname = \"emulator\"\nduration = \"1s\"\nseed = {seed}\n[topology]\nnodes = [\"a\", \"b\"]\n"
    );
    for (name, body) in links {
        // Quoted: a name with a dot (`path.reverse`, as the simulator names a reverse half) is
        // one key, not a table inside another.
        text.push_str(&format!("[links.\"{name}\"]\nfrom = \"a\"\nto = \"b\"\n{body}\n"));
    }
    let scenario = westwood_simulator::scenario::load_str(&text, "emulator link", &[])?;
    let names = scenario.links.iter().map(|l| l.name.clone()).collect();
    Ok((westwood_simulator::sim::build_links(&scenario)?, names))
}

#[cfg(test)]
mod tests {
    use super::*;
    use westwood_simulator::network::link::Capacity;

    const MS: Nanos = 1_000_000;
    const S: Nanos = 1_000_000_000;

    #[test]
    fn a_reverse_link_named_as_the_simulator_names_it_loads() {
        // `westwood emu path --reverse BODY` names it path.reverse, which TOML once read as a
        // table `reverse` inside `path` ("unknown key").
        let forward = "rate = \"10Mbps\"\ndelay = \"10ms\"\nduplex = false";
        let back = "rate = \"1Mbps\"\ndelay = \"10ms\"\nduplex = false";
        let (links, names) = links_from_toml(1, &[("path", forward), ("path.reverse", back)]).unwrap();
        assert_eq!(names, ["path", "path.reverse"]);
        assert_eq!(links.len(), 2);
    }

    fn one_link(body: &str) -> Emulator<u64> {
        let (links, _) = links_from_toml(1, &[("l", &format!("{body}\nduplex = false"))]).unwrap();
        Emulator::new(links, vec![Route { links: vec![0], port: 1 }])
    }

    /// Offer (time, size) packets in order, advancing first; return every outcome.
    fn drive(emu: &mut Emulator<u64>, arrivals: &[(Nanos, u32)]) -> Vec<Outcome<u64>> {
        let mut out = Vec::new();
        for (i, &(t, size)) in arrivals.iter().enumerate() {
            emu.advance(t, &mut out);
            emu.offer(t, 0, size, i as u64, &mut out);
        }
        emu.advance(u64::MAX, &mut out);
        out
    }

    fn delivered(out: &[Outcome<u64>]) -> Vec<(Nanos, u64)> {
        out.iter()
            .filter_map(|o| match o {
                Outcome::Delivered { at, payload, .. } => Some((*at, *payload)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_drop_list_drops_the_tagged_segments_and_acks_it_names_and_nothing_untagged() {
        let text = r#"
[scenario]
duration = "10s"
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "10Mbps"
delay = "1ms"
queue = 1000
errors = { model = "drop-list", flow = "ftp", segments = [2, 5], acks = [3], direction = "both" }
[flows.ftp]
from = "a"
to = "b"
segment_size = "400B"
"#;
        let scenario = westwood_simulator::scenario::load_str(text, "t.toml", &[]).unwrap();
        let links = westwood_simulator::sim::build_links(&scenario).unwrap();
        let routes = vec![Route { links: vec![0], port: 1 }, Route { links: vec![1], port: 0 }];
        let mut emu: Emulator<u64> = Emulator::new(links, routes);
        let mut out = Vec::new();
        let data = |n: u64| Some(Tag { flow: 0, kind: PacketKind::Data, seq: n * 400, ack: 0 });
        let ack = |n: u64| Some(Tag { flow: 0, kind: PacketKind::Ack, seq: 0, ack: n * 400 });
        // Segments 0-7, segment 2 again (its retransmission), untagged frames with the same
        // numbers' sizes, and ACKs 2, 4, 4 (a DUPACK), 6 on the way back.
        let offers = [
            (0, data(0)),
            (0, data(1)),
            (0, data(2)),
            (0, data(3)),
            (0, data(5)),
            (0, data(2)),
            (0, None),
            (1, ack(2)),
            (1, ack(4)),
            (1, ack(4)),
            (1, ack(6)),
            (0, Some(Tag { flow: 1, kind: PacketKind::Data, seq: 800, ack: 0 })),
        ];
        for (i, (route, tag)) in offers.iter().enumerate() {
            emu.offer_tagged(i as u64 * MS, *route, 440, *tag, i as u64, &mut out);
        }
        emu.advance(u64::MAX, &mut out);
        let mut dropped: Vec<u64> = out
            .iter()
            .filter_map(|o| match o {
                Outcome::Dropped { payload, cause, .. } => {
                    assert_eq!(*cause, DropCause::Error);
                    Some(*payload)
                }
                _ => None,
            })
            .collect();
        dropped.sort();
        // Segment 2's first transmission, segment 5, the first ACK covering segment 3 (ack 4).
        assert_eq!(dropped, [2, 4, 8]);
    }

    #[test]
    fn back_to_back_packets_leave_at_the_line_rate_after_the_delay() {
        // 1500 B at 10 Mb/s = 1.2 ms each; 20 ms propagation.
        let mut emu = one_link("rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 1000");
        let out = drive(&mut emu, &vec![(0, 1500); 100]);
        let got = delivered(&out);
        assert_eq!(got.len(), 100);
        for (k, &(at, id)) in got.iter().enumerate() {
            assert_eq!(id, k as u64, "FIFO");
            assert_eq!(at, (k as u64 + 1) * 1_200_000 + 20 * MS);
        }
        let stats = emu.links()[0].stats;
        assert_eq!((stats.packets_sent, stats.bytes_sent), (100, 150_000));
    }

    #[test]
    fn a_delay_variation_delays_each_packet_by_up_to_it_in_order() {
        // The simulator's own rule (`Link::arrival_time`): 20 ms plus up to 10 ms, never
        // overtaking.
        let mut emu =
            one_link("rate = \"10Mbps\"\ndelay = \"20ms\"\ndelay_variation = \"10ms\"\nqueue = 1000");
        let out = drive(&mut emu, &vec![(0, 1500); 200]);
        let got = delivered(&out);
        assert_eq!(got.len(), 200);
        let mut previous = 0;
        let mut extras = Vec::new();
        for (k, &(at, id)) in got.iter().enumerate() {
            assert_eq!(id, k as u64, "FIFO");
            let transmitted = (k as u64 + 1) * 1_200_000;
            assert!(at >= transmitted + 20 * MS && at >= previous);
            assert!(at <= transmitted + 30 * MS || at == previous, "{k}: {at}");
            extras.push(at - transmitted - 20 * MS);
            previous = at;
        }
        assert!(extras.iter().any(|&e| e > 5 * MS), "the draws spread: {extras:?}");
    }

    #[test]
    fn late_callers_do_not_lower_the_rate() {
        // The caller only looks every 7 ms: the departures are still exactly 1.2 ms apart.
        let mut emu = one_link("rate = \"10Mbps\"\ndelay = \"0ms\"\nqueue = 1000");
        let mut out = Vec::new();
        for i in 0..50u64 {
            emu.offer(0, 0, 1500, i, &mut out);
        }
        let mut t = 0;
        while emu.next_event().is_some() {
            t += 7 * MS;
            emu.advance(t, &mut out);
        }
        let at: Vec<Nanos> = delivered(&out).iter().map(|d| d.0).collect();
        assert_eq!(at, (1..=50).map(|k| k * 1_200_000).collect::<Vec<_>>());
    }

    #[test]
    fn an_idle_link_sends_a_packet_after_its_own_transmission_time_and_the_delay() {
        let mut emu = one_link("rate = \"2Mbps\"\ndelay = \"45ms\"\nqueue = 10");
        // Spaced far apart: no queueing, each one takes 440 B / 2 Mb/s = 1.76 ms + 45 ms.
        let arrivals: Vec<(Nanos, u32)> = (0..20).map(|k| (k * 100 * MS + 3, 440)).collect();
        for (k, (at, _)) in delivered(&drive(&mut emu, &arrivals)).into_iter().enumerate() {
            assert_eq!(at, k as u64 * 100 * MS + 3 + 1_760_000 + 45 * MS);
        }
    }

    #[test]
    fn drop_tail_queues_count_waiting_packets_or_bytes() {
        let mut emu = one_link("rate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = 5");
        let out = drive(&mut emu, &vec![(0, 1000); 20]);
        // One on the wire, five waiting; the other 14 overflow.
        assert_eq!(delivered(&out).len(), 6);
        let overflow =
            out.iter().filter(|o| matches!(o, Outcome::Dropped { cause: DropCause::Overflow, .. })).count();
        assert_eq!(overflow, 14);
        assert_eq!(emu.links()[0].stats.drops_overflow, 14);

        let mut emu = one_link("rate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = \"2500B\"");
        assert_eq!(emu.links()[0].capacity, Capacity::Bytes(2500));
        let out = drive(&mut emu, &[(0, 1000), (0, 1000), (0, 1000), (0, 600), (0, 400)]);
        // 1000 on the wire; 1000 + 1000 wait (2000 B); 600 does not fit; 400 does (2400 B).
        let ids: Vec<u64> = delivered(&out).iter().map(|d| d.1).collect();
        assert_eq!(ids, vec![0, 1, 2, 4]);
        // The queue drains and admits again.
        let mut out = Vec::new();
        emu.advance(u64::MAX, &mut out);
        assert_eq!(emu.in_flight(), 0);
    }

    #[test]
    fn bdp_queue_of_the_wireless_scenario_is_the_simulators() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/wireless.toml");
        let scenario = westwood_simulator::scenario::load_file(std::path::Path::new(path), &[]).unwrap();
        let links = westwood_simulator::sim::build_links(&scenario).unwrap();
        let names: Vec<&str> = scenario.links.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["wired", "wired.reverse", "wireless", "wireless.reverse"]);
        // 2 Mb/s x 90.02 ms / 440 B = 51.1 -> 52 packets; 10 Mb/s: 255.8 -> 256.
        assert_eq!(links[2].capacity, Capacity::Packets(52));
        assert_eq!(links[0].capacity, Capacity::Packets(256));
        assert!(links[2].errors.is_none(), "loss 0%: no error model");
    }

    /// Loss fraction of `n` packets offered every `gap` ns to a fresh single link.
    fn loss_fraction(body: &str, n: u64, gap: Nanos, size: u32) -> (f64, Vec<Outcome<u64>>) {
        let mut emu = one_link(&format!("rate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = 100000\n{body}"));
        let arrivals: Vec<(Nanos, u32)> = (0..n).map(|k| (k * gap, size)).collect();
        let out = drive(&mut emu, &arrivals);
        let lost = out.iter().filter(|o| matches!(o, Outcome::Dropped { .. })).count();
        (lost as f64 / n as f64, out)
    }

    #[test]
    fn bernoulli_loss_rate_and_independence() {
        let n = 200_000;
        let (p, out) = loss_fraction("errors = { model = \"bernoulli\", rate = \"2%\" }", n, 50_000, 1500);
        let sd = (0.02f64 * 0.98 / n as f64).sqrt();
        assert!((p - 0.02).abs() < 5.0 * sd, "loss {p}");
        // Independent: P(loss | previous lost) is also 2 %.
        let lost: Vec<bool> = {
            let mut v = vec![false; n as usize];
            for o in &out {
                if let Outcome::Dropped { payload, cause, .. } = o {
                    assert_eq!(*cause, DropCause::Error);
                    v[*payload as usize] = true;
                }
            }
            v
        };
        let after_loss: Vec<bool> = lost.windows(2).filter(|w| w[0]).map(|w| w[1]).collect();
        let cond = after_loss.iter().filter(|&&x| x).count() as f64 / after_loss.len() as f64;
        assert!((cond - 0.02).abs() < 0.012, "P(loss | loss) = {cond}");
    }

    #[test]
    fn a_packet_outside_the_scenario_is_never_lost_and_draws_nothing() {
        // Bernoulli 30 %: the scenario's packets lose the same ones whether or not packets
        // outside it (a handshake, iperf3's control connection) cross the link between them.
        let body = "rate = \"1Gbps\"\ndelay = \"1ms\"\nqueue = 100000\nerrors = { model = \"bernoulli\", rate = \"30%\" }";
        let lost = |outside_every: Option<u64>| {
            let mut emu = one_link(body);
            let mut out = Vec::new();
            let mut t = 0;
            for k in 0..2_000u64 {
                if outside_every.is_some_and(|every| k % every == 0) {
                    emu.offer_outside(t, 0, 440, u64::MAX - k, &mut out);
                    t += 50_000;
                }
                emu.offer(t, 0, 440, k, &mut out);
                t += 50_000;
            }
            emu.advance(u64::MAX, &mut out);
            let mut dropped: Vec<u64> = out
                .iter()
                .filter_map(|o| match o {
                    Outcome::Dropped { payload, .. } => Some(*payload),
                    _ => None,
                })
                .collect();
            dropped.sort();
            dropped
        };
        let alone = lost(None);
        assert!((450..750).contains(&alone.len()), "{}", alone.len());
        assert_eq!(lost(Some(3)), alone, "the same scenario packets lost, none of the others");
    }

    #[test]
    fn bit_error_rate_loses_large_packets_more_often() {
        let n = 100_000;
        let ber = "errors = { model = \"ber\", rate = 1e-5 }";
        let (big, _) = loss_fraction(ber, n, 50_000, 1500);
        let (small, _) = loss_fraction(ber, n, 50_000, 40);
        let expect = |size: f64| 1.0 - (1.0 - 1e-5f64).powf(8.0 * size);
        for (got, size) in [(big, 1500.0), (small, 40.0)] {
            let p = expect(size);
            let sd = (p * (1.0 - p) / n as f64).sqrt();
            assert!((got - p).abs() < 5.0 * sd + 1e-5, "size {size}: {got} vs {p}");
        }
    }

    #[test]
    fn gilbert_elliott_loses_in_bursts_at_the_stationary_rate() {
        // Good 200 ms / Bad 50 ms, 0 % / 50 %: stationary loss 0.2 * 0.5 = 10 %. A packet every
        // 1 ms for 2000 s of channel time (8000 Bad sojourns).
        let ge = "errors = { model = \"gilbert-elliott\", mean_good = \"200ms\", mean_bad = \"50ms\", \
                  loss_good = 0, loss_bad = \"50%\" }";
        let n = 2_000_000;
        let (p, out) = loss_fraction(ge, n, MS, 1000);
        // sd of the time fraction in Bad: sqrt(2 pi_g pi_b tau / T), tau = 40 ms -> 0.0018;
        // times (loss_bad - loss_good) = 0.0009. Allow 5 sd.
        assert!((p - 0.1).abs() < 0.0045, "loss {p}");
        let mut lost = vec![false; n as usize];
        for o in &out {
            if let Outcome::Dropped { payload, .. } = o {
                lost[*payload as usize] = true;
            }
        }
        // Bursty: after a loss the chain is in Bad (P ~ 0.5), far above the mean.
        let after: Vec<bool> = lost.windows(2).filter(|w| w[0]).map(|w| w[1]).collect();
        let cond = after.iter().filter(|&&x| x).count() as f64 / after.len() as f64;
        assert!(cond > 0.4, "P(loss | loss) = {cond}");
    }

    #[test]
    fn outages_lose_exactly_what_arrives_inside_the_windows() {
        // 100 ms every 1 s, from 250 ms; packets every 1 ms, 1 ms propagation + 12 us on the wire.
        let o = "errors = { model = \"outage\", period = \"1s\", duration = \"100ms\", offset = \"250ms\" }";
        let (p, out) = loss_fraction(o, 10_000, MS, 1500);
        assert!((p - 0.1).abs() < 0.001, "loss {p}");
        for o in &out {
            match o {
                Outcome::Dropped { at, cause, .. } => {
                    assert_eq!(*cause, DropCause::Outage);
                    assert!((at - 250 * MS) % S < 100 * MS, "dropped outside a window at {at}");
                }
                Outcome::Delivered { at, .. } => {
                    assert!(*at < 250 * MS || (at - 250 * MS) % S >= 100 * MS)
                }
            }
        }
    }

    #[test]
    fn delay_lines_reorder_round_robin() {
        let mut emu = one_link("rate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = 100");
        emu.set_lines(0, vec![0, 4 * MS]);
        // A packet every 1 ms: even ones take 10 ms, odd ones 14 ms, so odd packet k arrives
        // after the even packets k+1 and k+3.
        let arrivals: Vec<(Nanos, u32)> = (0..20).map(|k| (k * MS, 1000)).collect();
        let got = delivered(&drive(&mut emu, &arrivals));
        let tx = 80_000; // 1000 B at 100 Mb/s
        for &(at, id) in &got {
            let extra = if id % 2 == 0 { 0 } else { 4 * MS };
            assert_eq!(at, id * MS + tx + 10 * MS + extra);
        }
        let order: Vec<u64> = got.iter().map(|d| d.1).collect();
        assert_eq!(&order[..8], &[0, 2, 4, 1, 6, 3, 8, 5]);
    }

    #[test]
    fn a_route_through_two_links_queues_at_the_slower_one() {
        let (links, names) = links_from_toml(
            1,
            &[
                ("fast", "rate = \"10Mbps\"\ndelay = \"5ms\"\nqueue = 100\nduplex = false"),
                ("slow", "rate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = 100\nduplex = false"),
            ],
        )
        .unwrap();
        assert_eq!(names, ["fast", "slow"]);
        let mut emu = Emulator::new(links, vec![Route { links: vec![0, 1], port: 3 }]);
        let out = drive(&mut emu, &[(0, 1000); 10]);
        let got = delivered(&out);
        // First: 0.8 ms + 5 ms on the fast link, then 8 ms + 1 ms on the slow one; the slow
        // link then sends one every 8 ms.
        for (k, &(at, _)) in got.iter().enumerate() {
            assert_eq!(at, 800_000 + 5 * MS + (k as u64 + 1) * 8 * MS + MS);
        }
        assert!(matches!(out[0], Outcome::Delivered { port: 3, .. }));
    }

    #[test]
    fn red_drops_early_and_is_reported_as_red() {
        let mut emu = one_link(
            "rate = \"1Mbps\"\ndelay = \"1ms\"\nqueue = { type = \"red\", limit = 100, min_th = 2, max_th = 6, w_q = 0.5 }",
        );
        let out = drive(&mut emu, &vec![(0, 1000); 50]);
        let red = out.iter().filter(|o| matches!(o, Outcome::Dropped { cause: DropCause::Red, .. })).count();
        assert!(red > 30, "{red} RED drops");
        assert_eq!(emu.links()[0].stats.drops_red, red as u64);
    }
}
