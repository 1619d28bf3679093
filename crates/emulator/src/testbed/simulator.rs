//! The simulator beside a testbed run: the scenario it runs (the `linux` profile, except what
//! the user set and what the kernel is configured with), its run, and how the two were set up.

use super::*;

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
pub(crate) fn user_sets(overrides: &[(String, String)], key: &str) -> bool {
    user_value(overrides, key).is_some()
}

/// The value of the user's last `--set` override of `key` (as [`user_sets`] finds it).
pub(crate) fn user_value<'a>(overrides: &'a [(String, String)], key: &str) -> Option<&'a str> {
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
pub(crate) fn tcp_specs_mut(scenario: &mut Scenario) -> impl Iterator<Item = &mut TcpSpec> {
    scenario.flows.iter_mut().map(|f| &mut f.tcp).chain(scenario.arrivals.iter_mut().map(|a| &mut a.tcp))
}

/// Distinct values, sorted, joined by commas.
pub(crate) fn used(mut names: Vec<String>) -> String {
    names.sort();
    names.dedup();
    names.join(",")
}

/// How the simulator's run was set up, for the console.
pub(crate) fn describe_setup(setup: &SimulatorSetup) -> String {
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
pub(crate) fn run_error(e: westwood_simulator::RunError, failing: &str) -> Error {
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
