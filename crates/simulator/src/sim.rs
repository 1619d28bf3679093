//! Builds the network a scenario describes and runs it.

use crate::ack_trace::{AckSink, AckTraceFile, FlowTrace, RunError};
use crate::budget::{self, Recording};
use crate::engine::rng::RngStream;
use crate::engine::{LaneQueue, Popped};
use crate::invariants::InvariantMonitor;
use crate::model::{Nanos, QueueLimit, QueueSpec, Scenario, SourceKind, NANOS_PER_SECOND};
use crate::network::link::{Capacity, DelayVariation, Frame};
use crate::network::red::Red;
use crate::network::{Enqueue, ErrorModel, Link, Multipath, Packet, PacketKind, Routes, SackBlocks};
use crate::pcap::PacketTap;
use crate::results::{FlowSummary, LinkSummary, RunOptions, RunResult, SourceSummary, Summary, Warning};
use crate::scenario::ScenarioError;
use crate::series::{FlowSample, LinkSample, SeriesMemory, SeriesSink};
use crate::stall::StallClock;
use crate::tcp::receive_window::ReceiveWindow;
use crate::tcp::Recovery;
use crate::tcp::{Receiver, Sender};
use crate::traffic::Arrivals;
use crate::warnings::{self, FirstHop, FirstHopDrops, Origin};
use westwood_algorithms::{CongestionControl, WindowConfig};

#[derive(Debug, Clone, Copy)]
enum Event {
    /// The packet on `link` finished serialisation. (A packet reaching the far end of a link
    /// is an item of the link's lane in the queue, not an `Event`: see `engine::LaneQueue`.)
    TransmissionDone {
        link: u32,
    },
    SenderTimer {
        flow: u32,
    },
    ReceiverTimer {
        flow: u32,
    },
    FlowStart {
        flow: u32,
    },
    FlowStop {
        flow: u32,
    },
    /// The next flow of arrivals table `table` arrives.
    FlowArrival {
        table: u32,
    },
    /// A CBR source sends its next packet (if ON) or wakes at its next ON interval.
    SourceSend {
        source: u32,
    },
    /// The first data segment `flow`'s send overhead holds leaves its node (one event per held
    /// segment, at its departure; see [`SendOverhead`]).
    Release {
        flow: u32,
    },
    Sample,
}

/// Packets in the network, each written once when it enters and read where it leaves (the
/// receiving endpoint, or where it is dropped): links and the event queue carry [`Handle`]s,
/// so a hop moves 16 bytes instead of the whole packet. A slab with a free list: no allocation
/// per packet once it has grown to the most packets in the network at once.
#[derive(Default)]
struct PacketSlab {
    slots: Vec<Packet>,
    free: Vec<u32>,
}

impl PacketSlab {
    /// Store `packet`; its handle carries what links and routing read.
    #[inline]
    fn insert(&mut self, packet: &Packet) -> Handle {
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = *packet;
                slot
            }
            None => {
                self.slots.push(*packet);
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 packets in the network")
            }
        };
        Handle { slot, size: packet.size, dst: packet.dst, path: packet.path }
    }

    #[inline]
    fn get(&self, handle: Handle) -> &Packet {
        &self.slots[handle.slot as usize]
    }

    /// The packet leaves the network: its slot is free again.
    #[inline]
    fn remove(&mut self, handle: Handle) -> Packet {
        self.free.push(handle.slot);
        self.slots[handle.slot as usize]
    }
}

/// A packet in [`PacketSlab`], with the fields a hop reads: its size (queues, transmission),
/// destination and path (routing).
#[derive(Debug, Clone, Copy)]
struct Handle {
    slot: u32,
    size: u32,
    dst: u32,
    path: u8,
}

impl Frame for Handle {
    #[inline]
    fn wire_size(&self) -> u32 {
        self.size
    }
}

/// A timer owned by an endpoint: the engine holds at most one live event for it, at the time
/// recorded here; events at other times are stale and ignored.
#[derive(Debug, Default, Clone, Copy)]
struct TimerSlot {
    scheduled_at: Option<Nanos>,
}

/// A constant-bit-rate source and its counters.
struct CbrSource {
    src: u32,
    dst: u32,
    packet_size: u32,
    /// Time between packets while ON.
    interval: Nanos,
    on: Vec<(Nanos, Nanos)>,
    sent: u64,
    received: u64,
    /// Its packets that overflowed the queue of a link leaving its node.
    first_hop: FirstHopDrops,
}

impl CbrSource {
    /// When the source should next act after `now`: the next packet time if still ON, else the
    /// start of the next ON interval.
    fn next_send(&self, now: Nanos) -> Option<Nanos> {
        let next = now + self.interval;
        let i = self.on.partition_point(|&(_, stop)| stop <= next);
        self.on.get(i).map(|&(start, _)| next.max(start))
    }

    fn is_on(&self, now: Nanos) -> bool {
        let i = self.on.partition_point(|&(_, stop)| stop <= now);
        self.on.get(i).is_some_and(|&(start, _)| start <= now)
    }

    /// The start of the first ON interval after `now`.
    fn next_on(&self, now: Nanos) -> Option<Nanos> {
        let i = self.on.partition_point(|&(start, _)| start <= now);
        self.on.get(i).map(|&(start, _)| start)
    }
}

/// A flow's random send overhead (`[tcp] overhead` > 0): the data segments its sender emitted
/// and that have not left its node yet, and the draws that decide when they do.
///
/// Floyd and Jacobson ("On Traffic Phase Effects in Packet-Switched Gateways", Internetworking:
/// Research and Experience 3(3), 1992) showed that in a deterministic simulation of TCP flows
/// through a drop-tail gateway, the flows' phases (when each one's packets reach the full queue
/// relative to the others') decide whose packets are dropped, so that one flow can be shut out
/// systematically; real hosts' timing noise removes the effect, and they added a random
/// processing time at the sources, of the order of a packet's transmission time at the
/// bottleneck. ns-2 carries it as `Agent/TCP`'s `overhead_` (0 by default).
///
/// Here every data segment the sender emits, new data and retransmissions alike (ACKs are not
/// delayed, as ns-2's sinks do not delay theirs), leaves at `max(now + U[0, overhead], the
/// flow's previous departure)`: each is delayed on its own, by at most `overhead` plus the
/// wait behind the segments before it, and they keep their order. ns-2 instead serialises
/// sends through one delayed-send timer: `send_much()` with the timer idle arms it with
/// `Random::uniform(overhead_)` and sends nothing, ACKs arriving while it is pending send
/// nothing either, and when it expires everything the window then allows goes out at once
/// (`send_much(1, ...)`, up to `maxburst_`); its fast retransmissions and limited-transmit
/// segments (`output()` called directly) are not delayed at all. So ns-2's delay is shared by
/// a burst and bunches the sends of one window into bursts at random instants, where ours
/// spreads each segment's departure independently; both break the phase lock F&J describe, and
/// neither limits the rate a window allows beyond the delay itself.
///
/// Each departure is known when the segment is emitted, so the sender is told at once
/// ([`Sender::departs`]) and its RTT samples run from when the segment really enters the
/// first link; the per-ACK trace follows from them, and captures see the segment when it is
/// forwarded. The retransmission timer is still armed when a segment is emitted (at most
/// `overhead` early, against RTOs of hundreds of milliseconds).
struct SendOverhead {
    /// The largest delay, ns (> 0).
    max: Nanos,
    /// The flow's own stream, `flow:NAME:overhead`.
    rng: RngStream,
    /// Segments emitted and not yet gone, in order, with when each was emitted; the
    /// `Event::Release` of each is pending.
    held: std::collections::VecDeque<(Nanos, Packet)>,
    /// When the last segment held leaves (or left).
    last: Nanos,
}

impl SendOverhead {
    fn new(max: Nanos, seed: u64, flow_name: &str) -> Box<Self> {
        Box::new(SendOverhead {
            max,
            rng: RngStream::new(seed, &format!("flow:{flow_name}:overhead")),
            held: std::collections::VecDeque::new(),
            last: 0,
        })
    }

    /// Hold `packet`, emitted at `now`; returns when it leaves.
    fn hold(&mut self, packet: Packet, now: Nanos) -> Nanos {
        let at = (now + self.rng.uniform_inclusive(0, self.max)).max(self.last);
        self.last = at;
        self.held.push_back((now, packet));
        at
    }
}

struct Flow {
    sender: Sender,
    receiver: Receiver,
    sender_timer: TimerSlot,
    receiver_timer: TimerSlot,
    /// When the flow starts: its `start`, drawn for a random one (generated flows: their arrival).
    start: Nanos,
    /// The end of the flow's time, `stop` or the end of the run (`Nanos::MAX` for generated
    /// flows, which close at their stop): deliveries after it do not count, so that goodput,
    /// bytes over the flow's active time, is what it delivered while active.
    end: Nanos,
    /// In-order payload bytes the receiver released up to `end`.
    bytes_delivered: u64,
    /// Bytes of every data packet (headers, duplicates) that reached the receiver up to `end`.
    wire_bytes: u64,
    /// Names for the flow's per-ACK trace rows, when the run is traced.
    trace: Option<FlowTrace>,
    /// How long its cumulative ACK point stood still at most (`crate::stall`).
    stall: StallClock,
    /// Its data segments that overflowed the queue of a link leaving its sender's node.
    first_hop: FirstHopDrops,
    /// Its random send overhead; `None` without one (`overhead = 0`).
    overhead: Option<Box<SendOverhead>>,
}

impl Flow {
    fn new(id: u32, src: u32, dst: u32, tcp: &crate::model::TcpSpec, start: Nanos, end: Nanos) -> Self {
        Flow {
            sender: Sender::new(id, src, dst, tcp, congestion_control(tcp)),
            receiver: Receiver::new(
                id,
                dst,
                src,
                tcp.header_size as u32,
                ReceiveWindow::new(tcp.receive_window, tcp.receiver_window, tcp.segment_size),
                tcp.delayed_ack,
            )
            .with_sack(tcp.recovery == Recovery::Sack)
            .with_push_acks(tcp.push_flag == crate::model::PushFlag::Linux)
            .with_timer_wheel(crate::tcp::timer_wheel::TimerWheel::new(tcp.timer_hz)),
            sender_timer: TimerSlot::default(),
            receiver_timer: TimerSlot::default(),
            start,
            end,
            bytes_delivered: 0,
            wire_bytes: 0,
            trace: None,
            stall: StallClock::new(start),
            first_hop: FirstHopDrops::default(),
            overhead: None,
        }
    }

    /// Give the flow its random send overhead, if its TCP settings ask for one, drawn from the
    /// stream named after `name` under the run's `seed`.
    fn with_overhead(mut self, tcp: &crate::model::TcpSpec, seed: u64, name: &str) -> Self {
        if tcp.overhead > 0 {
            self.overhead = Some(SendOverhead::new(tcp.overhead, seed, name));
        }
        self
    }

    /// Have the sender record per-ACK trace rows, named `name` and `cc`.
    fn trace_as(&mut self, name: &str, cc: &str) {
        self.sender.observe();
        self.trace = Some(FlowTrace::new(name, cc, self.sender.mss()));
    }
}

/// Flow `id`: a scenario flow (ids below `flows.len()`) or one created during the run, `None`
/// once that one has closed.
#[inline]
fn flow_mut<'f>(
    flows: &'f mut [Flow],
    generated: &'f mut [Option<Box<Flow>>],
    id: u32,
) -> Option<&'f mut Flow> {
    let n = flows.len();
    if (id as usize) < n {
        Some(&mut flows[id as usize])
    } else {
        generated.get_mut(id as usize - n)?.as_deref_mut()
    }
}

/// One of a flow's data paths with the ACK path that goes with it (multipath flows have
/// several), and the flow's data-packet size: what `bdp` queues are sized from.
struct RoutePair {
    packet_size: u64,
    data: Vec<u32>,
    acks: Vec<u32>,
}

/// The congestion control a flow's TCP settings name, with its parameters (also what
/// `westwood replay` feeds a trace through): built by its registry entry.
pub fn congestion_control(spec: &crate::model::TcpSpec) -> Box<dyn CongestionControl> {
    let config = WindowConfig {
        mss: spec.segment_size,
        initial_cwnd: spec.initial_cwnd,
        initial_ssthresh: spec.initial_ssthresh,
        window_growth: spec.window_growth,
    };
    (spec.cc.entry.build)(config, &spec.cc.params, spec.acked_count)
}

/// What a caller attaches to a run beyond its [`RunOptions`]: where its outputs stream, how
/// to tell it to stop, and how much memory it may take.
pub struct RunControl<'s> {
    /// Where the per-ACK trace goes (`None`: not traced).
    pub ack_sink: Option<&'s mut dyn AckSink>,
    /// Where the time series go as the run records them; `None` keeps them in memory when
    /// `RunOptions::record_series` asks for them.
    pub series_sink: Option<&'s mut dyn SeriesSink>,
    /// Asked every [`INTERRUPT_CHECK_EVENTS`] events (a few milliseconds); `true` ends the run
    /// with [`RunError::Interrupted`] and no result.
    pub interrupted: Option<&'s dyn Fn() -> bool>,
    /// Refuse, before building anything, a run estimated to need more (see [`budget`]).
    pub max_memory_bytes: u64,
    /// Where packets are reported as they cross links (packet captures, [`crate::pcap`]).
    pub packet_tap: Option<&'s mut dyn PacketTap>,
    /// Refuse a scenario that defeats itself ([`crate::warnings`]) with [`RunError::Refused`]
    /// instead of reporting its warnings in the summary: before the run for what the network's
    /// construction finds, after it (with no result) for what the run finds.
    pub strict: bool,
}

impl Default for RunControl<'_> {
    fn default() -> Self {
        RunControl {
            ack_sink: None,
            series_sink: None,
            interrupted: None,
            max_memory_bytes: budget::DEFAULT_MAX_MEMORY_BYTES,
            packet_tap: None,
            strict: false,
        }
    }
}

/// Events between two calls of `RunControl::interrupted`: at tens of millions of events per
/// second, a stop request is seen within milliseconds, at no measurable cost.
pub const INTERRUPT_CHECK_EVENTS: u64 = 1 << 15;

/// Run a scenario from start to `duration`.
pub fn run(scenario: &Scenario, options: RunOptions) -> Result<RunResult, ScenarioError> {
    run_with(scenario, options, RunControl::default()).map_err(|e| match e {
        RunError::Scenario(e) => e,
        other => {
            unreachable!("a run without sinks, interrupt or strictness fails only on its scenario: {other}")
        }
    })
}

/// [`run`], writing the per-ACK trace (`docs/ack-trace.md`) of every TCP flow to `sink` as the
/// run goes. The results are the same as without the trace.
pub fn run_with_ack_trace(
    scenario: &Scenario,
    options: RunOptions,
    sink: &mut dyn AckSink,
) -> Result<RunResult, RunError> {
    run_with(scenario, options, RunControl { ack_sink: Some(sink), ..RunControl::default() })
}

/// [`run_with_ack_trace`] into the CSV file at `path`, which appears only if the run succeeds.
pub fn run_with_ack_trace_file(
    scenario: &Scenario,
    options: RunOptions,
    path: impl AsRef<std::path::Path>,
) -> Result<RunResult, RunError> {
    let mut file = AckTraceFile::create(path)?;
    let result = run_with_ack_trace(scenario, options, &mut file)?;
    file.commit()?;
    Ok(result)
}

/// Run a scenario with everything [`RunControl`] offers.
pub fn run_with(
    scenario: &Scenario,
    options: RunOptions,
    control: RunControl<'_>,
) -> Result<RunResult, RunError> {
    let series = match control.series_sink {
        Some(sink) => Series::Sink(sink),
        None if options.record_series => Series::Memory(Box::default()),
        None => Series::Off,
    };
    let recording = match series {
        Series::Off => Recording::Off,
        Series::Memory(_) => Recording::Memory,
        Series::Sink(_) => Recording::Streamed,
    };
    budget::check(scenario, recording, control.max_memory_bytes)?;
    let started = std::time::Instant::now();
    let interrupted = control.interrupted;
    let strict = control.strict;
    let refused = |warnings: Vec<Warning>| RunError::Refused { file: scenario.source.clone(), warnings };
    let mut sim = Simulation::build(scenario, options, control.ack_sink, series)?;
    if strict && !sim.warnings.is_empty() {
        return Err(refused(std::mem::take(&mut sim.warnings)));
    }
    sim.tap = control.packet_tap;
    sim.run(interrupted);
    let wall_seconds = started.elapsed().as_secs_f64();
    if sim.interrupted {
        return Err(RunError::Interrupted);
    }
    let over_capacity = if options.check_invariants { sim.over_capacity() } else { None };
    if let Some(violation) =
        sim.monitor.as_ref().and_then(|m| m.violation()).map(str::to_string).or(over_capacity)
    {
        return Err(RunError::Scenario(ScenarioError {
            file: scenario.source.clone(),
            field: String::new(),
            message: format!("TCP invariant violated: {violation}"),
        }));
    }
    if let Some(error) = sim.trace_error.take() {
        return Err(RunError::Trace(error));
    }
    if let Some(error) = sim.series_error.take() {
        return Err(RunError::Series(error));
    }
    if let Some(error) = sim.tap.as_deref_mut().and_then(|t| t.take_error()) {
        return Err(RunError::Capture(error));
    }
    let result = sim.finish(wall_seconds);
    if strict && !result.summary.warnings.is_empty() {
        return Err(refused(result.summary.warnings));
    }
    Ok(result)
}

/// The summary of each of the scenario's `links` (in `Scenario::links` order) after they carried
/// traffic for `over_seconds` (the simulated duration; the testbed's wall time): counters, drops
/// by cause, and the fraction of that time the transmitter was busy.
pub fn link_summaries<F: Frame>(
    scenario: &Scenario,
    links: &[Link<F>],
    over_seconds: f64,
) -> Vec<LinkSummary> {
    let seconds = |ns: Nanos| ns as f64 / NANOS_PER_SECOND as f64;
    let node = |i: usize| scenario.nodes[i].name.clone();
    scenario
        .links
        .iter()
        .zip(links)
        .map(|(spec, l)| LinkSummary {
            name: spec.name.clone(),
            from: node(spec.from),
            to: node(spec.to),
            rate_bps: spec.rate_bps,
            delay_seconds: seconds(spec.delay),
            queue_type: if l.red().is_some() { "red" } else { "droptail" }.to_string(),
            queue_limit: l.capacity.to_string(),
            packets_sent: l.stats.packets_sent,
            bytes_sent: l.stats.bytes_sent,
            drops_overflow: l.stats.drops_overflow,
            drops_red: l.stats.drops_red,
            drops_error: l.stats.drops_error,
            drops_outage: l.stats.drops_outage,
            utilization: (seconds(l.stats.busy_time) / over_seconds.max(f64::MIN_POSITIVE)).min(1.0),
        })
        .collect()
}

/// The scenario's links exactly as [`run`] builds them (in `Scenario::links` order): `bdp`
/// queues resolved, RED and the channel error models seeded from the scenario's seed. The
/// testbed's link emulator (`crates/emulator`) drives these in wall-clock time.
pub fn build_links(scenario: &Scenario) -> Result<Vec<Link>, ScenarioError> {
    Ok(Network::build(scenario)?.links)
}

/// The network a scenario describes, without its endpoints: links with their queues and error
/// models, routes, and the flows' paths (which size `bdp` queues and RED's typical packet).
/// The testbed's emulator runs these links alone ([`build_links`]); a simulation adds flows,
/// sources and events.
struct Network {
    links: Vec<Link>,
    routes: Routes,
    multipath: Multipath,
    /// Data paths of each scenario flow (1: ordinary routing).
    paths: Vec<usize>,
    /// What building found wrong with the scenario ([`warnings::small_bdp_queue`]).
    warnings: Vec<Warning>,
}

impl Network {
    /// Check that every flow, arrival and source can reach its peer, then build the links.
    fn build(scenario: &Scenario) -> Result<Network, ScenarioError> {
        let error =
            |field: String, message: String| ScenarioError { file: scenario.source.clone(), field, message };
        let endpoints: Vec<(u32, u32)> =
            scenario.links.iter().map(|l| (l.from as u32, l.to as u32)).collect();
        let routes = Routes::shortest_paths(scenario.nodes.len(), &endpoints);

        // Paths of every flow, both directions, to check reachability and resolve `bdp` queues.
        let mut flow_paths: Vec<RoutePair> = Vec::with_capacity(scenario.flows.len());
        let mut multipath = Multipath::new(scenario.nodes.len(), endpoints.clone());
        let mut paths = Vec::with_capacity(scenario.flows.len());
        for (i, flow) in scenario.flows.iter().enumerate() {
            let (src, dst) = (flow.src as u32, flow.dst as u32);
            let node = |i: u32| scenario.nodes[i as usize].name.as_str();
            let data = routes.path(src, dst, &endpoints).ok_or_else(|| {
                error(
                    format!("flows.{}", flow.name),
                    format!(
                        "no route from '{}' to '{}': add a link (or a duplex link) between them",
                        node(src),
                        node(dst)
                    ),
                )
            })?;
            let acks = routes.path(dst, src, &endpoints).ok_or_else(|| {
                error(
                    format!("flows.{}", flow.name),
                    format!(
                        "no route back from '{}' to '{}' for the ACKs: make the links duplex or add the reverse links",
                        node(dst),
                        node(src)
                    ),
                )
            })?;
            let packet_size = flow.tcp.segment_size + flow.tcp.header_size;
            let (multi_data, multi_acks) = match &flow.multipath {
                Some(spec) => multipath.add_flow(i as u32, src, dst, spec),
                None => (Vec::new().into(), Vec::new().into()),
            };
            paths.push(multi_data.len().max(1));
            // Pair the i-th data path with the i-th ACK path (or the shortest one).
            for j in 0..multi_data.len().max(multi_acks.len()).max(1) {
                let pick = |multi: &[Vec<u32>], single: &Vec<u32>| {
                    if multi.is_empty() {
                        single.clone()
                    } else {
                        multi[j % multi.len()].clone()
                    }
                };
                flow_paths.push(RoutePair {
                    packet_size,
                    data: pick(&multi_data, &data),
                    acks: pick(&multi_acks, &acks),
                });
            }
        }
        // Flows arriving during the run: their endpoints must reach each other both ways; a fixed
        // pair's paths also size `bdp` queues (random pairs do not: give those links a size).
        for spec in &scenario.arrivals {
            let unreachable = |a: usize, b: usize| {
                error(
                    format!("flows.{}", spec.name),
                    format!(
                        "no route from '{}' to '{}' (and back): flows with arrivals need every pair \
                         of their nodes connected both ways",
                        scenario.nodes[a].name, scenario.nodes[b].name
                    ),
                )
            };
            match &spec.endpoints {
                crate::model::ArrivalEndpoints::Fixed { src, dst } => {
                    let (s, d) = (*src as u32, *dst as u32);
                    let data = routes.path(s, d, &endpoints).ok_or_else(|| unreachable(*src, *dst))?;
                    let acks = routes.path(d, s, &endpoints).ok_or_else(|| unreachable(*src, *dst))?;
                    let packet_size = spec.tcp.segment_size + spec.tcp.header_size;
                    flow_paths.push(RoutePair { packet_size, data, acks });
                }
                crate::model::ArrivalEndpoints::Among(nodes) => {
                    let first = nodes[0];
                    for &other in &nodes[1..] {
                        let (a, b) = (first as u32, other as u32);
                        if routes.next_link(a, b).is_none() || routes.next_link(b, a).is_none() {
                            return Err(unreachable(first, other));
                        }
                    }
                }
            }
        }
        // Links that data crosses (flows' data paths, sources' routes): a queue there must
        // buffer bursts, where one that only ACKs cross need not.
        let mut carries_data = vec![false; scenario.links.len()];
        for pair in &flow_paths {
            pair.data.iter().for_each(|&l| carries_data[l as usize] = true);
        }
        for source in &scenario.sources {
            let Some(path) = routes.path(source.src as u32, source.dst as u32, &endpoints) else {
                return Err(error(
                    format!("sources.{}", source.name),
                    format!(
                        "no route from '{}' to '{}': add a link between them",
                        scenario.nodes[source.src].name, scenario.nodes[source.dst].name
                    ),
                ));
            };
            path.iter().for_each(|&l| carries_data[l as usize] = true);
        }

        let mut warnings = Vec::new();

        let mut links = Vec::with_capacity(scenario.links.len());
        for (index, spec) in scenario.links.iter().enumerate() {
            let (limit, red) = match spec.queue {
                QueueSpec::DropTail(limit) => (limit, None),
                QueueSpec::Red(red) => (red.limit, Some(red)),
            };
            let capacity = match limit {
                QueueLimit::Packets(n) => Capacity::Packets(n),
                QueueLimit::Bytes(n) => Capacity::Bytes(n),
                QueueLimit::BandwidthDelayProduct { rtt, min } => {
                    let (packets, rtt) =
                        bdp_packets(scenario, index as u32, spec.rate_bps, spec.delay, rtt, &flow_paths);
                    let packets = packets.max(min);
                    if carries_data[index] {
                        warnings.extend(warnings::small_bdp_queue(&spec.name, packets, spec.rate_bps, rtt));
                    }
                    Capacity::Packets(packets)
                }
            };
            let errors =
                spec.errors.as_ref().and_then(|e| ErrorModel::for_link(scenario.seed, &spec.name, e));
            let mut link =
                Link::new(spec.from as u32, spec.to as u32, spec.rate_bps, spec.delay, capacity, errors);
            if spec.delay_variation > 0 {
                let rng = RngStream::new(scenario.seed, &format!("link:{}:delay", spec.name));
                link = link.with_delay_variation(DelayVariation::new(spec.delay_variation, rng));
            }
            links.push(match red {
                None => link,
                Some(red) => {
                    // RED's idle correction counts the transmissions of a typical packet.
                    let size = red
                        .mean_packet_size
                        .unwrap_or_else(|| largest_data_packet(index as u32, &flow_paths));
                    let typical = size as f64 * 8.0 * NANOS_PER_SECOND as f64 / spec.rate_bps as f64;
                    let rng = RngStream::new(scenario.seed, &format!("link:{}:red", spec.name));
                    link.with_red(Red::new(&red, typical, rng))
                }
            });
        }
        Ok(Network { links, routes, multipath, paths, warnings })
    }
}

/// `'a`: the scenario; `'s`: the trace sink.
struct Simulation<'a, 's> {
    scenario: &'a Scenario,
    /// Events, and the packets propagating along each link in its lane (lane = link index):
    /// the lanes' buffers grow to the most packets in flight, then no allocation per packet.
    queue: LaneQueue<Event, Handle>,
    links: Vec<Link<Handle>>,
    packets: PacketSlab,
    routes: Routes,
    flows: Vec<Flow>,
    /// Flows created during the run (ids from `flows.len()` on), `None` once closed.
    generated: Vec<Option<Box<Flow>>>,
    arrivals: Arrivals,
    multipath: Multipath,
    /// Data paths of each scenario flow (1: ordinary routing).
    paths: Vec<usize>,
    sources: Vec<CbrSource>,
    monitor: Option<InvariantMonitor>,
    outbox: Vec<Packet>,
    events: u64,
    /// Where samples go: memory, a caller's sink, or nowhere (`Off`).
    series: Series<'s>,
    /// Where the per-ACK trace goes (`None`: not traced).
    ack_sink: Option<&'s mut dyn AckSink>,
    /// The first error writing the trace; it ends the run.
    trace_error: Option<std::io::Error>,
    /// The first error writing the series; it ends the run.
    series_error: Option<std::io::Error>,
    /// The run was stopped by `RunControl::interrupted`.
    interrupted: bool,
    /// Some flow (or arrivals table) has a random send overhead: only then does
    /// `flush_outbox` look at each packet.
    overhead: bool,
    /// Packet captures (`None`: none).
    tap: Option<&'s mut dyn PacketTap>,
    /// What building the network found wrong with the scenario; the run adds its own at the end.
    warnings: Vec<Warning>,
}

enum Series<'s> {
    Off,
    Memory(Box<SeriesMemory>),
    Sink(&'s mut dyn SeriesSink),
}

impl<'a, 's> Simulation<'a, 's> {
    fn build(
        scenario: &'a Scenario,
        options: RunOptions,
        ack_sink: Option<&'s mut dyn AckSink>,
        series: Series<'s>,
    ) -> Result<Self, ScenarioError> {
        let Network { links, routes, multipath, paths, warnings } = Network::build(scenario)?;
        let links: Vec<Link<Handle>> = links.into_iter().map(Link::carrying).collect();

        let flows: Vec<Flow> = scenario
            .flows
            .iter()
            .enumerate()
            .map(|(i, spec)| {
                // A random start is drawn here, from the run's seed (which `--seed` may have set
                // after the file was loaded); the loader checked it ends before `stop`.
                let start = spec.start_at(scenario.seed);
                let end = spec.stop.unwrap_or(scenario.duration).min(scenario.duration);
                let mut flow = Flow::new(i as u32, spec.src as u32, spec.dst as u32, &spec.tcp, start, end)
                    .with_overhead(&spec.tcp, scenario.seed, &spec.name);
                if ack_sink.is_some() {
                    flow.trace_as(&spec.name, &spec.tcp.cc_name);
                }
                flow
            })
            .collect();

        let sources: Vec<CbrSource> = scenario
            .sources
            .iter()
            .map(|spec| {
                let SourceKind::Cbr { rate_bps, packet_size, ref on } = spec.kind;
                let interval = ((u128::from(packet_size) * 8 * u128::from(NANOS_PER_SECOND))
                    / u128::from(rate_bps)) as Nanos;
                CbrSource {
                    src: spec.src as u32,
                    dst: spec.dst as u32,
                    packet_size: packet_size as u32,
                    interval: interval.max(1),
                    on: on.clone(),
                    sent: 0,
                    received: 0,
                    first_hop: FirstHopDrops::default(),
                }
            })
            .collect();

        let mut queue = LaneQueue::new(links.len());
        for (i, source) in sources.iter().enumerate() {
            if let Some(&(start, _)) = source.on.first() {
                queue.schedule_timer(start, Event::SourceSend { source: i as u32 });
            }
        }
        for (i, (flow, state)) in scenario.flows.iter().zip(&flows).enumerate() {
            queue.schedule_timer(state.start, Event::FlowStart { flow: i as u32 });
            if let Some(stop) = flow.stop {
                queue.schedule_timer(stop, Event::FlowStop { flow: i as u32 });
            }
        }
        let mut arrivals = Arrivals::new(scenario);
        for (i, spec) in scenario.arrivals.iter().enumerate() {
            if let Some(at) = arrivals.first(spec, i as u32, scenario.duration) {
                queue.schedule_timer(at, Event::FlowArrival { table: i as u32 });
            }
        }
        if !matches!(series, Series::Off) {
            queue.schedule_timer(0, Event::Sample);
        }
        let monitor = options.check_invariants.then(|| InvariantMonitor::new(scenario.flows.len()));
        Ok(Simulation {
            scenario,
            queue,
            links,
            routes,
            flows,
            generated: Vec::new(),
            arrivals,
            multipath,
            paths,
            sources,
            monitor,
            outbox: Vec::with_capacity(64),
            packets: PacketSlab::default(),
            events: 0,
            series,
            ack_sink,
            trace_error: None,
            series_error: None,
            interrupted: false,
            overhead: scenario
                .flows
                .iter()
                .map(|f| &f.tcp)
                .chain(scenario.arrivals.iter().map(|a| &a.tcp))
                .any(|t| t.overhead > 0),
            tap: None,
            warnings,
        })
    }

    fn run(&mut self, interrupted: Option<&dyn Fn() -> bool>) {
        let end = self.scenario.duration;
        while let Some((now, popped)) = self.queue.pop_until(end) {
            self.events += 1;
            match popped {
                Popped::Event(event) => self.handle(now, event),
                Popped::Lane { lane, item } => self.arrival(lane, item, now),
            }
            if self.monitor.as_ref().is_some_and(|m| m.violation().is_some())
                || self.trace_error.is_some()
                || self.series_error.is_some()
            {
                break;
            }
            if self.events.is_multiple_of(INTERRUPT_CHECK_EVENTS) {
                if interrupted.is_some_and(|stop| stop()) {
                    self.interrupted = true;
                    break;
                }
                if self.tap.as_ref().is_some_and(|t| t.failed()) {
                    break;
                }
            }
        }
    }

    /// `packet` reached the far end of `link`: lost to the channel, delivered, or forwarded.
    fn arrival(&mut self, link: u32, packet: Handle, now: Nanos) {
        let l = &mut self.links[link as usize];
        if l.errors.is_some() && l.corrupts(self.packets.get(packet), now) {
            self.packets.remove(packet);
            return;
        }
        let node = l.to;
        if let Some(tap) = self.tap.as_deref_mut() {
            tap.arrive(link, self.packets.get(packet), now);
        }
        if node == packet.dst {
            let packet = self.packets.remove(packet);
            self.deliver(packet, now);
        } else {
            self.forward(node, packet, now);
        }
    }

    fn handle(&mut self, now: Nanos, event: Event) {
        match event {
            Event::TransmissionDone { link } => {
                let l = &mut self.links[link as usize];
                let arrives = l.arrival_time(now);
                // The arrival first: its sequence number orders it before a transmission that
                // ends at the same instant, as always.
                let queue = &mut self.queue;
                let next =
                    l.finish_transmission_into(now, |packet| queue.schedule_in_lane(link, arrives, *packet));
                if let Some(done_at) = next {
                    self.queue.schedule(done_at, Event::TransmissionDone { link });
                    if let (Some(tap), Some(&started)) = (self.tap.as_deref_mut(), l.transmitting()) {
                        tap.transmit(link, self.packets.get(started), now);
                    }
                }
            }
            Event::SenderTimer { flow } => {
                let Some(f) = flow_mut(&mut self.flows, &mut self.generated, flow) else { return };
                if f.sender_timer.scheduled_at != Some(now) {
                    return;
                }
                f.sender_timer.scheduled_at = None;
                f.sender.on_timer(now, &mut self.outbox);
                self.after_sender(flow, now);
            }
            Event::ReceiverTimer { flow } => {
                let Some(f) = flow_mut(&mut self.flows, &mut self.generated, flow) else { return };
                if f.receiver_timer.scheduled_at != Some(now) {
                    return;
                }
                f.receiver_timer.scheduled_at = None;
                f.receiver.on_timer(now, &mut self.outbox);
                self.after_receiver(flow, now);
            }
            Event::FlowStart { flow } => {
                self.flows[flow as usize].sender.start(now, &mut self.outbox);
                self.after_sender(flow, now);
            }
            Event::FlowStop { flow } => match self.flows.get_mut(flow as usize) {
                Some(f) => f.sender.stop(),
                None => self.close_generated(flow, now),
            },
            Event::FlowArrival { table } => self.flow_arrival(table, now),
            Event::SourceSend { source } => {
                let s = &mut self.sources[source as usize];
                if s.is_on(now) {
                    s.sent += 1;
                    let packet = Packet {
                        kind: PacketKind::Datagram,
                        flow: source,
                        src: s.src,
                        dst: s.dst,
                        seq: 0,
                        len: 0,
                        ack: 0,
                        window: 0,
                        size: s.packet_size,
                        sack: SackBlocks::NONE,
                        path: 0,
                        push: false,
                    };
                    if let Some(next) = s.next_send(now) {
                        self.queue.schedule_timer(next, Event::SourceSend { source });
                    }
                    let handle = self.packets.insert(&packet);
                    self.forward(packet.src, handle, now);
                } else if let Some(start) = s.next_on(now) {
                    self.queue.schedule_timer(start, Event::SourceSend { source });
                }
            }
            Event::Release { flow } => {
                // A closed flow's held segments went with it.
                let Some(overhead) = flow_mut(&mut self.flows, &mut self.generated, flow)
                    .and_then(|f| f.overhead.as_deref_mut())
                else {
                    return;
                };
                let Some((emitted, held)) = overhead.held.pop_front() else { return };
                if let Some(monitor) = self.monitor.as_mut() {
                    monitor.on_release(flow, held.seq, emitted, now, overhead.max);
                }
                let handle = self.packets.insert(&held);
                self.forward(held.src, handle, now);
            }
            Event::Sample => {
                self.sample(now);
                let next = now + self.scenario.sample_interval;
                if next <= self.scenario.duration {
                    self.queue.schedule_timer(next, Event::Sample);
                }
            }
        }
    }

    /// A packet reached its destination node: hand it to the flow's endpoint there.
    fn deliver(&mut self, packet: Packet, now: Nanos) {
        if packet.kind == PacketKind::Datagram {
            self.sources[packet.flow as usize].received += 1;
            return;
        }
        let flow = packet.flow;
        // A closed flow's packets find no endpoint.
        let Some(f) = flow_mut(&mut self.flows, &mut self.generated, flow) else { return };
        match packet.kind {
            PacketKind::Data => {
                let counted = now <= f.end;
                if counted {
                    f.wire_bytes += u64::from(packet.size);
                }
                let delivery = f.receiver.on_data(&packet, now, &mut self.outbox);
                if let Some(d) = delivery {
                    if counted {
                        f.bytes_delivered += d.to - d.from;
                    }
                    if let Some(monitor) = self.monitor.as_mut() {
                        monitor.on_delivery(flow, d.from, d.to, f.sender.snd_max());
                    }
                }
                self.after_receiver(flow, now);
            }
            PacketKind::Datagram => unreachable!("datagrams are counted above"),
            PacketKind::Ack => {
                let una = f.sender.snd_una();
                f.sender.on_ack(&packet, now, &mut self.outbox);
                if f.sender.snd_una() != una {
                    f.stall.advanced(now, f.end);
                }
                if let Some(monitor) = self.monitor.as_mut() {
                    monitor.on_ack(flow, packet.ack, &f.sender);
                }
                self.after_sender(flow, now);
            }
        }
    }

    /// `packet`, at `node`, goes out on its next link (or is dropped there).
    fn forward(&mut self, node: u32, packet: Handle, now: Nanos) {
        let link = if packet.path == 0 {
            // Reachability was checked for every flow when the network was built.
            self.routes.next_link(node, packet.dst).expect("route checked at build time")
        } else {
            // Source-routed along its flow's path; dropped if the flow has closed.
            let Some(link) = self.multipath.next_link(self.packets.get(packet), node) else {
                self.packets.remove(packet);
                return;
            };
            link
        };
        match self.links[link as usize].enqueue(packet, now) {
            Enqueue::Transmitting { done_at } => {
                self.queue.schedule(done_at, Event::TransmissionDone { link });
                if let Some(tap) = self.tap.as_deref_mut() {
                    tap.transmit(link, self.packets.get(packet), now);
                }
            }
            Enqueue::Queued => {}
            Enqueue::Dropped => {
                // One comparison on the drop path: a drop at a link leaving the packet's own
                // node is its origin's first-hop loss (`crate::warnings`).
                if self.packets.get(packet).src == node {
                    self.first_hop_drop(link, packet);
                }
                self.packets.remove(packet);
            }
        }
    }

    /// `packet` was dropped at `link`, the first hop from its origin's node: count an overflow
    /// against its flow or source. (RED drops early while the queue has room; one when it is
    /// full would have overflowed anyway.)
    #[cold]
    #[inline(never)]
    fn first_hop_drop(&mut self, link: u32, packet: Handle) {
        let l = &self.links[link as usize];
        if l.red().is_some() && l.has_room_for(&packet) {
            return;
        }
        let p = self.packets.get(packet);
        match p.kind {
            PacketKind::Data => {
                if let Some(f) = flow_mut(&mut self.flows, &mut self.generated, p.flow) {
                    f.first_hop.add(link);
                }
            }
            PacketKind::Datagram => self.sources[p.flow as usize].first_hop.add(link),
            PacketKind::Ack => {}
        }
    }

    fn flush_outbox(&mut self, now: Nanos) {
        let mut outbox = std::mem::take(&mut self.outbox);
        if !self.multipath.is_empty() {
            outbox.iter_mut().for_each(|packet| self.multipath.assign(packet));
        }
        if self.overhead {
            for packet in outbox.drain(..) {
                if packet.kind == PacketKind::Data {
                    if let Some(f) = flow_mut(&mut self.flows, &mut self.generated, packet.flow) {
                        if let Some(overhead) = f.overhead.as_deref_mut() {
                            let at = overhead.hold(packet, now);
                            f.sender.departs(packet.seq, at);
                            // Busy, not a timer: one comes and goes with every segment.
                            self.queue.schedule(at, Event::Release { flow: packet.flow });
                            continue;
                        }
                    }
                }
                let handle = self.packets.insert(&packet);
                self.forward(packet.src, handle, now);
            }
        } else {
            for packet in outbox.drain(..) {
                let handle = self.packets.insert(&packet);
                self.forward(packet.src, handle, now);
            }
        }
        self.outbox = outbox;
    }

    fn after_sender(&mut self, flow: u32, now: Nanos) {
        self.flush_outbox(now);
        let Some(f) = flow_mut(&mut self.flows, &mut self.generated, flow) else { return };
        if let Some(monitor) = self.monitor.as_mut() {
            monitor.on_sender(flow, &f.sender);
        }
        if let (Some(trace), Some(sink)) = (f.trace.as_mut(), self.ack_sink.as_deref_mut()) {
            if self.trace_error.is_none() {
                self.trace_error = trace.write(&mut f.sender, sink).err();
            }
        }
        if let Some(deadline) = f.sender.timer_deadline() {
            if arm(&mut f.sender_timer, deadline) {
                self.queue.schedule_timer(deadline, Event::SenderTimer { flow });
            }
        }
    }

    fn after_receiver(&mut self, flow: u32, now: Nanos) {
        self.flush_outbox(now);
        let Some(f) = flow_mut(&mut self.flows, &mut self.generated, flow) else { return };
        if let Some(deadline) = f.receiver.timer_deadline() {
            if arm(&mut f.receiver_timer, deadline) {
                self.queue.schedule_timer(deadline, Event::ReceiverTimer { flow });
            }
        }
    }

    /// A flow of arrivals table `table` arrives: create it, start it, schedule its close and
    /// the next arrival.
    fn flow_arrival(&mut self, table: u32, now: Nanos) {
        let scenario = self.scenario;
        let spec = &scenario.arrivals[table as usize];
        let (new, next) = self.arrivals.arrive(spec, table, now, scenario.duration);
        if let Some(at) = next {
            self.queue.schedule_timer(at, Event::FlowArrival { table });
        }
        let id = u32::try_from(self.flows.len() + self.generated.len()).expect("fewer than 2^32 flows");
        let (src, dst) = (new.src as u32, new.dst as u32);
        let paths = match &spec.multipath {
            Some(mp) => self.multipath.add_flow(id, src, dst, mp).0.len().max(1),
            None => 1,
        };
        let mut flow = Flow::new(id, src, dst, &spec.tcp, now, Nanos::MAX);
        if self.ack_sink.is_some() || spec.tcp.overhead > 0 {
            // Generated flows are named by their table and their number in it: `web#3`.
            let name = format!("{}#{}", spec.name, self.arrivals.started(table));
            flow = flow.with_overhead(&spec.tcp, scenario.seed, &name);
            if self.ack_sink.is_some() {
                flow.trace_as(&name, &spec.tcp.cc_name);
            }
        }
        self.generated.push(Some(Box::new(flow)));
        if let Some(monitor) = self.monitor.as_mut() {
            monitor.add_flow();
        }
        self.arrivals.opened(id, table, now, paths);
        if new.stop <= scenario.duration {
            self.queue.schedule_timer(new.stop, Event::FlowStop { flow: id });
        }
        if let Some(f) = flow_mut(&mut self.flows, &mut self.generated, id) {
            f.sender.start(now, &mut self.outbox);
        }
        self.after_sender(id, now);
    }

    /// A generated flow's time is up: add it to its table's totals and free it.
    fn close_generated(&mut self, flow: u32, now: Nanos) {
        let index = flow as usize - self.flows.len();
        if let Some(f) = self.generated.get_mut(index).and_then(Option::take) {
            self.arrivals.closed(flow, now, false, f.bytes_delivered, f.sender.stats, f.stall.longest(now));
            self.multipath.remove_flow(flow);
        }
    }

    fn sample(&mut self, now: Nanos) {
        let sink: &mut dyn SeriesSink = match &mut self.series {
            Series::Off => return,
            Series::Memory(memory) => memory.as_mut(),
            Series::Sink(sink) => &mut **sink,
        };
        let t = now as f64 / NANOS_PER_SECOND as f64;
        let seconds = |ns: Nanos| ns as f64 / NANOS_PER_SECOND as f64;
        let mut written = Ok(());
        for (spec, f) in self.scenario.flows.iter().zip(&self.flows) {
            written = written.and_then(|()| {
                sink.flow_sample(&FlowSample {
                    time_seconds: t,
                    flow: &spec.name,
                    cwnd_bytes: f.sender.window(),
                    ssthresh_bytes: f.sender.ssthresh(),
                    srtt_seconds: f.sender.srtt().map_or(f64::NAN, seconds),
                    bwe_bps: f.sender.bandwidth_estimate_bps().unwrap_or(f64::NAN),
                    bytes_delivered: f.bytes_delivered,
                    snd_max: f.sender.snd_max(),
                    snd_una: f.sender.snd_una(),
                })
            });
        }
        for (spec, link) in self.scenario.links.iter().zip(&self.links) {
            written = written.and_then(|()| {
                sink.link_sample(&LinkSample {
                    time_seconds: t,
                    link: &spec.name,
                    queue_packets: link.queue_packets(),
                    queue_bytes: link.queue_bytes(),
                    queue_avg_packets: link.red().map_or(f64::NAN, Red::average),
                    drops_overflow: link.stats.drops_overflow,
                    drops_red: link.stats.drops_red,
                    drops_error: link.stats.drops_error,
                    drops_outage: link.stats.drops_outage,
                })
            });
        }
        if let Err(e) = written {
            self.series_error.get_or_insert(e);
        }
    }

    /// A flow that reports more bytes than the links into its receiver could have carried while
    /// it was active: everything it counts arrived over those links within `[start, end]`, so
    /// its wire bytes are at most their rates times its active time, plus one packet per link
    /// for transmission times rounded to whole nanoseconds.
    fn over_capacity(&self) -> Option<String> {
        let scenario = self.scenario;
        for (spec, f) in scenario.flows.iter().zip(&self.flows) {
            let active = f.end.saturating_sub(f.start);
            let incoming = scenario.links.iter().filter(|l| l.to == spec.dst);
            let (rate_bps, links) =
                incoming.fold((0u128, 0u128), |(r, n), l| (r + u128::from(l.rate_bps), n + 1));
            let capacity_bits = rate_bps * u128::from(active) / u128::from(NANOS_PER_SECOND);
            let slack_bits = links * 8 * 65_536;
            let carried_bits = u128::from(f.wire_bytes) * 8;
            if carried_bits > capacity_bits + slack_bits || f.bytes_delivered > f.wire_bytes {
                return Some(format!(
                    "flow {} counts {} bytes on the wire ({} delivered) in {} ns, more than the {} b/s \
                     into its receiver can carry",
                    spec.name, f.wire_bytes, f.bytes_delivered, active, rate_bps
                ));
            }
        }
        None
    }

    /// Flows and sources that lost more than half of what they sent at their first hop.
    fn first_hop_warnings(&self) -> Vec<Warning> {
        let scenario = self.scenario;
        let hop = |d: &FirstHopDrops| {
            let spec = &scenario.links[d.link as usize];
            FirstHop {
                link: &spec.name,
                node: &scenario.nodes[spec.from].name,
                queue: self.links[d.link as usize].capacity,
            }
        };
        let flows = scenario.flows.iter().zip(&self.flows).filter_map(|(spec, f)| {
            let d = &f.first_hop;
            let sent = f.sender.stats.segments_sent;
            (d.drops > 0)
                .then(|| warnings::first_hop_loss(Origin::Flow(&spec.name), sent, d.drops, hop(d)))?
        });
        let sources = scenario.sources.iter().zip(&self.sources).filter_map(|(spec, s)| {
            let d = &s.first_hop;
            (d.drops > 0)
                .then(|| warnings::first_hop_loss(Origin::Source(&spec.name), s.sent, d.drops, hop(d)))?
        });
        flows.chain(sources).collect()
    }

    fn finish(mut self, wall_seconds: f64) -> RunResult {
        let scenario = self.scenario;
        for id in self.arrivals.open_flows() {
            if let Some(f) = flow_mut(&mut self.flows, &mut self.generated, id) {
                let stall = f.stall.longest(scenario.duration);
                self.arrivals.closed(id, scenario.duration, true, f.bytes_delivered, f.sender.stats, stall);
            }
        }
        let seconds = |ns: Nanos| ns as f64 / NANOS_PER_SECOND as f64;
        let node = |i: usize| scenario.nodes[i].name.clone();
        let flows: Vec<FlowSummary> = scenario
            .flows
            .iter()
            .zip(&self.flows)
            .zip(&self.paths)
            .map(|((spec, f), &paths)| {
                let active = seconds(f.end.saturating_sub(f.start));
                let rate = |bytes: u64| {
                    if active > 0.0 {
                        bytes as f64 * 8.0 / active
                    } else {
                        0.0
                    }
                };
                let stats = f.sender.stats;
                FlowSummary {
                    name: spec.name.clone(),
                    cc: spec.tcp.cc_name.clone(),
                    recovery: spec.tcp.recovery.name().to_string(),
                    segment_size: spec.tcp.segment_size,
                    header_size: spec.tcp.header_size,
                    src: node(spec.src),
                    dst: node(spec.dst),
                    goodput_bps: rate(f.bytes_delivered),
                    throughput_bps: rate(f.wire_bytes),
                    bytes_delivered: f.bytes_delivered,
                    segments_sent: stats.segments_sent,
                    retransmits: stats.retransmits,
                    timeouts: stats.timeouts,
                    fast_retransmits: stats.fast_retransmits,
                    active_seconds: active,
                    min_rtt_seconds: f.sender.min_rtt().map_or(0.0, seconds),
                    paths,
                    start_seconds: seconds(f.start),
                    longest_stall_seconds: seconds(f.stall.longest(f.end)),
                    final_stall_seconds: seconds(f.stall.open(f.end)),
                }
            })
            .collect();
        let links = link_summaries(scenario, &self.links, seconds(scenario.duration));
        let sources = scenario
            .sources
            .iter()
            .zip(&self.sources)
            .map(|(spec, s)| SourceSummary {
                name: spec.name.clone(),
                kind: "cbr".to_string(),
                src: node(spec.src),
                dst: node(spec.dst),
                rate_bps: match spec.kind {
                    SourceKind::Cbr { rate_bps, .. } => rate_bps,
                },
                packet_size: u64::from(s.packet_size),
                on: s.on.iter().map(|&(a, b)| [seconds(a), seconds(b)]).collect(),
                packets_sent: s.sent,
                packets_received: s.received,
            })
            .collect();
        let packets = self.links.iter().map(|l| l.stats.packets_sent).sum();
        let mut warnings = std::mem::take(&mut self.warnings);
        warnings.extend(self.first_hop_warnings());
        let summary = Summary {
            scenario: scenario.name.clone(),
            seed: scenario.seed,
            parameters: scenario.parameters.iter().cloned().collect(),
            sim_seconds: seconds(scenario.duration),
            wall_seconds,
            events: self.events,
            packets,
            fairness: crate::metrics::fairness_of(&flows),
            per_cc: crate::metrics::per_cc(&flows),
            arrivals: self.arrivals.summaries(scenario),
            flows,
            sources,
            links,
            warnings,
        };
        let (flow_series, link_series) = match self.series {
            Series::Memory(memory) => (Some(memory.flows), Some(memory.links)),
            Series::Off | Series::Sink(_) => (None, None),
        };
        RunResult { summary, flow_series, link_series }
    }
}

/// Make sure the engine holds an event for `deadline`; returns true when one must be scheduled.
/// A later pending event is left in place and ignored when it fires (lazy cancellation); an
/// earlier one re-arms itself when it finds the deadline has moved.
fn arm(slot: &mut TimerSlot, deadline: Nanos) -> bool {
    match slot.scheduled_at {
        Some(at) if at <= deadline => false,
        _ => {
            slot.scheduled_at = Some(deadline);
            true
        }
    }
}

/// Queue limit for `bdp`: the link's rate times the largest round-trip propagation delay of the
/// flows crossing it (or the given `rtt`), in packets of the largest data packet among them; and
/// the round trip it used.
fn bdp_packets(
    scenario: &Scenario,
    link: u32,
    rate_bps: u64,
    own_delay: Nanos,
    rtt: Option<Nanos>,
    flow_paths: &[RoutePair],
) -> (u64, Nanos) {
    let mut largest_rtt = 0;
    let mut packet_size = 0;
    for RoutePair { packet_size: size, data, acks } in flow_paths {
        if data.contains(&link) || acks.contains(&link) {
            let round_trip: Nanos = data.iter().chain(acks).map(|&l| scenario.links[l as usize].delay).sum();
            largest_rtt = largest_rtt.max(round_trip);
            packet_size = packet_size.max(*size);
        }
    }
    let rtt = rtt.unwrap_or(if largest_rtt > 0 { largest_rtt } else { 2 * own_delay });
    let packet_size = if packet_size > 0 { packet_size } else { 1500 };
    let bytes = u128::from(rate_bps) * u128::from(rtt) / 8 / u128::from(NANOS_PER_SECOND);
    ((bytes.div_ceil(u128::from(packet_size)) as u64).max(1), rtt)
}

/// Bytes of the largest data packet of the flows crossing `link` (1500 when none does): RED's
/// default "typical packet".
fn largest_data_packet(link: u32, flow_paths: &[RoutePair]) -> u64 {
    let crossing = flow_paths.iter().filter(|p| p.data.contains(&link) || p.acks.contains(&link));
    crossing.map(|p| p.packet_size).max().unwrap_or(1500)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(seq: u64, size: u32, dst: u32, path: u8) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow: 0,
            src: 0,
            dst,
            seq,
            len: size,
            ack: 0,
            window: 0,
            size,
            sack: SackBlocks::NONE,
            path,
            push: false,
        }
    }

    #[test]
    fn the_packet_slab_hands_back_what_was_stored_and_reuses_freed_slots() {
        let mut slab = PacketSlab::default();
        let a = slab.insert(&packet(1, 1040, 3, 0));
        let b = slab.insert(&packet(2, 40, 4, 2));
        assert_eq!((b.size, b.dst, b.path), (40, 4, 2), "the handle carries what a hop reads");
        assert_eq!(slab.get(a).seq, 1);
        assert_eq!(slab.remove(a).seq, 1);
        let c = slab.insert(&packet(5, 1040, 3, 0));
        assert_eq!(c.slot, a.slot, "a freed slot is taken before the slab grows");
        assert_eq!((slab.get(b).seq, slab.get(c).seq), (2, 5));
        assert_eq!(slab.slots.len(), 2);
    }
}
