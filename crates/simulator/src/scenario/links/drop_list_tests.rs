//! The `drop-list` error model as a scenario sets it: names, numbering, mistakes.

use crate::model::ErrorSpec;
use crate::network::loss::drop_list::{self, DropList, DropListSpec};
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
    let s = with(r#"{ model = "drop-list", flow = "ftp", segments = [14, 26, 28], direction = "forward" }"#)
        .unwrap();
    let ftp = s.flows.iter().position(|f| f.name == "ftp").unwrap();
    let expected = DropListSpec {
        flow_name: "ftp".into(),
        flow: ftp,
        segment_size: 500,
        first_byte: 0,
        segments: vec![14, 26, 28],
        acks: vec![],
        retransmissions: vec![],
    };
    assert_eq!(s.links[0].errors, Some(ErrorSpec::one(drop_list::setting(expected))));
    assert_eq!(s.links[1].errors, None);
}

#[test]
fn segments_are_numbered_from_the_byte_after_the_flows_preamble() {
    let text = BASE.replace("ERRORS", r#"{ model = "drop-list", flow = "ftp", segments = [2], acks = [4] }"#);
    let mut s = load_str(
        &text.replace("segment_size = \"500B\"", "segment_size = \"500B\"\npreamble = \"37B\""),
        "t.toml",
        &[],
    )
    .unwrap();
    let list = |s: &crate::model::Scenario| -> DropListSpec {
        s.links[0].errors.as_ref().and_then(|e| e.settings::<DropListSpec>().next()).unwrap().clone()
    };
    let first_byte = |s: &crate::model::Scenario| list(s).first_byte;
    assert_eq!(first_byte(&s), 37);
    let spec = list(&s);
    let mut drops = DropList::new(&spec);
    let ftp = spec.flow as u32;
    let segment = |seq| crate::network::Packet { seq, ..drop_list::tests::data(ftp, 0) };
    assert!(!drops.drops(&segment(1000)), "without the preamble segment 2 would start here");
    assert!(drops.drops(&segment(1037)));
    // A preamble set after loading (the testbed's simulator run): follow it.
    for f in &mut s.flows {
        f.tcp.preamble = 0;
    }
    drop_list::follow_preambles(&mut s.links, &s.flows);
    assert_eq!(first_byte(&s), 0);
}

#[test]
fn drop_list_mistakes_name_the_field() {
    let cases = [
        (r#"{ model = "drop-list", flow = "nope", segments = [1] }"#, "links.l.errors.flow"),
        (r#"{ model = "drop-list", flow = "ftp", segments = 3 }"#, "links.l.errors.segments"),
        (r#"{ model = "drop-list", flow = "ftp", segments = [1, -2] }"#, "links.l.errors.segments[1]"),
        (r#"{ model = "drop-list", segments = [1] }"#, "links.l.errors.flow"),
        (r#"{ model = "drop-list", flow = "ftp", segments = [1], rate = "1%" }"#, "links.l.errors.rate"),
        (r#"{ model = "drop-list", flow = "ftp", segments = [4, 2, 4] }"#, "links.l.errors.segments[2]"),
        (r#"{ model = "drop-list", flow = "ftp", acks = [1, 1] }"#, "links.l.errors.acks[1]"),
        (r#"{ model = "drop-list", flow = "ftp", acks = [-1] }"#, "links.l.errors.acks[0]"),
        (
            r#"{ model = "drop-list", flow = "ftp", retransmissions = [3, 3] }"#,
            "links.l.errors.retransmissions[1]",
        ),
        (r#"{ model = "drop-list", flow = "ftp", retransmissions = "3" }"#, "links.l.errors.retransmissions"),
        (r#"{ model = "drop-list", flow = "ftp" }"#, "links.l.errors.segments"),
    ];
    for (errors, field) in cases {
        let e = with(errors).unwrap_err();
        assert_eq!(e.field, field, "{errors}: {e}");
    }
    // `retransmissions` alone is a list.
    let s = with(r#"{ model = "drop-list", flow = "ftp", retransmissions = [7] }"#).unwrap();
    let spec = s.links[0].errors.as_ref().and_then(|e| e.settings::<DropListSpec>().next()).unwrap();
    assert_eq!((spec.segments.len(), spec.retransmissions.as_slice()), (0, &[7][..]));
}
