//! `[parameters]` and `${name}` substitution.
//!
//! A string that is exactly `"${name}"` becomes the parameter's value with its TOML type (so
//! `count = "${flows}"` is an integer when `flows = 10`); a string with `${name}` among other
//! text gets the value's text interpolated. `$${` writes a literal `${`. Substitution applies
//! everywhere except inside `[parameters]` itself (parameters do not reference each other).

use toml::{Table, Value};

use super::fields::{describe, join};
use super::{echo, echo_list, FieldError, Res};

/// The declared parameters (after overrides), in declaration order.
pub(crate) fn declared(doc: &Table) -> Res<Vec<(String, Value)>> {
    let Some(v) = doc.get("parameters") else {
        return Ok(Vec::new());
    };
    let Value::Table(table) = v else {
        return Err(FieldError::new(
            "parameters",
            format!("expected a table of named parameters, found {}", describe(v)),
        ));
    };
    table
        .iter()
        .map(|(name, value)| match value {
            Value::String(_) | Value::Integer(_) | Value::Float(_) | Value::Boolean(_) => {
                Ok((name.clone(), value.clone()))
            }
            other => Err(FieldError::new(
                join("parameters", name),
                format!("a parameter must be a string, a number or a boolean, found {}", describe(other)),
            )),
        })
        .collect()
}

/// Names of the declared parameters, for error messages.
pub(crate) fn declared_list(names: impl Iterator<Item = impl AsRef<str>>) -> String {
    let names = echo_list(names);
    if names.is_empty() {
        "the scenario declares no [parameters]".to_string()
    } else {
        format!("declared parameters: {names}")
    }
}

/// The text form of a parameter value (strings unquoted).
pub(crate) fn value_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Integer(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Boolean(b) => b.to_string(),
        Value::Datetime(d) => d.to_string(),
        other => other.to_string(),
    }
}

/// Replaces every `${name}` outside `[parameters]`.
pub(crate) fn substitute(doc: &mut Table, params: &[(String, Value)]) -> Res<()> {
    for (key, value) in doc.iter_mut() {
        if key == "parameters" {
            continue;
        }
        substitute_value(value, key, params)?;
    }
    Ok(())
}

fn substitute_value(value: &mut Value, field: &str, params: &[(String, Value)]) -> Res<()> {
    match value {
        Value::String(s) => {
            if let Some(new) = substitute_str(s, field, params)? {
                *value = new;
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                substitute_value(item, &format!("{field}[{i}]"), params)?;
            }
        }
        Value::Table(table) => {
            for (key, item) in table.iter_mut() {
                substitute_value(item, &join(field, key), params)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn lookup<'a>(name: &str, text: &str, field: &str, params: &'a [(String, Value)]) -> Res<&'a Value> {
    params.iter().find(|(n, _)| n == name).map(|(_, v)| v).ok_or_else(|| {
        FieldError::new(
            field,
            format!(
                "unknown parameter {name} in {text}; {}",
                declared_list(params.iter().map(|(n, _)| n)),
                name = echo(name),
                text = echo(text)
            ),
        )
    })
}

/// The substituted value of a string, or `None` when it holds no reference.
fn substitute_str(s: &str, field: &str, params: &[(String, Value)]) -> Res<Option<Value>> {
    if !s.contains("${") {
        return Ok(None);
    }
    // Exactly "${name}": keep the parameter's type.
    if let Some(name) = s.strip_prefix("${").and_then(|r| r.strip_suffix('}')) {
        if !name.contains('}') && !name.contains("${") && !name.is_empty() {
            return lookup(name, s, field, params).map(|v| Some(v.clone()));
        }
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(pos) = rest.find("${") {
        if pos > 0 && rest.as_bytes()[pos - 1] == b'$' {
            // "$${" is an escaped literal "${".
            out.push_str(&rest[..pos - 1]);
            out.push_str("${");
            rest = &rest[pos + 2..];
            continue;
        }
        out.push_str(&rest[..pos]);
        let after = &rest[pos + 2..];
        let Some(end) = after.find('}') else {
            return Err(FieldError::new(
                field,
                format!("unterminated parameter reference in {s}; write \"${{name}}\"", s = echo(s)),
            ));
        };
        let name = &after[..end];
        if name.is_empty() {
            return Err(FieldError::new(
                field,
                format!("empty parameter reference \"${{}}\" in {s}; write \"${{name}}\"", s = echo(s)),
            ));
        }
        out.push_str(&value_text(lookup(name, s, field, params)?));
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(Some(Value::String(out)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Vec<(String, Value)> {
        vec![
            ("cc".into(), Value::String("reno".into())),
            ("flows".into(), Value::Integer(10)),
            ("p".into(), Value::Float(0.5)),
            ("on".into(), Value::Boolean(true)),
        ]
    }

    fn sub(text: &str) -> Res<Option<Value>> {
        substitute_str(text, "x.y", &params())
    }

    #[test]
    fn exact_reference_keeps_type() {
        assert_eq!(sub("${flows}"), Ok(Some(Value::Integer(10))));
        assert_eq!(sub("${p}"), Ok(Some(Value::Float(0.5))));
        assert_eq!(sub("${on}"), Ok(Some(Value::Boolean(true))));
        assert_eq!(sub("${cc}"), Ok(Some(Value::String("reno".into()))));
    }

    #[test]
    fn interpolation_makes_text() {
        assert_eq!(sub("no refs"), Ok(None));
        assert_eq!(sub("${flows}ms"), Ok(Some(Value::String("10ms".into()))));
        assert_eq!(
            sub("${cc} with ${flows} flows, p=${p} ${on}"),
            Ok(Some(Value::String("reno with 10 flows, p=0.5 true".into())))
        );
        assert_eq!(sub("${cc}${cc}"), Ok(Some(Value::String("renoreno".into()))));
        assert_eq!(sub("cost $${cc}"), Ok(Some(Value::String("cost ${cc}".into()))));
    }

    #[test]
    fn unknown_and_malformed_references() {
        let e = sub("${nope}").unwrap_err();
        assert_eq!(e.field, "x.y");
        assert!(e.message.contains("unknown parameter \"nope\""), "{}", e.message);
        assert!(e.message.contains("declared parameters: cc, flows, p, on"), "{}", e.message);
        let e = sub("a ${nope} b").unwrap_err();
        assert!(e.message.contains("unknown parameter \"nope\""), "{}", e.message);
        let e = sub("a ${cc").unwrap_err();
        assert!(e.message.contains("unterminated"), "{}", e.message);
        let e = sub("${}").unwrap_err();
        assert!(e.message.contains("empty parameter reference"), "{}", e.message);
        let e = substitute_str("${x}", "f", &[]).unwrap_err();
        assert!(e.message.contains("declares no [parameters]"), "{}", e.message);
    }

    #[test]
    fn substitutes_whole_document_but_not_parameters() {
        let mut doc: Table = r#"
            [parameters]
            cc = "reno"
            self = "${cc}"
            [flows.a]
            count = "${flows}"
            cc = "${cc}"
            list = ["${cc}", 1, { d = "${p}" }]
        "#
        .parse()
        .unwrap();
        let mut ps = params();
        ps.push(("self".into(), Value::String("${cc}".into())));
        substitute(&mut doc, &ps).unwrap();
        assert_eq!(doc["parameters"]["self"].as_str(), Some("${cc}"));
        assert_eq!(doc["flows"]["a"]["count"].as_integer(), Some(10));
        assert_eq!(doc["flows"]["a"]["cc"].as_str(), Some("reno"));
        assert_eq!(doc["flows"]["a"]["list"][0].as_str(), Some("reno"));
        assert_eq!(doc["flows"]["a"]["list"][2]["d"].as_float(), Some(0.5));

        let mut doc: Table = "[a]\nb = [1, \"${zz}\"]".parse().unwrap();
        let e = substitute(&mut doc, &ps).unwrap_err();
        assert_eq!(e.field, "a.b[1]");
    }

    #[test]
    fn declared_parameters_are_scalars_in_order() {
        let doc: Table = "[parameters]\nz = 1\na = \"x\"\nm = true".parse().unwrap();
        let names: Vec<String> = declared(&doc).unwrap().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["z", "a", "m"]);
        let doc: Table = "[parameters]\nz = [1]".parse().unwrap();
        assert_eq!(declared(&doc).unwrap_err().field, "parameters.z");
        let doc: Table = "parameters = 3".parse().unwrap();
        assert_eq!(declared(&doc).unwrap_err().field, "parameters");
    }
}
