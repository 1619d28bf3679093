//! `westwood-emu path`: an emulated path for tools that measure real paths (`westwood measure`):
//! a client namespace and a server namespace joined through the link emulator, iperf3 servers
//! in the server namespace, and a command run in the client namespace, which reaches the servers
//! at `$WESTWOOD_PATH_SERVER` (ports `$WESTWOOD_PATH_PORTS`). When the command exits, the
//! emulator's own counters (per direction: packets and bytes offered and delivered, drops by
//! cause) are printed and written to `--report FILE` (JSON), so what the command measured can be
//! checked against what the path did; the exit status is the command's.
//!
//! ```text
//!   [client ns: COMMAND] === [router ns: emulator, LINK both ways] === [server ns: iperf3 -s ...]
//! ```
//!
//! The command runs with only its network namespace changed (the filesystem, /sys and bpffs
//! stay the host's, so `westwood linux load` works from it). Everything is removed at the end,
//! also on an error, Ctrl-C or SIGTERM (the command gets SIGTERM and a few seconds to clean up).

use std::os::fd::AsRawFd;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use westwood_linux::netns::{tool, ChildGuard};
use westwood_linux::sig;

use crate::core::{links_from_toml, Emulator, Route};
use crate::diag::DiagSocket;
use crate::error::{scenario_error, Error, Result};
use crate::netns::{self, ip_text, EndpointSpec, Topology};
use crate::{process, realtime, sys};

pub const CLIENT_IP: [u8; 4] = [10, 202, 1, 1];
pub const SERVER_IP: [u8; 4] = [10, 202, 2, 1];
pub const FIRST_PORT: u16 = 5201;

#[derive(Debug, Clone)]
pub struct Options {
    /// The link's scenario body (`rate = "10Mbps"\ndelay = "20ms"...`), duplex unless `reverse`.
    pub link: String,
    pub reverse: Option<String>,
    pub seed: u64,
    /// iperf3 servers on ports 5201, 5202, ...
    pub servers: u16,
    /// tcpw* congestion controls to load for the command (unloaded at the end if loaded here).
    pub load: Vec<String>,
    pub report: Option<PathBuf>,
    pub fifo: Option<i32>,
    pub mtu: u32,
    pub command: Vec<String>,
}

/// Run `opts.command` in the client namespace of an emulated path.
pub fn main(opts: &Options) -> Result<i32> {
    netns::require_root("path")?;
    tool("iperf3", "iperf3")?;
    if opts.command.is_empty() {
        return Err(Error::Usage(
            "path: give the command to run after --, e.g. -- westwood measure ...".into(),
        ));
    }
    sig::install();
    netns::remove_stale_and_report();
    let link = opts.link.replace("\\n", "\n");
    let specs: Vec<(String, String)> = match &opts.reverse {
        None => vec![("path".into(), link)],
        Some(r) => vec![
            ("path".into(), format!("{link}\nduplex = false")),
            ("path.reverse".into(), format!("{}\nduplex = false", r.replace("\\n", "\n"))),
        ],
    };
    let borrowed: Vec<(&str, &str)> = specs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let (links, names) = links_from_toml(opts.seed, &borrowed).map_err(scenario_error)?;
    if links.len() != 2 {
        return Err(Error::Usage("path: the link must be duplex, or give --reverse".into()));
    }
    let bpf: Vec<&str> = opts.load.iter().map(String::as_str).collect();
    let _bpf = if bpf.is_empty() {
        None
    } else {
        Some(crate::kernel_cc::BpfGuard::ensure(&bpf, Default::default())?)
    };
    let endpoint = |suffix: &str, ip, peer| EndpointSpec {
        suffix: suffix.into(),
        ip,
        mtu: opts.mtu,
        sysctls: Vec::new(),
        optional_sysctls: Vec::new(),
        peers: vec![peer],
        route_options: Vec::new(),
    };
    let topo = Topology::create(&[endpoint("pc", CLIENT_IP, 1), endpoint("ps", SERVER_IP, 0)])?;
    let (client, server) = (&topo.endpoints[0], &topo.endpoints[1]);
    let cpus = sys::cpus();
    let mut config = realtime::Config {
        ports: vec![client.router_dev.clone(), server.router_dev.clone()],
        cpu: (cpus >= 2).then_some(cpus - 1),
        fifo_priority: opts.fifo,
        ..Default::default()
    };
    config.routes.insert((0, 1), 0);
    config.routes.insert((1, 0), 1);
    config.addresses.insert(CLIENT_IP, 0);
    config.addresses.insert(SERVER_IP, 1);
    let emu =
        Emulator::new(links, vec![Route { links: vec![0], port: 1 }, Route { links: vec![1], port: 0 }]);
    let running = realtime::spawn(Some(topo.router_path()), emu, config)
        .map_err(|e| Error::failed("starting the emulator", e))?;

    let ip = tool("ip", "iproute2")?;
    let iperf3 = tool("iperf3", "iperf3")?;
    let ports: Vec<u16> = (0..opts.servers.max(1)).map(|i| FIRST_PORT + i).collect();
    let mut servers = Vec::new();
    for &p in &ports {
        let mut cmd = process::command(&ip);
        cmd.args(["netns", "exec", &server.ns])
            .arg(&iperf3)
            .args(["-s", "-B", &ip_text(SERVER_IP), "-p", &p.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        servers.push(ChildGuard::spawn(&mut cmd)?);
    }
    let mut diag = DiagSocket::open_in(&server.ns_path())?;
    let deadline = Instant::now() + Duration::from_secs(5);
    while !ports
        .iter()
        .all(|p| diag.dump().map(|s| s.iter().any(|x| x.state == 10 && x.sport == *p)).unwrap_or(false))
    {
        if Instant::now() > deadline {
            return Err(Error::Failed("the iperf3 servers were not listening after 5 s".into()));
        }
        sig::sleep(Duration::from_millis(10))?;
    }

    let ns = std::fs::File::open(client.ns_path())
        .map_err(|e| Error::failed(format!("opening {}", client.ns_path()), e))?;
    let fd = ns.as_raw_fd();
    let mut cmd = process::command(&opts.command[0]);
    cmd.args(&opts.command[1..])
        .env("WESTWOOD_PATH_SERVER", ip_text(SERVER_IP))
        .env("WESTWOOD_PATH_CLIENT", ip_text(CLIENT_IP))
        .env("WESTWOOD_PATH_PORTS", ports.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(","));
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(move || {
            if libc::setns(fd, libc::CLONE_NEWNET) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    eprintln!(
        "path: {} <-> {} through {}; running {:?} in the client namespace",
        ip_text(CLIENT_IP),
        ip_text(SERVER_IP),
        names.join(", "),
        opts.command.join(" ")
    );
    let started = sys::monotonic_ns();
    let mut child = ChildGuard::spawn(&mut cmd)?;
    drop(ns);
    let status = loop {
        if let Some(st) = child.child().try_wait()? {
            break Some(st);
        }
        if sig::interrupted() {
            // Ctrl-C reached the command too (same process group); a SIGTERM did not: pass it
            // on, and give it time to clean up.
            unsafe { libc::kill(child.child().id() as i32, libc::SIGTERM) };
            let until = Instant::now() + Duration::from_secs(5);
            while Instant::now() < until {
                if let Some(_st) = child.child().try_wait()? {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let seconds = (sys::monotonic_ns() - started) as f64 / 1e9;
    drop(child);
    drop(servers);
    let report = running.stop().map_err(|e| Error::failed("the emulator", e))?;
    let directions = ["client_to_server", "server_to_client"];
    let value = json!({
        "client": ip_text(CLIENT_IP),
        "server": ip_text(SERVER_IP),
        "ports": ports,
        "links": names.iter().zip(&report.links).map(|(n, l)| json!({
            "name": n, "rate_bps": l.rate_bps, "delay_seconds": l.delay as f64 / 1e9,
            "packets_sent": l.stats.packets_sent, "bytes_sent": l.stats.bytes_sent,
            "drops_overflow": l.stats.drops_overflow, "drops_red": l.stats.drops_red,
            "drops_error": l.stats.drops_error, "drops_outage": l.stats.drops_outage,
        })).collect::<Vec<_>>(),
        "routes": directions.iter().zip(&report.routes).map(|(d, r)| json!({ "direction": d, "counters": r })).collect::<Vec<_>>(),
        "counters": report.counters,
        "lateness_seconds": {
            "p50": report.lateness.quantile_ns(0.5) as f64 / 1e9,
            "p99": report.lateness.quantile_ns(0.99) as f64 / 1e9,
            "max": report.lateness.max_ns() as f64 / 1e9,
        },
        "stalls": report.stalls.to_json(),
        "command_seconds": seconds,
        "command_status": status.and_then(|s| s.code()),
    });
    for (d, r) in directions.iter().zip(&report.routes) {
        eprintln!(
            "path {d}: {} packets offered, {} delivered; drops: overflow {}, red {}, error {}, outage {}",
            r.offered_packets,
            r.delivered_packets,
            r.drops_overflow,
            r.drops_red,
            r.drops_error,
            r.drops_outage
        );
    }
    if let Some(path) = &opts.report {
        let mut file = westwood_trace::AtomicFile::create(path)
            .map_err(|e| Error::failed(format!("writing {}", path.display()), e))?;
        use std::io::Write;
        let text = serde_json::to_string_pretty(&value).unwrap_or_default() + "\n";
        file.write_all(text.as_bytes())
            .and_then(|()| file.commit())
            .map_err(|e| Error::failed(format!("writing {}", path.display()), e))?;
    }
    drop(topo);
    match status {
        None => Err(Error::Interrupted),
        Some(st) => Ok(st
            .code()
            .unwrap_or_else(|| 128 + std::os::unix::process::ExitStatusExt::signal(&st).unwrap_or(0))),
    }
}
