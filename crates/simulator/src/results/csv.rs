//! The tables of a run's files (`flows.csv`, `links.csv`, and the emulator's series), as
//! `westwood run --out DIR`, `westwood testbed --out DIR` and the Python front end write them:
//! the declared columns first, then any other key in record order; cells through the one cell
//! writer ([`crate::series::push_float`], [`crate::series::push_text`]); lines ending in `\n`.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::Deserialize as DeriveDeserialize;
use serde_json::Value;

use crate::series::{push_float, push_text};

/// One CSV cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Int(i128),
    Float(f64),
    Text(String),
    Empty,
}

impl From<u64> for Cell {
    fn from(v: u64) -> Self {
        Cell::Int(v.into())
    }
}
impl From<f64> for Cell {
    fn from(v: f64) -> Self {
        Cell::Float(v)
    }
}
impl From<&str> for Cell {
    fn from(v: &str) -> Self {
        Cell::Text(v.to_string())
    }
}
impl From<String> for Cell {
    fn from(v: String) -> Self {
        Cell::Text(v)
    }
}

impl Cell {
    fn push_to(&self, out: &mut String) {
        match self {
            Cell::Int(i) => out.push_str(&i.to_string()),
            Cell::Float(f) => push_float(out, *f),
            Cell::Text(s) => push_text(out, s),
            Cell::Empty => {}
        }
    }

    fn of(v: &Value) -> Cell {
        match v {
            Value::Null => Cell::Empty,
            Value::Bool(b) => Cell::Text(if *b { "True" } else { "False" }.into()),
            Value::Number(n) => {
                if let Some(i) = n.as_i64() {
                    Cell::Int(i.into())
                } else if let Some(u) = n.as_u64() {
                    Cell::Int(u.into())
                } else {
                    Cell::Float(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Value::String(s) => Cell::Text(s.clone()),
            other => Cell::Text(other.to_string()),
        }
    }
}

/// Named columns of equal length.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Columns(pub Vec<(String, Vec<Cell>)>);

impl Columns {
    pub fn with_names(names: &[&str]) -> Columns {
        Columns(names.iter().map(|n| (n.to_string(), Vec::new())).collect())
    }

    /// Append a row given as (column, value) pairs; columns not named get an empty cell.
    pub fn push_row(&mut self, row: Vec<(&str, Cell)>) {
        for (name, column) in self.0.iter_mut() {
            let cell = row.iter().find(|(n, _)| n == name).map(|(_, c)| c.clone()).unwrap_or(Cell::Empty);
            column.push(cell);
        }
    }

    pub fn rows(&self) -> usize {
        self.0.first().map_or(0, |c| c.1.len())
    }

    pub fn column(&self, name: &str) -> Option<&[Cell]> {
        self.0.iter().find(|c| c.0 == name).map(|c| c.1.as_slice())
    }

    pub fn csv(&self) -> String {
        let mut s = String::new();
        for (i, (name, _)) in self.0.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            push_text(&mut s, name);
        }
        s.push('\n');
        for r in 0..self.rows() {
            for (i, (_, cells)) in self.0.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                cells[r].push_to(&mut s);
            }
            s.push('\n');
        }
        s
    }
}

/// Records (JSON objects, each a list of its fields in their order) as columns: the documented
/// names first, then any other key in the order the records hold them.
pub fn records_columns(records: &[Vec<(String, Value)>], documented: &[&str]) -> Columns {
    let mut names: Vec<String> = documented.iter().map(|s| s.to_string()).collect();
    for record in records {
        for (key, _) in record {
            if !names.contains(key) {
                names.push(key.clone());
            }
        }
    }
    Columns(
        names
            .into_iter()
            .map(|n| {
                let cells = records
                    .iter()
                    .map(|r| r.iter().find(|(k, _)| *k == n).map_or(Cell::Empty, |(_, v)| Cell::of(v)))
                    .collect();
                (n, cells)
            })
            .collect(),
    )
}

/// A JSON object's fields in the order the text holds them (`serde_json::Value` sorts them).
struct Ordered(Vec<(String, Value)>);

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> Visitor<'de> for Fields {
            type Value = Ordered;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a record (a JSON object)")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
                let mut fields = Vec::new();
                while let Some(field) = map.next_entry::<String, Value>()? {
                    fields.push(field);
                }
                Ok(Ordered(fields))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// The two tables of a summary, their records' fields in text order.
#[derive(DeriveDeserialize)]
struct Tables {
    #[serde(default)]
    flows: Vec<Ordered>,
    #[serde(default)]
    links: Vec<Ordered>,
}

/// `flows.csv` and `links.csv` of a run summary given as JSON text: the declared columns, then
/// the records' other fields in the text's order (the summary's own field order, as the Python
/// front end's dicts keep it).
pub fn summary_tables(summary_json: &str) -> serde_json::Result<(String, String)> {
    let tables: Tables = serde_json::from_str(summary_json)?;
    let rows = |records: Vec<Ordered>| records.into_iter().map(|r| r.0).collect::<Vec<_>>();
    Ok((
        records_columns(&rows(tables.flows), super::columns::FLOW_COLUMNS).csv(),
        records_columns(&rows(tables.links), super::columns::LINK_COLUMNS).csv(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_and_lines_as_pythons_csv_module_writes_them() {
        let mut c = Columns::with_names(&["a", "b", "c"]);
        c.push_row(vec![("a", 1u64.into()), ("b", 2.0.into()), ("c", "x,y".into())]);
        c.push_row(vec![("a", 3u64.into()), ("b", f64::NAN.into())]);
        assert_eq!(c.csv(), "a,b,c\n1,2.0,\"x,y\"\n3,nan,\n");
        // Other fields in the text's order (serde_json's Value would sort them).
        let text = r#"{"flows": [{"name": "f", "zeta": true, "goodput_bps": 1.5e-5, "alpha": null}]}"#;
        let (flows, links) = summary_tables(text).unwrap();
        assert_eq!(flows.lines().next(), Some("name,cc,recovery,src,dst,goodput_bps,throughput_bps,bytes_delivered,segments_sent,retransmits,timeouts,fast_retransmits,active_seconds,min_rtt_seconds,longest_stall_seconds,final_stall_seconds,zeta,alpha"));
        assert!(flows.ends_with(",True,\n") && flows.contains("f,,,,,1.5e-05,"), "{flows}");
        assert_eq!(links.lines().count(), 1, "no links: the header alone");
    }
}
