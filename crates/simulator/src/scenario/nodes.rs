//! The scenario's nodes (`[topology] nodes`) and how every other table names one.

use std::collections::{HashMap, HashSet};

use toml::Value;

use super::fields::{self, describe, Section};
use super::{echo, echo_list, FieldError, Res};
use crate::model::NodeSpec;

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

    pub(crate) fn into_specs(self) -> Vec<NodeSpec> {
        self.specs
    }
}

impl std::ops::Deref for Nodes {
    type Target = [NodeSpec];

    fn deref(&self) -> &[NodeSpec] {
        &self.specs
    }
}

/// `[topology] nodes`, checked: names non-empty and unique.
pub(crate) fn nodes(topology: Section) -> Res<Nodes> {
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
