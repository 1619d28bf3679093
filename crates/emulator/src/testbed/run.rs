//! One testbed run: namespaces, the emulator, iperf3 clients and servers, sampling TCP_INFO
//! and the BPF estimate, the kernel's per-ACK trace, captures.

use super::*;

pub(crate) fn endpoint_specs(plan: &Plan) -> Vec<EndpointSpec> {
    let mut specs = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        specs.push(EndpointSpec {
            suffix: format!("f{i}s"),
            ip: sender_ip(i),
            mtu: f.mtu,
            sysctls: f.sender_sysctls.clone(),
            optional_sysctls: f.optional_sysctls.clone(),
            peers: vec![2 * i + 1],
            route_options: f.sender_route.clone(),
        });
        specs.push(EndpointSpec {
            suffix: format!("f{i}r"),
            ip: receiver_ip(i),
            mtu: f.mtu,
            sysctls: f.receiver_sysctls.clone(),
            optional_sysctls: f.optional_sysctls.clone(),
            peers: vec![2 * i],
            route_options: f.receiver_route.clone(),
        });
    }
    specs
}

pub fn sender_ip(flow: usize) -> [u8; 4] {
    [10, 201, 1, flow as u8 + 1]
}

pub fn receiver_ip(flow: usize) -> [u8; 4] {
    [10, 201, 2, flow as u8 + 1]
}

pub(crate) struct Client {
    guard: ChildGuard,
    reader: Option<std::thread::JoinHandle<String>>,
}

/// iperf3 in namespace `ns`; with `cpu`, pinned to it.
pub(crate) fn spawn_iperf3(ns: &str, args: &[String], capture: bool, cpu: Option<usize>) -> Result<Client> {
    let ip = tool("ip", "iproute2")?;
    let iperf3 = tool("iperf3", "iperf3")?;
    // `ip netns exec` execs iperf3 in place (no fork), so iperf3 is our child and keeps the
    // parent-death signal: if we are SIGKILLed, so is it (our guards cannot run then). It is
    // spawned and killed (ChildGuard) by the run's thread, which therefore outlives it.
    let mut cmd = process::command(ip);
    cmd.args(["netns", "exec", ns]).arg(iperf3).args(args).stdin(Stdio::null()).stderr(Stdio::null());
    cmd.stdout(if capture { Stdio::piped() } else { Stdio::null() });
    if let Some(cpu) = cpu {
        unsafe {
            use std::os::unix::process::CommandExt;
            cmd.pre_exec(move || {
                let mut set: libc::cpu_set_t = std::mem::zeroed();
                libc::CPU_SET(cpu, &mut set);
                libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                Ok(())
            });
        }
    }
    let mut guard = ChildGuard::spawn(&mut cmd)?;
    let reader = if capture {
        let mut stdout = guard.child().stdout.take().expect("piped");
        Some(std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
            s
        }))
    } else {
        None
    };
    Ok(Client { guard, reader })
}

/// One sample of a flow.
#[derive(Debug, Clone)]
pub(crate) struct Sample {
    pub(crate) time: f64,
    pub(crate) info: TcpInfo,
    pub(crate) bwe_bps: f64,
}

/// The kernel's per-ACK trace of a run's flows, into a file (docs/ack-trace.md), each row named
/// after its flow: the tcpw* flows from their own ring buffer (with the bandwidth estimate), the
/// others (reno, cubic, ...) from the ACK-path probe (kernel/tcp_ack_probe.bpf.c).
pub(crate) struct KernelAckTrace {
    session: Option<westwood_linux::acks::TraceSession>,
    probe: Option<westwood_linux::ack_probe::ProbeSession>,
    rows: FlowRows,
}

/// Trace rows of the run's data connections (sender namespace and the data port), by flow.
pub(crate) struct FlowRows {
    convert: westwood_linux::acks::Converter,
    writer: westwood_trace::AckTraceWriter<westwood_trace::AtomicFile>,
    flows: Vec<TracedFlow>,
}

/// A flow whose rows the trace keeps.
pub(crate) struct TracedFlow {
    /// Inode of the sender's network namespace (the events carry it).
    netns: u32,
    name: String,
    kernel_cc: String,
    /// Its rows come from the ACK-path probe (a kernel control), not from the tcpw* ring buffer.
    probed: bool,
}

impl FlowRows {
    /// Write the rows of `events`, which came from the probe (`from_probe`) or the tcpw* ring
    /// buffer; each flow takes its rows from one of the two.
    fn write(&mut self, events: Vec<westwood_linux::acks::KernelAck>, from_probe: bool) -> Result<()> {
        for ev in events.iter().filter(|ev| ev.sport == DATA_PORT) {
            let flow = self.flows.iter().find(|f| f.netns == ev.netns && f.probed == from_probe);
            if let Some(flow) = flow {
                // The probe's events name no control; the tcpw* ones name the flow's own.
                let mut row = self.convert.record(ev, &flow.name);
                row.cc.clone_from(&flow.kernel_cc);
                self.writer.write(&row).map_err(|e| Error::failed("writing the trace", e))?;
            }
        }
        Ok(())
    }
}

impl KernelAckTrace {
    /// Start tracing the flows of `plan` (their sender namespaces' inodes in `netns_inodes`).
    fn start(path: &std::path::Path, plan: &Plan, netns_inodes: &[u64]) -> Result<KernelAckTrace> {
        let flows: Vec<TracedFlow> = plan
            .flows
            .iter()
            .zip(netns_inodes)
            .map(|(f, ns)| TracedFlow {
                netns: *ns as u32,
                name: f.name.clone(),
                kernel_cc: f.kernel_cc.clone(),
                probed: !f.uses_bpf(),
            })
            .collect();
        let session = match flows.iter().any(|f| !f.probed) {
            true => Some(westwood_linux::acks::TraceSession::start()?),
            false => None,
        };
        let probe = match flows.iter().any(|f| f.probed) {
            true => Some(westwood_linux::ack_probe::ProbeSession::start(DATA_PORT)?),
            false => None,
        };
        let file = westwood_trace::AtomicFile::create(path)
            .map_err(|e| Error::failed(format!("creating {}", path.display()), e))?;
        let writer =
            westwood_trace::AckTraceWriter::new(file).map_err(|e| Error::failed("writing the trace", e))?;
        Ok(KernelAckTrace { session, probe, rows: FlowRows { convert: Default::default(), writer, flows } })
    }

    /// Take what the ring buffers hold now.
    fn drain(&mut self) -> Result<()> {
        if let Some(session) = self.session.as_mut() {
            let events = session.poll(Duration::ZERO)?;
            self.rows.write(events, false)?;
        }
        if let Some(probe) = self.probe.as_mut() {
            let events = probe.poll(Duration::ZERO)?;
            self.rows.write(events, true)?;
        }
        Ok(())
    }

    /// Switch the trace off, write the rest, put the file in place: (rows, records lost).
    fn finish(self) -> Result<(u64, u64)> {
        let KernelAckTrace { session, probe, mut rows } = self;
        let mut dropped = 0;
        if let Some(session) = session {
            dropped += session.dropped()?;
            rows.write(session.finish()?, false)?;
        }
        if let Some(probe) = probe {
            dropped += probe.dropped()?;
            rows.write(probe.finish()?, true)?;
        }
        let count = rows.writer.rows();
        rows.writer.into_inner().commit().map_err(|e| Error::failed("writing the trace", e))?;
        Ok((count, dropped))
    }
}

/// The emulator must send 99 % of its packets within this long of their scheduled instant for
/// a run to count. Idle, its p99 lateness is 0.1-0.2 ms; on a loaded 2-core machine with a
/// PREEMPT_NONE kernel other work holds the CPU for milliseconds even against the SCHED_FIFO
/// emulator thread (p99 3-4 ms measured while builds ran). A packet sent late goes out just
/// before the one scheduled after it, so a path that spaces ACKs by 1.76 ms delivers pairs a
/// few microseconds apart, which a rate estimator reads as hundreds of Mb/s (the kernel's tcpw
/// estimated 73 Mb/s on the 2 Mb/s path in such a run): the run measured the machine's load,
/// not the scenario's path.
pub const LATENESS_P99_LIMIT_NS: u64 = 1_000_000;

/// The 1, 5 and 15 minute load averages (`/proc/loadavg`), recorded with every run so that a
/// measurement says how busy the machine was; empty where unreadable.
pub(crate) fn load_average() -> Vec<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .map(|t| t.split_whitespace().take(3).filter_map(|v| v.parse().ok()).collect())
        .unwrap_or_default()
}

/// What a run's summary says of an emulator that fell behind ([`LATENESS_P99_LIMIT_NS`]):
/// `None` if it kept to the schedule, else a line naming the run, its p99 lateness and the
/// machine's load.
pub fn late_emulator(label: &str, summary: &Value) -> Option<String> {
    let emulator = &summary["testbed"]["emulator"];
    if emulator["on_time"].as_bool() == Some(true) {
        return None;
    }
    let p99_ms = emulator["lateness_seconds"]["p99"].as_f64().unwrap_or(f64::NAN) * 1e3;
    let load: Vec<String> = summary["testbed"]["load_average"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).map(|l| format!("{l:.2}")).collect())
        .unwrap_or_default();
    Some(format!("{label}: lateness p99 {p99_ms:.2} ms, load average {}", load.join(" ")))
}

/// Run `plan` once on the testbed; with `ack_trace`, the kernel's per-ACK trace of its flows
/// goes to that file.
pub fn run_once(
    plan: &Plan,
    sample_interval: Nanos,
    fifo: Option<i32>,
    label: &str,
    ack_trace: Option<&std::path::Path>,
) -> Result<TestbedRun> {
    run_once_captured(plan, sample_interval, fifo, label, ack_trace, None)
}

/// [`run_once`], capturing every flow's packets at its endpoints into `pcap` = (directory,
/// snaplen) ([`crate::capture`]).
pub fn run_once_captured(
    plan: &Plan,
    sample_interval: Nanos,
    fifo: Option<i32>,
    label: &str,
    ack_trace: Option<&std::path::Path>,
    pcap: Option<(&std::path::Path, u32)>,
) -> Result<TestbedRun> {
    let wall_start = std::time::Instant::now();
    sig::install();
    // A SIGTERM or Ctrl-C that came during an earlier run's simulator comparison: stop
    // before building anything.
    if sig::interrupted() {
        return Err(Error::Interrupted);
    }
    prerequisites()?;
    netns::remove_stale_and_report();
    let kernel_ccs: Vec<&str> = plan.flows.iter().map(|f| f.kernel_cc.as_str()).collect();
    let _kernel_ccs = crate::kernel_cc::KernelCcs::ensure(&kernel_ccs, Some(plan.kernel_params))?;

    let cpus = sys::cpus();
    let emu_cpu = (cpus >= 2).then_some(cpus - 1);
    let topo = Topology::create(&endpoint_specs(plan))?;
    let scenario = &plan.scenario;
    let links = westwood_simulator::sim::build_links(scenario).map_err(scenario_error)?;
    let mut routes = Vec::new();
    let mut config = realtime::Config {
        ports: topo.endpoints.iter().map(|e| e.router_dev.clone()).collect(),
        sample_interval: Some(sample_interval),
        cpu: emu_cpu,
        fifo_priority: fifo,
        ..Default::default()
    };
    // The flows' data connections, numbered as the simulator numbers its segments (drop-list).
    let connections: Vec<Connection> = (0..plan.flows.len())
        .map(|i| Connection { client: (sender_ip(i), DATA_PORT), server: (receiver_ip(i), SERVER_PORT) })
        .collect();
    config.tagger = Some(Tagger::new(&connections, IPERF3_COOKIE));
    for (i, f) in plan.flows.iter().enumerate() {
        let (s, r) = (2 * i as u16, 2 * i as u16 + 1);
        routes.push(Route { links: f.data_path.clone(), port: r });
        routes.push(Route { links: f.ack_path.clone(), port: s });
        config.routes.insert((s, r), 2 * i as u32);
        config.routes.insert((r, s), 2 * i as u32 + 1);
        config.addresses.insert(sender_ip(i), s);
        config.addresses.insert(receiver_ip(i), r);
    }
    let captures = match pcap {
        Some((dir, snaplen)) => {
            let c = crate::capture::Captures::start(
                dir,
                capture_points(plan, label),
                topo.endpoints.len(),
                snaplen,
            )
            .map_err(|e| Error::failed("starting the captures", e))?;
            config.capture = Some(c.tap());
            Some(c)
        }
        None => None,
    };
    let epoch = sys::monotonic_ns();
    config.epoch = Some(epoch);
    let emulator = realtime::spawn(Some(topo.router_path()), Emulator::new(links, routes), config)
        .map_err(|e| Error::failed("starting the emulator", e))?;

    // Servers, and a diag socket in every namespace.
    let mut servers = Vec::new();
    let mut sender_diag = Vec::new();
    let mut netns_inodes = Vec::new();
    for (i, _) in plan.flows.iter().enumerate() {
        let (snd, rcv) = (&topo.endpoints[2 * i], &topo.endpoints[2 * i + 1]);
        let args: Vec<String> = ["-s", "-1", "-B", &ip_text(rcv.ip), "-p", &SERVER_PORT.to_string()]
            .iter()
            .map(|s| s.to_string())
            .collect();
        servers.push(spawn_iperf3(&rcv.ns, &args, false, None)?);
        sender_diag.push(DiagSocket::open_in(&snd.ns_path())?);
        netns_inodes.push(sys::netns_inode(&snd.ns_path()).unwrap_or(0));
        let mut rdiag = DiagSocket::open_in(&rcv.ns_path())?;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        loop {
            let listening = rdiag.dump()?.iter().any(|s| s.state == 10 && s.sport == SERVER_PORT);
            if listening {
                break;
            }
            if let Some(st) = servers[i].guard.child().try_wait()? {
                return Err(Error::Failed(format!("iperf3 server in {} exited at once ({st})", rcv.ns)));
            }
            if std::time::Instant::now() > deadline {
                return Err(Error::Failed(format!("iperf3 server in {} not listening after 5 s", rcv.ns)));
            }
            sig::sleep(Duration::from_millis(10))?;
        }
    }

    // The kernel's per-ACK trace of every flow, from before the first one starts.
    let mut trace = match ack_trace {
        Some(path) => Some(KernelAckTrace::start(path, plan, &netns_inodes)?),
        None => None,
    };
    let mut bwe_unavailable: Option<String> = None;

    // Flows: start on time, sample every interval, until every client has exited.
    let n = plan.flows.len();
    let mut clients: Vec<Option<Client>> = (0..n).map(|_| None).collect();
    let mut results: Vec<Option<Iperf3Result>> = vec![None; n];
    let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); n];
    let seconds: Vec<u64> =
        plan.flows.iter().map(|f| (f.stop - f.start).div_ceil(NANOS_PER_SECOND).max(1)).collect();
    let latest_end = plan.flows.iter().map(|f| f.stop).max().unwrap_or(0);
    let give_up = epoch + latest_end + 90 * NANOS_PER_SECOND;
    let mut next_sample = epoch;
    let any_bpf = plan.flows.iter().any(FlowPlan::uses_bpf);
    loop {
        if sig::interrupted() {
            return Err(Error::Interrupted);
        }
        let now = sys::monotonic_ns();
        for (i, f) in plan.flows.iter().enumerate() {
            if results[i].is_none() && clients[i].is_none() && now >= epoch + f.start {
                let (snd, rcv) = (&topo.endpoints[2 * i], &topo.endpoints[2 * i + 1]);
                let args: Vec<String> = [
                    "-c",
                    &ip_text(rcv.ip),
                    "-p",
                    &SERVER_PORT.to_string(),
                    "-B",
                    &ip_text(snd.ip),
                    "--cport",
                    &DATA_PORT.to_string(),
                    "-t",
                    &seconds[i].to_string(),
                    "-C",
                    &f.kernel_cc,
                    "-J",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                // The sender on the emulator's CPU: its segments then enter one CPU backlog, in
                // order (see netns.rs).
                clients[i] = Some(spawn_iperf3(&snd.ns, &args, true, emu_cpu)?);
            }
        }
        if now >= next_sample {
            let t = (now - epoch) as f64 / 1e9;
            let bwe: HashMap<(u64, u16), f64> = if any_bpf && bwe_unavailable.is_none() {
                match westwood_linux::watch::snapshot_where(|ino| netns_inodes.contains(&ino)) {
                    Ok(conns) => {
                        conns.into_iter().map(|c| ((u64::from(c.netns), c.sport), c.bwe_bps())).collect()
                    }
                    Err(e) => {
                        // BWE is then NaN in the series: say why once, in the summary.
                        bwe_unavailable = Some(e.to_string());
                        HashMap::new()
                    }
                }
            } else {
                HashMap::new()
            };
            for i in 0..n {
                if clients[i].is_none() {
                    continue;
                }
                let dst = receiver_ip(i);
                if let Some(info) = sender_diag[i].dump()?.into_iter().find(|s| {
                    // An established (or closing) data connection with its TCP_INFO: not
                    // the listener, nor TIME_WAIT (which has none).
                    s.sport == DATA_PORT && s.dport == SERVER_PORT && s.dst == dst && s.snd_mss > 0
                }) {
                    let bwe_bps = bwe.get(&(netns_inodes[i], DATA_PORT)).copied().unwrap_or(f64::NAN);
                    samples[i].push(Sample { time: t, info, bwe_bps });
                }
            }
            next_sample += sample_interval * ((now - next_sample) / sample_interval + 1);
        }
        for i in 0..n {
            let Some(c) = clients[i].as_mut() else { continue };
            if let Some(status) = c.guard.child().try_wait()? {
                let text = c.reader.take().map(|h| h.join().unwrap_or_default()).unwrap_or_default();
                let parsed = parse_iperf3_json(&text).map_err(|e| {
                    Error::Failed(format!("flow {}: iperf3 client ({status}): {e}", plan.flows[i].name))
                })?;
                results[i] = Some(parsed);
                clients[i] = None;
            }
        }
        if results.iter().all(Option::is_some) {
            break;
        }
        if now > give_up {
            return Err(Error::Failed(format!(
                "the flows had not finished {} s after their end",
                (give_up - epoch - latest_end) / NANOS_PER_SECOND
            )));
        }
        let wake = plan
            .flows
            .iter()
            .enumerate()
            .filter(|(i, _)| results[*i].is_none() && clients[*i].is_none())
            .map(|(_, f)| epoch + f.start)
            .chain([next_sample])
            .min()
            .unwrap_or(next_sample);
        if let Some(t) = trace.as_mut() {
            t.drain()?;
        }
        sys::sleep_until(wake.min(sys::monotonic_ns() + 20_000_000));
    }
    let trace_summary = match trace {
        Some(t) => {
            let (rows, dropped) = t.finish()?;
            if dropped > 0 {
                eprintln!("warning: {dropped} per-ACK trace records were lost (the ring buffer was full): the trace is incomplete");
            }
            json!({ "file": "acks.csv", "rows": rows, "dropped": dropped })
        }
        None => Value::Null,
    };
    let run_seconds = (sys::monotonic_ns() - epoch) as f64 / 1e9;
    let report = emulator.stop().map_err(|e| Error::failed("the emulator", e))?;
    let pcap_summary = match captures {
        Some(c) => c.finish().map_err(|e| Error::failed("writing the captures", e))?,
        None => Value::Null,
    };
    let mut counters = Vec::new();
    let mut local_drops = 0;
    for i in 0..n {
        counters.push(netns::tcp_counters(&topo.endpoints[2 * i].ns_path()).unwrap_or_default());
        // Drops on the endpoints' own interfaces (there should be none: the emulator drops
        // only inside the path, never where the kernel would see local congestion).
        for ep in [&topo.endpoints[2 * i], &topo.endpoints[2 * i + 1]] {
            local_drops += netns::link_drops(&ep.ns, netns::ENDPOINT_DEV).map_or(0, |(rx, tx)| rx + tx);
        }
    }
    let slack: Vec<u64> = (0..n)
        .map(|i| {
            let max_of = |ns: &str, key: &str| {
                netns::get_sysctl(ns, key)
                    .ok()
                    .and_then(|v| v.split_whitespace().last().and_then(|x| x.parse::<u64>().ok()))
                    .unwrap_or(64 << 20)
            };
            max_of(&topo.endpoints[2 * i].ns_path(), "net.ipv4.tcp_wmem")
                + max_of(&topo.endpoints[2 * i + 1].ns_path(), "net.ipv4.tcp_rmem")
        })
        .collect();
    drop(servers);
    drop(topo);
    let results: Vec<Iperf3Result> = results.into_iter().map(Option::unwrap).collect();
    let mut run = assemble(
        plan,
        label,
        &report,
        &results,
        &samples,
        &counters,
        &slack,
        run_seconds,
        wall_start.elapsed().as_secs_f64(),
    );
    run.summary["testbed"]["emulator"]["endpoint_interface_drops"] = json!(local_drops);
    run.summary["testbed"]["ack_trace"] = trace_summary;
    run.summary["testbed"]["bwe_unavailable"] = bwe_unavailable.map_or(Value::Null, Value::String);
    run.summary["testbed"]["pcap"] = pcap_summary;
    Ok(run)
}

/// The testbed's capture points: each flow's sender and receiver namespace (ports 2i, 2i + 1).
pub(crate) fn capture_points(plan: &Plan, label: &str) -> Vec<crate::capture::Point> {
    let mut points = Vec::new();
    for (i, f) in plan.flows.iter().enumerate() {
        let meta = westwood_pcap::FlowMeta {
            name: f.name.clone(),
            proto: "tcp".into(),
            src: Some(std::net::SocketAddr::from((sender_ip(i), DATA_PORT))),
            dst: Some(std::net::SocketAddr::from((receiver_ip(i), SERVER_PORT))),
            cc: Some(f.kernel_cc.clone()),
            ..Default::default()
        };
        for (port, ip, role) in [(2 * i, sender_ip(i), "sender"), (2 * i + 1, receiver_ip(i), "receiver")] {
            let what = format!("flow {}'s {role} namespace ({})", f.name, ip_text(ip));
            points.push(crate::capture::Point {
                port: port as u16,
                name: format!("{}.{role}", f.name),
                description: format!(
                    "{what}: every frame it sent (stamped when the emulator read it) and received (when the emulator sent it)"
                ),
                ipv4: ip,
                comment: crate::capture::comment(&plan.scenario.name, label, &what, &meta),
            });
        }
    }
    points
}
