//! Packet captures of a run (`westwood run --pcap DIR`, `docs/measurement.md`): one pcapng (or
//! pcap) file per capture point, written as the run goes through `westwood_pcap`'s writer, the
//! one the testbed uses too.
//!
//! A capture point is an interface of a node, as tcpdump or an ns-3 device trace sees it:
//!
//! * **`LINK`** — node A's interface onto link `LINK` (A → B): every packet A transmits on
//!   `LINK`, stamped when its transmission starts (packets the queue drops are not on the
//!   wire), and every packet A receives from B over the reverse link(s) (`LINK.reverse`),
//!   stamped when it arrives (packets the channel corrupts do not arrive).
//! * **`FLOW.sender`**, **`FLOW.receiver`** — the interfaces of the flow's sending (receiving)
//!   node, only that flow's packets: what tcpdump on the endpoint would capture. The testbed
//!   writes files of the same names from its endpoints' namespaces.
//!
//! Frames carry real Ethernet, IPv4 and TCP/UDP headers: addresses `10.x.y.z` per node (node
//! `i` is `10.0.0.0 + i + 1`, MAC `02:57:57:..`), a port pair per flow, sequence and
//! acknowledgment numbers offset by a per-flow initial sequence number, the receiver's window
//! (shifted by one window scale per capture: the simulator has no handshake), SACK blocks on
//! the ACKs of SACK flows, and NOP options filling the header to the scenario's
//! `header_size`; the payload is zeros, cut to the snaplen. Timestamps are simulated time
//! (time 0 is 1970-01-01T00:00:00Z). The section comment names each flow
//! (`westwood_pcap::FlowMeta`), so `westwood analyze` reports them under their scenario names.

use std::io;
use std::path::PathBuf;

use westwood_pcap::frame::{self, Addresses, TcpHeader};
use westwood_pcap::{CaptureFile, Direction, FlowMeta, Format, Interface, InterfaceStats, LINKTYPE_ETHERNET};

use crate::ack_trace::RunError;
use crate::model::{Nanos, Scenario, SourceKind, NANOS_PER_SECOND};
use crate::network::{Packet, PacketKind, Routes};
use crate::results::Summary;
use crate::scenario::ScenarioError;

/// Bytes kept of each packet unless told otherwise: every header (Ethernet 14, IPv4 20,
/// TCP 60 at most) and some payload.
pub const DEFAULT_SNAPLEN: u32 = 128;
/// The receiver's TCP port of every simulated flow; UDP sources send to the discard port.
pub const TCP_PORT: u16 = 5001;
pub const UDP_PORT: u16 = 9;

/// What to capture, where.
#[derive(Debug, Clone)]
pub struct PcapOptions {
    pub dir: PathBuf,
    /// Capture points (`LINK`, `FLOW.sender`, `FLOW.receiver`); empty: the bottleneck links.
    pub points: Vec<String>,
    pub snaplen: u32,
    pub format: Format,
}

impl PcapOptions {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        PcapOptions { dir: dir.into(), points: Vec::new(), snaplen: DEFAULT_SNAPLEN, format: Format::Pcapng }
    }
}

/// Where the simulator reports packets: a transmission starting on a link, an arrival at a
/// link's far end (not corrupted).
pub trait PacketTap {
    fn transmit(&mut self, link: u32, packet: &Packet, now: Nanos);
    fn arrive(&mut self, link: u32, packet: &Packet, now: Nanos);
    /// Writing failed (the run stops and reports [`take_error`](PacketTap::take_error)).
    fn failed(&self) -> bool;
    fn take_error(&mut self) -> Option<io::Error>;
}

/// Node `i`'s IPv4 address.
pub fn node_ip(i: u32) -> [u8; 4] {
    let n = i + 1;
    [10, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

fn node_mac(i: u32) -> [u8; 6] {
    let n = i + 1;
    [0x02, 0x57, 0x57, (n >> 16) as u8, (n >> 8) as u8, n as u8]
}

/// Flow `k`'s sender port: the dynamic range, skipping 57000 (which Wireshark decodes as a
/// protocol of its own).
pub fn sender_port(k: u32) -> u16 {
    let p = 49152 + (k % 16383);
    (if p >= 57000 { p + 1 } else { p }) as u16
}

fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Initial sequence numbers of flow `k`'s sender and receiver (a fixed function of `k`).
pub fn initial_sequence(k: u32) -> (u32, u32) {
    let v = mix(u64::from(k) ^ 0x5757_5757);
    (v as u32, (v >> 32) as u32)
}

/// A capture point being written.
struct Tap {
    file: CaptureFile,
    /// Only this flow's TCP packets (endpoint captures).
    flow: Option<u32>,
    /// The tapped link (link captures): its queue drops go in the statistics.
    link: Option<usize>,
}

/// The capture points of a run: a [`PacketTap`] writing one file each.
pub struct PcapTaps {
    taps: Vec<Tap>,
    /// Per link: taps that record its transmissions, and its arrivals.
    on_transmit: Vec<Vec<u16>>,
    on_arrival: Vec<Vec<u16>>,
    /// (from, to) node of each link: the frames' MAC addresses.
    link_ends: Vec<(u32, u32)>,
    wscale: u8,
    /// The window field of data segments: the largest receive window of the scenario (the
    /// simulator does not model the sender's own receive window).
    data_window: u16,
    snaplen: usize,
    frame: Vec<u8>,
    options: Vec<u8>,
    error: Option<io::Error>,
    duration: Nanos,
}

fn file_name(point: &str, format: Format) -> String {
    let safe: String = point.chars().map(|c| if c == '/' || c == '\0' { '_' } else { c }).collect();
    format!("{safe}.{}", format.extension())
}

/// A capture point resolved: a link, or a flow's endpoint (flow, sender?), and its file.
pub struct Point {
    pub name: String,
    pub link: Option<usize>,
    pub endpoint: Option<(usize, bool)>,
    pub path: PathBuf,
}

/// The capture points `options` name in `scenario` (the bottleneck links when it names none),
/// with their files; an unknown name is an error that lists the valid ones.
pub fn resolve(scenario: &Scenario, options: &PcapOptions) -> Result<Vec<Point>, ScenarioError> {
    let error =
        |message: String| ScenarioError { file: scenario.source.clone(), field: "pcap".into(), message };
    let link_index = |name: &str| scenario.links.iter().position(|l| l.name == name);
    let flow_index = |name: &str| scenario.flows.iter().position(|f| f.name == name);
    let path = |name: &str| options.dir.join(file_name(name, options.format));
    let mut points: Vec<Point> = Vec::new();
    if options.points.is_empty() {
        for l in bottleneck_links(scenario) {
            let name = scenario.links[l].name.clone();
            points.push(Point { path: path(&name), name, link: Some(l), endpoint: None });
        }
        if points.is_empty() {
            return Err(error("the scenario has no flow or source whose path a capture could follow".into()));
        }
    }
    for p in &options.points {
        let (link, endpoint) = if let Some(l) = link_index(p) {
            (Some(l), None)
        } else if let Some(f) = p.strip_suffix(".sender").and_then(flow_index) {
            (None, Some((f, true)))
        } else if let Some(f) = p.strip_suffix(".receiver").and_then(flow_index) {
            (None, Some((f, false)))
        } else {
            let links: Vec<&str> = scenario.links.iter().map(|l| l.name.as_str()).collect();
            let flows: Vec<&str> = scenario.flows.iter().map(|f| f.name.as_str()).take(3).collect();
            return Err(error(format!(
                "no link or flow endpoint named '{p}': give a link ({}) or FLOW.sender / FLOW.receiver (flows: {}{})",
                links.join(", "),
                flows.join(", "),
                if scenario.flows.len() > 3 { ", ..." } else { "" }
            )));
        };
        if !points.iter().any(|q| &q.name == p) {
            points.push(Point { name: p.clone(), link, endpoint, path: path(p) });
        }
    }
    Ok(points)
}

/// The bottleneck of each TCP flow (else each UDP source): the slowest link of its path, the
/// first on ties.
pub fn bottleneck_links(scenario: &Scenario) -> Vec<usize> {
    let endpoints: Vec<(u32, u32)> = scenario.links.iter().map(|l| (l.from as u32, l.to as u32)).collect();
    let routes = Routes::shortest_paths(scenario.nodes.len(), &endpoints);
    let mut pairs: Vec<(usize, usize)> = scenario.flows.iter().map(|f| (f.src, f.dst)).collect();
    if pairs.is_empty() {
        pairs = scenario.sources.iter().map(|s| (s.src, s.dst)).collect();
    }
    let mut out = Vec::new();
    for (s, d) in pairs {
        let Some(path) = routes.path(s as u32, d as u32, &endpoints) else { continue };
        let slowest = path.iter().copied().min_by_key(|&l| scenario.links[l as usize].rate_bps);
        if let Some(l) = slowest {
            if !out.contains(&(l as usize)) {
                out.push(l as usize);
            }
        }
    }
    out
}

fn rate_text(bps: u64) -> String {
    match bps {
        b if b >= 1_000_000_000 && b % 1_000_000 == 0 => format!("{} Gb/s", b as f64 / 1e9),
        b if b >= 1_000_000 => format!("{} Mb/s", b as f64 / 1e6),
        b => format!("{} kb/s", b as f64 / 1e3),
    }
}

impl PcapTaps {
    /// Open a file per capture point of `options` (resolved against `scenario`); the files
    /// appear under their names only when [`commit`](PcapTaps::commit) succeeds.
    /// A name that matches nothing, or a packet too large for IPv4, is a scenario error; a file
    /// that cannot be created, [`RunError::Capture`].
    pub fn create(scenario: &Scenario, options: &PcapOptions) -> Result<PcapTaps, RunError> {
        let error = |field: &str, message: String| {
            RunError::Scenario(ScenarioError {
                file: scenario.source.clone(),
                field: field.to_string(),
                message,
            })
        };
        // Every packet must fit an IPv4 header.
        for f in scenario
            .flows
            .iter()
            .map(|f| (&f.name, &f.tcp))
            .chain(scenario.arrivals.iter().map(|a| (&a.name, &a.tcp)))
        {
            let (name, tcp) = f;
            if tcp.segment_size + tcp.header_size.max(40) > 65_535 {
                return Err(error(
                    &format!("flows.{name}"),
                    format!(
                        "segment_size {} B with header_size {} B does not fit an IPv4 packet (65535 B) in a capture",
                        tcp.segment_size, tcp.header_size
                    ),
                ));
            }
        }
        for s in &scenario.sources {
            let SourceKind::Cbr { packet_size, .. } = s.kind;
            if packet_size > 65_535 {
                return Err(error(
                    &format!("sources.{}", s.name),
                    format!("packet_size {packet_size} B does not fit an IPv4 packet (65535 B) in a capture"),
                ));
            }
        }
        if options.snaplen < 64 {
            return Err(error(
                "pcap",
                format!("snaplen {} is below 64 bytes: the headers would not fit", options.snaplen),
            ));
        }
        let largest_window = scenario
            .flows
            .iter()
            .map(|f| f.tcp.receiver_window)
            .chain(scenario.arrivals.iter().map(|a| a.tcp.receiver_window))
            .max()
            .unwrap_or(65_535);
        let wscale = (0..=14u8).find(|&s| largest_window >> s <= 65_535).unwrap_or(14);

        let points = resolve(scenario, options)?;
        std::fs::create_dir_all(&options.dir).map_err(|e| {
            RunError::Capture(io::Error::new(
                e.kind(),
                format!("cannot create {}: {e}", options.dir.display()),
            ))
        })?;

        let metas = flow_metas(scenario, wscale);
        let node_name = |i: usize| scenario.nodes[i].name.as_str();
        let header = format!(
            "westwood simulator capture: scenario {}, seed {}, {} s simulated. Timestamps are simulated time \
             (1970-01-01T00:00:00Z is the run's time 0). The simulator has no TCP handshake: window fields \
             are the receiver's window shifted right by {wscale} (window scale {wscale}); payloads are zeros.\n\
             westwood-capture wscale={wscale}\n",
            scenario.name,
            scenario.seed,
            scenario.duration as f64 / NANOS_PER_SECOND as f64
        );
        let names: Vec<([u8; 4], String)> =
            scenario.nodes.iter().enumerate().map(|(i, n)| (node_ip(i as u32), n.name.clone())).collect();
        let n_links = scenario.links.len();
        let mut taps = PcapTaps {
            taps: Vec::new(),
            on_transmit: vec![Vec::new(); n_links],
            on_arrival: vec![Vec::new(); n_links],
            link_ends: scenario.links.iter().map(|l| (l.from as u32, l.to as u32)).collect(),
            wscale,
            data_window: (largest_window >> wscale).min(65_535) as u16,
            snaplen: options.snaplen as usize,
            frame: Vec::with_capacity(256),
            options: Vec::with_capacity(40),
            error: None,
            duration: scenario.duration,
        };
        for Point { name, link, endpoint, path } in points {
            let index = taps.taps.len() as u16;
            let (description, node, flow, comment) = match (link, endpoint) {
                (Some(l), _) => {
                    let spec = &scenario.links[l];
                    taps.on_transmit[l].push(index);
                    for (j, other) in scenario.links.iter().enumerate() {
                        if other.from == spec.to && other.to == spec.from {
                            taps.on_arrival[j].push(index);
                        }
                    }
                    let description = format!(
                        "node {}'s interface onto link {} ({} -> {}, {}, {} ms): packets sent on it, stamped when \
                         their transmission starts, and packets received from {} over the reverse link, stamped \
                         on arrival",
                        node_name(spec.from),
                        spec.name,
                        node_name(spec.from),
                        node_name(spec.to),
                        rate_text(spec.rate_bps),
                        spec.delay as f64 / 1e6,
                        node_name(spec.to)
                    );
                    let all: String = metas.iter().map(|m| m.line() + "\n").collect();
                    (description, spec.from as u32, None, all)
                }
                (None, Some((f, sender))) => {
                    let spec = &scenario.flows[f];
                    let node = if sender { spec.src } else { spec.dst };
                    for (j, l) in scenario.links.iter().enumerate() {
                        if l.from == node {
                            taps.on_transmit[j].push(index);
                        }
                        if l.to == node {
                            taps.on_arrival[j].push(index);
                        }
                    }
                    let description = format!(
                        "flow {}'s {} at node {}: its packets sent (stamped when their transmission starts) and \
                         received (stamped on arrival)",
                        spec.name,
                        if sender { "sender" } else { "receiver" },
                        node_name(node)
                    );
                    (description, node as u32, Some(f as u32), metas[f].line() + "\n")
                }
                _ => unreachable!("resolved above"),
            };
            let interface = Interface {
                name: name.clone(),
                description,
                ipv4: Some(node_ip(node)),
                link_type: LINKTYPE_ETHERNET,
                snaplen: options.snaplen,
            };
            let io_error = |e: io::Error| {
                RunError::Capture(io::Error::new(e.kind(), format!("{}: {e}", path.display())))
            };
            let mut file =
                CaptureFile::create(&path, options.format, &(header.clone() + &comment), &[interface])
                    .map_err(io_error)?;
            file.writer().names(&names).map_err(io_error)?;
            taps.taps.push(Tap { file, flow, link });
        }
        Ok(taps)
    }

    /// The files, in the order of the capture points.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.taps.iter().map(|t| t.file.path().to_path_buf()).collect()
    }

    /// Write each file's statistics (capture end = the run's end; a link's queue drops) and put
    /// the files in place. `summary` is the run's.
    pub fn commit(mut self, summary: &Summary) -> io::Result<Vec<PathBuf>> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let mut paths = Vec::new();
        for tap in self.taps {
            let path = tap.file.path().to_path_buf();
            let mut stats = InterfaceStats { start_ns: 0, end_ns: self.duration, ..Default::default() };
            if let Some(l) = tap.link.and_then(|l| summary.links.get(l)) {
                stats.dropped = Some(l.drops_overflow + l.drops_red);
                stats.comment = Some(format!(
                    "link {}: {} packets sent, {} dropped at the queue (overflow {}, RED {}), {} lost on the channel \
                     (errors {}, outages {})",
                    l.name,
                    l.packets_sent,
                    l.drops_overflow + l.drops_red,
                    l.drops_overflow,
                    l.drops_red,
                    l.drops_error + l.drops_outage,
                    l.drops_error,
                    l.drops_outage
                ));
            }
            tap.file
                .commit(&[stats])
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            paths.push(path);
        }
        Ok(paths)
    }

    fn build(&mut self, link_from: u32, link_to: u32, p: &Packet) -> Result<usize, frame::FrameError> {
        let a = Addresses {
            src_mac: node_mac(link_from),
            dst_mac: node_mac(link_to),
            src_ip: node_ip(p.src),
            dst_ip: node_ip(p.dst),
        };
        self.frame.clear();
        let snaplen = self.snaplen;
        match p.kind {
            PacketKind::Datagram => {
                let payload = (p.size as usize).saturating_sub(frame::IPV4_HEADER + frame::UDP_HEADER);
                frame::udp_frame(&mut self.frame, &a, 0, sender_port(p.flow), UDP_PORT, payload, snaplen)
            }
            PacketKind::Data | PacketKind::Ack => {
                let (isn, irn) = initial_sequence(p.flow);
                let window = match p.kind {
                    PacketKind::Data => self.data_window,
                    _ => (p.window >> self.wscale).min(65_535) as u16,
                };
                self.options.clear();
                let header = if p.kind == PacketKind::Data {
                    (p.size as usize).saturating_sub(p.len as usize)
                } else {
                    p.size as usize
                };
                let mut extra = header.saturating_sub(frame::IPV4_HEADER + frame::TCP_HEADER);
                let blocks: Vec<(u32, u32)> = p
                    .sack
                    .iter(p.ack)
                    .map(|(s, e)| {
                        (
                            isn.wrapping_add(1).wrapping_add(s as u32),
                            isn.wrapping_add(1).wrapping_add(e as u32),
                        )
                    })
                    .collect();
                if !blocks.is_empty() {
                    frame::sack_option(&mut self.options, &blocks);
                    extra = extra.saturating_sub(self.options.len());
                }
                let target = (self.options.len() + extra).min(frame::TCP_MAX_OPTIONS);
                frame::pad_options(&mut self.options, target);
                let options = std::mem::take(&mut self.options);
                let h = if p.kind == PacketKind::Data {
                    TcpHeader {
                        src_port: sender_port(p.flow),
                        dst_port: TCP_PORT,
                        seq: isn.wrapping_add(1).wrapping_add(p.seq as u32),
                        ack: irn.wrapping_add(1),
                        flags: if p.push { frame::ACK | frame::PSH } else { frame::ACK },
                        window,
                        options: &options,
                    }
                } else {
                    TcpHeader {
                        src_port: TCP_PORT,
                        dst_port: sender_port(p.flow),
                        seq: irn.wrapping_add(1),
                        ack: isn.wrapping_add(1).wrapping_add(p.ack as u32),
                        flags: frame::ACK,
                        window,
                        options: &options,
                    }
                };
                let payload = if p.kind == PacketKind::Data { p.len as usize } else { 0 };
                let r = frame::tcp_frame(&mut self.frame, &a, 0, &h, payload, snaplen);
                self.options = options;
                r
            }
        }
    }

    fn record(&mut self, link: u32, packet: &Packet, now: Nanos, direction: Direction) {
        let lists = match direction {
            Direction::Outbound => &mut self.on_transmit,
            Direction::Inbound => &mut self.on_arrival,
        };
        if lists[link as usize].is_empty() || self.error.is_some() {
            return;
        }
        let list = std::mem::take(&mut lists[link as usize]);
        self.write(&list, link, packet, now, direction);
        match direction {
            Direction::Outbound => self.on_transmit[link as usize] = list,
            Direction::Inbound => self.on_arrival[link as usize] = list,
        }
    }

    fn write(&mut self, list: &[u16], link: u32, packet: &Packet, now: Nanos, direction: Direction) {
        let wanted = |t: &Tap| t.flow.is_none_or(|f| f == packet.flow && packet.kind != PacketKind::Datagram);
        if !list.iter().any(|&t| wanted(&self.taps[t as usize])) {
            return;
        }
        let (from, to) = self.link_ends[link as usize];
        let len = match self.build(from, to, packet) {
            Ok(len) => len,
            Err(e) => {
                self.error = Some(io::Error::other(format!(
                    "a packet of flow {} cannot be captured: {e}",
                    packet.flow
                )));
                return;
            }
        };
        for &t in list {
            let tap = &mut self.taps[t as usize];
            if !wanted(tap) {
                continue;
            }
            if let Err(e) = tap.file.writer().packet(0, now, &self.frame, len as u32, Some(direction)) {
                self.error = Some(io::Error::new(e.kind(), format!("{}: {e}", tap.file.path().display())));
                return;
            }
        }
    }
}

impl PacketTap for PcapTaps {
    fn transmit(&mut self, link: u32, packet: &Packet, now: Nanos) {
        self.record(link, packet, now, Direction::Outbound);
    }

    fn arrive(&mut self, link: u32, packet: &Packet, now: Nanos) {
        self.record(link, packet, now, Direction::Inbound);
    }

    fn failed(&self) -> bool {
        self.error.is_some()
    }

    fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }
}

/// The section-comment line of every scenario flow and source.
fn flow_metas(scenario: &Scenario, wscale: u8) -> Vec<FlowMeta> {
    let addr = |node: usize, port: u16| Some(std::net::SocketAddr::from((node_ip(node as u32), port)));
    let mut out: Vec<FlowMeta> = scenario
        .flows
        .iter()
        .enumerate()
        .map(|(k, f)| FlowMeta {
            name: f.name.clone(),
            proto: "tcp".into(),
            src: addr(f.src, sender_port(k as u32)),
            dst: addr(f.dst, TCP_PORT),
            cc: Some(f.tcp.cc_name.clone()),
            wscale: Some(wscale),
            first_seq: Some(initial_sequence(k as u32).0.wrapping_add(1)),
        })
        .collect();
    out.extend(scenario.sources.iter().enumerate().map(|(k, s)| FlowMeta {
        name: s.name.clone(),
        proto: "udp".into(),
        src: addr(s.src, sender_port(k as u32)),
        dst: addr(s.dst, UDP_PORT),
        ..Default::default()
    }));
    out
}
