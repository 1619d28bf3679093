//! Which flow, and which of its segments, a frame is: the numbering `drop-list` errors use.
//!
//! The simulator numbers a flow's bytes from 0 at its first data byte, and `drop-list` drops
//! segment `n` (bytes `n · segment_size` on) or the first ACK that covers it
//! (`westwood_simulator::network::loss::drop_list`). Kernel TCP numbers from a random initial
//! sequence number, and iperf3's data connection opens with a cookie before the data: the
//! emulator learns each flow's ISN from its SYN and numbers from the first byte after the
//! cookie, so "segment 14" is the same 400 bytes of data on both sides. The cookie itself, the
//! handshake and the FIN carry no number (`None`): no `drop-list` entry can name them.
//!
//! A flow is known by its data connection's two ends (the testbed binds the client to a port of
//! its own, `--cport`): frames from the client are its data, frames from the server its ACKs.
//! The TCP header is read with IPv4 options and TCP options skipped, SACK blocks ignored.
//!
//! [`Tagger::classify`] also says whether a frame is one the simulator has: the data segments
//! (the cookie too: the simulator sends it, `preamble`) and the receiver's ACKs. The handshake,
//! the FIN or RST and every frame of another connection (iperf3's control connection) are not:
//! the testbed lets those cross the links without drawing from the scenario's error models, so
//! that a seed draws the same losses for the same packets on both sides.

use std::collections::HashMap;

use westwood_simulator::network::PacketKind;

use crate::afpacket::{ETH_HLEN, VNET_HDR_LEN};

/// Bytes iperf3 sends on a data connection before its data (`COOKIE_SIZE`, iperf3 3.x).
pub const IPERF3_COOKIE: u32 = 37;

/// A TCP frame of a known flow, numbered as the simulator numbers its packets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag {
    /// The scenario's flow index.
    pub flow: u32,
    /// `Data` (payload from the client) or `Ack` (no payload, from the server).
    pub kind: PacketKind,
    /// Data: the first payload byte, from the flow's first data byte.
    pub seq: u64,
    /// Ack: the cumulative acknowledgment number, from the flow's first data byte.
    pub ack: u64,
}

/// What a frame is to the scenario ([`Tagger::classify`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// Its number, for `drop-list` (`None`: the cookie, or a frame the simulator does not have).
    pub tag: Option<Tag>,
    /// A frame the simulator also sends: a data segment (the cookie included) or an ACK of a
    /// known flow's data connection, outside its handshake and its close.
    pub simulated: bool,
}

/// One TCP connection's ends: IPv4 address and port of the client (the data sender) and of
/// the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Connection {
    pub client: ([u8; 4], u16),
    pub server: ([u8; 4], u16),
}

#[derive(Debug, Clone)]
struct FlowState {
    index: u32,
    /// Sequence number of the first data byte (ISN + 1 + the application's preamble), once
    /// the client's SYN was seen.
    data_start: Option<u32>,
}

/// Tags the frames of the flows it knows.
#[derive(Debug, Clone, Default)]
pub struct Tagger {
    flows: HashMap<Connection, FlowState>,
    /// Bytes before the data on every connection (iperf3's cookie).
    preamble: u32,
}

/// What the tagger reads of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TcpView {
    src: ([u8; 4], u16),
    dst: ([u8; 4], u16),
    seq: u32,
    ack: u32,
    syn: bool,
    ack_flag: bool,
    /// FIN or RST: the connection's close, which the simulator does not send.
    fin_or_rst: bool,
    payload: u32,
}

impl Tagger {
    /// A tagger for flows `connections[i]` = scenario flow `i`, each with `preamble` bytes
    /// before its data.
    pub fn new(connections: &[Connection], preamble: u32) -> Tagger {
        let flows = connections
            .iter()
            .enumerate()
            .map(|(i, c)| (*c, FlowState { index: i as u32, data_start: None }))
            .collect();
        Tagger { flows, preamble }
    }

    /// The frame's tag (`None`: not a numbered segment or ACK of a known flow). `frame` is
    /// what an emulator port reads: virtio_net_hdr, Ethernet, IPv4, TCP.
    pub fn tag(&mut self, frame: &[u8]) -> Option<Tag> {
        self.classify(frame).tag
    }

    /// The frame's tag, and whether the simulator has such a frame ([`Seen`]).
    pub fn classify(&mut self, frame: &[u8]) -> Seen {
        const OUTSIDE: Seen = Seen { tag: None, simulated: false };
        let Some(tcp) = parse(frame) else { return OUTSIDE };
        let forward = Connection { client: tcp.src, server: tcp.dst };
        if let Some(state) = self.flows.get_mut(&forward) {
            if tcp.syn {
                // Frames are seen in order: a repeated SYN carries the same ISN.
                state.data_start = Some(tcp.seq.wrapping_add(1).wrapping_add(self.preamble));
                return OUTSIDE;
            }
            let Some(start) = state.data_start else { return OUTSIDE };
            if tcp.payload == 0 || tcp.fin_or_rst {
                return OUTSIDE;
            }
            let offset = tcp.seq.wrapping_sub(start);
            // Before the data (the preamble) the offset wraps to a huge number: no number.
            if offset > u32::MAX / 2 {
                return Seen { tag: None, simulated: true };
            }
            let tag = Tag { flow: state.index, kind: PacketKind::Data, seq: u64::from(offset), ack: 0 };
            return Seen { tag: Some(tag), simulated: true };
        }
        let backward = Connection { client: tcp.dst, server: tcp.src };
        let Some(state) = self.flows.get(&backward) else { return OUTSIDE };
        let Some(start) = state.data_start else { return OUTSIDE };
        if tcp.syn || !tcp.ack_flag || tcp.payload > 0 || tcp.fin_or_rst {
            return OUTSIDE;
        }
        let acked = tcp.ack.wrapping_sub(start);
        // An ACK of the handshake or the preamble acknowledges no data yet: 0.
        let acked = if acked > u32::MAX / 2 { 0 } else { acked };
        let tag = Tag { flow: state.index, kind: PacketKind::Ack, seq: 0, ack: u64::from(acked) };
        Seen { tag: Some(tag), simulated: true }
    }
}

/// The TCP header of an IPv4 frame (not a fragment).
fn parse(frame: &[u8]) -> Option<TcpView> {
    let ip = frame.get(VNET_HDR_LEN + ETH_HLEN..)?;
    let eth_type = frame.get(VNET_HDR_LEN + 12..VNET_HDR_LEN + 14)?;
    if eth_type != [0x08, 0x00] || ip.len() < 20 || ip[0] >> 4 != 4 || ip[9] != 6 {
        return None;
    }
    let fragment = u16::from_be_bytes([ip[6], ip[7]]) & 0x3fff;
    if fragment != 0 {
        return None;
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
    let tcp = ip.get(ihl..)?;
    if ihl < 20 || tcp.len() < 20 {
        return None;
    }
    let data_offset = usize::from(tcp[12] >> 4) * 4;
    let ip_len = if total >= ihl + data_offset && total <= ip.len() { total } else { ip.len() };
    let payload = ip_len.checked_sub(ihl + data_offset)? as u32;
    let word = |i: usize| u32::from_be_bytes([tcp[i], tcp[i + 1], tcp[i + 2], tcp[i + 3]]);
    let port = |i: usize| u16::from_be_bytes([tcp[i], tcp[i + 1]]);
    let addr = |i: usize| [ip[i], ip[i + 1], ip[i + 2], ip[i + 3]];
    Some(TcpView {
        src: (addr(12), port(0)),
        dst: (addr(16), port(2)),
        seq: word(4),
        ack: word(8),
        syn: tcp[13] & 0x02 != 0,
        ack_flag: tcp[13] & 0x10 != 0,
        fin_or_rst: tcp[13] & 0x05 != 0,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLIENT: ([u8; 4], u16) = ([10, 201, 1, 1], 40000);
    const SERVER: ([u8; 4], u16) = ([10, 201, 2, 1], 5201);

    /// A frame from `src` to `dst` with these sequence numbers, flags and payload length.
    fn frame(
        src: ([u8; 4], u16),
        dst: ([u8; 4], u16),
        seq: u32,
        ack: u32,
        flags: u8,
        payload: usize,
    ) -> Vec<u8> {
        let mut f = vec![0u8; VNET_HDR_LEN + ETH_HLEN];
        f[VNET_HDR_LEN + 12] = 0x08;
        let total = 20 + 20 + payload;
        let mut ip = vec![0u8; 20];
        ip[0] = 0x45;
        ip[2..4].copy_from_slice(&(total as u16).to_be_bytes());
        ip[6] = 0x40; // don't fragment
        ip[9] = 6;
        ip[12..16].copy_from_slice(&src.0);
        ip[16..20].copy_from_slice(&dst.0);
        let mut tcp = vec![0u8; 20];
        tcp[0..2].copy_from_slice(&src.1.to_be_bytes());
        tcp[2..4].copy_from_slice(&dst.1.to_be_bytes());
        tcp[4..8].copy_from_slice(&seq.to_be_bytes());
        tcp[8..12].copy_from_slice(&ack.to_be_bytes());
        tcp[12] = 5 << 4;
        tcp[13] = flags;
        f.extend(ip);
        f.extend(tcp);
        f.extend(vec![0u8; payload]);
        f
    }

    const SYN: u8 = 0x02;
    const ACK: u8 = 0x10;

    #[test]
    fn numbers_data_and_acks_from_the_first_byte_after_the_preamble_across_the_wrap() {
        let conn = Connection { client: CLIENT, server: SERVER };
        let other = Connection { client: ([10, 201, 1, 2], 40000), server: ([10, 201, 2, 2], 5201) };
        let mut t = Tagger::new(&[other, conn], IPERF3_COOKIE);
        // An ISN near the top of the sequence space: the data wraps past 2^32.
        let isn = u32::MAX - 500;
        assert_eq!(t.tag(&frame(SERVER, CLIENT, 0, 0, ACK, 0)), None, "before the SYN: unknown");
        assert_eq!(t.tag(&frame(CLIENT, SERVER, isn, 0, SYN, 0)), None);
        assert_eq!(t.tag(&frame(SERVER, CLIENT, 9, isn.wrapping_add(1), SYN | ACK, 0)), None);
        // The cookie and its ACK carry no segment number.
        assert_eq!(t.tag(&frame(CLIENT, SERVER, isn.wrapping_add(1), 10, ACK, 37)), None);
        let first = isn.wrapping_add(38);
        let ack0 = t.tag(&frame(SERVER, CLIENT, 10, first, ACK, 0)).unwrap();
        assert_eq!((ack0.flow, ack0.kind, ack0.ack), (1, PacketKind::Ack, 0));
        // Segments 0 and 2 (400 bytes each), the second past the wrap.
        let d0 = t.tag(&frame(CLIENT, SERVER, first, 10, ACK, 400)).unwrap();
        assert_eq!((d0.flow, d0.kind, d0.seq), (1, PacketKind::Data, 0));
        let d2 = t.tag(&frame(CLIENT, SERVER, first.wrapping_add(800), 10, ACK, 400)).unwrap();
        assert_eq!(d2.seq, 800);
        let a = t.tag(&frame(SERVER, CLIENT, 10, first.wrapping_add(1200), ACK, 0)).unwrap();
        assert_eq!((a.kind, a.ack), (PacketKind::Ack, 1200));
        // A pure ACK from the client (no payload), other connections, the control connection.
        assert_eq!(t.tag(&frame(CLIENT, SERVER, first.wrapping_add(1200), 10, ACK, 0)), None);
        assert_eq!(t.tag(&frame(([10, 201, 1, 1], 39999), SERVER, 5, 0, ACK, 100)), None);
        // The other flow has seen no SYN yet.
        assert_eq!(t.tag(&frame(other.client, other.server, 7, 0, ACK, 400)), None);
        // Not TCP, a runt.
        let mut udp = frame(CLIENT, SERVER, first, 0, ACK, 400);
        udp[VNET_HDR_LEN + ETH_HLEN + 9] = 17;
        assert_eq!(t.tag(&udp), None);
        assert_eq!(t.tag(&[0u8; 20]), None);
    }

    #[test]
    fn the_simulated_frames_are_the_data_with_the_cookie_and_the_receivers_acks() {
        let conn = Connection { client: CLIENT, server: SERVER };
        let mut t = Tagger::new(&[conn], IPERF3_COOKIE);
        let isn = 1000;
        let first = isn + 1 + IPERF3_COOKIE;
        let simulated = |t: &mut Tagger, f: Vec<u8>| t.classify(&f).simulated;
        const FIN: u8 = 0x01;
        const RST: u8 = 0x04;
        // The handshake: outside.
        assert!(!simulated(&mut t, frame(CLIENT, SERVER, isn, 0, SYN, 0)));
        assert!(!simulated(&mut t, frame(SERVER, CLIENT, 9, isn + 1, SYN | ACK, 0)));
        assert!(!simulated(&mut t, frame(CLIENT, SERVER, isn + 1, 10, ACK, 0)));
        // The cookie (no number) and the receiver's ACK of it: the simulator sends both.
        let cookie = t.classify(&frame(CLIENT, SERVER, isn + 1, 10, ACK, 37));
        assert_eq!(cookie, Seen { tag: None, simulated: true });
        assert!(simulated(&mut t, frame(SERVER, CLIENT, 10, first, ACK, 0)));
        // Data and ACKs.
        let d = t.classify(&frame(CLIENT, SERVER, first, 10, ACK, 400));
        assert!(d.simulated && d.tag.is_some_and(|tag| tag.seq == 0));
        assert!(simulated(&mut t, frame(SERVER, CLIENT, 10, first + 400, ACK, 0)));
        // The close, the control connection, another host: outside.
        assert!(!simulated(&mut t, frame(CLIENT, SERVER, first + 400, 10, ACK | FIN, 0)));
        assert!(!simulated(&mut t, frame(CLIENT, SERVER, first + 400, 10, ACK | FIN, 400)));
        assert!(!simulated(&mut t, frame(SERVER, CLIENT, 10, first + 401, ACK | FIN, 0)));
        assert!(!simulated(&mut t, frame(SERVER, CLIENT, 10, first + 401, RST, 0)));
        assert!(!simulated(&mut t, frame(([10, 201, 1, 1], 39999), SERVER, 5, 0, ACK, 100)));
        assert!(!simulated(&mut t, frame(SERVER, ([10, 201, 1, 1], 39999), 5, 0, ACK, 0)));
        assert!(!t.classify(&[0u8; 20]).simulated);
    }
}
