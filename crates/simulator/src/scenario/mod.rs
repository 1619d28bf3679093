//! TOML scenario files: parameters, command-line overrides, units and validation.
//!
//! A scenario file (format: `docs/scenarios.md`) goes through five steps:
//!
//! 1. parse the TOML ([`load_str`] / [`load_file`]);
//! 2. apply the user's `--set KEY=VALUE` overrides, in order ([`overrides`]);
//! 3. substitute `${name}` parameter references everywhere outside `[parameters]` ([`params`]);
//! 4. expand topology generators and link presets into plain nodes and links ([`topology`]);
//! 5. check every field and convert it to the typed [`crate::model::Scenario`] ([`build`]).
//!
//! Every problem is reported as a [`ScenarioError`] naming the file, the field path (e.g.
//! `links.wired.rate`) and what was expected; nothing here panics on bad input.

mod build;
mod congestion;
mod drop_list;
mod fields;
mod links;
mod overrides;
mod params;
mod sources;
mod topology;
mod traffic;
pub mod units;

use std::fmt;
use std::path::Path;

use crate::model::Scenario;

/// A problem with a scenario file or an override.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file (or origin) the scenario came from.
    pub file: String,
    /// Path of the offending field, e.g. `links.wired.rate`, `--set loss` for an override, a
    /// TOML location (`line 3, column 7`) for a syntax error, or empty.
    pub field: String,
    /// What is wrong and what was expected.
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}: {}: {}", self.file, self.field, self.message)
        }
    }
}

impl std::error::Error for ScenarioError {}

/// An error before the file name is attached: the field path and the message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub(crate) fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        FieldError { field: field.into(), message: message.into() }
    }
}

pub(crate) type Res<T> = Result<T, FieldError>;

/// Reads and loads a scenario file. The file's path (as given) names it in errors; its stem is
/// the default scenario name.
pub fn load_file(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| ScenarioError {
        file: origin.clone(),
        field: String::new(),
        message: format!("cannot read the scenario file: {e}"),
    })?;
    load_str(&text, &origin, overrides)
}

/// Loads a scenario from TOML text. `origin` names it in errors (usually the file name); the
/// stem of `origin` is the default scenario name.
pub fn load_str(text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let attach =
        |e: FieldError| ScenarioError { file: origin.to_string(), field: e.field, message: e.message };
    let mut doc: toml::Table = text.parse().map_err(|e: toml::de::Error| ScenarioError {
        file: origin.to_string(),
        field: e.span().map(|span| location(text, span.start)).unwrap_or_default(),
        message: format!("invalid TOML: {}", e.message().trim_end().replace('\n', "; ")),
    })?;
    overrides::apply(&mut doc, overrides).map_err(attach)?;
    let parameters = params::declared(&doc).map_err(attach)?;
    params::substitute(&mut doc, &parameters).map_err(attach)?;
    topology::expand(&mut doc).map_err(attach)?;
    let resolved = parameters.iter().map(|(k, v)| (k.clone(), params::value_text(v))).collect();
    let default_name = Path::new(origin)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| origin.to_string());
    let mut scenario = build::build(&doc, resolved, &default_name).map_err(attach)?;
    scenario.source = origin.to_string();
    Ok(scenario)
}

/// `line L, column C` (1-based) of a byte offset in `text`.
fn location(text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {column}")
}

#[cfg(test)]
mod profile_tests;
#[cfg(test)]
mod tests;
