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

use crate::core::{Emulator, Route};
use crate::diag::{DiagSocket, TcpInfo, INFINITE_SSTHRESH};
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

/// What the testbed changed in the scenario for its simulator run, beyond the user's `--set`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimulatorSetup {
    /// The TCP profile the simulator's run uses: `linux`, applied by the testbed, or the one the
    /// user's `--set` named.
    pub profile: String,
    /// The testbed applied the profile (false: the user's `--set` chose one).
    pub by_testbed: bool,
    /// What applying the profile changed, `(KEY, VALUE)` as `--set` spells them (`tcp.KEY`), in
    /// the order of `Profile::KEYS`; a value that differs between flows is listed as
    /// `a,b`.
    pub overrides: Vec<(String, String)>,
    /// The profile's keys the user's `--set` decided (left as the user set them).
    pub user_keys: Vec<String>,
    /// The profile's keys left at the scenario's values because the kernel is configured with
    /// them ([`KERNEL_CONFIGURED`]).
    pub scenario_keys: Vec<String>,
    /// The simulator's window growth (`per_ack`, `byte_counting`, `linux`; `linux,per_ack` when
    /// the flows differ).
    pub window_growth: String,
    /// The simulator's limited transmit (`true`, `false`; `false,true` when the flows differ).
    pub limited_transmit: String,
}

impl SimulatorSetup {
    /// For `summary.json`: `{"profile": "linux", "changed": {KEY: VALUE}, "user": [KEY],
    /// "scenario": [KEY]}`, the keys of `user` and `scenario` as the profile names them.
    pub fn overrides_json(&self) -> Value {
        let changed = Value::Object(
            self.overrides.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect(),
        );
        json!({
            "profile": self.profile,
            "changed": changed,
            "user": self.user_keys,
            "scenario": self.scenario_keys,
        })
    }
}

/// The user's `--set` overrides set `key`: an override whose last part is `key` (`tcp.KEY`,
/// `flows.NAME.KEY`, or a parameter of that name).
fn user_sets(overrides: &[(String, String)], key: &str) -> bool {
    user_value(overrides, key).is_some()
}

/// The value of the user's last `--set` override of `key` (as [`user_sets`] finds it).
fn user_value<'a>(overrides: &'a [(String, String)], key: &str) -> Option<&'a str> {
    overrides
        .iter()
        .rev()
        .find(|(k, _)| k.rsplit('.').next().is_some_and(|last| last.trim().trim_matches('"') == key))
        .map(|(_, v)| v.as_str())
}

/// The user's `--set` overrides choose a window growth: a key whose last part is
/// `window_growth` (`tcp.window_growth`, `flows.NAME.window_growth`, or a parameter of that name).
pub fn user_sets_window_growth(overrides: &[(String, String)]) -> bool {
    user_sets(overrides, "window_growth")
}

/// The user's `--set` overrides choose limited transmit: a key whose last part is
/// `limited_transmit` (`tcp.limited_transmit`, `flows.NAME.limited_transmit`, or a parameter).
pub fn user_sets_limited_transmit(overrides: &[(String, String)]) -> bool {
    user_sets(overrides, "limited_transmit")
}

/// Keys of the simulator's `linux` profile that the testbed leaves at the scenario's value,
/// because it configures the kernel with that value (`plan.rs`: route `initcwnd` and `rto_min`,
/// `net.ipv4.tcp_rto_max_ms`), so kernel and simulator run with the same one.
pub const KERNEL_CONFIGURED: [&str; 3] = ["initial_cwnd", "rto_min", "rto_max"];

/// The scenario the simulator runs beside the testbed: `scenario` (already loaded with the
/// user's overrides) under the simulator's `linux` TCP profile (`docs/scenarios.md`,
/// `westwood_simulator::profile`), i.e. with what the kernel does in place of the simulator's
/// ns-2-style defaults: window growth by the segments acknowledged, limited transmit, NewReno-style recovery
/// for the `reno` recovery (Linux has no plain RFC 5681 recovery), the RTO restarted on every
/// partial ACK, PRR (RFC 6937) during recovery, Linux's delayed-ACK timeout and quick ACKs, and
/// its RTO rule (`clock_granularity` = `rto_min`).
///
/// Each of the profile's keys is decided on its own: one the user's own `--set` overrides set
/// (a key ending in its name: `tcp.KEY`, `flows.NAME.KEY`, a parameter) stays as the user set
/// it; the [`KERNEL_CONFIGURED`] ones stay at the scenario's value, which the kernel gets too.
/// The profile replaces values the scenario file itself sets (its `delayed_ack_timeout`, say):
/// the kernel does not follow those either. When the user's `--set` names a profile (`--set
/// tcp.profile=paper`), the scenario was loaded with it and the testbed changes nothing.
pub fn simulator_scenario(
    scenario: &Scenario,
    user_overrides: &[(String, String)],
) -> (Scenario, SimulatorSetup) {
    let mut sim = scenario.clone();
    let mut overrides = Vec::new();
    let mut user_keys = Vec::new();
    let mut scenario_keys = Vec::new();
    let user_profile = user_value(user_overrides, "profile");
    if user_profile.is_some() {
        user_keys.push("profile".to_string());
    } else {
        let keep = |key: &str| user_sets(user_overrides, key) || KERNEL_CONFIGURED.contains(&key);
        // The timers tick as the running kernel's do, when it says how fast.
        let hz = westwood_linux::prereq::kernel_hz().filter(|_| !user_sets(user_overrides, "timer_hz"));
        for tcp in tcp_specs_mut(&mut sim) {
            Profile::Linux.apply(tcp, &keep);
            if let Some(hz) = hz {
                tcp.timer_hz = hz;
            }
        }
        let specs = |s: &Scenario| -> Vec<TcpSpec> {
            s.flows.iter().map(|f| f.tcp.clone()).chain(s.arrivals.iter().map(|a| a.tcp.clone())).collect()
        };
        let (before, after) = (specs(scenario), specs(&sim));
        for key in Profile::KEYS {
            if user_sets(user_overrides, key) {
                user_keys.push(key.to_string());
            } else if KERNEL_CONFIGURED.contains(&key) {
                scenario_keys.push(key.to_string());
            }
            let changed = before
                .iter()
                .zip(&after)
                .any(|(b, a)| Profile::key_value(b, key) != Profile::key_value(a, key));
            if changed {
                let values = used(after.iter().map(|t| Profile::key_value(t, key)).collect());
                overrides.push((format!("tcp.{key}"), values));
            }
        }
        // iperf3 opens each data connection with its cookie, whose short segment gives the
        // kernel its smallest RTT sample (TCPW's RTTmin): the simulator's flows send it too.
        if user_sets(user_overrides, "preamble") {
            user_keys.push("preamble".to_string());
        } else {
            let cookie = u64::from(IPERF3_COOKIE);
            let mut set = false;
            for tcp in tcp_specs_mut(&mut sim) {
                if tcp.segment_size > cookie && tcp.preamble != cookie {
                    tcp.preamble = cookie;
                    set = true;
                }
            }
            if set {
                overrides.push(("tcp.preamble".to_string(), format!("{cookie}B")));
                // Scripted drops count from the first byte after it, as the testbed counts.
                westwood_simulator::network::loss::drop_list::follow_preambles(&mut sim.links, &sim.flows);
            }
        }
    }
    let window_growth = used(sim.flows.iter().map(|f| f.tcp.window_growth.name().to_string()).collect());
    let limited_transmit = used(sim.flows.iter().map(|f| f.tcp.limited_transmit.to_string()).collect());
    let setup = SimulatorSetup {
        profile: user_profile
            .map_or_else(|| Profile::Linux.name().to_string(), |p| p.trim().to_ascii_lowercase()),
        by_testbed: user_profile.is_none(),
        overrides,
        user_keys,
        scenario_keys,
        window_growth,
        limited_transmit,
    };
    (sim, setup)
}

/// The TCP settings of every flow of `scenario`, those of its arrivals tables included.
fn tcp_specs_mut(scenario: &mut Scenario) -> impl Iterator<Item = &mut TcpSpec> {
    scenario.flows.iter_mut().map(|f| &mut f.tcp).chain(scenario.arrivals.iter_mut().map(|a| &mut a.tcp))
}

/// Distinct values, sorted, joined by commas.
fn used(mut names: Vec<String>) -> String {
    names.sort();
    names.dedup();
    names.join(",")
}

/// How the simulator's run was set up, for the console.
fn describe_setup(setup: &SimulatorSetup) -> String {
    if !setup.by_testbed {
        return format!(
            "profile {} (from --set); window_growth = {}, limited_transmit = {}",
            setup.profile, setup.window_growth, setup.limited_transmit
        );
    }
    let mut line =
        "profile linux (set by the testbed: Linux's TCP; --set tcp.profile=paper for the simulator's \
                    defaults, or --set tcp.KEY=VALUE for one key)"
            .to_string();
    if !setup.overrides.is_empty() {
        let changed: Vec<String> =
            setup.overrides.iter().map(|(k, v)| format!("{} = {v}", k.trim_start_matches("tcp."))).collect();
        line += &format!(": {}", changed.join(", "));
    }
    if !setup.user_keys.is_empty() {
        line += &format!("; from --set: {}", setup.user_keys.join(", "));
    }
    if !setup.scenario_keys.is_empty() {
        line += &format!("; the scenario's, as the kernel gets them: {}", setup.scenario_keys.join(", "));
    }
    line
}

/// The kernel congestion control `name` is registered, loading its module if need be.
pub fn ensure_kernel_cc(name: &str) -> Result<()> {
    let available = || westwood_linux::prereq::available_congestion_controls().iter().any(|c| c == name);
    if available() {
        return Ok(());
    }
    let _ = process::command("modprobe").arg(format!("tcp_{name}")).stderr(Stdio::null()).status();
    if available() {
        return Ok(());
    }
    Err(Error::Prereq(format!(
        "congestion control {name} is not available in this kernel (net.ipv4.tcp_available_congestion_control) and \
         `modprobe tcp_{name}` did not add it"
    )))
}

/// Check root and tools before anything else (exit 2 with what is missing).
pub fn prerequisites() -> Result<()> {
    netns::require_root("the testbed")?;
    tool("iperf3", "iperf3")?;
    Ok(())
}

fn endpoint_specs(plan: &Plan) -> Vec<EndpointSpec> {
    let mut specs = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        specs.push(EndpointSpec {
            suffix: format!("f{i}s"),
            ip: sender_ip(i),
            mtu: f.mtu,
            sysctls: f.sender_sysctls.clone(),
            optional_sysctls: f.optional_sysctls.clone(),
            peers: vec![2 * i + 1],
            route_options: f.sender_route.clone(),
        });
        specs.push(EndpointSpec {
            suffix: format!("f{i}r"),
            ip: receiver_ip(i),
            mtu: f.mtu,
            sysctls: f.receiver_sysctls.clone(),
            optional_sysctls: f.optional_sysctls.clone(),
            peers: vec![2 * i],
            route_options: f.receiver_route.clone(),
        });
    }
    specs
}

pub fn sender_ip(flow: usize) -> [u8; 4] {
    [10, 201, 1, flow as u8 + 1]
}

pub fn receiver_ip(flow: usize) -> [u8; 4] {
    [10, 201, 2, flow as u8 + 1]
}

struct Client {
    guard: ChildGuard,
    reader: Option<std::thread::JoinHandle<String>>,
}

/// iperf3 in namespace `ns`; with `cpu`, pinned to it.
fn spawn_iperf3(ns: &str, args: &[String], capture: bool, cpu: Option<usize>) -> Result<Client> {
    let ip = tool("ip", "iproute2")?;
    let iperf3 = tool("iperf3", "iperf3")?;
    // `ip netns exec` execs iperf3 in place (no fork), so iperf3 is our child and keeps the
    // parent-death signal: if we are SIGKILLed, so is it (our guards cannot run then). It is
    // spawned and killed (ChildGuard) by the run's thread, which therefore outlives it.
    let mut cmd = process::command(ip);
    cmd.args(["netns", "exec", ns]).arg(iperf3).args(args).stdin(Stdio::null()).stderr(Stdio::null());
    cmd.stdout(if capture { Stdio::piped() } else { Stdio::null() });
    if let Some(cpu) = cpu {
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                Ok(())
            });
        }
    }
    let mut guard = ChildGuard::spawn(&mut cmd)?;
    let reader = if capture {
        let mut stdout = guard.child().stdout.take().expect("piped");
        Some(std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
            s
        }))
    } else {
        None
    };
    Ok(Client { guard, reader })
}

/// One sample of a flow.
#[derive(Debug, Clone)]
struct Sample {
    time: f64,
    info: TcpInfo,
    bwe_bps: f64,
}

/// The kernel's per-ACK trace of a run's flows, into a file (docs/ack-trace.md), each row named
/// after its flow: the tcpw* flows from their own ring buffer (with the bandwidth estimate), the
/// others (reno, cubic, ...) from the ACK-path probe (kernel/tcp_ack_probe.bpf.c).
struct KernelAckTrace {
    session: Option<westwood_linux::acks::TraceSession>,
    probe: Option<westwood_linux::ack_probe::ProbeSession>,
    rows: FlowRows,
}

/// Trace rows of the run's data connections (sender namespace and the data port), by flow.
struct FlowRows {
    convert: westwood_linux::acks::Converter,
    writer: westwood_trace::AckTraceWriter<westwood_trace::AtomicFile>,
    flows: Vec<TracedFlow>,
}

/// A flow whose rows the trace keeps.
struct TracedFlow {
    /// Inode of the sender's network namespace (the events carry it).
    netns: u32,
    name: String,
    kernel_cc: String,
    /// Its rows come from the ACK-path probe (a kernel control), not from the tcpw* ring buffer.
    probed: bool,
}

impl FlowRows {
    /// Write the rows of `events`, which came from the probe (`from_probe`) or the tcpw* ring
    /// buffer; each flow takes its rows from one of the two.
    fn write(&mut self, events: Vec<westwood_linux::acks::KernelAck>, from_probe: bool) -> Result<()> {
        for ev in events.iter().filter(|ev| ev.sport == DATA_PORT) {
            let flow = self.flows.iter().find(|f| f.netns == ev.netns && f.probed == from_probe);
            if let Some(flow) = flow {
                // The probe's events name no control; the tcpw* ones name the flow's own.
                let mut row = self.convert.record(ev, &flow.name);
                row.cc.clone_from(&flow.kernel_cc);
                self.writer.write(&row).map_err(|e| Error::failed("writing the trace", e))?;
            }
        }
        Ok(())
    }
}

impl KernelAckTrace {
    /// Start tracing the flows of `plan` (their sender namespaces' inodes in `netns_inodes`).
    fn start(path: &std::path::Path, plan: &Plan, netns_inodes: &[u64]) -> Result<KernelAckTrace> {
        let flows: Vec<TracedFlow> = plan
            .flows
            .iter()
            .zip(netns_inodes)
            .map(|(f, ns)| TracedFlow {
                netns: *ns as u32,
                name: f.name.clone(),
                kernel_cc: f.kernel_cc.clone(),
                probed: !f.uses_bpf(),
            })
            .collect();
        let session = match flows.iter().any(|f| !f.probed) {
            true => Some(westwood_linux::acks::TraceSession::start()?),
            false => None,
        };
        let probe = match flows.iter().any(|f| f.probed) {
            true => Some(westwood_linux::ack_probe::ProbeSession::start(DATA_PORT)?),
            false => None,
        };
        let file = westwood_trace::AtomicFile::create(path)
            .map_err(|e| Error::failed(format!("creating {}", path.display()), e))?;
        let writer =
            westwood_trace::AckTraceWriter::new(file).map_err(|e| Error::failed("writing the trace", e))?;
        Ok(KernelAckTrace { session, probe, rows: FlowRows { convert: Default::default(), writer, flows } })
    }

    /// Take what the ring buffers hold now.
    fn drain(&mut self) -> Result<()> {
        if let Some(session) = self.session.as_mut() {
            let events = session.poll(Duration::ZERO)?;
            self.rows.write(events, false)?;
        }
        if let Some(probe) = self.probe.as_mut() {
            let events = probe.poll(Duration::ZERO)?;
            self.rows.write(events, true)?;
        }
        Ok(())
    }

    /// Switch the trace off, write the rest, put the file in place: (rows, records lost).
    fn finish(self) -> Result<(u64, u64)> {
        let KernelAckTrace { session, probe, mut rows } = self;
        let mut dropped = 0;
        if let Some(session) = session {
            dropped += session.dropped()?;
            rows.write(session.finish()?, false)?;
        }
        if let Some(probe) = probe {
            dropped += probe.dropped()?;
            rows.write(probe.finish()?, true)?;
        }
        let count = rows.writer.rows();
        rows.writer.into_inner().commit().map_err(|e| Error::failed("writing the trace", e))?;
        Ok((count, dropped))
    }
}

/// The emulator must send 99 % of its packets within this long of their scheduled instant for
/// a run to count. Idle, its p99 lateness is 0.1-0.2 ms; on a loaded 2-core machine with a
/// PREEMPT_NONE kernel other work holds the CPU for milliseconds even against the SCHED_FIFO
/// emulator thread (p99 3-4 ms measured while builds ran). A packet sent late goes out just
/// before the one scheduled after it, so a path that spaces ACKs by 1.76 ms delivers pairs a
/// few microseconds apart, which a rate estimator reads as hundreds of Mb/s (the kernel's tcpw
/// estimated 73 Mb/s on the 2 Mb/s path in such a run): the run measured the machine's load,
/// not the scenario's path.
pub const LATENESS_P99_LIMIT_NS: u64 = 1_000_000;

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), recorded with every run so that a
/// measurement says how busy the machine was; empty where unreadable.
fn load_average() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).filter_map(|v| v.parse().ok()).collect())
        .unwrap_or_default()
}

/// What a run's summary says of an emulator that fell behind ([`LATENESS_P99_LIMIT_NS`]):
/// `None` if it kept to the schedule, else a line naming the run, its p99 lateness and the
/// machine's load.
pub fn late_emulator(label: &str, summary: &Value) -> Option<String> {
    let emulator = &summary["testbed"]["emulator"];
    if emulator["on_time"].as_bool() == Some(true) {
        return None;
    }
    let p99_ms = emulator["lateness_seconds"]["p99"].as_f64().unwrap_or(f64::NAN) * 1e3;
    let load: Vec<String> = summary["testbed"]["load_average"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).map(|l| format!("{l:.2}")).collect())
        .unwrap_or_default();
    Some(format!("{label}: lateness p99 {p99_ms:.2} ms, load average {}", load.join(" ")))
}

/// Run `plan` once on the testbed; with `ack_trace`, the kernel's per-ACK trace of its flows
/// goes to that file.
pub fn run_once(
    plan: &Plan,
    sample_interval: Nanos,
    fifo: Option<i32>,
    label: &str,
    ack_trace: Option<&std::path::Path>,
) -> Result<TestbedRun> {
    run_once_captured(plan, sample_interval, fifo, label, ack_trace, None)
}

/// [`run_once`], capturing every flow's packets at its endpoints into `pcap` = (directory,
/// snaplen) ([`crate::capture`]).
pub fn run_once_captured(
    plan: &Plan,
    sample_interval: Nanos,
    fifo: Option<i32>,
    label: &str,
    ack_trace: Option<&std::path::Path>,
    pcap: Option<(&std::path::Path, u32)>,
) -> Result<TestbedRun> {
    let wall_start = std::time::Instant::now();
    sig::install();
    // A SIGTERM or Ctrl-C that came during an earlier run's simulator comparison: stop
    // before building anything.
    if sig::interrupted() {
        return Err(Error::Interrupted);
    }
    prerequisites()?;
    netns::remove_stale_and_report();
    let mut kernel_ccs: Vec<&str> = plan.flows.iter().map(|f| f.kernel_cc.as_str()).collect();
    kernel_ccs.sort();
    kernel_ccs.dedup();
    let bpf: Vec<&str> =
        kernel_ccs.iter().copied().filter(|c| westwood_linux::Algo::from_name(c).is_some()).collect();
    let _bpf_guard = if bpf.is_empty() {
        None
    } else {
        Some(crate::kernel_cc::BpfGuard::ensure(&bpf, plan.kernel_params)?)
    };
    for cc in kernel_ccs.iter().filter(|c| !bpf.contains(c)) {
        ensure_kernel_cc(cc)?;
    }

    let cpus = sys::cpus();
    let emu_cpu = (cpus >= 2).then_some(cpus - 1);
    let topo = Topology::create(&endpoint_specs(plan))?;
    let scenario = &plan.scenario;
    let links = westwood_simulator::sim::build_links(scenario).map_err(scenario_error)?;
    let mut routes = Vec::new();
    let mut config = realtime::Config {
        ports: topo.endpoints.iter().map(|e| e.router_dev.clone()).collect(),
        sample_interval: Some(sample_interval),
        cpu: emu_cpu,
        fifo_priority: fifo,
        ..Default::default()
    };
    // The flows' data connections, numbered as the simulator numbers its segments (drop-list).
    let connections: Vec<Connection> = (0..plan.flows.len())
        .map(|i| Connection { client: (sender_ip(i), DATA_PORT), server: (receiver_ip(i), SERVER_PORT) })
        .collect();
    config.tagger = Some(Tagger::new(&connections, IPERF3_COOKIE));
    for (i, f) in plan.flows.iter().enumerate() {
        let (s, r) = (2 * i as u16, 2 * i as u16 + 1);
        routes.push(Route { links: f.data_path.clone(), port: r });
        routes.push(Route { links: f.ack_path.clone(), port: s });
        config.routes.insert((s, r), 2 * i as u32);
        config.routes.insert((r, s), 2 * i as u32 + 1);
        config.addresses.insert(sender_ip(i), s);
        config.addresses.insert(receiver_ip(i), r);
    }
    let captures = match pcap {
        Some((dir, snaplen)) => {
            let c = crate::capture::Captures::start(
                dir,
                capture_points(plan, label),
                topo.endpoints.len(),
                snaplen,
            )
            .map_err(|e| Error::failed("starting the captures", e))?;
            config.capture = Some(c.tap());
            Some(c)
        }
        None => None,
    };
    let epoch = sys::monotonic_ns();
    config.epoch = Some(epoch);
    let emulator = realtime::spawn(Some(topo.router_path()), Emulator::new(links, routes), config)
        .map_err(|e| Error::failed("starting the emulator", e))?;

    // Servers, and a diag socket in every namespace.
    let mut servers = Vec::new();
    let mut sender_diag = Vec::new();
    let mut netns_inodes = Vec::new();
    for (i, _) in plan.flows.iter().enumerate() {
        let (snd, rcv) = (&topo.endpoints[2 * i], &topo.endpoints[2 * i + 1]);
        let args: Vec<String> = ["-s", "-1", "-B", &ip_text(rcv.ip), "-p", &SERVER_PORT.to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        servers.push(spawn_iperf3(&rcv.ns, &args, false, None)?);
        sender_diag.push(DiagSocket::open_in(&snd.ns_path())?);
        netns_inodes.push(sys::netns_inode(&snd.ns_path()).unwrap_or(0));
        let mut rdiag = DiagSocket::open_in(&rcv.ns_path())?;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let listening = rdiag.dump()?.iter().any(|s| s.state == 10 && s.sport == SERVER_PORT);
            if listening {
                break;
            }
            if let Some(st) = servers[i].guard.child().try_wait()? {
                return Err(Error::Failed(format!("iperf3 server in {} exited at once ({st})", rcv.ns)));
            }
            if std::time::Instant::now() > deadline {
                return Err(Error::Failed(format!("iperf3 server in {} not listening after 5 s", rcv.ns)));
            }
            sig::sleep(Duration::from_millis(10))?;
        }
    }

    // The kernel's per-ACK trace of every flow, from before the first one starts.
    let mut trace = match ack_trace {
        Some(path) => Some(KernelAckTrace::start(path, plan, &netns_inodes)?),
        None => None,
    };
    let mut bwe_unavailable: Option<String> = None;

    // Flows: start on time, sample every interval, until every client has exited.
    let n = plan.flows.len();
    let mut clients: Vec<Option<Client>> = (0..n).map(|_| None).collect();
    let mut results: Vec<Option<Iperf3Result>> = vec![None; n];
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); n];
    let seconds: Vec<u64> =
        plan.flows.iter().map(|f| (f.stop - f.start).div_ceil(NANOS_PER_SECOND).max(1)).collect();
    let latest_end = plan.flows.iter().map(|f| f.stop).max().unwrap_or(0);
    let give_up = epoch + latest_end + 90 * NANOS_PER_SECOND;
    let mut next_sample = epoch;
    let any_bpf = plan.flows.iter().any(FlowPlan::uses_bpf);
    loop {
        if sig::interrupted() {
            return Err(Error::Interrupted);
        }
        let now = sys::monotonic_ns();
        for (i, f) in plan.flows.iter().enumerate() {
            if results[i].is_none() && clients[i].is_none() && now >= epoch + f.start {
                let (snd, rcv) = (&topo.endpoints[2 * i], &topo.endpoints[2 * i + 1]);
                let args: Vec<String> = [
                    "-c",
                    &ip_text(rcv.ip),
                    "-p",
                    &SERVER_PORT.to_string(),
                    "-B",
                    &ip_text(snd.ip),
                    "--cport",
                    &DATA_PORT.to_string(),
                    "-t",
                    &seconds[i].to_string(),
                    "-C",
                    &f.kernel_cc,
                    "-J",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                // The sender on the emulator's CPU: its segments then enter one CPU backlog, in
                // order (see netns.rs).
                clients[i] = Some(spawn_iperf3(&snd.ns, &args, true, emu_cpu)?);
            }
        }
        if now >= next_sample {
            let t = (now - epoch) as f64 / 1e9;
            let bwe: HashMap<(u64, u16), f64> = if any_bpf && bwe_unavailable.is_none() {
                match westwood_linux::watch::snapshot_where(|ino| netns_inodes.contains(&ino)) {
                    Ok(conns) => {
                        conns.into_iter().map(|c| ((u64::from(c.netns), c.sport), c.bwe_bps())).collect()
                    }
                    Err(e) => {
                        // BWE is then NaN in the series: say why once, in the summary.
                        bwe_unavailable = Some(e.to_string());
                        HashMap::new()
                    }
                }
            } else {
                HashMap::new()
            };
            for i in 0..n {
                if clients[i].is_none() {
                    continue;
                }
                let dst = receiver_ip(i);
                if let Some(info) = sender_diag[i].dump()?.into_iter().find(|s| {
                    // An established (or closing) data connection with its TCP_INFO: not
                    // the listener, nor TIME_WAIT (which has none).
                    s.sport == DATA_PORT && s.dport == SERVER_PORT && s.dst == dst && s.snd_mss > 0
                }) {
                    let bwe_bps = bwe.get(&(netns_inodes[i], DATA_PORT)).copied().unwrap_or(f64::NAN);
                    samples[i].push(Sample { time: t, info, bwe_bps });
                }
            }
            next_sample += sample_interval * ((now - next_sample) / sample_interval + 1);
        }
        for i in 0..n {
            let Some(c) = clients[i].as_mut() else { continue };
            if let Some(status) = c.guard.child().try_wait()? {
                let text = c.reader.take().map(|h| h.join().unwrap_or_default()).unwrap_or_default();
                let parsed = parse_iperf3_json(&text).map_err(|e| {
                    Error::Failed(format!("flow {}: iperf3 client ({status}): {e}", plan.flows[i].name))
                })?;
                results[i] = Some(parsed);
                clients[i] = None;
            }
        }
        if results.iter().all(Option::is_some) {
            break;
        }
        if now > give_up {
            return Err(Error::Failed(format!(
                "the flows had not finished {} s after their end",
                (give_up - epoch - latest_end) / NANOS_PER_SECOND
            )));
        }
        let wake = plan
            .flows
            .iter()
            .enumerate()
            .filter(|(i, _)| results[*i].is_none() && clients[*i].is_none())
            .map(|(_, f)| epoch + f.start)
            .chain([next_sample])
            .min()
            .unwrap_or(next_sample);
        if let Some(t) = trace.as_mut() {
            t.drain()?;
        }
        sys::sleep_until(wake.min(sys::monotonic_ns() + 20_000_000));
    }
    let trace_summary = match trace {
        Some(t) => {
            let (rows, dropped) = t.finish()?;
            if dropped > 0 {
                eprintln!("warning: {dropped} per-ACK trace records were lost (the ring buffer was full): the trace is incomplete");
            }
            json!({ "file": "acks.csv", "rows": rows, "dropped": dropped })
        }
        None => Value::Null,
    };
    let run_seconds = (sys::monotonic_ns() - epoch) as f64 / 1e9;
    let report = emulator.stop().map_err(|e| Error::failed("the emulator", e))?;
    let pcap_summary = match captures {
        Some(c) => c.finish().map_err(|e| Error::failed("writing the captures", e))?,
        None => Value::Null,
    };
    let mut counters = Vec::new();
    let mut local_drops = 0;
    for i in 0..n {
        counters.push(netns::tcp_counters(&topo.endpoints[2 * i].ns_path()).unwrap_or_default());
        // Drops on the endpoints' own interfaces (there should be none: the emulator drops
        // only inside the path, never where the kernel would see local congestion).
        for ep in [&topo.endpoints[2 * i], &topo.endpoints[2 * i + 1]] {
            local_drops += netns::link_drops(&ep.ns, netns::ENDPOINT_DEV).map_or(0, |(rx, tx)| rx + tx);
        }
    }
    let slack: Vec<u64> = (0..n)
        .map(|i| {
            let max_of = |ns: &str, key: &str| {
                netns::get_sysctl(ns, key)
                    .ok()
                    .and_then(|v| v.split_whitespace().last().and_then(|x| x.parse::<u64>().ok()))
                    .unwrap_or(64 << 20)
            };
            max_of(&topo.endpoints[2 * i].ns_path(), "net.ipv4.tcp_wmem")
                + max_of(&topo.endpoints[2 * i + 1].ns_path(), "net.ipv4.tcp_rmem")
        })
        .collect();
    drop(servers);
    drop(topo);
    let results: Vec<Iperf3Result> = results.into_iter().map(Option::unwrap).collect();
    let mut run = assemble(
        plan,
        label,
        &report,
        &results,
        &samples,
        &counters,
        &slack,
        run_seconds,
        wall_start.elapsed().as_secs_f64(),
    );
    run.summary["testbed"]["emulator"]["endpoint_interface_drops"] = json!(local_drops);
    run.summary["testbed"]["ack_trace"] = trace_summary;
    run.summary["testbed"]["bwe_unavailable"] = bwe_unavailable.map_or(Value::Null, Value::String);
    run.summary["testbed"]["pcap"] = pcap_summary;
    Ok(run)
}

#[allow(clippy::too_many_arguments)]
fn assemble(
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

/// The simulator's run of the same scenario (same links, seed and duration).
/// The simulator's run of the scenario; with `ack_trace`, its per-ACK trace goes to that file.
pub fn simulate(
    scenario: &Scenario,
    record: bool,
    ack_trace: Option<&std::path::Path>,
) -> Result<westwood_simulator::RunResult> {
    let options = RunOptions { record_series: record, check_invariants: false };
    match ack_trace {
        None => westwood_simulator::run(scenario, options).map_err(scenario_error),
        Some(path) => westwood_simulator::run_with_ack_trace_file(scenario, options, path)
            .map_err(|e| run_error(e, &format!("writing {}", path.display()))),
    }
}

/// A simulator run's error as the testbed reports it; `failing` names what a failed write was
/// part of.
fn run_error(e: westwood_simulator::RunError, failing: &str) -> Error {
    use westwood_simulator::RunError;
    match e {
        RunError::Scenario(e) => scenario_error(e),
        RunError::Interrupted => Error::Interrupted,
        RunError::Trace(e) | RunError::Series(e) | RunError::Capture(e) => Error::failed(failing, e),
        // Not asked for here (the testbed's runs are not strict), but a refusal is the scenario's.
        refused @ RunError::Refused { .. } => Error::Usage(refused.to_string()),
    }
}

/// [`simulate`], with the captures the testbed takes (`FLOW.sender`, `FLOW.receiver`) written
/// by the simulator into `pcap` = (directory, snaplen).
pub fn simulate_captured(
    scenario: &Scenario,
    record: bool,
    ack_trace: Option<&std::path::Path>,
    pcap: Option<(&std::path::Path, u32)>,
) -> Result<westwood_simulator::RunResult> {
    let Some((dir, snaplen)) = pcap else { return simulate(scenario, record, ack_trace) };
    use westwood_simulator::pcap::{PacketTap, PcapOptions, PcapTaps};
    use westwood_simulator::RunError;
    let failed = |e: RunError| run_error(e, "the simulator's run");
    let points =
        scenario.flows.iter().flat_map(|f| [format!("{}.sender", f.name), format!("{}.receiver", f.name)]);
    let options = PcapOptions { points: points.collect(), snaplen, ..PcapOptions::new(dir) };
    let mut taps = PcapTaps::create(scenario, &options).map_err(failed)?;
    let mut trace =
        ack_trace.map(westwood_simulator::AckTraceFile::create).transpose().map_err(|e| failed(e.into()))?;
    let control = westwood_simulator::RunControl {
        ack_sink: trace.as_mut().map(|t| t as &mut dyn westwood_simulator::AckSink),
        packet_tap: Some(&mut taps as &mut dyn PacketTap),
        ..Default::default()
    };
    let result = westwood_simulator::run_with(
        scenario,
        RunOptions { record_series: record, check_invariants: false },
        control,
    )
    .map_err(failed)?;
    if let Some(t) = trace {
        t.commit().map_err(|e| failed(e.into()))?;
    }
    taps.commit(&result.summary).map_err(|e| failed(RunError::Capture(e)))?;
    Ok(result)
}

/// The testbed's capture points: each flow's sender and receiver namespace (ports 2i, 2i + 1).
fn capture_points(plan: &Plan, label: &str) -> Vec<crate::capture::Point> {
    let mut points = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        let meta = westwood_pcap::FlowMeta {
            name: f.name.clone(),
            proto: "tcp".into(),
            src: Some(std::net::SocketAddr::from((sender_ip(i), DATA_PORT))),
            dst: Some(std::net::SocketAddr::from((receiver_ip(i), SERVER_PORT))),
            cc: Some(f.kernel_cc.clone()),
            ..Default::default()
        };
        for (port, ip, role) in [(2 * i, sender_ip(i), "sender"), (2 * i + 1, receiver_ip(i), "receiver")] {
            let what = format!("flow {}'s {role} namespace ({})", f.name, ip_text(ip));
            points.push(crate::capture::Point {
                port: port as u16,
                name: format!("{}.{role}", f.name),
                description: format!(
                    "{what}: every frame it sent (stamped when the emulator read it) and received (when the emulator sent it)"
                ),
                ipv4: ip,
                comment: crate::capture::comment(&plan.scenario.name, label, &what, &meta),
            });
        }
    }
    points
}

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

/// Goodput ratio of each cc to reno (summed over flows), testbed and simulator.
fn ratios(rows: &[Comparison]) -> Vec<Value> {
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
