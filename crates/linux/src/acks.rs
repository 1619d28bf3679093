//! The kernel's per-ACK trace: the tcpw* congestion controls write one `struct tcpw_ack_event`
//! (kernel/tcpw_watch.bpf.h) per ACK fed to the estimator and per committed loss reaction into a
//! BPF ring buffer, while a consumer has switched the trace on. [`TraceSession`] is that
//! consumer (one at a time: it holds a lock), [`Converter`] turns events into the rows of
//! docs/ack-trace.md (`westwood_trace::AckRecord`), which `watch --acks` and the testbed write
//! through the same writer as the simulator.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fs::File;
use std::net::{IpAddr, SocketAddr};
use std::rc::Rc;
use std::time::Duration;

use libbpf_rs::{MapCore, MapFlags, MapHandle, RingBuffer, RingBufferBuilder};
use westwood_trace::{AckRecord, CaState, SeqUnwrapper, TraceEvent};

use crate::loader::{self, Algo, SharedMap};
use crate::record::{addr_at, u16_at, u32_at, u64_at};
use crate::{Error, Result};

pub const ACK_MAGIC: u32 = 0x5441_0001;
pub const EVENT_SIZE: usize = 112;
/// Where the consumer's lock lives (tmpfs: gone at reboot, as the pins are).
pub const LOCK_PATH: &str = "/run/westwood-linux-trace.lock";

const F_DUPACK: u8 = 1;
const F_RTT: u8 = 2;
const F_RTT_MIN: u8 = 4;

/// One decoded `struct tcpw_ack_event`.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelAck {
    pub algo: Option<Algo>,
    pub event: TraceEvent,
    /// icsk_ca_state.
    pub ca_state: u8,
    pub dupack: bool,
    /// tp->tcp_mstamp, µs.
    pub time_us: u64,
    pub bwe_q8: u64,
    pub conn_id: u32,
    pub netns: u32,
    pub sport: u16,
    pub dport: u16,
    pub src: IpAddr,
    pub dst: IpAddr,
    /// snd_una minus its value when the control started (mod 2^32).
    pub ack: u32,
    pub acked_bytes: u32,
    pub credited_bytes: u32,
    pub sacked_out: u32,
    pub in_flight: u32,
    pub rtt_us: Option<u32>,
    pub rtt_min_us: Option<u32>,
    /// Segments.
    pub cwnd: u32,
    pub ssthresh: u32,
    pub mss: u32,
}

/// Decode one ring buffer record.
pub fn parse_event(b: &[u8]) -> Result<KernelAck> {
    if b.len() < EVENT_SIZE || u32_at(b, 0) != ACK_MAGIC {
        return Err(Error::Failed(format!(
            "trace record of {} bytes with magic {:#x}, expected {EVENT_SIZE} bytes and {ACK_MAGIC:#x} (loaded by \
             another version? run `westwood-linux unload` then `load`)",
            b.len(),
            if b.len() >= 4 { u32_at(b, 0) } else { 0 }
        )));
    }
    let flags = b[7];
    let family = u16_at(b, 32);
    let addr = |o: usize| addr_at(b, o, family);
    Ok(KernelAck {
        algo: Algo::from_id(b[4]),
        event: match b[5] {
            1 => TraceEvent::Recovery,
            2 => TraceEvent::Timeout,
            3 => TraceEvent::TimeoutHeld,
            _ => TraceEvent::Ack,
        },
        ca_state: b[6],
        dupack: flags & F_DUPACK != 0,
        time_us: u64_at(b, 8),
        bwe_q8: u64_at(b, 16),
        conn_id: u32_at(b, 24),
        netns: u32_at(b, 28),
        sport: u16_at(b, 34),
        dport: u16_at(b, 36),
        ack: u32_at(b, 40),
        acked_bytes: u32_at(b, 44),
        credited_bytes: u32_at(b, 48),
        sacked_out: u32_at(b, 52),
        in_flight: u32_at(b, 56),
        rtt_us: (flags & F_RTT != 0).then(|| u32_at(b, 60)),
        rtt_min_us: (flags & F_RTT_MIN != 0).then(|| u32_at(b, 64)),
        cwnd: u32_at(b, 68),
        ssthresh: u32_at(b, 72),
        mss: u32_at(b, 76),
        src: addr(80),
        dst: addr(96),
    })
}

impl KernelAck {
    /// `SRC:SPORT-DST:DPORT`, the flow name `watch --acks` writes.
    pub fn flow_name(&self) -> String {
        format!("{}-{}", SocketAddr::new(self.src, self.sport), SocketAddr::new(self.dst, self.dport))
    }
}

/// Events to trace rows: keeps each connection's 64-bit ACK offset across 2^32.
#[derive(Debug, Default)]
pub struct Converter {
    acks: HashMap<u32, SeqUnwrapper>,
}

impl Converter {
    pub fn new() -> Self {
        Self::default()
    }

    /// The row of `ev`, named `flow`.
    pub fn record(&mut self, ev: &KernelAck, flow: &str) -> AckRecord {
        let ack =
            self.acks.entry(ev.conn_id).or_insert_with(|| SeqUnwrapper::first_seen(ev.ack)).unwrap(ev.ack);
        let mss = u64::from(ev.mss);
        let is_estimator = ev.algo.is_some();
        AckRecord {
            time_ns: ev.time_us * 1000,
            flow: flow.to_string(),
            cc: ev.algo.map(Algo::name).unwrap_or("?").to_string(),
            event: ev.event,
            ack,
            acked_bytes: u64::from(ev.acked_bytes),
            dupack: ev.dupack,
            sacked_bytes: u64::from(ev.sacked_out) * mss,
            credited_bytes: is_estimator.then_some(u64::from(ev.credited_bytes)),
            rtt_us: ev.rtt_us.map(f64::from),
            bwe_bps: is_estimator.then(|| ev.bwe_q8 as f64 / 256.0),
            rtt_min_us: ev.rtt_min_us.map(f64::from),
            cwnd_bytes: u64::from(ev.cwnd) * mss,
            ssthresh_bytes: u64::from(ev.ssthresh) * mss,
            mss,
            ca_state: CaState::from_kernel(ev.ca_state).unwrap_or_default(),
            in_flight_bytes: u64::from(ev.in_flight) * mss,
        }
    }

    /// Forget a connection (its ids are not reused while the programs stay loaded).
    pub fn forget(&mut self, conn_id: u32) {
        self.acks.remove(&conn_id);
    }
}

/// The consumer side of a ring buffer of `struct tcpw_ack_event` records, shared by the tcpw*
/// trace ([`TraceSession`]) and the ACK-path probe (`crate::ack_probe`): what its callback
/// decoded, and the first record it could not.
pub(crate) struct EventRing {
    ring: RingBuffer<'static>,
    received: Rc<RefCell<Vec<KernelAck>>>,
    bad: Rc<RefCell<Vec<String>>>,
    /// What the ring is, for errors ("the per-ACK trace").
    what: &'static str,
}

impl EventRing {
    pub(crate) fn new(map: &MapHandle, what: &'static str) -> Result<EventRing> {
        let received = Rc::new(RefCell::new(Vec::new()));
        let bad = Rc::new(RefCell::new(Vec::new()));
        let ring = {
            let (received, bad) = (received.clone(), bad.clone());
            let mut builder = RingBufferBuilder::new();
            builder.add(map, move |data: &[u8]| {
                match parse_event(data) {
                    Ok(ev) => received.borrow_mut().push(ev),
                    Err(e) => bad.borrow_mut().push(e.to_string()),
                }
                0
            })?;
            builder.build()?
        };
        Ok(EventRing { ring, received, bad, what })
    }

    /// Wait up to `timeout` for records; returns those that arrived (possibly none).
    pub(crate) fn poll(&mut self, timeout: Duration) -> Result<Vec<KernelAck>> {
        match self.ring.poll(timeout) {
            Ok(()) => {}
            // EINTR: a signal (Ctrl-C) — the caller checks its flag.
            Err(e) if e.kind() == libbpf_rs::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::failed(format!("reading {}", self.what), e)),
        }
        self.take()
    }

    /// Take everything the ring holds now, without waiting.
    pub(crate) fn consume(&mut self) -> Result<Vec<KernelAck>> {
        self.ring.consume().map_err(|e| Error::failed(format!("reading {}", self.what), e))?;
        self.take()
    }

    fn take(&mut self) -> Result<Vec<KernelAck>> {
        if let Some(bad) = self.bad.borrow_mut().drain(..).next() {
            return Err(Error::Failed(bad));
        }
        Ok(std::mem::take(&mut *self.received.borrow_mut()))
    }
}

/// `trace_dropped` of a `struct tcpw_counters` array (one element): the records a program could
/// not write because its ring buffer was full.
pub(crate) fn records_dropped(counters: &MapHandle) -> Result<u64> {
    let v = counters
        .lookup(&0u32.to_ne_bytes(), MapFlags::ANY)
        .map_err(|e| Error::failed("reading the trace counters", e))?
        .unwrap_or_default();
    Ok(if v.len() >= 16 { u64_at(&v, 8) } else { 0 })
}

/// The trace's consumer. While it lives the programs write records (for every tcpw* socket of
/// every namespace); dropping it switches the trace off again. One at a time (a lock file).
pub struct TraceSession {
    ring: EventRing,
    ctl: MapHandle,
    counters: MapHandle,
    _acks: MapHandle,
    _lock: File,
    dropped_at_start: u64,
}

fn open_pinned(m: SharedMap) -> Result<MapHandle> {
    MapHandle::from_pinned_path(m.pin_path())
        .map_err(|e| Error::failed(format!("opening {}", m.pin_path().display()), e))
}

impl TraceSession {
    /// Take the trace: the pins must exist (`load`), no other consumer may hold it.
    pub fn start() -> Result<TraceSession> {
        if let Err(why) = loader::trace_status() {
            return Err(Error::Prereq(format!("the per-ACK trace is not available: {why}")));
        }
        let lock = crate::lockfile::open(std::path::Path::new(LOCK_PATH))?;
        if !crate::lockfile::try_lock(&lock, crate::lockfile::Mode::Exclusive) {
            return Err(Error::Failed(format!(
                "another consumer (`westwood-linux watch --acks` or a testbed run with --ack-trace) holds the per-ACK \
                 trace ({LOCK_PATH}); one at a time — wait for it to end"
            )));
        }
        let acks = open_pinned(SharedMap::Acks)?;
        let ctl = open_pinned(SharedMap::TraceCtl)?;
        let counters = open_pinned(SharedMap::Counters)?;
        let ring = EventRing::new(&acks, "the per-ACK trace")?;
        let mut session = TraceSession { ring, ctl, counters, _acks: acks, _lock: lock, dropped_at_start: 0 };
        session.dropped_at_start = session.dropped_total()?;
        // Old records (a consumer that died) are not ours: drain them before switching on.
        session.ring.consume()?;
        session.set_enabled(true)?;
        Ok(session)
    }

    fn set_enabled(&self, on: bool) -> Result<()> {
        let mut value = [0u8; 8];
        value[..4].copy_from_slice(&u32::from(on).to_ne_bytes());
        self.ctl
            .update(&0u32.to_ne_bytes(), &value, MapFlags::ANY)
            .map_err(|e| Error::failed("switching the per-ACK trace", e))
    }

    fn dropped_total(&self) -> Result<u64> {
        records_dropped(&self.counters)
    }

    /// Records the kernel could not write since the start (the ring buffer was full).
    pub fn dropped(&self) -> Result<u64> {
        Ok(self.dropped_total()?.saturating_sub(self.dropped_at_start))
    }

    /// Wait up to `timeout` for records; returns those that arrived (possibly none).
    pub fn poll(&mut self, timeout: Duration) -> Result<Vec<KernelAck>> {
        self.ring.poll(timeout)
    }

    /// Switch the trace off and take what is still in the ring buffer.
    pub fn finish(mut self) -> Result<Vec<KernelAck>> {
        self.set_enabled(false)?;
        self.ring.consume()
    }
}

impl Drop for TraceSession {
    fn drop(&mut self) {
        let _ = self.set_enabled(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event() -> Vec<u8> {
        let mut b = vec![0u8; EVENT_SIZE];
        b[0..4].copy_from_slice(&ACK_MAGIC.to_ne_bytes());
        b[4] = 4; // tcpw_abse
        b[5] = 0;
        b[6] = 3; // recovery
        b[7] = F_DUPACK | F_RTT_MIN;
        b[8..16].copy_from_slice(&1_000_123u64.to_ne_bytes());
        b[16..24].copy_from_slice(&((2_000_000u64) << 8).to_ne_bytes());
        b[24..28].copy_from_slice(&7u32.to_ne_bytes());
        b[32..34].copy_from_slice(&2u16.to_ne_bytes());
        b[34..36].copy_from_slice(&40000u16.to_ne_bytes());
        b[36..38].copy_from_slice(&5201u16.to_ne_bytes());
        b[40..44].copy_from_slice(&(u32::MAX - 99).to_ne_bytes());
        b[52..56].copy_from_slice(&3u32.to_ne_bytes());
        b[56..60].copy_from_slice(&10u32.to_ne_bytes());
        b[60..64].copy_from_slice(&555u32.to_ne_bytes()); // no F_RTT: ignored
        b[64..68].copy_from_slice(&20_000u32.to_ne_bytes());
        b[68..72].copy_from_slice(&12u32.to_ne_bytes());
        b[72..76].copy_from_slice(&0x7fff_ffffu32.to_ne_bytes());
        b[76..80].copy_from_slice(&1448u32.to_ne_bytes());
        b[80..84].copy_from_slice(&[10, 201, 1, 1]);
        b[96..100].copy_from_slice(&[10, 201, 2, 1]);
        b
    }

    #[test]
    fn decodes_and_converts_a_record() {
        let ev = parse_event(&event()).unwrap();
        assert_eq!(ev.algo, Some(Algo::from_name("tcpw_abse").unwrap()));
        assert!(ev.dupack);
        assert_eq!((ev.rtt_us, ev.rtt_min_us), (None, Some(20_000)));
        assert_eq!(ev.flow_name(), "10.201.1.1:40000-10.201.2.1:5201");
        let mut c = Converter::new();
        let r = c.record(&ev, "ftp");
        assert_eq!(r.time_ns, 1_000_123_000);
        assert_eq!(r.cc, "tcpw_abse");
        assert_eq!(r.ack, u64::from(u32::MAX - 99));
        assert_eq!(r.bwe_bps, Some(2e6));
        assert_eq!((r.sacked_bytes, r.in_flight_bytes, r.cwnd_bytes), (3 * 1448, 10 * 1448, 12 * 1448));
        assert_eq!(r.ca_state, CaState::Recovery);
        assert_eq!(r.rtt_us, None);
        // The same connection past 2^32 bytes keeps counting up.
        let mut later = event();
        later[40..44].copy_from_slice(&100u32.to_ne_bytes());
        let r = c.record(&parse_event(&later).unwrap(), "ftp");
        assert_eq!(r.ack, (1u64 << 32) + 100);
    }

    #[test]
    fn rejects_foreign_records() {
        assert!(parse_event(&[0u8; EVENT_SIZE]).is_err());
        assert!(parse_event(&event()[..50]).is_err());
    }
}
