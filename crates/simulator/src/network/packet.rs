//! A packet as it crosses the simulated network.

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PacketKind {
    /// A TCP segment with payload `[seq, seq + len)`.
    Data,
    /// A pure TCP acknowledgment carrying cumulative ACK number `ack` and window `window`.
    Ack,
    /// A UDP datagram of a traffic source (`flow` is the source's index).
    Datagram,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Packet {
    pub kind: PacketKind,
    /// Index of the flow (or, for datagrams, the source) the packet belongs to.
    pub flow: u32,
    /// Source and destination node indices.
    pub src: u32,
    pub dst: u32,
    /// First payload byte (data).
    pub seq: u64,
    /// Payload bytes (data), 0 for ACKs.
    pub len: u32,
    /// Cumulative acknowledgment number (ACK).
    pub ack: u64,
    /// Advertised receive window (ACK), bytes.
    pub window: u64,
    /// Bytes on the wire: payload plus headers.
    pub size: u32,
}
