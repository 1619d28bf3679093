//! A finished run's counters, samples and byte counts, in the simulator's result schema.

use super::*;

#[allow(clippy::too_many_arguments)]
pub(crate) fn assemble(
    plan: &Plan,
    label: &str,
    report: &Report,
    results: &[Iperf3Result],
    samples: &[Vec<Sample>],
    counters: &[HashMap<String, u64>],
    slack: &[u64],
    run_seconds: f64,
    wall_seconds: f64,
) -> TestbedRun {
    let scenario = &plan.scenario;
    let mut flows = Vec::new();
    let mut integrity = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        let r = &results[i];
        let last = samples[i].last().map(|s| s.info.clone()).unwrap_or_default();
        let c = &counters[i];
        let get = |k: &str| c.get(k).copied().unwrap_or(0);
        let active = if r.seconds > 0.0 { r.seconds } else { (f.stop - f.start) as f64 / 1e9 };
        let data = &report.routes[2 * i];
        flows.push(FlowSummary {
            name: f.name.clone(),
            cc: f.kernel_cc.clone(),
            recovery: if f.sack { "sack" } else { "newreno" }.to_string(),
            segment_size: if last.snd_mss > 0 { u64::from(last.snd_mss) } else { f.segment_size },
            header_size: f.header_size,
            src: f.src_node.clone(),
            dst: f.dst_node.clone(),
            goodput_bps: r.received_bytes as f64 * 8.0 / active,
            throughput_bps: data.delivered_bytes as f64 * 8.0 / active,
            bytes_delivered: r.received_bytes,
            segments_sent: u64::from(last.data_segs_out),
            retransmits: u64::from(last.total_retrans).max(r.retransmits),
            timeouts: if last.has_total_rto { u64::from(last.total_rto) } else { get("TcpExtTCPTimeouts") },
            fast_retransmits: get("TcpExtTCPRenoRecovery") + get("TcpExtTCPSackRecovery"),
            active_seconds: active,
            min_rtt_seconds: f64::from(last.min_rtt_us) / 1e6,
            paths: 1,
            start_seconds: f.start as f64 / 1e9,
            // Not measured on real TCP (TCP_INFO samples every 100 ms do not time snd_una's
            // advances): null in the summary.
            longest_stall_seconds: f64::NAN,
            final_stall_seconds: f64::NAN,
        });
        let ok = r.received_bytes > 0
            && r.sent_bytes >= r.received_bytes
            && r.sent_bytes - r.received_bytes <= slack[i]
            && (last.bytes_acked == 0 || r.received_bytes <= last.bytes_acked + slack[i]);
        integrity.push(Integrity {
            flow: f.name.clone(),
            sent_bytes: r.sent_bytes,
            received_bytes: r.received_bytes,
            acked_bytes: last.bytes_acked,
            slack_bytes: slack[i],
            ok,
        });
    }
    let duration_s = scenario.duration as f64 / 1e9;
    let links = westwood_simulator::sim::link_summaries(scenario, &report.links, run_seconds);
    let summary = Summary {
        scenario: scenario.name.clone(),
        seed: scenario.seed,
        parameters: scenario.parameters.iter().cloned().collect(),
        sim_seconds: duration_s,
        wall_seconds,
        events: report.events,
        packets: report.links.iter().map(|l| l.stats.packets_sent).sum(),
        fairness: westwood_simulator::metrics::fairness_of(&flows),
        per_cc: westwood_simulator::metrics::per_cc(&flows),
        flows,
        arrivals: Vec::new(),
        sources: Vec::new(),
        links,
        warnings: Vec::new(),
    };
    let mut value = serde_json::to_value(&summary).unwrap_or(Value::Null);
    let lateness = &report.lateness;
    value["testbed"] = json!({
        "label": label,
        "kernel": westwood_linux::prereq::Kernel::running().release,
        "run_seconds": run_seconds,
        "sample_interval_seconds": 0.1,
        "flows": plan.flows.iter().map(|f| json!({
            "name": f.name, "kernel_cc": f.kernel_cc, "scenario_cc": f.scenario_cc,
            "scenario_recovery": f.recovery, "scenario_window_growth": f.window_growth.name(),
            "scenario_limited_transmit": f.limited_transmit,
            "sack": f.sack, "timestamps": f.timestamps, "mtu": f.mtu,
            "start_seconds": f.start as f64 / 1e9, "stop_seconds": f.stop as f64 / 1e9,
        })).collect::<Vec<_>>(),
        "integrity": integrity,
        "emulator": {
            "counters": report.counters,
            "routes": report.routes,
            "cpu_seconds": report.cpu_seconds,
            "cpu_fraction": report.cpu_seconds / report.wall_seconds.max(1e-9),
            "lateness_seconds": {
                "p50": lateness.quantile_ns(0.5) as f64 / 1e9,
                "p99": lateness.quantile_ns(0.99) as f64 / 1e9,
                "max": lateness.max_ns() as f64 / 1e9,
                "count": lateness.count(),
            },
            "lateness_limit_seconds": LATENESS_P99_LIMIT_NS as f64 / 1e9,
            "on_time": lateness.quantile_ns(0.99) <= LATENESS_P99_LIMIT_NS,
            "stalls": report.stalls.to_json(),
        },
        "load_average": load_average(),
        "approximations": plan.approximations,
    });

    let mut fs = Columns::with_names(output::FLOW_SERIES_COLUMNS);
    for extra in ["delivery_rate_bps", "retransmits", "timeouts", "ca_state", "rttvar_seconds"] {
        fs.0.push((extra.to_string(), Vec::new()));
    }
    for (i, f) in plan.flows.iter().enumerate() {
        for s in &samples[i] {
            let info = &s.info;
            let mss = u64::from(info.snd_mss.max(1));
            let ssthresh = if info.snd_ssthresh >= INFINITE_SSTHRESH {
                u64::MAX / 4 // the simulator's "unlimited"
            } else {
                u64::from(info.snd_ssthresh) * mss
            };
            fs.push_row(vec![
                ("time_seconds", s.time.into()),
                ("flow", f.name.as_str().into()),
                ("cwnd_bytes", (u64::from(info.snd_cwnd) * mss).into()),
                ("ssthresh_bytes", ssthresh.into()),
                ("srtt_seconds", (f64::from(info.rtt_us) / 1e6).into()),
                ("bwe_bps", s.bwe_bps.into()),
                ("bytes_delivered", info.bytes_acked.into()),
                ("snd_max", (info.bytes_acked + u64::from(info.unacked) * mss).into()),
                ("snd_una", info.bytes_acked.into()),
                ("delivery_rate_bps", (info.delivery_rate as f64 * 8.0).into()),
                ("retransmits", u64::from(info.total_retrans).into()),
                ("timeouts", u64::from(info.total_rto).into()),
                ("ca_state", u64::from(info.ca_state).into()),
                ("rttvar_seconds", (f64::from(info.rttvar_us) / 1e6).into()),
            ]);
        }
    }
    let mut ls = Columns::with_names(output::LINK_SERIES_COLUMNS);
    for s in &report.samples {
        ls.push_row(vec![
            ("time_seconds", (s.time as f64 / 1e9).into()),
            ("link", scenario.links[s.link as usize].name.as_str().into()),
            ("queue_packets", s.queue_packets.into()),
            ("queue_bytes", s.queue_bytes.into()),
            ("queue_avg_packets", Cell::Float(s.queue_avg_packets)),
            ("drops_overflow", s.drops_overflow.into()),
            ("drops_red", s.drops_red.into()),
            ("drops_error", s.drops_error.into()),
            ("drops_outage", s.drops_outage.into()),
        ]);
    }
    TestbedRun { summary: value, flow_series: fs, link_series: ls, integrity }
}
