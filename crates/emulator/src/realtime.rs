//! The emulator in wall-clock time: AF_PACKET ports, CLOCK_MONOTONIC, epoll + timerfd.
//!
//! One thread, in the router namespace, owns the [`Emulator`] and a socket per port. It
//! sleeps in `epoll_pwait2` on the sockets with a nanosecond timeout (an hrtimer on
//! CLOCK_MONOTONIC, timer slack 1 ns; a timerfd armed at the deadline on kernels before 5.11)
//! that ends at the emulator's next event — the end of a transmission or of a
//! propagation delay — or the next link-series sample, whichever is first. So it uses CPU only
//! when a frame arrives or a packet is due: no busy polling (a tight loop would take a whole
//! core out of the two the testbed's iperf3 processes and kernel TCP need, and the error it
//! would save — the timer's wake-up latency, tens of microseconds — is far below the
//! 1-2 ms the selftest allows). Each frame is stamped with CLOCK_MONOTONIC as it is read;
//! the emulator's clock is that minus the run's epoch (and minus the stalls, below).
//!
//! A packet is sent when the emulator says it has fully arrived; how late that send is
//! (the wake-up latency plus the work done before it) goes into a histogram, reported by the
//! selftest and the testbed.
//!
//! A stall (the thread woke more than [`STALL_NS`] after the emulator's next event: the machine
//! or its hypervisor held the CPU) freezes the links rather than bursting: the emulator's clock
//! is moved back by the time lost, so every packet in the links leaves as much later as the
//! stall lasted and keeps its spacing, as if the emulated network had stood still. Releasing
//! them at once instead would hand the endpoints packets microseconds apart on a path that
//! spaces them by its serialisation time: ACKs so compressed are read by a rate estimator as
//! hundreds of Mb/s (a 42 ms stall, one in a 60 s run whose p99 lateness was 0.23 ms, took the
//! kernel's tcpw estimate on the 2 Mb/s fig. 9 path to 16.5 Mb/s and its ssthresh to 224
//! segments), which no simulated link produces. The stalls are counted and reported.

use std::collections::HashMap;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::Serialize;
use westwood_simulator::model::Nanos;
use westwood_simulator::network::link::Link;

use crate::afpacket::{self, PacketSocket, VNET_HDR_LEN};
use crate::engine::{DropCause, Emulator, Outcome, RouteId};
use crate::sys;

/// SCHED_FIFO priority of the emulator thread unless told otherwise (low among real-time
/// priorities: kernel threads that must preempt it still do).
pub const DEFAULT_FIFO_PRIORITY: i32 = 10;

/// How the emulator is wired to the outside.
#[derive(Debug, Clone)]
pub struct Config {
    /// Interfaces (in the emulator's namespace), one per port, port = index.
    pub ports: Vec<String>,
    /// IPv4 destination -> the port its frames leave by.
    pub addresses: HashMap<[u8; 4], u16>,
    /// (input port, output port) -> the route a frame takes through the links.
    pub routes: HashMap<(u16, u16), RouteId>,
    /// Input port -> output port for destinations not in `addresses` (a two-port emulator
    /// between existing interfaces forwards everything across).
    pub fallback: HashMap<u16, u16>,
    /// CLOCK_MONOTONIC instant that is the emulator's time 0 (`None`: when the thread starts).
    pub epoch: Option<Nanos>,
    /// Record each link's queue and drop counters at this interval (emulator time).
    pub sample_interval: Option<Nanos>,
    /// Pin the emulator thread to this CPU.
    pub cpu: Option<usize>,
    /// SCHED_FIFO priority for the emulator thread (`None`: the normal scheduler).
    pub fifo_priority: Option<i32>,
    /// SO_RCVBUF / SO_SNDBUF of each port's socket, bytes.
    pub socket_buffer: usize,
    /// Copy the frames of the ports it captures to packet captures (`westwood testbed --pcap`).
    pub capture: Option<crate::capture::Tap>,
    /// Number the segments and ACKs of the testbed's flows, for `drop-list` errors.
    pub tagger: Option<crate::segments::Tagger>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            ports: Vec::new(),
            addresses: HashMap::new(),
            routes: HashMap::new(),
            fallback: HashMap::new(),
            epoch: None,
            sample_interval: None,
            cpu: None,
            fifo_priority: Some(DEFAULT_FIFO_PRIORITY),
            socket_buffer: 8 << 20,
            capture: None,
            tagger: None,
        }
    }
}

/// Per route: what entered it and what became of it.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct RouteCounters {
    pub offered_packets: u64,
    pub offered_bytes: u64,
    pub delivered_packets: u64,
    pub delivered_bytes: u64,
    pub drops_overflow: u64,
    pub drops_red: u64,
    pub drops_error: u64,
    pub drops_outage: u64,
}

/// Frames the emulator itself failed to carry, and other oddities.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct Counters {
    pub frames_in: u64,
    pub frames_out: u64,
    /// Frames the kernel dropped because a port's socket buffer was full (emulator-caused).
    pub rx_socket_drops: u64,
    /// Transmits that failed (e.g. the peer's backlog was full: emulator-caused).
    pub tx_errors: u64,
    /// Frames to an address no port serves, or between ports with no route (not sent on).
    pub unroutable: u64,
    /// Frames that are not IPv4 (ARP, IPv6: the testbed uses static neighbours and no IPv6,
    /// so it drops them as unroutable; `run` forwards them across like any frame).
    pub non_ipv4: u64,
    /// GSO super-packets (several segments in one frame; GSO should be off on the endpoints).
    pub gso_frames: u64,
}

/// One sample of a link's queue and cumulative drops.
#[derive(Debug, Clone, PartialEq)]
pub struct LinkSample {
    pub time: Nanos,
    pub link: u32,
    pub queue_packets: u64,
    pub queue_bytes: u64,
    pub queue_avg_packets: f64,
    pub drops_overflow: u64,
    pub drops_red: u64,
    pub drops_error: u64,
    pub drops_outage: u64,
}

/// Lateness of sends: 1 us buckets up to 100 ms, and the maximum.
#[derive(Debug, Clone)]
pub struct Histogram {
    buckets: Vec<u64>,
    over: u64,
    count: u64,
    max: Nanos,
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram { buckets: vec![0; 100_000], over: 0, count: 0, max: 0 }
    }
}

impl Histogram {
    pub fn record(&mut self, ns: Nanos) {
        let us = (ns / 1000) as usize;
        match self.buckets.get_mut(us) {
            Some(b) => *b += 1,
            None => self.over += 1,
        }
        self.count += 1;
        self.max = self.max.max(ns);
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn max_ns(&self) -> Nanos {
        self.max
    }

    /// The `q` quantile (0..=1), to the microsecond (upper edge of its bucket).
    pub fn quantile_ns(&self, q: f64) -> Nanos {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (us, &n) in self.buckets.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return (us as u64 + 1) * 1000;
            }
        }
        self.max
    }
}

/// A wake-up later than this after the emulator's next event is a stall: the links freeze for
/// its length (see the module notes). The same bound as the testbed's p99 lateness limit: the
/// wake-up latency of an idle machine is 0.1-0.2 ms, and a packet this late has been sent
/// closer to the one before it than the fig. 9 path's 1.76 ms data spacing allows.
pub const STALL_NS: Nanos = 1_000_000;

/// The stalls a run had ([`STALL_NS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stalls {
    /// How many.
    pub count: u64,
    /// The time the links stood still, in all.
    pub frozen_ns: Nanos,
    /// The longest.
    pub longest_ns: Nanos,
}

impl Stalls {
    /// If the thread woke at `now` with the emulator's next event due at `due`, the time the
    /// links freeze for (and it is counted), else `None`.
    pub fn on_wake(&mut self, due: Option<Nanos>, now: Nanos) -> Option<Nanos> {
        let lost = now.saturating_sub(due?);
        if lost <= STALL_NS {
            return None;
        }
        self.count += 1;
        self.frozen_ns += lost;
        self.longest_ns = self.longest_ns.max(lost);
        Some(lost)
    }

    /// For the reports: `{"count", "frozen_seconds", "longest_seconds"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "count": self.count,
            "frozen_seconds": self.frozen_ns as f64 / 1e9,
            "longest_seconds": self.longest_ns as f64 / 1e9,
        })
    }
}

/// What a finished run reports.
pub struct Report {
    /// The links with their final statistics.
    pub links: Vec<Link>,
    pub routes: Vec<RouteCounters>,
    pub samples: Vec<LinkSample>,
    pub counters: Counters,
    /// How late each send was relative to its scheduled instant (a stall counts in full for
    /// the packets it held, though the links froze for it).
    pub lateness: Histogram,
    /// The stalls, during which the links stood still.
    pub stalls: Stalls,
    /// CPU time of the emulator thread, and the wall time it ran.
    pub cpu_seconds: f64,
    pub wall_seconds: f64,
    pub events: u64,
    /// The epoch the run started with (CLOCK_MONOTONIC ns): the emulator's time 0. Each stall
    /// moved the clock back by its length since ([`Stalls::frozen_ns`] in all).
    pub epoch: Nanos,
}

/// A running emulator thread.
pub struct Running {
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<io::Result<Report>>>,
}

impl Running {
    /// Stop the thread and collect its report.
    pub fn stop(mut self) -> io::Result<Report> {
        self.stop.store(true, Ordering::SeqCst);
        let handle = self.handle.take().expect("running");
        handle.join().unwrap_or_else(|_| Err(io::Error::other("the emulator thread panicked")))
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

/// Start the emulator on a thread of its own, inside the network namespace at `netns` (a path
/// such as /run/netns/NAME; `None`: the current one). Returns once its sockets are open.
pub fn spawn(netns: Option<String>, emu: Emulator<Vec<u8>>, config: Config) -> io::Result<Running> {
    let stop = Arc::new(AtomicBool::new(false));
    let (tx, rx) = std::sync::mpsc::channel();
    let flag = stop.clone();
    let handle = std::thread::Builder::new().name("westwood-emu".into()).spawn(move || {
        let setup = (|| -> io::Result<Vec<PacketSocket>> {
            if let Some(ns) = &netns {
                sys::enter_netns(ns).map_err(|e| io::Error::other(format!("entering {ns}: {e}")))?;
            }
            sys::minimal_timer_slack();
            if let Some(cpu) = config.cpu {
                sys::pin_to_cpu(cpu)?;
            }
            if let Some(prio) = config.fifo_priority {
                // Real-time priority keeps other busy processes (iperf3, a build) from delaying
                // the emulator's wake-ups by a scheduler slice. It blocks in epoll between
                // events, so it takes no more CPU than it needs; if refused (no CAP_SYS_NICE,
                // no RT budget in the cgroup), run without it.
                let param = libc::sched_param { sched_priority: prio };
                if unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) } != 0 {
                    eprintln!(
                        "warning: the emulator runs without real-time priority (SCHED_FIFO {prio}: {})",
                        io::Error::last_os_error()
                    );
                }
            }
            config
                .ports
                .iter()
                .map(|p| {
                    PacketSocket::open(p, config.socket_buffer)
                        .map_err(|e| io::Error::other(format!("AF_PACKET socket on {p}: {e}")))
                })
                .collect()
        })();
        match setup {
            Err(e) => {
                let _ = tx.send(Err(io::Error::new(e.kind(), e.to_string())));
                Err(e)
            }
            Ok(sockets) => {
                let _ = tx.send(Ok(()));
                run_loop(emu, &config, sockets, &flag)
            }
        }
    })?;
    match rx.recv() {
        Ok(Ok(())) => Ok(Running { stop, handle: Some(handle) }),
        Ok(Err(e)) => {
            let _ = handle.join();
            Err(e)
        }
        Err(_) => Err(io::Error::other("the emulator thread died while starting")),
    }
}

struct State<'a> {
    emu: Emulator<Vec<u8>>,
    sockets: &'a [PacketSocket],
    epoch: Nanos,
    routes: Vec<RouteCounters>,
    counters: Counters,
    lateness: Histogram,
    stalls: Stalls,
    /// The stall this pass froze the links for: added to the lateness of what it sends.
    frozen_now: Nanos,
    out: Vec<Outcome<Vec<u8>>>,
    capture: Option<crate::capture::Tap>,
}

impl State<'_> {
    fn now(&self) -> Nanos {
        sys::monotonic_ns().saturating_sub(self.epoch)
    }

    /// Send what was delivered, count what was dropped.
    fn settle(&mut self) {
        for outcome in self.out.drain(..) {
            match outcome {
                Outcome::Delivered { at, route, port, size, payload } => {
                    let r = &mut self.routes[route as usize];
                    r.delivered_packets += 1;
                    r.delivered_bytes += u64::from(size);
                    match self.sockets[port as usize].send(&payload) {
                        Ok(()) => self.counters.frames_out += 1,
                        Err(_) => self.counters.tx_errors += 1,
                    }
                    if let Some(c) = &self.capture {
                        c.frame(port, sys::monotonic_ns(), &payload, westwood_pcap::Direction::Inbound);
                    }
                    let sent = sys::monotonic_ns().saturating_sub(self.epoch);
                    self.lateness.record(sent.saturating_sub(at) + self.frozen_now);
                }
                Outcome::Dropped { route, cause, .. } => {
                    let r = &mut self.routes[route as usize];
                    match cause {
                        DropCause::Overflow => r.drops_overflow += 1,
                        DropCause::Red => r.drops_red += 1,
                        DropCause::Error => r.drops_error += 1,
                        DropCause::Outage => r.drops_outage += 1,
                    }
                }
            }
        }
    }

    fn flush(&mut self) {
        let now = self.now();
        self.emu.advance(now, &mut self.out);
        self.settle();
    }
}

const TIMER: u64 = u64::MAX;

fn run_loop(
    emu: Emulator<Vec<u8>>,
    config: &Config,
    sockets: Vec<PacketSocket>,
    stop: &AtomicBool,
) -> io::Result<Report> {
    let started_wall = sys::monotonic_ns();
    let started_cpu = sys::thread_cpu_ns();
    let epoch = config.epoch.unwrap_or(started_wall);
    let epoll = sys::Epoll::new()?;
    let timer = sys::TimerFd::new()?;
    epoll.add(timer.fd(), TIMER)?;
    for (i, s) in sockets.iter().enumerate() {
        epoll.add(s.fd(), i as u64)?;
    }
    let n_routes = emu.routes().len();
    let mut st = State {
        emu,
        sockets: &sockets,
        epoch,
        routes: vec![RouteCounters::default(); n_routes],
        counters: Counters::default(),
        lateness: Histogram::default(),
        stalls: Stalls::default(),
        frozen_now: 0,
        out: Vec::with_capacity(64),
        capture: config.capture.clone(),
    };
    let mut tagger = config.tagger.clone();
    let mut samples = Vec::new();
    let mut next_sample = config.sample_interval.map(|_| 0);
    let mut buf = vec![0u8; VNET_HDR_LEN + 65536 + 64];
    let mut ready = Vec::new();
    // epoll_pwait2 waits with nanosecond resolution and needs no timer of its own; before Linux
    // 5.11, a timerfd (re-armed only when the deadline changes) does the same.
    let pwait2 = match epoll.wait_ns(&mut ready, Some(0)) {
        Ok(()) => true,
        Err(e) if e.kind() == io::ErrorKind::Unsupported => false,
        Err(e) => return Err(e),
    };
    let mut armed: Option<Nanos> = None;
    while !stop.load(Ordering::Relaxed) {
        let deadline = [st.emu.next_event(), next_sample].into_iter().flatten().min().map(|t| t + st.epoch);
        if pwait2 {
            // At most 100 ms, to notice `stop`.
            let now = sys::monotonic_ns();
            let timeout = deadline.map_or(100_000_000, |d| d.saturating_sub(now).min(100_000_000));
            epoll.wait_ns(&mut ready, Some(timeout))?;
        } else {
            if armed != deadline {
                timer.set(deadline)?;
                armed = deadline;
            }
            epoll.wait(&mut ready, 100)?;
            if ready.contains(&TIMER) {
                timer.clear();
                armed = None;
            }
        }
        // A stall freezes the links: the clock goes back by the time lost (module notes).
        let now = st.now();
        st.frozen_now = st.stalls.on_wake(st.emu.next_event(), now).unwrap_or(0);
        st.epoch += st.frozen_now;
        // Read the ports that have frames (a batch each; epoll is level-triggered, so what is
        // left is read on the next pass), sending what falls due in between.
        for &token in &ready {
            let Some(sock) = sockets.get(token as usize) else { continue };
            let port = token as usize;
            for _ in 0..64 {
                let Some(n) = sock.recv(&mut buf)? else { break };
                let t = st.now();
                st.counters.frames_in += 1;
                let frame = &buf[..n];
                if let Some(c) = &st.capture {
                    c.frame(port as u16, t + st.epoch, frame, westwood_pcap::Direction::Outbound);
                }
                let Some(info) = afpacket::parse(frame) else {
                    st.counters.non_ipv4 += 1;
                    continue;
                };
                if info.gso {
                    st.counters.gso_frames += 1;
                }
                if info.dst.is_none() {
                    st.counters.non_ipv4 += 1;
                }
                let out = info
                    .dst
                    .and_then(|d| config.addresses.get(&d))
                    .or_else(|| config.fallback.get(&(port as u16)));
                let route = out.and_then(|&out| config.routes.get(&(port as u16, out)));
                let Some(&route) = route else {
                    st.counters.unroutable += 1;
                    continue;
                };
                st.emu.advance(t, &mut st.out);
                st.settle();
                let r = &mut st.routes[route as usize];
                r.offered_packets += 1;
                r.offered_bytes += u64::from(info.ip_len);
                // With a tagger (the testbed), only frames the simulator also has meet the
                // scenario's error models (segments.rs).
                match tagger.as_mut().map(|tagger| tagger.classify(frame)) {
                    Some(seen) if !seen.simulated => {
                        st.emu.offer_outside(t, route, info.ip_len, frame.to_vec(), &mut st.out)
                    }
                    seen => {
                        let tag = seen.and_then(|seen| seen.tag);
                        st.emu.offer_tagged(t, route, info.ip_len, tag, frame.to_vec(), &mut st.out)
                    }
                }
                st.settle();
            }
        }
        st.flush();
        if let (Some(interval), Some(at)) = (config.sample_interval, next_sample) {
            let now = st.now();
            if now >= at {
                for (i, l) in st.emu.links().iter().enumerate() {
                    samples.push(LinkSample {
                        time: at,
                        link: i as u32,
                        queue_packets: l.queue_packets(),
                        queue_bytes: l.queue_bytes(),
                        queue_avg_packets: l.red().map_or(f64::NAN, |r| r.average()),
                        drops_overflow: l.stats.drops_overflow,
                        drops_red: l.stats.drops_red,
                        drops_error: l.stats.drops_error,
                        drops_outage: l.stats.drops_outage,
                    });
                }
                // The next boundary after now (skip the ones missed, if any).
                next_sample = Some(at + ((now - at) / interval + 1) * interval);
            }
        }
    }
    for sock in sockets.iter() {
        st.counters.rx_socket_drops += sock.statistics().1;
    }
    let events = st.emu.events();
    Ok(Report {
        links: st.emu.into_links(),
        routes: st.routes,
        samples,
        counters: st.counters,
        lateness: st.lateness,
        stalls: st.stalls,
        cpu_seconds: (sys::thread_cpu_ns() - started_cpu) as f64 / 1e9,
        wall_seconds: (sys::monotonic_ns() - started_wall) as f64 / 1e9,
        events,
        epoch,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_quantiles() {
        let mut h = Histogram::default();
        for us in 1..=1000u64 {
            h.record(us * 1000 - 500);
        }
        assert_eq!(h.count(), 1000);
        assert_eq!(h.quantile_ns(0.5), 500_000);
        assert_eq!(h.quantile_ns(0.99), 990_000);
        assert_eq!(h.max_ns(), 999_500);
        h.record(5_000_000_000);
        assert_eq!(h.max_ns(), 5_000_000_000);
        assert_eq!(h.quantile_ns(1.0), 5_000_000_000);
    }

    #[test]
    fn a_wake_up_more_than_a_millisecond_late_is_a_stall_that_freezes_the_links_for_its_length() {
        let mut stalls = Stalls::default();
        assert_eq!(stalls.on_wake(None, 5_000_000), None, "nothing due");
        assert_eq!(stalls.on_wake(Some(10_000_000), 9_000_000), None, "early");
        assert_eq!(stalls.on_wake(Some(10_000_000), 10_900_000), None, "ordinary wake-up latency");
        assert_eq!(stalls.on_wake(Some(10_000_000), 52_000_000), Some(42_000_000));
        assert_eq!(stalls.on_wake(Some(60_000_000), 63_000_000), Some(3_000_000));
        assert_eq!(stalls, Stalls { count: 2, frozen_ns: 45_000_000, longest_ns: 42_000_000 });
    }
}
