//! The bpf filesystem and what westwood-linux pins in it (/sys/fs/bpf/westwood): the congestion
//! controls kernel/tcpw.bpf.c registers, the maps they share, the watch iterator, and what those
//! pins say about the state of the machine. Both `prereq` (what `status` reports) and `loader`
//! (what `load` and `unload` change) read it.

use std::fs;
use std::path::{Path, PathBuf};

use westwood_algorithms::registry::{self, EbpfProgram};

use crate::probe::WatchKind;
use crate::{Error, Result};

/// Where the bpf filesystem is mounted.
pub const BPFFS: &str = "/sys/fs/bpf";

/// Where everything westwood-linux loads is pinned, so it stays after the command exits.
pub const PIN_DIR: &str = "/sys/fs/bpf/westwood";

/// One of the congestion controls kernel/tcpw.bpf.c registers (its struct_ops map `<name>_ops`):
/// the registry's eBPF twins (`westwood_algorithms::registry::ebpf_programs`), which name them,
/// give their record ids and describe them. Nothing here lists them: a new twin is a registry
/// entry and its kernel C.
#[derive(Debug, Clone, Copy)]
pub struct Algo {
    name: &'static str,
    program: EbpfProgram,
}

impl PartialEq for Algo {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

impl Eq for Algo {}

impl std::hash::Hash for Algo {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.name.hash(state)
    }
}

impl Algo {
    /// Every one, in the registry's order. Read from the registry once: the programs are
    /// compiled into this build, so a control registered at run time brings none, and the
    /// per-ACK trace looks a record's program up by id without asking the registry each time.
    pub fn all() -> &'static [Algo] {
        static ALL: std::sync::OnceLock<Vec<Algo>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| {
            registry::ebpf_programs().into_iter().map(|(name, program)| Algo { name, program }).collect()
        })
    }

    /// The congestion-control name (TCP_CONGESTION, sysctl, `iperf3 -C`).
    pub fn name(self) -> &'static str {
        self.name
    }

    /// Algorithm id in the watch and trace records (TCPW_ALGO_*).
    pub fn id(self) -> u8 {
        self.program.id
    }

    /// Its struct_ops map in kernel/tcpw.bpf.c.
    pub fn struct_ops_map(self) -> String {
        format!("{}_ops", self.name)
    }

    pub fn from_id(id: u8) -> Option<Algo> {
        Algo::all().iter().copied().find(|a| a.id() == id)
    }

    pub fn from_name(name: &str) -> Option<Algo> {
        let name = name.trim().replace('-', "_");
        Algo::all().iter().copied().find(|a| a.name() == name)
    }

    /// What it is and where it comes from, for `status` and the usage text.
    pub fn describe(self) -> &'static str {
        self.program.summary
    }

    /// The loader's parameters it reads (`tau_us`, ...), as the registry lists them.
    pub fn parameters(self) -> &'static [&'static str] {
        self.program.parameters
    }

    pub fn pin_path(self) -> PathBuf {
        Path::new(PIN_DIR).join(self.name())
    }

    /// One name ("tcpw", "tcpw-plus", ...), a comma list, or "all".
    pub fn parse_set(s: &str) -> Option<Vec<Algo>> {
        if s == "all" {
            return Some(Algo::all().to_vec());
        }
        let mut out = Vec::new();
        for name in s.split(',') {
            let a = Algo::from_name(name.trim())?;
            if !out.contains(&a) {
                out.push(a);
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// The maps the programs share, pinned so that every later load (and `watch`) finds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedMap {
    SkStorage,
    AbseStorage,
    Acks,
    TraceCtl,
    Counters,
}

impl SharedMap {
    pub const ALL: [SharedMap; 5] = [
        SharedMap::SkStorage,
        SharedMap::AbseStorage,
        SharedMap::Acks,
        SharedMap::TraceCtl,
        SharedMap::Counters,
    ];

    pub fn pin_name(self) -> &'static str {
        match self {
            SharedMap::SkStorage => "sk_storage",
            SharedMap::AbseStorage => "abse_storage",
            SharedMap::Acks => "acks",
            SharedMap::TraceCtl => "trace_ctl",
            SharedMap::Counters => "counters",
        }
    }

    pub fn pin_path(self) -> PathBuf {
        Path::new(PIN_DIR).join(self.pin_name())
    }
}

pub fn pinned_algos() -> Vec<Algo> {
    Algo::all().iter().copied().filter(|a| a.pin_path().exists()).collect()
}

pub fn map_pin_path() -> PathBuf {
    SharedMap::SkStorage.pin_path()
}

pub fn watch_pin_path(kind: WatchKind) -> PathBuf {
    Path::new(PIN_DIR).join(kind.pin_name())
}

/// The watch iterator pinned now, if any.
pub fn pinned_watch() -> Option<WatchKind> {
    WatchKind::ALL.into_iter().find(|k| watch_pin_path(*k).exists())
}

/// Mount bpffs at /sys/fs/bpf if it is not mounted.
pub fn ensure_bpffs() -> Result<()> {
    if bpffs_mounted_at(BPFFS) {
        return Ok(());
    }
    fs::create_dir_all(BPFFS).map_err(|e| Error::Prereq(format!("cannot create {BPFFS}: {e}")))?;
    let c = |s: &str| std::ffi::CString::new(s).unwrap();
    let (src, target, fstype) = (c("bpf"), c(BPFFS), c("bpf"));
    let data = c("mode=0700");
    let rc = unsafe { libc::mount(src.as_ptr(), target.as_ptr(), fstype.as_ptr(), 0, data.as_ptr().cast()) };
    if rc != 0 {
        return Err(Error::Prereq(format!(
            "bpffs is not mounted at {BPFFS} and mounting it failed ({}): run `mount -t bpf bpf {BPFFS}` as root",
            std::io::Error::last_os_error()
        )));
    }
    Ok(())
}

/// Is a bpf filesystem mounted at `dir`?
pub fn bpffs_mounted_at(dir: &str) -> bool {
    fs::read_to_string("/proc/self/mounts")
        .map(|m| {
            m.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 2 && f[1] == dir && f[2] == "bpf"
            })
        })
        .unwrap_or(false)
}

/// The per-ACK trace as the pins show it: available when the ring buffer is pinned.
pub fn trace_status() -> std::result::Result<(), String> {
    if SharedMap::Acks.pin_path().exists() {
        Ok(())
    } else if pinned_algos().is_empty() {
        Err("nothing is loaded — run `westwood-linux load` first".into())
    } else {
        Err("the congestion controls were loaded without the trace's ring buffer (the kernel refused it, or \
             WESTWOOD_LINUX_REFUSE said so): `westwood-linux status` tells why"
            .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_programs_are_the_registrys_ebpf_twins() {
        let names: Vec<&str> = Algo::all().iter().map(|a| a.name()).collect();
        assert_eq!(names, registry::ebpf_kernel_names());
        for &a in Algo::all() {
            assert_eq!(Algo::from_name(a.name()), Some(a));
            assert_eq!(Algo::from_id(a.id()), Some(a));
            assert_eq!(a.struct_ops_map(), format!("{}_ops", a.name()));
        }
        assert_eq!(Algo::from_id(0), None);
    }

    /// kernel/tcpw.bpf.c registers each program under the registry's name with the registry's
    /// record id, its map named `<name>_ops` (`WESTWOOD_OPS(prefix, algo, name)`), and nothing else.
    #[test]
    fn the_kernel_c_registers_each_program_as_the_registry_says() {
        let source = include_str!("../../../kernel/tcpw.bpf.c");
        let header = include_str!("../../../kernel/tcpw_watch.bpf.h");
        let ops: Vec<(&str, &str, &str)> = source
            .lines()
            .filter_map(|l| l.strip_prefix("WESTWOOD_OPS(")?.strip_suffix(");"))
            .map(|args| {
                let v: Vec<&str> = args.split(',').map(str::trim).collect();
                (v[0], v[1], v[2].trim_matches('"'))
            })
            .collect();
        assert_eq!(ops.len(), Algo::all().len(), "{ops:?}");
        for (&a, (prefix, id_macro, name)) in Algo::all().iter().zip(ops) {
            assert_eq!((format!("{prefix}_ops"), name), (a.struct_ops_map(), a.name()));
            let define = header
                .lines()
                .find_map(|l| l.strip_prefix(&format!("#define {id_macro} ")))
                .unwrap_or_else(|| panic!("{id_macro} not defined in tcpw_watch.bpf.h"));
            let id: u8 = define.split_whitespace().next().unwrap().trim_end_matches('u').parse().unwrap();
            assert_eq!(id, a.id(), "{id_macro}");
        }
    }
}
