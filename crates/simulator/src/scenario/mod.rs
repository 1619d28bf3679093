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
mod links;
mod nodes;
mod overrides;
mod params;
mod sources;
mod tcp;
mod topology;
mod traffic;

use std::fmt;
use std::path::Path;

pub(crate) use crate::fields;
pub use crate::fields::units;
pub(crate) use crate::fields::{echo, echo_list, shorten, FieldError, Res, ECHO_LIMIT};
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

/// A field path (`links.NAME.rate`, `--set KEY`) with each dotted segment [`shorten`]ed: the
/// segments are the user's table names and keys.
fn shorten_path(field: &str) -> String {
    if field.len() <= ECHO_LIMIT {
        return field.to_string();
    }
    field.split('.').map(shorten).collect::<Vec<_>>().join(".")
}

/// Reads and loads a scenario file. The file's path (as given) names it in errors; its stem is
/// the default scenario name.
/// `overrides` with a run's `seed`, when it has one, as the last `scenario.seed` override (it
/// wins over one the user gave). Loading a file already draws from the seed (exponential ON/OFF
/// schedules of sources are drawn then), so a run's seed must be known to the load, not set on
/// the loaded scenario afterwards.
pub fn with_seed(overrides: &[(String, String)], seed: Option<u64>) -> Vec<(String, String)> {
    let mut all = overrides.to_vec();
    if let Some(seed) = seed {
        all.push(("scenario.seed".to_string(), seed.to_string()));
    }
    all
}

pub fn load_file(path: &Path, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let origin = path.display().to_string();
    let error = |message: String| ScenarioError { file: origin.clone(), field: String::new(), message };
    // Read bytes, not a `String`: the standard library's UTF-8 error ("stream did not contain
    // valid UTF-8") says neither where nor which bytes, and the user has to find them.
    let bytes = std::fs::read(path).map_err(|e| error(format!("cannot read the scenario file: {e}")))?;
    let text = std::str::from_utf8(&bytes).map_err(|e| error(not_utf8(&bytes, &e)))?;
    load_str(text, &origin, overrides)
}

/// Where and why `bytes` stop being UTF-8, and the fix.
fn not_utf8(bytes: &[u8], e: &std::str::Utf8Error) -> String {
    let offset = e.valid_up_to();
    // Everything before `offset` is valid, so the lossy conversion changes nothing there.
    let before = String::from_utf8_lossy(&bytes[..offset]);
    let bad = &bytes[offset..offset + e.error_len().unwrap_or(bytes.len() - offset)];
    let hex: Vec<String> = bad.iter().take(4).map(|b| format!("0x{b:02X}")).collect();
    let what = match e.error_len() {
        Some(1) => format!("byte {} is not valid UTF-8 here", hex.join(" ")),
        Some(_) => format!("bytes {} are not valid UTF-8", hex.join(" ")),
        None => format!("the file ends in the middle of a character (bytes {})", hex.join(" ")),
    };
    format!(
        "not UTF-8 at {} (byte offset {offset}): {what}; TOML files must be UTF-8, so re-save the \
         file as UTF-8 (the usual cause is text saved as Latin-1 or Windows-1252)",
        location(&before, offset)
    )
}

/// Loads a scenario from TOML text. `origin` names it in errors (usually the file name); the
/// stem of `origin` is the default scenario name.
pub fn load_str(text: &str, origin: &str, overrides: &[(String, String)]) -> Result<Scenario, ScenarioError> {
    let attach = |e: FieldError| ScenarioError {
        file: origin.to_string(),
        field: shorten_path(&e.field),
        message: e.message,
    };
    let mut doc: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        let (at, reason) = syntax_error(text, e.span(), e.message());
        ScenarioError {
            file: origin.to_string(),
            field: at.map(|offset| location(text, offset)).unwrap_or_default(),
            message: format!("invalid TOML: {reason}"),
        }
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

/// Where a TOML syntax error is (a byte offset, when known) and a reason that is never empty.
///
/// The parser reports a control character (NUL, a lone CR, ...) poorly: often as an empty
/// message, or as "invalid key" for a character the user cannot see. TOML allows none of them
/// except tab and line breaks, so a parser that stops at (or inside a construct holding) the
/// first one stopped because of it: that is what the user is told, at the character itself.
fn syntax_error(text: &str, span: Option<std::ops::Range<usize>>, message: &str) -> (Option<usize>, String) {
    let reason = parser_reason(message);
    let control = first_control_character(text);
    match (span, control) {
        (Some(span), Some((at, byte))) if at <= span.end => (Some(at), control_character(byte)),
        (None, Some((at, byte))) => (Some(at), control_character(byte)),
        (span, control) => {
            let start = span.map(|s| s.start);
            let mut reason = if !reason.is_empty() {
                reason
            } else {
                match start.and_then(|s| text.get(s..)).and_then(|rest| rest.chars().next()) {
                    None => "unexpected end of the file (a value or a closing bracket or quote is \
                             missing)"
                        .to_string(),
                    Some('\n') => "unexpected end of the line (a value is missing)".to_string(),
                    Some(c) => format!("unexpected character {c:?}"),
                }
            };
            if let Some((at, byte)) = control {
                // The parser stopped earlier; the control character is a second problem.
                reason.push_str(&format!("; also at {}: {}", location(text, at), control_character(byte)));
            }
            (start, reason)
        }
    }
}

/// The TOML parser's message on one line. It quotes keys in backticks ("duplicate key `k` in
/// table `t`"): each quoted part is [`shorten`]ed, so a huge key leaves the rest readable.
fn parser_reason(message: &str) -> String {
    let parts: Vec<String> = message
        .trim()
        .replace('\n', "; ")
        .split('`')
        .enumerate()
        .map(|(i, part)| if i % 2 == 1 { shorten(part).into_owned() } else { part.to_string() })
        .collect();
    parts.join("`")
}

/// The first control character TOML forbids anywhere (all but tab, line feed, and carriage
/// return before a line feed): its byte offset and value. All of them are ASCII, so a byte scan
/// finds them without decoding.
fn first_control_character(text: &str) -> Option<(usize, u8)> {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().map(|(i, &b)| (i, b)).find(|&(i, b)| match b {
        b'\t' | b'\n' => false,
        b'\r' => bytes.get(i + 1) != Some(&b'\n'),
        _ => b.is_ascii_control(),
    })
}

/// What is wrong with a control character in a TOML file, and the fix.
fn control_character(byte: u8) -> String {
    const NAMES: [&str; 32] = [
        "NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF", "CR", "SO",
        "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM", "SUB", "ESC", "FS", "GS",
        "RS", "US",
    ];
    let name = NAMES.get(usize::from(byte)).copied().unwrap_or("DEL");
    if byte == b'\r' {
        return "control character CR (U+000D) is not allowed on its own; lines must end in LF or \
                CR LF (convert the file's line endings)"
            .to_string();
    }
    format!(
        "control character {name} (U+{byte:04X}) is not allowed; TOML allows only tab and line breaks \
         (remove it, or write it as \\u{byte:04X} inside a \"double-quoted\" string)"
    )
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
