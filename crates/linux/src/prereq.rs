//! Prerequisites: the kernel (version, BTF, the JIT), the process (root, or CAP_BPF, CAP_PERFMON
//! and CAP_NET_ADMIN), bpffs, and what is registered now. `status` prints all of it with advice,
//! and what the kernel accepts, learnt by loading the programs ([`crate::probe`]): whether each
//! capability — registering, observing, tracing — works here, and why not. The privileged
//! commands stop early with the advice for what is missing.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::pins::{self, Algo};
pub use crate::pins::{bpffs_mounted_at, BPFFS};
use crate::probe::{self, ControlsProbe, WatchKind};
use crate::{Error, Result};

pub const VMLINUX_BTF: &str = "/sys/kernel/btf/vmlinux";
pub const AVAILABLE_CC: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";

/// The running kernel: `uname -r` and its numeric version.
#[derive(Debug, Clone)]
pub struct Kernel {
    pub release: String,
    pub version: (u32, u32, u32),
}

impl Kernel {
    pub fn running() -> Kernel {
        let mut uts: libc::utsname = unsafe { std::mem::zeroed() };
        let release = if unsafe { libc::uname(&mut uts) } == 0 {
            let bytes: Vec<u8> = uts.release.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            String::from("unknown")
        };
        let version = parse_version(&release);
        Kernel { release, version }
    }

    pub fn at_least(&self, major: u32, minor: u32) -> bool {
        (self.version.0, self.version.1) >= (major, minor)
    }
}

/// The running kernel's `CONFIG_HZ` (the tick of its timer wheel, which the simulator's `linux`
/// runs follow: `timer_hz`), from `/proc/config.gz` (through `gzip -dc`) or
/// `/boot/config-RELEASE`; `None` when neither says. Read once.
pub fn kernel_hz() -> Option<u32> {
    static HZ: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *HZ.get_or_init(|| {
        let from_gzip = std::process::Command::new("gzip")
            .args(["-dc", "/proc/config.gz"])
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
        let config = from_gzip
            .or_else(|| fs::read_to_string(format!("/boot/config-{}", Kernel::running().release)).ok())?;
        config_hz(&config)
    })
}

/// `CONFIG_HZ=N` of a kernel configuration.
fn config_hz(config: &str) -> Option<u32> {
    config.lines().find_map(|line| line.strip_prefix("CONFIG_HZ=")?.trim().parse().ok())
}

/// "6.18.44-fc-v669" -> (6, 18, 44).
pub fn parse_version(release: &str) -> (u32, u32, u32) {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// Effective capabilities of this process.
#[derive(Debug, Clone, Copy, Default)]
pub struct Caps {
    pub euid_root: bool,
    pub net_admin: bool,
    pub sys_admin: bool,
    pub perfmon: bool,
    pub bpf: bool,
}

const CAP_NET_ADMIN: u32 = 12;
const CAP_SYS_ADMIN: u32 = 21;
const CAP_PERFMON: u32 = 38;
const CAP_BPF: u32 = 39;

impl Caps {
    pub fn current() -> Caps {
        let eff = fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find_map(|l| l.strip_prefix("CapEff:"))
                    .and_then(|v| u64::from_str_radix(v.trim(), 16).ok())
            })
            .unwrap_or(0);
        let bit = |b: u32| eff & (1u64 << b) != 0;
        Caps {
            euid_root: unsafe { libc::geteuid() } == 0,
            net_admin: bit(CAP_NET_ADMIN),
            sys_admin: bit(CAP_SYS_ADMIN),
            perfmon: bit(CAP_PERFMON) || bit(CAP_SYS_ADMIN),
            bpf: bit(CAP_BPF) || bit(CAP_SYS_ADMIN),
        }
    }

    /// Loading struct_ops programs needs CAP_BPF + CAP_PERFMON (CAP_SYS_ADMIN implies both);
    /// registering a congestion control and choosing it for any socket, CAP_NET_ADMIN.
    pub fn missing_for_bpf(&self) -> Vec<&'static str> {
        let mut missing = Vec::new();
        if !self.bpf {
            missing.push("CAP_BPF");
        }
        if !self.perfmon {
            missing.push("CAP_PERFMON");
        }
        if !self.net_admin {
            missing.push("CAP_NET_ADMIN");
        }
        missing
    }
}

/// What loading the programs showed (`status`, as root).
#[derive(Debug, Clone)]
pub struct Probes {
    /// The congestion controls' object, with the trace's ring buffer or without it.
    pub controls: std::result::Result<ControlsProbe, String>,
    /// Each watch iterator kind, in the order `load` tries them.
    pub watch: Vec<(WatchKind, std::result::Result<(), String>)>,
}

impl Probes {
    pub fn run() -> Probes {
        Probes {
            controls: probe::probe_controls(),
            watch: WatchKind::ALL.into_iter().map(|k| (k, probe::probe_watch(k))).collect(),
        }
    }

    /// The iterator `load` would pin.
    pub fn watch_kind(&self) -> Option<WatchKind> {
        self.watch.iter().find(|(_, r)| r.is_ok()).map(|(k, _)| *k)
    }
}

/// Everything `status` reports.
#[derive(Debug, Clone)]
pub struct Status {
    pub kernel: Kernel,
    /// The kernel's BTF (CO-RE relocations and struct_ops need it): present, or why not.
    pub btf: std::result::Result<(), String>,
    /// /proc/sys/net/core/bpf_jit_enable (None: not readable; the JIT may be always on).
    pub jit: Option<u32>,
    pub caps: Caps,
    pub bpffs_mounted: bool,
    pub available: Vec<String>,
    pub pinned: Vec<Algo>,
    /// None unless gathered with [`Status::gather_with_probes`] by a privileged process.
    pub probes: Option<Probes>,
}

pub fn available_congestion_controls() -> Vec<String> {
    fs::read_to_string(AVAILABLE_CC)
        .map(|s| s.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

pub fn is_registered(name: &str) -> bool {
    available_congestion_controls().iter().any(|n| n == name)
}

impl Status {
    pub fn gather() -> Status {
        Status {
            kernel: Kernel::running(),
            btf: if Path::new(VMLINUX_BTF).exists() {
                Ok(())
            } else {
                Err(format!("{VMLINUX_BTF} not found"))
            },
            jit: fs::read_to_string("/proc/sys/net/core/bpf_jit_enable")
                .ok()
                .and_then(|s| s.trim().parse().ok()),
            caps: Caps::current(),
            bpffs_mounted: bpffs_mounted_at(BPFFS),
            available: available_congestion_controls(),
            pinned: pins::pinned_algos(),
            probes: None,
        }
    }

    /// [`Status::gather`], plus the probes when this process may load programs.
    pub fn gather_with_probes() -> Status {
        let mut st = Status::gather();
        if st.privilege_problems().is_empty()
            && st.kernel_problems().is_empty()
            && pins::ensure_bpffs().is_ok()
        {
            st.probes = Some(Probes::run());
        }
        st
    }

    /// Struct_ops links (SEC(".struct_ops.link"), BPF_LINK_TYPE_STRUCT_OPS) exist from 6.4.
    pub fn link_form(&self) -> bool {
        self.kernel.at_least(6, 4)
    }

    /// Kernel-side problems that make loading impossible, each with advice. What the kernel
    /// accepts beyond these is learnt by loading ([`Probes`]).
    pub fn kernel_problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if !self.kernel.at_least(5, 13) {
            p.push(format!(
                "kernel {} is too old: BPF congestion controls that call the kernel's Reno (kfuncs) need 5.13 or later \
                 (6.4 or later for struct_ops links)",
                self.kernel.release
            ));
        }
        if let Err(e) = &self.btf {
            p.push(format!(
                "no kernel BTF ({e}): rebuild the kernel with CONFIG_DEBUG_INFO_BTF=y (Debian/Ubuntu kernels have it)"
            ));
        }
        if self.jit == Some(0) {
            p.push(
                "the BPF JIT is off (net.core.bpf_jit_enable = 0): struct_ops need it — `sysctl -w net.core.bpf_jit_enable=1`"
                    .into(),
            );
        }
        p
    }

    /// Process-side problems for load/unload.
    pub fn privilege_problems(&self) -> Vec<String> {
        let missing = self.caps.missing_for_bpf();
        if missing.is_empty() {
            return Vec::new();
        }
        vec![format!(
            "not enough privileges: missing {} — run as root (sudo westwood-linux ...) or grant CAP_BPF, \
             CAP_PERFMON and CAP_NET_ADMIN",
            missing.join(", ")
        )]
    }

    pub fn report(&self) -> String {
        let mut s = String::new();
        let yes = |b: bool| if b { "yes" } else { "NO" };
        let _ = writeln!(s, "kernel           {}", self.kernel.release);
        match &self.btf {
            Ok(()) => {
                let _ = writeln!(s, "BTF              yes ({VMLINUX_BTF})");
            }
            Err(e) => {
                let _ = writeln!(s, "BTF              NO ({e})");
            }
        }
        let _ = writeln!(
            s,
            "struct_ops links {}",
            if self.link_form() { "yes (6.4+)" } else { "no (before 6.4: the map form is used)" }
        );
        let _ = writeln!(
            s,
            "BPF JIT          {}",
            match self.jit {
                Some(0) => "off".to_string(),
                Some(v) => format!("on ({v})"),
                None => "unknown (bpf_jit_enable not readable)".to_string(),
            }
        );
        let c = &self.caps;
        let _ = writeln!(
            s,
            "privileges       {} (CAP_BPF {}, CAP_PERFMON {}, CAP_NET_ADMIN {}, CAP_SYS_ADMIN {})",
            if c.euid_root { "root" } else { "not root" },
            yes(c.bpf),
            yes(c.perfmon),
            yes(c.net_admin),
            yes(c.sys_admin)
        );
        let _ = writeln!(
            s,
            "bpffs            {}",
            if self.bpffs_mounted {
                format!("mounted at {BPFFS}")
            } else {
                format!("not mounted at {BPFFS} (load mounts it)")
            }
        );
        let _ = writeln!(s, "available        {}", self.available.join(" "));

        let _ = writeln!(s, "\nprobes (loaded into the kernel and dropped; nothing registered):");
        match &self.probes {
            None => {
                let _ = writeln!(
                    s,
                    "  not run: loading programs needs root and a kernel without the problems below"
                );
            }
            Some(p) => {
                let names = Algo::all().iter().map(|a| a.name()).collect::<Vec<_>>().join(", ");
                match &p.controls {
                    Ok(c) => {
                        let _ = writeln!(s, "  register         yes: {names} load");
                        match &c.trace {
                            Ok(()) => {
                                let _ = writeln!(s, "  per-ACK trace    yes (BPF ring buffer)");
                            }
                            Err(why) => {
                                let _ = writeln!(s, "  per-ACK trace    NO: {why}");
                            }
                        }
                    }
                    Err(why) => {
                        let _ = writeln!(s, "  register         NO: {why}");
                    }
                }
                for (kind, r) in &p.watch {
                    let label = match kind {
                        WatchKind::Storage => "observe (storage)",
                        WatchKind::Tcp => "observe (tcp)",
                    };
                    match r {
                        Ok(()) => {
                            let _ = writeln!(s, "  {label:<16} yes: the {}", kind.describe());
                        }
                        Err(why) => {
                            let _ = writeln!(s, "  {label:<16} NO: {why}");
                        }
                    }
                }
            }
        }

        let _ = writeln!(s, "\nnow:");
        for &algo in Algo::all() {
            let registered = self.available.iter().any(|n| n == algo.name());
            let pinned = self.pinned.contains(&algo);
            let state = match (registered, pinned) {
                (true, true) => format!("registered (pinned at {})", algo.pin_path().display()),
                (true, false) => "registered, but not by westwood-linux (no pin)".to_string(),
                (false, true) => "pinned but not registered (stale? run `westwood-linux unload`)".to_string(),
                (false, false) => "not loaded".to_string(),
            };
            let _ = writeln!(s, "  {:<16} {state}", algo.name());
        }
        if !self.pinned.is_empty() {
            let observed = match pins::pinned_watch() {
                Some(k) => {
                    format!("through the {} (pinned at {})", k.describe(), pins::watch_pin_path(k).display())
                }
                None => "no: no iterator loaded (`westwood-linux watch` says why)".to_string(),
            };
            let _ = writeln!(s, "  {:<16} {observed}", "observed");
            let trace = match pins::trace_status() {
                Ok(()) => "available (`westwood-linux watch --acks --out FILE`)".to_string(),
                Err(why) => format!("no: {why}"),
            };
            let _ = writeln!(s, "  {:<16} {trace}", "per-ACK trace");
        }

        let problems: Vec<String> =
            self.kernel_problems().into_iter().chain(self.privilege_problems()).collect();
        let refused_register = self.probes.as_ref().and_then(|p| p.controls.as_ref().err());
        if !problems.is_empty() || refused_register.is_some() {
            let _ = writeln!(s, "\nmissing:");
            for p in problems {
                let _ = writeln!(s, "  - {p}");
            }
            if let Some(why) = refused_register {
                let _ = writeln!(s, "  - the kernel refuses the congestion controls: {why}");
            }
        } else if let Some(p) = &self.probes {
            let watch = match p.watch_kind() {
                Some(k) => format!("watch will use the {}", k.describe()),
                None => "watch cannot observe them here (see the probes)".to_string(),
            };
            let trace = match p.controls.as_ref().map(|c| c.trace.is_ok()) {
                Ok(true) => "the per-ACK trace is available",
                _ => "no per-ACK trace",
            };
            let _ = writeln!(
                s,
                "\nready: `westwood-linux load` registers {}; {watch}; {trace}",
                Algo::all().iter().map(|a| a.name()).collect::<Vec<_>>().join(", ")
            );
        }
        s
    }
}

/// Stop with advice unless the kernel and this process can load BPF congestion controls.
pub fn require_privileged(need_kernel: bool) -> Result<Status> {
    let st = Status::gather();
    let mut problems = st.privilege_problems();
    if need_kernel {
        problems.extend(st.kernel_problems());
    }
    if problems.is_empty() {
        Ok(st)
    } else {
        Err(Error::Prereq(format!("cannot continue:\n  - {}", problems.join("\n  - "))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kernel_hz_is_read_from_its_configuration() {
        assert_eq!(config_hz("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n"), Some(250));
        assert_eq!(config_hz("CONFIG_HZ=1000"), Some(1000));
        assert_eq!(config_hz("CONFIG_HZ_1000=y\n"), None);
    }

    #[test]
    fn versions() {
        assert_eq!(parse_version("6.18.44-fc-v669"), (6, 18, 44));
        assert_eq!(parse_version("5.13.0"), (5, 13, 0));
        assert_eq!(parse_version("6.1"), (6, 1, 0));
        assert_eq!(parse_version("weird"), (0, 0, 0));
    }
}
