//! Flow endpoints given as node groups, multipath routing (`multipath = {...}` on a flow or as the
//! `[routing]` default) and flows that arrive during the run (`arrivals = {...}`).
//!
//! ```toml
//! [topology]
//! groups = { hosts = ["a", "b", "c"] }   # besides the groups a generator defines
//!
//! [routing]
//! multipath = { paths = 4, mode = "full" }   # default for every flow
//!
//! [flows.bulk]
//! from = "senders"           # a group: one flow per member (paired with `to` member by member)
//! to = "receivers"
//! multipath = { paths = 2, mode = "simple", select = "disjoint" }
//!
//! [flows.web]                # flows arriving as a Poisson process, each for an exponential time
//! among = "inner"            # random sender and receiver among these nodes (or from/to)
//! arrivals = { mean_interarrival = "2s", mean_duration = "180s" }
//! ```

use toml::Value;

use super::fields::{self, describe, Section};
use super::nodes::{node_index, Nodes};
use super::tcp::{resolve_tcp, tcp_keys};
use super::units::format_duration;
use super::{echo, echo_list, FieldError, Res};
use crate::model::{
    ArrivalEndpoints, ArrivalsSpec, FlowStart, MultipathMode, MultipathSpec, Nanos, PathSelection,
};

pub(crate) const ROUTING_KEYS: &[&str] = &["multipath"];
/// Keys a `[flows.NAME]` table accepts besides the bulk-flow and `[tcp]` keys.
pub(crate) const FLOW_EXTRA_KEYS: &[&str] = &["multipath", "arrivals", "among"];
const MULTIPATH_KEYS: &[&str] = &["paths", "mode", "select"];
const ARRIVAL_KEYS: &[&str] = &["mean_interarrival", "mean_duration", "max_flows"];
/// Keys of a `[flows.NAME]` table with `arrivals` (besides the `[tcp]` keys).
const ARRIVAL_FLOW_KEYS: &[&str] = &["from", "to", "among", "start", "stop", "arrivals", "multipath"];

/// Most paths a flow may spread over (the packet's path index is a byte).
pub(crate) const MAX_PATHS: u64 = 64;
/// Default and largest `max_flows` of an arrivals table.
const DEFAULT_MAX_FLOWS: u64 = 1_000_000;
const MAX_MAX_FLOWS: u64 = 100_000_000;

/// What flow tables need besides the nodes: the node groups and the `[routing]` default.
pub(crate) struct FlowContext {
    pub groups: Vec<(String, Vec<usize>)>,
    pub default_multipath: Option<MultipathSpec>,
}

/// `[topology] groups = { name = ["a", "b"] }`: named node lists flows can refer to. A group
/// name must not also be a node name.
pub(crate) fn groups(topology: Section, nodes: &Nodes) -> Res<Vec<(String, Vec<usize>)>> {
    let Some((v, f)) = topology.get("groups") else {
        return Ok(Vec::new());
    };
    let table = fields::table(v, &f)?;
    let mut out: Vec<(String, Vec<usize>)> = Vec::with_capacity(table.len());
    for (name, members) in table {
        let field = format!("{f}.{name}");
        if nodes.index_of(name).is_some() {
            return Err(FieldError::new(
                field,
                format!("{name} is already a node name; a group needs a name of its own", name = echo(name)),
            ));
        }
        let Value::Array(items) = members else {
            return Err(FieldError::new(
                field,
                format!("expected an array of node names, found {}", describe(members)),
            ));
        };
        if items.is_empty() {
            return Err(FieldError::new(field, "a group needs at least one node"));
        }
        let mut indices = Vec::with_capacity(items.len());
        let mut listed = std::collections::HashSet::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let index = node_index(nodes, item, &format!("{field}[{i}]"))?;
            if !listed.insert(index) {
                return Err(FieldError::new(
                    format!("{field}[{i}]"),
                    format!("node {} is listed twice", echo(&nodes[index].name)),
                ));
            }
            indices.push(index);
        }
        out.push((name.clone(), indices));
    }
    Ok(out)
}

/// A node name or a group name: the node indices it stands for.
fn members(v: &Value, field: &str, nodes: &Nodes, groups: &[(String, Vec<usize>)]) -> Res<Vec<usize>> {
    if let Value::String(name) = v {
        if let Some((_, indices)) = groups.iter().find(|(g, _)| g == name) {
            return Ok(indices.clone());
        }
    }
    node_index(nodes, v, field).map(|i| vec![i]).map_err(|e| {
        if groups.is_empty() {
            e
        } else {
            let names = echo_list(groups.iter().map(|(g, _)| g));
            FieldError::new(e.field, format!("{}; groups: {names}", e.message))
        }
    })
}

/// The (sender, receiver) pairs of a bulk flow table. `from` and `to` each name a node or a
/// group: two groups of the same size pair up member by member; a single node pairs with every
/// member of the other side.
pub(crate) fn endpoints(section: Section, nodes: &Nodes, ctx: &FlowContext) -> Res<Vec<(usize, usize)>> {
    if let Some((_, f)) = section.get("among") {
        return Err(FieldError::new(
            f,
            "among (random endpoints) needs arrivals = { mean_interarrival, mean_duration }; \
             a bulk flow uses from and to",
        ));
    }
    let (v, from_field) = section.required("from", "the name of the sending node (or a node group)")?;
    let senders = members(v, &from_field, nodes, &ctx.groups)?;
    let (v, to_field) = section.required("to", "the name of the receiving node (or a node group)")?;
    let receivers = members(v, &to_field, nodes, &ctx.groups)?;
    let pairs: Vec<(usize, usize)> = match (senders.len(), receivers.len()) {
        (a, b) if a == b => senders.iter().copied().zip(receivers.iter().copied()).collect(),
        (1, _) => receivers.iter().map(|&r| (senders[0], r)).collect(),
        (_, 1) => senders.iter().map(|&s| (s, receivers[0])).collect(),
        (a, b) => {
            return Err(FieldError::new(
                to_field,
                format!(
                    "from has {a} nodes and to has {b}: groups pair up member by member, so they \
                     must have the same size (or one side must be a single node)"
                ),
            ))
        }
    };
    for &(src, dst) in &pairs {
        if src == dst {
            return Err(FieldError::new(
                to_field,
                format!("a flow needs two different nodes (from and to are both {})", echo(&nodes[src].name)),
            ));
        }
    }
    Ok(pairs)
}

/// `[routing]`: the scenario-wide multipath default.
pub(crate) fn routing(section: Option<Section>) -> Res<Option<MultipathSpec>> {
    match section.and_then(|s| s.get("multipath")) {
        Some((v, f)) => multipath(v, &f),
        None => Ok(None),
    }
}

/// A flow's `multipath` key, else the `[routing]` default.
pub(crate) fn flow_multipath(section: Section, ctx: &FlowContext) -> Res<Option<MultipathSpec>> {
    match section.get("multipath") {
        Some((v, f)) => multipath(v, &f),
        None => Ok(ctx.default_multipath),
    }
}

/// `{ paths = N, mode = "full" | "simple", select = "disjoint" | "shortest" }`, or `false`.
/// One path (or `false`) means ordinary single-path routing: `None`.
pub(crate) fn multipath(v: &Value, field: &str) -> Res<Option<MultipathSpec>> {
    let t = match v {
        Value::Boolean(false) => return Ok(None),
        Value::Table(t) => t,
        other => {
            return Err(FieldError::new(
                field,
                format!(
                    "expected a table like {{ paths = 2, mode = \"full\" }} (or false), found {}",
                    describe(other)
                ),
            ))
        }
    };
    let section = Section::new(field, t, MULTIPATH_KEYS)?;
    let (v, f) = section.required("paths", "the number of paths to spread packets over, like 2")?;
    let paths = fields::uint(v, &f)?;
    if !(1..=MAX_PATHS).contains(&paths) {
        return Err(FieldError::new(f, format!("{paths} is out of range; expected 1 to {MAX_PATHS} paths")));
    }
    let mode = match section.get("mode") {
        None => MultipathMode::Full,
        Some((v, f)) => {
            let s = fields::string(v, &f, "\"full\" or \"simple\"")?;
            match s.trim().to_ascii_lowercase().as_str() {
                "full" => MultipathMode::Full,
                "simple" => MultipathMode::Simple,
                _ => {
                    return Err(FieldError::new(
                        f,
                        format!(
                            "unknown multipath mode {s}; expected \"full\" (data and ACKs over the \
                             paths) or \"simple\" (data only; ACKs take the shortest path)",
                            s = echo(s)
                        ),
                    ))
                }
            }
        }
    };
    let select = match section.get("select") {
        None => PathSelection::Disjoint,
        Some((v, f)) => {
            let s = fields::string(v, &f, "\"disjoint\" or \"shortest\"")?;
            match s.trim().to_ascii_lowercase().as_str() {
                "disjoint" => PathSelection::Disjoint,
                "shortest" => PathSelection::Shortest,
                _ => {
                    return Err(FieldError::new(
                        f,
                        format!(
                            "unknown path selection {s}; expected \"disjoint\" (edge-disjoint \
                             paths) or \"shortest\" (the k shortest loop-free paths)",
                            s = echo(s)
                        ),
                    ))
                }
            }
        }
    };
    Ok((paths > 1).then_some(MultipathSpec { paths: paths as u8, mode, select }))
}

/// Keys of a random start, `start = { min = "0s", max = "2s" }`.
const START_KEYS: &[&str] = &["min", "max"];

/// A bulk flow's `start`: a duration, or a table `{ min, max }` (min default 0) for a start
/// drawn uniformly in `[min, max]` when the run begins (`FlowStart::Uniform`). Either way the
/// flow must start before the end of the run.
pub(crate) fn flow_start(v: &Value, f: &str, duration: Nanos) -> Res<FlowStart> {
    let Value::Table(t) = v else {
        let start = match v {
            Value::String(_) | Value::Integer(_) => fields::duration(v, f)?,
            _ => {
                return Err(FieldError::new(
                    f,
                    format!(
                        "expected a duration like \"5s\", or a table {{ min = \"0s\", max = \"2s\" }} \
                         for a start drawn uniformly between them, found {}",
                        describe(v)
                    ),
                ))
            }
        };
        if start >= duration {
            return Err(FieldError::new(
                f,
                format!(
                    "start {} must be before the end of the scenario (scenario.duration = {})",
                    format_duration(start),
                    format_duration(duration)
                ),
            ));
        }
        return Ok(FlowStart::At(start));
    };
    let section = Section::new(f, t, START_KEYS)?;
    let min = match section.get("min") {
        Some((v, ff)) => fields::duration(v, &ff)?,
        None => 0,
    };
    let (v, ff) =
        section.required("max", "the latest start, like \"2s\" (the start is drawn in [min, max])")?;
    let max = fields::duration(v, &ff)?;
    if max < min {
        return Err(FieldError::new(
            ff,
            format!(
                "max {} is before min {}: the start is drawn in [min, max], so max must be at least min",
                format_duration(max),
                format_duration(min)
            ),
        ));
    }
    if max >= duration {
        return Err(FieldError::new(
            ff,
            format!(
                "max {} must be before the end of the scenario (scenario.duration = {}), so that \
                 every draw starts the flow within the run",
                format_duration(max),
                format_duration(duration)
            ),
        ));
    }
    Ok(if min == max { FlowStart::At(min) } else { FlowStart::Uniform { min, max } })
}

fn time_in_run(v: &Value, f: &str, duration: Nanos) -> Res<Nanos> {
    let t = fields::duration(v, f)?;
    if t >= duration {
        return Err(FieldError::new(
            f,
            format!(
                "{} must be before the end of the scenario (scenario.duration = {})",
                format_duration(t),
                format_duration(duration)
            ),
        ));
    }
    Ok(t)
}

/// A `[flows.NAME]` table with `arrivals`: flows created during the run.
pub(crate) fn arrivals(
    section: Section,
    name: &str,
    tcp_section: Option<Section>,
    nodes: &Nodes,
    ctx: &FlowContext,
    duration: Nanos,
) -> Res<ArrivalsSpec> {
    let allowed: Vec<&str> = ARRIVAL_FLOW_KEYS.iter().copied().chain(tcp_keys()).collect();
    let section = Section::new(section.path, section.table, &allowed)?;
    if name.trim().is_empty() {
        return Err(FieldError::new(section.path, "a flow name must not be empty"));
    }
    let endpoints = match (section.get("among"), section.get("from"), section.get("to")) {
        (Some((v, f)), None, None) => {
            let candidates = match v {
                Value::Array(items) => {
                    let mut out = Vec::with_capacity(items.len());
                    for (i, item) in items.iter().enumerate() {
                        let index = node_index(nodes, item, &format!("{f}[{i}]"))?;
                        if !out.contains(&index) {
                            out.push(index);
                        }
                    }
                    out
                }
                _ => members(v, &f, nodes, &ctx.groups)?,
            };
            if candidates.len() < 2 {
                return Err(FieldError::new(f, "among needs at least two different nodes"));
            }
            ArrivalEndpoints::Among(candidates)
        }
        (None, Some((fv, ff)), Some((tv, tf))) => {
            let src = node_index(nodes, fv, &ff)?;
            let dst = node_index(nodes, tv, &tf)?;
            if src == dst {
                return Err(FieldError::new(
                    tf,
                    format!(
                        "a flow needs two different nodes (from and to are both {})",
                        echo(&nodes[src].name)
                    ),
                ));
            }
            ArrivalEndpoints::Fixed { src, dst }
        }
        (Some((_, f)), _, _) => {
            return Err(FieldError::new(f, "give either among (random pairs) or from and to, not both"))
        }
        _ => {
            return Err(FieldError::new(
                section.field("from"),
                "flows with arrivals need from and to (node names), or among (a group or a list \
                 of nodes to draw random pairs from)",
            ))
        }
    };
    let start = match section.get("start") {
        Some((v, f)) => time_in_run(v, &f, duration)?,
        None => 0,
    };
    let stop = match section.get("stop") {
        Some((v, f)) => {
            let stop = fields::duration(v, &f)?;
            if stop <= start {
                return Err(FieldError::new(
                    f,
                    format!("stop {} must be after start {}", format_duration(stop), format_duration(start)),
                ));
            }
            Some(stop)
        }
        None => None,
    };
    let (v, f) =
        section.required("arrivals", "a table { mean_interarrival = \"2s\", mean_duration = \"180s\" }")?;
    let table = fields::table(v, &f)?;
    let arr = Section::new(&f, table, ARRIVAL_KEYS)?;
    let (v, ff) = arr.required("mean_interarrival", "the mean time between flow arrivals, like \"2s\"")?;
    let mean_interarrival = fields::duration_at_least(
        v,
        &ff,
        fields::MIN_STATE_DURATION_NS,
        "at most 10^6 arrivals per simulated second",
    )?;
    let (v, ff) = arr.required("mean_duration", "the mean time a flow sends, like \"180s\"")?;
    let mean_duration = fields::positive_duration(v, &ff)?;
    let max_flows = match arr.get("max_flows") {
        Some((v, ff)) => {
            let n = fields::uint(v, &ff)?;
            if !(1..=MAX_MAX_FLOWS).contains(&n) {
                return Err(FieldError::new(
                    ff,
                    format!("{n} is out of range; expected 1 to {MAX_MAX_FLOWS}"),
                ));
            }
            n
        }
        None => DEFAULT_MAX_FLOWS,
    };
    let mut layers = vec![section];
    layers.extend(tcp_section);
    let tcp = resolve_tcp(&layers)?;
    let multipath = flow_multipath(section, ctx)?;
    Ok(ArrivalsSpec {
        name: name.to_string(),
        endpoints,
        start,
        stop,
        mean_interarrival,
        mean_duration,
        max_flows,
        tcp,
        multipath,
    })
}
