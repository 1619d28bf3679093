//! `--set KEY=VALUE` overrides, applied to the parsed document before parameter substitution.
//!
//! * `KEY` without a dot, or `parameters.KEY`, sets a declared parameter.
//! * A dotted `KEY` (`links.wired.delay`, `tcp.segment_size`) sets that field; its parent table
//!   must exist. Keys follow TOML's dotted-key syntax, so a name with a dot is quoted:
//!   `flows."ftp.1".start`.
//! * `VALUE` is a TOML integer, float or boolean when it parses as one (`20`, `0.01`, `true`), a
//!   TOML array or inline table when it parses as one (`{ model = "ber", rate = "1e-6" }`), the
//!   content of a quoted TOML string (`"10 Mbps"`), and otherwise the text as a string.

use toml::{Table, Value};

use super::fields::describe;
use super::params::declared_list;
use super::{echo, echo_list, shorten, FieldError, Res};

/// Applies `overrides` in order (a later one wins).
pub(crate) fn apply(doc: &mut Table, overrides: &[(String, String)]) -> Res<()> {
    for (key, value) in overrides {
        apply_one(doc, key, value)?;
    }
    Ok(())
}

/// The override's value as a TOML value.
pub(crate) fn parse_value(text: &str) -> Value {
    match format!("v = {text}").parse::<Table>() {
        Ok(mut t) if t.len() == 1 => match t.remove("v") {
            Some(Value::Datetime(_)) | None => Value::String(text.to_string()),
            Some(v) => v,
        },
        _ => Value::String(text.to_string()),
    }
}

/// The segments of a (possibly dotted, possibly quoted) TOML key.
fn key_segments(key: &str) -> Option<Vec<String>> {
    let mut table = format!("{key} = 0").parse::<Table>().ok()?;
    let mut segments = Vec::new();
    loop {
        if table.len() != 1 {
            return None;
        }
        let (name, value) = table.into_iter().next()?;
        segments.push(name);
        match value {
            Value::Table(inner) => table = inner,
            _ => return Some(segments),
        }
    }
}

fn apply_one(doc: &mut Table, key: &str, text: &str) -> Res<()> {
    let field = format!("--set {key}");
    let segments = key_segments(key).ok_or_else(|| {
        FieldError::new(
            &field,
            format!(
                "{key} is not a valid key; expected a parameter name like \"loss\" or a dotted \
                 field path like \"links.wired.delay\"",
                key = echo(key)
            ),
        )
    })?;
    let value = parse_value(text);
    let param = match segments.as_slice() {
        [name] => Some(name),
        [first, name] if first == "parameters" => Some(name),
        _ => None,
    };
    if let Some(name) = param {
        let declared = match doc.get_mut("parameters") {
            Some(Value::Table(t)) => t,
            _ => {
                return Err(FieldError::new(
                    &field,
                    format!(
                        "unknown parameter {name}; {}",
                        declared_list(std::iter::empty::<&str>()),
                        name = echo(name)
                    ),
                ))
            }
        };
        return match declared.get_mut(name.as_str()) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(FieldError::new(
                &field,
                format!("unknown parameter {name}; {}", declared_list(declared.keys()), name = echo(name)),
            )),
        };
    }
    let (leaf, parents) = segments.split_last().expect("at least two segments");
    let mut table = doc;
    for (depth, segment) in parents.iter().enumerate() {
        // Shortened once here: every message below repeats it.
        let path = shorten(&parents[..=depth].join(".")).into_owned();
        let available: Vec<String> = table.keys().cloned().collect();
        table = match table.get_mut(segment.as_str()) {
            Some(Value::Table(t)) => t,
            Some(other) => {
                return Err(FieldError::new(
                    &field,
                    format!(
                        "cannot set {leaf} in {path}: it is {}, not a table",
                        describe(other),
                        leaf = echo(leaf)
                    ),
                ))
            }
            None => {
                let existing = if available.is_empty() {
                    "it has none".to_string()
                } else {
                    format!("existing: {}", echo_list(&available))
                };
                let at = if depth == 0 {
                    "the top level".to_string()
                } else {
                    shorten(&parents[..depth].join(".")).into_owned()
                };
                return Err(FieldError::new(
                    &field,
                    format!(
                        "there is no table {path} to set {leaf} in ({at} has no {segment}; \
                         {existing})",
                        leaf = echo(leaf),
                        segment = echo(segment)
                    ),
                ));
            }
        };
    }
    table.insert(leaf.clone(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc() -> Table {
        r#"
            [parameters]
            loss = "0%"
            flows = 10
            [links.wired]
            delay = "${d}"
            [flows."ftp.1"]
            start = "0s"
        "#
        .parse()
        .unwrap()
    }

    fn set(doc: &mut Table, k: &str, v: &str) -> Res<()> {
        apply(doc, &[(k.to_string(), v.to_string())])
    }

    #[test]
    fn values_parse_as_toml_scalars_or_strings() {
        assert_eq!(parse_value("20"), Value::Integer(20));
        assert_eq!(parse_value("0.01"), Value::Float(0.01));
        assert_eq!(parse_value("true"), Value::Boolean(true));
        assert_eq!(parse_value("1%"), Value::String("1%".into()));
        assert_eq!(parse_value("100ms"), Value::String("100ms".into()));
        assert_eq!(parse_value("reno"), Value::String("reno".into()));
        assert_eq!(parse_value("1 bit in 64KB"), Value::String("1 bit in 64KB".into()));
        assert_eq!(parse_value("\"10 Mbps\""), Value::String("10 Mbps".into()));
        assert_eq!(parse_value(""), Value::String("".into()));
        assert_eq!(parse_value("1979-05-27"), Value::String("1979-05-27".into()));
        assert!(matches!(parse_value("{ model = \"ber\" }"), Value::Table(_)));
    }

    #[test]
    fn sets_parameters_with_or_without_prefix() {
        let mut d = doc();
        set(&mut d, "loss", "1%").unwrap();
        assert_eq!(d["parameters"]["loss"].as_str(), Some("1%"));
        set(&mut d, "parameters.loss", "2%").unwrap();
        assert_eq!(d["parameters"]["loss"].as_str(), Some("2%"));
        set(&mut d, "flows", "20").unwrap();
        assert_eq!(d["parameters"]["flows"].as_integer(), Some(20));
        // Parameter order is unchanged by overrides.
        let names: Vec<&String> = d["parameters"].as_table().unwrap().keys().collect();
        assert_eq!(names, ["loss", "flows"]);
    }

    #[test]
    fn later_overrides_win() {
        let mut d = doc();
        apply(&mut d, &[("loss".into(), "1%".into()), ("loss".into(), "3%".into())]).unwrap();
        assert_eq!(d["parameters"]["loss"].as_str(), Some("3%"));
    }

    #[test]
    fn unknown_parameter_lists_declared_ones() {
        let mut d = doc();
        let e = set(&mut d, "los", "1%").unwrap_err();
        assert_eq!(e.field, "--set los");
        assert!(e.message.contains("unknown parameter \"los\""), "{}", e.message);
        assert!(e.message.contains("declared parameters: loss, flows"), "{}", e.message);
        let e = set(&mut d, "parameters.nope", "1").unwrap_err();
        assert!(e.message.contains("unknown parameter \"nope\""), "{}", e.message);
        let mut empty: Table = "[scenario]".parse().unwrap();
        let e = set(&mut empty, "loss", "1%").unwrap_err();
        assert!(e.message.contains("declares no [parameters]"), "{}", e.message);
    }

    #[test]
    fn dotted_paths_set_fields() {
        let mut d = doc();
        set(&mut d, "links.wired.delay", "100ms").unwrap();
        assert_eq!(d["links"]["wired"]["delay"].as_str(), Some("100ms"));
        // New keys in an existing table are allowed here (validation rejects unknown ones).
        set(&mut d, "links.wired.rate", "5Mbps").unwrap();
        assert_eq!(d["links"]["wired"]["rate"].as_str(), Some("5Mbps"));
        set(&mut d, "flows.\"ftp.1\".start", "2s").unwrap();
        assert_eq!(d["flows"]["ftp.1"]["start"].as_str(), Some("2s"));
    }

    #[test]
    fn dotted_path_needs_existing_parent() {
        let mut d = doc();
        let e = set(&mut d, "tcp.segment_size", "400B").unwrap_err();
        assert_eq!(e.field, "--set tcp.segment_size");
        assert!(e.message.contains("there is no table tcp"), "{}", e.message);
        let e = set(&mut d, "links.wireless.rate", "1Mbps").unwrap_err();
        assert_eq!(e.field, "--set links.wireless.rate");
        assert!(e.message.contains("there is no table links.wireless"), "{}", e.message);
        assert!(e.message.contains("existing: wired"), "{}", e.message);
        let e = set(&mut d, "links.wired.delay.x", "1").unwrap_err();
        assert!(e.message.contains("not a table"), "{}", e.message);
        let e = set(&mut d, "links..x", "1").unwrap_err();
        assert!(e.message.contains("not a valid key"), "{}", e.message);
        let e = set(&mut d, "", "1").unwrap_err();
        assert!(e.message.contains("not a valid key"), "{}", e.message);
    }
}
