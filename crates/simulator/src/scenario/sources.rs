//! `[sources.NAME]`: traffic that does not react to congestion.
//!
//! ```toml
//! [sources.udp1]
//! kind = "cbr"                  # UDP constant bit rate
//! from = "src"
//! to = "dst"
//! rate = "1Mbps"                # while ON
//! packet_size = "1000B"         # on the wire; default 1000B
//! on = [["25s", "200s"]]        # ON intervals [start, stop); default: the whole run
//! # or exponential ON/OFF periods, drawn from the stream "source:udp1" of the scenario seed:
//! # on = { mean_on = "1s", mean_off = "1s" }
//! ```

use toml::Value;

use super::fields::{self, describe, Section};
use super::nodes::{node_index, Nodes};
use super::units::format_duration;
use super::{echo, FieldError, Res};
use crate::engine::rng::RngStream;
use crate::model::{Nanos, SourceKind, SourceSpec};

pub(crate) const SOURCE_KEYS: &[&str] = &["kind", "from", "to", "rate", "packet_size", "on"];

pub(crate) fn source(
    section: Section,
    name: &str,
    nodes: &Nodes,
    duration: Nanos,
    seed: u64,
) -> Res<SourceSpec> {
    let (v, f) = section.required("kind", "the kind of source: \"cbr\"")?;
    let kind = fields::string(v, &f, "the kind of source: \"cbr\"")?;
    if !kind.trim().eq_ignore_ascii_case("cbr") {
        return Err(FieldError::new(
            f,
            format!("unknown source kind {kind}; expected \"cbr\"", kind = echo(kind)),
        ));
    }
    let (v, f) = section.required("from", "the name of the sending node")?;
    let src = node_index(nodes, v, &f)?;
    let (v, f) = section.required("to", "the name of the receiving node")?;
    let dst = node_index(nodes, v, &f)?;
    if src == dst {
        return Err(FieldError::new(f, "a source needs two different nodes"));
    }
    let (v, f) = section.required("rate", "the sending rate while ON, like \"1Mbps\"")?;
    let rate_bps = fields::rate(v, &f)?;
    let packet_size = match section.get("packet_size") {
        Some((v, f)) => {
            let n = fields::packet_size(v, &f)?;
            if n == 0 {
                return Err(FieldError::new(f, "must be at least 1 byte"));
            }
            n
        }
        None => 1000,
    };
    let on = match section.get("on") {
        None => vec![(0, duration)],
        Some((Value::Table(t), f)) => {
            exponential_on_off(Section::new(&f, t, ON_OFF_KEYS)?, name, duration, seed)?
        }
        Some((v, f)) => intervals(v, &f, duration)?,
    };
    Ok(SourceSpec { name: name.to_string(), src, dst, kind: SourceKind::Cbr { rate_bps, packet_size, on } })
}

const ON_OFF_KEYS: &[&str] = &["mean_on", "mean_off"];

/// Most ON periods an exponential ON/OFF source may have in one run (they are drawn up front).
const MAX_ON_PERIODS: usize = 1_000_000;

/// `{ mean_on, mean_off }`: alternating ON and OFF periods with exponentially distributed lengths
/// (means `mean_on`, `mean_off`), starting with an ON period at time 0, drawn from the source's
/// own stream `RngStream::new(seed, "source:NAME")` and clipped to the run.
/// Why ON and OFF periods have a floor: the schedule is drawn for the whole run up front.
const ON_OFF_COST: &str = "at most 10^6 ON/OFF periods per simulated second";

fn exponential_on_off(section: Section, name: &str, duration: Nanos, seed: u64) -> Res<Vec<(Nanos, Nanos)>> {
    let (v, f) = section.required("mean_on", "the mean ON period, like \"1s\"")?;
    let mean_on = fields::duration_at_least(v, &f, fields::MIN_STATE_DURATION_NS, ON_OFF_COST)?;
    let (v, f) = section.required("mean_off", "the mean OFF period, like \"1s\"")?;
    let mean_off = fields::duration_at_least(v, &f, fields::MIN_STATE_DURATION_NS, ON_OFF_COST)?;
    let mut rng = RngStream::new(seed, &format!("source:{name}"));
    // Rounded to whole nanoseconds; an ON period that rounds to 0 is dropped.
    let mut draw = |mean: Nanos| rng.exponential(mean as f64).round() as Nanos;
    let mut out = Vec::new();
    let mut t: Nanos = 0;
    while t < duration {
        let on = draw(mean_on);
        let off = draw(mean_off);
        let stop = t.saturating_add(on).min(duration);
        if stop > t {
            if out.len() == MAX_ON_PERIODS {
                return Err(FieldError::new(
                    section.path,
                    format!(
                        "more than {MAX_ON_PERIODS} ON periods in the run: mean_on + mean_off is too \
                         small for scenario.duration"
                    ),
                ));
            }
            out.push((t, stop));
        }
        t = t.saturating_add(on).saturating_add(off);
    }
    Ok(out)
}

/// `[["25s", "200s"], ["300s", "400s"]]`: sorted, non-overlapping, each start < stop.
fn intervals(v: &Value, field: &str, duration: Nanos) -> Res<Vec<(Nanos, Nanos)>> {
    let expected = "a list of [start, stop] pairs like [[\"25s\", \"200s\"]]";
    let Value::Array(items) = v else {
        return Err(FieldError::new(field, format!("expected {expected}, found {}", describe(v))));
    };
    let mut out: Vec<(Nanos, Nanos)> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("{field}[{i}]");
        let pair = match item {
            Value::Array(pair) if pair.len() == 2 => pair,
            other => {
                return Err(FieldError::new(
                    path,
                    format!("expected a [start, stop] pair, found {}", describe(other)),
                ))
            }
        };
        let start = fields::duration(&pair[0], &format!("{path}[0]"))?;
        let stop = fields::duration(&pair[1], &format!("{path}[1]"))?;
        if stop <= start {
            return Err(FieldError::new(
                path,
                format!("stop {} must be after start {}", format_duration(stop), format_duration(start)),
            ));
        }
        if let Some(&(_, previous_stop)) = out.last() {
            if start < previous_stop {
                return Err(FieldError::new(path, "ON intervals must be sorted and must not overlap"));
            }
        }
        out.push((start, stop.min(duration)));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use crate::model::SourceKind;
    use crate::scenario::load_str;

    const BASE: &str = r#"
[scenario]
duration = "100s"
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "5Mbps"
delay = "30ms"
"#;

    fn load(extra: &str) -> Result<crate::model::Scenario, crate::scenario::ScenarioError> {
        load_str(&format!("{BASE}{extra}"), "t.toml", &[])
    }

    #[test]
    fn parses_a_cbr_source_with_on_intervals() {
        let s = load(
            "[sources.udp1]\nkind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\npacket_size = \"500B\"\non = [[\"25s\", \"50s\"], [\"75s\", \"200s\"]]\n",
        )
        .unwrap();
        let SourceKind::Cbr { rate_bps, packet_size, on } = &s.sources[0].kind;
        assert_eq!((*rate_bps, *packet_size), (1_000_000, 500));
        // The second interval is clipped to the run.
        assert_eq!(on, &vec![(25_000_000_000, 50_000_000_000), (75_000_000_000, 100_000_000_000)]);
    }

    #[test]
    fn rejects_bad_sources_naming_the_field() {
        let cases = [
            ("kind = \"tcp\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"", "sources.u.kind"),
            ("kind = \"cbr\"\nfrom = \"a\"\nto = \"x\"\nrate = \"1Mbps\"", "sources.u.to"),
            ("kind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"0Mbps\"", "sources.u.rate"),
            ("kind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\non = [[\"5s\", \"2s\"]]", "sources.u.on[0]"),
            ("kind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\non = [[\"1s\", \"5s\"], [\"3s\", \"9s\"]]", "sources.u.on[1]"),
            ("kind = \"cbr\"\nfrom = \"a\"\nto = \"b\"\nrate = \"1Mbps\"\nburst = 3", "sources.u.burst"),
        ];
        for (body, field) in cases {
            let err = load(&format!("[sources.u]\n{body}\n")).unwrap_err();
            assert_eq!(err.field, field, "{err}");
        }
    }
}
