//! `load` and `unload`.
//!
//! Everything lives in bpffs under [`PIN_DIR`] (/sys/fs/bpf/westwood):
//!
//! | pin          | what                                                      |
//! |--------------|-----------------------------------------------------------|
//! | `tcpw`       | the struct_ops link of `tcpw_ops` (registers "tcpw")      |
//! | `tcpw_plus`  | the struct_ops link of `tcpw_plus_ops` ("tcpw_plus")      |
//! | `sk_storage` | the socket-local storage map both programs write          |
//! | `watch`      | the BPF iterator over that map (read by `watch`)          |
//!
//! A struct_ops link keeps its congestion control registered while it exists; the pin is
//! its only reference once `load` exits, so removing the pin unregisters it. Sockets that
//! use the algorithm at that moment keep it (they hold the struct_ops map and programs)
//! until they close; new sockets can no longer choose it.
//!
//! Loading a second algorithm later loads the object again and reuses the pinned map, so
//! one iterator sees the sockets of both. On kernels before 6.4 (no struct_ops links) the
//! struct_ops map itself is registered and pinned instead, and `unload` deletes its element
//! (the map form; untested here — this machine runs 6.18).

use std::fs;
use std::mem::MaybeUninit;
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use libbpf_rs::skel::{OpenSkel, SkelBuilder};

use crate::prereq::{self, BPFFS};
use crate::skel::TcpwSkelBuilder;
use crate::{Error, Result};

pub const PIN_DIR: &str = "/sys/fs/bpf/westwood";
pub const MAP_PIN: &str = "sk_storage";
pub const ITER_PIN: &str = "watch";

/// BPF_F_LINK (uapi): a struct_ops map registered through a link.
const BPF_F_LINK: u32 = 1 << 13;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Algo {
    Tcpw,
    TcpwPlus,
}

impl Algo {
    pub const ALL: [Algo; 2] = [Algo::Tcpw, Algo::TcpwPlus];

    /// The congestion-control name (TCP_CONGESTION, sysctl, `iperf3 -C`).
    pub fn name(self) -> &'static str {
        match self {
            Algo::Tcpw => "tcpw",
            Algo::TcpwPlus => "tcpw_plus",
        }
    }

    /// Algorithm id in the watch records (TCPW_ALGO_*).
    pub fn from_id(id: u8) -> Option<Algo> {
        match id {
            1 => Some(Algo::Tcpw),
            2 => Some(Algo::TcpwPlus),
            _ => None,
        }
    }

    pub fn pin_path(self) -> PathBuf {
        Path::new(PIN_DIR).join(self.name())
    }

    /// "tcpw" | "tcpw_plus" (also "tcpw-plus") | "all".
    pub fn parse_set(s: &str) -> Option<Vec<Algo>> {
        match s {
            "tcpw" => Some(vec![Algo::Tcpw]),
            "tcpw_plus" | "tcpw-plus" => Some(vec![Algo::TcpwPlus]),
            "all" => Some(Algo::ALL.to_vec()),
            _ => None,
        }
    }
}

pub fn pinned_algos() -> Vec<Algo> {
    Algo::ALL.into_iter().filter(|a| a.pin_path().exists()).collect()
}

pub fn map_pin_path() -> PathBuf {
    Path::new(PIN_DIR).join(MAP_PIN)
}

pub fn iter_pin_path() -> PathBuf {
    Path::new(PIN_DIR).join(ITER_PIN)
}

/// Mount bpffs at /sys/fs/bpf if it is not mounted.
pub fn ensure_bpffs() -> Result<()> {
    if prereq::bpffs_mounted_at(BPFFS) {
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

#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub algos: Vec<Algo>,
    /// Filter time constant tau, us (default 500 ms).
    pub tau_us: Option<u32>,
    /// Virtual samples every tau/m of silence (m >= 2, default 2).
    pub m: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadReport {
    /// Registered by this call.
    pub loaded: Vec<Algo>,
    /// Already registered (pinned) before.
    pub already: Vec<Algo>,
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

/// Register `opts.algos` (those not registered yet) and pin what `watch` needs.
pub fn load(opts: &LoadOptions) -> Result<LoadReport> {
    let status = prereq::require_privileged(true)?;
    if let Some(m) = opts.m {
        if m < 2 {
            return Err(Error::Usage(format!("--m {m}: m must be at least 2 (Nyquist, seed 000 §2.2)")));
        }
    }
    if let Some(tau) = opts.tau_us {
        if tau == 0 || tau > 1_000_000_000 {
            return Err(Error::Usage("--tau-ms must be in (0, 1000000]".into()));
        }
    }
    ensure_bpffs()?;
    fs::create_dir_all(PIN_DIR).map_err(|e| Error::failed(format!("cannot create {PIN_DIR}"), e))?;

    let mut report = LoadReport::default();
    let mut to_load = Vec::new();
    for &a in &opts.algos {
        if a.pin_path().exists() {
            report.already.push(a);
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
    let need_map_pin = !map_pin_path().exists();
    let need_iter = !iter_pin_path().exists();
    if to_load.is_empty() && !need_map_pin && !need_iter {
        return Ok(report);
    }
    let link_form = status.link_form();

    let mut open_object = MaybeUninit::uninit();
    let builder = TcpwSkelBuilder::default();
    let mut open = builder.open(&mut open_object).map_err(|e| Error::failed("opening the BPF object", e))?;
    if let Some(rodata) = open.maps.rodata_data.as_deref_mut() {
        if let Some(tau) = opts.tau_us {
            rodata.tcpw_tau_us = tau;
        }
        if let Some(m) = opts.m {
            rodata.tcpw_m = m;
        }
    }
    if !need_map_pin {
        open.maps.tcpw_sk_stor.reuse_pinned_map(map_pin_path()).map_err(|e| {
            Error::failed(
                format!("reusing {} (left by another version? run unload)", map_pin_path().display()),
                e,
            )
        })?;
    }
    for a in Algo::ALL {
        let map = match a {
            Algo::Tcpw => &mut open.maps.tcpw_ops,
            Algo::TcpwPlus => &mut open.maps.tcpw_plus_ops,
        };
        if !to_load.contains(&a) {
            map.set_autocreate(false)?;
        } else if !link_form {
            let flags = map.map_flags() & !BPF_F_LINK;
            map.set_map_flags(flags)?;
        }
    }
    let mut skel = open.load().map_err(|e| {
        Error::Failed(format!(
            "loading the BPF program failed: {e} (the verifier log, if any, is above; `westwood-linux status` checks \
             the kernel)"
        ))
    })?;

    let mut rollback = Rollback(Vec::new());
    if need_map_pin {
        skel.maps
            .tcpw_sk_stor
            .pin(map_pin_path())
            .map_err(|e| Error::failed("pinning the sk_storage map", e))?;
        rollback.0.push(map_pin_path());
    }
    if need_iter {
        let mut link = skel
            .progs
            .tcpw_watch
            .attach_iter(skel.maps.tcpw_sk_stor.as_fd())
            .map_err(|e| Error::failed("creating the sk_storage iterator", e))?;
        link.pin(iter_pin_path()).map_err(|e| Error::failed("pinning the iterator", e))?;
        rollback.0.push(iter_pin_path());
    }
    for &a in &to_load {
        let map = match a {
            Algo::Tcpw => &mut skel.maps.tcpw_ops,
            Algo::TcpwPlus => &mut skel.maps.tcpw_plus_ops,
        };
        let mut link = map
            .attach_struct_ops()
            .map_err(|e| Error::failed(format!("registering {} (struct_ops)", a.name()), e))?;
        if link_form {
            link.pin(a.pin_path())
                .map_err(|e| Error::failed(format!("pinning {}", a.pin_path().display()), e))?;
            rollback.0.push(a.pin_path());
        } else {
            // Map form: the registration lives as long as the map; dropping libbpf's
            // stand-in link would unregister it, so pin the map and forget the link.
            let pinned = map.pin(a.pin_path());
            std::mem::forget(link);
            pinned.map_err(|e| Error::failed(format!("pinning {}", a.pin_path().display()), e))?;
            rollback.0.push(a.pin_path());
        }
        report.loaded.push(a);
    }
    rollback.0.clear();
    // Registration is synchronous; check that the kernel lists the names.
    for &a in &report.loaded {
        if !prereq::is_registered(a.name()) {
            return Err(Error::Failed(format!(
                "{} was attached but is not in {}",
                a.name(),
                prereq::AVAILABLE_CC
            )));
        }
    }
    Ok(report)
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

/// Remove the pins of `algos`; when none is left, also the iterator, the map and the
/// directory. Waits (up to 3 s) until the kernel no longer lists the names. Returns what
/// was unloaded; nothing loaded is not an error.
pub fn unload(algos: &[Algo]) -> Result<Vec<Algo>> {
    prereq::require_privileged(false)?;
    let mut removed = Vec::new();
    for &a in algos {
        let p = a.pin_path();
        if p.exists() {
            unregister_map_form(&p);
            fs::remove_file(&p).map_err(|e| Error::failed(format!("removing {}", p.display()), e))?;
            removed.push(a);
        }
    }
    if pinned_algos().is_empty() {
        for p in [iter_pin_path(), map_pin_path()] {
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
        assert_eq!(Algo::parse_set("tcpw"), Some(vec![Algo::Tcpw]));
        assert_eq!(Algo::parse_set("tcpw_plus"), Some(vec![Algo::TcpwPlus]));
        assert_eq!(Algo::parse_set("all"), Some(vec![Algo::Tcpw, Algo::TcpwPlus]));
        assert_eq!(Algo::parse_set("westwood"), None);
        assert_eq!(Algo::Tcpw.pin_path(), PathBuf::from("/sys/fs/bpf/westwood/tcpw"));
        assert_eq!(Algo::from_id(2), Some(Algo::TcpwPlus));
        assert_eq!(Algo::from_id(0), None);
    }
}
