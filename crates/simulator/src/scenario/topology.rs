//! Topology generators and link presets: short scenario files for the papers' topologies.
//!
//! Both are expanded on the substituted TOML document, before validation, into the plain
//! `[topology] nodes`, `[topology] groups` and `[links.NAME]` tables the rest of the loader checks,
//! so a generated topology behaves exactly like one written out by hand (and can be mixed with
//! explicit nodes and links):
//!
//! ```toml
//! [topology]
//! generator = "dumbbell"          # or "wired_wireless", "parallel_paths", "grid"
//! pairs = 2
//! bottleneck_rate = "10Mbps"
//! bottleneck_delay = "20ms"
//! access_delays = ["1ms", "75ms"]
//! nodes = ["extra"]               # explicit nodes and [links.*] are added to the generated ones
//!
//! [links.sat]
//! from = "a"
//! to = "b"
//! preset = "geo"                  # 1.3 Mbps, 300 ms one-way; keys given here win
//! ```
//!
//! Every generator is described in `docs/scenarios.md` ("Topology generators").

use toml::{Table, Value};

use super::fields::{self, describe, Section};
use super::{echo, FieldError, Res};

/// The generators: name, keys besides `generator`/`nodes`/`groups`, builder.
type Builder = fn(&Section) -> Res<Generated>;
const GENERATORS: &[(&str, &[&str], Builder)] = &[
    (
        "dumbbell",
        &[
            "pairs",
            "bottleneck_rate",
            "bottleneck_delay",
            "bottleneck_queue",
            "bottleneck_errors",
            "bottleneck_preset",
            "access_rate",
            "access_delays",
            "access_queue",
            "receiver_delays",
        ],
        dumbbell,
    ),
    (
        "wired_wireless",
        &[
            "mobile",
            "wired_rate",
            "wired_delay",
            "wireless_rate",
            "wireless_delay",
            "wireless_errors",
            "queue",
        ],
        wired_wireless,
    ),
    ("parallel_paths", &["hops", "rate", "delay", "queue"], parallel_paths),
    ("grid", &["rows", "cols", "rate", "delay", "queue", "margin"], grid),
];

/// Link presets: name and the keys (TOML) filled in when the link does not set them.
const PRESETS: &[(&str, &str)] = &[
    // Seed 003 (GEO scenario): 1.3 Mbps, 600 ms round trip, so 300 ms each way.
    ("geo", "rate = \"1.3Mbps\"\ndelay = \"300ms\""),
    // Seed 000 §5.3: 100 ms one way (terminal to gateway); 0.1 % packet errors in normal
    // operation; a handoff every 4 s during which all packets are lost for 100 ms. The rate is
    // the x axis of figure 18, so it has no default.
    (
        "leo",
        "delay = \"100ms\"\nerrors = [{ model = \"bernoulli\", rate = \"0.1%\" }, \
         { model = \"outage\", period = \"4s\", duration = \"100ms\" }]",
    ),
];

/// What a generator produces, in the order it is added to the scenario.
#[derive(Debug, Default)]
struct Generated {
    nodes: Vec<String>,
    links: Vec<(String, Table)>,
    groups: Vec<(String, Vec<String>)>,
}

impl Generated {
    fn node(&mut self, name: impl Into<String>) -> String {
        let name = name.into();
        self.nodes.push(name.clone());
        name
    }

    fn link(&mut self, name: impl Into<String>, from: &str, to: &str, props: &[(&str, Option<&Value>)]) {
        let mut t = Table::new();
        t.insert("from".into(), Value::String(from.into()));
        t.insert("to".into(), Value::String(to.into()));
        for &(key, value) in props {
            if let Some(v) = value {
                t.insert(key.into(), v.clone());
            }
        }
        self.links.push((name.into(), t));
    }
}

/// Expands `[topology] generator = ...` and every link's `preset`.
pub(crate) fn expand(doc: &mut Table) -> Res<()> {
    expand_generator(doc)?;
    expand_presets(doc)
}

fn expand_generator(doc: &mut Table) -> Res<()> {
    let Some(Value::Table(topology)) = doc.get("topology") else {
        return Ok(());
    };
    let Some(gv) = topology.get("generator") else {
        return Ok(());
    };
    let name = fields::string(gv, "topology.generator", "a generator name like \"dumbbell\"")?;
    let names: Vec<&str> = GENERATORS.iter().map(|g| g.0).collect();
    let Some(&(name, keys, builder)) = GENERATORS.iter().find(|g| g.0.eq_ignore_ascii_case(name.trim()))
    else {
        return Err(FieldError::new(
            "topology.generator",
            format!(
                "unknown topology generator {name}; expected one of: {}",
                names.join(", "),
                name = echo(name)
            ),
        ));
    };
    let mut allowed: Vec<&str> = vec!["generator", "nodes", "groups"];
    allowed.extend_from_slice(keys);
    let section = Section::new("topology", topology, &allowed)?;
    let generated = builder(&section)?;

    // The plain [topology]: generated nodes first, then the explicit ones; groups likewise.
    let mut nodes: Vec<Value> = generated.nodes.iter().map(|n| Value::String(n.clone())).collect();
    if let Some((v, f)) = section.get("nodes") {
        let Value::Array(items) = v else {
            return Err(FieldError::new(
                f,
                format!("expected an array of node names like [\"src\", \"dst\"], found {}", describe(v)),
            ));
        };
        nodes.extend(items.iter().cloned());
    }
    let mut groups = Table::new();
    for (group, members) in &generated.groups {
        groups
            .insert(group.clone(), Value::Array(members.iter().map(|m| Value::String(m.clone())).collect()));
    }
    if let Some((v, f)) = section.get("groups") {
        for (group, members) in fields::table(v, &f)? {
            if groups.contains_key(group) {
                return Err(FieldError::new(
                    format!("{f}.{group}"),
                    format!("the {name} generator already defines a group {group}", group = echo(group)),
                ));
            }
            groups.insert(group.clone(), members.clone());
        }
    }
    let mut plain = Table::new();
    plain.insert("nodes".into(), Value::Array(nodes));
    if !groups.is_empty() {
        plain.insert("groups".into(), Value::Table(groups));
    }
    doc.insert("topology".into(), Value::Table(plain));

    // [links]: generated links first, then the explicit ones.
    let explicit = match doc.remove("links") {
        Some(Value::Table(t)) => t,
        Some(other) => {
            return Err(FieldError::new(
                "links",
                format!("expected a table of links, found {}", describe(&other)),
            ))
        }
        None => Table::new(),
    };
    let mut links = Table::new();
    for (link, table) in generated.links {
        links.insert(link, Value::Table(table));
    }
    for (link, table) in explicit {
        if links.contains_key(&link) {
            return Err(FieldError::new(
                format!("links.{link}"),
                format!(
                    "the {name} generator already creates a link {link}; choose another name",
                    link = echo(&link)
                ),
            ));
        }
        links.insert(link, table);
    }
    doc.insert("links".into(), Value::Table(links));
    Ok(())
}

fn expand_presets(doc: &mut Table) -> Res<()> {
    let Some(Value::Table(links)) = doc.get_mut("links") else {
        return Ok(());
    };
    for (link, value) in links.iter_mut() {
        let Value::Table(t) = value else { continue };
        let Some(pv) = t.remove("preset") else { continue };
        let field = format!("links.{link}.preset");
        let name = fields::string(&pv, &field, "a preset name: \"geo\" or \"leo\"")?;
        let Some((preset, values)) = PRESETS.iter().find(|p| p.0.eq_ignore_ascii_case(name.trim())) else {
            let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
            return Err(FieldError::new(
                field,
                format!(
                    "unknown link preset {name}; expected one of: {}",
                    names.join(", "),
                    name = echo(name)
                ),
            ));
        };
        let values: Table = values.parse().expect("presets are valid TOML");
        for (key, default) in values {
            if !t.contains_key(&key) {
                t.insert(key, default);
            }
        }
        if !t.contains_key("rate") {
            return Err(FieldError::new(
                format!("links.{link}.rate"),
                format!("the {preset} preset has no default rate (seed 000 fig. 18 varies it): set rate, like \"2Mbps\""),
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Parameter helpers: check the value's type and unit here, so that a mistake is reported at
// `topology.KEY` rather than at the generated link.

fn rate<'a>(s: &Section<'a>, key: &str, default: Option<&'static str>) -> Res<Option<Value>> {
    match s.get(key) {
        Some((v, f)) => fields::rate(v, &f).map(|_| Some(v.clone())),
        None => Ok(default.map(|d| Value::String(d.into()))),
    }
}

fn duration<'a>(s: &Section<'a>, key: &str, default: Option<&'static str>) -> Res<Option<Value>> {
    match s.get(key) {
        Some((v, f)) => fields::duration(v, &f).map(|_| Some(v.clone())),
        None => Ok(default.map(|d| Value::String(d.into()))),
    }
}

fn required(value: Option<Value>, s: &Section, key: &str, example: &str) -> Res<Value> {
    value.ok_or_else(|| FieldError::new(s.field(key), format!("missing required key; expected {example}")))
}

/// A value passed through as is (queue, errors), checked by the link loader.
fn passthrough(s: &Section, key: &str) -> Option<Value> {
    s.get(key).map(|(v, _)| v.clone())
}

/// An integer in `[min, max]`.
fn int(s: &Section, key: &str, default: u64, min: u64, max: u64) -> Res<u64> {
    match s.get(key) {
        None => Ok(default),
        Some((v, f)) => {
            let n = fields::uint(v, &f)?;
            if n < min || n > max {
                return Err(FieldError::new(f, format!("{n} is out of range; expected {min} to {max}")));
            }
            Ok(n)
        }
    }
}

/// A duration or a list of durations: `Some(list)` for a list, `None` for a single value (then
/// `single` holds it).
fn durations(s: &Section, key: &str) -> Res<Option<Vec<Value>>> {
    match s.get(key) {
        Some((Value::Array(items), f)) => {
            if items.is_empty() {
                return Err(FieldError::new(f, "expected at least one duration"));
            }
            for (i, item) in items.iter().enumerate() {
                fields::duration(item, &format!("{f}[{i}]"))?;
            }
            Ok(Some(items.clone()))
        }
        Some((v, f)) => {
            fields::duration(v, &f)?;
            Ok(None)
        }
        None => Ok(None),
    }
}

/// The `i`-th of `n` per-pair delays: the list's entry, or the single value, or `default`.
fn nth_delay(s: &Section, key: &str, list: &Option<Vec<Value>>, i: usize, default: &str) -> Value {
    match list {
        Some(items) => items[i].clone(),
        None => s.get(key).map(|(v, _)| v.clone()).unwrap_or_else(|| Value::String(default.into())),
    }
}

// ---------------------------------------------------------------------------------------------
// Generators

/// `pairs` senders `s1..sN` → `left` → `right` → receivers `r1..rN`: sender `i` reaches `left`
/// over `access{i}` (delay `access_delays[i]`), `bottleneck` joins `left` to `right`, `egress{i}`
/// leads to `r{i}` (delay `receiver_delays[i]`). Groups `senders` and `receivers`, so
/// `from = "senders", to = "receivers"` makes one flow per pair.
fn dumbbell(s: &Section) -> Res<Generated> {
    let access_list = durations(s, "access_delays")?;
    let receiver_list = durations(s, "receiver_delays")?;
    let list_len = access_list.as_ref().or(receiver_list.as_ref()).map(Vec::len);
    let pairs = match s.get("pairs") {
        Some(_) => int(s, "pairs", 1, 1, 100_000)? as usize,
        None => list_len.unwrap_or(1),
    };
    for (key, list) in [("access_delays", &access_list), ("receiver_delays", &receiver_list)] {
        if let Some(items) = list {
            if items.len() != pairs {
                return Err(FieldError::new(
                    s.field(key),
                    format!(
                        "{} delays for {pairs} pairs: give one per pair (or a single value for all)",
                        items.len()
                    ),
                ));
            }
        }
    }
    let preset = match s.get("bottleneck_preset") {
        Some((v, f)) => Some(fields::string(v, &f, "a link preset like \"geo\"").map(|_| v.clone())?),
        None => None,
    };
    let mut bottleneck_rate = rate(s, "bottleneck_rate", None)?;
    let mut bottleneck_delay = duration(s, "bottleneck_delay", None)?;
    if preset.is_none() {
        bottleneck_rate = Some(required(bottleneck_rate, s, "bottleneck_rate", "a rate like \"10Mbps\"")?);
        bottleneck_delay = Some(required(bottleneck_delay, s, "bottleneck_delay", "a delay like \"20ms\"")?);
    }
    let access_rate = rate(s, "access_rate", Some("100Mbps"))?;
    let access_queue = passthrough(s, "access_queue");

    let mut g = Generated::default();
    let senders: Vec<String> = (1..=pairs).map(|i| g.node(format!("s{i}"))).collect();
    let left = g.node("left");
    let right = g.node("right");
    let receivers: Vec<String> = (1..=pairs).map(|i| g.node(format!("r{i}"))).collect();
    for (i, sender) in senders.iter().enumerate() {
        let delay = nth_delay(s, "access_delays", &access_list, i, "1ms");
        g.link(
            format!("access{}", i + 1),
            sender,
            &left,
            &[("rate", access_rate.as_ref()), ("delay", Some(&delay)), ("queue", access_queue.as_ref())],
        );
    }
    g.link(
        "bottleneck",
        &left,
        &right,
        &[
            ("rate", bottleneck_rate.as_ref()),
            ("delay", bottleneck_delay.as_ref()),
            ("queue", passthrough(s, "bottleneck_queue").as_ref()),
            ("errors", passthrough(s, "bottleneck_errors").as_ref()),
            ("preset", preset.as_ref()),
        ],
    );
    for (i, receiver) in receivers.iter().enumerate() {
        let delay = nth_delay(s, "receiver_delays", &receiver_list, i, "1ms");
        g.link(
            format!("egress{}", i + 1),
            &right,
            receiver,
            &[("rate", access_rate.as_ref()), ("delay", Some(&delay)), ("queue", access_queue.as_ref())],
        );
    }
    g.groups.push(("senders".into(), senders));
    g.groups.push(("receivers".into(), receivers));
    Ok(g)
}

/// Seed 000 fig. 8 (mobile client) and seed 003's mobile server: `host` —`wired`→ `base`
/// —`wireless`→ `mobile`. Groups `sender` and `receiver` name the endpoints of the variant:
/// `mobile = "client"` sends from `host` to `mobile`, `"server"` from `mobile` to `host` (the
/// wireless hop is then at the sender's side).
fn wired_wireless(s: &Section) -> Res<Generated> {
    let server = match s.get("mobile") {
        None => false,
        Some((v, f)) => match fields::string(v, &f, "\"client\" or \"server\"")?.trim() {
            "client" => false,
            "server" => true,
            other => {
                return Err(FieldError::new(
                    f,
                    format!(
                        "unknown role {other}; expected \"client\" (the mobile receives) or \
                         \"server\" (it sends)",
                        other = echo(other)
                    ),
                ))
            }
        },
    };
    let queue = passthrough(s, "queue");
    let mut g = Generated::default();
    let host = g.node("host");
    let base = g.node("base");
    let mobile = g.node("mobile");
    g.link(
        "wired",
        &host,
        &base,
        &[
            ("rate", rate(s, "wired_rate", Some("10Mbps"))?.as_ref()),
            ("delay", duration(s, "wired_delay", Some("45ms"))?.as_ref()),
            ("queue", queue.as_ref()),
        ],
    );
    g.link(
        "wireless",
        &base,
        &mobile,
        &[
            ("rate", rate(s, "wireless_rate", Some("2Mbps"))?.as_ref()),
            ("delay", duration(s, "wireless_delay", Some("0.01ms"))?.as_ref()),
            ("queue", queue.as_ref()),
            ("errors", passthrough(s, "wireless_errors").as_ref()),
        ],
    );
    let (sender, receiver) = if server { (mobile, host) } else { (host, mobile) };
    g.groups.push(("sender".into(), vec![sender]));
    g.groups.push(("receiver".into(), vec![receiver]));
    Ok(g)
}

/// Seed 002 figs. 4 and 11: node `src` and node `dst` joined by disjoint chains of links, path
/// `i` having `hops[i]` links (`path{i}_{j}` for j = 1..hops, through nodes `p{i}_{j}`), every
/// link with the same rate and delay.
fn parallel_paths(s: &Section) -> Res<Generated> {
    let hops: Vec<u64> = match s.get("hops") {
        None => vec![1, 2],
        Some((Value::Array(items), f)) => {
            if items.is_empty() {
                return Err(FieldError::new(f, "expected at least one path, like [1, 2]"));
            }
            let mut out = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let field = format!("{f}[{i}]");
                let n = fields::uint(item, &field)?;
                if !(1..=1000).contains(&n) {
                    return Err(FieldError::new(
                        field,
                        format!("{n} is out of range; expected 1 to 1000 links"),
                    ));
                }
                out.push(n);
            }
            if out.iter().filter(|&&n| n == 1).count() > 1 {
                return Err(FieldError::new(f, "at most one path can be a single (direct) link"));
            }
            out
        }
        Some((v, f)) => {
            return Err(FieldError::new(
                f,
                format!("expected a list of links per path like [1, 2, 3, 4], found {}", describe(v)),
            ))
        }
    };
    let rate = rate(s, "rate", Some("1.5Mbps"))?;
    let delay = duration(s, "delay", Some("30ms"))?;
    let queue = passthrough(s, "queue");
    let props = [("rate", rate.as_ref()), ("delay", delay.as_ref()), ("queue", queue.as_ref())];
    let mut g = Generated::default();
    let src = g.node("src");
    let dst = g.node("dst");
    for (i, &n) in hops.iter().enumerate() {
        let p = i + 1;
        let mut at = src.clone();
        for j in 1..=n {
            let next = if j == n { dst.clone() } else { g.node(format!("p{p}_{j}")) };
            g.link(format!("path{p}_{j}"), &at, &next, &props);
            at = next;
        }
    }
    Ok(g)
}

/// Seed 002 fig. 16: a `rows` × `cols` grid of nodes `n{r}_{c}` (0-based), each joined to its
/// right neighbour by `h{r}_{c}` and to the one below by `v{r}_{c}`. Group `inner`: the nodes at
/// least `margin` (default 1) away from the border — the 6×6 sources and destinations of the
/// paper's 8×8 grid; group `all`: every node.
/// Most nodes a generated grid may have: its routing tables (nodes² entries) then take 8 GB, far
/// beyond the default memory limit, which refuses the run with the estimate. Larger grids are
/// refused before they are generated, which would itself take GBs and tens of seconds.
const MAX_GRID_NODES: usize = 32_768;

fn grid(s: &Section) -> Res<Generated> {
    let rows = int(s, "rows", 8, 1, 1000)? as usize;
    let cols = int(s, "cols", 8, 1, 1000)? as usize;
    if rows * cols < 2 {
        return Err(FieldError::new(s.field("rows"), "a grid needs at least two nodes"));
    }
    if rows * cols > MAX_GRID_NODES {
        return Err(FieldError::new(
            s.field("rows"),
            format!(
                "a {rows}x{cols} grid has {} nodes; at most {MAX_GRID_NODES}: the shortest-path tables \
                 alone grow with the square of the nodes ({} for {MAX_GRID_NODES})",
                rows * cols,
                crate::budget::human_bytes(crate::network::Routes::bytes_for(MAX_GRID_NODES)),
            ),
        ));
    }
    let margin = int(s, "margin", 1, 0, 500)? as usize;
    let rate = rate(s, "rate", Some("1.5Mbps"))?;
    let delay = required(duration(s, "delay", None)?, s, "delay", "the delay of every link, like \"10ms\"")?;
    let queue = passthrough(s, "queue");
    let props = [("rate", rate.as_ref()), ("delay", Some(&delay)), ("queue", queue.as_ref())];
    let name = |r: usize, c: usize| format!("n{r}_{c}");
    let mut g = Generated::default();
    for r in 0..rows {
        for c in 0..cols {
            g.node(name(r, c));
        }
    }
    for r in 0..rows {
        for c in 0..cols {
            if c + 1 < cols {
                g.link(format!("h{r}_{c}"), &name(r, c), &name(r, c + 1), &props);
            }
            if r + 1 < rows {
                g.link(format!("v{r}_{c}"), &name(r, c), &name(r + 1, c), &props);
            }
        }
    }
    let inner: Vec<String> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(|&(r, c)| r >= margin && r + margin < rows && c >= margin && c + margin < cols)
        .map(|(r, c)| name(r, c))
        .collect();
    if inner.is_empty() {
        return Err(FieldError::new(
            s.field("margin"),
            format!("margin {margin} leaves no inner nodes in a {rows}x{cols} grid"),
        ));
    }
    g.groups.push(("inner".into(), inner));
    g.groups.push(("all".into(), g.nodes.clone()));
    Ok(g)
}

#[cfg(test)]
mod tests {
    use crate::model::{ErrorSpec, Scenario};
    use crate::network::loss::bernoulli;
    use crate::network::loss::outage::{self, OutageOffset, OutageSpec};
    use crate::scenario::{load_str, ScenarioError};

    const MS: u64 = 1_000_000;

    fn load(topology: &str, rest: &str) -> Result<Scenario, ScenarioError> {
        load_str(&format!("[scenario]\nduration = \"10s\"\n[topology]\n{topology}\n{rest}"), "t.toml", &[])
    }

    fn link<'a>(s: &'a Scenario, name: &str) -> &'a crate::model::LinkSpec {
        s.links.iter().find(|l| l.name == name).unwrap_or_else(|| panic!("no link {name}"))
    }

    fn ends(s: &Scenario, name: &str) -> (String, String) {
        let l = link(s, name);
        (s.nodes[l.from].name.clone(), s.nodes[l.to].name.clone())
    }

    #[test]
    fn dumbbell_has_per_pair_access_delays_and_pairs_flows_by_group() {
        let s = load(
            "generator = \"dumbbell\"\nbottleneck_rate = \"10Mbps\"\nbottleneck_delay = \"20ms\"\n\
             access_delays = [\"1ms\", \"25ms\", \"75ms\"]",
            "[flows.f]\nfrom = \"senders\"\nto = \"receivers\"\n",
        )
        .unwrap();
        // 3 senders, left, right, 3 receivers; 3 + 1 + 3 duplex links.
        assert_eq!(s.nodes.len(), 8);
        assert_eq!(s.links.len(), 14);
        assert_eq!(ends(&s, "bottleneck"), ("left".into(), "right".into()));
        assert_eq!(link(&s, "bottleneck").rate_bps, 10_000_000);
        assert_eq!(link(&s, "bottleneck").delay, 20 * MS);
        assert_eq!(link(&s, "bottleneck.reverse").delay, 20 * MS);
        assert_eq!(link(&s, "access2").delay, 25 * MS);
        assert_eq!(link(&s, "access3").delay, 75 * MS);
        assert_eq!(link(&s, "access1").rate_bps, 100_000_000);
        assert_eq!(link(&s, "egress3").delay, MS);
        assert_eq!(ends(&s, "egress3"), ("right".into(), "r3".into()));
        let flows: Vec<(&str, &str, &str)> = s
            .flows
            .iter()
            .map(|f| (f.name.as_str(), s.nodes[f.src].name.as_str(), s.nodes[f.dst].name.as_str()))
            .collect();
        assert_eq!(flows, vec![("f.1", "s1", "r1"), ("f.2", "s2", "r2"), ("f.3", "s3", "r3")]);
    }

    #[test]
    fn dumbbell_with_a_geo_bottleneck_is_the_seed_003_satellite_scenario() {
        let s = load(
            "generator = \"dumbbell\"\npairs = 10\nbottleneck_preset = \"geo\"",
            "[flows.f]\nfrom = \"senders\"\nto = \"receivers\"\n",
        )
        .unwrap();
        assert_eq!(s.flows.len(), 10);
        let geo = link(&s, "bottleneck");
        assert_eq!((geo.rate_bps, geo.delay), (1_300_000, 300 * MS));
        // 600 ms round trip over the satellite, as the slides give.
        assert_eq!(geo.delay + link(&s, "bottleneck.reverse").delay, 600 * MS);
    }

    #[test]
    fn wired_wireless_client_and_server_swap_the_endpoints() {
        let flows = "[flows.ftp]\nfrom = \"sender\"\nto = \"receiver\"\n";
        let client = load(
            "generator = \"wired_wireless\"\nwireless_errors = { model = \"bernoulli\", rate = \"1%\" }",
            flows,
        )
        .unwrap();
        assert_eq!(client.nodes.len(), 3);
        assert_eq!(client.links.len(), 4);
        assert_eq!(ends(&client, "wired"), ("host".into(), "base".into()));
        assert_eq!((link(&client, "wired").rate_bps, link(&client, "wired").delay), (10_000_000, 45 * MS));
        let w = link(&client, "wireless");
        assert_eq!((w.rate_bps, w.delay), (2_000_000, 10_000));
        assert_eq!(w.errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
        assert_eq!(link(&client, "wireless.reverse").errors, Some(ErrorSpec::one(bernoulli::setting(0.01))));
        assert_eq!(link(&client, "wired").errors, None);
        let f = &client.flows[0];
        assert_eq!(
            (client.nodes[f.src].name.as_str(), client.nodes[f.dst].name.as_str()),
            ("host", "mobile")
        );

        // Seed 003's mobile server: 100 Mbps, 62 ms wired; the mobile sends.
        let server = load(
            "generator = \"wired_wireless\"\nmobile = \"server\"\nwired_rate = \"100Mbps\"\nwired_delay = \"62ms\"",
            flows,
        )
        .unwrap();
        let f = &server.flows[0];
        assert_eq!(
            (server.nodes[f.src].name.as_str(), server.nodes[f.dst].name.as_str()),
            ("mobile", "host")
        );
        assert_eq!(link(&server, "wired").delay, 62 * MS);
    }

    #[test]
    fn parallel_paths_builds_the_two_and_four_path_topologies() {
        // Fig. 4: two 1.5 Mbps paths of 30 ms links (defaults).
        let two = load("generator = \"parallel_paths\"", "").unwrap();
        assert_eq!(two.nodes.len(), 3); // src, dst, p2_1
        assert_eq!(two.links.len(), 6); // 1 + 2 duplex links
        assert!(two.links.iter().all(|l| l.rate_bps == 1_500_000 && l.delay == 30 * MS));
        assert_eq!(ends(&two, "path1_1"), ("src".into(), "dst".into()));
        assert_eq!(ends(&two, "path2_2"), ("p2_1".into(), "dst".into()));
        // Fig. 11: four paths of 1..4 links, 10 ms each.
        let four = load("generator = \"parallel_paths\"\nhops = [1, 2, 3, 4]\ndelay = \"10ms\"", "").unwrap();
        assert_eq!(four.nodes.len(), 2 + 1 + 2 + 3); // src, dst and 0 + 1 + 2 + 3 inner nodes
        assert_eq!(four.links.len(), 2 * (1 + 2 + 3 + 4));
        assert!(four.links.iter().all(|l| l.rate_bps == 1_500_000 && l.delay == 10 * MS));
        assert_eq!(ends(&four, "path4_3"), ("p4_2".into(), "p4_3".into()));
    }

    #[test]
    fn grid_is_eight_by_eight_with_six_by_six_inner_sources() {
        let s = load(
            "generator = \"grid\"\ndelay = \"20ms\"",
            "[flows.web]\namong = \"inner\"\narrivals = { mean_interarrival = \"2s\", mean_duration = \"180s\" }\n",
        )
        .unwrap();
        assert_eq!(s.nodes.len(), 64);
        assert_eq!(s.links.len(), 2 * 2 * 8 * 7);
        assert!(s.links.iter().all(|l| l.rate_bps == 1_500_000 && l.delay == 20 * MS));
        assert_eq!(ends(&s, "h3_4"), ("n3_4".into(), "n3_5".into()));
        assert_eq!(ends(&s, "v6_0"), ("n6_0".into(), "n7_0".into()));
        let crate::model::ArrivalEndpoints::Among(inner) = &s.arrivals[0].endpoints else { panic!() };
        assert_eq!(inner.len(), 36);
        assert!(inner.iter().all(|&i| {
            let name = &s.nodes[i].name;
            let (r, c) = name[1..].split_once('_').unwrap();
            (1..=6).contains(&r.parse::<u32>().unwrap()) && (1..=6).contains(&c.parse::<u32>().unwrap())
        }));
        // Every inner node has four neighbours, so four edge-disjoint paths to any other.
        for &i in inner {
            assert_eq!(s.links.iter().filter(|l| l.from == i).count(), 4);
        }
    }

    #[test]
    fn generated_and_explicit_nodes_and_links_mix() {
        let s = load(
            "generator = \"wired_wireless\"\nnodes = [\"gw\", \"sat\"]",
            "[links.uplink]\nfrom = \"gw\"\nto = \"host\"\nrate = \"10Mbps\"\ndelay = \"1ms\"\n\
             [links.space]\nfrom = \"sat\"\nto = \"gw\"\npreset = \"leo\"\nrate = \"2Mbps\"\n",
        )
        .unwrap();
        let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, vec!["host", "base", "mobile", "gw", "sat"]);
        assert_eq!(s.links.len(), 8);
        let leo = link(&s, "space");
        assert_eq!((leo.rate_bps, leo.delay), (2_000_000, 100 * MS));
        // Seed 000 §5.3: 0.1 % errors plus a 100 ms handoff outage every 4 s, both directions.
        let expected = ErrorSpec {
            models: vec![
                bernoulli::setting(0.001),
                outage::setting(OutageSpec {
                    period: 4_000 * MS,
                    duration: 100 * MS,
                    offset: OutageOffset::At(0),
                }),
            ],
        };
        assert_eq!(leo.errors.as_ref(), Some(&expected));
        assert_eq!(link(&s, "space.reverse").errors.as_ref(), Some(&expected));
        // Setting errors replaces the preset's: here the outages alone.
        let s = load(
            "nodes = [\"a\", \"b\"]",
            "[links.l]\nfrom = \"a\"\nto = \"b\"\npreset = \"leo\"\nrate = \"2Mbps\"\n\
             errors = { model = \"outage\", period = \"4s\", duration = \"100ms\" }\n",
        )
        .unwrap();
        assert!(matches!(&link(&s, "l").errors, Some(e) if e.settings::<OutageSpec>().count() == 1));
    }

    #[test]
    fn link_presets_fill_only_missing_keys() {
        let s = load(
            "nodes = [\"a\", \"b\"]",
            "[links.sat]\nfrom = \"a\"\nto = \"b\"\npreset = \"geo\"\ndelay = \"250ms\"\n",
        )
        .unwrap();
        let l = link(&s, "sat");
        assert_eq!((l.rate_bps, l.delay), (1_300_000, 250 * MS));
    }

    #[test]
    fn generator_mistakes_name_the_field() {
        let cases = [
            ("generator = \"ring\"", "", "topology.generator"),
            ("generator = \"grid\"", "", "topology.delay"),
            ("generator = \"grid\"\ndelay = \"1ms\"\nsize = 3", "", "topology.size"),
            ("generator = \"dumbbell\"\nbottleneck_rate = \"1Mbps\"", "", "topology.bottleneck_delay"),
            (
                "generator = \"dumbbell\"\npairs = 2\naccess_delays = [\"1ms\"]\nbottleneck_rate = \"1Mbps\"\nbottleneck_delay = \"1ms\"",
                "",
                "topology.access_delays",
            ),
            ("generator = \"parallel_paths\"\nrate = \"fast\"", "", "topology.rate"),
            ("generator = \"parallel_paths\"\nhops = [1, 1]", "", "topology.hops"),
            ("generator = \"wired_wireless\"\nmobile = \"both\"", "", "topology.mobile"),
            (
                "generator = \"parallel_paths\"",
                "[links.path1_1]\nfrom = \"src\"\nto = \"dst\"\nrate = \"1Mbps\"\ndelay = \"1ms\"\n",
                "links.path1_1",
            ),
            ("nodes = [\"a\", \"b\"]", "[links.l]\nfrom = \"a\"\nto = \"b\"\npreset = \"meo\"\n", "links.l.preset"),
            ("nodes = [\"a\", \"b\"]", "[links.l]\nfrom = \"a\"\nto = \"b\"\npreset = \"leo\"\n", "links.l.rate"),
            ("generator = \"grid\"\ndelay = \"1ms\"\ngroups = { inner = [\"n0_0\"] }", "", "topology.groups.inner"),
        ];
        for (topology, rest, field) in cases {
            let err = load(topology, rest).unwrap_err();
            assert_eq!(err.field, field, "{topology}: {err}");
        }
    }
}
