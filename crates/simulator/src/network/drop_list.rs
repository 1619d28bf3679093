//! Scripted drops: a link loses the first transmission of chosen data segments of one flow.
//!
//! A deterministic loss pattern for experiments and tests in the style of Fall & Floyd (1996,
//! "Simulation-based comparisons of Tahoe, Reno and SACK TCP"), where one, two, three or four
//! packets are dropped from one window. Segment `n` of a flow is the data segment whose first
//! byte is `n * segment_size` (the first segment is 0). Only its first crossing of the link is
//! dropped: the retransmission gets through. Drops are counted as channel errors.

use super::packet::{Packet, PacketKind};
use crate::model::DropListSpec;

#[derive(Debug, Clone)]
pub struct DropList {
    flow: u32,
    /// Sequence numbers (first byte) of the segments still to drop, sorted.
    pending: Vec<u64>,
}

impl DropList {
    pub fn new(spec: &DropListSpec) -> Self {
        let mut pending: Vec<u64> = spec.segments.iter().map(|&n| n * spec.segment_size).collect();
        pending.sort_unstable();
        pending.dedup();
        DropList { flow: spec.flow as u32, pending }
    }

    /// Whether the link drops this packet (and forgets the segment, so it is dropped once).
    pub fn drops(&mut self, packet: &Packet) -> bool {
        if packet.kind != PacketKind::Data || packet.flow != self.flow {
            return false;
        }
        match self.pending.binary_search(&packet.seq) {
            Ok(i) => {
                self.pending.remove(i);
                true
            }
            Err(_) => false,
        }
    }

    /// Segments not dropped yet (never sent, or the list named them twice).
    pub fn pending(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::network::SackBlocks;

    fn data(flow: u32, seq: u64) -> Packet {
        Packet {
            kind: PacketKind::Data,
            flow,
            src: 0,
            dst: 1,
            seq,
            len: 1000,
            ack: 0,
            window: 0,
            size: 1040,
            sack: SackBlocks::NONE,
            path: 0,
        }
    }

    #[test]
    fn drops_the_first_transmission_of_each_listed_segment_of_one_flow() {
        let spec = DropListSpec { flow_name: "f".into(), flow: 1, segment_size: 1000, segments: vec![14, 3] };
        let mut list = DropList::new(&spec);
        assert!(!list.drops(&data(0, 3000)), "another flow");
        assert!(list.drops(&data(1, 3000)));
        assert!(!list.drops(&data(1, 3000)), "the retransmission passes");
        assert!(!list.drops(&data(1, 4000)));
        let mut ack = data(1, 14_000);
        ack.kind = PacketKind::Ack;
        assert!(!list.drops(&ack));
        assert_eq!(list.pending(), 1);
        assert!(list.drops(&data(1, 14_000)));
        assert_eq!(list.pending(), 0);
    }
}
