//! Prerequisites: the kernel (version, BTF, struct_ops for tcp_congestion_ops, the Reno
//! kfuncs, the sk_storage iterator, the JIT), the process (root or CAP_BPF + CAP_PERFMON +
//! CAP_NET_ADMIN), bpffs, and what is registered now. `status` prints all of it with advice;
//! the privileged commands stop early with the advice for what is missing.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use crate::loader::{self, Algo};
use crate::{Error, Result};

pub const VMLINUX_BTF: &str = "/sys/kernel/btf/vmlinux";
pub const AVAILABLE_CC: &str = "/proc/sys/net/ipv4/tcp_available_congestion_control";
pub const BPFFS: &str = "/sys/fs/bpf";

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

/// "6.18.44-fc-v669" -> (6, 18, 44).
pub fn parse_version(release: &str) -> (u32, u32, u32) {
    let mut parts = release
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// What the kernel's BTF says about the features the program uses.
#[derive(Debug, Clone, Default)]
pub struct BtfFeatures {
    /// `struct bpf_struct_ops_tcp_congestion_ops`: tcp_congestion_ops can be a BPF struct_ops.
    pub struct_ops_tcp: bool,
    /// `tcp_reno_cong_avoid`, `tcp_reno_undo_cwnd`: the Reno kfuncs (5.13+).
    pub reno_kfuncs: bool,
    /// `bpf_iter__bpf_sk_storage_map`: the sk_storage map iterator (5.9+).
    pub sk_storage_iter: bool,
}

/// Names in the string section of a raw BTF blob (header: magic 0xeb9f, then hdr_len,
/// type_off/len, str_off/len, all little- or big-endian as the magic shows).
pub fn btf_strings(data: &[u8]) -> std::result::Result<HashSet<&[u8]>, String> {
    if data.len() < 24 {
        return Err("BTF blob too short".into());
    }
    let le = match (data[0], data[1]) {
        (0x9f, 0xeb) => true,
        (0xeb, 0x9f) => false,
        _ => return Err("not a BTF blob (bad magic)".into()),
    };
    let word = |off: usize| {
        let b = [data[off], data[off + 1], data[off + 2], data[off + 3]];
        (if le { u32::from_le_bytes(b) } else { u32::from_be_bytes(b) }) as usize
    };
    let hdr_len = word(4);
    let (str_off, str_len) = (word(16), word(20));
    let start = hdr_len.checked_add(str_off).ok_or("bad BTF header")?;
    let end = start.checked_add(str_len).ok_or("bad BTF header")?;
    if end > data.len() {
        return Err("BTF string section out of bounds".into());
    }
    Ok(data[start..end].split(|&b| b == 0).filter(|s| !s.is_empty()).collect())
}

pub fn btf_features(path: &Path) -> std::result::Result<BtfFeatures, String> {
    let data = fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let names = btf_strings(&data)?;
    let has = |n: &str| names.contains(n.as_bytes());
    Ok(BtfFeatures {
        struct_ops_tcp: has("bpf_struct_ops_tcp_congestion_ops"),
        reno_kfuncs: has("tcp_reno_cong_avoid") && has("tcp_reno_undo_cwnd"),
        sk_storage_iter: has("bpf_iter__bpf_sk_storage_map"),
    })
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

/// Everything `status` reports.
#[derive(Debug, Clone)]
pub struct Status {
    pub kernel: Kernel,
    pub btf: std::result::Result<BtfFeatures, String>,
    /// /proc/sys/net/core/bpf_jit_enable (None: not readable; the JIT may be always on).
    pub jit: Option<u32>,
    pub caps: Caps,
    pub bpffs_mounted: bool,
    pub available: Vec<String>,
    pub pinned: Vec<Algo>,
}

pub fn available_congestion_controls() -> Vec<String> {
    fs::read_to_string(AVAILABLE_CC)
        .map(|s| s.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

pub fn is_registered(name: &str) -> bool {
    available_congestion_controls().iter().any(|n| n == name)
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

impl Status {
    pub fn gather() -> Status {
        Status {
            kernel: Kernel::running(),
            btf: btf_features(Path::new(VMLINUX_BTF)),
            jit: fs::read_to_string("/proc/sys/net/core/bpf_jit_enable")
                .ok()
                .and_then(|s| s.trim().parse().ok()),
            caps: Caps::current(),
            bpffs_mounted: bpffs_mounted_at(BPFFS),
            available: available_congestion_controls(),
            pinned: loader::pinned_algos(),
        }
    }

    /// Struct_ops links (SEC(".struct_ops.link"), BPF_LINK_TYPE_STRUCT_OPS) exist from 6.4.
    pub fn link_form(&self) -> bool {
        self.kernel.at_least(6, 4)
    }

    /// Kernel-side problems that make loading impossible, each with advice.
    pub fn kernel_problems(&self) -> Vec<String> {
        let mut p = Vec::new();
        if !self.kernel.at_least(5, 13) {
            p.push(format!(
                "kernel {} is too old: BPF congestion controls that call the kernel's Reno (kfuncs) need 5.13 or later \
                 (6.4 or later for struct_ops links)",
                self.kernel.release
            ));
        }
        match &self.btf {
            Err(e) => p.push(format!(
                "no kernel BTF ({e}): rebuild the kernel with CONFIG_DEBUG_INFO_BTF=y (Debian/Ubuntu kernels have it)"
            )),
            Ok(f) => {
                if !f.struct_ops_tcp {
                    p.push(
                        "the kernel has no BPF struct_ops for tcp_congestion_ops: it needs CONFIG_BPF_SYSCALL=y, \
                         CONFIG_BPF_JIT=y and CONFIG_INET (bpf_tcp_ca is built in with them)"
                            .into(),
                    );
                }
                if f.struct_ops_tcp && !f.reno_kfuncs && self.kernel.at_least(5, 13) {
                    p.push("the kernel's BTF lacks tcp_reno_cong_avoid / tcp_reno_undo_cwnd (kfuncs, 5.13+)".into());
                }
                if !f.sk_storage_iter {
                    p.push(
                        "the kernel has no bpf_sk_storage_map iterator (5.9+, CONFIG_BPF_SYSCALL); `watch` needs it".into(),
                    );
                }
            }
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
            Ok(f) => {
                let _ = writeln!(s, "BTF              yes ({VMLINUX_BTF})");
                let _ = writeln!(s, "struct_ops (tcp) {}", yes(f.struct_ops_tcp));
                let _ = writeln!(
                    s,
                    "struct_ops links {}",
                    if self.link_form() { "yes (6.4+)" } else { "no (before 6.4: the map form is used)" }
                );
                let _ = writeln!(s, "Reno kfuncs      {}", yes(f.reno_kfuncs));
                let _ = writeln!(s, "sk_storage iter  {}", yes(f.sk_storage_iter));
            }
            Err(e) => {
                let _ = writeln!(s, "BTF              NO ({e})");
            }
        }
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
        for algo in Algo::ALL {
            let registered = self.available.iter().any(|n| n == algo.name());
            let pinned = self.pinned.contains(&algo);
            let state = match (registered, pinned) {
                (true, true) => format!("registered (pinned at {})", algo.pin_path().display()),
                (true, false) => "registered, but not by westwood-linux (no pin)".to_string(),
                (false, true) => "pinned but not registered (stale? run `westwood-linux unload`)".to_string(),
                (false, false) => "not loaded — `westwood-linux load` registers it".to_string(),
            };
            let _ = writeln!(s, "{:<16} {state}", algo.name());
        }
        let problems: Vec<String> =
            self.kernel_problems().into_iter().chain(self.privilege_problems()).collect();
        if problems.is_empty() {
            let _ = writeln!(s, "\nready: `westwood-linux load` registers tcpw and tcpw_plus");
        } else {
            let _ = writeln!(s, "\nmissing:");
            for p in problems {
                let _ = writeln!(s, "  - {p}");
            }
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
    fn versions() {
        assert_eq!(parse_version("6.18.44-fc-v669"), (6, 18, 44));
        assert_eq!(parse_version("5.13.0"), (5, 13, 0));
        assert_eq!(parse_version("6.1"), (6, 1, 0));
        assert_eq!(parse_version("weird"), (0, 0, 0));
    }

    #[test]
    fn btf_string_section() {
        // header (24 bytes), no types, strings "\0abc\0tcp_reno_cong_avoid\0"
        let strings = b"\0abc\0tcp_reno_cong_avoid\0";
        let mut blob = vec![0x9f, 0xeb, 1, 0];
        blob.extend(24u32.to_le_bytes()); // hdr_len
        blob.extend(0u32.to_le_bytes()); // type_off
        blob.extend(0u32.to_le_bytes()); // type_len
        blob.extend(0u32.to_le_bytes()); // str_off
        blob.extend((strings.len() as u32).to_le_bytes());
        blob.extend(strings);
        let names = btf_strings(&blob).unwrap();
        assert!(names.contains(&b"abc"[..]));
        assert!(names.contains(&b"tcp_reno_cong_avoid"[..]));
        assert!(!names.contains(&b"tcp_reno"[..]));
        assert!(btf_strings(&blob[..10]).is_err());
        let mut bad = blob.clone();
        bad[0] = 0;
        assert!(btf_strings(&bad).is_err());
    }
}
