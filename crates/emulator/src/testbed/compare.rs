//! The testbed beside the simulator: one row per cc and flow, the ratios to reno, the table.

use super::*;

/// One row of the comparison.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Comparison {
    pub cc: String,
    pub simulator_cc: Option<String>,
    /// The simulator run's window growth (see [`simulator_scenario`]).
    pub simulator_window_growth: Option<String>,
    /// Whether the simulator run used limited transmit for this flow (see [`simulator_scenario`]).
    pub simulator_limited_transmit: Option<bool>,
    pub flow: String,
    pub testbed_goodput_bps: f64,
    pub simulator_goodput_bps: Option<f64>,
    pub testbed_retransmits: u64,
    pub simulator_retransmits: Option<u64>,
    pub testbed_timeouts: u64,
    pub simulator_timeouts: Option<u64>,
    pub integrity_ok: bool,
    /// The emulator kept to the path's schedule ([`LATENESS_P99_LIMIT_NS`]).
    pub emulator_on_time: bool,
}

/// Goodput ratio of each cc to reno (summed over flows), testbed and simulator.
pub(crate) fn ratios(rows: &[Comparison]) -> Vec<Value> {
    let total = |cc: &str, sim: bool| -> Option<f64> {
        let r: Vec<&Comparison> = rows.iter().filter(|r| r.cc == cc).collect();
        if r.is_empty() {
            return None;
        }
        if sim {
            r.iter().map(|r| r.simulator_goodput_bps).sum()
        } else {
            Some(r.iter().map(|r| r.testbed_goodput_bps).sum())
        }
    };
    let mut out = Vec::new();
    let Some(reno_tb) = total("reno", false) else { return out };
    let reno_sim = total("reno", true);
    let mut seen = Vec::new();
    for r in rows {
        if r.cc == "reno" || seen.contains(&r.cc) {
            continue;
        }
        seen.push(r.cc.clone());
        let tb = total(&r.cc, false).map(|g| g / reno_tb);
        let sim = match (total(&r.cc, true), reno_sim) {
            (Some(a), Some(b)) if b > 0.0 => Some(a / b),
            _ => None,
        };
        out.push(json!({
            "cc": r.cc, "baseline": "reno",
            "testbed_ratio": tb, "simulator_ratio": sim,
            "agreement": match (tb, sim) { (Some(a), Some(b)) if b > 0.0 => Some(a / b), _ => None },
        }));
    }
    out
}

pub fn format_comparison(rows: &[Comparison], ratios: &[Value]) -> String {
    let mbps = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{:.3}", v / 1e6));
    let num = |v: Option<u64>| v.map_or("n/a".to_string(), |v| v.to_string());
    let header = [
        "cc",
        "flow",
        "testbed Mb/s",
        "simulator Mb/s",
        "tb retx",
        "sim retx",
        "tb RTOs",
        "sim RTOs",
        "bytes ok",
    ];
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                format!("{}{}", r.cc, r.simulator_cc.as_ref().map_or(String::new(), |s| format!(" ({s})"))),
                r.flow.clone(),
                mbps(Some(r.testbed_goodput_bps)),
                mbps(r.simulator_goodput_bps),
                r.testbed_retransmits.to_string(),
                num(r.simulator_retransmits),
                r.testbed_timeouts.to_string(),
                num(r.simulator_timeouts),
                if r.integrity_ok { "yes" } else { "NO" }.to_string(),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &body {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.len());
        }
    }
    let line =
        |cells: Vec<String>| {
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i < 2 {
                        format!("{c:<w$}", w = widths[i])
                    } else {
                        format!("{c:>w$}", w = widths[i])
                    }
                })
                .collect::<Vec<_>>()
                .join("  ")
                .trim_end()
                .to_string()
                + "\n"
        };
    let mut s = line(header.iter().map(|h| h.to_string()).collect());
    for row in body {
        s += &line(row);
    }
    for r in ratios {
        let f = |v: &Value| v.as_f64().map_or("n/a".to_string(), |x| format!("{x:.3}"));
        s += &format!(
            "goodput {}/reno: testbed {}, simulator {}, testbed/simulator {}\n",
            r["cc"].as_str().unwrap_or("?"),
            f(&r["testbed_ratio"]),
            f(&r["simulator_ratio"]),
            f(&r["agreement"])
        );
    }
    s
}
