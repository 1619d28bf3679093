//! The testbed's network: one namespace per endpoint and a router namespace, joined by veth
//! pairs, as an RAII guard that removes everything on drop (success, error or Ctrl-C).
//!
//! ```text
//!   [ep 0: e0] ===veth=== [ep0 : router : ep1] ===veth=== [e0: ep 1]   ...
//!                          \___ emulator (AF_PACKET on every router-side end) ___/
//! ```
//!
//! * Namespaces are named `wwtb-<pid>-s<starttime>-<n>-<suffix>`, after the process that
//!   made them (pid and start time, [`crate::process::Owner`]); the router is `...-rt`. A run
//!   killed with SIGKILL leaves them behind: [`remove_stale`] deletes every `wwtb-` namespace
//!   whose owner is not running — no such pid, a zombie, or a pid since reused by a process
//!   with another start time — and kills what still runs in it, so the next run starts clean.
//!   Names of older versions (`wwtb-<pid>-<n>-<suffix>`, no start time) still parse; for
//!   them a reused pid cannot be told from the owner. The pid stays first so that older
//!   versions, which read only it, keep seeing these names' owners as alive.
//! * Nothing else is named after a namespace, and nothing outside them is left: both ends of
//!   every veth are created directly inside their namespaces (one `ip link add ... netns`),
//!   and deleting a namespace destroys the veth ends in it, so removing the namespaces
//!   removes the veths. Every `ip`/iperf3 child dies with us (`PR_SET_PDEATHSIG`).
//! * The router namespace has no addresses: its kernel forwards nothing (frames for another
//!   MAC are PACKET_OTHERHOST there), only the emulator moves frames between its interfaces.
//! * Endpoints have one /32 address each, a host route and a permanent neighbour entry for
//!   each peer (no ARP), IPv6 off (no router solicitations or DAD on the path), and the
//!   path's MTU. GSO is off (`gso_max_segs 1`: TCP builds one-MSS packets, so a loss hits one
//!   segment) and GRO cannot merge (`gro_max_size` of one frame).
//! * A veth hands a frame to the CPU backlog of the CPU that sends it. A TCP sender
//!   transmits both from its process and from the softirq that processes ACKs, which runs on
//!   the emulator's CPU (the emulator's send delivers the ACK); were the process on another
//!   CPU, its segments would go through two backlogs and could reach the emulator out of
//!   order. The testbed therefore pins the senders to the emulator's CPU (not receive packet
//!   steering: that would push all frames through one CPU's softirq, which the kernel defers
//!   to ksoftirqd — a normal-priority thread — under load, adding milliseconds).
//! * Traffic exists only inside these namespaces: nothing is routed to the host's.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};

use westwood_linux::netns::{run, tool};

use crate::error::{Error, Result};
use crate::process::{self, Gone, Owner};
use crate::sys;

/// Prefix of every namespace the testbed creates.
pub const PREFIX: &str = "wwtb-";
/// Interface name of every endpoint's veth end.
pub const ENDPOINT_DEV: &str = "e0";

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// What one endpoint namespace needs.
#[derive(Debug, Clone)]
pub struct EndpointSpec {
    /// Namespace suffix and name of the router-side interface (short: <= 15 characters).
    pub suffix: String,
    pub ip: [u8; 4],
    pub mtu: u32,
    /// `net.*` sysctls to set in the namespace (key as in /proc/sys with dots).
    pub sysctls: Vec<(String, String)>,
    /// Sysctls to set if the kernel has them (ignored otherwise).
    pub optional_sysctls: Vec<(String, String)>,
    /// Indices of the endpoints it talks to.
    pub peers: Vec<usize>,
    /// Extra `ip route` attributes of the routes to its peers (`initcwnd 4`, `quickack 1`...).
    pub route_options: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Endpoint {
    pub ns: String,
    pub router_dev: String,
    pub ip: [u8; 4],
    pub mac: [u8; 6],
}

impl Endpoint {
    pub fn ns_path(&self) -> String {
        format!("/run/netns/{}", self.ns)
    }
}

pub fn ip_text(ip: [u8; 4]) -> String {
    std::net::Ipv4Addr::from(ip).to_string()
}

fn mac_text(mac: [u8; 6]) -> String {
    mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")
}

/// The namespaces and veth pairs of a run.
#[derive(Debug)]
pub struct Topology {
    pub router: String,
    pub endpoints: Vec<Endpoint>,
    /// Namespaces created so far (removed on drop).
    created: Vec<String>,
    ip: PathBuf,
}

/// Fail with exit status 2 unless running as root with `ip` available.
pub fn require_root(what: &str) -> Result<()> {
    if !sys::is_root() {
        return Err(Error::Prereq(format!(
            "{what} needs root (it creates network namespaces, veth pairs and AF_PACKET sockets): run it with sudo"
        )));
    }
    tool("ip", "iproute2")?;
    if !std::path::Path::new("/proc/self/ns/net").exists() {
        return Err(Error::Prereq("this kernel has no network namespaces (CONFIG_NET_NS)".into()));
    }
    Ok(())
}

impl Topology {
    pub fn router_path(&self) -> String {
        format!("/run/netns/{}", self.router)
    }

    /// Create the router and the endpoints.
    pub fn create(specs: &[EndpointSpec]) -> Result<Topology> {
        let ip = tool("ip", "iproute2")?;
        let owner = Owner::current()
            .map_err(|e| Error::failed("reading this process's start time from /proc/self/stat", e))?;
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let base = format!("{}-{n}", owner_prefix(owner));
        let mut topo =
            Topology { router: format!("{base}-rt"), endpoints: Vec::new(), created: Vec::new(), ip };
        // From here on, Drop removes whatever exists.
        topo.add_ns(&topo.router.clone())?;
        let no_ipv6 = [("net.ipv6.conf.all.disable_ipv6", "1"), ("net.ipv6.conf.default.disable_ipv6", "1")];
        set_sysctls(&topo.router_path(), &no_ipv6.map(|(k, v)| (k.to_string(), v.to_string())), false)?;
        for (i, spec) in specs.iter().enumerate() {
            let ns = format!("{base}-{}", spec.suffix);
            topo.add_ns(&ns)?;
            let mut sysctls: Vec<(String, String)> =
                no_ipv6.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            sysctls.extend(spec.sysctls.iter().cloned());
            let path = format!("/run/netns/{ns}");
            set_sysctls(&path, &sysctls, false)?;
            set_sysctls(&path, &spec.optional_sysctls, true)?;
            let mac = [0x02, 0x77, 0x00, (i >> 8) as u8, i as u8, 0x01];
            let router_mac = [0x02, 0x77, 0x01, (i >> 8) as u8, i as u8, 0x02];
            topo.cmd(&[
                "link",
                "add",
                ENDPOINT_DEV,
                "address",
                &mac_text(mac),
                "netns",
                &ns,
                "type",
                "veth",
                "peer",
                "name",
                &spec.suffix,
                "address",
                &mac_text(router_mac),
                "netns",
                &topo.router.clone(),
            ])?;
            topo.endpoints.push(Endpoint { ns, router_dev: spec.suffix.clone(), ip: spec.ip, mac });
        }
        for (ep, spec) in topo.endpoints.clone().iter().zip(specs) {
            let mtu = spec.mtu.to_string();
            for (ns, dev) in [(&ep.ns, ENDPOINT_DEV), (&topo.router.clone(), ep.router_dev.as_str())] {
                topo.link_settings(ns, dev, &mtu)?;
            }
            topo.cmd(&["-n", &ep.ns, "addr", "add", &format!("{}/32", ip_text(ep.ip)), "dev", ENDPOINT_DEV])?;
            topo.cmd(&["-n", &ep.ns, "link", "set", "lo", "up"])?;
            for &p in &spec.peers {
                let peer = &topo.endpoints[p];
                let peer_ip = ip_text(peer.ip);
                topo.cmd(&[
                    "-n",
                    &ep.ns,
                    "neigh",
                    "add",
                    &peer_ip,
                    "lladdr",
                    &mac_text(peer.mac),
                    "dev",
                    ENDPOINT_DEV,
                    "nud",
                    "permanent",
                ])?;
                let mut route: Vec<String> =
                    ["-n", &ep.ns, "route", "add", &format!("{peer_ip}/32"), "dev", ENDPOINT_DEV, "src"]
                        .iter()
                        .map(|s| s.to_string())
                        .collect();
                route.push(ip_text(ep.ip));
                route.extend(spec.route_options.iter().cloned());
                topo.cmd(&route.iter().map(String::as_str).collect::<Vec<_>>())?;
            }
        }
        Ok(topo)
    }

    fn add_ns(&mut self, name: &str) -> Result<()> {
        run(process::command(&self.ip).args(["netns", "add", name]))?;
        self.created.push(name.to_string());
        Ok(())
    }

    fn cmd(&self, args: &[&str]) -> Result<String> {
        run(process::command(&self.ip).args(args))
    }

    /// MTU, GSO off, GRO unable to merge, up.
    fn link_settings(&self, ns: &str, dev: &str, mtu: &str) -> Result<()> {
        // gro_max_size below two frames: GRO (if something turns it on) cannot merge segments.
        let full =
            ["-n", ns, "link", "set", "dev", dev, "mtu", mtu, "gso_max_segs", "1", "gro_max_size", mtu, "up"];
        if self.cmd(&full).is_err() {
            // An iproute2 or kernel without gro_max_size: GRO is off on veth by default anyway.
            self.cmd(&["-n", ns, "link", "set", "dev", dev, "mtu", mtu, "gso_max_segs", "1", "up"])?;
        }
        Ok(())
    }
}

impl Drop for Topology {
    fn drop(&mut self) {
        for ns in self.created.iter().rev() {
            if let Err(e) = delete_namespace(&self.ip, ns) {
                // The next run (or `westwood-emu cleanup`) removes it once we have exited.
                eprintln!("warning: {e}");
            }
        }
    }
}

/// Kill every process in namespace `ns` and delete it (which destroys its veth ends). An
/// error says why it still exists; one that is gone already (another run removed it) is fine.
fn delete_namespace(ip: &Path, ns: &str) -> std::result::Result<(), String> {
    for _ in 0..3 {
        let Ok(out) = process::command(ip).args(["netns", "pids", ns]).stderr(Stdio::null()).output() else {
            break;
        };
        let pids: Vec<i32> =
            String::from_utf8_lossy(&out.stdout).split_whitespace().filter_map(|p| p.parse().ok()).collect();
        if pids.is_empty() {
            break;
        }
        for pid in pids {
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = process::command(ip).args(["netns", "del", ns]).stdin(Stdio::null()).output();
    if !Path::new(NETNS_DIR).join(ns).exists() {
        return Ok(());
    }
    Err(match out {
        Ok(out) => format!("`ip netns del {ns}` failed: {}", String::from_utf8_lossy(&out.stderr).trim()),
        Err(e) => format!("running `ip netns del {ns}`: {e}"),
    })
}

/// (rx, tx) packets dropped by interface `dev` of namespace `ns` (`ip -s link`).
pub fn link_drops(ns: &str, dev: &str) -> Result<(u64, u64)> {
    let ip = tool("ip", "iproute2")?;
    let text = run(process::command(ip).args(["-n", ns, "-s", "-j", "link", "show", "dev", dev]))?;
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| Error::failed("ip -j link", e))?;
    let stats = &v[0]["stats64"];
    let n = |x: &serde_json::Value| x.as_u64().unwrap_or(0);
    Ok((n(&stats["rx"]["dropped"]), n(&stats["tx"]["dropped"])))
}

/// Where `ip netns` keeps its namespaces (one file each, named after the namespace).
const NETNS_DIR: &str = "/run/netns";

/// Our namespaces that exist now (all runs).
pub fn existing() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir(NETNS_DIR) else { return Vec::new() };
    let mut names: Vec<String> = dir
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(PREFIX))
        .collect();
    names.sort();
    names
}

/// The start of the names of `owner`'s namespaces: `wwtb-<pid>-s<starttime>` (the pid first,
/// where older versions read it; `s` tells the start time from the older names' counter).
pub fn owner_prefix(owner: Owner) -> String {
    match owner.start_time {
        Some(t) => format!("{PREFIX}{}-s{t}", owner.pid),
        None => format!("{PREFIX}{}", owner.pid),
    }
}

/// The owner recorded in one of our namespace names (`None`: not a name we write).
pub fn owner_of(name: &str) -> Option<Owner> {
    let mut parts = name.strip_prefix(PREFIX)?.split('-');
    let pid = parts.next()?.parse().ok()?;
    let start_time = match parts.next()?.strip_prefix('s') {
        Some(t) => Some(t.parse().ok()?),
        None => None,
    };
    Some(Owner { pid, start_time })
}

/// Why a namespace counts as left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stale {
    /// The process that created it is not running ([`Gone`] says how).
    Owner(Gone),
    /// A `wwtb-` name with no owner in it (not one we write).
    Unowned,
}

impl std::fmt::Display for Stale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stale::Owner(gone) => write!(f, "owner {gone}"),
            Stale::Unowned => f.write_str("no owner in the name"),
        }
    }
}

/// Whether namespace `name` is left behind by a run that no longer exists (`None`: its
/// owner runs, so it is in use).
pub fn stale(name: &str) -> Option<Stale> {
    match owner_of(name) {
        Some(owner) => owner.gone().map(Stale::Owner),
        None => Some(Stale::Unowned),
    }
}

/// A left-behind namespace [`remove_stale`] dealt with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    pub name: String,
    pub why: Stale,
    /// Why it could not be removed (it still exists).
    pub error: Option<String>,
}

/// Remove namespaces left by runs that no longer exist (killed with SIGKILL, say), with what
/// still runs in them and so their veths: one entry per namespace found stale. Namespaces of
/// running runs (this process's included) are left alone.
pub fn remove_stale() -> Vec<Removal> {
    let Ok(ip) = tool("ip", "iproute2") else { return Vec::new() };
    let mut removals = Vec::new();
    for name in existing() {
        if let Some(why) = stale(&name) {
            let error = delete_namespace(&ip, &name).err();
            removals.push(Removal { name, why, error });
        }
    }
    removals
}

/// [`remove_stale`], saying on stderr what it removed (and what it could not), for the
/// commands that clean up before they start. Returns the removals.
pub fn remove_stale_and_report() -> Vec<Removal> {
    let removals = remove_stale();
    if let Some(text) = describe_removals(&removals) {
        eprintln!("{text}");
    }
    removals
}

/// One line per outcome: the namespaces removed (and why each was stale), then each that
/// could not be. `None` if there were none.
pub fn describe_removals(removals: &[Removal]) -> Option<String> {
    if removals.is_empty() {
        return None;
    }
    let (failed, removed): (Vec<&Removal>, Vec<&Removal>) = removals.iter().partition(|r| r.error.is_some());
    let mut lines = Vec::new();
    if !removed.is_empty() {
        let names: Vec<String> = removed.iter().map(|r| format!("{} ({})", r.name, r.why)).collect();
        lines.push(format!(
            "removed {} namespace(s) left by earlier runs: {}",
            removed.len(),
            names.join(", ")
        ));
    }
    for r in failed {
        lines.push(format!(
            "warning: could not remove namespace {} ({}): {}",
            r.name,
            r.why,
            r.error.as_deref().unwrap_or("")
        ));
    }
    Some(lines.join("\n"))
}

/// Run `f` on a thread that has entered the namespace at `path`.
pub fn in_netns<T: Send>(path: &str, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    std::thread::scope(|s| {
        s.spawn(|| {
            sys::enter_netns(path).map_err(|e| Error::failed(format!("entering {path}"), e))?;
            f()
        })
        .join()
        .unwrap_or_else(|_| Err(Error::Failed("namespace thread panicked".into())))
    })
}

/// Write sysctls (`net.ipv4.tcp_sack` = /proc/sys/net/ipv4/tcp_sack) inside a namespace.
/// With `optional`, keys the kernel does not have are skipped.
pub fn set_sysctls(ns_path: &str, sysctls: &[(String, String)], optional: bool) -> Result<()> {
    if sysctls.is_empty() {
        return Ok(());
    }
    in_netns(ns_path, || {
        for (key, value) in sysctls {
            let path = format!("/proc/sys/{}", key.replace('.', "/"));
            match std::fs::write(&path, value) {
                Ok(()) => {}
                Err(e) if optional && e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) if optional && e.raw_os_error() == Some(libc::EINVAL) => {}
                Err(e) => return Err(Error::failed(format!("setting {key}={value}"), e)),
            }
        }
        Ok(())
    })
}

/// Read a sysctl inside a namespace.
pub fn get_sysctl(ns_path: &str, key: &str) -> Result<String> {
    let key = key.to_string();
    in_netns(ns_path, move || {
        let path = format!("/proc/sys/{}", key.replace('.', "/"));
        Ok(std::fs::read_to_string(&path)
            .map_err(|e| Error::failed(format!("reading {key}"), e))?
            .trim()
            .to_string())
    })
}

/// TCP counters of a namespace (`/proc/net/netstat` TcpExt and `/proc/net/snmp` Tcp).
pub fn tcp_counters(ns_path: &str) -> Result<std::collections::HashMap<String, u64>> {
    in_netns(ns_path, || {
        let mut map = std::collections::HashMap::new();
        for file in ["/proc/thread-self/net/netstat", "/proc/thread-self/net/snmp"] {
            let text =
                std::fs::read_to_string(file).map_err(|e| Error::failed(format!("reading {file}"), e))?;
            let lines: Vec<&str> = text.lines().collect();
            for pair in lines.chunks(2) {
                if let [names, values] = pair {
                    let (prefix, names) = names.split_once(':').unwrap_or(("", names));
                    let values = values.split_once(':').map_or(*values, |v| v.1);
                    for (n, v) in names.split_whitespace().zip(values.split_whitespace()) {
                        if let Ok(v) = v.parse::<u64>() {
                            map.insert(format!("{prefix}{n}"), v);
                        }
                    }
                }
            }
        }
        Ok(map)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_parsed_from_the_name() {
        let owner = |pid, start_time| Some(Owner { pid, start_time });
        assert_eq!(owner_of("wwtb-1234-s98765-0-rt"), owner(1234, Some(98765)));
        assert_eq!(owner_of("wwtb-77-s5-3-f0s"), owner(77, Some(5)));
        // Older names: the pid only.
        assert_eq!(owner_of("wwtb-1234-0-rt"), owner(1234, None));
        assert_eq!(owner_of("wwtb-77-3-f0s"), owner(77, None));
        for bad in ["westwood-bench-1-0-c", "wwtb-x", "wwtb-12", "wwtb-12-sx-0-rt", "wwtb--s1-0-rt", "wwtb-"]
        {
            assert_eq!(owner_of(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn a_name_written_from_an_owner_reads_back_as_that_owner() {
        for owner in [Owner { pid: 42, start_time: Some(123456789) }, Owner { pid: 42, start_time: None }] {
            assert_eq!(owner_of(&format!("{}-0-rt", owner_prefix(owner))), Some(owner));
        }
    }

    #[test]
    fn removals_say_what_was_removed_and_why_and_what_was_not() {
        assert_eq!(describe_removals(&[]), None);
        let removal = |name: &str, why, error: Option<&str>| Removal {
            name: name.into(),
            why,
            error: error.map(String::from),
        };
        let text = describe_removals(&[
            removal("wwtb-1-s2-0-rt", Stale::Owner(Gone::Zombie), None),
            removal("wwtb-3-s4-0-rt", Stale::Owner(Gone::PidReused), None),
            removal("wwtb-x", Stale::Unowned, Some("busy")),
        ])
        .unwrap();
        assert_eq!(
            text,
            "removed 2 namespace(s) left by earlier runs: wwtb-1-s2-0-rt (owner is a zombie), wwtb-3-s4-0-rt (owner \
             exited, pid reused)\nwarning: could not remove namespace wwtb-x (no owner in the name): busy"
        );
    }
}
