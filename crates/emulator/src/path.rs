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

use westwood_simulator::model::Nanos;

use crate::diag::DiagSocket;
use crate::engine::{links_from_toml, Emulator, Route};
use crate::error::{scenario_error, Error, Result};
use crate::netns::{self, ip_text, EndpointSpec, Topology};
use crate::{process, realtime, sys};

pub const CLIENT_IP: [u8; 4] = [10, 202, 1, 1];
pub const SERVER_IP: [u8; 4] = [10, 202, 2, 1];
pub const FIRST_PORT: u16 = 5201;

/// Where the path comes from.
#[derive(Debug, Clone)]
pub enum PathSpec {
    /// A link's scenario body (`rate = "10Mbps"\ndelay = "20ms"...`), duplex unless `reverse`
    /// is given; hosts with the namespace defaults.
    Link { link: String, reverse: Option<String> },
    /// The route of a scenario's one TCP flow, link by link, with its hosts' TCP settings as
    /// the testbed maps them (`plan::plan`): the receiver's window and buffers, the sender's
    /// initial window, RTO floor, SACK, timestamps, MTU. The flow's cc is not used: the command
    /// chooses the congestion control of its own connections.
    Scenario { file: PathBuf, overrides: Vec<(String, String)> },
}

#[derive(Debug, Clone)]
pub struct Options {
    pub spec: PathSpec,
    pub seed: u64,
    /// iperf3 servers on ports 5201, 5202, ...
    pub servers: u16,
    /// tcpw* congestion controls to load for the command (unloaded at the end if loaded here).
    pub load: Vec<String>,
    pub report: Option<PathBuf>,
    pub fifo: Option<i32>,
    /// The hosts' MTU; None: the scenario's segment and header size, or 1500.
    pub mtu: Option<u32>,
    /// With a scenario: the flow whose route the command measures (None: the first); the
    /// other flows are cross traffic.
    pub flow: Option<String>,
    pub command: Vec<String>,
}

/// One end of the path: what its namespace is given.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Host {
    pub mtu: u32,
    pub sysctls: Vec<(String, String)>,
    pub optional_sysctls: Vec<(String, String)>,
    pub route_options: Vec<String>,
}

/// A flow of the scenario besides the measured one: kernel TCP (iperf3) between namespaces of
/// its own, from its start (counted from the path's) until the command ends, over its own
/// route through the same emulated links: the cross traffic the measured transfers meet.
#[derive(Debug, Clone)]
pub struct CrossFlow {
    pub name: String,
    pub kernel_cc: String,
    pub start: Nanos,
    pub sender: Host,
    pub receiver: Host,
    pub forward: Vec<u32>,
    pub back: Vec<u32>,
}

/// Most cross flows a path runs (one address each side in a /24).
pub const MAX_CROSS_FLOWS: usize = 200;

fn cross_sender_ip(i: usize) -> [u8; 4] {
    [10, 202, 3, i as u8 + 1]
}

fn cross_receiver_ip(i: usize) -> [u8; 4] {
    [10, 202, 4, i as u8 + 1]
}

/// The iperf3 port of the cross flows' servers (each in its own namespace).
const CROSS_PORT: u16 = 5201;

/// The path as built from its [`PathSpec`]: the emulator's links, the links each direction
/// crosses, and the two hosts.
pub struct Built {
    pub links: Vec<westwood_simulator::network::link::Link>,
    pub names: Vec<String>,
    pub forward: Vec<u32>,
    pub back: Vec<u32>,
    pub client: Host,
    pub server: Host,
    /// The scenario's name and file, and the measured flow's name, for the report.
    pub scenario: Option<(String, String)>,
    pub measured: Option<String>,
    pub cross: Vec<CrossFlow>,
    /// Estimator parameters for the tcpw* programs `--load` registers (the scenario's).
    pub kernel_params: westwood_linux::loader::Params,
    /// What the simulator's run of the same scenario changes to model this kernel (the `linux`
    /// profile as the testbed applies it: `testbed::simulator_scenario`), for the report, so a
    /// measurement through the path can be set beside `westwood run` of the scenario.
    pub simulator_overrides: Option<serde_json::Value>,
}

/// Build the path `opts` describes (no root needed: nothing is created yet).
pub fn build(opts: &Options) -> Result<Built> {
    match &opts.spec {
        PathSpec::Link { link, reverse } => {
            let link = link.replace("\\n", "\n");
            let specs: Vec<(String, String)> = match reverse {
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
            let host = Host { mtu: opts.mtu.unwrap_or(1500), ..Default::default() };
            Ok(Built {
                links,
                names,
                forward: vec![0],
                back: vec![1],
                client: host.clone(),
                server: host,
                scenario: None,
                measured: None,
                cross: Vec::new(),
                kernel_params: Default::default(),
                simulator_overrides: None,
            })
        }
        PathSpec::Scenario { file, overrides: user } => {
            let overrides = westwood_simulator::scenario::with_seed(user, Some(opts.seed));
            let scenario =
                westwood_simulator::scenario::load_file(file, &overrides).map_err(scenario_error)?;
            let source = file.display().to_string();
            if !scenario.sources.is_empty() || !scenario.arrivals.is_empty() {
                return Err(Error::Usage(format!(
                    "{source}: path --scenario runs the scenario's TCP flows (the measured one and \
                     cross traffic); this scenario has {} other source(s) and {} arrival \
                     process(es), which `path` does not run",
                    scenario.sources.len(),
                    scenario.arrivals.len()
                )));
            }
            let planned = crate::plan::plan(&scenario, None)?;
            let names: Vec<&str> = planned.flows.iter().map(|f| f.name.as_str()).collect();
            let measured = match &opts.flow {
                None => 0,
                Some(name) => names.iter().position(|n| n == name).ok_or_else(|| {
                    Error::Usage(format!(
                        "{source}: --flow {name}: no such flow (the scenario's: {})",
                        names.join(", ")
                    ))
                })?,
            };
            if planned.flows.len() > MAX_CROSS_FLOWS + 1 {
                return Err(Error::Usage(format!(
                    "{source}: {} flows: path runs at most {MAX_CROSS_FLOWS} beside the measured one",
                    planned.flows.len()
                )));
            }
            let flow = &planned.flows[measured];
            let mtu = opts.mtu.unwrap_or(flow.mtu);
            let host = |f: &crate::plan::FlowPlan, sender: bool| Host {
                mtu: f.mtu,
                sysctls: if sender { f.sender_sysctls.clone() } else { f.receiver_sysctls.clone() },
                optional_sysctls: f.optional_sysctls.clone(),
                route_options: if sender { f.sender_route.clone() } else { f.receiver_route.clone() },
            };
            let cross = planned
                .flows
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != measured)
                .map(|(_, f)| CrossFlow {
                    name: f.name.clone(),
                    kernel_cc: f.kernel_cc.clone(),
                    start: f.start,
                    sender: host(f, true),
                    receiver: host(f, false),
                    forward: f.data_path.clone(),
                    back: f.ack_path.clone(),
                })
                .collect();
            let links = westwood_simulator::sim::build_links(&scenario).map_err(scenario_error)?;
            Ok(Built {
                links,
                names: scenario.links.iter().map(|l| l.name.clone()).collect(),
                forward: flow.data_path.clone(),
                back: flow.ack_path.clone(),
                client: Host { mtu, ..host(flow, true) },
                server: Host { mtu, ..host(flow, false) },
                scenario: Some((scenario.name.clone(), source)),
                measured: Some(flow.name.clone()),
                cross,
                kernel_params: planned.kernel_params,
                simulator_overrides: Some(
                    crate::testbed::simulator_scenario(&scenario, user).1.overrides_json(),
                ),
            })
        }
    }
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
    let built = build(opts)?;
    sig::install();
    netns::remove_stale_and_report();
    // The command's tcpw* (--load) and the cross flows' kernel congestion controls.
    let mut kernel_ccs: Vec<&str> = opts.load.iter().map(String::as_str).collect();
    kernel_ccs.extend(built.cross.iter().map(|c| c.kernel_cc.as_str()));
    let _kernel_ccs = crate::kernel_cc::KernelCcs::ensure(&kernel_ccs, Some(built.kernel_params))?;
    let endpoint = |suffix: &str, ip, peer, host: &Host| EndpointSpec {
        suffix: suffix.into(),
        ip,
        mtu: host.mtu,
        sysctls: host.sysctls.clone(),
        optional_sysctls: host.optional_sysctls.clone(),
        peers: vec![peer],
        route_options: host.route_options.clone(),
    };
    // Endpoints in pairs, each pair one flow: 0-1 the command's, 2i+2 - 2i+3 cross flow i.
    let mut specs =
        vec![endpoint("pc", CLIENT_IP, 1, &built.client), endpoint("ps", SERVER_IP, 0, &built.server)];
    let mut pairs = vec![(CLIENT_IP, SERVER_IP, built.forward.clone(), built.back.clone())];
    for (i, c) in built.cross.iter().enumerate() {
        let (s, r) = (2 * i + 2, 2 * i + 3);
        specs.push(endpoint(&format!("x{i}s"), cross_sender_ip(i), r, &c.sender));
        specs.push(endpoint(&format!("x{i}r"), cross_receiver_ip(i), s, &c.receiver));
        pairs.push((cross_sender_ip(i), cross_receiver_ip(i), c.forward.clone(), c.back.clone()));
    }
    let topo = Topology::create(&specs)?;
    let (client, server) = (&topo.endpoints[0], &topo.endpoints[1]);
    let cpus = sys::cpus();
    let mut config = realtime::Config {
        ports: topo.endpoints.iter().map(|e| e.router_dev.clone()).collect(),
        cpu: (cpus >= 2).then_some(cpus - 1),
        fifo_priority: opts.fifo,
        ..Default::default()
    };
    let mut routes = Vec::new();
    for (i, (sender_ip, receiver_ip, forward, back)) in pairs.into_iter().enumerate() {
        let (s, r) = (2 * i as u16, 2 * i as u16 + 1);
        config.routes.insert((s, r), routes.len() as u32);
        routes.push(Route { links: forward, port: r });
        config.routes.insert((r, s), routes.len() as u32);
        routes.push(Route { links: back, port: s });
        config.addresses.insert(sender_ip, s);
        config.addresses.insert(receiver_ip, r);
    }
    let names = &built.names;
    let emu = Emulator::new(built.links, routes);
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
    // The cross flows' servers, one in each receiver namespace.
    for (i, _) in built.cross.iter().enumerate() {
        let ns = &topo.endpoints[2 * i + 3].ns;
        let mut cmd = process::command(&ip);
        cmd.args(["netns", "exec", ns])
            .arg(&iperf3)
            .args(["-s", "-1", "-B", &ip_text(cross_receiver_ip(i)), "-p", &CROSS_PORT.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        servers.push(ChildGuard::spawn(&mut cmd)?);
    }
    let listening: Vec<(String, Vec<u16>)> = std::iter::once((server.ns_path(), ports.clone()))
        .chain((0..built.cross.len()).map(|i| (topo.endpoints[2 * i + 3].ns_path(), vec![CROSS_PORT])))
        .collect();
    for (ns_path, wanted) in &listening {
        let mut diag = DiagSocket::open_in(ns_path)?;
        let deadline = Instant::now() + Duration::from_secs(5);
        while !wanted
            .iter()
            .all(|p| diag.dump().map(|s| s.iter().any(|x| x.state == 10 && x.sport == *p)).unwrap_or(false))
        {
            if Instant::now() > deadline {
                return Err(Error::Failed(format!(
                    "the iperf3 servers in {ns_path} were not listening after 5 s"
                )));
            }
            sig::sleep(Duration::from_millis(10))?;
        }
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
    let route =
        |links: &[u32]| links.iter().map(|&i| names[i as usize].as_str()).collect::<Vec<_>>().join(" -> ");
    let from = match &built.scenario {
        Some((name, _)) => format!(" (scenario {name})"),
        None => String::new(),
    };
    eprintln!(
        "path: {} -> {} through {}, back through {}{from}; running {:?} in the client namespace",
        ip_text(CLIENT_IP),
        ip_text(SERVER_IP),
        route(&built.forward),
        route(&built.back),
        opts.command.join(" ")
    );
    for c in &built.cross {
        eprintln!(
            "path: cross traffic {} ({}) from {:.3} s through {}",
            c.name,
            c.kernel_cc,
            c.start as f64 / 1e9,
            route(&c.forward)
        );
    }
    let started = sys::monotonic_ns();
    // Cross flows: kernel TCP from their start until the command ends (iperf3's longest run).
    let mut cross_clients: Vec<Option<ChildGuard>> = built.cross.iter().map(|_| None).collect();
    let mut start_cross = |now: u64| -> Result<()> {
        for (i, c) in built.cross.iter().enumerate() {
            if cross_clients[i].is_none() && now >= started + c.start {
                let mut cmd = process::command(&ip);
                cmd.args(["netns", "exec", &topo.endpoints[2 * i + 2].ns])
                    .arg(&iperf3)
                    .args(["-c", &ip_text(cross_receiver_ip(i)), "-p", &CROSS_PORT.to_string()])
                    .args(["-B", &ip_text(cross_sender_ip(i)), "-t", "86400", "-C", &c.kernel_cc])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null());
                cross_clients[i] = Some(ChildGuard::spawn(&mut cmd)?);
            }
        }
        Ok(())
    };
    start_cross(started)?;
    let mut child = ChildGuard::spawn(&mut cmd)?;
    drop(ns);
    let status = loop {
        start_cross(sys::monotonic_ns())?;
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
    drop(cross_clients);
    drop(servers);
    let report = running.stop().map_err(|e| Error::failed("the emulator", e))?;
    let directions = ["client_to_server", "server_to_client"];
    let value = json!({
        "client": ip_text(CLIENT_IP),
        "server": ip_text(SERVER_IP),
        "ports": ports,
        "scenario": built.scenario.as_ref().map(|(name, file)| json!({
            "name": name, "file": file, "measured_flow": built.measured,
        })),
        "cross_traffic": built.cross.iter().map(|c| json!({
            "flow": c.name, "cc": c.kernel_cc, "start_seconds": c.start as f64 / 1e9,
            "route": route(&c.forward),
        })).collect::<Vec<_>>(),
        "simulator_overrides": built.simulator_overrides,
        "route": { "client_to_server": route(&built.forward), "server_to_client": route(&built.back) },
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

#[cfg(test)]
mod tests {
    use super::*;

    fn options(spec: PathSpec) -> Options {
        Options {
            spec,
            seed: 1,
            servers: 1,
            load: Vec::new(),
            report: None,
            fifo: None,
            mtu: None,
            flow: None,
            command: vec!["true".into()],
        }
    }

    fn scenario(name: &str, overrides: &[(&str, &str)]) -> Options {
        let file = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
        let overrides = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        options(PathSpec::Scenario { file, overrides })
    }

    fn value<'a>(pairs: &'a [(String, String)], key: &str) -> Option<&'a str> {
        pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    #[test]
    fn a_scenario_path_is_its_flow_s_route_with_its_hosts_settings() {
        let built = build(&scenario("seed003_nasa.toml", &[])).unwrap();
        let route =
            |links: &[u32]| links.iter().map(|&i| built.names[i as usize].clone()).collect::<Vec<_>>();
        assert_eq!(route(&built.forward), ["lan", "nasa"]);
        assert_eq!(route(&built.back), ["nasa.reverse", "lan.reverse"]);
        // 1460 B segments and 40 B of headers: 1500 B frames on both hosts.
        assert_eq!((built.client.mtu, built.server.mtu), (1500, 1500));
        // The receiver offers at most the scenario's 64 KB window; the sender's initial window
        // and RTO floor are the scenario's.
        let window = built.server.route_options.iter().position(|o| o == "window").unwrap();
        assert_eq!(built.server.route_options[window + 1], "65535");
        assert!(built.client.route_options.contains(&"initcwnd".to_string()));
        assert_eq!(value(&built.client.sysctls, "net.ipv4.tcp_timestamps"), Some("0"));
        // The long hop keeps its delay variation and its loss.
        let nasa = &built.links[built.forward[1] as usize];
        assert_eq!(nasa.delay, 313_000_000);
        assert_eq!(built.scenario.as_ref().unwrap().0, "seed003_nasa");
        // The simulator's run beside a measurement: the linux profile, as the testbed applies it.
        let simulator = built.simulator_overrides.as_ref().unwrap();
        assert_eq!(simulator["profile"], "linux");
        assert!(simulator["changed"].as_object().is_some_and(|c| !c.is_empty()), "{simulator}");
    }

    #[test]
    fn an_asymmetric_route_takes_the_satellite_one_way_and_the_ground_back() {
        let built = build(&scenario("seed000_brazil.toml", &[])).unwrap();
        let route =
            |links: &[u32]| links.iter().map(|&i| built.names[i as usize].clone()).collect::<Vec<_>>();
        assert_eq!(route(&built.forward), ["lan", "satellite", "campus"]);
        assert_eq!(route(&built.back), ["campus.reverse", "terrestrial", "lan.reverse"]);
        let delay = |links: &[u32]| links.iter().map(|&i| built.links[i as usize].delay).sum::<u64>();
        assert_eq!(delay(&built.forward) + delay(&built.back), 450_000_000);
    }

    #[test]
    fn a_scenario_s_parameters_reach_the_path() {
        let built = build(&scenario("seed003_nasa.toml", &[("tcp.receiver_window", "32KB")])).unwrap();
        let window = built.server.route_options.iter().position(|o| o == "window").unwrap();
        assert_eq!(built.server.route_options[window + 1], "32000");
        // An unknown key is the scenario loader's error, naming the key.
        let err = build(&scenario("seed003_nasa.toml", &[("tcp.no_such_key", "1")])).err().unwrap();
        assert!(err.to_string().contains("no_such_key"), "{err}");
    }

    #[test]
    fn the_other_flows_of_a_scenario_are_cross_traffic_over_their_own_routes() {
        let built = build(&scenario("dumbbell.toml", &[("flows", "3"), ("cc", "cubic")])).unwrap();
        let measured = built.measured.clone().unwrap();
        assert_eq!(built.cross.len(), 2);
        assert!(built.cross.iter().all(|c| c.kernel_cc == "cubic" && c.name != measured));
        // Each cross flow takes its route in the scenario: here every flow's, through the
        // same links (the links are shared, as in the simulator).
        let bottleneck = built.names.iter().position(|n| n == "bottleneck").unwrap() as u32;
        assert!(built.forward.contains(&bottleneck));
        for c in &built.cross {
            assert_eq!((&c.forward, &c.back), (&built.forward, &built.back));
        }
        // --flow picks another flow to measure; the first becomes cross traffic.
        let second = built.cross[0].name.clone();
        let mut opts = scenario("dumbbell.toml", &[("flows", "3")]);
        opts.flow = Some(second.clone());
        let picked = build(&opts).unwrap();
        assert_eq!(picked.measured.as_deref(), Some(second.as_str()));
        assert!(picked.cross.iter().any(|c| c.name == measured));
        opts.flow = Some("nope".into());
        let err = build(&opts).err().unwrap().to_string();
        assert!(err.contains("--flow nope") && err.contains(&second), "{err}");
    }

    #[test]
    fn a_scenario_with_udp_sources_is_refused_with_the_reason() {
        let err = build(&scenario("udp_onoff.toml", &[])).err().unwrap().to_string();
        assert!(err.contains("other source(s)") && err.contains("does not run"), "{err}");
    }

    #[test]
    fn a_link_body_still_makes_a_one_link_path_each_way() {
        let built = build(&options(PathSpec::Link {
            link: "rate = \"10Mbps\"\\ndelay = \"20ms\"\\nqueue = 100".into(),
            reverse: None,
        }))
        .unwrap();
        assert_eq!((built.forward.clone(), built.back.clone()), (vec![0], vec![1]));
        assert_eq!(built.client, Host { mtu: 1500, ..Default::default() });
        assert!(built.scenario.is_none());
    }
}
