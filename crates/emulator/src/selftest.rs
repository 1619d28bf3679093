//! `westwood-emu selftest`: the emulator measured by itself.
//!
//! A generator namespace sends numbered UDP datagrams (each carrying its CLOCK_MONOTONIC send
//! time) at a paced rate through the emulator to a sink namespace, which stamps each arrival.
//! Per case:
//!
//! * achieved rate: IP bytes received over the time between the first and the last arrival,
//!   against the link's rate (a saturated case shows the rate limiter; the others that the
//!   offered load gets through);
//! * delay error: each datagram's arrival minus its *ideal* arrival, which is the same link
//!   replayed in the emulator's core (no error models: channel losses happen after the queue,
//!   so they do not move the others) on the generator's send times — so the error covers the
//!   whole path: the veth into the router, the emulator's wake-up and work, the veth out and
//!   the sink's wake-up;
//! * drops: those the link model made (overflow, channel errors — the emulator's own
//!   counters) and those it did not: the sockets' drop counters, failed transmits, and
//!   anything else missing (sent − received − model drops);
//! * loss-rate accuracy: the measured loss against the configured probability (Bernoulli, an
//!   outage schedule, a Gilbert-Elliott chain's stationary loss), with a 95 % interval.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;
use westwood_simulator::model::Nanos;

use crate::engine::{links_from_toml, Emulator, Outcome, Route};
use crate::error::{scenario_error, Error, Result};
use crate::netns::{self, EndpointSpec, Topology};
use crate::realtime::{self, Histogram};
use crate::sys;

/// One measurement.
#[derive(Debug, Clone)]
pub struct Case {
    pub name: &'static str,
    /// `[links.l]` body without errors: rate, delay, queue.
    pub link: String,
    /// An `errors = ...` line, or empty.
    pub errors: String,
    pub offered_bps: u64,
    pub rate_bps: u64,
    /// IP packet size.
    pub packet: u32,
    pub seconds: f64,
    /// Long-run loss probability the error model should give.
    pub expected_loss: Option<f64>,
    /// Standard deviation of the loss fraction over the run beyond the binomial one (a
    /// Gilbert-Elliott chain's time in Bad varies from run to run).
    pub extra_loss_sd: f64,
}

/// Sd of the fraction of `seconds` a two-state chain (mean sojourns `good`, `bad` s) spends in
/// Bad, times the loss difference: sqrt(2 pi_g pi_b tau / T) (loss_bad - loss_good), with
/// tau = 1 / (1/good + 1/bad).
pub fn chain_loss_sd(good: f64, bad: f64, loss_good: f64, loss_bad: f64, seconds: f64) -> f64 {
    let (pg, pb) = (good / (good + bad), bad / (good + bad));
    let tau = 1.0 / (1.0 / good + 1.0 / bad);
    (2.0 * pg * pb * tau / seconds).sqrt() * (loss_bad - loss_good)
}

pub fn default_cases(scale: f64) -> Vec<Case> {
    let case = |name, link: &str, errors: &str, rate, offered, packet, seconds: f64, expected_loss| Case {
        name,
        link: link.to_string(),
        errors: errors.to_string(),
        offered_bps: offered,
        rate_bps: rate,
        packet,
        seconds: (seconds * scale).max(2.0),
        expected_loss,
        extra_loss_sd: 0.0,
    };
    vec![
        case(
            "100M 1500B load 100%",
            "rate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = 1000",
            "",
            100_000_000,
            100_000_000,
            1500,
            10.0,
            None,
        ),
        case(
            "100M 1500B saturated",
            "rate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = 200",
            "",
            100_000_000,
            110_000_000,
            1500,
            5.0,
            None,
        ),
        case(
            "100M 1500B load 90%",
            "rate = \"100Mbps\"\ndelay = \"10ms\"\nqueue = 1000",
            "",
            100_000_000,
            90_000_000,
            1500,
            10.0,
            None,
        ),
        case(
            "2M 440B load 95%",
            "rate = \"2Mbps\"\ndelay = \"45ms\"\nqueue = 52",
            "",
            2_000_000,
            1_900_000,
            440,
            10.0,
            None,
        ),
        case(
            "10M bernoulli 1%",
            "rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 1000",
            "errors = { model = \"bernoulli\", rate = \"1%\", direction = \"forward\" }",
            10_000_000,
            9_000_000,
            1500,
            10.0,
            Some(0.01),
        ),
        case(
            "10M outage 10%",
            "rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 1000",
            "errors = { model = \"outage\", period = \"1s\", duration = \"100ms\", direction = \"forward\" }",
            10_000_000,
            9_000_000,
            1500,
            10.0,
            Some(0.1),
        ),
        {
            let mut c = case(
            "10M gilbert-elliott 8.3%",
            "rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 1000",
            "errors = { model = \"gilbert-elliott\", mean_good = \"100ms\", mean_bad = \"20ms\", loss_good = 0, \
             loss_bad = \"50%\", direction = \"forward\" }",
            10_000_000,
            9_000_000,
            1500,
            10.0,
            Some(0.5 * 20.0 / 120.0),
        );
            c.extra_loss_sd = chain_loss_sd(0.1, 0.02, 0.0, 0.5, c.seconds);
            c
        },
    ]
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseResult {
    pub name: String,
    pub rate_bps: u64,
    pub offered_bps: u64,
    /// Delivered bits over the time the links ran: from the first datagram received to the
    /// last, less the time stalls froze them (`realtime.rs`: a stall stops the links rather
    /// than bunching their packets).
    pub achieved_bps: f64,
    pub achieved_over_rate: f64,
    /// The emulator's stalls in the case, and the time they froze the links.
    pub stalls: u64,
    pub frozen_ms: f64,
    pub sent: u64,
    pub received: u64,
    /// The generator's own send failures (never reached the emulator).
    pub generator_errors: u64,
    pub model_drops_overflow: u64,
    pub model_drops_channel: u64,
    /// Drops the link model did not make: socket buffer overflows, failed transmits, and any
    /// other datagram missing.
    pub emulator_drops: u64,
    pub emulator_drop_fraction: f64,
    /// Datagrams the sink's socket dropped (receive buffer full).
    pub sink_drops: u64,
    /// Frames the generator's veth could not hand to the router's backlog (part of the
    /// emulator drops: the emulator did not read fast enough).
    pub backlog_drops: u64,
    /// The emulator's own counters: frames its sockets dropped, transmits that failed.
    pub rx_socket_drops: u64,
    pub tx_errors: u64,
    /// Frames the emulator read and the datagrams it took onto the link.
    pub emulator_frames_in: u64,
    pub emulator_offered: u64,
    pub loss_measured: f64,
    pub loss_expected: Option<f64>,
    /// 95 % interval of the loss fraction around the expected probability (binomial, plus the
    /// chain's own variation for Gilbert-Elliott).
    pub loss_interval: Option<(f64, f64)>,
    pub delay_error_p50_ms: f64,
    pub delay_error_p99_ms: f64,
    pub delay_error_max_ms: f64,
    pub emulator_lateness_p99_ms: f64,
    pub emulator_cpu_fraction: f64,
}

const GEN_IP: [u8; 4] = [10, 201, 9, 1];
const SINK_IP: [u8; 4] = [10, 201, 9, 2];
const PORT: u16 = 9000;

fn udp_socket(bind: [u8; 4], port: u16, buffer: usize) -> Result<OwnedFd> {
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(Error::failed("UDP socket", std::io::Error::last_os_error()));
    }
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let size = buffer as libc::c_int;
    for opt in [libc::SO_RCVBUFFORCE, libc::SO_SNDBUFFORCE] {
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                opt,
                &size as *const libc::c_int as *const libc::c_void,
                4,
            )
        };
    }
    let addr = sockaddr(bind, port);
    if unsafe {
        libc::bind(
            fd.as_raw_fd(),
            &addr as *const libc::sockaddr_in as *const libc::sockaddr,
            std::mem::size_of::<libc::sockaddr_in>() as u32,
        )
    } < 0
    {
        return Err(Error::failed("binding a UDP socket", std::io::Error::last_os_error()));
    }
    Ok(fd)
}

fn sockaddr(ip: [u8; 4], port: u16) -> libc::sockaddr_in {
    libc::sockaddr_in {
        sin_family: libc::AF_INET as u16,
        sin_port: port.to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from_ne_bytes(ip) },
        sin_zero: [0; 8],
    }
}

/// Send `count` datagrams of `packet` IP bytes, one every `gap` ns from `start` (absolute
/// CLOCK_MONOTONIC); returns each one's send time (0: the send failed).
fn generate(fd: &OwnedFd, start: Nanos, gap: f64, count: usize, packet: u32) -> Vec<Nanos> {
    let dest = sockaddr(SINK_IP, PORT);
    let mut payload = vec![0u8; packet as usize - 28];
    let mut times = vec![0; count];
    sys::minimal_timer_slack();
    for (k, time) in times.iter_mut().enumerate() {
        let due = start + (k as f64 * gap) as Nanos;
        if sys::monotonic_ns() < due {
            sys::sleep_until(due);
        }
        let now = sys::monotonic_ns();
        payload[0..8].copy_from_slice(&(k as u64).to_ne_bytes());
        payload[8..16].copy_from_slice(&now.to_ne_bytes());
        let n = unsafe {
            libc::sendto(
                fd.as_raw_fd(),
                payload.as_ptr() as *const libc::c_void,
                payload.len(),
                0,
                &dest as *const libc::sockaddr_in as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_in>() as u32,
            )
        };
        if n > 0 {
            *time = now;
        }
    }
    times
}

/// Receive until `stop` and 200 ms of silence; (sequence number, arrival time) pairs. The
/// arrival time is the kernel's receive timestamp (SO_TIMESTAMPNS: when the emulator's send
/// put the datagram into the sink's backlog), CLOCK_REALTIME moved to CLOCK_MONOTONIC, so the
/// sink's own wake-up latency is not counted as emulator delay.
fn sink(fd: &OwnedFd, stop: &AtomicBool) -> Vec<(u64, Nanos)> {
    let tv = libc::timeval { tv_sec: 0, tv_usec: 200_000 };
    let one: libc::c_int = 1;
    unsafe {
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_RCVTIMEO,
            &tv as *const libc::timeval as *const libc::c_void,
            std::mem::size_of::<libc::timeval>() as u32,
        );
        libc::setsockopt(
            fd.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            &one as *const libc::c_int as *const libc::c_void,
            4,
        );
    }
    let offset = || -> i128 {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        unsafe { libc::clock_gettime(libc::CLOCK_REALTIME, &mut ts) };
        (ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128) - sys::monotonic_ns() as i128
    };
    let real_minus_mono = offset();
    let mut buf = vec![0u8; 65536];
    let mut control = [0u64; 16];
    let mut got = Vec::with_capacity(1 << 20);
    loop {
        let mut iov = libc::iovec { iov_base: buf.as_mut_ptr() as *mut libc::c_void, iov_len: buf.len() };
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
        msg.msg_controllen = std::mem::size_of_val(&control);
        let n = unsafe { libc::recvmsg(fd.as_raw_fd(), &mut msg, 0) };
        if n < 0 {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            continue;
        }
        let mut t = sys::monotonic_ns();
        unsafe {
            let mut c = libc::CMSG_FIRSTHDR(&msg);
            while !c.is_null() {
                if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                    let ts = std::ptr::read_unaligned(libc::CMSG_DATA(c) as *const libc::timespec);
                    let real = ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128;
                    if real > 0 {
                        t = (real - real_minus_mono).max(0) as Nanos;
                    }
                }
                c = libc::CMSG_NXTHDR(&msg, c);
            }
        }
        if n >= 16 {
            got.push((u64::from_ne_bytes(buf[0..8].try_into().unwrap()), t));
        }
    }
    got
}

/// Measure one case in fresh namespaces.
pub fn run_case(case: &Case, fifo: Option<i32>) -> Result<CaseResult> {
    let cpus = sys::cpus();
    let emu_cpu = (cpus >= 2).then_some(cpus - 1);
    let spec = |suffix: &str, ip, peer| EndpointSpec {
        suffix: suffix.to_string(),
        ip,
        mtu: case.packet.max(1500),
        sysctls: Vec::new(),
        optional_sysctls: Vec::new(),
        peers: vec![peer],
        route_options: Vec::new(),
    };
    let topo = Topology::create(&[spec("gen", GEN_IP, 1), spec("sink", SINK_IP, 0)])?;
    let body = format!("{}\n{}", case.link, case.errors);
    let (links, _) = links_from_toml(1, &[("l", &body)]).map_err(scenario_error)?;
    let routes = vec![Route { links: vec![0], port: 1 }, Route { links: vec![1], port: 0 }];
    let mut config = realtime::Config {
        ports: topo.endpoints.iter().map(|e| e.router_dev.clone()).collect(),
        cpu: emu_cpu,
        fifo_priority: fifo,
        ..Default::default()
    };
    config.routes.insert((0, 1), 0);
    config.routes.insert((1, 0), 1);
    config.addresses.insert(GEN_IP, 0);
    config.addresses.insert(SINK_IP, 1);
    let epoch = sys::monotonic_ns();
    config.epoch = Some(epoch);
    let emulator = realtime::spawn(Some(topo.router_path()), Emulator::new(links, routes), config)
        .map_err(|e| Error::failed("starting the emulator", e))?;

    let sink_path = topo.endpoints[1].ns_path();
    let gen_path = topo.endpoints[0].ns_path();
    let stop = Arc::new(AtomicBool::new(false));
    let (ready_tx, ready_rx) = std::sync::mpsc::channel();
    let sink_stop = stop.clone();
    let sink_thread = std::thread::spawn(move || -> Result<Vec<(u64, Nanos)>> {
        sys::enter_netns(&sink_path).map_err(|e| Error::failed("entering the sink namespace", e))?;
        let fd = udp_socket(SINK_IP, PORT, 32 << 20)?;
        let _ = ready_tx.send(());
        Ok(sink(&fd, &sink_stop))
    });
    let _ = ready_rx.recv_timeout(std::time::Duration::from_secs(5));
    let gap = f64::from(case.packet) * 8.0 * 1e9 / case.offered_bps as f64;
    let count = (case.seconds * 1e9 / gap) as usize;
    let start = sys::monotonic_ns() + 50_000_000;
    let packet = case.packet;
    let gen_thread = std::thread::spawn(move || -> Result<Vec<Nanos>> {
        sys::enter_netns(&gen_path).map_err(|e| Error::failed("entering the generator namespace", e))?;
        if cpus >= 2 {
            let _ = sys::pin_to_cpu(0);
        }
        // The generator stamps a datagram just before sending it: real-time priority keeps a
        // busy machine from preempting it in between (which would count as emulator delay).
        if let Some(prio) = fifo {
            let param = libc::sched_param { sched_priority: prio };
            unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) };
        }
        let fd = udp_socket(GEN_IP, PORT, 32 << 20)?;
        Ok(generate(&fd, start, gap, count, packet))
    });
    let sent_times = gen_thread.join().map_err(|_| Error::Failed("generator panicked".into()))??;
    // Let everything in flight arrive: the queue drains within a second at these rates.
    let delay_ns = parse_delay(&case.link);
    sys::sleep_until(sys::monotonic_ns() + delay_ns + 1_000_000_000);
    stop.store(true, Ordering::SeqCst);
    let received = sink_thread.join().map_err(|_| Error::Failed("sink panicked".into()))??;
    let sink_drops = netns::tcp_counters(&topo.endpoints[1].ns_path())
        .ok()
        .and_then(|c| c.get("UdpRcvbufErrors").copied())
        .unwrap_or(0);
    let backlog_drops = netns::link_drops(&topo.endpoints[0].ns, netns::ENDPOINT_DEV).map_or(0, |d| d.1);
    let report = emulator.stop().map_err(|e| Error::failed("the emulator", e))?;
    drop(topo);
    if sig_interrupted() {
        return Err(Error::Interrupted);
    }

    // The ideal arrival of each datagram: the link without error models, on the send times.
    let (replay_links, _) = links_from_toml(1, &[("l", &case.link)]).map_err(scenario_error)?;
    let mut ideal_emu: Emulator<usize> = Emulator::new(replay_links, vec![Route { links: vec![0], port: 1 }]);
    let mut ideal = vec![None; sent_times.len()];
    let mut out = Vec::new();
    for (k, &t) in sent_times.iter().enumerate() {
        if t == 0 {
            continue;
        }
        let t = t - epoch;
        ideal_emu.advance(t, &mut out);
        ideal_emu.offer(t, 0, case.packet, k, &mut out);
        for o in out.drain(..) {
            if let Outcome::Delivered { at, payload, .. } = o {
                ideal[payload] = Some(at);
            }
        }
    }
    ideal_emu.advance(u64::MAX, &mut out);
    for o in out.drain(..) {
        if let Outcome::Delivered { at, payload, .. } = o {
            ideal[payload] = Some(at);
        }
    }
    let mut errors = Histogram::default();
    let mut seen = vec![false; sent_times.len()];
    for &(seq, t) in &received {
        let Some(slot) = seen.get_mut(seq as usize) else { continue };
        *slot = true;
        // In a saturated queue the replay (on the send times) may drop a datagram the emulator
        // (on its read times, a few microseconds later) kept, or the other way round: only
        // datagrams both delivered have a delay error.
        if let Some(at) = ideal[seq as usize] {
            errors.record((t - epoch).saturating_sub(at));
        }
    }
    let sent = sent_times.iter().filter(|&&t| t != 0).count() as u64;
    let generator_errors = sent_times.len() as u64 - sent;
    let rcvd = seen.iter().filter(|&&s| s).count() as u64;
    let link = &report.links[0].stats;
    let model_drops = link.drops_overflow + link.drops_error + link.drops_outage + link.drops_red;
    // Everything sent that neither arrived nor was dropped by the link model (nor by the sink's
    // own socket) was lost on the emulator's account: the veth backlog into the router, the
    // AF_PACKET socket buffer, a failed transmit.
    let emulator_drops = sent
        .saturating_sub(rcvd + model_drops + sink_drops)
        .max(report.counters.rx_socket_drops + report.counters.tx_errors);
    let (first, last) =
        (received.iter().map(|r| r.1).min().unwrap_or(0), received.iter().map(|r| r.1).max().unwrap_or(0));
    let running = (last - first).saturating_sub(report.stalls.frozen_ns);
    let achieved = if rcvd > 1 && running > 0 {
        (rcvd - 1) as f64 * f64::from(case.packet) * 8.0 * 1e9 / running as f64
    } else {
        0.0
    };
    let channel = link.drops_error + link.drops_outage;
    let loss_measured = if sent > 0 {
        (sent - rcvd - link.drops_overflow.min(sent - rcvd)) as f64 / sent as f64
    } else {
        0.0
    };
    let interval = case.expected_loss.map(|p| {
        let binomial = (p * (1.0 - p) / sent.max(1) as f64).sqrt();
        let sd = (binomial * binomial + case.extra_loss_sd * case.extra_loss_sd).sqrt();
        ((p - 1.96 * sd).max(0.0), p + 1.96 * sd)
    });
    let ms = |ns: Nanos| ns as f64 / 1e6;
    Ok(CaseResult {
        name: case.name.to_string(),
        rate_bps: case.rate_bps,
        offered_bps: case.offered_bps,
        achieved_bps: achieved,
        achieved_over_rate: achieved / case.rate_bps as f64,
        stalls: report.stalls.count,
        frozen_ms: ms(report.stalls.frozen_ns),
        sent,
        received: rcvd,
        generator_errors,
        model_drops_overflow: link.drops_overflow,
        model_drops_channel: channel,
        emulator_drops,
        emulator_drop_fraction: emulator_drops as f64 / sent.max(1) as f64,
        sink_drops,
        backlog_drops,
        rx_socket_drops: report.counters.rx_socket_drops,
        tx_errors: report.counters.tx_errors,
        emulator_frames_in: report.counters.frames_in,
        emulator_offered: report.routes[0].offered_packets,
        loss_measured,
        loss_expected: case.expected_loss,
        loss_interval: interval,
        delay_error_p50_ms: ms(errors.quantile_ns(0.5)),
        delay_error_p99_ms: ms(errors.quantile_ns(0.99)),
        delay_error_max_ms: ms(errors.max_ns()),
        emulator_lateness_p99_ms: ms(report.lateness.quantile_ns(0.99)),
        emulator_cpu_fraction: report.cpu_seconds / report.wall_seconds.max(1e-9),
    })
}

fn sig_interrupted() -> bool {
    westwood_linux::sig::interrupted()
}

fn parse_delay(link: &str) -> Nanos {
    link.lines()
        .find_map(|l| l.trim().strip_prefix("delay = "))
        .and_then(|v| westwood_simulator::fields::units::parse_duration(v.trim_matches('"')).ok())
        .unwrap_or(0)
}

pub fn format_table(results: &[CaseResult]) -> String {
    let header = [
        "case",
        "rate Mb/s",
        "offered",
        "achieved",
        "achieved/rate",
        "sent",
        "model drops",
        "emulator drops",
        "loss measured (expected, 95% range)",
        "delay err p50/p99/max ms",
        "stalls (frozen ms)",
        "emu CPU",
    ];
    let rows: Vec<Vec<String>> = results
        .iter()
        .map(|r| {
            let loss = match (r.loss_expected, r.loss_interval) {
                (Some(p), Some((lo, hi))) => {
                    format!(
                        "{:.3} % ({:.3} %, {:.3}..{:.3} %)",
                        r.loss_measured * 100.0,
                        p * 100.0,
                        lo * 100.0,
                        hi * 100.0
                    )
                }
                _ => format!("{:.3} %", r.loss_measured * 100.0),
            };
            vec![
                r.name.clone(),
                format!("{:.3}", r.rate_bps as f64 / 1e6),
                format!("{:.3}", r.offered_bps as f64 / 1e6),
                format!("{:.3}", r.achieved_bps / 1e6),
                format!("{:.4}", r.achieved_over_rate),
                r.sent.to_string(),
                format!("{} + {}", r.model_drops_overflow, r.model_drops_channel),
                format!("{} ({:.3} %)", r.emulator_drops, r.emulator_drop_fraction * 100.0),
                loss,
                format!(
                    "{:.3} / {:.3} / {:.3}",
                    r.delay_error_p50_ms, r.delay_error_p99_ms, r.delay_error_max_ms
                ),
                format!("{} ({:.1})", r.stalls, r.frozen_ms),
                format!("{:.1} %", r.emulator_cpu_fraction * 100.0),
            ]
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in &rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line =
        |cells: &[String]| {
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if i == 0 {
                        format!("{c:<w$}", w = widths[i])
                    } else {
                        format!("{c:>w$}", w = widths[i])
                    }
                })
                .collect::<Vec<_>>()
                .join(" | ")
                + "\n"
        };
    let mut s = line(&header.iter().map(|h| h.to_string()).collect::<Vec<_>>());
    s += &(widths.iter().map(|w| "-".repeat(*w)).collect::<Vec<_>>().join("-|-") + "\n");
    for r in &rows {
        s += &line(r);
    }
    s += "model drops = queue overflow + channel errors (the link model's own); emulator drops = the rest of what \
          was sent and not received\n";
    s
}

/// Targets of the issue: 100 Mb/s of 1500 B with <= 0.1 % emulator-caused loss; delay error
/// p99 <= 2 ms.
pub fn verdicts(results: &[CaseResult]) -> Vec<(String, bool)> {
    let mut v = Vec::new();
    if let Some(r) = results.iter().find(|r| r.rate_bps == 100_000_000 && r.offered_bps <= r.rate_bps) {
        v.push((
            format!(
                "100 Mb/s of 1500 B packets: {:.2} Mb/s delivered, emulator-caused loss {:.3} % (target <= 0.1 %)",
                r.achieved_bps / 1e6,
                r.emulator_drop_fraction * 100.0
            ),
            r.emulator_drop_fraction <= 0.001 && r.achieved_over_rate > 0.95,
        ));
    }
    // A queue loaded at 100 % (or more) never drains, so the emulator's and the replay's
    // schedules drift apart by every microsecond the emulator read a datagram late: the delay
    // error is judged on the cases loaded below 96 %.
    let judged: Vec<&CaseResult> =
        results.iter().filter(|r| (r.offered_bps as f64) < 0.96 * r.rate_bps as f64).collect();
    let (worst, name) = judged
        .iter()
        .map(|r| (r.delay_error_p99_ms, r.name.as_str()))
        .fold((0.0, ""), |a, b| if b.0 > a.0 { b } else { a });
    v.push((
        format!("delay error p99, worst case below 96 % load: {worst:.3} ms ({name}; target <= 2 ms)"),
        worst <= 2.0,
    ));
    v
}

pub fn main(scale: f64, json: bool, fifo: Option<i32>, only: Option<&str>) -> Result<i32> {
    netns::require_root("the selftest")?;
    westwood_linux::sig::install();
    netns::remove_stale_and_report();
    let mut results = Vec::new();
    for case in default_cases(scale).into_iter().filter(|c| only.is_none_or(|o| c.name.contains(o))) {
        if !json {
            eprintln!("selftest: {} ({:.0} s) ...", case.name, case.seconds);
        }
        results.push(run_case(&case, fifo)?);
    }
    let verdicts = verdicts(&results);
    if json {
        println!("{}", serde_json::json!({ "cases": results, "targets": verdicts }));
    } else {
        print!("{}", format_table(&results));
        for (text, ok) in &verdicts {
            println!("{} {text}", if *ok { "PASS" } else { "MISS" });
        }
    }
    Ok(if verdicts.iter().all(|v| v.1) { 0 } else { 1 })
}
