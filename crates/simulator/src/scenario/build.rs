//! Checks every field of a substituted scenario document and builds the typed model.

use std::collections::{HashMap, HashSet};

use toml::{Table, Value};
use westwood_algorithms::{WindowConfig, WindowGrowth};

use super::congestion;
use super::fields::{self, describe, join, Section};
use super::links;
use super::sources;
use super::traffic;
use super::units::format_duration;
use super::{echo, echo_list, FieldError, Res};
use crate::model::{
    DelayedAckSpec, FlowSpec, LinkSpec, NodeSpec, PartialAckTimer, RecoveryPacing, RtoSpec, Scenario,
    TcpSpec, TimeoutThreshold,
};
use crate::profile::Profile;

const TOP_KEYS: &[&str] =
    &["scenario", "parameters", "topology", "links", "tcp", "flows", "sources", "routing"];
const SCENARIO_KEYS: &[&str] = &["name", "description", "duration", "seed", "sample_interval"];
const TOPOLOGY_KEYS: &[&str] = &["nodes", "groups"];
const LINK_KEYS: &[&str] = &["from", "to", "rate", "delay", "duplex", "queue", "errors"];
const FLOW_KEYS: &[&str] = &["from", "to", "start", "stop", "count"];
pub(crate) const TCP_KEYS: &[&str] = &[
    "cc",
    "recovery",
    "segment_size",
    "header_size",
    "receiver_window",
    "initial_cwnd",
    "initial_ssthresh",
    "dupack_threshold",
    "rto_initial",
    "rto_min",
    "rto_max",
    "clock_granularity",
    "delayed_ack",
    "delayed_ack_timeout",
    "ack_every",
    "window_growth",
    "limited_transmit",
    "profile",
    "partial_ack_timer",
    "timeout_threshold",
    "recovery_pacing",
    "fast_recovery_inflation",
    "quick_acks",
    "westwood",
    "westwood_tr",
    "westwood_abse",
    "westwood_plus",
    "westwood_ucla",
];

/// `initial_ssthresh = "unlimited"`: high enough never to matter, low enough never to overflow.
pub(crate) const UNLIMITED_SSTHRESH: u64 = u64::MAX / 4;

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
        Some((v, f)) => Some(Section::new("tcp", fields::table(v, &f)?, TCP_KEYS)?),
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
        let allowed: Vec<&str> =
            FLOW_KEYS.iter().chain(TCP_KEYS).chain(traffic::FLOW_EXTRA_KEYS).copied().collect();
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
    super::drop_list::resolve(&mut links, &flows)?;

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

/// The scenario's nodes with an index by name, so that resolving the endpoints of links, flows
/// and groups is one lookup each (a scan per endpoint made a 90 000-node grid take minutes).
pub(crate) struct Nodes {
    specs: Vec<NodeSpec>,
    by_name: HashMap<String, usize>,
}

impl Nodes {
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    fn into_specs(self) -> Vec<NodeSpec> {
        self.specs
    }
}

impl std::ops::Deref for Nodes {
    type Target = [NodeSpec];

    fn deref(&self) -> &[NodeSpec] {
        &self.specs
    }
}

fn nodes(topology: Section) -> Res<Nodes> {
    let (v, f) = topology.required("nodes", "an array of node names like [\"src\", \"dst\"]")?;
    let Value::Array(items) = v else {
        return Err(FieldError::new(
            f,
            format!("expected an array of node names like [\"src\", \"dst\"], found {}", describe(v)),
        ));
    };
    let mut nodes: Vec<NodeSpec> = Vec::with_capacity(items.len());
    // A set rather than a scan of `nodes`, which would be quadratic in the number of nodes.
    let mut seen: HashSet<&str> = HashSet::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let field = format!("{f}[{i}]");
        let name = fields::string(item, &field, "a node name string")?;
        if name.trim().is_empty() {
            return Err(FieldError::new(field, "a node name must not be empty"));
        }
        if !seen.insert(name) {
            return Err(FieldError::new(field, format!("duplicate node name {name}", name = echo(name))));
        }
        nodes.push(NodeSpec { name: name.to_string() });
    }
    let by_name = nodes.iter().enumerate().map(|(i, n)| (n.name.clone(), i)).collect();
    Ok(Nodes { specs: nodes, by_name })
}

pub(crate) fn node_index(nodes: &Nodes, v: &Value, field: &str) -> Res<usize> {
    let name = fields::string(v, field, "a node name string")?;
    nodes.index_of(name).ok_or_else(|| {
        let known: Vec<&str> = nodes.iter().map(|n| n.name.as_str()).collect();
        FieldError::new(
            field,
            format!(
                "unknown node {name}; topology.nodes defines: {}",
                if known.is_empty() { "none".to_string() } else { echo_list(known) },
                name = echo(name)
            ),
        )
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
    push(LinkSpec { name: name.to_string(), from, to, rate_bps, delay, queue, errors: forward_errors })?;
    if duplex {
        push(LinkSpec {
            name: format!("{name}.reverse"),
            from: to,
            to: from,
            rate_bps,
            delay,
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
        Some((v, f)) => {
            let start = fields::duration(v, &f)?;
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
            start
        }
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

/// Builds a flow's TCP settings; `layers` are searched most specific first (the flow's table,
/// then `[tcp]`), defaults fill the rest.
pub(crate) fn resolve_tcp(layers: &[Section]) -> Res<TcpSpec> {
    let get = |key: &str| layers.iter().find_map(|s| s.get(key));
    // Where to report a problem with a defaulted key.
    let field_of = |key: &str| get(key).map(|(_, f)| f).unwrap_or_else(|| layers[0].field(key));

    let resolved = congestion::resolve(get("cc"), &get)?;
    let (cc_name, cc) = (resolved.name.clone(), resolved.spec);
    let recovery = match get("recovery") {
        Some((v, f)) => congestion::recovery(v, &f)?,
        None => resolved.default_recovery,
    };
    let segment_size = match get("segment_size") {
        Some((v, f)) => {
            let n = fields::size(v, &f)?;
            if n < 1 {
                return Err(FieldError::new(f, "must be at least 1 byte, like \"1000B\""));
            }
            n
        }
        None => 1_000,
    };
    let header_size = match get("header_size") {
        Some((v, f)) => fields::size(v, &f)?,
        None => 40,
    };
    let receiver_window = match get("receiver_window") {
        Some((v, f)) => fields::size(v, &f)?,
        None => 1_000_000,
    };
    if receiver_window < segment_size {
        return Err(FieldError::new(
            field_of("receiver_window"),
            format!(
                "the receiver window ({receiver_window} bytes) must hold at least one segment \
                 (segment_size = {segment_size} bytes)"
            ),
        ));
    }
    let segments = |n: u64, f: &str| -> Res<u64> {
        if n < 1 {
            return Err(FieldError::new(f, "must be at least 1 segment"));
        }
        n.checked_mul(segment_size)
            .filter(|b| *b <= UNLIMITED_SSTHRESH)
            .ok_or_else(|| FieldError::new(f, format!("{n} segments is too large")))
    };
    let initial_cwnd = match get("initial_cwnd") {
        None => WindowConfig::rfc5681_initial_window(segment_size),
        Some((Value::String(s), _)) if s.trim().eq_ignore_ascii_case("rfc5681") => {
            WindowConfig::rfc5681_initial_window(segment_size)
        }
        Some((v, f)) => match fields::packet_count(v) {
            Some(Ok(n)) => segments(n, &f)?,
            Some(Err(m)) => return Err(FieldError::new(f, m)),
            None => {
                return Err(FieldError::new(
                    f,
                    format!(
                        "expected \"rfc5681\" or a number of segments like 4 or \"4pkt\", found {}",
                        describe(v)
                    ),
                ))
            }
        },
    };
    let initial_ssthresh = match get("initial_ssthresh") {
        None => UNLIMITED_SSTHRESH,
        Some((Value::String(s), _)) if s.trim().eq_ignore_ascii_case("unlimited") => UNLIMITED_SSTHRESH,
        Some((v, f)) => match fields::packet_count(v) {
            Some(Ok(n)) => segments(n, &f)?,
            Some(Err(m)) => return Err(FieldError::new(f, m)),
            None => {
                let bytes = fields::size(v, &f).map_err(|e| {
                    FieldError::new(
                        e.field,
                        format!("{}; or \"unlimited\", or a number of segments like \"64pkt\"", e.message),
                    )
                })?;
                if bytes == 0 {
                    return Err(FieldError::new(f, "must be greater than zero"));
                }
                bytes.min(UNLIMITED_SSTHRESH)
            }
        },
    };
    let dupack_threshold = match get("dupack_threshold") {
        Some((v, f)) => fields::uint32_at_least(v, &f, 1)?,
        None => 3,
    };
    /// Why the RTO has a floor: a backed-off timer climbs to `rto_max`, so that bounds the
    /// timeouts per second of a flow whose segments keep getting lost.
    const RTO_COST: &str = "at most 10000 timeouts per flow per simulated second";
    let defaults = RtoSpec::default();
    let rto = RtoSpec {
        initial: match get("rto_initial") {
            Some((v, f)) => fields::duration_at_least(v, &f, fields::MIN_RTO_NS, RTO_COST)?,
            None => defaults.initial,
        },
        min: match get("rto_min") {
            Some((v, f)) => fields::duration(v, &f)?,
            None => defaults.min,
        },
        max: match get("rto_max") {
            Some((v, f)) => fields::duration_at_least(v, &f, fields::MIN_RTO_NS, RTO_COST)?,
            None => defaults.max,
        },
        granularity: match get("clock_granularity") {
            Some((v, f)) => fields::duration(v, &f)?,
            None => defaults.granularity,
        },
    };
    let ack_defaults = DelayedAckSpec::default();
    let delayed_ack = DelayedAckSpec {
        enabled: match get("delayed_ack") {
            Some((v, f)) => fields::boolean(v, &f)?,
            None => ack_defaults.enabled,
        },
        timeout: match get("delayed_ack_timeout") {
            Some((v, f)) => fields::positive_duration(v, &f)?,
            None => ack_defaults.timeout,
        },
        every_segments: match get("ack_every") {
            Some((v, f)) => fields::uint32_at_least(v, &f, 1)?,
            None => ack_defaults.every_segments,
        },
        quick_acks: match get("quick_acks") {
            Some((v, f)) => fields::uint32_at_least(v, &f, 0)?,
            None => ack_defaults.quick_acks,
        },
    };
    let window_growth = match get("window_growth") {
        Some((v, f)) => congestion::window_growth(v, &f)?,
        None => WindowGrowth::default(),
    };
    let limited_transmit = match get("limited_transmit") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => false,
    };
    let partial_ack_timer = match get("partial_ack_timer") {
        Some((v, f)) => congestion::partial_ack_timer(v, &f)?,
        None => PartialAckTimer::default(),
    };
    let timeout_threshold = match get("timeout_threshold") {
        Some((v, f)) => congestion::timeout_threshold(v, &f)?,
        None => TimeoutThreshold::default(),
    };
    let recovery_pacing = match get("recovery_pacing") {
        Some((v, f)) => congestion::recovery_pacing(v, &f)?,
        None => RecoveryPacing::default(),
    };
    let fast_recovery_inflation = match get("fast_recovery_inflation") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => resolved.default_inflation,
    };
    let profile = match get("profile") {
        Some((v, f)) => congestion::profile(v, &f)?,
        None => Profile::default(),
    };
    let mut tcp = TcpSpec {
        cc_name,
        cc,
        recovery,
        segment_size,
        header_size,
        receiver_window,
        initial_cwnd,
        initial_ssthresh,
        dupack_threshold,
        rto,
        delayed_ack,
        window_growth,
        limited_transmit,
        partial_ack_timer,
        timeout_threshold,
        recovery_pacing,
        fast_recovery_inflation,
        acked_count: resolved.acked_count,
    };
    // The profile fills in the keys set nowhere (a key set in any layer wins over it).
    profile.apply(&mut tcp, &|key| get(key).is_some());
    let rto = tcp.rto;
    if rto.min > rto.max {
        let from_profile = |key: &str| {
            if get(key).is_none() && profile != Profile::Paper {
                format!(", from profile {}", profile.name())
            } else {
                String::new()
            }
        };
        return Err(FieldError::new(
            field_of(if get("rto_min").is_some() { "rto_min" } else { "rto_max" }),
            format!(
                "rto_min ({}{}) must not exceed rto_max ({}{})",
                format_duration(rto.min),
                from_profile("rto_min"),
                format_duration(rto.max),
                from_profile("rto_max")
            ),
        ));
    }
    Ok(tcp)
}
