//! The column order of the result tables, declared once: the summary's flow and link records
//! as tables (`flows.csv`, `links.csv`) and the time series (`flow_series.csv`,
//! `link_series.csv`). The simulator's series writer ([`crate::series`]), the testbed's run
//! writer (crates/emulator `output.rs`) and the Python front end (`westwood._core`, read by
//! `westwood.report.tables`) all take them from here. A record field not listed comes after
//! the listed ones, in record order.

/// The columns of `flows.csv`: [`super::FlowSummary`]'s fields, the documented ones first.
/// `start_seconds` is left to follow them (with `segment_size`, `paths`, ...): `westwood
/// analyze`'s rows begin with the flow columns they share by name (crates/pcap `COLUMNS`), and
/// its `start_seconds` is a connection's first packet on the capture's clock, not the simulated
/// time a flow's application started.
pub const FLOW_COLUMNS: &[&str] = &[
    "name",
    "cc",
    "recovery",
    "src",
    "dst",
    "goodput_bps",
    "throughput_bps",
    "bytes_delivered",
    "segments_sent",
    "retransmits",
    "timeouts",
    "fast_retransmits",
    "active_seconds",
    "min_rtt_seconds",
    "longest_stall_seconds",
    "final_stall_seconds",
];

/// The columns of `links.csv`: [`super::LinkSummary`]'s fields, the documented ones first.
pub const LINK_COLUMNS: &[&str] = &[
    "name",
    "from",
    "to",
    "rate_bps",
    "delay_seconds",
    "queue_limit",
    "packets_sent",
    "bytes_sent",
    "drops_overflow",
    "drops_error",
    "utilization",
    "queue_type",
    "drops_red",
    "drops_outage",
];

/// The columns of `flow_series.csv`, in file order ([`super::FlowSeries`]).
pub const FLOW_SERIES_COLUMNS: &[&str] = &[
    "time_seconds",
    "flow",
    "cwnd_bytes",
    "ssthresh_bytes",
    "srtt_seconds",
    "bwe_bps",
    "bytes_delivered",
    "snd_max",
    "snd_una",
];

/// The columns of `link_series.csv`, in file order ([`super::LinkSeries`]).
pub const LINK_SERIES_COLUMNS: &[&str] = &[
    "time_seconds",
    "link",
    "queue_packets",
    "queue_bytes",
    "queue_avg_packets",
    "drops_overflow",
    "drops_red",
    "drops_error",
    "drops_outage",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{FlowSummary, LinkSummary};

    /// Every field of a record is a column of its table, and every column a field.
    fn fields_of<T: serde::Serialize>(record: &T) -> Vec<String> {
        match serde_json::to_value(record).unwrap() {
            serde_json::Value::Object(m) => m.keys().cloned().collect(),
            other => panic!("not a record: {other}"),
        }
    }

    #[test]
    fn the_documented_columns_are_the_records_fields() {
        let flow = fields_of(&FlowSummary::default());
        for c in FLOW_COLUMNS {
            assert!(flow.iter().any(|f| f == c), "flows.csv column {c} is no FlowSummary field");
        }
        let link = LinkSummary {
            name: String::new(),
            from: String::new(),
            to: String::new(),
            rate_bps: 0,
            delay_seconds: 0.0,
            queue_type: String::new(),
            queue_limit: String::new(),
            packets_sent: 0,
            bytes_sent: 0,
            drops_overflow: 0,
            drops_red: 0,
            drops_error: 0,
            drops_outage: 0,
            utilization: 0.0,
        };
        let link = fields_of(&link);
        assert_eq!(link.len(), LINK_COLUMNS.len(), "{link:?}");
        for c in LINK_COLUMNS {
            assert!(link.iter().any(|f| f == c), "links.csv column {c} is no LinkSummary field");
        }
    }
}
