//! The analysis as it reads: connections and UDP flows open at once, each reported once it
//! is over ([`Event`]), the rows to plot kept aside, and with several captures the rows kept
//! to combine them; all of it counted against [`Options::max_memory`].

use std::collections::HashMap;
use std::io::Read;
use std::net::{IpAddr, SocketAddr};

use super::{
    combine, Analysis, CaptureSummary, Connection, Half, HostCount, InterfaceSummary, Options, UdpFlow,
    MAX_HOSTS, MAX_WIRE_SEGMENT,
};
use crate::decode::{self, Skip, Transport};
use crate::frame::{ACK, FIN, RST, SYN};
use crate::meta::FlowMeta;
use crate::read::{CaptureReader, ReadError};
use crate::write::Direction;

/// A TCP connection at one vantage point: both directions.
#[derive(Debug, Clone)]
struct Conn {
    /// Endpoints in first-seen order: `halves[0]` carries data from `ends.0` to `ends.1`.
    ends: (SocketAddr, SocketAddr),
    halves: [Half; 2],
    first_ns: i64,
    last_ns: i64,
    /// When it began among the capture's connections (rows of the same end come in this order).
    order: u64,
    /// Bytes it holds, as last counted ([`Conn::bytes`]).
    held: u64,
}

impl Conn {
    fn closed(&self) -> bool {
        self.halves.iter().any(|h| h.fin || h.rst)
    }

    /// Over at `now` (capture time): closed and quiet for [`CLOSED_LINGER_NS`], or quiet for
    /// [`IDLE_NS`].
    fn over_at(&self, now: i64) -> bool {
        let quiet = now.saturating_sub(self.last_ns);
        quiet > IDLE_NS || (self.closed() && quiet > CLOSED_LINGER_NS)
    }

    /// What it holds: itself (boxed) and its entry in the table, and what its directions
    /// allocated.
    fn bytes(&self) -> u64 {
        (std::mem::size_of::<Conn>() + ALLOCATION_BYTES + TABLE_ENTRY_BYTES) as u64
            + self.halves.iter().map(Half::heap_bytes).sum::<u64>()
    }
}

/// Canonical key of a connection.
fn key(a: SocketAddr, b: SocketAddr) -> (SocketAddr, SocketAddr) {
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// A UDP flow while it is read (its row is made when it ends).
#[derive(Debug, Clone, Copy)]
struct UdpState {
    packets: u64,
    payload_bytes: u64,
    wire_bytes: u64,
    first_ns: i64,
    last_ns: i64,
    order: u64,
}

/// A connection with no packet for this long (capture time) is over: it is reported, and a
/// packet of the same addresses and ports after that starts another row (NetFlow's inactive
/// timeout does the same; ten minutes, longer than any retransmission timeout backs off to).
pub const IDLE_NS: i64 = 600 * 1_000_000_000;
/// A closed connection (FIN or RST seen) is over once it has been quiet this long: Linux's
/// TIME_WAIT (`TCP_TIMEWAIT_LEN`), the time a late retransmission of it can still come.
pub const CLOSED_LINGER_NS: i64 = 60 * 1_000_000_000;
/// What the analysis may hold by default (`westwood analyze --max-memory`), as `westwood run`.
pub const DEFAULT_MAX_MEMORY: u64 = 1 << 30;
/// Rows whose plot data are kept by default: the connection directions with the most data.
pub const DEFAULT_MAX_PLOTTED: usize = 20;
/// A hash table entry: the key (two socket addresses) and a pointer, a control byte, and the
/// room a table keeps spare (up to half of it after it doubled).
const TABLE_ENTRY_BYTES: usize = 3 * (2 * std::mem::size_of::<SocketAddr>() + 8 + 1) / 2;
/// Packets between two sweeps for connections that are over, at least.
const SWEEP_PACKETS: u64 = 4096;
/// What the allocator adds to each allocation, about.
const ALLOCATION_BYTES: usize = 16;

/// What the analysis hands out while it reads ([`stream_files`]), so that nothing grows with
/// the number of connections a capture held, only with those open at once.
#[derive(Debug, Clone)]
pub enum Event {
    /// A connection direction of one capture, once it is over (closed for
    /// [`CLOSED_LINGER_NS`], quiet for [`IDLE_NS`], or open when the capture ended), without
    /// its plot data (those come as `Plot`).
    Connection(Connection),
    /// A UDP flow, once it is over (quiet for [`IDLE_NS`], or when the capture ended).
    Udp(UdpFlow),
    /// What a capture held, once it is read.
    Capture(CaptureSummary),
    /// With several captures, at the end: one row per connection direction over all of them.
    Flow(Connection),
    /// At the end: the rows to plot, with their plot data: the [`Options::max_plotted`] rows
    /// with the most data (of the flows with several captures, of the connections with one).
    Plot(Connection),
}

/// Where the analysis' events go.
pub trait Sink {
    fn event(&mut self, event: Event) -> Result<(), String>;
    /// Bytes this sink keeps of the analysis, counted against [`Options::max_memory`].
    fn held(&self) -> u64 {
        0
    }
}

impl<F: FnMut(Event) -> Result<(), String>> Sink for F {
    fn event(&mut self, event: Event) -> Result<(), String> {
        self(event)
    }
}

/// Rank of a row among those to plot: more data first, then the earlier.
fn plot_rank(r: &Connection) -> (std::cmp::Reverse<u64>, i64, &str, &str) {
    (std::cmp::Reverse(r.data_bytes), r.first_ns, &r.src_addr, &r.dst_addr)
}

/// The rows with the most data, with their plot data: at most `max` of them.
#[derive(Debug, Default)]
struct Plotted {
    rows: Vec<Connection>,
    max: usize,
}

impl Plotted {
    fn offer(&mut self, row: &Connection) {
        if self.max == 0 || (row.segments_sent == 0 && row.tseq_acks.is_empty()) {
            return;
        }
        if self.rows.len() < self.max {
            self.rows.push(row.clone());
            return;
        }
        let (worst, _) = self
            .rows
            .iter()
            .enumerate()
            .max_by(|a, b| plot_rank(a.1).cmp(&plot_rank(b.1)))
            .expect("max > 0 rows");
        if plot_rank(row) < plot_rank(&self.rows[worst]) {
            self.rows[worst] = row.clone();
        }
    }

    fn into_sorted(mut self) -> Vec<Connection> {
        self.rows.sort_by(|a, b| {
            (a.first_ns, &a.src_addr, a.src_port).cmp(&(b.first_ns, &b.src_addr, b.src_port))
        });
        self.rows
    }
}

/// Bytes a row holds: itself, its strings and its plot data.
fn row_bytes(r: &Connection) -> u64 {
    let strings = [&r.name, &r.capture, &r.src, &r.dst, &r.src_addr, &r.dst_addr, &r.vantage]
        .iter()
        .map(|s| s.capacity())
        .sum::<usize>()
        + r.cc.as_ref().map_or(0, String::capacity);
    let series = (r.sent_per_bin.capacity() + r.acked_per_bin.capacity()) * 8
        + (r.tseq_data.capacity() + r.tseq_retransmits.capacity() + r.tseq_acks.capacity()) * 24;
    (std::mem::size_of::<Connection>() + strings + series) as u64
}

/// A row without its plot data (which go out as [`Event::Plot`]).
fn without_series(mut r: Connection) -> Connection {
    r.sent_per_bin = Vec::new();
    r.acked_per_bin = Vec::new();
    r.tseq_data = Vec::new();
    r.tseq_retransmits = Vec::new();
    r.tseq_acks = Vec::new();
    r
}

/// One capture while it is read.
struct CaptureState<'a> {
    file: &'a str,
    options: &'a Options,
    summary: CaptureSummary,
    conns: HashMap<(SocketAddr, SocketAddr), Box<Conn>>,
    udp: HashMap<(SocketAddr, SocketAddr), UdpState>,
    metas: Vec<FlowMeta>,
    hosts: HashMap<IpAddr, (u64, u64)>,
    other_hosts: (u64, u64),
    names: HashMap<IpAddr, String>,
    /// Connections and UDP flows begun so far.
    begun: u64,
    /// Bytes the open connections and UDP flows hold.
    held: u64,
    plotted: Plotted,
    plotted_bytes: u64,
    largest_segment: u64,
    negative_rtt_samples: u64,
    /// Connections and UDP flows reported because they went quiet, whose addresses came back.
    resumed: u64,
    /// Packets when the last sweep for ended connections ran.
    swept_at: u64,
}

impl<'a> CaptureState<'a> {
    fn new(file: &'a str, options: &'a Options) -> Self {
        CaptureState {
            file,
            options,
            summary: CaptureSummary { file: file.to_string(), ..Default::default() },
            conns: HashMap::new(),
            udp: HashMap::new(),
            metas: Vec::new(),
            hosts: HashMap::new(),
            other_hosts: (0, 0),
            names: HashMap::new(),
            begun: 0,
            held: 0,
            plotted: Plotted { rows: Vec::new(), max: options.max_plotted },
            plotted_bytes: 0,
            largest_segment: 0,
            negative_rtt_samples: 0,
            resumed: 0,
            swept_at: 0,
        }
    }

    fn node(&self, a: IpAddr) -> String {
        self.names.get(&a).cloned().unwrap_or_else(|| a.to_string())
    }

    /// The UDP flow `src` -> `dst` is over: its row.
    fn end_udp(
        &mut self,
        src: SocketAddr,
        dst: SocketAddr,
        u: UdpState,
        sink: &mut dyn Sink,
    ) -> Result<(), String> {
        self.held -= UDP_FLOW_BYTES;
        let name = self
            .metas
            .iter()
            .find(|m| m.src == Some(src) && m.dst == Some(dst) && m.proto == "udp")
            .map_or_else(|| format!("{src}>{dst}"), |m| m.name.clone());
        let span = (u.last_ns - u.first_ns) as f64 / 1e9;
        sink.event(Event::Udp(UdpFlow {
            name,
            capture: self.file.to_string(),
            src: self.node(src.ip()),
            dst: self.node(dst.ip()),
            src_port: src.port(),
            dst_port: dst.port(),
            packets: u.packets,
            payload_bytes: u.payload_bytes,
            wire_bytes: u.wire_bytes,
            first_ns: u.first_ns,
            last_ns: u.last_ns,
            rate_bps: if span > 0.0 { u.wire_bytes as f64 * 8.0 / span } else { 0.0 },
        }))
    }

    /// The connection `c` is over (`capture_end`: when the capture ended, if it has): its rows.
    fn end_conn(
        &mut self,
        mut c: Box<Conn>,
        capture_end: Option<i64>,
        sink: &mut dyn Sink,
    ) -> Result<(), String> {
        self.held -= c.held;
        let closed = c.closed();
        // Closed: active until its last packet; quiet for longer than IDLE_NS: the same; else
        // until the capture's end.
        let end_ns = match capture_end {
            Some(end) if !closed && end.saturating_sub(c.last_ns) <= IDLE_NS => end.max(c.last_ns),
            _ => c.last_ns,
        };
        for (i, (src, dst)) in [(c.ends.0, c.ends.1), (c.ends.1, c.ends.0)].into_iter().enumerate() {
            let h = &mut c.halves[i];
            h.end_run();
            self.largest_segment = self.largest_segment.max(h.max_segment);
            self.negative_rtt_samples += h.negative_rtt_samples;
            let Some(row) = self.row(h, src, dst, c.first_ns, c.last_ns, end_ns, closed) else { continue };
            self.plotted.offer(&row);
            sink.event(Event::Connection(without_series(row)))?;
        }
        self.plotted_bytes = self.plotted.rows.iter().map(row_bytes).sum();
        Ok(())
    }

    /// The row of one direction, None if it carried nothing.
    #[allow(clippy::too_many_arguments)]
    fn row(
        &self,
        h: &Half,
        src: SocketAddr,
        dst: SocketAddr,
        first_ns: i64,
        last_ns: i64,
        end_ns: i64,
        closed: bool,
    ) -> Option<Connection> {
        let origin = h.space.origin();
        // An ACK of the FIN covers one sequence number that is not data.
        let highest = h.highest_ack.map(|a| h.fin_at.map_or(a, |f| a.min(f)));
        let acked = highest.map_or(0, |a| (a - origin).max(0) as u64);
        if h.segments == 0 && acked == 0 {
            return None;
        }
        let meta = self.metas.iter().find(|m| m.src == Some(src) && m.dst == Some(dst) && m.proto == "tcp");
        let in_order = if h.inbound_at_dst {
            h.seen.end_of_range_holding(origin).map_or(0, |e| (e - origin) as u64)
        } else {
            0
        };
        let active_ns = end_ns - first_ns;
        let active = active_ns as f64 / 1e9;
        let rate = |bytes: u64| if active > 0.0 { bytes as f64 * 8.0 / active } else { 0.0 };
        let delivered = acked.max(in_order);
        let seconds = |ns: i64| ns as f64 / 1e9;
        let rel = |v: &Vec<(i64, i64, i64)>| -> Vec<(f64, i64, i64)> {
            v.iter().map(|&(t, a, b)| (seconds(t - first_ns), a - origin, b - origin)).collect()
        };
        Some(Connection {
            name: meta.map_or_else(|| format!("{src}>{dst}"), |m| m.name.clone()),
            cc: meta.and_then(|m| m.cc.clone()),
            capture: self.file.to_string(),
            src: self.node(src.ip()),
            dst: self.node(dst.ip()),
            src_addr: src.ip().to_string(),
            src_port: src.port(),
            dst_addr: dst.ip().to_string(),
            dst_port: dst.port(),
            first_ns,
            last_ns,
            end_ns,
            first_data_ns: h.first_data_ns,
            closed,
            syn_seen: h.syn,
            active_seconds: active,
            bytes_delivered: delivered,
            goodput_bps: rate(delivered),
            throughput_bps: rate(h.wire_bytes),
            segments_sent: h.segments,
            data_bytes: h.data_bytes,
            wire_bytes: h.wire_bytes,
            unique_bytes: h.max_end.map_or(0, |m| (m - origin).max(0) as u64),
            retransmits: h.retransmits,
            retransmitted_bytes: h.retransmitted_bytes,
            out_of_order: h.out_of_order,
            segment_size: h.max_segment,
            ack_packets: h.acks,
            sack_packets: h.sack_packets,
            dupacks: h.dupacks,
            dupack_runs: h.runs,
            dupack_runs_3: h.runs_3,
            max_dupack_run: h.max_run,
            rtt_samples: h.rtt.0,
            min_rtt_seconds: if h.rtt.0 > 0 { seconds(h.rtt.1) } else { f64::NAN },
            mean_rtt_seconds: if h.rtt.0 > 0 { h.rtt.3 as f64 / h.rtt.0 as f64 / 1e9 } else { f64::NAN },
            max_rtt_seconds: if h.rtt.0 > 0 { seconds(h.rtt.2) } else { f64::NAN },
            max_flight_bytes: h.flight.1,
            mean_flight_bytes: if h.flight.0 > 0 { h.flight.2 as f64 / h.flight.0 as f64 } else { f64::NAN },
            min_window_bytes: h.window.0.unwrap_or(0),
            max_window_bytes: h.window.1,
            window_scale_known: h.wscale.is_some(),
            vantage: h.vantage().to_string(),
            bin_start_ns: h.bins.origin.unwrap_or(first_ns),
            bin_seconds: h.bins.width as f64 / 1e9,
            sent_per_bin: h.bins.sent.clone(),
            acked_per_bin: h.bins.acked.clone(),
            tseq_data: rel(&h.tseq_data.points),
            tseq_retransmits: rel(&h.tseq_retransmits),
            tseq_acks: rel(&h.tseq_acks.points),
            tseq_complete: h.tseq_data.stride == 1 && h.tseq_acks.stride == 1 && !h.retransmits_dropped,
        })
    }

    /// Report and forget every connection and UDP flow over at `now`, in the order they began.
    fn sweep(&mut self, now: i64, sink: &mut dyn Sink) -> Result<(), String> {
        let mut over: Vec<(u64, (SocketAddr, SocketAddr))> =
            self.conns.iter().filter(|(_, c)| c.over_at(now)).map(|(k, c)| (c.order, *k)).collect();
        over.sort_unstable();
        for (_, k) in over {
            let c = self.conns.remove(&k).expect("listed");
            self.end_conn(c, None, sink)?;
        }
        let mut quiet: Vec<(u64, (SocketAddr, SocketAddr))> = self
            .udp
            .iter()
            .filter(|(_, u)| now.saturating_sub(u.last_ns) > IDLE_NS)
            .map(|(k, u)| (u.order, *k))
            .collect();
        quiet.sort_unstable();
        for (_, k) in quiet {
            let u = self.udp.remove(&k).expect("listed");
            self.end_udp(k.0, k.1, u, sink)?;
        }
        Ok(())
    }

    /// Is the analysis within its memory, after a sweep if it was not?
    fn within_memory(&mut self, now: i64, sink: &mut dyn Sink) -> Result<bool, String> {
        let total = |s: &Self, sink: &dyn Sink| s.held + s.plotted_bytes + sink.held();
        if total(self, sink) <= self.options.max_memory {
            return Ok(true);
        }
        self.sweep(now, sink)?;
        Ok(total(self, sink) <= self.options.max_memory)
    }

    fn refusal(&self, sink: &dyn Sink) -> String {
        let kept = sink.held();
        let combining = if kept > 0 {
            format!(
                " (of which {:.0} MB are the rows of earlier captures, kept to combine them: analyze \
                 the captures one at a time to keep none)",
                kept as f64 / 1e6
            )
        } else {
            String::new()
        };
        format!(
            "the analysis needs more than --max-memory {} bytes here{combining}: {} TCP connection(s) \
             and {} UDP flow(s) open at once (a connection is over when it has been closed for {} s \
             or quiet for {} s); raise --max-memory, or split the capture (editcap -c N) and \
             analyze the parts",
            self.options.max_memory,
            self.conns.len(),
            self.udp.len(),
            CLOSED_LINGER_NS / 1_000_000_000,
            IDLE_NS / 1_000_000_000,
        )
    }

    fn udp_packet(
        &mut self,
        t: i64,
        src: SocketAddr,
        dst: SocketAddr,
        payload: u32,
        ip_len: u32,
        sink: &mut dyn Sink,
    ) -> Result<(), String> {
        if let Some(u) = self.udp.get(&(src, dst)).copied() {
            if t.saturating_sub(u.last_ns) > IDLE_NS {
                self.udp.remove(&(src, dst));
                self.resumed += 1;
                self.end_udp(src, dst, u, sink)?;
            }
        }
        let order = self.begun;
        let s = self.udp.entry((src, dst)).or_insert_with(|| UdpState {
            packets: 0,
            payload_bytes: 0,
            wire_bytes: 0,
            first_ns: t,
            last_ns: t,
            order,
        });
        if s.packets == 0 {
            self.begun += 1;
            self.held += UDP_FLOW_BYTES;
        }
        s.packets += 1;
        s.payload_bytes += u64::from(payload);
        s.wire_bytes += u64::from(ip_len);
        s.first_ns = s.first_ns.min(t);
        s.last_ns = s.last_ns.max(t);
        Ok(())
    }

    /// The connection of `src` <-> `dst` for a packet at `t`: a new one if there is none or it
    /// is over by then (reported first).
    fn conn_for(
        &mut self,
        t: i64,
        src: SocketAddr,
        dst: SocketAddr,
        sink: &mut dyn Sink,
    ) -> Result<&mut Conn, String> {
        let k = key(src, dst);
        if self.conns.get(&k).is_some_and(|c| c.over_at(t)) {
            let c = self.conns.remove(&k).expect("present");
            self.resumed += 1;
            self.end_conn(c, None, sink)?;
        }
        if !self.conns.contains_key(&k) {
            let mut c = Box::new(Conn {
                ends: (src, dst),
                halves: [Half::new(self.options), Half::new(self.options)],
                first_ns: t,
                last_ns: t,
                order: self.begun,
                held: 0,
            });
            self.begun += 1;
            // What the metadata says of either direction.
            for (i, (a, b)) in [(src, dst), (dst, src)].into_iter().enumerate() {
                if let Some(m) =
                    self.metas.iter().find(|m| m.src == Some(a) && m.dst == Some(b) && m.proto == "tcp")
                {
                    if let Some(s) = m.first_seq {
                        let h = &mut c.halves[i];
                        h.space.unwrap(s);
                        h.space.origin = Some(0);
                    }
                    c.halves[i].wscale = m.wscale;
                }
            }
            c.held = c.bytes();
            self.held += c.held;
            self.conns.insert(k, c);
        }
        Ok(self.conns.get_mut(&k).expect("inserted"))
    }
}

/// Bytes a UDP flow holds while it is read: its state and its table entry.
const UDP_FLOW_BYTES: u64 = (std::mem::size_of::<UdpState>() + TABLE_ENTRY_BYTES) as u64;

/// Analyse one capture, read from `r` (`file` names it), handing each connection and UDP flow
/// to `sink` once it is over, then the capture's summary ([`Event::Capture`]). Returns the rows
/// to plot, with their plot data ([`Options::max_plotted`]). Memory: the connections and flows
/// open at once, the rows to plot and what `sink` holds, at most [`Options::max_memory`]
/// (beyond it the analysis stops with an error naming it).
pub fn stream_capture<R: Read>(
    r: R,
    file: &str,
    options: &Options,
    interrupted: &dyn Fn() -> bool,
    sink: &mut dyn Sink,
) -> Result<Vec<Connection>, ReadError> {
    let mut reader = CaptureReader::new(r, file)?;
    let mut state = CaptureState::new(file, options);
    let mut meta_seen = 0;
    let mut names_seen = 0;
    let mut count = 0u64;
    // A sink's failure (a full disk, a Python exception), at the packet it came.
    let failed = |offset: u64, message: String| ReadError { file: file.to_string(), offset, message };
    loop {
        // Metadata comes in section headers: take any new one before the packets after it.
        if reader.comments().len() > meta_seen {
            for c in &reader.comments()[meta_seen..] {
                state.metas.extend(FlowMeta::parse_all(c));
            }
            meta_seen = reader.comments().len();
        }
        // Names the same way, each record once: an address named twice leaves the map shorter
        // than the records, and comparing the two lengths rebuilt it on every packet.
        if reader.names().len() > names_seen {
            state.names.extend(reader.names()[names_seen..].iter().cloned());
            names_seen = reader.names().len();
        }
        count += 1;
        if count.is_multiple_of(1 << 16) && interrupted() {
            return Err(failed(0, "interrupted".into()));
        }
        let offset = reader.offset();
        let Some(p) = reader.next_packet()? else { break };
        let t = p.ts_ns;
        let summary = &mut state.summary;
        summary.packets += 1;
        summary.first_ns = Some(summary.first_ns.map_or(t, |f| f.min(t)));
        summary.last_ns = Some(summary.last_ns.map_or(t, |l| l.max(t)));
        let now = summary.last_ns.unwrap_or(t);
        let ip = match decode::decode(p.link_type, p.data, p.original_len) {
            Ok(ip) => ip,
            Err(Skip::NotIp) => {
                summary.not_ip += 1;
                continue;
            }
            Err(Skip::Truncated) => {
                summary.truncated += 1;
                continue;
            }
            Err(Skip::Fragment) => {
                summary.fragments += 1;
                continue;
            }
            Err(Skip::Malformed) => {
                summary.malformed += 1;
                continue;
            }
            Err(Skip::UnknownLinkType(l)) => {
                if !summary.unknown_link_types.contains(&l) {
                    summary.unknown_link_types.push(l);
                }
                summary.not_ip += 1;
                continue;
            }
        };
        let host = p.host_ipv4.map(IpAddr::from);
        let n_hosts = state.hosts.len();
        match state.hosts.get_mut(&ip.src) {
            Some(c) => *c = (c.0 + 1, c.1 + u64::from(ip.ip_len)),
            None if n_hosts < MAX_HOSTS => {
                state.hosts.insert(ip.src, (1, u64::from(ip.ip_len)));
            }
            None => state.other_hosts = (state.other_hosts.0 + 1, state.other_hosts.1 + u64::from(ip.ip_len)),
        }
        // Ended connections are swept out now and then: after as many packets as there are
        // connections and flows open (so a sweep costs O(1) a packet), and when memory is short.
        let open = (state.conns.len() + state.udp.len()) as u64;
        if state.summary.packets - state.swept_at > open.max(SWEEP_PACKETS) {
            state.swept_at = state.summary.packets;
            state.sweep(now, sink).map_err(|m| failed(offset, m))?;
        }
        let tcp = match ip.transport {
            Transport::Tcp(tcp) => tcp,
            Transport::Udp(u) => {
                state.summary.udp_packets += 1;
                let src = SocketAddr::new(ip.src, u.src_port);
                let dst = SocketAddr::new(ip.dst, u.dst_port);
                state
                    .udp_packet(t, src, dst, u.payload_len, ip.ip_len, sink)
                    .map_err(|m| failed(offset, m))?;
                if !state.within_memory(now, sink).map_err(|m| failed(offset, m))? {
                    return Err(failed(offset, state.refusal(sink)));
                }
                continue;
            }
            Transport::Other(_) => {
                state.summary.other_packets += 1;
                continue;
            }
        };
        state.summary.tcp_packets += 1;
        let src = SocketAddr::new(ip.src, tcp.src_port);
        let dst = SocketAddr::new(ip.dst, tcp.dst_port);
        let conn = state.conn_for(t, src, dst, sink).map_err(|m| failed(offset, m))?;
        conn.first_ns = conn.first_ns.min(t);
        conn.last_ns = conn.last_ns.max(t);
        let forward = src == conn.ends.0;
        let (d, r) = if forward { (0, 1) } else { (1, 0) };
        // Window scale: from the SYNs (each side announces the scale of its own window).
        if tcp.flags & SYN != 0 {
            if let Some(ws) = tcp.options.window_scale {
                // This side's window (advertised on ACKs of the other direction's data).
                conn.halves[r].wscale = Some(ws);
            } else if conn.halves[r].wscale.is_none() {
                conn.halves[r].wscale = Some(0);
            }
        }
        // Vantage: sent from / arrived at the capture point's own host.
        let outbound = p.direction == Some(Direction::Outbound) || ip.incoming == Some(false);
        let inbound = p.direction == Some(Direction::Inbound) || ip.incoming == Some(true);
        if tcp.payload_len > 0 {
            let h = &mut conn.halves[d];
            h.direction_known |= p.direction.is_some() || ip.incoming.is_some();
            h.data_ttl = h.data_ttl.max(Some(ip.ttl));
            if outbound && host.is_none_or(|a| a == ip.src) {
                h.outbound_at_src = true;
            }
            if inbound && host.is_none_or(|a| a == ip.dst) && (host.is_some() || ip.incoming == Some(true)) {
                h.inbound_at_dst = true;
            }
        }
        conn.halves[d].data(t, tcp.seq, tcp.flags, tcp.payload_len, ip.ip_len, options.max_points);
        if tcp.flags & ACK != 0 {
            let pure = tcp.payload_len == 0 && tcp.flags & (SYN | FIN | RST) == 0;
            if pure {
                conn.halves[r].ack_ttl = conn.halves[r].ack_ttl.max(Some(ip.ttl));
            }
            // The window of a SYN is never scaled.
            let window = tcp.window;
            let half = &mut conn.halves[r];
            if tcp.flags & SYN != 0 {
                let saved = half.wscale;
                half.wscale = Some(0);
                half.ack(t, tcp.ack, window, pure, tcp.options.sack_count > 0);
                half.wscale = saved;
            } else {
                half.ack(t, tcp.ack, window, pure, tcp.options.sack_count > 0);
            }
        }
        let (before, after) = (conn.held, conn.bytes());
        conn.held = after;
        state.held = state.held - before + after;
        if !state.within_memory(now, sink).map_err(|m| failed(offset, m))? {
            return Err(failed(offset, state.refusal(sink)));
        }
    }
    let end_offset = reader.offset();
    let mut host_rows: Vec<HostCount> = std::mem::take(&mut state.hosts)
        .into_iter()
        .map(|(a, (packets, ip_bytes))| HostCount { addr: a.to_string(), packets, ip_bytes })
        .collect();
    host_rows.sort_by(|a, b| b.packets.cmp(&a.packets).then(a.addr.cmp(&b.addr)));
    if state.other_hosts.0 > 0 {
        host_rows.push(HostCount {
            addr: "other".into(),
            packets: state.other_hosts.0,
            ip_bytes: state.other_hosts.1,
        });
    }
    state.summary.hosts = host_rows;
    state.summary.warnings = reader.warnings().to_vec();
    state.summary.comments = reader.comments().to_vec();
    state.names.extend(reader.names()[names_seen..].iter().cloned());
    state.summary.interfaces = reader
        .interfaces()
        .iter()
        .map(|i| InterfaceSummary {
            name: i.name.clone(),
            description: i.description.clone(),
            link_type: i.link_type,
            snaplen: i.snaplen,
            ipv4: i.ipv4.map(|a| IpAddr::from(a).to_string()),
            start_ns: i.start_ns,
            end_ns: i.end_ns,
            dropped: i.dropped,
            capture_dropped: i.capture_dropped,
        })
        .collect();
    let isb_end = reader.interfaces().iter().filter_map(|i| i.end_ns).max();
    state.summary.end_ns = match (isb_end, state.summary.last_ns) {
        (Some(e), Some(l)) => Some(e.max(l)),
        (e, l) => e.or(l),
    };
    let capture_end = state.summary.end_ns.unwrap_or(0);
    // What is still open ends with the capture, in the order it began.
    let mut open: Vec<Box<Conn>> = std::mem::take(&mut state.conns).into_values().collect();
    open.sort_by_key(|c| c.order);
    for c in open {
        state.end_conn(c, Some(capture_end), sink).map_err(|m| failed(end_offset, m))?;
    }
    let mut flows: Vec<((SocketAddr, SocketAddr), UdpState)> =
        std::mem::take(&mut state.udp).into_iter().collect();
    flows.sort_by_key(|(_, u)| u.order);
    for ((src, dst), u) in flows {
        state.end_udp(src, dst, u, sink).map_err(|m| failed(end_offset, m))?;
    }
    // Segments longer than any link's frame: the capture point saw the host's TSO/GSO or GRO
    // super-segments (veth's default), so counts and retransmissions are not the wire's.
    let largest = state.largest_segment;
    if largest > MAX_WIRE_SEGMENT {
        state.summary.warnings.push(format!(
            "segments of up to {largest} bytes: the capture holds TSO/GSO or GRO super-segments \
             (several segments merged by the host), so segment counts, retransmissions and the \
             segment size are not what crossed the wire; capture with them off (ethtool -K IF \
             tso off gso off gro off)"
        ));
    }
    let negative = state.negative_rtt_samples;
    if negative > 0 {
        state.summary.warnings.push(format!(
            "{negative} RTT sample(s) came out negative (an ACK timestamped before the data it \
             covers: the capture's clock stepped back) and were left out"
        ));
    }
    if state.resumed > 0 {
        state.summary.warnings.push(format!(
            "{} connection(s) or UDP flow(s) went quiet for more than {} s (or closed for more than \
             {} s) and came back: each part is a row of its own",
            state.resumed,
            IDLE_NS / 1_000_000_000,
            CLOSED_LINGER_NS / 1_000_000_000
        ));
    }
    let summary = std::mem::take(&mut state.summary);
    sink.event(Event::Capture(summary)).map_err(|m| failed(end_offset, m))?;
    Ok(state.plotted.into_sorted())
}

/// Analyse one capture and keep everything: its summary, its connection rows (with their plot
/// data where [`stream_capture`] kept it) and its UDP flows. Memory grows with the rows.
pub fn analyze_capture<R: Read>(
    r: R,
    file: &str,
    options: &Options,
    interrupted: &dyn Fn() -> bool,
) -> Result<(CaptureSummary, Vec<Connection>, Vec<UdpFlow>), ReadError> {
    let mut collected = Collected::default();
    let plotted = stream_capture(r, file, options, interrupted, &mut collected)?;
    let mut rows = collected.connections;
    restore_series(&mut rows, plotted);
    Ok((collected.captures.pop().unwrap_or_default(), rows, collected.udp))
}

/// Every event kept.
#[derive(Debug, Default)]
struct Collected {
    captures: Vec<CaptureSummary>,
    connections: Vec<Connection>,
    flows: Vec<Connection>,
    udp: Vec<UdpFlow>,
    plots: Vec<Connection>,
}

impl Sink for Collected {
    fn event(&mut self, event: Event) -> Result<(), String> {
        match event {
            Event::Connection(c) => self.connections.push(c),
            Event::Udp(u) => self.udp.push(u),
            Event::Capture(s) => self.captures.push(s),
            Event::Flow(f) => self.flows.push(f),
            Event::Plot(p) => self.plots.push(p),
        }
        Ok(())
    }
}

/// Same capture, same ends, same start: the same row.
fn same_row(a: &Connection, b: &Connection) -> bool {
    (a.first_ns, a.src_port, a.dst_port, &a.src_addr, &a.dst_addr, &a.capture)
        == (b.first_ns, b.src_port, b.dst_port, &b.src_addr, &b.dst_addr, &b.capture)
}

/// Give the rows in `plotted` their plot data back.
fn restore_series(rows: &mut [Connection], plotted: Vec<Connection>) {
    for p in plotted {
        if let Some(r) = rows.iter_mut().find(|r| same_row(r, &p)) {
            *r = p;
        }
    }
}

/// A row with plot data.
pub(super) fn has_series(r: &Connection) -> bool {
    !(r.sent_per_bin.is_empty() && r.tseq_data.is_empty() && r.tseq_acks.is_empty())
}

/// A sink in front of another that keeps the connection rows (to combine several captures).
struct Keeper<'s> {
    sink: &'s mut dyn Sink,
    rows: Vec<Connection>,
    bytes: u64,
    keep: bool,
}

impl Sink for Keeper<'_> {
    fn event(&mut self, event: Event) -> Result<(), String> {
        if let (true, Event::Connection(c)) = (self.keep, &event) {
            self.bytes += row_bytes(c);
            self.rows.push(c.clone());
        }
        self.sink.event(event)
    }

    fn held(&self) -> u64 {
        self.bytes + self.sink.held()
    }
}

/// Analyse every capture in `files` in turn, handing `sink` what [`stream_capture`] hands out
/// for each. With one capture, its connection rows are the flows, and its rows to plot follow
/// as [`Event::Plot`]. With several, the connection rows are kept (counted against
/// [`Options::max_memory`]) and combined at the end: [`Event::Flow`], then the flows to plot.
pub fn stream_files(
    files: &[std::path::PathBuf],
    options: &Options,
    interrupted: &dyn Fn() -> bool,
    sink: &mut dyn Sink,
) -> Result<(), ReadError> {
    let several = files.len() > 1;
    let mut keeper = Keeper { sink, rows: Vec::new(), bytes: 0, keep: several };
    let mut last = String::new();
    for f in files {
        let name = f.display().to_string();
        let file = std::fs::File::open(f).map_err(|e| ReadError {
            file: name.clone(),
            offset: 0,
            message: format!("cannot open: {e}"),
        })?;
        let start = keeper.rows.len();
        let plotted = stream_capture(
            std::io::BufReader::with_capacity(1 << 16, file),
            &name,
            options,
            interrupted,
            &mut keeper,
        )?;
        if several {
            keeper.bytes += plotted.iter().map(row_bytes).sum::<u64>();
            restore_series(&mut keeper.rows[start..], plotted);
        } else {
            for p in plotted {
                keeper.sink.event(Event::Plot(p)).map_err(|message| ReadError {
                    file: name.clone(),
                    offset: 0,
                    message,
                })?;
            }
        }
        last = name;
    }
    if several {
        let failed = |message| ReadError { file: last.clone(), offset: 0, message };
        let flows = combine(&keeper.rows);
        keeper.rows = Vec::new();
        let mut plotted = Plotted { rows: Vec::new(), max: options.max_plotted };
        for f in flows.iter().filter(|f| has_series(f)) {
            plotted.offer(f);
        }
        for f in flows {
            keeper.sink.event(Event::Flow(without_series(f))).map_err(failed)?;
        }
        for p in plotted.into_sorted() {
            keeper.sink.event(Event::Plot(p)).map_err(failed)?;
        }
    }
    Ok(())
}

/// Analyse every capture in `files` and combine them, keeping everything (memory grows with
/// the rows; `westwood analyze` streams them instead, [`stream_files`]). The rows to plot
/// ([`Options::max_plotted`]) carry their plot data, the others none.
pub fn analyze_files(
    files: &[std::path::PathBuf],
    options: &Options,
    interrupted: &dyn Fn() -> bool,
) -> Result<Analysis, ReadError> {
    let mut collected = Collected::default();
    stream_files(files, options, interrupted, &mut collected)?;
    let Collected { captures, mut connections, flows, udp, plots } = collected;
    let flows = if files.len() > 1 {
        let mut flows = flows;
        restore_series(&mut flows, plots);
        flows
    } else {
        restore_series(&mut connections, plots);
        connections.clone()
    };
    Ok(Analysis { captures, connections, flows, udp })
}
