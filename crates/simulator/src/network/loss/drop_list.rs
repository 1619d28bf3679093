//! Scripted drops: a link loses the first transmission of chosen data segments of one flow, the
//! first retransmission of chosen ones, and chosen ACKs of it.
//!
//! A deterministic loss pattern for experiments and tests in the style of Fall & Floyd (1996,
//! "Simulation-based comparisons of Tahoe, Reno and SACK TCP"), where one, two, three or four
//! packets are dropped from one window. Segment `n` of a flow is the data segment whose first
//! byte is `n * segment_size` (the first segment is 0). Only its first crossing of the link is
//! dropped: the retransmission gets through, unless `retransmissions` lists the segment too, which
//! drops its second crossing of the link (the first retransmission, whether or not the first
//! transmission was dropped; later ones pass). `acks = [n, ...]` drops, for each `n`, the first
//! ACK of the flow that acknowledges segment `n` (cumulative acknowledgment number at least
//! `(n + 1) * segment_size`); one ACK that covers several listed segments is dropped once, for
//! all of them; DUPACKs acknowledge nothing new and always pass. Drops are counted as channel
//! errors. ACKs travel the reverse direction of a duplex link, so a list with `acks` needs
//! `direction = "both"` (or a link of their own path) to see them.
//!
//! ```toml
//! [links.bottleneck]
//! errors = { model = "drop-list", flow = "ftp", segments = [14, 26, 28] }
//! ```
//!
//! The flow is named as the scenario names it (with `count`, `"ftp.0"`, `"ftp.1"`, ...), and
//! resolved once the flows are known. The testbed numbers kernel TCP's segments the same way,
//! from the first byte of the application's data after iperf3's cookie
//! (`crates/emulator/src/segments.rs`); a flow with a `preamble` (the testbed's simulator run
//! sets iperf3's) is numbered from the byte after it.

use toml::Value;

use super::{LossKind, LossModel, ModelEntry};
use crate::fields::{self, describe, echo, echo_list, FieldError, Res, Section};
use crate::model::{FlowSpec, LinkSpec, LossSetting, Nanos};
use crate::network::packet::{Packet, PacketKind};

pub(crate) const ENTRY: ModelEntry = ModelEntry {
    names: &["drop-list", "drop_list"],
    keys: &["flow", "segments", "acks", "retransmissions"],
    parse,
    build,
};

/// The model's settings: drop the first transmission of data segments `segments` (numbered
/// from 0, segment `n` starting at byte `first_byte + n * segment_size`) of flow `flow`, the
/// first retransmission of `retransmissions`, and the first ACK that acknowledges each segment
/// of `acks`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropListSpec {
    /// The flow's name, as the scenario gave it.
    pub flow_name: String,
    /// Index of the flow in `Scenario::flows` (resolved from the name once flows are known).
    pub flow: usize,
    /// The flow's segment size, bytes (resolved with the index).
    pub segment_size: u64,
    /// The flow's first byte of bulk data, after its `preamble` (resolved with the index):
    /// segment `n` starts at `first_byte + n * segment_size`.
    pub first_byte: u64,
    pub segments: Vec<u64>,
    pub acks: Vec<u64>,
    /// Segments whose second crossing of the link (their first retransmission) is dropped.
    pub retransmissions: Vec<u64>,
}

/// Scripted drops as a link's loss model.
pub fn setting(spec: DropListSpec) -> LossSetting {
    super::setting(&ENTRY, spec)
}

fn build(setting: &LossSetting, _seed: u64, _stream: &str) -> Option<Box<dyn LossModel>> {
    Some(Box::new(DropList::new(setting.get::<DropListSpec>()?)))
}

/// Parse a `drop-list` table (its keys already checked). The flow is resolved later, by
/// [`resolve`].
fn parse(section: &Section) -> Res<Option<LossSetting>> {
    let (v, f) = section.required("flow", "the name of the flow whose segments are dropped")?;
    let flow_name = fields::string(v, &f, "a flow name")?.trim().to_string();
    const SEGMENTS: &str = "an array of segment numbers counted from 0, like [14, 26, 28]";
    let segments = match section.get("segments") {
        Some((v, f)) => numbers(v, &f, SEGMENTS)?,
        None => Vec::new(),
    };
    let acks = match section.get("acks") {
        Some((v, f)) => numbers(v, &f, SEGMENTS)?,
        None => Vec::new(),
    };
    let retransmissions = match section.get("retransmissions") {
        Some((v, f)) => numbers(v, &f, SEGMENTS)?,
        None => Vec::new(),
    };
    if ["segments", "acks", "retransmissions"].iter().all(|k| section.get(k).is_none()) {
        section.required("segments", SEGMENTS)?;
    }
    Ok(Some(setting(DropListSpec {
        flow_name,
        flow: usize::MAX,
        segment_size: 0,
        first_byte: 0,
        segments,
        acks,
        retransmissions,
    })))
}

/// An array of distinct segment numbers.
fn numbers(v: &Value, f: &str, expected: &str) -> Res<Vec<u64>> {
    let Value::Array(items) = v else {
        return Err(FieldError::new(f, format!("expected {expected}, found {}", describe(v))));
    };
    let mut seen = std::collections::HashSet::new();
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let field = format!("{f}[{i}]");
            let n = fields::uint(item, &field)?;
            if !seen.insert(n) {
                return Err(FieldError::new(
                    field,
                    format!("segment {n} is listed twice; each segment is dropped once, list it once"),
                ));
            }
            Ok(n)
        })
        .collect()
}

/// Resolve the flow of every drop list to its index, segment size and first byte.
pub(crate) fn resolve(links: &mut [LinkSpec], flows: &[FlowSpec]) -> Res<()> {
    for link in links {
        let field = format!("links.{}.errors", link.name.strip_suffix(".reverse").unwrap_or(&link.name));
        let Some(spec) = link.errors.as_mut() else { continue };
        for_each_drop_list(spec, &mut |list| {
            let Some(index) = flows.iter().position(|f| f.name == list.flow_name) else {
                return Err(FieldError::new(
                    fields::join(&field, "flow"),
                    format!(
                        "no TCP flow named {}; the flows are: {} (UDP sources have no segments to \
                         number)",
                        echo(&list.flow_name),
                        echo_list(flows.iter().map(|f| &f.name))
                    ),
                ));
            };
            list.flow = index;
            list.segment_size = flows[index].tcp.segment_size;
            list.first_byte = flows[index].tcp.preamble;
            Ok(())
        })?;
    }
    Ok(())
}

/// Number every resolved drop list's segments from the byte after its flow's `preamble`, as it
/// is now: for a caller that changed a preamble after loading (the testbed's simulator run sets
/// iperf3's cookie).
pub fn follow_preambles(links: &mut [LinkSpec], flows: &[FlowSpec]) {
    for spec in links.iter_mut().filter_map(|l| l.errors.as_mut()) {
        let Ok(()) = for_each_drop_list(spec, &mut |list| -> Result<(), std::convert::Infallible> {
            if let Some(flow) = flows.get(list.flow) {
                list.first_byte = flow.tcp.preamble;
            }
            Ok(())
        });
    }
}

/// Call `f` on every drop list of `spec`, putting back what it changed.
fn for_each_drop_list<E>(
    spec: &mut crate::model::ErrorSpec,
    f: &mut impl FnMut(&mut DropListSpec) -> Result<(), E>,
) -> Result<(), E> {
    for model in &mut spec.models {
        let Some(list) = model.get::<DropListSpec>() else { continue };
        let mut list = list.clone();
        f(&mut list)?;
        *model = setting(list);
    }
    Ok(())
}

#[derive(Debug, Clone)]
pub struct DropList {
    flow: u32,
    /// Sequence numbers (first byte) of the segments still to drop, sorted.
    pending: Vec<u64>,
    /// Acknowledgment numbers that cover the segments whose first ACK is still to drop, sorted.
    pending_acks: Vec<u64>,
    /// Sequence numbers of the segments whose first retransmission is still to drop, sorted,
    /// each with whether its first transmission has crossed the link.
    pending_retransmissions: Vec<(u64, bool)>,
}

impl DropList {
    pub fn new(spec: &DropListSpec) -> Self {
        // A number whose byte offset is past u64 names a segment no run reaches: saturate, and
        // the entry never matches (as for any segment beyond the run's end).
        let sorted = |numbers: &[u64], offset: u64| {
            let mut v: Vec<u64> = numbers
                .iter()
                .map(|&n| {
                    n.saturating_add(offset).saturating_mul(spec.segment_size).saturating_add(spec.first_byte)
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        DropList {
            flow: spec.flow as u32,
            pending: sorted(&spec.segments, 0),
            pending_acks: sorted(&spec.acks, 1),
            pending_retransmissions: sorted(&spec.retransmissions, 0)
                .into_iter()
                .map(|s| (s, false))
                .collect(),
        }
    }

    /// Whether the link drops this packet (and forgets the segment, so it is dropped once).
    pub fn drops(&mut self, packet: &Packet) -> bool {
        if packet.flow != self.flow {
            return false;
        }
        match packet.kind {
            PacketKind::Data => {
                let mut dropped = false;
                if let Ok(i) = self.pending.binary_search(&packet.seq) {
                    self.pending.remove(i);
                    dropped = true;
                }
                if let Ok(i) = self.pending_retransmissions.binary_search_by_key(&packet.seq, |&(seq, _)| seq)
                {
                    if self.pending_retransmissions[i].1 {
                        self.pending_retransmissions.remove(i);
                        dropped = true;
                    } else {
                        self.pending_retransmissions[i].1 = true;
                    }
                }
                dropped
            }
            PacketKind::Ack => {
                // Every listed segment this ACK covers for the first time.
                let covered = self.pending_acks.partition_point(|&end| end <= packet.ack);
                self.pending_acks.drain(..covered);
                covered > 0
            }
            _ => false,
        }
    }

    /// Segments, retransmissions and ACKs not dropped yet (never sent, never resent, or never
    /// acknowledged).
    pub fn pending(&self) -> usize {
        self.pending.len() + self.pending_acks.len() + self.pending_retransmissions.len()
    }
}

impl LossModel for DropList {
    fn loses(&mut self, packet: &Packet, _now: Nanos) -> bool {
        self.drops(packet)
    }

    fn kind(&self) -> LossKind {
        LossKind::Scripted
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::network::SackBlocks;

    pub(crate) fn data(flow: u32, seq: u64) -> Packet {
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
            push: false,
        }
    }

    #[test]
    fn drops_the_first_retransmission_of_each_segment_listed_in_retransmissions() {
        // Segment 3: both its first transmission and its first retransmission; segment 5: only
        // its first retransmission (its first transmission passes). Later crossings pass.
        let spec = DropListSpec {
            flow_name: "f".into(),
            flow: 1,
            segment_size: 1000,
            first_byte: 0,
            segments: vec![3],
            acks: vec![],
            retransmissions: vec![5, 3],
        };
        let mut list = DropList::new(&spec);
        assert_eq!(list.pending(), 3);
        assert!(!list.drops(&data(0, 3000)), "another flow's segment is no crossing of this one");
        assert!(list.drops(&data(1, 3000)), "3: first transmission");
        assert!(!list.drops(&data(1, 5000)), "5: first transmission passes");
        assert!(list.drops(&data(1, 3000)), "3: first retransmission");
        assert!(!list.drops(&data(1, 3000)), "3: second retransmission passes");
        assert!(list.drops(&data(1, 5000)), "5: first retransmission");
        assert!(!list.drops(&data(1, 5000)));
        assert!(!list.drops(&data(1, 4000)), "4 is not listed");
        assert_eq!(list.pending(), 0);
    }

    #[test]
    fn drops_the_first_transmission_of_each_listed_segment_of_one_flow() {
        let spec = DropListSpec {
            flow_name: "f".into(),
            flow: 1,
            segment_size: 1000,
            first_byte: 0,
            segments: vec![14, 3],
            acks: vec![],
            retransmissions: vec![],
        };
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

    fn ack(flow: u32, n: u64) -> Packet {
        Packet { kind: PacketKind::Ack, ack: n, len: 0, size: 40, ..data(flow, 0) }
    }

    #[test]
    fn a_segment_number_past_any_byte_offset_never_matches_and_does_not_overflow() {
        let spec = DropListSpec {
            flow_name: "f".into(),
            flow: 1,
            segment_size: 400,
            first_byte: 0,
            segments: vec![u64::MAX / 2, 3],
            acks: vec![i64::MAX as u64],
            retransmissions: vec![],
        };
        let mut list = DropList::new(&spec);
        assert!(list.drops(&data(1, 1200)));
        assert!(!list.drops(&data(1, 4000)));
        assert!(!list.drops(&ack(1, 1 << 40)));
        assert_eq!(list.pending(), 2);
    }

    #[test]
    fn drops_the_first_ack_that_covers_each_listed_segment() {
        let spec = DropListSpec {
            flow_name: "f".into(),
            flow: 1,
            segment_size: 1000,
            first_byte: 0,
            segments: vec![],
            acks: vec![5, 6, 9],
            retransmissions: vec![],
        };
        let mut list = DropList::new(&spec);
        assert!(!list.drops(&ack(1, 5_000)), "covers segments 0-4 only");
        assert!(!list.drops(&ack(0, 7_000)), "another flow");
        assert!(!list.drops(&data(1, 5_000)), "data passes");
        // A delayed ACK covering 5 and 6 is the first ACK of both: dropped once.
        assert!(list.drops(&ack(1, 7_000)));
        assert_eq!(list.pending(), 1);
        assert!(!list.drops(&ack(1, 7_000)), "a DUPACK of it passes");
        assert!(!list.drops(&ack(1, 9_000)));
        assert!(list.drops(&ack(1, 12_000)));
        assert!(!list.drops(&ack(1, 12_000)));
        assert_eq!(list.pending(), 0);
    }
}
