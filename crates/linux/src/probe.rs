//! Probing by doing: what this kernel accepts is learnt by loading the programs (the real ones,
//! without registering anything), never by reading BTF, because kernels with the same BTF differ
//! (some refuse `iter/bpf_sk_storage_map` programs at load with EPERM, even empty ones, while
//! `iter/tcp`, struct_ops and socket filters load).
//!
//! Also here: the testing switch `WESTWOOD_LINUX_REFUSE` (a comma list of [`Feature`] names)
//! makes the loader and the probes treat those features as refused by the kernel, so the
//! fallbacks can be tested on a kernel that has everything; and the capture of libbpf's log, so
//! an attempt that has a fallback does not print a verifier log the user need not see.

use std::mem::MaybeUninit;
use std::sync::Mutex;

use libbpf_rs::skel::{OpenSkel, SkelBuilder};
use libbpf_rs::PrintLevel;

use crate::skel::{OpenTcpwSkel, TcpwSkelBuilder};
use crate::watch_skel::TcpwWatchSkelBuilder;

/// Environment variable: features the loader must treat as refused (testing switch).
pub const REFUSE_ENV: &str = "WESTWOOD_LINUX_REFUSE";

/// The optional kernel features the loader falls back from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// A BPF iterator over the socket storage map (`iter/bpf_sk_storage_map`): watch, every namespace.
    StorageIter,
    /// A BPF iterator over TCP sockets (`iter/tcp`): watch, one namespace per read.
    TcpIter,
    /// A BPF ring buffer (`BPF_MAP_TYPE_RINGBUF`): the per-ACK trace.
    RingBuf,
    /// The congestion controls themselves (never optional: refusing them tests what users of
    /// `load` do when a kernel cannot run them).
    Controls,
}

impl Feature {
    pub const ALL: [Feature; 4] =
        [Feature::StorageIter, Feature::TcpIter, Feature::RingBuf, Feature::Controls];

    /// The name `WESTWOOD_LINUX_REFUSE` uses.
    pub fn name(self) -> &'static str {
        match self {
            Feature::StorageIter => "storage_iter",
            Feature::TcpIter => "tcp_iter",
            Feature::RingBuf => "ringbuf",
            Feature::Controls => "controls",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Feature::StorageIter => "the socket-storage iterator (iter/bpf_sk_storage_map)",
            Feature::TcpIter => "the TCP socket iterator (iter/tcp)",
            Feature::RingBuf => "the BPF ring buffer (per-ACK trace)",
            Feature::Controls => "the congestion controls (struct_ops programs)",
        }
    }

    /// Refused through `WESTWOOD_LINUX_REFUSE`: the reason, as the loader reports it.
    pub fn refused_by_env(self) -> Option<String> {
        let list = std::env::var(REFUSE_ENV).ok()?;
        list.split(',').map(str::trim).any(|n| n == self.name()).then(|| {
            format!("{} refused: {REFUSE_ENV} lists {} (testing switch)", self.describe(), self.name())
        })
    }
}

/// Names in `WESTWOOD_LINUX_REFUSE` that are not features (a typo would silently test nothing).
pub fn unknown_refusals() -> Vec<String> {
    std::env::var(REFUSE_ENV)
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty() && !Feature::ALL.iter().any(|f| f.name() == *n))
        .map(String::from)
        .collect()
}

static CAPTURED: Mutex<Vec<String>> = Mutex::new(Vec::new());
static CAPTURE_LOCK: Mutex<()> = Mutex::new(());

fn capture_line(_level: PrintLevel, msg: String) {
    if let Ok(mut c) = CAPTURED.lock() {
        c.push(msg);
    }
}

/// Run `f` with libbpf's messages captured instead of printed; returns them with `f`'s result.
pub fn with_libbpf_log<T>(f: impl FnOnce() -> T) -> (T, String) {
    let _one_at_a_time = CAPTURE_LOCK.lock().unwrap_or_else(|p| p.into_inner());
    CAPTURED.lock().unwrap_or_else(|p| p.into_inner()).clear();
    let previous = libbpf_rs::set_print(Some((PrintLevel::Warn, capture_line)));
    let result = f();
    libbpf_rs::set_print(previous);
    let log = std::mem::take(&mut *CAPTURED.lock().unwrap_or_else(|p| p.into_inner()));
    (result, log.concat())
}

/// The lines of a libbpf log that say why a load failed (the verifier's last words and
/// libbpf's summary), for a one-paragraph reason.
pub fn log_summary(log: &str) -> String {
    let lines: Vec<&str> = log
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("-- ") && !l.starts_with("processed "))
        .collect();
    let start = lines.len().saturating_sub(4);
    lines[start..].join(" | ")
}

/// What loading the congestion controls' object (without registering) showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControlsProbe {
    /// With the per-ACK trace's ring buffer; `Err` says why not (then loaded without it).
    pub trace: Result<(), String>,
}

/// Load kernel/tcpw.bpf.c's programs and maps (all four congestion controls) into the kernel and
/// drop them again, without registering anything: with the ring buffer, else without it.
pub fn probe_controls() -> Result<ControlsProbe, String> {
    if let Some(reason) = Feature::Controls.refused_by_env() {
        return Err(reason);
    }
    let attempt = |trace: bool| -> Result<(), String> {
        let (result, log) = with_libbpf_log(|| {
            let mut object = MaybeUninit::uninit();
            let mut open = TcpwSkelBuilder::default().open(&mut object).map_err(|e| e.to_string())?;
            if !trace {
                disable_trace(&mut open).map_err(|e| e.to_string())?;
            }
            open.load().map(drop).map_err(|e| e.to_string())
        });
        result.map_err(|e| format!("{e}: {}", log_summary(&log)))
    };
    let refused = Feature::RingBuf.refused_by_env();
    let with_trace = match &refused {
        Some(reason) => Err(reason.clone()),
        None => attempt(true),
    };
    match with_trace {
        Ok(()) => Ok(ControlsProbe { trace: Ok(()) }),
        Err(why) => match attempt(false) {
            Ok(()) => Ok(ControlsProbe { trace: Err(why) }),
            Err(e) => Err(if refused.is_some() { e } else { format!("{e} (with the ring buffer: {why})") }),
        },
    }
}

/// The ways `watch` can read the tcpw* sockets, in the order the loader tries them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WatchKind {
    /// iter/bpf_sk_storage_map: every namespace in one read.
    Storage,
    /// iter/tcp: the namespace of the reader.
    Tcp,
}

impl WatchKind {
    pub const ALL: [WatchKind; 2] = [WatchKind::Storage, WatchKind::Tcp];

    pub fn feature(self) -> Feature {
        match self {
            WatchKind::Storage => Feature::StorageIter,
            WatchKind::Tcp => Feature::TcpIter,
        }
    }

    /// Its pin under [`crate::pins::PIN_DIR`].
    pub fn pin_name(self) -> &'static str {
        match self {
            WatchKind::Storage => "watch",
            WatchKind::Tcp => "watch_tcp",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            WatchKind::Storage => "socket-storage iterator (every namespace)",
            WatchKind::Tcp => "TCP socket iterator (read in each namespace)",
        }
    }
}

/// Open the watch object with only `kind`'s program to be loaded.
pub fn open_watch<'obj>(
    object: &'obj mut MaybeUninit<libbpf_rs::OpenObject>,
    kind: WatchKind,
) -> libbpf_rs::Result<crate::watch_skel::OpenTcpwWatchSkel<'obj>> {
    let mut open = TcpwWatchSkelBuilder::default().open(object)?;
    open.progs.tcpw_watch_storage.set_autoload(kind == WatchKind::Storage);
    open.progs.tcpw_watch_tcp.set_autoload(kind == WatchKind::Tcp);
    Ok(open)
}

/// Load `kind`'s iterator program (on a throwaway storage map) and drop it.
pub fn probe_watch(kind: WatchKind) -> Result<(), String> {
    if let Some(reason) = kind.feature().refused_by_env() {
        return Err(reason);
    }
    let (result, log) = with_libbpf_log(|| {
        let mut object = MaybeUninit::uninit();
        let open = open_watch(&mut object, kind).map_err(|e| e.to_string())?;
        open.load().map(drop).map_err(|e| e.to_string())
    });
    result
        .map_err(|e| format!("the kernel refused {}: {e}: {}", kind.feature().describe(), log_summary(&log)))
}

/// Compile the trace out of an opened object: the ring buffer is not created and the programs'
/// trace code is dead once `tcpw_trace_available` is 0 (the verifier drops it).
pub fn disable_trace(open: &mut OpenTcpwSkel<'_>) -> libbpf_rs::Result<()> {
    if let Some(rodata) = open.maps.rodata_data.as_deref_mut() {
        rodata.tcpw_trace_available = 0;
    }
    open.maps.tcpw_acks.set_autocreate(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_summary_keeps_the_last_meaningful_lines() {
        let log = "libbpf: prog 'x': BPF program load failed: -EPERM\nlibbpf: -- BEGIN PROG LOAD LOG --\n\
                   processed 0 insns (limit 1000000)\n-- END PROG LOAD LOG --\nlibbpf: failed to load object 'y'\n";
        let s = log_summary(log);
        assert!(s.contains("-EPERM") && s.contains("failed to load object"), "{s}");
        assert!(!s.contains("processed 0"), "{s}");
        assert_eq!(log_summary(""), "");
    }

    #[test]
    fn feature_names_are_distinct() {
        let mut names: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Feature::ALL.len());
        assert_eq!(WatchKind::Tcp.feature(), Feature::TcpIter);
    }
}
