//! What tcptrace reports per TCP connection, from one or more captures: bytes, goodput,
//! retransmitted segments and bytes, RTT samples, out-of-order segments, DUPACK runs, the
//! window and the flight size, with a throughput-over-time series and the points of a
//! time-sequence graph; and, when several captures hold the same connection (a sender-side and
//! a receiver-side capture), one combined row per connection and direction.
//!
//! Each capture is a *vantage point*, analysed on its own, as tcptrace does:
//!
//! * A data segment that starts below the highest sequence number seen so far is a
//!   **retransmission** if any of its bytes were seen before at this vantage point, otherwise
//!   **out of order** (it fills a hole: reordering, or a retransmission of data lost before the
//!   capture point). At the sender this is exactly the sender's count of retransmitted segments.
//! * **RTT samples** are taken when an ACK advances the cumulative ACK: the time from the newest
//!   segment it acknowledges to the ACK, unless a segment it covers was retransmitted (Karn).
//! * A **DUPACK** is a pure ACK (no data, SYN or FIN) that repeats the cumulative ACK with the
//!   same window while data is outstanding (RFC 5681); consecutive DUPACKs form a run.
//! * **bytes_delivered** is what the receiver is known to hold in order: the highest
//!   cumulative ACK, or, where the capture sees the data arrive at their destination (a
//!   pcapng packet marked inbound on an interface with that address, a Linux cooked capture's
//!   "to us"), the in-order data received, whichever is larger.
//! * A connection is **active** from its first packet to its last if it closed (FIN or RST) in
//!   the capture, else to the end of the capture (the pcapng statistics' end time, or the
//!   capture's last packet). goodput = bytes_delivered / active time, throughput = IP bytes of
//!   the data segments / active time.
//!
//! Memory is bounded whatever the input: per connection, the seen sequence ranges (at most
//! [`MAX_RANGES`], the oldest holes forgotten beyond), the segments awaiting an ACK (at most
//! [`MAX_OUTSTANDING`]), and the plot data (binned and decimated to fixed sizes); over the
//! capture, the connections open at once, each reported and forgotten once it is over, all of
//! it within [`Options::max_memory`] (`stream.rs`).

use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::Serialize;

use crate::frame::{FIN, RST, SYN};

mod stream;

pub use stream::{
    analyze_capture, analyze_files, stream_capture, stream_files, Event, Sink, CLOSED_LINGER_NS,
    DEFAULT_MAX_MEMORY, DEFAULT_MAX_PLOTTED, IDLE_NS,
};

/// Seen-sequence ranges kept per direction; beyond, the lowest hole is forgotten (filled).
pub const MAX_RANGES: usize = 4096;
/// Segments awaiting an ACK kept per direction (for RTT samples); beyond, the oldest go.
pub const MAX_OUTSTANDING: usize = 1 << 18;

/// The columns of a connection row (`westwood analyze`'s tables), in order: first the flow
/// columns of `westwood run` (`westwood_simulator::results::columns::FLOW_COLUMNS`) whose
/// quantity is the same, in their order; then the analysis' own. Each is a field of
/// [`Connection`] but `start_seconds` and `end_seconds` (`first_ns`, `end_ns` in seconds).
pub const COLUMNS: &[&str] = &[
    "name",
    "cc",
    "src",
    "dst",
    "goodput_bps",
    "throughput_bps",
    "bytes_delivered",
    "segments_sent",
    "retransmits",
    "active_seconds",
    "min_rtt_seconds",
    "segment_size",
    "retransmitted_bytes",
    "mean_rtt_seconds",
    "max_rtt_seconds",
    "rtt_samples",
    "out_of_order",
    "dupacks",
    "dupack_runs",
    "dupack_runs_3",
    "max_dupack_run",
    "max_flight_bytes",
    "mean_flight_bytes",
    "min_window_bytes",
    "max_window_bytes",
    "window_scale_known",
    "unique_bytes",
    "data_bytes",
    "wire_bytes",
    "ack_packets",
    "sack_packets",
    "vantage",
    "capture",
    "src_addr",
    "src_port",
    "dst_addr",
    "dst_port",
    "start_seconds",
    "end_seconds",
    "closed",
    "syn_seen",
];

/// The columns of a UDP flow row: fields of [`UdpFlow`] but `start_seconds` and `end_seconds`.
pub const UDP_COLUMNS: &[&str] = &[
    "name",
    "src",
    "dst",
    "src_port",
    "dst_port",
    "packets",
    "payload_bytes",
    "wire_bytes",
    "rate_bps",
    "start_seconds",
    "end_seconds",
    "capture",
];

#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// Most bins of the throughput-over-time series (they double in width to fit).
    pub max_bins: usize,
    /// Most points per kind (new data, ACKs) of the time-sequence graph (decimated to fit).
    pub max_points: usize,
    /// Width of a throughput bin to start with, ns.
    pub bin_ns: i64,
    /// Rows whose plot data are kept (the ones with the most data; 0: none).
    pub max_plotted: usize,
    /// Bytes the analysis may hold: the connections and UDP flows open at once, the rows to
    /// plot, and with several captures the rows kept to combine them. Beyond, it stops with an
    /// error that names this bound.
    pub max_memory: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_bins: 2000,
            max_points: 20_000,
            bin_ns: 10_000_000,
            max_plotted: DEFAULT_MAX_PLOTTED,
            max_memory: DEFAULT_MAX_MEMORY,
        }
    }
}

/// One capture file, as read.
#[derive(Debug, Clone, Serialize, Default)]
pub struct CaptureSummary {
    pub file: String,
    pub interfaces: Vec<InterfaceSummary>,
    pub packets: u64,
    pub tcp_packets: u64,
    pub udp_packets: u64,
    pub other_packets: u64,
    pub not_ip: u64,
    pub truncated: u64,
    pub fragments: u64,
    /// Frames whose headers cannot be true ([`Skip::Malformed`]): left out.
    pub malformed: u64,
    pub unknown_link_types: Vec<u16>,
    pub first_ns: Option<i64>,
    pub last_ns: Option<i64>,
    /// When the capture ended: the latest interface statistics' end time, else `last_ns`.
    pub end_ns: Option<i64>,
    pub comments: Vec<String>,
    pub warnings: Vec<String>,
    /// Every IP packet by source address: packets and IP bytes (at most [`MAX_HOSTS`]
    /// addresses; later ones are counted under `other`).
    pub hosts: Vec<HostCount>,
}

/// The longest TCP payload a link's frame carries: a 9 000-byte jumbo frame less 40 bytes of
/// headers. A longer one was merged by the capturing host (TSO/GSO, GRO).
pub const MAX_WIRE_SEGMENT: u64 = 8_960;

/// The TTLs (IPv6 hop limits) hosts send with: Linux, BSD and macOS 64, Windows 128, routers
/// and Solaris 255, some old stacks 32.
pub const INITIAL_TTLS: [u8; 4] = [32, 64, 128, 255];

/// Source addresses counted per capture.
pub const MAX_HOSTS: usize = 10_000;

#[derive(Debug, Clone, Serialize, Default)]
pub struct HostCount {
    pub addr: String,
    pub packets: u64,
    pub ip_bytes: u64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct InterfaceSummary {
    pub name: String,
    pub description: String,
    pub link_type: u16,
    pub snaplen: u32,
    pub ipv4: Option<String>,
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    /// Packets the interface dropped (a link's queue), and the capture lost.
    pub dropped: Option<u64>,
    pub capture_dropped: Option<u64>,
}

/// One direction of data of one TCP connection, at one vantage point (or combined).
#[derive(Debug, Clone, Serialize, Default)]
pub struct Connection {
    /// The flow's name (from the capture's metadata), else `SRC:PORT>DST:PORT`.
    pub name: String,
    pub cc: Option<String>,
    /// Capture file(s) this row comes from.
    pub capture: String,
    /// Node names where the capture names the addresses, else the addresses.
    pub src: String,
    pub dst: String,
    pub src_addr: String,
    pub src_port: u16,
    pub dst_addr: String,
    pub dst_port: u16,
    pub first_ns: i64,
    pub last_ns: i64,
    pub end_ns: i64,
    /// When its first data segment was seen, if any.
    pub first_data_ns: Option<i64>,
    pub closed: bool,
    pub syn_seen: bool,
    pub active_seconds: f64,
    pub bytes_delivered: u64,
    pub goodput_bps: f64,
    pub throughput_bps: f64,
    /// Data segments (with payload), retransmissions included.
    pub segments_sent: u64,
    pub data_bytes: u64,
    /// IP bytes of the data segments (headers and retransmissions included).
    pub wire_bytes: u64,
    pub unique_bytes: u64,
    pub retransmits: u64,
    pub retransmitted_bytes: u64,
    pub out_of_order: u64,
    pub segment_size: u64,
    pub ack_packets: u64,
    pub sack_packets: u64,
    pub dupacks: u64,
    pub dupack_runs: u64,
    /// Runs of three or more DUPACKs (what triggers a fast retransmit).
    pub dupack_runs_3: u64,
    pub max_dupack_run: u64,
    pub rtt_samples: u64,
    pub min_rtt_seconds: f64,
    pub mean_rtt_seconds: f64,
    pub max_rtt_seconds: f64,
    /// Flight size (highest sequence sent minus the cumulative ACK), at each data segment.
    pub max_flight_bytes: u64,
    pub mean_flight_bytes: f64,
    /// The receiver's advertised window (scaled when the scale is known).
    pub min_window_bytes: u64,
    pub max_window_bytes: u64,
    pub window_scale_known: bool,
    /// Where the capture point is: `sender` (data leave from there), `receiver` (data arrive
    /// there), or `path`.
    pub vantage: String,
    /// Throughput over time: where the bins start, their width and, per bin, payload bytes sent
    /// (retransmissions included) and bytes newly acknowledged.
    pub bin_start_ns: i64,
    pub bin_seconds: f64,
    pub sent_per_bin: Vec<u64>,
    pub acked_per_bin: Vec<u64>,
    /// Time-sequence graph (relative to the first byte): data segments `(seconds, start, end)`,
    /// retransmitted ones apart, and ACKs `(seconds, ack, ack + window)`.
    pub tseq_data: Vec<(f64, i64, i64)>,
    pub tseq_retransmits: Vec<(f64, i64, i64)>,
    pub tseq_acks: Vec<(f64, i64, i64)>,
    /// Every point kept (false: decimated for plotting).
    pub tseq_complete: bool,
}

/// A UDP flow (one direction).
#[derive(Debug, Clone, Serialize, Default)]
pub struct UdpFlow {
    pub name: String,
    pub capture: String,
    pub src: String,
    pub dst: String,
    pub src_port: u16,
    pub dst_port: u16,
    pub packets: u64,
    pub payload_bytes: u64,
    pub wire_bytes: u64,
    pub first_ns: i64,
    pub last_ns: i64,
    pub rate_bps: f64,
}

#[derive(Debug, Clone, Serialize, Default)]
pub struct Analysis {
    pub captures: Vec<CaptureSummary>,
    /// Per capture and connection direction.
    pub connections: Vec<Connection>,
    /// One row per connection direction over all captures (equal to `connections` with one
    /// capture).
    pub flows: Vec<Connection>,
    pub udp: Vec<UdpFlow>,
}

// --- per direction state ----------------------------------------------------------------------

/// A 32-bit sequence space unwrapped to 64 bits around its first value.
#[derive(Debug, Clone, Copy, Default)]
struct SeqSpace {
    /// (raw, unwrapped) of the highest value seen: the reference for the next.
    reference: Option<(u32, i64)>,
    /// Where the flow's first data byte is, if known (SYN or metadata).
    origin: Option<i64>,
    lowest: i64,
}

impl SeqSpace {
    fn unwrap(&mut self, raw: u32) -> i64 {
        match self.reference {
            None => {
                self.reference = Some((raw, 0));
                self.lowest = 0;
                0
            }
            Some((r, v)) => {
                let x = v + i64::from(raw.wrapping_sub(r) as i32);
                if x > v {
                    self.reference = Some((raw, x));
                }
                self.lowest = self.lowest.min(x);
                x
            }
        }
    }

    fn origin(&self) -> i64 {
        self.origin.unwrap_or(self.lowest)
    }
}

/// A B-tree map of ranges: one leaf node to start with, then about two entries' room per entry.
const RANGES_NODE_BYTES: u64 = 200;
const RANGE_BYTES: u64 = 32;

/// Byte ranges seen, merged; bounded by forgetting the lowest holes.
#[derive(Debug, Clone, Default)]
struct Ranges(BTreeMap<i64, i64>);

impl Ranges {
    /// Bytes of `[s, e)` already present.
    fn overlap(&self, s: i64, e: i64) -> i64 {
        let mut n = 0;
        // A range starting before s may reach into [s, e).
        if let Some((_, &end)) = self.0.range(..s).next_back() {
            n += end.min(e) - s;
            n = n.max(0);
        }
        for (&a, &b) in self.0.range(s..e) {
            n += b.min(e) - a;
        }
        n
    }

    fn insert(&mut self, mut s: i64, mut e: i64) {
        if s >= e {
            return;
        }
        if let Some((&a, &b)) = self.0.range(..=s).next_back() {
            if b >= s {
                s = a;
                e = e.max(b);
                self.0.remove(&a);
            }
        }
        let covered: Vec<(i64, i64)> = self.0.range(s..=e).map(|(&a, &b)| (a, b)).collect();
        for (a, b) in covered {
            e = e.max(b);
            self.0.remove(&a);
        }
        self.0.insert(s, e);
        while self.0.len() > MAX_RANGES {
            // Forget the lowest hole: merge the two lowest ranges.
            let mut it = self.0.iter();
            let (&a, _) = it.next().expect("non-empty");
            let (&c, &d) = it.next().expect("two");
            self.0.remove(&a);
            self.0.remove(&c);
            self.0.insert(a, d);
        }
    }

    /// End of the range holding `x`, if any.
    fn end_of_range_holding(&self, x: i64) -> Option<i64> {
        self.0.range(..=x).next_back().filter(|(_, &b)| b > x).map(|(_, &b)| b)
    }
}

/// Points decimated to at most 2 × `cap`.
#[derive(Debug, Clone)]
struct Decimator {
    points: Vec<(i64, i64, i64)>,
    stride: u64,
    count: u64,
    cap: usize,
}

impl Decimator {
    fn new(cap: usize) -> Self {
        Decimator { points: Vec::new(), stride: 1, count: 0, cap: cap.max(2) }
    }

    fn push(&mut self, p: (i64, i64, i64)) {
        if self.count.is_multiple_of(self.stride) {
            self.points.push(p);
            if self.points.len() >= 2 * self.cap {
                let mut i = 0;
                self.points.retain(|_| {
                    i += 1;
                    i % 2 == 1
                });
                self.stride *= 2;
            }
        }
        self.count += 1;
    }
}

/// Per-bin sums, bins doubling in width to stay below `max` bins.
#[derive(Debug, Clone)]
struct Bins {
    width: i64,
    origin: Option<i64>,
    sent: Vec<u64>,
    acked: Vec<u64>,
    max: usize,
}

impl Bins {
    fn new(width: i64, max: usize) -> Self {
        Bins { width: width.max(1), origin: None, sent: Vec::new(), acked: Vec::new(), max: max.max(2) }
    }

    fn index(&mut self, t: i64) -> usize {
        let origin = *self.origin.get_or_insert(t);
        let mut i = ((t - origin).max(0) / self.width) as usize;
        while i >= self.max {
            for v in [&mut self.sent, &mut self.acked] {
                let merged: Vec<u64> = v.chunks(2).map(|c| c.iter().sum()).collect();
                *v = merged;
            }
            self.width *= 2;
            i = ((t - origin).max(0) / self.width) as usize;
        }
        if self.sent.len() <= i {
            self.sent.resize(i + 1, 0);
            self.acked.resize(i + 1, 0);
        }
        i
    }

    fn add(&mut self, t: i64, sent: u64, acked: u64) {
        let i = self.index(t);
        self.sent[i] += sent;
        self.acked[i] += acked;
    }
}

#[derive(Debug, Clone, Copy)]
struct Outstanding {
    end: i64,
    sent_ns: i64,
    retransmitted: bool,
}

/// One direction of a connection at one vantage point: its data, and the ACKs for them.
#[derive(Debug, Clone)]
struct Half {
    space: SeqSpace,
    seen: Ranges,
    max_end: Option<i64>,
    outstanding: VecDeque<Outstanding>,
    bins: Bins,
    tseq_data: Decimator,
    tseq_acks: Decimator,
    tseq_retransmits: Vec<(i64, i64, i64)>,
    retransmits_dropped: bool,
    /// Plot data are recorded ([`Options::max_plotted`] above 0).
    series: bool,
    syn: bool,
    fin: bool,
    /// Where this direction's FIN sits (relative), which an ACK covers without it being data.
    fin_at: Option<i64>,
    rst: bool,
    segments: u64,
    data_bytes: u64,
    wire_bytes: u64,
    retransmits: u64,
    retransmitted_bytes: u64,
    out_of_order: u64,
    max_segment: u64,
    first_data_ns: Option<i64>,
    // Seen as sent by the vantage host / received by it.
    outbound_at_src: bool,
    inbound_at_dst: bool,
    /// Some data segment came with its direction (pcapng flags, a Linux cooked header).
    direction_known: bool,
    /// The highest TTL (hop limit) of this direction's data, and of the ACKs for them.
    data_ttl: Option<u8>,
    ack_ttl: Option<u8>,
    // ACKs (from the other side).
    acks: u64,
    sack_packets: u64,
    highest_ack: Option<i64>,
    last_window: Option<u64>,
    dupacks: u64,
    run: u64,
    runs: u64,
    runs_3: u64,
    max_run: u64,
    rtt: (u64, i64, i64, i128),
    /// RTT samples that came out negative (an ACK timestamped before the data it covers: the
    /// capture's clock stepped back, or a merged capture's clocks disagree): dropped.
    negative_rtt_samples: u64,
    flight: (u64, u64, u128),
    window: (Option<u64>, u64),
    /// The receiver's window scale (from its SYN, or the metadata).
    wscale: Option<u8>,
}

impl Half {
    fn new(o: &Options) -> Self {
        Half {
            space: SeqSpace::default(),
            seen: Ranges::default(),
            max_end: None,
            outstanding: VecDeque::new(),
            bins: Bins::new(o.bin_ns, o.max_bins),
            tseq_data: Decimator::new(o.max_points),
            tseq_acks: Decimator::new(o.max_points),
            tseq_retransmits: Vec::new(),
            retransmits_dropped: false,
            series: o.max_plotted > 0,
            syn: false,
            fin: false,
            fin_at: None,
            rst: false,
            segments: 0,
            data_bytes: 0,
            wire_bytes: 0,
            retransmits: 0,
            retransmitted_bytes: 0,
            out_of_order: 0,
            max_segment: 0,
            first_data_ns: None,
            outbound_at_src: false,
            inbound_at_dst: false,
            direction_known: false,
            data_ttl: None,
            ack_ttl: None,
            acks: 0,
            sack_packets: 0,
            highest_ack: None,
            last_window: None,
            dupacks: 0,
            run: 0,
            runs: 0,
            runs_3: 0,
            max_run: 0,
            rtt: (0, i64::MAX, 0, 0),
            negative_rtt_samples: 0,
            flight: (0, 0, 0),
            window: (None, 0),
            wscale: None,
        }
    }

    /// Where the capture point is, for this direction's data: `sender` (they leave from there),
    /// `receiver` (they arrive there), `path` (in between), or `unknown`. From the packets'
    /// directions where the capture records them; else from their TTLs: a host sends with one
    /// of the usual initial TTLs ([`INITIAL_TTLS`]) and each router takes one off, so data
    /// with an initial TTL and ACKs without one were captured at the sender (the other way
    /// round, at the receiver; neither, on the path). Where both are initial (one host, or a
    /// LAN without a router) the capture does not show it.
    fn vantage(&self) -> &'static str {
        if self.outbound_at_src {
            return "sender";
        }
        if self.inbound_at_dst {
            return "receiver";
        }
        if self.direction_known {
            return "path";
        }
        let (Some(data), Some(ack)) = (self.data_ttl, self.ack_ttl) else { return "unknown" };
        match (INITIAL_TTLS.contains(&data), INITIAL_TTLS.contains(&ack)) {
            (true, false) => "sender",
            (false, true) => "receiver",
            (false, false) => "path",
            (true, true) => "unknown",
        }
    }

    /// What its collections allocated, about (a B-tree's nodes are estimated).
    fn heap_bytes(&self) -> u64 {
        let point = std::mem::size_of::<(i64, i64, i64)>();
        let points = self.tseq_data.points.capacity()
            + self.tseq_acks.points.capacity()
            + self.tseq_retransmits.capacity();
        let ranges = if self.seen.0.is_empty() {
            0
        } else {
            RANGES_NODE_BYTES + RANGE_BYTES * self.seen.0.len() as u64
        };
        (self.outstanding.capacity() * std::mem::size_of::<Outstanding>()
            + points * point
            + (self.bins.sent.capacity() + self.bins.acked.capacity()) * 8) as u64
            + ranges
    }

    fn end_run(&mut self) {
        if self.run > 0 {
            self.runs += 1;
            if self.run >= 3 {
                self.runs_3 += 1;
            }
            self.max_run = self.max_run.max(self.run);
            self.run = 0;
        }
    }

    /// A segment of this direction: `payload` bytes at raw sequence `seq`.
    fn data(&mut self, t: i64, seq: u32, flags: u8, payload: u32, ip_len: u32, max_points: usize) {
        if flags & SYN != 0 {
            self.syn = true;
            let s = self.space.unwrap(seq);
            if self.space.origin.is_none() {
                self.space.origin = Some(s + 1);
            }
        }
        if flags & RST != 0 {
            self.rst = true;
        }
        let raw = if flags & SYN != 0 { seq.wrapping_add(1) } else { seq };
        if flags & FIN != 0 {
            self.fin = true;
            let at = self.space.unwrap(raw) + i64::from(payload);
            self.fin_at = Some(self.fin_at.map_or(at, |f| f.min(at)));
        }
        if payload == 0 {
            return;
        }
        let s = self.space.unwrap(raw);
        let n = i64::from(payload);
        let e = s + n;
        self.segments += 1;
        self.data_bytes += u64::from(payload);
        self.wire_bytes += u64::from(ip_len);
        self.max_segment = self.max_segment.max(u64::from(payload));
        self.first_data_ns.get_or_insert(t);
        if self.series {
            self.bins.add(t, u64::from(payload), 0);
        }
        let max_end = self.max_end.unwrap_or(s);
        let mut retransmission = false;
        if s < max_end {
            if self.seen.overlap(s, e.min(max_end)) > 0 {
                retransmission = true;
                self.retransmits += 1;
                self.retransmitted_bytes += u64::from(payload);
                // Karn: the segments it covers give no RTT sample.
                let mut i = self.outstanding.partition_point(|o| o.end <= s);
                while i < self.outstanding.len() {
                    let prev_end = if i == 0 { i64::MIN } else { self.outstanding[i - 1].end };
                    if prev_end >= e {
                        break;
                    }
                    self.outstanding[i].retransmitted = true;
                    i += 1;
                }
            } else {
                self.out_of_order += 1;
                // It fills a hole (data lost before this capture point, then resent): the ACK
                // that jumps over the hole covers the first segment above it, and says nothing
                // of that segment's RTT (as Karn's rule says at the sender).
                let i = self.outstanding.partition_point(|o| o.end <= s);
                if let Some(o) = self.outstanding.get_mut(i) {
                    o.retransmitted = true;
                }
            }
        }
        if e > max_end || self.max_end.is_none() {
            if self.acks > 0 || self.highest_ack.is_some() || self.outstanding.len() < MAX_OUTSTANDING {
                self.outstanding.push_back(Outstanding { end: e, sent_ns: t, retransmitted: s < max_end });
                if self.outstanding.len() > MAX_OUTSTANDING {
                    self.outstanding.pop_front();
                }
            }
            self.max_end = Some(e);
        }
        self.seen.insert(s, e);
        if let Some(a) = self.highest_ack {
            let flight = (self.max_end.unwrap_or(e) - a).max(0) as u64;
            self.flight.0 += 1;
            self.flight.1 = self.flight.1.max(flight);
            self.flight.2 += u128::from(flight);
        }
        if !self.series {
            return;
        }
        if retransmission {
            if self.tseq_retransmits.len() < 2 * max_points {
                self.tseq_retransmits.push((t, s, e));
            } else {
                self.retransmits_dropped = true;
            }
        } else {
            self.tseq_data.push((t, s, e));
        }
    }

    /// An ACK for this direction's data, sent by the other side.
    fn ack(&mut self, t: i64, ack: u32, window: u16, pure: bool, sack: bool) {
        let a = self.space.unwrap(ack);
        self.acks += 1;
        if sack {
            self.sack_packets += 1;
        }
        let scaled = u64::from(window) << self.wscale.unwrap_or(0);
        self.window.0 = Some(self.window.0.map_or(scaled, |m| m.min(scaled)));
        self.window.1 = self.window.1.max(scaled);
        match self.highest_ack {
            Some(h) if a > h => self.advance(t, a, h),
            None => {
                self.highest_ack = Some(a);
                // The first ACK seen acknowledges what was sent before, if we saw it.
                self.pop_acked(t, a);
            }
            Some(h) if a == h && pure => {
                let outstanding = self.max_end.is_none_or(|m| m > a);
                if outstanding && self.last_window == Some(scaled) {
                    self.dupacks += 1;
                    self.run += 1;
                }
            }
            Some(_) => {}
        }
        self.last_window = Some(scaled);
        if self.series {
            self.tseq_acks.push((t, a, a + scaled as i64));
        }
    }

    fn advance(&mut self, t: i64, a: i64, previous: i64) {
        self.end_run();
        if self.series {
            self.bins.add(t, 0, (a - previous) as u64);
        }
        self.highest_ack = Some(a);
        self.pop_acked(t, a);
    }

    /// Remove the segments `a` covers; an RTT sample from the newest unless one was
    /// retransmitted.
    fn pop_acked(&mut self, t: i64, a: i64) {
        let mut newest = None;
        let mut ambiguous = false;
        while let Some(o) = self.outstanding.front() {
            if o.end > a {
                break;
            }
            ambiguous |= o.retransmitted;
            newest = Some(o.sent_ns);
            self.outstanding.pop_front();
        }
        if let (Some(sent), false) = (newest, ambiguous) {
            let rtt = t - sent;
            if rtt < 0 {
                self.negative_rtt_samples += 1;
                return;
            }
            let r = &mut self.rtt;
            r.0 += 1;
            r.1 = r.1.min(rtt);
            r.2 = r.2.max(rtt);
            r.3 += i128::from(rtt);
        }
    }
}

/// One row per connection direction over the captures that hold it (see the module's doc).
pub fn combine(rows: &[Connection]) -> Vec<Connection> {
    let mut groups: Vec<Vec<&Connection>> = Vec::new();
    let mut index: HashMap<(String, u16, String, u16), usize> = HashMap::new();
    for r in rows {
        let k = (r.src_addr.clone(), r.src_port, r.dst_addr.clone(), r.dst_port);
        match index.get(&k) {
            Some(&i) => groups[i].push(r),
            None => {
                index.insert(k, groups.len());
                groups.push(vec![r]);
            }
        }
    }
    groups
        .into_iter()
        .map(|mut g| {
            if g.len() == 1 {
                return g[0].clone();
            }
            // Sender first, receiver last, whatever the order of the files.
            let rank = |c: &&Connection| match c.vantage.as_str() {
                "sender" => 0,
                "receiver" => 2,
                _ => 1,
            };
            g.sort_by_key(rank);
            // The vantage nearest the sender: marked so, else the one whose data came first.
            let first_data = |c: &&Connection| c.first_data_ns.unwrap_or(i64::MAX);
            let sender = *g
                .iter()
                .find(|c| c.vantage == "sender")
                .unwrap_or_else(|| g.iter().min_by_key(|c| first_data(c)).expect("two"));
            let receiver = g.iter().find(|c| c.vantage == "receiver").copied();
            let mut out = sender.clone();
            out.capture = g.iter().map(|c| c.capture.as_str()).collect::<Vec<_>>().join(" + ");
            out.first_ns = g.iter().map(|c| c.first_ns).min().expect("rows");
            out.last_ns = g.iter().map(|c| c.last_ns).max().expect("rows");
            out.end_ns = g.iter().map(|c| c.end_ns).max().expect("rows");
            out.closed = g.iter().any(|c| c.closed);
            out.syn_seen = g.iter().any(|c| c.syn_seen);
            out.active_seconds = (out.end_ns - out.first_ns) as f64 / 1e9;
            out.bytes_delivered = g.iter().map(|c| c.bytes_delivered).max().expect("rows");
            let through = receiver.unwrap_or(sender);
            let rate = |bytes: u64| {
                if out.active_seconds > 0.0 {
                    bytes as f64 * 8.0 / out.active_seconds
                } else {
                    0.0
                }
            };
            out.goodput_bps = rate(out.bytes_delivered);
            out.throughput_bps = rate(through.wire_bytes);
            if let Some(r) = receiver {
                out.out_of_order = r.out_of_order;
            }
            out.vantage = g.iter().map(|c| c.vantage.as_str()).collect::<Vec<_>>().join(" + ");
            out
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::stream::has_series;
    use super::*;
    use crate::frame::{self, Addresses, TcpHeader};
    use crate::write::Direction;
    use crate::write::{CaptureWriter, Format, Interface, InterfaceStats, LINKTYPE_ETHERNET};

    const A: Addresses =
        Addresses { src_mac: [2; 6], dst_mac: [4; 6], src_ip: [10, 0, 0, 1], dst_ip: [10, 0, 0, 2] };
    const B: Addresses =
        Addresses { src_mac: [4; 6], dst_mac: [2; 6], src_ip: [10, 0, 0, 2], dst_ip: [10, 0, 0, 1] };

    struct Cap {
        w: CaptureWriter<Vec<u8>>,
        buf: Vec<u8>,
    }

    impl Cap {
        fn new(ipv4: Option<[u8; 4]>) -> Cap {
            let i = Interface {
                name: "x".into(),
                description: String::new(),
                ipv4,
                link_type: LINKTYPE_ETHERNET,
                snaplen: 128,
            };
            Cap { w: CaptureWriter::new(Vec::new(), Format::Pcapng, "", &[i]).unwrap(), buf: Vec::new() }
        }

        fn data(&mut self, ms: i64, seq: u32, len: usize, dir: Option<Direction>) {
            let h = TcpHeader {
                src_port: 1000,
                dst_port: 5001,
                seq: 1_000 + seq,
                ack: 1,
                flags: frame::ACK,
                window: 100,
                options: &[],
            };
            self.buf.clear();
            let n = frame::tcp_frame(&mut self.buf, &A, 0, &h, len, 128).unwrap();
            self.w.packet(0, (ms * 1_000_000) as u64, &self.buf, n as u32, dir).unwrap();
        }

        fn ack(&mut self, ms: i64, ack: u32, dir: Option<Direction>) {
            let h = TcpHeader {
                src_port: 5001,
                dst_port: 1000,
                seq: 1,
                ack: 1_000 + ack,
                flags: frame::ACK,
                window: 100,
                options: &[],
            };
            self.buf.clear();
            let n = frame::tcp_frame(&mut self.buf, &B, 0, &h, 0, 128).unwrap();
            self.w.packet(0, (ms * 1_000_000) as u64, &self.buf, n as u32, dir).unwrap();
        }

        fn analyze(self, end_ms: u64) -> (CaptureSummary, Vec<Connection>) {
            let bytes = self
                .w
                .finish(&[InterfaceStats { start_ns: 0, end_ns: end_ms * 1_000_000, ..Default::default() }])
                .unwrap();
            let (s, c, _) = analyze_capture(&bytes[..], "t", &Options::default(), &|| false).unwrap();
            (s, c)
        }
    }

    #[test]
    fn retransmissions_rtt_and_dupacks_at_the_sender() {
        use Direction::{Inbound as I, Outbound as O};
        let mut c = Cap::new(Some([10, 0, 0, 1]));
        // Four segments; the second is lost; three DUPACKs; fast retransmit; a cumulative ACK.
        c.data(0, 0, 100, Some(O));
        c.data(1, 100, 100, Some(O));
        c.data(2, 200, 100, Some(O));
        c.data(3, 300, 100, Some(O));
        c.data(4, 400, 100, Some(O));
        c.ack(50, 100, Some(I)); // RTT 50 ms (segment 0)
        c.ack(52, 100, Some(I));
        c.ack(53, 100, Some(I));
        c.ack(54, 100, Some(I));
        c.data(54, 100, 100, Some(O)); // retransmission
        c.ack(104, 500, Some(I)); // covers the retransmitted segment: no sample
        c.data(105, 500, 100, Some(O));
        c.ack(160, 600, Some(I)); // RTT 55 ms
        let (_, rows) = c.analyze(1000);
        assert_eq!(rows.len(), 1);
        let r = &rows[0];
        assert_eq!((r.segments_sent, r.retransmits, r.retransmitted_bytes, r.out_of_order), (7, 1, 100, 0));
        assert_eq!((r.dupacks, r.dupack_runs, r.dupack_runs_3, r.max_dupack_run), (3, 1, 1, 3));
        assert_eq!(r.rtt_samples, 2);
        assert!((r.min_rtt_seconds - 0.050).abs() < 1e-12 && (r.max_rtt_seconds - 0.055).abs() < 1e-12);
        assert_eq!((r.bytes_delivered, r.unique_bytes), (600, 600));
        assert_eq!(r.vantage, "sender");
        assert!((r.active_seconds - 1.0).abs() < 1e-12, "open: until the capture's end");
        assert!((r.goodput_bps - 4800.0).abs() < 1e-9);
        assert_eq!(r.max_flight_bytes, 400);
    }

    #[test]
    fn the_receiver_counts_in_order_data_and_sees_holes_filled_out_of_order() {
        use Direction::{Inbound as I, Outbound as O};
        let mut c = Cap::new(Some([10, 0, 0, 2]));
        c.data(10, 0, 100, Some(I));
        c.ack(10, 100, Some(O));
        c.data(11, 200, 100, Some(I)); // 100..200 lost upstream
        c.ack(11, 100, Some(O));
        c.data(60, 100, 100, Some(I)); // the retransmission fills the hole
        c.data(61, 300, 100, Some(I)); // delivered, not yet acknowledged (delayed ACK)
        let (_, rows) = c.analyze(100);
        let r = &rows[0];
        assert_eq!(r.vantage, "receiver");
        assert_eq!((r.retransmits, r.out_of_order), (0, 1));
        assert_eq!(r.bytes_delivered, 400, "in-order data beyond the last ACK");
    }

    #[test]
    fn super_segments_are_warned_about() {
        let mut c = Cap::new(None);
        c.data(0, 0, 100, None);
        c.ack(40, 100, None);
        let (s, _) = c.analyze(100);
        assert!(s.warnings.iter().all(|w| !w.contains("super-segments")), "{:?}", s.warnings);
        let mut c = Cap::new(None);
        c.data(0, 0, 65_000, None); // what GRO hands a veth capture
        c.ack(40, 65_000, None);
        let (s, rows) = c.analyze(100);
        assert_eq!(rows[0].segment_size, 65_000);
        assert!(
            s.warnings.iter().any(|w| w.starts_with("segments of up to 65000 bytes")),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn an_ack_timestamped_before_its_data_gives_no_sample_and_a_warning() {
        // A capture whose clock stepped back 480 ms between a segment and its ACK once gave a
        // minimum RTT of -480 ms.
        let mut c = Cap::new(None);
        c.data(500, 0, 100, None);
        c.ack(20, 100, None);
        c.data(600, 100, 100, None);
        c.ack(650, 200, None); // RTT 50 ms
        let (s, rows) = c.analyze(1000);
        let r = &rows[0];
        assert_eq!(r.rtt_samples, 1);
        assert!((r.min_rtt_seconds - 0.050).abs() < 1e-12, "{}", r.min_rtt_seconds);
        assert!(
            s.warnings.iter().any(|w| w.starts_with("1 RTT sample(s) came out negative")),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn an_ack_over_a_filled_hole_gives_no_rtt_sample() {
        // On the path: segment 100..200 was lost before this point and comes back later.
        let mut c = Cap::new(None);
        c.data(0, 0, 100, None);
        c.data(1, 200, 100, None);
        c.ack(40, 100, None); // RTT 40 ms
        c.ack(41, 100, None);
        c.data(300, 100, 100, None); // fills the hole: out of order here
        c.ack(340, 300, None); // covers 200..300, which waited for the hole
        let (_, rows) = c.analyze(1000);
        let r = &rows[0];
        assert_eq!((r.out_of_order, r.retransmits, r.rtt_samples), (1, 0, 1));
        assert!((r.max_rtt_seconds - 0.040).abs() < 1e-12);
    }

    /// A one-segment exchange without direction information, the data and the ACK sent with
    /// these TTLs: the vantage the analysis names.
    fn vantage_with_ttls(data_ttl: u8, ack_ttl: u8) -> String {
        let mut c = Cap::new(None);
        c.data(0, 0, 100, None);
        c.ack(40, 100, None);
        let mut bytes = c.w.finish(&[]).unwrap();
        // Each record: the frame after the enhanced packet block's 28 bytes; the TTL is byte 22
        // of an Ethernet frame. Patch the two packets in place.
        let mut ttls = [data_ttl, ack_ttl].into_iter();
        let mut at = 0;
        while at + 12 <= bytes.len() {
            let kind = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
            let len = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
            if kind == 6 {
                bytes[at + 28 + 22] = ttls.next().unwrap();
            }
            at += len;
        }
        let (_, rows, _) = analyze_capture(&bytes[..], "t", &Options::default(), &|| false).unwrap();
        rows[0].vantage.clone()
    }

    #[test]
    fn without_directions_the_ttls_say_where_the_capture_was() {
        // Linux sends with 64: its own data leave with 64, ACKs from 3 routers away come with 61.
        assert_eq!(vantage_with_ttls(64, 61), "sender");
        assert_eq!(vantage_with_ttls(50, 128), "receiver", "a Windows receiver's ACKs");
        assert_eq!(vantage_with_ttls(60, 120), "path", "both have passed routers");
        assert_eq!(vantage_with_ttls(64, 64), "unknown", "one host, or a LAN: nothing shows");
    }

    #[test]
    fn an_address_named_twice_takes_its_last_name() {
        let mut c = Cap::new(None);
        c.w.names(&[([10, 0, 0, 1], "first".into()), ([10, 0, 0, 1], "sender".into())]).unwrap();
        for k in 0..3 {
            c.data(k, 100 * k as u32, 100, None);
        }
        let (_, rows) = c.analyze(10);
        assert_eq!(rows[0].src, "sender");
    }

    #[test]
    fn the_columns_are_the_rows_fields() {
        let derived = ["start_seconds", "end_seconds"];
        let conn = serde_json::to_value(Connection::default()).unwrap();
        for c in COLUMNS {
            assert!(conn.get(c).is_some() || derived.contains(c), "{c}");
        }
        let udp = serde_json::to_value(UdpFlow::default()).unwrap();
        for c in UDP_COLUMNS {
            assert!(udp.get(c).is_some() || derived.contains(c), "{c}");
        }
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut s = SeqSpace::default();
        assert_eq!(s.unwrap(u32::MAX - 9), 0);
        assert_eq!(s.unwrap(10), 20);
        assert_eq!(s.unwrap(u32::MAX - 19), -10);
        assert_eq!(s.unwrap(30), 40);
    }

    #[test]
    fn ranges_merge_and_stay_bounded() {
        let mut r = Ranges::default();
        r.insert(0, 10);
        r.insert(20, 30);
        assert_eq!(r.overlap(5, 25), 10);
        r.insert(10, 20);
        assert_eq!(r.0.len(), 1);
        assert_eq!(r.end_of_range_holding(0), Some(30));
        let mut r = Ranges::default();
        for i in 0..(MAX_RANGES as i64 + 10) {
            r.insert(2 * i, 2 * i + 1);
        }
        assert_eq!(r.0.len(), MAX_RANGES);
    }

    #[test]
    fn plot_data_is_bounded() {
        let mut d = Decimator::new(10);
        for i in 0..1000 {
            d.push((i, i, i));
        }
        assert!(d.points.len() < 20);
        let mut b = Bins::new(1, 8);
        for t in 0..100 {
            b.add(t, 1, 0);
        }
        assert!(b.sent.len() <= 8);
        assert_eq!(b.sent.iter().sum::<u64>(), 100);
    }

    #[test]
    fn two_vantage_points_combine() {
        use Direction::{Inbound as I, Outbound as O};
        let mut s = Cap::new(Some([10, 0, 0, 1]));
        let mut r = Cap::new(Some([10, 0, 0, 2]));
        s.data(0, 0, 100, Some(O));
        r.data(20, 0, 100, Some(I));
        s.data(1, 100, 100, Some(O)); // lost
        s.data(2, 200, 100, Some(O));
        r.data(22, 200, 100, Some(I));
        s.data(300, 100, 100, Some(O)); // timeout retransmission
        r.data(320, 100, 100, Some(I));
        let (_, sr) = s.analyze(1000);
        let (_, rr) = r.analyze(1000);
        let rows: Vec<Connection> = sr.into_iter().chain(rr).collect();
        let flows = combine(&rows);
        assert_eq!(flows.len(), 1);
        let f = &flows[0];
        assert_eq!((f.retransmits, f.bytes_delivered, f.out_of_order), (1, 300, 1));
        assert!((f.active_seconds - 1.0).abs() < 1e-12);
    }

    /// A capture of `n` one-segment connections (client port 10 000 + i), `gap_ms` apart, each
    /// closed by a FIN from its sender when `fin`.
    fn many_connections(n: u32, gap_ms: i64, fin: bool) -> Vec<u8> {
        let i = Interface {
            name: "x".into(),
            description: String::new(),
            ipv4: None,
            link_type: LINKTYPE_ETHERNET,
            snaplen: 128,
        };
        let mut w = CaptureWriter::new(Vec::new(), Format::Pcapng, "", &[i]).unwrap();
        let mut buf = Vec::new();
        for k in 0..n {
            let ms = i64::from(k) * gap_ms;
            let flags = if fin { frame::ACK | frame::FIN } else { frame::ACK };
            let h = TcpHeader {
                src_port: (10_000 + k % 50_000) as u16,
                dst_port: 5001,
                seq: 1_000,
                ack: 1,
                flags,
                window: 100,
                options: &[],
            };
            buf.clear();
            let len = frame::tcp_frame(&mut buf, &A, 0, &h, 100, 128).unwrap();
            w.packet(0, (ms * 1_000_000) as u64, &buf, len as u32, None).unwrap();
        }
        w.finish(&[]).unwrap()
    }

    /// Events in order, and the most bytes held at once.
    #[derive(Default)]
    struct Recorder(Vec<Event>);

    impl Sink for Recorder {
        fn event(&mut self, event: Event) -> Result<(), String> {
            self.0.push(event);
            Ok(())
        }
    }

    #[test]
    fn memory_is_bounded_by_the_connections_open_at_once() {
        // Two thousand connections, each closed at once, a minute and a bit apart: never more
        // than two are open, so a budget of some fifty connections' state is enough ...
        let closed = many_connections(2_000, CLOSED_LINGER_NS / 1_000_000 + 1_000, true);
        let small = Options { max_memory: 50 * 4_096, max_plotted: 2, ..Options::default() };
        let mut seen = Recorder::default();
        stream_capture(&closed[..], "closed", &small, &|| false, &mut seen).unwrap();
        let rows: Vec<&Connection> =
            seen.0.iter().filter_map(|e| if let Event::Connection(c) = e { Some(c) } else { None }).collect();
        assert_eq!(rows.len(), 2_000);
        // ... they came out as they ended, before the capture's summary, without plot data ...
        assert!(matches!(seen.0.last(), Some(Event::Capture(s)) if s.tcp_packets == 2_000));
        assert!(rows.windows(2).all(|w| w[0].first_ns < w[1].first_ns));
        assert!(rows.iter().all(|r| !has_series(r) && r.closed && r.data_bytes == 100));
        // ... while the same connections left open (no FIN, all within ten minutes) are refused
        // at the bound, naming it.
        let open = many_connections(2_000, 1, false);
        let err = stream_capture(&open[..], "open", &small, &|| false, &mut Recorder::default()).unwrap_err();
        assert!(
            err.message.contains("--max-memory 204800 bytes") && err.message.contains("open at once"),
            "{err}"
        );
        assert!(err.offset > 0, "the packet it stopped at");
        let roomy = Options { max_memory: 64 << 20, ..small };
        let (_, rows, _) = analyze_capture(&open[..], "open", &roomy, &|| false).unwrap();
        assert_eq!(rows.len(), 2_000);
    }

    #[test]
    fn a_connection_quiet_for_longer_than_the_idle_time_is_two_rows() {
        use Direction::{Inbound as I, Outbound as O};
        let mut c = Cap::new(Some([10, 0, 0, 1]));
        c.data(0, 0, 100, Some(O));
        c.ack(50, 100, Some(I));
        let later = IDLE_NS / 1_000_000 + 1_000;
        c.data(later, 100, 100, Some(O));
        c.ack(later + 50, 200, Some(I));
        let (s, rows) = c.analyze((later + 1_000) as u64);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!((rows[0].first_ns, rows[0].end_ns), (0, 50_000_000), "ended with its last packet");
        assert!((rows[1].active_seconds - 1.0).abs() < 1e-9, "the second, open until the capture's end");
        assert!(
            s.warnings.iter().any(|w| w.starts_with("1 connection(s) or UDP flow(s) went quiet")),
            "{:?}",
            s.warnings
        );
    }

    #[test]
    fn only_the_rows_with_the_most_data_keep_their_plot_data() {
        let capture = many_connections(30, 10, false);
        let options = Options { max_plotted: 3, ..Options::default() };
        let mut seen = Recorder::default();
        let plotted = stream_capture(&capture[..], "c", &options, &|| false, &mut seen).unwrap();
        assert_eq!(plotted.len(), 3);
        assert!(plotted.iter().all(has_series));
        // All carry 100 bytes: the earliest three.
        let ports: Vec<u16> = plotted.iter().map(|r| r.src_port).collect();
        assert_eq!(ports, [10_000, 10_001, 10_002]);
        let none = Options { max_plotted: 0, ..Options::default() };
        assert!(stream_capture(&capture[..], "c", &none, &|| false, &mut Recorder::default())
            .unwrap()
            .is_empty());
    }
}
