//! `load` and `unload`.
//!
//! Everything lives in bpffs under [`PIN_DIR`] (/sys/fs/bpf/westwood):
//!
//! | pin             | what                                                               |
//! |-----------------|--------------------------------------------------------------------|
//! | `tcpw`, `tcpw_tr`, `tcpw_abse`, `tcpw_plus` | the struct_ops link of each congestion control |
//! | `sk_storage`    | the socket-local storage map the programs write for `watch`         |
//! | `abse_storage`  | tcpw_abse's per-socket estimator state                              |
//! | `acks`          | the per-ACK trace's ring buffer (absent where the kernel refused it)|
//! | `trace_ctl`, `counters` | the trace switch; connection ids and dropped-record counts  |
//! | `watch` or `watch_tcp` | the iterator `watch` reads (absent where none loads)         |
//!
//! Registration comes first and never depends on observation: the congestion controls are one
//! object (kernel/tcpw.bpf.c), loaded with the trace's ring buffer or, if the kernel refuses that,
//! without it; the watch iterator is a second object (kernel/tcpw_watch.bpf.c) loaded after the
//! controls are registered, trying the socket-storage iterator, then the TCP iterator, and
//! leaving `watch` to explain when neither loads.
//!
//! A struct_ops link keeps its congestion control registered while it exists; the pin is its only
//! reference once `load` exits, so removing the pin unregisters it. Sockets that use the algorithm
//! at that moment keep it (they hold the struct_ops map and programs) until they close; new
//! sockets can no longer choose it. Loading another algorithm later loads the object again and
//! reuses the pinned maps. On kernels before 6.4 (no struct_ops links) the struct_ops map itself
//! is registered and pinned instead, and `unload` deletes its element (the map form; untested
//! here — this machine runs 6.18).

use std::fs;
use std::mem::MaybeUninit;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use libbpf_rs::skel::{OpenSkel, Skel, SkelBuilder};
use libbpf_rs::MapCore;

pub use crate::pins::{
    ensure_bpffs, map_pin_path, pinned_algos, pinned_watch, trace_status, watch_pin_path, Algo, SharedMap,
    PIN_DIR,
};
use crate::prereq;
use crate::probe::{self, disable_trace, Feature, WatchKind};
use crate::skel::{OpenTcpwSkel, TcpwSkelBuilder};
use crate::{Error, Result};

/// BPF_F_LINK (uapi): a struct_ops map registered through a link.
const BPF_F_LINK: u32 = 1 << 13;

/// Filter parameters, set in the object's read-only data before it loads (None: the default of
/// kernel/westwood_core.h, which is the Rust reference's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Params {
    /// tcpw: filter time constant tau, us (500 ms).
    pub tau_us: Option<u32>,
    /// tcpw: a virtual sample every tau/m of silence (m >= 2, default 2).
    pub m: Option<u32>,
    /// tcpw: the filter's input (default the paper's trapezoid; docs/westwood.md).
    pub sample: Option<Sample>,
    /// tcpw_tr: time constant over sampling time (10: alpha = 19/21).
    pub tr_ratio: Option<u32>,
    /// tcpw_abse: T_min, us (50 ms).
    pub abse_t_min_us: Option<u32>,
    /// tcpw_abse: N in tau_k = RTT (1 + N U/U_max) (10).
    pub abse_n: Option<u32>,
    /// tcpw_plus: shortest sampling window, us (50 ms).
    pub plus_min_window_us: Option<u32>,
}

impl Params {
    pub fn validate(&self) -> Result<()> {
        if let Some(m) = self.m {
            if m < 2 {
                return Err(Error::Usage(format!("--m {m}: m must be at least 2 (Nyquist, seed 000 §2.2)")));
            }
        }
        let in_range = |v: Option<u32>, what: &str| -> Result<()> {
            match v {
                Some(us) if us == 0 || us > 1_000_000_000 => {
                    Err(Error::Usage(format!("{what} must be in (0, 1000000] ms")))
                }
                _ => Ok(()),
            }
        };
        in_range(self.tau_us, "--tau-ms")?;
        in_range(self.abse_t_min_us, "--abse-t-min-ms")?;
        in_range(self.plus_min_window_us, "--plus-min-window-ms")?;
        if let Some(r) = self.tr_ratio {
            if !(1..=1000).contains(&r) {
                return Err(Error::Usage(format!(
                    "--tr-ratio {r}: the ratio must be in [1, 1000] (seed 001: 10)"
                )));
            }
        }
        if let Some(n) = self.abse_n {
            if n > 1000 {
                return Err(Error::Usage(format!(
                    "--abse-n {n}: N must be in [0, 1000] (seed 004: tau_k <= (1+N) RTT)"
                )));
            }
        }
        Ok(())
    }

    /// Every parameter left to its default (the papers' values).
    pub fn is_default(&self) -> bool {
        *self == Params::default()
    }
}

/// Where the parameters of each registration are recorded. bpffs holds no regular files, so
/// they live in /run, which, like bpffs, is emptied at boot: a record never outlives its pin.
pub const PARAMS_DIR: &str = "/run/westwood-linux";

fn params_record_path(algo: Algo) -> PathBuf {
    Path::new(PARAMS_DIR).join(format!("{}.params", algo.name()))
}

/// The parameters `algo` was registered with, if it was registered by a version that records
/// them.
pub fn registered_params(algo: Algo) -> Option<String> {
    fs::read_to_string(params_record_path(algo)).ok().map(|s| s.trim().to_string())
}

/// The values `algo` runs with under `params`, as one line: the object's own defaults (the
/// read-only data of kernel/tcpw.bpf.c) with `params` applied as [`set_params`] applies them at
/// load. What a registration is recorded with, so that a later load can tell whether the
/// registered program is the one it asks for.
pub fn effective_params(algo: Algo, params: &Params) -> Result<String> {
    let mut object = MaybeUninit::uninit();
    let mut open = TcpwSkelBuilder::default()
        .open(&mut object)
        .map_err(|e| Error::failed("opening the BPF object", e))?;
    set_params(&mut open, params);
    let Some(r) = open.maps.rodata_data.as_deref() else {
        return Err(Error::Failed("the BPF object has no read-only data".into()));
    };
    // Every parameter of the object, as `NAME=VALUE`; a program reads those the registry lists
    // for it (`EbpfProgram::parameters`), in this order.
    let all = [
        ("tau_us", r.tcpw_tau_us.to_string()),
        ("m", r.tcpw_m.to_string()),
        ("sample", Sample::from_wire(r.tcpw_sample).map_or("unknown", Sample::name).to_string()),
        ("tr_ratio", r.tcpw_tr_ratio.to_string()),
        ("abse_t_min_us", r.tcpw_abse_t_min_us.to_string()),
        ("abse_n", r.tcpw_abse_n.to_string()),
        ("plus_min_window_us", r.tcpw_plus_min_window_us.to_string()),
    ];
    if let Some(unknown) = algo.parameters().iter().find(|p| !all.iter().any(|(name, _)| name == *p)) {
        return Err(Error::Failed(format!(
            "the registry gives {} a parameter {unknown} this loader does not set",
            algo.name()
        )));
    }
    let mine: Vec<String> = all
        .iter()
        .filter(|(name, _)| algo.parameters().contains(name))
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    Ok(mine.join(" "))
}

fn record_params(algo: Algo, effective: &str) -> Result<()> {
    fs::create_dir_all(PARAMS_DIR).map_err(|e| Error::failed(format!("cannot create {PARAMS_DIR}"), e))?;
    let path = params_record_path(algo);
    fs::write(&path, format!("{effective}\n"))
        .map_err(|e| Error::failed(format!("writing {}", path.display()), e))
}

/// The TCPW filter's input: seed 000's trapezoid `(b_k + b_{k-1})/2`, or each sample weighted
/// by its own interval (`westwood_algorithms::westwood::Sampling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sample {
    Trapezoid,
    Interval,
}

impl Sample {
    pub fn parse(s: &str) -> Option<Sample> {
        [Sample::Trapezoid, Sample::Interval].into_iter().find(|v| v.name() == s)
    }

    pub fn name(self) -> &'static str {
        match self {
            Sample::Trapezoid => "trapezoid",
            Sample::Interval => "interval",
        }
    }

    fn from_wire(wire: u32) -> Option<Sample> {
        [Sample::Trapezoid, Sample::Interval].into_iter().find(|v| v.wire() == wire)
    }

    /// WWC_SAMPLE_* of kernel/westwood_core.h.
    fn wire(self) -> u32 {
        match self {
            Sample::Trapezoid => 0,
            Sample::Interval => 1,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub algos: Vec<Algo>,
    pub params: Params,
}

/// How the tcpw* sockets can be observed after a load.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observation {
    /// Through this iterator, pinned.
    Watch(WatchKind),
    /// Not at all: why, per way tried.
    Unavailable(Vec<String>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadReport {
    /// Registered by this call.
    pub loaded: Vec<Algo>,
    /// Already registered (pinned) before.
    pub already: Vec<Algo>,
    pub observation: Observation,
    /// The per-ACK trace: available, or why not.
    pub trace: std::result::Result<(), String>,
}

/// Pins created so far; removed again unless the load completes.
struct Rollback(Vec<PathBuf>);

impl Drop for Rollback {
    fn drop(&mut self) {
        for p in self.0.iter().rev() {
            let _ = fs::remove_file(p);
        }
    }
}

fn set_params(open: &mut OpenTcpwSkel<'_>, p: &Params) {
    let Some(rodata) = open.maps.rodata_data.as_deref_mut() else { return };
    if let Some(v) = p.tau_us {
        rodata.tcpw_tau_us = v;
    }
    if let Some(v) = p.m {
        rodata.tcpw_m = v;
    }
    if let Some(v) = p.sample {
        rodata.tcpw_sample = v.wire();
    }
    if let Some(v) = p.tr_ratio {
        rodata.tcpw_tr_ratio = v;
    }
    if let Some(v) = p.abse_t_min_us {
        rodata.tcpw_abse_t_min_us = v;
    }
    if let Some(v) = p.abse_n {
        rodata.tcpw_abse_n = v;
    }
    if let Some(v) = p.plus_min_window_us {
        rodata.tcpw_plus_min_window_us = v;
    }
}

fn shared_map<'a, 'obj>(
    open: &'a mut OpenTcpwSkel<'obj>,
    m: SharedMap,
) -> &'a mut libbpf_rs::OpenMapMut<'obj> {
    match m {
        SharedMap::SkStorage => &mut open.maps.tcpw_sk_stor,
        SharedMap::AbseStorage => &mut open.maps.tcpw_abse_stor,
        SharedMap::Acks => &mut open.maps.tcpw_acks,
        SharedMap::TraceCtl => &mut open.maps.tcpw_trace_ctl,
        SharedMap::Counters => &mut open.maps.tcpw_counters,
    }
}

/// Open the congestion controls' object for `to_load`: parameters, pinned maps reused, the other
/// struct_ops maps left out; without the ring buffer unless `trace`.
fn open_controls<'obj>(
    object: &'obj mut MaybeUninit<libbpf_rs::OpenObject>,
    to_load: &[Algo],
    params: &Params,
    trace: bool,
    link_form: bool,
) -> Result<OpenTcpwSkel<'obj>> {
    let mut open =
        TcpwSkelBuilder::default().open(object).map_err(|e| Error::failed("opening the BPF object", e))?;
    set_params(&mut open, params);
    if !trace {
        disable_trace(&mut open)?;
    }
    for m in SharedMap::ALL {
        if m == SharedMap::Acks && !trace {
            continue;
        }
        if m.pin_path().exists() {
            shared_map(&mut open, m).reuse_pinned_map(m.pin_path()).map_err(|e| {
                Error::failed(
                    format!("reusing {} (left by another version? run unload)", m.pin_path().display()),
                    e,
                )
            })?;
        }
    }
    // The struct_ops maps (`<name>_ops`) of `to_load` are created, the others are not; one of
    // `to_load` whose map this build's object lacks is an error that names it.
    let mut missing: Vec<Algo> = to_load.to_vec();
    for mut map in open.open_object_mut().maps_mut() {
        if map.map_type() != libbpf_rs::MapType::StructOps {
            continue;
        }
        match missing.iter().position(|a| map.name() == a.struct_ops_map().as_str()) {
            None => map.set_autocreate(false)?,
            Some(i) => {
                missing.remove(i);
                if !link_form {
                    let flags = map.map_flags() & !BPF_F_LINK;
                    map.set_map_flags(flags)?;
                }
            }
        }
    }
    if let Some(a) = missing.first() {
        return Err(Error::Failed(format!(
            "the registry names {} an eBPF program, but this build's kernel/tcpw.bpf.c has no struct_ops map {}",
            a.name(),
            a.struct_ops_map()
        )));
    }
    Ok(open)
}

/// Where loads and unloads take turns (tmpfs: gone at reboot, as the pins are).
pub const LOAD_LOCK_PATH: &str = "/run/westwood-linux-load.lock";

/// Hold the load lock until the returned file is dropped: two `load`s at once would both find
/// a pin missing and both create it (the second failed with "pinning .../sk_storage: File
/// exists"), and an `unload` could remove what a `load` is pinning. The second waits, then
/// finds the first's pins.
fn load_lock() -> Result<fs::File> {
    crate::lockfile::lock(
        Path::new(LOAD_LOCK_PATH),
        crate::lockfile::Mode::Exclusive,
        &format!("waiting for another westwood load or unload ({LOAD_LOCK_PATH})"),
    )
}

/// Register `opts.algos` (those not registered yet), then set up what observes them.
pub fn load(opts: &LoadOptions) -> Result<LoadReport> {
    let status = prereq::require_privileged(true)?;
    let _turn = load_lock()?;
    opts.params.validate()?;
    let unknown = probe::unknown_refusals();
    if !unknown.is_empty() {
        return Err(Error::Usage(format!(
            "{}: unknown feature(s) {} (known: storage_iter, tcp_iter, ringbuf, controls)",
            probe::REFUSE_ENV,
            unknown.join(", ")
        )));
    }
    ensure_bpffs()?;
    fs::create_dir_all(PIN_DIR).map_err(|e| Error::failed(format!("cannot create {PIN_DIR}"), e))?;

    let mut loaded = Vec::new();
    let mut already = Vec::new();
    let mut to_load = Vec::new();
    for &a in &opts.algos {
        if a.pin_path().exists() {
            already.push(a);
        } else if prereq::is_registered(a.name()) {
            return Err(Error::Failed(format!(
                "a congestion control named \"{}\" is already registered, but not by westwood-linux (no pin at {}). \
                 Remove it first (e.g. `bpftool struct_ops unregister name {}_ops`, or unload the module that \
                 provides it)",
                a.name(),
                a.pin_path().display(),
                a.name()
            )));
        } else if !to_load.contains(&a) {
            to_load.push(a);
        }
    }
    // A registered program keeps the parameters it was loaded with: a load that asks for other
    // ones must not go on as if it had them (a run would measure the wrong filter).
    for &a in &already {
        let wanted = effective_params(a, &opts.params)?;
        match registered_params(a) {
            Some(have) if have == wanted => {}
            Some(have) => {
                return Err(Error::Usage(format!(
                    "{} is already registered with {have}, not the {wanted} asked for; a registered program \
                     keeps its parameters. Unload it first (`westwood linux unload {}`), once nothing uses it",
                    a.name(),
                    a.name()
                )))
            }
            None if !opts.params.is_default() => {
                return Err(Error::Usage(format!(
                    "{} is already registered, with parameters nobody recorded (an older westwood-linux loaded \
                     it), and {wanted} is asked for. Unload it first (`westwood linux unload {}`)",
                    a.name(),
                    a.name()
                )))
            }
            None => {}
        }
    }
    let trace = if to_load.is_empty() {
        trace_status()
    } else {
        register(&to_load, &opts.params, status.link_form(), &mut loaded)?
    };
    for &a in &loaded {
        record_params(a, &effective_params(a, &opts.params)?)?;
    }
    let observation = ensure_watch();
    Ok(LoadReport { loaded, already, observation, trace })
}

/// Why an attempt to register failed: at load (the kernel refused the object: another
/// configuration may load) or after it (pinning, attaching: no retry).
enum AttemptError {
    Load { error: Error, log: String },
    After(Error),
}

/// Load the congestion controls (with the trace's ring buffer, else without it), pin the shared
/// maps and register `to_load`. Returns whether the trace is available.
fn register(
    to_load: &[Algo],
    params: &Params,
    link_form: bool,
    loaded: &mut Vec<Algo>,
) -> Result<std::result::Result<(), String>> {
    if let Some(reason) = Feature::Controls.refused_by_env() {
        return Err(Error::Prereq(reason));
    }
    // The trace is optional: a kernel that will not create the ring buffer still gets tcpw.
    let without_trace = match Feature::RingBuf.refused_by_env() {
        Some(reason) => reason,
        None => match register_with(to_load, params, link_form, true) {
            Ok(done) => {
                *loaded = done;
                return Ok(Ok(()));
            }
            Err(AttemptError::After(e)) => return Err(e),
            Err(AttemptError::Load { error, log }) => {
                format!(
                    "the kernel refused the per-ACK trace's ring buffer: {error}: {}",
                    probe::log_summary(&log)
                )
            }
        },
    };
    match register_with(to_load, params, link_form, false) {
        Ok(done) => {
            *loaded = done;
            Ok(Err(without_trace))
        }
        Err(AttemptError::After(e)) => Err(e),
        Err(AttemptError::Load { error, log }) => {
            eprint!("{log}");
            Err(Error::Prereq(format!(
                "{error} (the verifier log is above; `westwood-linux status` probes what this kernel accepts)"
            )))
        }
    }
}

/// One attempt: load, pin the maps it created, register and pin `to_load`. Everything it pinned
/// is removed again if it fails.
fn register_with(
    to_load: &[Algo],
    params: &Params,
    link_form: bool,
    trace: bool,
) -> std::result::Result<Vec<Algo>, AttemptError> {
    let mut object = MaybeUninit::uninit();
    let created: Vec<SharedMap> = SharedMap::ALL
        .into_iter()
        .filter(|m| !m.pin_path().exists() && (trace || *m != SharedMap::Acks))
        .collect();
    let (result, log) = probe::with_libbpf_log(|| -> Result<_> {
        let open = open_controls(&mut object, to_load, params, trace, link_form)?;
        open.load().map_err(|e| Error::failed("loading the congestion controls", e))
    });
    let mut skel = result.map_err(|error| AttemptError::Load { error, log })?;
    let after = AttemptError::After;

    let mut rollback = Rollback(Vec::new());
    for m in created {
        let map = match m {
            SharedMap::SkStorage => &mut skel.maps.tcpw_sk_stor,
            SharedMap::AbseStorage => &mut skel.maps.tcpw_abse_stor,
            SharedMap::Acks => &mut skel.maps.tcpw_acks,
            SharedMap::TraceCtl => &mut skel.maps.tcpw_trace_ctl,
            SharedMap::Counters => &mut skel.maps.tcpw_counters,
        };
        map.pin(m.pin_path())
            .map_err(|e| after(Error::failed(format!("pinning {}", m.pin_path().display()), e)))?;
        rollback.0.push(m.pin_path());
    }
    let mut done = Vec::new();
    for &a in to_load {
        let name = a.struct_ops_map();
        let Some(mut map) = skel.object_mut().maps_mut().find(|m| m.name() == name.as_str()) else {
            return Err(after(Error::Failed(format!("the loaded object has no struct_ops map {name}"))));
        };
        let mut link = map
            .attach_struct_ops()
            .map_err(|e| after(Error::failed(format!("registering {} (struct_ops)", a.name()), e)))?;
        if link_form {
            link.pin(a.pin_path())
                .map_err(|e| after(Error::failed(format!("pinning {}", a.pin_path().display()), e)))?;
        } else {
            // Map form: the registration lives as long as the map; dropping libbpf's stand-in
            // link would unregister it, so pin the map and forget the link.
            let pinned = map.pin(a.pin_path());
            std::mem::forget(link);
            pinned.map_err(|e| after(Error::failed(format!("pinning {}", a.pin_path().display()), e)))?;
        }
        rollback.0.push(a.pin_path());
        done.push(a);
    }
    rollback.0.clear();
    // Registration is synchronous; check that the kernel lists the names.
    for &a in &done {
        if !prereq::is_registered(a.name()) {
            return Err(after(Error::Failed(format!(
                "{} was attached but is not in {}",
                a.name(),
                prereq::AVAILABLE_CC
            ))));
        }
    }
    Ok(done)
}

/// The watch iterator: the one pinned, else the first kind this kernel loads (pinned now), else
/// why none can be.
pub fn ensure_watch() -> Observation {
    if let Some(kind) = pinned_watch() {
        return Observation::Watch(kind);
    }
    let mut why = Vec::new();
    for kind in WatchKind::ALL {
        match attach_watch(kind) {
            Ok(()) => return Observation::Watch(kind),
            Err(e) => why.push(e),
        }
    }
    Observation::Unavailable(why)
}

/// Load `kind`'s iterator on the pinned socket storage map and pin it.
fn attach_watch(kind: WatchKind) -> std::result::Result<(), String> {
    if let Some(reason) = kind.feature().refused_by_env() {
        return Err(reason);
    }
    let mut object = MaybeUninit::uninit();
    let (result, log) = probe::with_libbpf_log(|| -> std::result::Result<(), String> {
        let mut open = probe::open_watch(&mut object, kind).map_err(|e| e.to_string())?;
        open.maps.tcpw_sk_stor.reuse_pinned_map(map_pin_path()).map_err(|e| e.to_string())?;
        let skel = open.load().map_err(|e| e.to_string())?;
        let mut link = match kind {
            WatchKind::Storage => skel.progs.tcpw_watch_storage.attach_iter(skel.maps.tcpw_sk_stor.as_fd()),
            WatchKind::Tcp => skel.progs.tcpw_watch_tcp.attach_iter_with_opts(libbpf_rs::IterOpts::None),
        }
        .map_err(|e| format!("creating the iterator: {e}"))?;
        link.pin(watch_pin_path(kind)).map_err(|e| format!("pinning the iterator: {e}"))
    });
    result.map_err(|e| {
        let summary = probe::log_summary(&log);
        if summary.is_empty() {
            format!("{}: {e}", kind.feature().describe())
        } else {
            format!("the kernel refused {}: {e}: {summary}", kind.feature().describe())
        }
    })
}

/// Map-form pins (kernels before 6.4): unregister by deleting the struct_ops element.
fn unregister_map_form(path: &Path) {
    let Ok(cpath) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return;
    };
    unsafe {
        let fd = libbpf_rs::libbpf_sys::bpf_obj_get(cpath.as_ptr());
        if fd >= 0 {
            let zero: u32 = 0;
            // A link fd is not a map: EINVAL, ignored.
            libbpf_rs::libbpf_sys::bpf_map_delete_elem(fd, (&zero as *const u32).cast());
            libc::close(fd);
        }
    }
}

/// Remove the pins of `algos`; when none is left, also the iterator, the maps and the
/// directory. Waits (up to 3 s) until the kernel no longer lists the names. Returns what was
/// unloaded; nothing loaded is not an error.
pub fn unload(algos: &[Algo]) -> Result<Vec<Algo>> {
    prereq::require_privileged(false)?;
    let _turn = load_lock()?;
    let mut removed = Vec::new();
    for &a in algos {
        let p = a.pin_path();
        if p.exists() {
            unregister_map_form(&p);
            fs::remove_file(&p).map_err(|e| Error::failed(format!("removing {}", p.display()), e))?;
            removed.push(a);
        }
        let _ = fs::remove_file(params_record_path(a));
    }
    if pinned_algos().is_empty() {
        let rest = WatchKind::ALL
            .into_iter()
            .map(watch_pin_path)
            .chain(SharedMap::ALL.into_iter().map(SharedMap::pin_path));
        for p in rest {
            match fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::failed(format!("removing {}", p.display()), e)),
            }
        }
        let _ = fs::remove_dir(PIN_DIR);
    }
    // The last reference to a link is dropped from a workqueue: wait for it.
    let deadline = Instant::now() + Duration::from_secs(3);
    while removed.iter().any(|a| prereq::is_registered(a.name())) {
        if Instant::now() > deadline {
            let still: Vec<&str> =
                removed.iter().filter(|a| prereq::is_registered(a.name())).map(|a| a.name()).collect();
            return Err(Error::Failed(format!(
                "pins removed, but still registered after 3 s: {}",
                still.join(", ")
            )));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algo_sets() {
        assert_eq!(Algo::parse_set("tcpw"), Some(vec![Algo::from_name("tcpw").unwrap()]));
        assert_eq!(Algo::parse_set("tcpw_plus"), Some(vec![Algo::from_name("tcpw_plus").unwrap()]));
        assert_eq!(
            Algo::parse_set("tcpw-abse,tcpw_tr,tcpw_tr"),
            Some(vec![Algo::from_name("tcpw_abse").unwrap(), Algo::from_name("tcpw_tr").unwrap()])
        );
        assert_eq!(Algo::parse_set("all"), Some(Algo::all().to_vec()));
        assert_eq!(Algo::parse_set("westwood"), None);
        assert_eq!(Algo::parse_set("tcpw,"), None);
        assert_eq!(Algo::from_name("tcpw").unwrap().pin_path(), PathBuf::from("/sys/fs/bpf/westwood/tcpw"));
        for &a in Algo::all() {
            assert_eq!(Algo::from_id(a.id()), Some(a));
            assert_eq!(Algo::from_name(a.name()), Some(a));
        }
        assert_eq!(Algo::from_id(0), None);
    }

    #[test]
    fn a_registration_is_recorded_with_the_parameters_its_program_reads() {
        // The same lines as before the registry listed them (a record written then still
        // matches), and a parameter of another program does not enter one's record.
        let tau = Params { tau_us: Some(250_000), ..Default::default() };
        let expected = [
            ("tcpw", "tau_us=500000 m=2 sample=trapezoid", "tau_us=250000 m=2 sample=trapezoid"),
            ("tcpw_tr", "tr_ratio=10", "tr_ratio=10"),
            ("tcpw_abse", "abse_t_min_us=50000 abse_n=10", "abse_t_min_us=50000 abse_n=10"),
            ("tcpw_plus", "plus_min_window_us=50000", "plus_min_window_us=50000"),
        ];
        for (name, default, with_tau) in expected {
            let algo = Algo::from_name(name).unwrap();
            assert_eq!(effective_params(algo, &Params::default()).unwrap(), default);
            assert_eq!(effective_params(algo, &tau).unwrap(), with_tau);
        }
        assert_eq!(Algo::all().len(), expected.len());
    }

    #[test]
    fn parameters_are_checked() {
        assert!(Params::default().validate().is_ok());
        assert!(Params { m: Some(1), ..Default::default() }.validate().is_err());
        assert!(Params { tau_us: Some(0), ..Default::default() }.validate().is_err());
        assert!(Params { tr_ratio: Some(0), ..Default::default() }.validate().is_err());
        assert!(Params { abse_n: Some(10), abse_t_min_us: Some(50_000), ..Default::default() }
            .validate()
            .is_ok());
    }
}
