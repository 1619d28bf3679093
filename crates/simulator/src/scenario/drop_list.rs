//! The `drop-list` error model: scripted drops of chosen data segments of one flow
//! (`network::drop_list`).
//!
//! ```toml
//! [links.bottleneck]
//! errors = { model = "drop-list", flow = "ftp", segments = [14, 26, 28] }
//! ```
//!
//! Segments are numbered from 0 (segment `n` starts at byte `n * segment_size`); the first
//! transmission of each is lost on the link, its retransmissions pass. The flow is named as the
//! scenario names it (with `count`, `"ftp.0"`, `"ftp.1"`, ...), and resolved once the flows
//! are known.

use toml::Value;

use super::fields::{self, describe, Section};
use super::{echo, echo_list, FieldError, Res};
use crate::model::{DropListSpec, ErrorSpec, FlowSpec, LinkSpec};

/// The keys of a `drop-list` table.
pub(super) const KEYS: &[&str] = &["model", "flow", "segments", "direction"];

/// Parse a `drop-list` table (its keys already checked). The flow is resolved later, by
/// [`resolve`].
pub(super) fn parse(section: &Section) -> Res<ErrorSpec> {
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
    Ok(ErrorSpec::DropList(DropListSpec { flow_name, flow: usize::MAX, segment_size: 0, segments }))
}

/// Resolve the flow of every drop list to its index and segment size.
pub(super) fn resolve(links: &mut [LinkSpec], flows: &[FlowSpec]) -> Res<()> {
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

#[cfg(test)]
mod tests {
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
