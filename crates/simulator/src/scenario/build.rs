//! Checks every field of a substituted scenario document and builds the typed model.

use std::collections::HashSet;

use toml::Table;

use super::fields::{self, join, Section};
use super::links;
use super::nodes::{node_index, nodes, Nodes};
use super::sources;
use super::tcp::{resolve_tcp, tcp_keys};
use super::traffic;
use super::units::format_duration;
use super::{echo, FieldError, Res};
use crate::model::{FlowSpec, FlowStart, LinkSpec, Scenario};

const TOP_KEYS: &[&str] =
    &["scenario", "parameters", "topology", "links", "tcp", "flows", "sources", "routing"];
const SCENARIO_KEYS: &[&str] = &["name", "description", "duration", "seed", "sample_interval"];
const TOPOLOGY_KEYS: &[&str] = &["nodes", "groups"];
const LINK_KEYS: &[&str] = &["from", "to", "rate", "delay", "delay_variation", "duplex", "queue", "errors"];
const FLOW_KEYS: &[&str] = &["from", "to", "start", "stop", "count"];
/// Default sampling interval of time series: 10 ms.
pub(crate) const DEFAULT_SAMPLE_INTERVAL: u64 = 10_000_000;

/// Most flows one `[flows.NAME]` table may expand to (guards against typos like 1e9).
const MAX_COUNT: u64 = 100_000;

pub(crate) fn build(doc: &Table, parameters: Vec<(String, String)>, default_name: &str) -> Res<Scenario> {
    let top = Section::new("", doc, TOP_KEYS)?;

    // [scenario]
    let (v, f) = top.get("scenario").ok_or_else(|| {
        FieldError::new(
            "scenario",
            "missing required table [scenario]; it must set at least duration, like \"100s\"",
        )
    })?;
    let sc = Section::new("scenario", fields::table(v, &f)?, SCENARIO_KEYS)?;
    let name = match sc.get("name") {
        Some((v, f)) => {
            let s = fields::string(v, &f, "a name string")?;
            if s.trim().is_empty() {
                return Err(FieldError::new(f, "must not be empty"));
            }
            s.to_string()
        }
        None => default_name.to_string(),
    };
    let description = match sc.get("description") {
        Some((v, f)) => fields::string(v, &f, "a text string")?.to_string(),
        None => String::new(),
    };
    let (v, f) = sc.required("duration", "the simulated time to run, like \"100s\"")?;
    let duration = fields::positive_duration(v, &f)?;
    let seed = match sc.get("seed") {
        Some((v, f)) => fields::uint(v, &f)?,
        None => 1,
    };
    let sample_interval = match sc.get("sample_interval") {
        Some((v, f)) => fields::duration_at_least(
            v,
            &f,
            fields::MIN_STATE_DURATION_NS,
            "one sample of every flow and link per interval",
        )?,
        None => DEFAULT_SAMPLE_INTERVAL,
    };

    // [topology]
    let (v, f) = top.get("topology").ok_or_else(|| {
        FieldError::new("topology", "missing required table [topology] with nodes = [\"a\", \"b\", ...]")
    })?;
    let topology = Section::new("topology", fields::table(v, &f)?, TOPOLOGY_KEYS)?;
    let nodes = nodes(topology)?;
    let groups = traffic::groups(topology, &nodes)?;

    // [links.NAME]
    let mut links: Vec<LinkSpec> = Vec::new();
    // Names taken so far: a set, as a scan per link is quadratic in generated topologies.
    let mut link_names: HashSet<String> = HashSet::new();
    if let Some((v, f)) = top.get("links") {
        for (link_name, lv) in fields::table(v, &f)? {
            let path = join("links", link_name);
            let section = Section::new(&path, fields::table(lv, &path)?, LINK_KEYS)?;
            link(section, link_name, &nodes, &mut links, &mut link_names)?;
        }
    }

    // [tcp]: checked on its own too, so a mistake there is reported even when every flow
    // overrides the key.
    let tcp_section = match top.get("tcp") {
        Some((v, f)) => Some(Section::new("tcp", fields::table(v, &f)?, &tcp_keys())?),
        None => None,
    };
    if let Some(tcp) = tcp_section {
        resolve_tcp(&[tcp])?;
    }

    // [routing]
    let routing = match top.get("routing") {
        Some((v, f)) => Some(Section::new("routing", fields::table(v, &f)?, traffic::ROUTING_KEYS)?),
        None => None,
    };
    let ctx = traffic::FlowContext { groups, default_multipath: traffic::routing(routing)? };

    // [flows.NAME]
    let mut flows = BulkFlows::default();
    let mut arrivals = Vec::new();
    if let Some((v, f)) = top.get("flows") {
        let allowed: Vec<&str> = FLOW_KEYS
            .iter()
            .copied()
            .chain(tcp_keys())
            .chain(traffic::FLOW_EXTRA_KEYS.iter().copied())
            .collect();
        for (flow_name, fv) in fields::table(v, &f)? {
            let path = join("flows", flow_name);
            let section = Section::new(&path, fields::table(fv, &path)?, &allowed)?;
            if section.get("arrivals").is_some() {
                arrivals.push(traffic::arrivals(section, flow_name, tcp_section, &nodes, &ctx, duration)?);
                continue;
            }
            flow(section, flow_name, tcp_section, &nodes, &ctx, duration, &mut flows)?;
        }
    }

    let BulkFlows { specs: flows, names: flow_names } = flows;
    crate::network::loss::drop_list::resolve(&mut links, &flows)?;

    // [sources.NAME]
    let mut traffic_sources = Vec::new();
    if let Some((v, f)) = top.get("sources") {
        for (source_name, sv) in fields::table(v, &f)? {
            let path = join("sources", source_name);
            let section = Section::new(&path, fields::table(sv, &path)?, sources::SOURCE_KEYS)?;
            traffic_sources.push(sources::source(section, source_name, &nodes, duration, seed)?);
        }
    }
    for source in &traffic_sources {
        if flow_names.contains(&source.name) || arrivals.iter().any(|a| a.name == source.name) {
            return Err(FieldError::new(
                join("sources", &source.name),
                format!("the name {} is already used by a flow; names must be unique", echo(&source.name)),
            ));
        }
    }

    Ok(Scenario {
        name,
        source: String::new(),
        description,
        duration,
        seed,
        parameters,
        nodes: nodes.into_specs(),
        links,
        flows,
        sources: traffic_sources,
        arrivals,
        sample_interval,
    })
}

fn link(
    section: Section,
    name: &str,
    nodes: &Nodes,
    links: &mut Vec<LinkSpec>,
    names: &mut HashSet<String>,
) -> Res<()> {
    if name.trim().is_empty() {
        return Err(FieldError::new(section.path, "a link name must not be empty"));
    }
    let (v, f) = section.required("from", "the name of the node the link starts at")?;
    let from = node_index(nodes, v, &f)?;
    let (v, f) = section.required("to", "the name of the node the link ends at")?;
    let to = node_index(nodes, v, &f)?;
    if from == to {
        return Err(FieldError::new(
            f,
            format!(
                "a link must connect two different nodes (from and to are both {})",
                echo(&nodes[to].name)
            ),
        ));
    }
    let (v, f) = section.required("rate", "a positive rate like \"10Mbps\"")?;
    let rate_bps = fields::rate(v, &f)?;
    let (v, f) = section.required("delay", "a propagation delay like \"45ms\"")?;
    let delay = fields::duration(v, &f)?;
    let delay_variation = match section.get("delay_variation") {
        Some((v, f)) => fields::duration(v, &f)?,
        None => 0,
    };
    let duplex = match section.get("duplex") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => true,
    };
    let queue = match section.get("queue") {
        Some((v, f)) => links::queue(v, &f)?,
        None => links::default_queue(),
    };
    let (forward_errors, reverse_errors) = match section.get("errors") {
        Some((v, f)) => links::errors(v, &f, duplex)?,
        None => (None, None),
    };
    let mut push = |link: LinkSpec| {
        if !names.insert(link.name.clone()) {
            return Err(FieldError::new(
                section.path,
                format!(
                    "link name {} is used twice (the reverse half of a duplex link \"x\" is \
                     named \"x.reverse\")",
                    echo(&link.name)
                ),
            ));
        }
        links.push(link);
        Ok(())
    };
    push(LinkSpec {
        name: name.to_string(),
        from,
        to,
        rate_bps,
        delay,
        delay_variation,
        queue,
        errors: forward_errors,
    })?;
    if duplex {
        push(LinkSpec {
            name: format!("{name}.reverse"),
            from: to,
            to: from,
            rate_bps,
            delay,
            delay_variation,
            queue,
            errors: reverse_errors,
        })?;
    }
    Ok(())
}

/// The bulk flows built so far, with their names indexed: checking each new flow's name with a
/// scan of the list made set-up quadratic (100 000 flows took over 20 s); the set makes it one
/// lookup per flow.
#[derive(Default)]
struct BulkFlows {
    specs: Vec<FlowSpec>,
    /// The name of every flow in `specs`.
    names: HashSet<String>,
}

impl BulkFlows {
    /// Adds `flow` unless its name is taken; `table` (the `[flows.NAME]` path) names the error.
    fn push(&mut self, flow: FlowSpec, table: &str) -> Res<()> {
        if !self.names.insert(flow.name.clone()) {
            return Err(FieldError::new(
                table,
                format!(
                    "flow name {} is used twice (a table with count = N > 1 makes flows NAME.1 .. \
                     NAME.N)",
                    echo(&flow.name)
                ),
            ));
        }
        self.specs.push(flow);
        Ok(())
    }
}

fn flow(
    section: Section,
    name: &str,
    tcp_section: Option<Section>,
    nodes: &Nodes,
    ctx: &traffic::FlowContext,
    duration: u64,
    flows: &mut BulkFlows,
) -> Res<()> {
    if name.trim().is_empty() {
        return Err(FieldError::new(section.path, "a flow name must not be empty"));
    }
    let pairs = traffic::endpoints(section, nodes, ctx)?;
    let multipath = traffic::flow_multipath(section, ctx)?;
    let start = match section.get("start") {
        Some((v, f)) => traffic::flow_start(v, &f, duration)?,
        None => FlowStart::At(0),
    };
    let stop = match section.get("stop") {
        Some((v, f)) => {
            let stop = fields::duration(v, &f)?;
            if stop <= start.latest() {
                let latest = match start {
                    FlowStart::At(_) => "start",
                    FlowStart::Uniform { .. } => "the latest start (start.max)",
                };
                return Err(FieldError::new(
                    f,
                    format!(
                        "stop {} must be after {latest} {}",
                        format_duration(stop),
                        format_duration(start.latest())
                    ),
                ));
            }
            Some(stop)
        }
        None => None,
    };
    let count = match section.get("count") {
        Some((v, f)) => {
            let n = fields::uint(v, &f)?;
            if n < 1 {
                return Err(FieldError::new(f, "count must be at least 1"));
            }
            if n > MAX_COUNT {
                return Err(FieldError::new(f, format!("count {n} is too large (at most {MAX_COUNT})")));
            }
            n
        }
        None => 1,
    };
    let mut layers = vec![section];
    layers.extend(tcp_section);
    let tcp = resolve_tcp(&layers)?;
    let total = count * pairs.len() as u64;
    if total > MAX_COUNT {
        return Err(FieldError::new(
            section.field("count"),
            format!("{total} flows is too many for one table (at most {MAX_COUNT})"),
        ));
    }
    let names: Vec<String> = if total == 1 {
        vec![name.to_string()]
    } else {
        (1..=total).map(|i| format!("{name}.{i}")).collect()
    };
    // Each pair gets `count` consecutive flows.
    let endpoints = pairs.iter().flat_map(|&pair| std::iter::repeat_n(pair, count as usize));
    flows.specs.reserve(names.len());
    flows.names.reserve(names.len());
    for (flow_name, (src, dst)) in names.into_iter().zip(endpoints) {
        let spec = FlowSpec { name: flow_name, src, dst, start, stop, tcp: tcp.clone(), multipath };
        flows.push(spec, section.path)?;
    }
    Ok(())
}
