//! Scripted drops: a link loses the first transmission of chosen data segments of one flow.
//!
//! A deterministic loss pattern for experiments and tests in the style of Fall & Floyd (1996,
//! "Simulation-based comparisons of Tahoe, Reno and SACK TCP"), where one, two, three or four
//! packets are dropped from one window. Segment `n` of a flow is the data segment whose first
//! byte is `n * segment_size` (the first segment is 0). Only its first crossing of the link is
//! dropped: the retransmission gets through. Drops are counted as channel errors.
//!
//! ```toml
//! [links.bottleneck]
//! errors = { model = "drop-list", flow = "ftp", segments = [14, 26, 28] }
//! ```
//!
//! The flow is named as the scenario names it (with `count`, `"ftp.0"`, `"ftp.1"`, ...), and
//! resolved once the flows are known.

use toml::Value;

use super::ModelEntry;
use crate::model::{DropListSpec, ErrorSpec, FlowSpec, LinkSpec};
use crate::network::packet::{Packet, PacketKind};
use crate::scenario::fields::{self, describe, Section};
use crate::scenario::{echo, echo_list, FieldError, Res};

pub(crate) const ENTRY: ModelEntry =
    ModelEntry { names: &["drop-list", "drop_list"], keys: &["flow", "segments"], parse };

/// Parse a `drop-list` table (its keys already checked). The flow is resolved later, by
/// [`resolve`].
fn parse(section: &Section) -> Res<Option<ErrorSpec>> {
    let (v, f) = section.required("flow", "the name of the flow whose segments are dropped")?;
    let flow_name = fields::string(v, &f, "a flow name")?.trim().to_string();
    const SEGMENTS: &str = "an array of segment numbers counted from 0, like [14, 26, 28]";
    let (v, f) = section.required("segments", SEGMENTS)?;
    let Value::Array(items) = v else {
        return Err(FieldError::new(f, format!("expected {SEGMENTS}, found {}", describe(v))));
    };
    let segments = items
        .iter()
        .enumerate()
        .map(|(i, item)| fields::uint(item, &format!("{f}[{i}]")))
        .collect::<Res<Vec<u64>>>()?;
    Ok(Some(ErrorSpec::DropList(DropListSpec { flow_name, flow: usize::MAX, segment_size: 0, segments })))
}

/// Resolve the flow of every drop list to its index and segment size.
pub(crate) fn resolve(links: &mut [LinkSpec], flows: &[FlowSpec]) -> Res<()> {
    for link in links {
        let field = format!("links.{}.errors", link.name.strip_suffix(".reverse").unwrap_or(&link.name));
        if let Some(spec) = link.errors.as_mut() {
            resolve_spec(spec, &field, flows)?;
        }
    }
    Ok(())
}

fn resolve_spec(spec: &mut ErrorSpec, field: &str, flows: &[FlowSpec]) -> Res<()> {
    match spec {
        ErrorSpec::Any(parts) => parts.iter_mut().try_for_each(|p| resolve_spec(p, field, flows)),
        ErrorSpec::DropList(list) => {
            let Some(index) = flows.iter().position(|f| f.name == list.flow_name) else {
                return Err(FieldError::new(
                    fields::join(field, "flow"),
                    format!(
                        "no flow named {}; the flows are: {}",
                        echo(&list.flow_name),
                        echo_list(flows.iter().map(|f| &f.name))
                    ),
                ));
            };
            list.flow = index;
            list.segment_size = flows[index].tcp.segment_size;
            Ok(())
        }
        _ => Ok(()),
    }
}

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

#[cfg(test)]
mod scenario_tests {
    use crate::model::{DropListSpec, ErrorSpec};
    use crate::scenario::load_str;

    const BASE: &str = r#"
[scenario]
duration = "10s"
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "5Mbps"
delay = "30ms"
errors = ERRORS
[flows.other]
from = "a"
to = "b"
[flows.ftp]
from = "a"
to = "b"
segment_size = "500B"
"#;

    fn with(errors: &str) -> Result<crate::model::Scenario, crate::scenario::ScenarioError> {
        load_str(&BASE.replace("ERRORS", errors), "t.toml", &[])
    }

    #[test]
    fn a_drop_list_names_a_flow_and_its_segments() {
        let s =
            with(r#"{ model = "drop-list", flow = "ftp", segments = [14, 26, 28], direction = "forward" }"#)
                .unwrap();
        let ftp = s.flows.iter().position(|f| f.name == "ftp").unwrap();
        let expected = DropListSpec {
            flow_name: "ftp".into(),
            flow: ftp,
            segment_size: 500,
            segments: vec![14, 26, 28],
        };
        assert_eq!(s.links[0].errors, Some(ErrorSpec::DropList(expected)));
        assert_eq!(s.links[1].errors, None);
    }

    #[test]
    fn drop_list_mistakes_name_the_field() {
        let cases = [
            (r#"{ model = "drop-list", flow = "nope", segments = [1] }"#, "links.l.errors.flow"),
            (r#"{ model = "drop-list", flow = "ftp", segments = 3 }"#, "links.l.errors.segments"),
            (r#"{ model = "drop-list", flow = "ftp", segments = [1, -2] }"#, "links.l.errors.segments[1]"),
            (r#"{ model = "drop-list", segments = [1] }"#, "links.l.errors.flow"),
            (r#"{ model = "drop-list", flow = "ftp", segments = [1], rate = "1%" }"#, "links.l.errors.rate"),
        ];
        for (errors, field) in cases {
            let e = with(errors).unwrap_err();
            assert_eq!(e.field, field, "{errors}: {e}");
        }
    }
}
