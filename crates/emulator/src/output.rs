//! The files of a run, as `westwood run --out DIR` writes them (python/westwood/output.py):
//! summary.json, flows.csv, links.csv, flow_series.csv, link_series.csv. The tables and their
//! cells come from the simulator's one writer (`westwood_simulator::results::csv`): declared
//! columns first, then any others in record order; floats as Python's `repr` writes them
//! (`1.0`, `nan`, `1e-05`), text quoted only where it must be; lines ending in `\n`.

use std::path::Path;

use serde_json::Value;
use westwood_simulator::results::csv::summary_tables;
pub use westwood_simulator::results::csv::{Cell, Columns};
use westwood_simulator::results::{FlowSeries, LinkSeries};

use crate::error::{Error, Result};

/// The tables' columns, as the simulator declares them (one schema for both).
pub use westwood_simulator::results::columns::{
    FLOW_COLUMNS, FLOW_SERIES_COLUMNS, LINK_COLUMNS, LINK_SERIES_COLUMNS,
};
pub use westwood_simulator::series::float_text;

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
    let text = serde_json::to_string(summary).map_err(|e| Error::failed("writing the summary", e))?;
    let (flows, links) = summary_tables(&text).map_err(|e| Error::failed("writing the tables", e))?;
    let files = [
        ("summary.json", serde_json::to_string_pretty(summary).unwrap_or_default() + "\n"),
        ("flows.csv", flows),
        ("links.csv", links),
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
    fn float_text_is_the_simulators() {
        assert_eq!(float_text(0.25), "0.25");
    }

    #[test]
    fn records_put_documented_columns_first() {
        let summary = serde_json::json!({"flows": [{"z": 1, "name": "f", "cc": "reno"}]});
        let (flows, _) = summary_tables(&summary.to_string()).unwrap();
        assert!(flows.starts_with("name,cc,recovery,"), "{flows}");
        assert!(flows.lines().next().unwrap().ends_with(",z"), "{flows}");
    }
}
