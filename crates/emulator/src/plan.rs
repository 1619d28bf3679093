//! From a scenario to a testbed: what maps onto real namespaces, kernel TCP and the emulator,
//! what is approximated, and what is refused.
//!
//! Every TCP flow of the scenario gets a sender and a receiver namespace of its own, joined
//! to the router namespace; the emulator carries each flow's data along the scenario's path
//! from its source node to its destination node (shortest path, the simulator's routing) and
//! its ACKs along the reverse path, through the scenario's links — all of them, as the
//! simulator builds them (rate, delay, queue and its limit, RED, error models per direction).
//! Flows that share a link in the scenario share it (its queue) in the emulator.

use westwood_algorithms::{registry, WindowGrowth};
use westwood_simulator::model::{CcSpec, Nanos, Scenario, NANOS_PER_SECOND};
use westwood_simulator::network::Routes;

use crate::error::{Error, Result};

/// Kernel congestion controls with no counterpart in the simulator that the testbed still runs
/// (with CUBIC's simulation beside them).
const KERNEL_ONLY: &[&str] = &["bbr"];

/// Kernel congestion controls the testbed knows how to use: the registry's kernel names
/// (`westwood_algorithms::registry`), then [`KERNEL_ONLY`].
pub fn kernel_ccs() -> Vec<&'static str> {
    let mut names: Vec<&str> = Vec::new();
    for kernel in registry::entries().iter().filter_map(|e| e.kernel).chain(KERNEL_ONLY.iter().copied()) {
        if !names.contains(&kernel) {
            names.push(kernel);
        }
    }
    names
}

/// The simulator's congestion control for a kernel one (`None`: the simulator has none).
pub fn simulator_cc(kernel: &str) -> Option<&'static str> {
    registry::lookup(kernel).filter(|e| e.kernel == Some(kernel)).map(|e| e.name)
}

/// The kernel congestion control standing for a scenario's `cc`.
pub fn kernel_cc(simulator: &str) -> Option<&'static str> {
    registry::lookup(simulator).and_then(|e| e.kernel)
}

/// One flow as the testbed runs it.
#[derive(Debug, Clone, PartialEq)]
pub struct FlowPlan {
    pub name: String,
    pub src_node: String,
    pub dst_node: String,
    /// Kernel congestion control (`iperf3 -C`).
    pub kernel_cc: String,
    /// The scenario's congestion control and loss recovery for this flow.
    pub scenario_cc: String,
    pub recovery: String,
    /// The scenario's `window_growth` for this flow; `linux` is the kernel's own rule (it counts
    /// the segments each ACK acknowledges, without a per-ACK limit), `byte_counting` differs on
    /// stretch ACKs, `per_ack` has no kernel counterpart.
    pub window_growth: WindowGrowth,
    /// The scenario's `limited_transmit` for this flow; `true` is what the kernel always does
    /// (RFC 3042), `false` (ns-2's agents) has no kernel counterpart.
    pub limited_transmit: bool,
    /// net.ipv4.tcp_sack in the flow's namespaces.
    pub sack: bool,
    pub segment_size: u64,
    pub header_size: u64,
    /// TCP timestamps on (header 52 B) or off (40 B).
    pub timestamps: bool,
    /// MTU of the flow's veths: segment + headers.
    pub mtu: u32,
    pub start: Nanos,
    pub stop: Nanos,
    /// Link indices (into `Scenario::links`) of the data and the ACK path.
    pub data_path: Vec<u32>,
    pub ack_path: Vec<u32>,
    pub sender_sysctls: Vec<(String, String)>,
    pub receiver_sysctls: Vec<(String, String)>,
    /// Sysctls set only if the kernel has them.
    pub optional_sysctls: Vec<(String, String)>,
    pub sender_route: Vec<String>,
    pub receiver_route: Vec<String>,
}

impl FlowPlan {
    /// One of westwood-linux's congestion controls (loaded for the run, watched, traced).
    pub fn uses_bpf(&self) -> bool {
        westwood_linux::Algo::from_name(&self.kernel_cc).is_some()
    }
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub scenario: Scenario,
    pub flows: Vec<FlowPlan>,
    /// What the testbed does differently from the simulator for this scenario.
    pub approximations: Vec<String>,
    /// The scenario's estimator parameters for the kernel's tcpw* programs (None: the default,
    /// which is the simulator's); used when the testbed loads them.
    pub kernel_params: westwood_linux::loader::Params,
}

/// Most flows a testbed run creates namespaces for.
pub const MAX_FLOWS: usize = 64;

/// What the testbed maps, for error messages and `--help`: the controls are the registry's
/// with a kernel twin.
pub fn maps() -> String {
    let with_twin: Vec<&registry::CcEntry> =
        registry::entries().into_iter().filter(|e| e.kernel.is_some()).collect();
    let names: Vec<&str> = with_twin.iter().map(|e| e.name).collect();
    let ours: Vec<&str> = with_twin.iter().filter(|e| e.ebpf.is_some()).filter_map(|e| e.kernel).collect();
    format!(
        "the testbed maps TCP flows (`[flows.NAME]`, `count`, `start`, `stop`) over any topology of \
         links (rate, delay, drop-tail or RED queue in packets, bytes or `bdp`, error models bernoulli / \
         ber / gilbert-elliott / outage per direction), with cc {} (the eBPF {} loaded as needed)",
        names.join(", "),
        ours.join(", ")
    )
}

/// The kernel parameters for a flow's Westwood cc: those the tcpw* programs take, from the
/// scenario's values where they differ from the defaults; a note for those they cannot take.
fn kernel_parameters(
    cc: &CcSpec,
    at: &str,
    params: &mut westwood_linux::loader::Params,
    note: &mut impl FnMut(String),
) {
    use westwood_algorithms::westwood::{AbseParams, PlusParams, Sampling, TcpwParams, TrParams};
    use westwood_linux::loader::Sample;
    let us = |ns: u64| u32::try_from(ns / 1000).unwrap_or(u32::MAX);
    // Keyed by the control, whose kernel program takes these parameters.
    match cc.entry.name {
        "westwood" => {
            let p = TcpwParams::from_values(&cc.params);
            if p != TcpwParams::default() {
                params.tau_us = Some(us(p.tau_ns));
                params.m = Some(p.m);
                params.sample = Some(match p.sample {
                    Sampling::Trapezoid => Sample::Trapezoid,
                    Sampling::Interval => Sample::Interval,
                });
            }
        }
        "westwood-abse" => {
            let p = AbseParams::from_values(&cc.params);
            let d = AbseParams::default();
            if p == d {
                return;
            }
            if p.t_min_ns != d.t_min_ns {
                params.abse_t_min_us = Some(us(p.t_min_ns));
            }
            if p.n != d.n {
                if p.n.fract() == 0.0 && (0.0..=1000.0).contains(&p.n) {
                    params.abse_n = Some(p.n as u32);
                } else {
                    note(format!(
                        "{at}: ABSE's N = {} is not a whole number: the kernel's tcpw_abse uses {}",
                        p.n, d.n
                    ));
                }
            }
            if p.sample != d.sample {
                note(format!(
                    "{at}: ABSE's sample = {:?}: the kernel's tcpw_abse has the paper's trapezoid only",
                    p.sample
                ));
            }
            if p.epsilon != d.epsilon || p.beta != d.beta || p.u_max_bps != d.u_max_bps {
                note(format!(
                    "{at}: ABSE's epsilon, beta and U_max are fixed in the kernel's tcpw_abse (0.6, 0.6, the running \
                     maximum); the scenario's are used by the simulator only"
                ));
            }
        }
        "westwood-tr" => {
            let p = TrParams::from_values(&cc.params);
            if p.sample != Sampling::Trapezoid {
                note(format!(
                    "{at}: westwood-tr's sample = {:?}: the kernel's tcpw_tr has the paper's trapezoid only",
                    p.sample
                ));
            }
        }
        "westwood-plus" => {
            let p = PlusParams::from_values(&cc.params);
            if p != PlusParams::default() {
                params.plus_min_window_us = Some(us(p.min_window_ns));
            }
        }
        _ => {}
    }
}

/// Scenario features the testbed cannot reproduce (each a sentence).
/// The longest test iperf3 runs (its `-t` is at most a day).
pub const IPERF3_MAX_TEST_NS: Nanos = 86_400 * NANOS_PER_SECOND;

pub fn unsupported(scenario: &Scenario, kernel_override: Option<&str>) -> Vec<String> {
    let mut problems = Vec::new();
    if scenario.duration > IPERF3_MAX_TEST_NS {
        problems.push(format!(
            "a run of {} s: iperf3 runs a test for at most 86400 s (a day), and the testbed runs in \
             real time; shorten scenario.duration (or --duration)",
            scenario.duration / NANOS_PER_SECOND
        ));
    }
    if !scenario.sources.is_empty() {
        let names: Vec<&str> = scenario.sources.iter().map(|s| s.name.as_str()).collect();
        problems.push(format!(
            "UDP sources ({}): the testbed runs TCP flows only (no on/off constant-bit-rate generator)",
            names.join(", ")
        ));
    }
    if !scenario.arrivals.is_empty() {
        let names: Vec<&str> = scenario.arrivals.iter().map(|a| a.name.as_str()).collect();
        problems.push(format!(
            "flows with `arrivals` ({}): the testbed starts a fixed set of flows, not a Poisson process of them",
            names.join(", ")
        ));
    }
    if scenario.flows.is_empty() && scenario.arrivals.is_empty() {
        problems.push("no TCP flows: nothing to run".to_string());
    }
    if scenario.flows.len() > MAX_FLOWS {
        problems.push(format!(
            "{} flows: the testbed creates two namespaces per flow and stops at {MAX_FLOWS} flows",
            scenario.flows.len()
        ));
    }
    for flow in &scenario.flows {
        let at = format!("flows.{}", flow.name);
        if flow.multipath.is_some() {
            problems.push(format!(
                "{at}: per-packet round robin over several paths (multipath) is not mapped; the emulator's delay \
                 lines (`westwood emu run --lines`) reorder one link's packets instead"
            ));
        }
        if flow.tcp.recovery.name() == "tahoe" {
            problems.push(format!("{at}: Tahoe recovery: Linux has no Tahoe (use newreno or sack)"));
        }
        if kernel_override.is_none() && kernel_cc(&flow.tcp.cc_name).is_none() {
            problems.push(format!(
                "{at}: cc {}: no kernel counterpart (the kernel has reno, cubic, bbr, and tcpw, tcpw_tr, tcpw_abse, \
                 tcpw_plus through westwood-linux); choose one with --cc",
                flow.tcp.cc_name
            ));
        }
        if flow.tcp.header_size != 40 && flow.tcp.header_size != 52 {
            problems.push(format!(
                "{at}: header_size {} B: Linux TCP/IPv4 headers are 40 B (timestamps off) or 52 B (timestamps on)",
                flow.tcp.header_size
            ));
        }
        let mtu = flow.tcp.segment_size + flow.tcp.header_size;
        if !(68..=9000).contains(&mtu) {
            problems.push(format!("{at}: a {mtu}-byte packet: the testbed's MTU must be 68..9000 bytes"));
        }
        if flow.start_at(scenario.seed) >= scenario.duration {
            problems.push(format!("{at}: starts at or after the end of the run"));
        }
    }
    problems
}

fn secs(ns: Nanos) -> String {
    let s = ns as f64 / NANOS_PER_SECOND as f64;
    if ns.is_multiple_of(1_000_000) && ns < NANOS_PER_SECOND {
        format!("{} ms", ns / 1_000_000)
    } else {
        format!("{s} s")
    }
}

/// The testbed plan for `scenario`, every flow running `kernel_override` if given (else its own
/// cc's kernel counterpart). Usage error (exit 2) listing everything that cannot be mapped.
pub fn plan(scenario: &Scenario, kernel_override: Option<&str>) -> Result<Plan> {
    if let Some(cc) = kernel_override {
        if !kernel_ccs().contains(&cc) {
            return Err(Error::Usage(format!(
                "--cc {cc}: the testbed runs {} (kernel congestion controls)",
                kernel_ccs().join(", ")
            )));
        }
    }
    let problems = unsupported(scenario, kernel_override);
    if !problems.is_empty() {
        return Err(Error::Usage(format!(
            "{}: the testbed cannot run this scenario:\n  - {}\n({})",
            scenario.source,
            problems.join("\n  - "),
            maps()
        )));
    }
    let endpoints: Vec<(u32, u32)> = scenario.links.iter().map(|l| (l.from as u32, l.to as u32)).collect();
    let routes = Routes::shortest_paths(scenario.nodes.len(), &endpoints);
    let mut approximations = vec![
        "kernel TCP is Linux's: the simulator's comparison run models its window growth, limited transmit, \
         NewReno recovery held until an ACK above high_seq, PRR, RTO timer policy, the threshold kept at an RTO \
         inside a loss episode, delayed/quick ACKs, the send buffer, cwnd validation, loss reductions from cwnd, \
         SACK resends of what is marked lost, RACK-TLP loss detection with SACK, growth by what an ACK \
         delivered, tcp_cubic.c's CUBIC, the non-SACK DUPACK threshold (tcp_check_reno_reordering), \
         F-RTO without SACK, tcp_rtt_estimator() and the timer wheel's tick (`profile = \"linux\"`); F-RTO \
         with SACK and undo it does not (docs/testbed.md)"
            .to_string(),
        "time 0 of the error models (outage offsets, Gilbert-Elliott start) is the emulator's start, a fraction \
         of a second before the first flow starts"
            .to_string(),
        "the error models draw for the frames the simulator also sends (the flows' data, iperf3's cookie, \
         the receivers' ACKs), in the same order, so a seed loses the same packets on both sides until \
         their packets part; handshakes, closes and iperf3's control connection cross unharmed"
            .to_string(),
    ];
    let mut note = |s: String| {
        if !approximations.contains(&s) {
            approximations.push(s);
        }
    };
    let mut flows = Vec::new();
    let mut kernel_params = westwood_linux::loader::Params::default();
    for flow in &scenario.flows {
        let tcp = &flow.tcp;
        let node = |i: usize| scenario.nodes[i].name.clone();
        let at = format!("flows.{}", flow.name);
        let data_path = routes.path(flow.src as u32, flow.dst as u32, &endpoints).ok_or_else(|| {
            Error::Usage(format!(
                "{}: {at}: no route from {} to {}",
                scenario.source,
                node(flow.src),
                node(flow.dst)
            ))
        })?;
        let ack_path = routes.path(flow.dst as u32, flow.src as u32, &endpoints).ok_or_else(|| {
            Error::Usage(format!(
                "{}: {at}: no route back from {} to {}",
                scenario.source,
                node(flow.dst),
                node(flow.src)
            ))
        })?;
        let kernel = kernel_override
            .map(str::to_string)
            .unwrap_or_else(|| kernel_cc(&tcp.cc_name).unwrap().to_string());
        // Non-default estimator parameters go to the kernel program when the testbed loads it.
        if westwood_linux::Algo::from_name(&kernel).is_some() {
            kernel_parameters(&tcp.cc, &at, &mut kernel_params, &mut note);
            if tcp.acked_count == Some(westwood_algorithms::westwood::AckedCountRule::Ucla) {
                note(format!(
                    "{at}: acked_count = \"ucla\": the kernel's {kernel} counts with seed 000's rule (paper)"
                ));
            }
        }
        // The kernel grows cwnd by the segments each ACK acknowledges, without a per-ACK limit:
        // the scenario's `linux` maps onto that; `byte_counting` (RFC 3465's limit of two
        // segments per ACK in slow start) differs only on stretch ACKs; `per_ack` (ns-2's rule)
        // cannot be reproduced.
        match tcp.window_growth {
            WindowGrowth::PerAck => note(
                "the scenario's window_growth = \"per_ack\" (ns-2's: one increment per ACK): the kernel grows \
                 cwnd by the segments each ACK acknowledges, twice as fast with delayed ACKs, as window_growth \
                 = \"linux\" does; the simulator's comparison run uses linux unless --set tcp.window_growth \
                 says otherwise"
                    .to_string(),
            ),
            WindowGrowth::ByteCounting => note(
                "the scenario's window_growth = \"byte_counting\" (RFC 3465, at most two segments per ACK in \
                 slow start): the kernel takes a stretch ACK whole (a cumulative ACK of k segments adds k, up \
                 to ssthresh), as window_growth = \"linux\" does"
                    .to_string(),
            ),
            WindowGrowth::Linux => {}
        }
        // The kernel always does limited transmit: without SACK each DUPACK counts as a segment
        // that left the network (tcp_add_reno_sack), so the first DUPACKs let new segments out.
        if !tcp.limited_transmit {
            note("the scenario's limited_transmit = false (ns-2's agents): Linux always sends a new segment on \
                  each of the first two DUPACKs (RFC 3042 limited transmit), so a small window reaches three \
                  DUPACKs more often; the simulator's comparison run uses limited_transmit = true unless --set \
                  tcp.limited_transmit says otherwise"
                .to_string());
        }
        let recovery = tcp.recovery.name().to_string();
        // BBR has no use for NewReno-style recovery; it runs with SACK as everywhere.
        let sack = recovery == "sack" || kernel == "bbr";
        if recovery == "reno" {
            note("the scenario's Reno recovery: Linux without SACK recovers NewReno-style (it stays in recovery \
                  until the whole window is acknowledged); the simulator's comparison run uses newreno unless \
                  --set tcp.recovery says otherwise"
                .to_string());
        }
        let timestamps = tcp.header_size == 52;
        let mtu = (tcp.segment_size + tcp.header_size) as u32;
        let segments = |bytes: u64| bytes.div_ceil(tcp.segment_size.max(1));
        let mut sender_sysctls = vec![
            ("net.ipv4.tcp_sack".to_string(), u8::from(sack).to_string()),
            ("net.ipv4.tcp_dsack".to_string(), u8::from(sack).to_string()),
            ("net.ipv4.tcp_timestamps".to_string(), u8::from(timestamps).to_string()),
            ("net.ipv4.tcp_reordering".to_string(), tcp.dupack_threshold.to_string()),
            ("net.ipv4.tcp_no_metrics_save".to_string(), "1".to_string()),
            ("net.ipv4.tcp_ecn".to_string(), "0".to_string()),
            // The connection must not start under the host's default congestion control:
            // iperf3 (3.12) applies `-C` only after connect(), so the handshake completes under
            // the namespace's default, which new namespaces inherit from the host. A default of
            // bbr runs bbr_init, which sets sk_pacing_status = SK_PACING_NEEDED, and nothing
            // clears it when iperf3 then switches to reno or tcpw: they would be paced (Linux's
            // internal pacing, 1.2-2 x cwnd/srtt), which a Linux host with a loss-based default
            // does not do. Reno never paces; bbr, if asked for, still sets pacing when iperf3
            // switches to it.
            ("net.ipv4.tcp_congestion_control".to_string(), "reno".to_string()),
        ];
        // The receive buffer bounds the advertised window at roughly half to three quarters of
        // it; twice the scenario's window keeps that from limiting what the scenario allows.
        let rmem_max = (2 * tcp.receiver_window).clamp(65_536, 1 << 30);
        let mut receiver_sysctls = sender_sysctls.clone();
        receiver_sysctls.push(("net.ipv4.tcp_rmem".to_string(), format!("4096 131072 {rmem_max}")));
        sender_sysctls.push((
            "net.ipv4.tcp_wmem".to_string(),
            // The simulator's `send_buffer = "linux"` autotunes up to the same maximum.
            format!(
                "4096 16384 {}",
                westwood_simulator::tcp::send_buffer::linux_wmem_max(tcp.receiver_window)
            ),
        ));
        note(
            "receiver_window: the kernel's receiver advertises at most the scenario's window (route \
              `window`); its receive-buffer autotuning (net.ipv4.tcp_rmem, capped at twice the window) \
              opens the window gradually, as the simulator's receive_window = \"linux\" does"
                .to_string(),
        );
        let rto_max_ms = (tcp.rto.max / 1_000_000).clamp(1000, 120_000);
        let optional_sysctls = vec![("net.ipv4.tcp_rto_max_ms".to_string(), rto_max_ms.to_string())];
        let mut sender_route = vec!["initcwnd".to_string(), segments(tcp.initial_cwnd).max(1).to_string()];
        sender_route.extend(["rto_min".to_string(), format!("{}ms", (tcp.rto.min / 1_000_000).max(1))]);
        if tcp.initial_ssthresh < u64::MAX / 4 {
            sender_route.extend(["ssthresh".to_string(), segments(tcp.initial_ssthresh).max(2).to_string()]);
            note(
                "initial_ssthresh: set on the sender's route, but Linux reads a route's ssthresh only through \
                 its TCP metrics cache (net.ipv4.tcp_no_ssthresh_metrics_save = 0), which a fresh namespace's \
                 first connection does not use: the kernel starts with an unlimited ssthresh"
                    .to_string(),
            );
        }
        // The receiver's route clamps the window it advertises (RTAX_WINDOW: its
        // `window_clamp`, tcp_select_initial_window()), so the kernel's receiver never offers
        // more than the scenario's window; autotuning (above) only decides how fast it gets there.
        let mut receiver_route =
            vec!["window".to_string(), tcp.receiver_window.clamp(1, u64::from(u32::MAX) / 2).to_string()];
        if tcp.delayed_ack.enabled {
            note(format!(
                "delayed ACKs: Linux's (every second full segment, adaptive 40-200 ms timeout, quick ACKs at the \
                 start) stand for the scenario's (every {} segments, {})",
                tcp.delayed_ack.every_segments,
                secs(tcp.delayed_ack.timeout)
            ));
        } else {
            receiver_route.extend(["quickack".to_string(), "1".to_string()]);
        }
        if tcp.rto.initial != NANOS_PER_SECOND {
            note(format!("rto_initial {}: Linux's initial RTO is 1 s", secs(tcp.rto.initial)));
        }
        if tcp.rto.max / 1_000_000 != rto_max_ms {
            note(format!(
                "rto_max {}: Linux allows 1..120 s (net.ipv4.tcp_rto_max_ms), {rto_max_ms} ms used",
                secs(tcp.rto.max)
            ));
        }
        note("clock_granularity: Linux's RTT and RTO arithmetic is in microseconds and jiffies".to_string());
        // The simulator's random send overhead stands for the timing noise of real hosts: the
        // kernel has its own (interrupts, softirqs, scheduling, the emulator's wake-ups), so
        // there is nothing to set and nothing to refuse.
        if tcp.overhead > 0 {
            note(format!(
                "overhead {} us: the simulator's random send delay against drop-tail phase effects is not \
                 applied to kernel TCP, whose sends carry a real host's own timing noise (interrupts, \
                 softirqs, scheduling, the emulator's wake-ups); the simulator's comparison run keeps it",
                tcp.overhead as f64 / 1e3
            ));
        }
        let stop = flow.stop.unwrap_or(scenario.duration).min(scenario.duration);
        flows.push(FlowPlan {
            name: flow.name.clone(),
            src_node: node(flow.src),
            dst_node: node(flow.dst),
            kernel_cc: kernel,
            scenario_cc: tcp.cc_name.clone(),
            recovery,
            window_growth: tcp.window_growth,
            limited_transmit: tcp.limited_transmit,
            sack,
            segment_size: tcp.segment_size,
            header_size: tcp.header_size,
            timestamps,
            mtu,
            // A random start is drawn as the simulator draws it, so both columns start alike.
            start: flow.start_at(scenario.seed),
            stop,
            data_path,
            ack_path,
            sender_sysctls,
            receiver_sysctls,
            optional_sysctls,
            sender_route,
            receiver_route,
        });
    }
    let used: std::collections::BTreeSet<u32> =
        flows.iter().flat_map(|f| f.data_path.iter().chain(&f.ack_path).copied()).collect();
    let unused: Vec<&str> = scenario
        .links
        .iter()
        .enumerate()
        .filter(|(i, _)| !used.contains(&(*i as u32)))
        .map(|(_, l)| l.name.as_str())
        .collect();
    if !unused.is_empty() {
        approximations.push(format!("links no flow crosses carry nothing: {}", unused.join(", ")));
    }
    if flows.iter().any(|f| (f.stop - f.start) % NANOS_PER_SECOND != 0) {
        approximations.push("iperf3 runs for whole seconds: flow durations are rounded up".to_string());
    }
    Ok(Plan { scenario: scenario.clone(), flows, approximations, kernel_params })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn load(name: &str, overrides: &[(&str, &str)]) -> Scenario {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
        let o: Vec<(String, String)> =
            overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        westwood_simulator::scenario::load_file(&path, &o).unwrap()
    }

    #[test]
    fn the_wireless_scenario_maps_onto_two_links_each_way() {
        let s = load("wireless.toml", &[("loss", "1%")]);
        let p = plan(&s, None).unwrap();
        assert_eq!(p.flows.len(), 1);
        let f = &p.flows[0];
        assert_eq!((f.kernel_cc.as_str(), f.sack, f.timestamps, f.mtu), ("reno", false, false, 440));
        assert_eq!(f.data_path, vec![0, 2], "wired, then wireless");
        assert_eq!(f.ack_path, vec![3, 1], "wireless.reverse, then wired.reverse");
        assert!(f.sender_route.windows(2).any(|w| w == ["initcwnd", "4"]));
        assert!(f.sender_route.windows(2).any(|w| w == ["rto_min", "1000ms"]));
        // Delayed ACKs on (no quickack); the advertised window clamped at the scenario's.
        assert_eq!(f.receiver_route, ["window", "1000000"]);
        let w = plan(&s, Some("tcpw")).unwrap();
        assert_eq!(w.flows[0].kernel_cc, "tcpw");
        assert!(w.flows[0].uses_bpf());
    }

    #[test]
    fn a_run_longer_than_iperf3_allows_is_refused_before_anything_is_set_up() {
        let s = load("wireless.toml", &[("scenario.duration", "200000s")]);
        let Err(Error::Usage(message)) = plan(&s, Some("reno")) else { panic!("a day is the limit") };
        assert!(message.contains("at most 86400 s") && message.contains("200000 s"), "{message}");
        assert!(plan(&load("wireless.toml", &[("scenario.duration", "86400s")]), None).is_ok());
    }

    #[test]
    fn connections_start_under_reno_whatever_the_host_default_so_nothing_inherits_pacing() {
        let s = load("wireless.toml", &[]);
        for cc in ["reno", "tcpw", "bbr"] {
            let f = &plan(&s, Some(cc)).unwrap().flows[0];
            for sysctls in [&f.sender_sysctls, &f.receiver_sysctls] {
                let default: Vec<&str> = sysctls
                    .iter()
                    .filter(|(k, _)| k == "net.ipv4.tcp_congestion_control")
                    .map(|(_, v)| v.as_str())
                    .collect();
                assert_eq!(default, ["reno"], "{cc}: {sysctls:?}");
            }
            assert_eq!(f.kernel_cc, cc, "iperf3 -C still switches to the flow's own");
        }
    }

    #[test]
    fn the_dumbbell_maps_every_flow_over_the_shared_bottleneck() {
        let s = load("dumbbell.toml", &[("flows", "3"), ("cc", "cubic")]);
        let p = plan(&s, None).unwrap();
        assert_eq!(p.flows.len(), 3);
        for f in &p.flows {
            assert_eq!((f.kernel_cc.as_str(), f.sack, f.mtu), ("cubic", true, 1040));
            assert_eq!(f.data_path, p.flows[0].data_path);
            assert_eq!(f.data_path.len(), 3);
        }
    }

    #[test]
    fn linux_growth_maps_onto_the_kernel_and_the_other_rules_are_one_approximation_each() {
        let growth_notes = |p: &Plan| p.approximations.iter().filter(|a| a.contains("window_growth")).count();
        // The default, per ACK: one line saying the kernel grows by the segments acknowledged.
        let p = plan(&load("wireless.toml", &[("loss", "1%")]), None).unwrap();
        assert_eq!(p.flows[0].window_growth, WindowGrowth::PerAck);
        assert_eq!(growth_notes(&p), 1, "{:?}", p.approximations);
        assert!(p.approximations.iter().any(|a| a.contains("\"per_ack\"") && a.contains("linux")));
        // Several flows with the same rule: still one line.
        let p = plan(&load("dumbbell.toml", &[("flows", "3")]), None).unwrap();
        assert_eq!(growth_notes(&p), 1, "{:?}", p.approximations);
        // RFC 3465's limit: one line about stretch ACKs.
        let p = plan(&load("wireless.toml", &[("tcp.window_growth", "byte_counting")]), None).unwrap();
        assert_eq!(p.flows[0].window_growth, WindowGrowth::ByteCounting);
        assert_eq!(growth_notes(&p), 1, "{:?}", p.approximations);
        assert!(p.approximations.iter().any(|a| a.contains("stretch ACK")), "{:?}", p.approximations);
        // Linux's rule is what the kernel does: nothing to approximate.
        let p = plan(&load("wireless.toml", &[("tcp.window_growth", "linux")]), None).unwrap();
        assert_eq!(p.flows[0].window_growth, WindowGrowth::Linux);
        assert_eq!(growth_notes(&p), 0, "{:?}", p.approximations);
    }

    #[test]
    fn a_send_overhead_is_one_approximation_not_a_refusal() {
        let notes = |p: &Plan| p.approximations.iter().filter(|a| a.contains("overhead")).count();
        let p = plan(&load("dumbbell.toml", &[("flows", "3")]), None).unwrap();
        assert_eq!(notes(&p), 0, "{:?}", p.approximations);
        let p = plan(&load("dumbbell.toml", &[("flows", "3"), ("tcp.overhead", "83us")]), None).unwrap();
        assert_eq!(notes(&p), 1, "one line for flows with the same overhead: {:?}", p.approximations);
        assert!(p.approximations.iter().any(|a| a.contains("overhead 83 us") && a.contains("not applied")));
    }

    #[test]
    fn limited_transmit_maps_onto_the_kernel_and_its_absence_is_one_approximation() {
        let notes = |p: &Plan| p.approximations.iter().filter(|a| a.contains("limited_transmit")).count();
        // The default, off (ns-2's): one line saying the kernel does it.
        let p = plan(&load("wireless.toml", &[("loss", "1%")]), None).unwrap();
        assert!(!p.flows[0].limited_transmit);
        assert_eq!(notes(&p), 1, "{:?}", p.approximations);
        assert!(p
            .approximations
            .iter()
            .any(|a| a.contains("limited_transmit = false") && a.contains("RFC 3042")));
        // Several flows: still one line.
        let p = plan(&load("dumbbell.toml", &[("flows", "3")]), None).unwrap();
        assert_eq!(notes(&p), 1, "{:?}", p.approximations);
        // On is what the kernel does: nothing to approximate.
        let p = plan(&load("wireless.toml", &[("tcp.limited_transmit", "true")]), None).unwrap();
        assert!(p.flows[0].limited_transmit);
        assert_eq!(notes(&p), 0, "{:?}", p.approximations);
    }

    #[test]
    fn every_westwood_variant_maps_to_its_kernel_program_with_its_parameters() {
        // Every registered control with a westwood-linux program, by either of its names.
        let bpf: Vec<_> = registry::entries()
            .into_iter()
            .filter(|e| e.kernel.is_some_and(|k| westwood_linux::Algo::from_name(k).is_some()))
            .collect();
        assert_eq!(bpf.len(), westwood_linux::Algo::all().len());
        for e in bpf {
            let kernel = e.kernel.unwrap();
            for name in [e.name, kernel] {
                let p = plan(&load("wireless.toml", &[("cc", name)]), None).unwrap();
                assert_eq!(
                    (p.flows[0].kernel_cc.as_str(), p.flows[0].scenario_cc.as_str()),
                    (kernel, e.name)
                );
                assert!(p.flows[0].uses_bpf());
            }
            assert_eq!(simulator_cc(kernel), Some(e.name));
        }
        assert_eq!(simulator_cc("reno"), Some("reno"));
        assert_eq!(simulator_cc("bbr"), None);
        assert_eq!(kernel_cc("sack"), Some("reno"));
        assert!(kernel_ccs().contains(&"bbr"));
        let p = plan(
            &load("wireless.toml", &[("cc", "westwood"), ("tcp.westwood", "{ tau = \"1s\", m = 2 }")]),
            None,
        )
        .unwrap();
        assert_eq!((p.kernel_params.tau_us, p.kernel_params.m), (Some(1_000_000), Some(2)));
        let p =
            plan(&load("wireless.toml", &[("cc", "tcpw_abse"), ("tcp.westwood_abse", "{ n = 4 }")]), None)
                .unwrap();
        assert_eq!(p.kernel_params.abse_n, Some(4));
        let p = plan(
            &load("wireless.toml", &[("cc", "tcpw_abse"), ("tcp.westwood_abse", "{ epsilon = 0.8 }")]),
            None,
        )
        .unwrap();
        assert!(p.approximations.iter().any(|a| a.contains("epsilon")), "{:?}", p.approximations);
        assert_eq!(
            plan(&load("wireless.toml", &[("cc", "reno")]), None).unwrap().kernel_params,
            Default::default()
        );
    }

    #[test]
    fn unmappable_scenarios_are_refused_with_every_reason() {
        let err = plan(&load("udp_onoff.toml", &[]), None).unwrap_err();
        assert_eq!(err.exit_code(), 2);
        assert!(err.to_string().contains("UDP sources"), "{err}");
        let err = plan(&load("multipath.toml", &[]), None).unwrap_err().to_string();
        assert!(err.contains("multipath"), "{err}");
        let err = plan(&load("multipath_grid.toml", &[]), None).unwrap_err().to_string();
        assert!(err.contains("arrivals"), "{err}");
        // CUBIC-free simulator names with no kernel program: none left among the Westwood family.
        let err = plan(&load("wireless.toml", &[("cc", "newreno")]), Some("vegas")).unwrap_err().to_string();
        assert!(err.contains("--cc vegas"), "{err}");
        assert!(plan(&load("wireless.toml", &[("cc", "tcpw_abse")]), Some("tcpw")).is_ok());
        let err = plan(&load("wireless.toml", &[("cc", "tahoe")]), None).unwrap_err().to_string();
        assert!(err.contains("Tahoe"), "{err}");
        let err = plan(&load("wireless.toml", &[]), Some("vegas")).unwrap_err().to_string();
        assert!(err.contains("--cc vegas"), "{err}");
    }
}
