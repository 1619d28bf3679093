//! The files of a run, as `westwood run --out DIR` writes them (python/westwood/output.py):
//! summary.json, flows.csv, links.csv, flow_series.csv, link_series.csv. Column order: the
//! simulator's declared columns (`westwood_simulator::results::columns`) first, then any others
//! in record order;
//! cells written by the simulator's own cell writers (`westwood_simulator::series`: floats as
//! Python's csv module writes them, `1.0`, `nan`; text quoted only where it must be), lines
//! ending in `\n` as every file of a run directory does.

use std::path::Path;

use serde_json::Value;
use westwood_simulator::results::{FlowSeries, LinkSeries};

use crate::error::{Error, Result};

/// The tables' columns, as the simulator declares them (one schema for both).
pub use westwood_simulator::results::columns::{
    FLOW_COLUMNS, FLOW_SERIES_COLUMNS, LINK_COLUMNS, LINK_SERIES_COLUMNS,
};
pub use westwood_simulator::series::float_text;
use westwood_simulator::series::{push_float, push_text};

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

/// Records (JSON objects) as columns: the documented names first, then any other key.
pub fn records_columns(records: &[Value], documented: &[&str]) -> Columns {
    let mut names: Vec<String> = documented.iter().map(|s| s.to_string()).collect();
    for r in records {
        if let Value::Object(m) = r {
            for k in m.keys() {
                if !names.contains(k) {
                    names.push(k.clone());
                }
            }
        }
    }
    Columns(
        names
            .into_iter()
            .map(|n| {
                let cells = records.iter().map(|r| r.get(&n).map_or(Cell::Empty, Cell::of)).collect();
                (n, cells)
            })
            .collect(),
    )
}

pub fn flow_series_columns(s: &FlowSeries) -> Columns {
    let mut c = Columns::with_names(FLOW_SERIES_COLUMNS);
    for i in 0..s.time_seconds.len() {
        c.push_row(vec![
            ("time_seconds", s.time_seconds[i].into()),
            ("flow", s.flow[i].as_str().into()),
            ("cwnd_bytes", s.cwnd_bytes[i].into()),
            ("ssthresh_bytes", s.ssthresh_bytes[i].into()),
            ("srtt_seconds", s.srtt_seconds[i].into()),
            ("bwe_bps", s.bwe_bps[i].into()),
            ("bytes_delivered", s.bytes_delivered[i].into()),
            ("snd_max", s.snd_max[i].into()),
            ("snd_una", s.snd_una[i].into()),
        ]);
    }
    c
}

pub fn link_series_columns(s: &LinkSeries) -> Columns {
    let mut c = Columns::with_names(LINK_SERIES_COLUMNS);
    for i in 0..s.time_seconds.len() {
        c.push_row(vec![
            ("time_seconds", s.time_seconds[i].into()),
            ("link", s.link[i].as_str().into()),
            ("queue_packets", s.queue_packets[i].into()),
            ("queue_bytes", s.queue_bytes[i].into()),
            ("queue_avg_packets", s.queue_avg_packets[i].into()),
            ("drops_overflow", s.drops_overflow[i].into()),
            ("drops_red", s.drops_red[i].into()),
            ("drops_error", s.drops_error[i].into()),
            ("drops_outage", s.drops_outage[i].into()),
        ]);
    }
    c
}

/// The files `westwood run --out` writes, into `dir` (created). Each file is written to a
/// temporary name and renamed, so a reader never sees half a file.
pub fn write_run(dir: &Path, summary: &Value, flow_series: &Columns, link_series: &Columns) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::failed(format!("creating {}", dir.display()), e))?;
    let empty = Vec::new();
    let flows = summary.get("flows").and_then(Value::as_array).unwrap_or(&empty);
    let links = summary.get("links").and_then(Value::as_array).unwrap_or(&empty);
    let files = [
        ("summary.json", serde_json::to_string_pretty(summary).unwrap_or_default() + "\n"),
        ("flows.csv", records_columns(flows, FLOW_COLUMNS).csv()),
        ("links.csv", records_columns(links, LINK_COLUMNS).csv()),
        ("flow_series.csv", flow_series.csv()),
        ("link_series.csv", link_series.csv()),
    ];
    for (name, text) in files {
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, text).map_err(|e| Error::failed(format!("writing {}", tmp.display()), e))?;
        std::fs::rename(&tmp, dir.join(name)).map_err(|e| Error::failed(format!("writing {name}"), e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_like_pythons() {
        let mut c = Columns::with_names(&["a", "b", "c"]);
        c.push_row(vec![("a", 1u64.into()), ("b", 2.0.into()), ("c", "x,y".into())]);
        c.push_row(vec![("a", 3u64.into()), ("b", f64::NAN.into())]);
        assert_eq!(c.csv(), "a,b,c\n1,2.0,\"x,y\"\n3,nan,\n");
        assert_eq!(float_text(0.25), "0.25");
    }

    #[test]
    fn records_put_documented_columns_first() {
        let recs = vec![serde_json::json!({"z": 1, "name": "f", "cc": "reno"})];
        let c = records_columns(&recs, &["name", "cc"]);
        let names: Vec<&str> = c.0.iter().map(|x| x.0.as_str()).collect();
        assert_eq!(names, ["name", "cc", "z"]);
    }
}
