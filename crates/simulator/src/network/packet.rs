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
    /// RFC 2018 SACK blocks (ACKs of flows that use SACK; empty otherwise).
    pub sack: SackBlocks,
    /// Multipath flows: 1 + the index of the path the packet follows (`network::multipath`);
    /// 0: ordinary shortest-path routing.
    pub path: u8,
    /// A data segment carrying PSH (`push_flag = "linux"`, `tcp/push.rs`).
    pub push: bool,
}

/// Up to three SACK blocks (RFC 2018 §3: three fit beside a timestamp option), most recent
/// first, stored compactly as offsets from the ACK's cumulative ACK number: block `i` covers
/// `[ack + start, ack + end)`. Offsets are 32-bit, like TCP sequence numbers; a block further
/// than 4 GiB above the ACK number cannot be carried (and is not: see [`SackBlocks::push`]).
/// Blocks are never empty, so an unused slot is `(0, 0)` and no count is stored (24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlocks {
    edges: [(u32, u32); SackBlocks::MAX],
}

impl SackBlocks {
    /// The most blocks an ACK carries.
    pub const MAX: usize = 3;
    /// No SACK option.
    pub const NONE: SackBlocks = SackBlocks { edges: [(0, 0); SackBlocks::MAX] };

    /// Append the block `[start, end)` to an ACK whose cumulative ACK number is `ack`. Returns
    /// false (and adds nothing) when the option is full or the block is empty, not above `ack`,
    /// or too far above it.
    pub fn push(&mut self, ack: u64, start: u64, end: u64) -> bool {
        let len = self.len();
        if len == Self::MAX || start >= end || start < ack {
            return false;
        }
        let (Ok(s), Ok(e)) = (u32::try_from(start - ack), u32::try_from(end - ack)) else {
            return false;
        };
        self.edges[len] = (s, e);
        true
    }

    pub fn len(&self) -> usize {
        self.edges.iter().take_while(|&&(_, e)| e != 0).count()
    }

    pub fn is_empty(&self) -> bool {
        self.edges[0].1 == 0
    }

    /// The blocks as absolute `[start, end)` sequence ranges, in the order they were pushed.
    pub fn iter(&self, ack: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.edges
            .iter()
            .take_while(|&&(_, e)| e != 0)
            .map(move |&(s, e)| (ack + u64::from(s), ack + u64::from(e)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_blocks_round_trip_relative_to_the_ack_and_stay_small() {
        let mut blocks = SackBlocks::NONE;
        assert!(blocks.is_empty());
        assert!(blocks.push(1000, 3000, 5000));
        assert!(!blocks.push(1000, 500, 900), "below the ACK");
        assert!(!blocks.push(1000, 2000, 2000), "empty");
        assert!(!blocks.push(1000, 1 << 40, (1 << 40) + 1), "too far above the ACK");
        assert!(blocks.push(1000, 7000, 8000));
        assert!(blocks.push(1000, 1000, 2000));
        assert!(!blocks.push(1000, 9000, 9500), "full");
        assert_eq!(blocks.len(), 3);
        assert_eq!(blocks.iter(1000).collect::<Vec<_>>(), vec![(3000, 5000), (7000, 8000), (1000, 2000)]);
        assert_eq!(std::mem::size_of::<SackBlocks>(), 24);
        // 48 bytes before SACK blocks; they add 24.
        assert!(std::mem::size_of::<Packet>() <= 72, "{}", std::mem::size_of::<Packet>());
    }
}
