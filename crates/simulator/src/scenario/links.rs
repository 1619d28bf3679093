//! A link's `queue` (drop-tail or RED) and `errors` (channel error models) keys.

use toml::{Table, Value};

use super::fields::{self, describe, Section};
use super::units;
use super::{echo, FieldError, Res};
use crate::model::{ErrorSpec, LossSetting, QueueLimit, QueueSpec, RedSpec};
use crate::network::loss::MODELS;

const QUEUE_KEYS: &[&str] =
    &["type", "limit", "rtt", "min", "min_th", "max_th", "max_p", "w_q", "gentle", "mean_packet_size"];
/// Keys of a queue table that only RED reads.
const RED_ONLY_KEYS: &[&str] = &["min_th", "max_th", "max_p", "w_q", "gentle", "mean_packet_size"];

const QUEUE_LIMIT_EXPECTED: &str =
    "expected \"bdp\", a number of packets like 100 or \"100pkt\", or a size like \"64KB\"";

/// The default queue: drop-tail, one bandwidth-delay product.
pub(crate) fn default_queue() -> QueueSpec {
    QueueSpec::DropTail(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 })
}

pub(crate) fn queue(v: &Value, field: &str) -> Res<QueueSpec> {
    let Value::Table(t) = v else {
        return Ok(QueueSpec::DropTail(queue_limit(v, field)?));
    };
    let section = Section::new(field, t, QUEUE_KEYS)?;
    let red = match section.get("type") {
        None => false,
        Some((v, f)) => {
            let kind = fields::string(v, &f, "a queue type, \"droptail\" or \"red\"")?;
            match kind.trim().to_ascii_lowercase().as_str() {
                "droptail" => false,
                "red" => true,
                _ => {
                    return Err(FieldError::new(
                        f,
                        format!(
                            "unknown queue type {kind}; expected \"droptail\" or \"red\"",
                            kind = echo(kind)
                        ),
                    ))
                }
            }
        }
    };
    let mut limit = match section.get("limit") {
        Some((v, f)) => queue_limit(v, &f)?,
        None => QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 },
    };
    if let Some((v, f)) = section.get("rtt") {
        let rtt = fields::positive_duration(v, &f)?;
        match limit {
            QueueLimit::BandwidthDelayProduct { min, .. } => {
                limit = QueueLimit::BandwidthDelayProduct { rtt: Some(rtt), min }
            }
            _ => {
                return Err(FieldError::new(
                    f,
                    "rtt only applies when the limit is \"bdp\" (it fixes the RTT of the \
                     bandwidth-delay product)",
                ))
            }
        }
    }
    if let Some((v, f)) = section.get("min") {
        let floor = packets_floor(v, &f)?;
        match limit {
            QueueLimit::BandwidthDelayProduct { rtt, .. } => {
                limit = QueueLimit::BandwidthDelayProduct { rtt, min: floor }
            }
            _ => {
                return Err(FieldError::new(
                    f,
                    "min only applies when the limit is \"bdp\" (it is the fewest packets the \
                     bandwidth-delay product may come out at)",
                ))
            }
        }
    }
    if !red {
        if let Some(key) = RED_ONLY_KEYS.iter().find(|k| t.contains_key(**k)) {
            return Err(FieldError::new(
                section.field(key),
                format!("{key} only applies to RED queues; add type = \"red\" to this queue"),
            ));
        }
        return Ok(QueueSpec::DropTail(limit));
    }
    let defaults = RedSpec::with_limit(limit);
    let min_th = match section.get("min_th") {
        Some((v, f)) => packets(v, &f)?,
        None => defaults.min_th,
    };
    let max_th = match section.get("max_th") {
        Some((v, f)) => packets(v, &f)?,
        None => defaults.max_th,
    };
    if max_th <= min_th {
        let f = section.get("max_th").or(section.get("min_th")).map(|(_, f)| f).unwrap_or_default();
        return Err(FieldError::new(
            f,
            format!("max_th ({max_th} packets) must be greater than min_th ({min_th} packets)"),
        ));
    }
    let max_p = match section.get("max_p") {
        Some((v, f)) => fields::probability(v, &f)?,
        None => defaults.max_p,
    };
    let w_q = match section.get("w_q") {
        Some((v, f)) => {
            let w = number(v, &f, "a weight in (0, 1] like 0.002")?;
            if !(w > 0.0 && w <= 1.0) {
                return Err(FieldError::new(
                    f,
                    format!("{} is not a valid weight: w_q must be in (0, 1], like 0.002", describe(v)),
                ));
            }
            w
        }
        None => defaults.w_q,
    };
    let gentle = match section.get("gentle") {
        Some((v, f)) => fields::boolean(v, &f)?,
        None => defaults.gentle,
    };
    let mean_packet_size = match section.get("mean_packet_size") {
        None => None,
        Some((Value::String(s), _)) if s.trim().eq_ignore_ascii_case("auto") => None,
        Some((v, f)) => {
            let n = fields::size(v, &f)
                .map_err(|e| FieldError::new(e.field, format!("{}; or \"auto\"", e.message)))?;
            if n == 0 || n > u64::from(u32::MAX) {
                return Err(FieldError::new(f, "must be from 1 byte to 4 GB, like \"1000B\", or \"auto\""));
            }
            Some(n)
        }
    };
    Ok(QueueSpec::Red(RedSpec { limit, min_th, max_th, max_p, w_q, gentle, mean_packet_size }))
}

/// `min` of a `"bdp"` queue: a whole number of packets, at least 1.
fn packets_floor(v: &Value, field: &str) -> Res<u64> {
    match fields::packet_count(v) {
        Some(Ok(n)) if n >= 1 => Ok(n),
        Some(Ok(_)) => Err(FieldError::new(field, "must be at least 1 packet, like 4")),
        Some(Err(m)) => Err(FieldError::new(field, format!("{m}: expected a number of packets like 4"))),
        None => Err(FieldError::new(
            field,
            format!("{} is not a number of packets; expected one like 4 or \"4pkt\"", describe(v)),
        )),
    }
}

fn queue_limit(v: &Value, field: &str) -> Res<QueueLimit> {
    if let Value::String(s) = v {
        if s.trim().eq_ignore_ascii_case("bdp") {
            return Ok(QueueLimit::BandwidthDelayProduct { rtt: None, min: 1 });
        }
    }
    match fields::packet_count(v) {
        Some(Ok(n)) => return Ok(QueueLimit::Packets(n)),
        Some(Err(m)) => {
            return Err(FieldError::new(
                field,
                format!("{m}: not a valid queue limit; {QUEUE_LIMIT_EXPECTED}"),
            ))
        }
        None => {}
    }
    match v {
        Value::String(s) => units::parse_size(s).map(QueueLimit::Bytes).map_err(|_| {
            FieldError::new(
                field,
                format!("{s} is not a valid queue limit: {QUEUE_LIMIT_EXPECTED}", s = echo(s)),
            )
        }),
        other => Err(FieldError::new(
            field,
            format!(
                "{QUEUE_LIMIT_EXPECTED} (or a table {{ type = \"droptail\", limit = ... }}), found {}",
                describe(other)
            ),
        )),
    }
}

/// A finite number (TOML integer or float, or a string holding one).
fn number(v: &Value, field: &str, expected: &str) -> Res<f64> {
    let x = match v {
        Value::Integer(i) => *i as f64,
        Value::Float(x) => *x,
        Value::String(s) => s.trim().parse::<f64>().map_err(|_| {
            FieldError::new(field, format!("{s} is not a number; expected {expected}", s = echo(s)))
        })?,
        other => {
            return Err(FieldError::new(field, format!("expected {expected}, found {}", describe(other))))
        }
    };
    if !x.is_finite() {
        return Err(FieldError::new(field, format!("{} is not finite; expected {expected}", describe(v))));
    }
    Ok(x)
}

/// A RED threshold: a number of packets >= 0, fractions allowed (`5`, `2.5`, `"5pkt"`).
fn packets(v: &Value, field: &str) -> Res<f64> {
    const EXPECTED: &str = "a number of packets >= 0, like 5 or \"5pkt\"";
    let n = match v {
        Value::String(s) => {
            let t = s.trim();
            let number = ["packets", "packet", "pkts", "pkt"]
                .iter()
                .find_map(|suffix| t.strip_suffix(suffix))
                .map_or(t, str::trim_end);
            number.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| {
                FieldError::new(
                    field,
                    format!("{s} is not a number of packets; expected {EXPECTED}", s = echo(s)),
                )
            })?
        }
        _ => number(v, field, EXPECTED)?,
    };
    if n < 0.0 {
        return Err(FieldError::new(field, format!("{} is negative; expected {EXPECTED}", describe(v))));
    }
    Ok(n)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
    Both,
}

/// A link's `errors`: one model table or an array of them. Returns the models of the forward
/// and the reverse half (`None`: no error model); with several models on one half, a packet is
/// lost if any of them loses it.
pub(crate) fn errors(v: &Value, field: &str, duplex: bool) -> Res<(Option<ErrorSpec>, Option<ErrorSpec>)> {
    let entries: Vec<(&Table, String)> = match v {
        Value::Table(t) => vec![(t, field.to_string())],
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| {
                let path = format!("{field}[{i}]");
                fields::table(item, &path).map(|t| (t, path))
            })
            .collect::<Res<_>>()?,
        other => {
            return Err(FieldError::new(
                field,
                format!(
                    "expected a table like {{ model = \"bernoulli\", rate = \"1%\" }} or an array of \
                     such tables, found {}",
                    describe(other)
                ),
            ))
        }
    };
    let (mut forward, mut reverse) = (Vec::new(), Vec::new());
    for (table, path) in &entries {
        let (spec, direction) = error_model(table, path)?;
        if direction == Direction::Reverse && !duplex {
            return Err(FieldError::new(
                fields::join(path, "direction"),
                "direction \"reverse\" needs a duplex link, but this link has duplex = false",
            ));
        }
        let Some(spec) = spec else { continue };
        if direction != Direction::Reverse {
            forward.push(spec.clone());
        }
        if direction != Direction::Forward {
            reverse.push(spec);
        }
    }
    Ok((combine(forward), combine(reverse)))
}

fn combine(models: Vec<LossSetting>) -> Option<ErrorSpec> {
    (!models.is_empty()).then_some(ErrorSpec { models })
}

/// One model table. The spec is `None` when the model can lose nothing (a rate of 0). The model
/// and its keys are the loss-model registry's (`network::loss::MODELS`); `direction` is every
/// model's.
fn error_model(t: &Table, field: &str) -> Res<(Option<LossSetting>, Direction)> {
    let model = t.get("model").and_then(Value::as_str).and_then(|m| {
        let m = m.trim().to_ascii_lowercase();
        MODELS.iter().find(|e| e.names.contains(&m.as_str()))
    });
    // Its keys, or with no known model every key some model accepts.
    let mut keys = vec!["model"];
    for key in model.map_or(MODELS, std::slice::from_ref).iter().flat_map(|e| e.keys) {
        if !keys.contains(key) {
            keys.push(key);
        }
    }
    keys.push("direction");
    let section = Section::new(field, t, &keys)?;
    let expected = model_names();
    let (v, f) = section.required("model", &expected)?;
    let name = fields::string(v, &f, &expected)?;
    let Some(model) = model else {
        return Err(FieldError::new(
            f,
            format!("unknown error model {name}; expected {expected}", name = echo(name)),
        ));
    };
    let spec = (model.parse)(&section)?;
    const DIRECTIONS: &str = "\"forward\", \"reverse\" or \"both\"";
    let direction = match section.get("direction") {
        None => Direction::Both,
        Some((v, f)) => {
            let d = fields::string(v, &f, DIRECTIONS)?;
            match d.trim().to_ascii_lowercase().as_str() {
                "forward" => Direction::Forward,
                "reverse" => Direction::Reverse,
                "both" => Direction::Both,
                _ => {
                    let message = format!("unknown direction {d}; expected {DIRECTIONS}", d = echo(d));
                    return Err(FieldError::new(f, message));
                }
            }
        }
    };
    Ok((spec, direction))
}

/// The models' names as messages list them: `"bernoulli", "ber", ... or "drop-list"`.
fn model_names() -> String {
    let names: Vec<String> = MODELS.iter().map(|e| format!("{:?}", e.names[0])).collect();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod drop_list_tests;
#[cfg(test)]
mod tests;
