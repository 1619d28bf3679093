//! The congestion controls this project knows, in one table.
//!
//! Each [`CcEntry`] says everything the rest of the project needs to know about a control: the
//! name scenarios use and outputs print, the Linux congestion control standing for it on real
//! TCP, the loss recovery and window inflation its reference pairs it with, the parameters a
//! scenario may set, and how to build it. The simulator's scenario loader, the test vectors,
//! the kernel core's tests, the testbed and the Python front end (through `_core`) read this
//! table; none of them keeps a list of its own.
//!
//! Adding a control is its file plus one line in [`BUILTIN`]. A control defined outside this
//! crate (a test, a research prototype) is added with [`register`], the way a Linux module
//! adds one with `tcp_register_congestion_control`: from then on every name lookup finds it.
//!
//! Names: [`lookup`] accepts an entry's scenario name or its kernel name (`tcpw` finds
//! `westwood`), in any case; [`CcEntry::name`] is the one name printed.

use std::sync::RwLock;

use crate::congestion::{CongestionControl, WindowConfig, WindowGrowth};
use crate::cubic::Cubic;
use crate::cubic_linux::LinuxCubic;
use crate::reno::Reno;
use crate::westwood::{self, AckedCountRule, BandwidthEstimator, Sampling, Westwood};

/// One congestion control.
#[derive(Debug)]
pub struct CcEntry {
    /// The name scenarios use (`cc = "westwood"`) and outputs print.
    pub name: &'static str,
    /// The Linux congestion control that stands for this one on real TCP (`iperf3 -C`), if
    /// any. Several entries may share one (`reno`, `newreno` and `sack` are all Linux `reno`,
    /// whose loss recovery is the kernel's own); as a name it finds the first of them.
    pub kernel: Option<&'static str>,
    /// The kernel twin is one of this project's eBPF congestion controls (kernel/tcpw.bpf.c,
    /// registered by `westwood linux load`), not one Linux ships: what the loader, the testbed
    /// and `westwood measure` must load before they can use [`CcEntry::kernel`]. `None`: Linux's
    /// own, or no twin.
    pub ebpf: Option<EbpfProgram>,
    /// The loss recovery the control's reference pairs it with, when a scenario names none:
    /// one of the simulator's recovery names (`reno`, `newreno`, `sack`, `tahoe`).
    pub default_recovery: &'static str,
    /// The sender's keys the control's reference fixes, as a scenario writes them
    /// (`("fast_recovery_inflation", "false")`): they apply when a scenario does not set the key
    /// itself, and a TCP profile leaves them alone. Most controls fix none; the UCLA agents fix
    /// what their ns-2 code does around the control (docs/westwood.md).
    pub reference_tcp: &'static [(&'static str, &'static str)],
    /// The scenario table holding the control's parameters (`[tcp] westwood = { ... }`) and what
    /// it may hold; `None`: the control takes none.
    pub parameters: Option<ParameterTable>,
    /// A fresh control with these parameters (only keys of [`CcEntry::parameters`], already
    /// checked against their [`ParamKind`]) and, for the Westwood family, the AckedCount rule a
    /// scenario chose (`None`: the reference's).
    pub build: fn(WindowConfig, &ParamValues, Option<AckedCountRule>) -> Box<dyn CongestionControl>,
}

/// One of this project's eBPF congestion controls, as the loader (`crates/linux`) knows it: the
/// struct_ops map `<kernel name>_ops` of kernel/tcpw.bpf.c registers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EbpfProgram {
    /// Its id in the watch and trace records (`TCPW_ALGO_*` in kernel/tcpw.bpf.c).
    pub id: u8,
    /// What it is and where it comes from, one line (`westwood-linux status`, its usage text).
    pub summary: &'static str,
    /// The loader's parameters it reads (`crates/linux` `Params`, as `westwood-linux load`'s
    /// flags name them without their unit): what its registration is recorded with.
    pub parameters: &'static [&'static str],
}

impl PartialEq for CcEntry {
    /// Entries are told apart by name: [`register`] refuses a second entry with a known one.
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl CcEntry {
    /// The control with its default parameters and its reference's AckedCount rule.
    pub fn build_default(&self, config: WindowConfig) -> Box<dyn CongestionControl> {
        (self.build)(config, &ParamValues::default(), None)
    }
}

/// The parameters a control takes, as one scenario table.
#[derive(Debug, Clone, Copy)]
pub struct ParameterTable {
    /// The table's key (`westwood_abse`); several entries may share one (the UCLA agents).
    pub key: &'static str,
    /// Its keys, in the order error messages list them.
    pub params: &'static [Param],
}

/// One parameter of a control.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    pub key: &'static str,
    pub kind: ParamKind,
}

/// What a parameter holds, which decides how a scenario writes it and what it may be.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamKind {
    /// A filter time constant (tau, ABSE's T_min, Westwood+'s minimum window): a duration of at
    /// least 1 ms, since the filters take a (virtual) sample every fraction of it.
    FilterTime,
    /// A clock tick: a duration of at least the simulator's smallest state duration.
    ClockTick,
    /// A duration above zero.
    Duration,
    /// A whole number in `[min, max]`; `beyond` says why larger values make no sense.
    Integer { min: u32, max: u32, beyond: &'static str },
    /// A real number in `[min, max]`.
    Number { min: f64, max: f64 },
    /// A rate in bits/s, or `"auto"` (stored as `None`).
    RateOrAuto,
    /// Which samples a Tustin step averages ([`Sampling`], docs/westwood.md).
    Sampling,
    /// Which AckedCount rule runs ([`AckedCountRule`], docs/westwood.md). Not kept in
    /// [`ParamValues`]: it is the `acked_count` argument of [`CcEntry::build`].
    AckedCount,
}

/// A parameter's value, in the unit its kind implies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ParamValue {
    /// Durations, ns.
    Nanos(u64),
    Integer(u32),
    Number(f64),
    /// Bits/s; `None`: automatic.
    Rate(Option<f64>),
    Sampling(Sampling),
}

/// The parameters a scenario set for a control, by key (those it did not set keep the
/// control's defaults).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamValues(Vec<(&'static str, ParamValue)>);

impl ParamValues {
    /// Set `key` (replacing an earlier value).
    pub fn set(&mut self, key: &'static str, value: ParamValue) {
        self.0.retain(|(k, _)| *k != key);
        self.0.push((key, value));
    }

    pub fn with(mut self, key: &'static str, value: ParamValue) -> Self {
        self.set(key, value);
        self
    }

    pub fn get(&self, key: &str) -> Option<ParamValue> {
        self.0.iter().find(|(k, _)| *k == key).map(|&(_, v)| v)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// A duration set for `key`, ns.
    pub fn nanos(&self, key: &str) -> Option<u64> {
        match self.get(key)? {
            ParamValue::Nanos(ns) => Some(ns),
            other => panic!("{key}: a duration, not {other:?}"),
        }
    }

    pub fn integer(&self, key: &str) -> Option<u32> {
        match self.get(key)? {
            ParamValue::Integer(n) => Some(n),
            other => panic!("{key}: a whole number, not {other:?}"),
        }
    }

    pub fn number(&self, key: &str) -> Option<f64> {
        match self.get(key)? {
            ParamValue::Number(x) => Some(x),
            other => panic!("{key}: a number, not {other:?}"),
        }
    }

    /// A rate-or-auto set for `key`: `Some(None)` is `"auto"`.
    pub fn rate(&self, key: &str) -> Option<Option<f64>> {
        match self.get(key)? {
            ParamValue::Rate(r) => Some(r),
            other => panic!("{key}: a rate, not {other:?}"),
        }
    }

    pub fn sampling(&self, key: &str) -> Option<Sampling> {
        match self.get(key)? {
            ParamValue::Sampling(s) => Some(s),
            other => panic!("{key}: a sampling, not {other:?}"),
        }
    }
}

/// A Westwood variant over `estimator`, with the scenario's AckedCount rule, else its
/// reference's.
fn westwood_with<E: BandwidthEstimator + 'static>(
    config: WindowConfig,
    estimator: E,
    rule: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    match rule {
        Some(rule) => Box::new(Westwood::with_acked_count_rule(config, estimator, rule)),
        None => Box::new(Westwood::new(config, estimator)),
    }
}

fn build_reno(
    config: WindowConfig,
    _: &ParamValues,
    _: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    Box::new(Reno::new(config))
}

/// RFC 9438's CUBIC, or with Linux's window growth (the `linux` profile) the kernel's own
/// (`tcp_cubic.c`, [`LinuxCubic`]), whose integer arithmetic differs at small windows, with
/// HyStart unless `hystart = 0` (the kernel module's parameter of that name).
fn build_cubic(
    config: WindowConfig,
    p: &ParamValues,
    _: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    match config.window_growth {
        WindowGrowth::Linux if p.integer("hystart") == Some(0) => {
            Box::new(LinuxCubic::new(config).without_hystart())
        }
        WindowGrowth::Linux => Box::new(LinuxCubic::new(config)),
        WindowGrowth::PerAck | WindowGrowth::ByteCounting => Box::new(Cubic::new(config)),
    }
}

/// CUBIC's table (`[tcp] cubic = { hystart = 0 }`): what `tcp_cubic.c`'s module parameter
/// `hystart` says; read with Linux's window growth only (RFC 9438's CUBIC has no HyStart).
const CUBIC_PARAMS: &[Param] = &[Param {
    key: "hystart",
    kind: ParamKind::Integer { min: 0, max: 1, beyond: "it is a switch: 1 (the kernel's default) or 0" },
}];

fn build_tcpw(
    config: WindowConfig,
    p: &ParamValues,
    rule: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    westwood_with(config, westwood::TcpwEstimator::new(westwood::TcpwParams::from_values(p)), rule)
}

fn build_tr(
    config: WindowConfig,
    p: &ParamValues,
    rule: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    westwood_with(config, westwood::TrEstimator::with_params(westwood::TrParams::from_values(p)), rule)
}

fn build_abse(
    config: WindowConfig,
    p: &ParamValues,
    rule: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    westwood_with(config, westwood::AbseEstimator::new(westwood::AbseParams::from_values(p)), rule)
}

fn build_plus(
    config: WindowConfig,
    p: &ParamValues,
    rule: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    westwood_with(config, westwood::WestwoodPlusEstimator::new(westwood::PlusParams::from_values(p)), rule)
}

fn build_ucla(
    config: WindowConfig,
    p: &ParamValues,
    rule: Option<AckedCountRule>,
) -> Box<dyn CongestionControl> {
    westwood_with(config, westwood::UclaEstimator::new(westwood::UclaParams::from_values(p)), rule)
}

/// A control that takes no parameters.
const fn plain(
    name: &'static str,
    kernel: Option<&'static str>,
    default_recovery: &'static str,
    build: fn(WindowConfig, &ParamValues, Option<AckedCountRule>) -> Box<dyn CongestionControl>,
) -> CcEntry {
    CcEntry { name, kernel, ebpf: None, default_recovery, reference_tcp: &[], parameters: None, build }
}

/// A control whose parameters go in the table `key` (CUBIC; the Westwood variants through
/// [`ours`]).
const fn with_table(
    name: &'static str,
    kernel: Option<&'static str>,
    default_recovery: &'static str,
    key: &'static str,
    params: &'static [Param],
    build: fn(WindowConfig, &ParamValues, Option<AckedCountRule>) -> Box<dyn CongestionControl>,
) -> CcEntry {
    CcEntry {
        name,
        kernel,
        ebpf: None,
        default_recovery,
        reference_tcp: &[],
        parameters: Some(ParameterTable { key, params }),
        build,
    }
}

/// A control with a table whose kernel twin is this project's eBPF program `kernel`.
const fn ours(
    name: &'static str,
    kernel: &'static str,
    program: EbpfProgram,
    default_recovery: &'static str,
    key: &'static str,
    params: &'static [Param],
    build: fn(WindowConfig, &ParamValues, Option<AckedCountRule>) -> Box<dyn CongestionControl>,
) -> CcEntry {
    CcEntry { ebpf: Some(program), ..with_table(name, Some(kernel), default_recovery, key, params, build) }
}

// The eBPF twins, with their ids in kernel/tcpw.bpf.c's records.
const TCPW: EbpfProgram = EbpfProgram {
    id: 1,
    summary: "TCPW (seed 000): Tustin filter, alpha_k from the ACK gap, virtual samples",
    parameters: &["tau_us", "m", "sample"],
};
const TCPW_PLUS: EbpfProgram = EbpfProgram {
    id: 2,
    summary: "Westwood+: one bandwidth sample per RTT, two 7/8 EWMAs",
    parameters: &["plus_min_window_us"],
};
const TCPW_TR: EbpfProgram = EbpfProgram {
    id: 3,
    summary: "TCPW-TR (seed 001): constant-gain filter, threshold reduction factor a",
    parameters: &["tr_ratio"],
};
const TCPW_ABSE: EbpfProgram = EbpfProgram {
    id: 4,
    summary: "TCPW ABSE (seed 004): adaptive sampling interval and filter gain",
    parameters: &["abse_t_min_us", "abse_n"],
};

/// The UCLA agents' table (`westwood-ucla` and `westwood-ucla-nr` share it).
const UCLA_TABLE: ParameterTable =
    ParameterTable { key: "westwood_ucla", params: westwood::UclaParams::SCHEMA };

/// Every built-in control, in the order documentation and error messages list them.
pub static BUILTIN: &[CcEntry] = &[
    plain("reno", Some("reno"), "reno", build_reno),
    plain("newreno", Some("reno"), "newreno", build_reno),
    // The "TCP Tahoe" and "TCP SACK" of the papers (Fall & Floyd 1996): Reno's window rules,
    // Tahoe's or RFC 6675's loss recovery.
    plain("tahoe", None, "tahoe", build_reno),
    plain("sack", Some("reno"), "sack", build_reno),
    // RFC 9438 leaves loss recovery to the sender. CUBIC stands for today's Linux default,
    // which recovers with SACK (RFC 6675); with NewReno, its slow-start overshoot costs one RTT
    // per hole.
    with_table("cubic", Some("cubic"), "sack", "cubic", CUBIC_PARAMS, build_cubic),
    // Seed 000 §3.1: "The standard Fast Retransmit/Fast Recovery (a la Reno) then follows".
    ours("westwood", "tcpw", TCPW, "reno", "westwood", westwood::TcpwParams::SCHEMA, build_tcpw),
    // Seed 001 builds on Reno as well.
    ours("westwood-tr", "tcpw_tr", TCPW_TR, "reno", "westwood_tr", westwood::TrParams::SCHEMA, build_tr),
    // Seed 004 §2: "a sender-only modification of TCP NewReno".
    ours(
        "westwood-abse",
        "tcpw_abse",
        TCPW_ABSE,
        "newreno",
        "westwood_abse",
        westwood::AbseParams::SCHEMA,
        build_abse,
    ),
    // Westwood+ was evaluated over, and Linux runs it with, NewReno-style recovery.
    ours(
        "westwood-plus",
        "tcpw_plus",
        TCPW_PLUS,
        "newreno",
        "westwood_plus",
        westwood::PlusParams::SCHEMA,
        build_plus,
    ),
    // The UCLA ns-2 module (tcp-westwood.cc v1.3), docs/westwood.md. Agent/TCP/Westwood is a
    // Reno agent whose recv() never touches dupwnd_ (no inflation), never calls send_one() (no
    // limited transmit) and has no bug_fix_ test before dupack_action() (a second fast
    // retransmit in one window is allowed).
    CcEntry {
        name: "westwood-ucla",
        kernel: None,
        ebpf: None,
        default_recovery: "reno",
        reference_tcp: &[
            ("fast_recovery_inflation", "false"),
            ("limited_transmit", "false"),
            ("repeat_fast_retransmit", "true"),
        ],
        parameters: Some(UCLA_TABLE),
        build: build_ucla,
    },
    // Agent/TCP/WestwoodNR is ns-2's NewReno agent with the UCLA dupack_action(): on ns-2.35 its
    // dupwnd_ counts only the DUPACKs after the fast retransmit and a partial ACK drops it
    // (partial_window_deflation_ 0), and every partial ACK restarts the timer
    // (newreno_changes1_ 0): the class has no defaults of its own for those two.
    CcEntry {
        name: "westwood-ucla-nr",
        kernel: None,
        ebpf: None,
        default_recovery: "newreno",
        reference_tcp: &[("fast_recovery_inflation", "later_dupacks"), ("partial_ack_timer", "every")],
        parameters: Some(UCLA_TABLE),
        build: build_ucla,
    },
];

/// The controls added with [`register`], after the built-in ones.
static REGISTERED: RwLock<Vec<&'static CcEntry>> = RwLock::new(Vec::new());

/// Every control: the built-in ones, then the registered ones, in registration order.
pub fn entries() -> Vec<&'static CcEntry> {
    let registered = REGISTERED.read().unwrap_or_else(|e| e.into_inner());
    BUILTIN.iter().chain(registered.iter().copied()).collect()
}

/// The control named `name` (an entry's scenario or kernel name; case and surrounding blanks
/// do not matter). A kernel name shared by several entries finds the first.
pub fn lookup(name: &str) -> Option<&'static CcEntry> {
    let name = name.trim();
    let all = entries();
    all.iter()
        .find(|e| e.name.eq_ignore_ascii_case(name))
        .or_else(|| all.iter().find(|e| e.kernel.is_some_and(|k| k.eq_ignore_ascii_case(name))))
        .copied()
}

/// The kernel names of this project's eBPF congestion controls ([`CcEntry::ebpf`]), in the
/// order [`entries`] lists them: what `westwood linux load all` registers.
pub fn ebpf_kernel_names() -> Vec<&'static str> {
    ebpf_programs().into_iter().map(|(name, _)| name).collect()
}

/// This project's eBPF congestion controls: each kernel name with its program, in the registry's
/// order.
pub fn ebpf_programs() -> Vec<(&'static str, EbpfProgram)> {
    entries().iter().filter_map(|e| Some((e.kernel?, e.ebpf?))).collect()
}

/// The names scenarios use, in the order [`entries`] lists them.
pub fn names() -> Vec<&'static str> {
    entries().iter().map(|e| e.name).collect()
}

/// Why [`register`] refused an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTaken(pub String);

impl std::fmt::Display for NameTaken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "congestion control {} is already registered", self.0)
    }
}

impl std::error::Error for NameTaken {}

/// Add a control defined outside this crate: from now on [`lookup`] finds it in this process.
/// Refused if its name (or kernel name) already finds a control, so a name never changes
/// meaning.
pub fn register(entry: &'static CcEntry) -> Result<(), NameTaken> {
    let mut registered = REGISTERED.write().unwrap_or_else(|e| e.into_inner());
    let taken = |name: &str| {
        BUILTIN.iter().chain(registered.iter().copied()).any(|e| {
            e.name.eq_ignore_ascii_case(name) || e.kernel.is_some_and(|k| k.eq_ignore_ascii_case(name))
        })
    };
    if let Some(name) = std::iter::once(entry.name).chain(entry.kernel).find(|n| taken(n)) {
        return Err(NameTaken(name.to_string()));
    }
    registered.push(entry);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::congestion::{AckEvent, CongestionEvent};

    fn config() -> WindowConfig {
        WindowConfig {
            mss: 1000,
            initial_cwnd: 4000,
            initial_ssthresh: u64::MAX,
            window_growth: WindowGrowth::PerAck,
        }
    }

    #[test]
    fn scenario_and_kernel_names_find_one_entry_which_prints_its_scenario_name() {
        assert_eq!(lookup("tcpw").unwrap().name, "westwood");
        // This project's eBPF programs, the kernel names nothing else spells out.
        assert_eq!(ebpf_kernel_names(), ["tcpw", "tcpw_tr", "tcpw_abse", "tcpw_plus"]);
        assert!(lookup("reno").unwrap().ebpf.is_none() && lookup("cubic").unwrap().ebpf.is_none());
        assert_eq!(lookup(" TCPW_ABSE ").unwrap().name, "westwood-abse");
        assert_eq!(lookup("Westwood-Plus").unwrap().name, "westwood-plus");
        // Linux reno stands for three recoveries; as a name it is plain reno.
        assert_eq!(lookup("reno").unwrap().name, "reno");
        assert_eq!(lookup("newreno").unwrap().kernel, Some("reno"));
        assert!(lookup("vegas").is_none());
    }

    #[test]
    fn names_are_unique_and_every_parameter_table_is_one_schema() {
        let mut seen = std::collections::HashSet::new();
        for e in BUILTIN {
            assert!(seen.insert(e.name), "{} twice", e.name);
        }
        // Entries that share a table share its schema, so a table means one thing.
        for a in BUILTIN {
            for b in BUILTIN {
                if let (Some(ta), Some(tb)) = (a.parameters, b.parameters) {
                    if ta.key == tb.key {
                        assert_eq!(ta.params, tb.params, "{} and {}", a.name, b.name);
                    }
                }
            }
        }
    }

    #[test]
    fn every_entry_builds_a_working_control_with_its_defaults() {
        for e in BUILTIN {
            let mut cc = e.build_default(config());
            assert_eq!(cc.cwnd(), 4000, "{}", e.name);
            cc.on_ack(&AckEvent {
                now_ns: 1_000_000,
                ack_seq: 1000,
                newly_acked_bytes: 1000,
                newly_delivered_bytes: 1000,
                is_dupack: false,
                rtt_sample_ns: Some(50_000_000),
                in_recovery: false,
                bytes_in_flight: 4000,
                cwnd_limited: true,
            });
            assert!(cc.cwnd() > 4000, "{}: slow start grows the window", e.name);
            cc.on_congestion(CongestionEvent::Timeout {
                now_ns: 2_000_000,
                bytes_in_flight: 5000,
                repeated: false,
            });
            assert_eq!(cc.cwnd(), 1000, "{}: one segment after a timeout", e.name);
        }
    }

    #[test]
    fn parameters_reach_the_control() {
        // ABSE with a fixed U_max behaves differently from its running maximum: build both and
        // check the values went through (the estimator keeps them).
        let tcpw = lookup("westwood").unwrap();
        let p = ParamValues::default()
            .with("tau", ParamValue::Nanos(1_000_000_000))
            .with("m", ParamValue::Integer(4));
        assert_eq!(
            westwood::TcpwParams::from_values(&p),
            westwood::TcpwParams { tau_ns: 1_000_000_000, m: 4, ..Default::default() }
        );
        let _ = (tcpw.build)(config(), &p, Some(AckedCountRule::Ucla));
    }

    #[test]
    fn registering_adds_a_name_and_refuses_a_taken_one() {
        static LATE: CcEntry = CcEntry {
            name: "registry-test-late",
            kernel: Some("registry_test_late"),
            ebpf: None,
            default_recovery: "newreno",
            reference_tcp: &[],
            parameters: None,
            build: build_reno,
        };
        static CLASH: CcEntry = CcEntry { name: "tcpw", ..LATE };
        register(&LATE).unwrap();
        assert_eq!(lookup("REGISTRY_TEST_LATE").unwrap().name, "registry-test-late");
        assert_eq!(names().last(), Some(&"registry-test-late"));
        assert_eq!(register(&LATE), Err(NameTaken("registry-test-late".into())));
        assert_eq!(register(&CLASH), Err(NameTaken("tcpw".into())));
    }
}
