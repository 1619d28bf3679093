//! `westwood-emu testbed`: a scenario's TCP flows as real kernel TCP (iperf3) through the link
//! emulator, sampled like a simulator run, with the simulator's result beside it.
//!
//! One run ([`run_once`]):
//! 1. remove namespaces left by killed runs; make sure each congestion control is available
//!    (the tcpw* programs: `kernel_cc.rs`, registered for the run and unregistered after it;
//!    others: the kernel's, `modprobe tcp_NAME` if need be);
//! 2. build the namespaces (`netns.rs`) and start the emulator in the router namespace with
//!    the scenario's links as the simulator builds them (`plan.rs` says how flows map);
//! 3. start an iperf3 server per receiver, then each flow's iperf3 client at the flow's start
//!    time with `-C CC`, the data connection on a fixed client port;
//! 4. every sample interval (100 ms): TCP_INFO of each data connection (netlink INET_DIAG in
//!    the sender's namespace) and, for the tcpw* programs, the BWE from the BPF program's
//!    socket storage (what `westwood-linux watch` reads);
//! 5. when every client has finished: iperf3's byte counts (checked against each other), the
//!    emulator's counters, the namespaces' TCP counters → the simulator's result schema.
//!
//! The simulator then runs the same scenario ([`simulator_scenario`]) under its `linux` TCP
//! profile, as the kernel behaves, except for the keys the user's `--set` chose (each decided
//! separately) and those the kernel is configured with from the scenario.
//!
//! Everything it creates is removed by RAII guards, also on an error or Ctrl-C.
//!
//! Files by job: this one holds the options, the scenario's loading and the command's flow
//! (`main`, `dry_run`); `kernel.rs` what the machine and each cc need; `run.rs` one run
//! (namespaces, emulator, iperf3, sampling, the kernel's per-ACK trace, captures);
//! `assemble.rs` a finished run in the simulator's result schema; `simulator.rs` the simulator's
//! run beside it; `compare.rs` the two side by side.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use westwood_linux::netns::{parse_iperf3_json, tool, ChildGuard, Iperf3Result};
use westwood_linux::sig;
use westwood_simulator::model::{Nanos, Scenario, TcpSpec, NANOS_PER_SECOND};
use westwood_simulator::profile::Profile;
use westwood_simulator::results::{FlowSummary, RunOptions, Summary};

use crate::diag::{DiagSocket, TcpInfo, INFINITE_SSTHRESH};
use crate::engine::{Emulator, Route};
use crate::error::{scenario_error, Error, Result};
use crate::netns::{self, ip_text, EndpointSpec, Topology};
use crate::output::{self, Cell, Columns};
use crate::plan::{self, FlowPlan, Plan};
use crate::process;
use crate::realtime::{self, Report};
use crate::segments::{Connection, Tagger, IPERF3_COOKIE};
use crate::sys;

/// iperf3's server port (one server per receiver namespace) and the data connection's client
/// port (`--cport`), which tells the data connection from iperf3's control connection.
pub const SERVER_PORT: u16 = 5201;
pub const DATA_PORT: u16 = 40000;

#[derive(Debug, Clone)]
pub struct Options {
    pub scenario: PathBuf,
    pub overrides: Vec<(String, String)>,
    /// Kernel congestion controls, one run each (empty: each flow's own cc, mapped).
    pub ccs: Vec<String>,
    pub duration: Option<Nanos>,
    pub seed: Option<u64>,
    pub out: Option<PathBuf>,
    /// Also run the simulator on the same scenario and print it beside the testbed.
    pub simulate: bool,
    pub sample_interval: Nanos,
    pub json: bool,
    /// SCHED_FIFO priority of the emulator thread (`None`: normal scheduling).
    pub fifo: Option<i32>,
    /// Write the per-ACK trace of every tcpw* flow (the kernel's) and of the simulator's run
    /// (`acks.csv` in the run directory and in simulator/); needs `out`.
    pub ack_trace: bool,
    /// Capture every flow's packets at its sender and receiver (`pcap/FLOW.sender.pcapng`,
    /// `FLOW.receiver.pcapng`, and the simulator's in `simulator/pcap/`), keeping this many
    /// bytes of each; needs `out`.
    pub pcap: Option<u32>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scenario: PathBuf::new(),
            overrides: Vec::new(),
            ccs: Vec::new(),
            duration: None,
            seed: None,
            out: None,
            simulate: true,
            sample_interval: 100_000_000,
            json: false,
            fifo: Some(realtime::DEFAULT_FIFO_PRIORITY),
            ack_trace: false,
            pcap: None,
        }
    }
}

/// What one testbed run produced.
pub struct TestbedRun {
    pub summary: Value,
    pub flow_series: Columns,
    pub link_series: Columns,
    /// Per flow: iperf3's sent and received bytes agree within the socket buffers.
    pub integrity: Vec<Integrity>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Integrity {
    pub flow: String,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    /// Bytes acknowledged to the sender (TCP_INFO), at the last sample.
    pub acked_bytes: u64,
    /// Most the two counts may differ by: what the sender's and receiver's socket buffers hold.
    pub slack_bytes: u64,
    pub ok: bool,
}

/// Load the scenario for kernel cc `cc` (or as it is): the model the testbed maps and the
/// simulator runs. The simulator's cc for `cc` goes in through `tcp.cc` (so variant
/// parameters and an explicit `recovery` in the file still apply); flows that set their own cc
/// are then switched to it with that cc's defaults.
pub fn load_scenario(opts: &Options, cc: Option<&str>) -> Result<(Scenario, Option<String>)> {
    let mut overrides = opts.overrides.clone();
    let sim_cc = match cc {
        None => None,
        // bbr has no simulator counterpart: map the scenario as if it were cubic (SACK).
        Some(k) => Some(plan::simulator_cc(k).unwrap_or("cubic")),
    };
    if let Some(s) = sim_cc {
        overrides.push(("tcp.cc".into(), s.into()));
    }
    let overrides = westwood_simulator::scenario::with_seed(&overrides, opts.seed);
    let mut scenario =
        westwood_simulator::scenario::load_file(&opts.scenario, &overrides).map_err(scenario_error)?;
    if let Some(s) = sim_cc {
        if scenario.flows.iter().any(|f| f.tcp.cc_name != s) {
            let mini = format!(
                "[scenario]\nduration = \"1s\"\n[topology]\nnodes = [\"a\", \"b\"]\n[links.l]\nfrom = \"a\"\nto = \"b\"\n\
                 rate = \"1Mbps\"\ndelay = \"1ms\"\n[tcp]\ncc = \"{s}\"\n[flows.f]\nfrom = \"a\"\nto = \"b\"\n"
            );
            let reference =
                westwood_simulator::scenario::load_str(&mini, "cc", &[]).map_err(scenario_error)?.flows[0]
                    .tcp
                    .clone();
            for f in &mut scenario.flows {
                f.tcp.cc = reference.cc.clone();
                f.tcp.cc_name = reference.cc_name.clone();
                f.tcp.recovery = reference.recovery;
            }
        }
    }
    if let Some(d) = opts.duration {
        scenario.duration = d;
    }
    let sim_name = match cc {
        Some(k) => plan::simulator_cc(k).map(str::to_string),
        None => Some(String::new()),
    };
    Ok((scenario, sim_name))
}

mod assemble;
mod compare;
mod kernel;
mod run;
mod simulator;

use assemble::*;
pub use compare::*;
pub use kernel::*;
pub use run::*;
pub use simulator::*;

/// `westwood-emu testbed --dry-run`: how the scenario maps (or why it cannot), nothing run.
pub fn dry_run(opts: &Options) -> Result<i32> {
    let ccs: Vec<Option<String>> =
        if opts.ccs.is_empty() { vec![None] } else { opts.ccs.iter().cloned().map(Some).collect() };
    for cc in &ccs {
        let (scenario, sim_cc) = load_scenario(opts, cc.as_deref())?;
        let plan = plan::plan(&scenario, cc.as_deref())?;
        let (_, setup) = simulator_scenario(&scenario, &opts.overrides);
        let link = |i: &u32| scenario.links[*i as usize].name.clone();
        println!(
            "{} ({}): {} s, seed {}, simulator cc {}",
            scenario.name,
            cc.as_deref().unwrap_or("the scenario's cc"),
            scenario.duration as f64 / 1e9,
            scenario.seed,
            match &sim_cc {
                Some(s) if s.is_empty() => "as in the scenario",
                Some(s) => s.as_str(),
                None => "none (no comparison)",
            }
        );
        for f in &plan.flows {
            println!(
                "  flow {}: {} -> {}, kernel {} ({}), MTU {} (timestamps {}), {}..{} s
    data: {}
    acks: {}
                     sender: {} | route {}
    receiver route: {}",
                f.name,
                f.src_node,
                f.dst_node,
                f.kernel_cc,
                if f.sack { "SACK" } else { "no SACK" },
                f.mtu,
                if f.timestamps { "on" } else { "off" },
                f.start as f64 / 1e9,
                f.stop as f64 / 1e9,
                f.data_path.iter().map(link).collect::<Vec<_>>().join(" -> "),
                f.ack_path.iter().map(link).collect::<Vec<_>>().join(" -> "),
                f.sender_sysctls.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(" "),
                f.sender_route.join(" "),
                if f.receiver_route.is_empty() { "-".to_string() } else { f.receiver_route.join(" ") },
            );
        }
        if sim_cc.is_some() {
            println!("  simulator: {}", describe_setup(&setup));
        }
        println!("  approximations:\n    - {}", plan.approximations.join("\n    - "));
    }
    Ok(0)
}

/// `westwood-emu testbed`: run each cc, print (and write) the testbed beside the simulator.
pub fn main(opts: &Options) -> Result<i32> {
    prerequisites()?;
    let ccs: Vec<Option<String>> =
        if opts.ccs.is_empty() { vec![None] } else { opts.ccs.iter().cloned().map(Some).collect() };
    // Map every run before starting any, so a scenario the testbed cannot run fails at once.
    let mut runs = Vec::new();
    for cc in &ccs {
        let (scenario, sim_cc) = load_scenario(opts, cc.as_deref())?;
        let plan = plan::plan(&scenario, cc.as_deref())?;
        let (sim_scenario, setup) = simulator_scenario(&scenario, &opts.overrides);
        runs.push((cc.clone(), sim_scenario, sim_cc, plan, setup));
    }
    if let Some((_, _, sim_cc, plan, setup)) = runs.first() {
        if !opts.json {
            eprintln!("approximations:\n  - {}", plan.approximations.join("\n  - "));
            if opts.simulate && sim_cc.is_some() {
                eprintln!("simulator: {}", describe_setup(setup));
            }
        }
    }
    let mut rows = Vec::new();
    let mut all_ok = true;
    let mut late = Vec::new();
    for (cc, sim_scenario, sim_cc, plan, setup) in &runs {
        let scenario = &plan.scenario;
        let label = cc.clone().unwrap_or_else(|| "scenario".into());
        if !opts.json {
            eprintln!(
                "testbed: {} ({}), {} flow(s), {} s, seed {} ...",
                scenario.name,
                label,
                plan.flows.len(),
                scenario.duration as f64 / 1e9,
                scenario.seed
            );
        }
        let dir = opts.out.as_ref().map(|out| if runs.len() > 1 { out.join(&label) } else { out.clone() });
        let trace_path = match (&dir, opts.ack_trace) {
            (Some(d), true) => {
                std::fs::create_dir_all(d)
                    .map_err(|e| Error::failed(format!("creating {}", d.display()), e))?;
                Some(d.join("acks.csv"))
            }
            _ => None,
        };
        let pcap_dirs = match (&dir, opts.pcap) {
            (Some(d), Some(snaplen)) => Some((d.join("pcap"), d.join("simulator").join("pcap"), snaplen)),
            _ => None,
        };
        let mut tb = run_once_captured(
            plan,
            opts.sample_interval,
            opts.fifo,
            &label,
            trace_path.as_deref(),
            pcap_dirs.as_ref().map(|(d, _, s)| (d.as_path(), *s)),
        )?;
        let simulated = opts.simulate && sim_cc.is_some();
        let sim_trace = match (&dir, opts.ack_trace && simulated) {
            (Some(d), true) => {
                let sim_dir = d.join("simulator");
                std::fs::create_dir_all(&sim_dir)
                    .map_err(|e| Error::failed(format!("creating {}", sim_dir.display()), e))?;
                Some(sim_dir.join("acks.csv"))
            }
            _ => None,
        };
        let sim = if simulated {
            Some(simulate_captured(
                sim_scenario,
                opts.out.is_some(),
                sim_trace.as_deref(),
                pcap_dirs.as_ref().map(|(_, d, s)| (d.as_path(), *s)),
            )?)
        } else {
            None
        };
        // What the simulator run changed beyond the user's --set (null without a simulator run).
        tb.summary["testbed"]["simulator_overrides"] =
            if simulated { setup.overrides_json() } else { Value::Null };
        tb.summary["testbed"]["simulator_window_growth"] =
            if simulated { Value::String(setup.window_growth.clone()) } else { Value::Null };
        if let Some(dir) = &dir {
            output::write_run(dir, &tb.summary, &tb.flow_series, &tb.link_series)?;
            if let Some(sim) = &sim {
                let summary = serde_json::to_value(&sim.summary).unwrap_or(Value::Null);
                let fs = sim.flow_series.as_ref().map(output::flow_series_columns).unwrap_or_default();
                let ls = sim.link_series.as_ref().map(output::link_series_columns).unwrap_or_default();
                output::write_run(&dir.join("simulator"), &summary, &fs, &ls)?;
            }
        }
        let lateness_problem = late_emulator(&label, &tb.summary);
        let on_time = lateness_problem.is_none();
        late.extend(lateness_problem);
        for (i, f) in tb.summary["flows"].as_array().cloned().unwrap_or_default().iter().enumerate() {
            let s = sim.as_ref().map(|s| &s.summary.flows[i]);
            let ok = tb.integrity[i].ok;
            all_ok &= ok;
            rows.push(Comparison {
                cc: label.clone(),
                simulator_cc: s.map(|s| s.cc.clone()),
                simulator_window_growth: s.map(|_| setup.window_growth.clone()),
                simulator_limited_transmit: s
                    .and_then(|_| sim_scenario.flows.get(i))
                    .map(|f| f.tcp.limited_transmit),
                flow: f["name"].as_str().unwrap_or("").to_string(),
                testbed_goodput_bps: f["goodput_bps"].as_f64().unwrap_or(0.0),
                simulator_goodput_bps: s.map(|s| s.goodput_bps),
                testbed_retransmits: f["retransmits"].as_u64().unwrap_or(0),
                simulator_retransmits: s.map(|s| s.retransmits),
                testbed_timeouts: f["timeouts"].as_u64().unwrap_or(0),
                simulator_timeouts: s.map(|s| s.timeouts),
                integrity_ok: ok,
                emulator_on_time: on_time,
            });
        }
        if !opts.json {
            let e = &tb.summary["testbed"]["emulator"];
            eprintln!(
                "  emulator: {} frames, lateness p99 {:.3} ms, max {:.3} ms, {} stalls (links frozen {:.1} ms), \
                 CPU {:.1} %, emulator-caused drops {}",
                e["counters"]["frames_in"],
                e["lateness_seconds"]["p99"].as_f64().unwrap_or(0.0) * 1e3,
                e["lateness_seconds"]["max"].as_f64().unwrap_or(0.0) * 1e3,
                e["stalls"]["count"].as_u64().unwrap_or(0),
                e["stalls"]["frozen_seconds"].as_f64().unwrap_or(0.0) * 1e3,
                e["cpu_fraction"].as_f64().unwrap_or(0.0) * 100.0,
                e["counters"]["rx_socket_drops"].as_u64().unwrap_or(0) + e["counters"]["tx_errors"].as_u64().unwrap_or(0),
            );
        }
    }
    let ratios = ratios(&rows);
    if opts.json {
        println!("{}", json!({ "scenario": opts.scenario, "runs": rows, "ratios": ratios }));
    } else {
        print!("{}", format_comparison(&rows, &ratios));
        if let Some(out) = &opts.out {
            println!("wrote {}/", out.display());
        }
    }
    if let Some(out) = &opts.out {
        let text =
            serde_json::to_string_pretty(&json!({ "runs": rows, "ratios": ratios })).unwrap_or_default();
        std::fs::write(out.join("comparison.json"), text + "\n")?;
    }
    if !all_ok {
        eprintln!("error: iperf3's sent and received byte counts disagree beyond the socket buffers (see summary.json testbed.integrity)");
        return Ok(1);
    }
    if !late.is_empty() {
        eprintln!(
            "error: the emulator fell behind the path's schedule ({}; limit {} ms): late packets went out \
             in bunches the scenario's links would have spaced, so the run measured the machine's load, not \
             the path. Rerun on a quiet machine (no builds or other real-time work beside it).",
            late.join("; "),
            LATENESS_P99_LIMIT_NS as f64 / 1e6
        );
        return Ok(1);
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use westwood_algorithms::WindowGrowth;
    use westwood_simulator::model::{PartialAckTimer, RecoveryPacing};
    use westwood_simulator::profile::LINUX_TIMER_HZ;
    use westwood_simulator::tcp::Recovery;

    fn options(overrides: &[(&str, &str)]) -> Options {
        Options {
            scenario: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/wireless.toml"),
            overrides: overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            ..Options::default()
        }
    }

    fn growths(s: &Scenario) -> Vec<WindowGrowth> {
        s.flows.iter().map(|f| f.tcp.window_growth).collect()
    }

    fn limited(s: &Scenario) -> Vec<bool> {
        s.flows.iter().map(|f| f.tcp.limited_transmit).collect()
    }

    fn pair(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    /// The profile keys the testbed's simulator run changes on wireless.toml (cc reno or a
    /// Westwood: Reno recovery), and their values: the file sets `delayed_ack_timeout` (100 ms,
    /// replaced), `rto_min` (1 s, kept: the kernel's route gets it, and Linux's clock
    /// granularity follows it), `initial_cwnd`, `rto_max`, `rto_initial` (1 s, as Linux's).
    fn linux_changes() -> Vec<(String, String)> {
        let kernel_hz = westwood_linux::prereq::kernel_hz().unwrap_or(LINUX_TIMER_HZ).to_string();
        [
            ("tcp.window_growth", "linux"),
            ("tcp.limited_transmit", "true"),
            ("tcp.recovery", "newreno"),
            ("tcp.partial_ack_timer", "every"),
            ("tcp.timeout_threshold", "new_episode"),
            ("tcp.recovery_pacing", "prr"),
            ("tcp.recovery_exit_growth", "true"),
            ("tcp.fast_retransmit_timer", "restart"),
            ("tcp.repeat_fast_retransmit", "false"),
            ("tcp.delayed_ack_timeout", "40ms"),
            ("tcp.quick_acks", "16"),
            ("tcp.clock_granularity", "1s"),
            ("tcp.send_buffer", "linux"),
            ("tcp.cwnd_validation", "linux"),
            ("tcp.rtt_estimator", "linux"),
            ("tcp.timer_hz", kernel_hz.as_str()),
            ("tcp.prr_window", "linux"),
            ("tcp.prr_bound", "safe_ack"),
            ("tcp.receive_window", "linux"),
            ("tcp.reduction_base", "cwnd"),
            ("tcp.sack_next_seg", "linux"),
            ("tcp.loss_detection", "rack"),
            ("tcp.push_flag", "linux"),
            ("tcp.recovery_exit", "above_recover"),
            ("tcp.reordering", "linux"),
            ("tcp.frto", "true"),
            ("tcp.preamble", "37B"),
        ]
        .into_iter()
        .map(|(k, v)| pair(k, v))
        .collect()
    }

    #[test]
    fn the_simulator_run_uses_the_linux_profile_except_what_the_kernel_gets_from_the_scenario() {
        let opts = options(&[("loss", "1%")]);
        for cc in [None, Some("reno"), Some("tcpw")] {
            let (scenario, _) = load_scenario(&opts, cc).unwrap();
            assert_eq!(growths(&scenario), [WindowGrowth::PerAck], "the scenario as written");
            assert_eq!(limited(&scenario), [false], "the scenario as written");
            assert_eq!(recoveries(&scenario), [Recovery::Reno], "the scenario as written");
            let (sim, setup) = simulator_scenario(&scenario, &opts.overrides);
            // Exactly the linux profile applied to each flow, the kernel-configured keys kept.
            let mut expected = scenario.clone();
            for f in &mut expected.flows {
                Profile::Linux.apply(&mut f.tcp, &|k| KERNEL_CONFIGURED.contains(&k));
                f.tcp.preamble = u64::from(IPERF3_COOKIE);
            }
            assert_eq!(sim, expected, "{cc:?}");
            let t = &sim.flows[0].tcp;
            assert_eq!(
                (t.window_growth, t.limited_transmit, t.recovery),
                (WindowGrowth::Linux, true, Recovery::NewReno)
            );
            assert_eq!(
                (t.partial_ack_timer, t.recovery_pacing),
                (PartialAckTimer::Every, RecoveryPacing::Prr)
            );
            assert_eq!((t.delayed_ack.timeout, t.delayed_ack.quick_acks), (40_000_000, 16));
            // The kernel gets the scenario's initial window, rto_min and rto_max (plan.rs): so
            // does the simulator; Linux's RTO adds its rto_min to srtt, so G = rto_min.
            let s = &scenario.flows[0].tcp;
            assert_eq!((t.initial_cwnd, t.rto.min, t.rto.max), (s.initial_cwnd, s.rto.min, s.rto.max));
            assert_eq!(t.rto.granularity, s.rto.min);
            assert_eq!(setup.overrides, linux_changes(), "{cc:?}");
            assert!(setup.user_keys.is_empty());
            assert_eq!(setup.scenario_keys, ["initial_cwnd", "rto_min", "rto_max"]);
            assert_eq!((setup.window_growth.as_str(), setup.limited_transmit.as_str()), ("linux", "true"));
            assert_eq!(
                setup.overrides_json(),
                json!({
                    "profile": "linux",
                    "changed": {
                        "tcp.window_growth": "linux",
                        "tcp.limited_transmit": "true",
                        "tcp.recovery": "newreno",
                        "tcp.partial_ack_timer": "every",
                        "tcp.timeout_threshold": "new_episode",
                        "tcp.recovery_pacing": "prr",
                        "tcp.recovery_exit_growth": "true",
                        "tcp.fast_retransmit_timer": "restart",
                        "tcp.repeat_fast_retransmit": "false",
                        "tcp.delayed_ack_timeout": "40ms",
                        "tcp.quick_acks": "16",
                        "tcp.clock_granularity": "1s",
                        "tcp.send_buffer": "linux",
                        "tcp.cwnd_validation": "linux",
                        "tcp.rtt_estimator": "linux",
                        "tcp.timer_hz": westwood_linux::prereq::kernel_hz().unwrap_or(LINUX_TIMER_HZ).to_string(),
                        "tcp.prr_window": "linux",
                        "tcp.prr_bound": "safe_ack",
                        "tcp.receive_window": "linux",
                        "tcp.reduction_base": "cwnd",
                        "tcp.sack_next_seg": "linux",
                        "tcp.loss_detection": "rack",
                        "tcp.push_flag": "linux",
                        "tcp.recovery_exit": "above_recover",
                        "tcp.reordering": "linux",
                        "tcp.frto": "true",
                        "tcp.preamble": "37B"
                    },
                    "user": [],
                    "scenario": ["initial_cwnd", "rto_min", "rto_max"]
                })
            );
            let line = describe_setup(&setup);
            assert!(line.starts_with("profile linux (set by the testbed"), "{line}");
            assert!(line.contains("window_growth = linux"), "{line}");
            assert!(line.contains("recovery_pacing = prr"), "{line}");
            assert!(
                line.contains("the scenario's, as the kernel gets them: initial_cwnd, rto_min, rto_max"),
                "{line}"
            );
            // Nothing else changes: same links, seed, duration, cc.
            let mut back = sim.clone();
            back.flows[0].tcp = scenario.flows[0].tcp.clone();
            assert_eq!(back, scenario);
        }
    }

    #[test]
    fn a_run_whose_emulator_fell_behind_is_named_with_its_lateness_and_load() {
        let summary = |p99: f64, on_time: bool| {
            json!({ "testbed": {
                "emulator": { "lateness_seconds": { "p99": p99 }, "on_time": on_time },
                "load_average": [5.24, 4.45, 2.25],
            }})
        };
        assert_eq!(late_emulator("tcpw", &summary(0.00013, true)), None);
        assert_eq!(
            late_emulator("tcpw", &summary(0.00297, false)).as_deref(),
            Some("tcpw: lateness p99 2.97 ms, load average 5.24 4.45 2.25")
        );
        // A summary without the record (an older binary's) does not pass for on time.
        assert!(late_emulator("reno", &json!({})).is_some());
    }

    #[test]
    fn the_users_set_wins_key_by_key() {
        for (key, value) in [
            ("tcp.limited_transmit", "false"),
            ("tcp.limited_transmit", "true"),
            ("flows.ftp.limited_transmit", "false"),
            ("tcp.recovery_pacing", "inflation"),
            ("tcp.window_growth", "per_ack"),
            ("flows.ftp.window_growth", "byte_counting"),
            ("tcp.delayed_ack_timeout", "200ms"),
        ] {
            let opts = options(&[("loss", "1%"), (key, value)]);
            let (scenario, _) = load_scenario(&opts, Some("reno")).unwrap();
            let (sim, setup) = simulator_scenario(&scenario, &opts.overrides);
            let name = key.rsplit('.').next().unwrap();
            // The user's key is as the user set it, in the record as the user's ...
            assert_eq!(Profile::key_value(&sim.flows[0].tcp, name), value, "--set {key}={value}");
            assert_eq!(setup.user_keys, [name], "--set {key}={value}");
            assert!(!setup.overrides.iter().any(|(k, _)| k == &format!("tcp.{name}")), "--set {key}={value}");
            // ... and every other key is the profile's.
            let expected: Vec<(String, String)> =
                linux_changes().into_iter().filter(|(k, _)| k != &format!("tcp.{name}")).collect();
            assert_eq!(setup.overrides, expected, "--set {key}={value}");
            assert_eq!(setup.overrides_json()["user"], json!([name]));
            let line = describe_setup(&setup);
            assert!(line.contains(&format!("from --set: {name}")), "{line}");
        }
        assert_eq!(
            growths(
                &simulator_scenario(
                    &load_scenario(&options(&[("tcp.window_growth", "per_ack")]), Some("reno")).unwrap().0,
                    &[pair("tcp.window_growth", "per_ack")]
                )
                .0
            ),
            [WindowGrowth::PerAck]
        );
        // A profile named by the user: the scenario was loaded with it, the testbed adds nothing.
        for profile in ["paper", "ns2", "Linux"] {
            let opts = options(&[("tcp.profile", profile)]);
            let (scenario, _) = load_scenario(&opts, Some("reno")).unwrap();
            let (sim, setup) = simulator_scenario(&scenario, &opts.overrides);
            assert_eq!(sim, scenario, "{profile}");
            assert_eq!(
                setup.overrides_json(),
                json!({"profile": profile.to_ascii_lowercase(), "changed": {}, "user": ["profile"], "scenario": []})
            );
            assert!(describe_setup(&setup).contains("(from --set)"));
        }
        let set = |k: &str| vec![pair(k, "true")];
        assert!(user_sets_limited_transmit(&set("tcp.limited_transmit")));
        assert!(user_sets_limited_transmit(&set("flows.\"bulk.1\".limited_transmit")));
        assert!(user_sets_limited_transmit(&set("limited_transmit")));
        assert!(!user_sets_limited_transmit(&set("tcp.window_growth")));
        assert!(user_sets_window_growth(&set("window_growth")));
        assert!(!user_sets_window_growth(&set("tcp.limited_transmit")));
        assert!(!user_sets_window_growth(&set("loss")));
        assert_eq!(
            user_value(&[pair("tcp.profile", "ns2"), pair("flows.f.profile", "linux")], "profile"),
            Some("linux")
        );
    }

    fn recoveries(scenario: &Scenario) -> Vec<Recovery> {
        scenario.flows.iter().map(|f| f.tcp.recovery).collect()
    }

    #[test]
    fn reno_recovery_runs_as_newreno_unless_the_user_chooses() {
        // The kernel has no plain Reno recovery; SACK stays SACK.
        let opts = options(&[("tcp.recovery", "sack")]);
        let (scenario, _) = load_scenario(&opts, Some("reno")).unwrap();
        let (sim, setup) = simulator_scenario(&scenario, &opts.overrides);
        assert_eq!(recoveries(&sim), [Recovery::Sack]);
        assert!(!setup.overrides.iter().any(|(k, _)| k == "tcp.recovery"));
        assert_eq!(sim.flows[0].tcp.recovery_pacing, RecoveryPacing::Prr, "PRR with SACK too");
        for (key, value) in [("tcp.recovery", "reno"), ("flows.ftp.recovery", "reno")] {
            let opts = options(&[(key, value)]);
            let (scenario, _) = load_scenario(&opts, Some("reno")).unwrap();
            let (sim, setup) = simulator_scenario(&scenario, &opts.overrides);
            assert_eq!(recoveries(&sim), [Recovery::Reno], "--set {key}={value}");
            assert!(!setup.overrides.iter().any(|(k, _)| k == "tcp.recovery"));
            assert!(setup.user_keys.contains(&"recovery".to_string()));
        }
    }
}
