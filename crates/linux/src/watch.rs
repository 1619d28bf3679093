//! `watch`: per-connection BWE, RTTmin, cwnd and ssthresh.
//!
//! `ss -i` cannot show a BPF congestion control's private state, so the programs keep a
//! record per socket in socket-local storage (BPF_MAP_TYPE_SK_STORAGE), refreshed on every
//! ACK and at every loss, and deleted when the socket releases the congestion control. `load`
//! pins a BPF iterator that reads those records back (kernel/tcpw_watch.bpf.c): every read(2)
//! of a fresh open of the pinned file runs it, and it writes one binary record per socket
//! (kernel/tcpw_watch.bpf.h), adding the live cwnd, ssthresh, mss and 4-tuple. Two kinds:
//!
//! - the socket-storage iterator (pin `watch`) walks the map: every namespace in one read;
//! - the TCP iterator (pin `watch_tcp`), where the kernel refuses the first, walks the TCP
//!   sockets of the namespace of the process that opens it, so [`snapshot`] opens it once in
//!   each network namespace it finds (every /proc/PID/ns/net and /run/netns/*), from a thread
//!   that has joined that namespace.
//!
//! When neither loaded, `watch` probes both again and says why each is refused.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::loader::{self, Algo};
use crate::probe::{self, WatchKind};
use crate::record::{addr_at, u16_at, u32_at, u64_at};
use crate::{sig, Error, Result};

pub const WATCH_MAGIC: u32 = 0x5457_0004;
pub const RECORD_SIZE: usize = 160;
pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

/// One connection, decoded from a `struct tcpw_watch_record`.
#[derive(Debug, Clone, PartialEq)]
pub struct Conn {
    pub algo: Option<Algo>,
    pub state: u8,
    pub netns: u32,
    pub src: IpAddr,
    pub sport: u16,
    pub dst: IpAddr,
    pub dport: u16,
    pub cwnd: u32,
    pub ssthresh: u32,
    pub mss: u32,
    pub rtt_min_us: u32,
    /// Bits/s in Q8 (westwood_core.h).
    pub bwe_q8: u64,
    pub last_ack_us: u64,
    pub now_us: u64,
    pub acks: u64,
    pub dupacks: u64,
    pub bytes_acked: u64,
    /// Fast recoveries / CWR entries, and RTOs.
    pub losses: u32,
    pub timeouts: u32,
    /// The last loss as the loss rules saw it.
    pub last_loss: Option<LossSnapshot>,
    /// tcpw_abse without its estimator state (storage allocation failed): Reno halving.
    pub no_state: bool,
}

/// Inputs and outputs of the loss rule at the last loss (fast recovery, CWR or RTO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LossSnapshot {
    pub bwe_q8: u64,
    pub rtt_min_us: u32,
    pub mss: u32,
    pub ssthresh: u32,
    pub cwnd_before: u32,
    pub cwnd_after: u32,
    /// An RTO (CA_EVENT_LOSS) rather than fast recovery / CWR.
    pub timeout: bool,
    /// tcpw_tr's threshold reduction factor a, in quarters (4 = 1: every other variant).
    pub factor_quarters: u32,
}

impl LossSnapshot {
    /// max(2, floor(BWE * RTTmin / (8 * mss) / a)) in segments, from these inputs, in exact
    /// integer arithmetic: what kernel/westwood_core.h's rules must give.
    pub fn expected_ssthresh(&self) -> u32 {
        if self.rtt_min_us == 0 {
            return 2;
        }
        let bits_q8 = self.bwe_q8 as u128 * self.rtt_min_us as u128 / 1_000_000;
        let segs =
            bits_q8 * 4 / (((self.mss.max(1) as u128) << 11) * u128::from(self.factor_quarters.max(1)));
        segs.clamp(2, u32::MAX as u128) as u32
    }
}

/// TCPW_INFO_F_NO_STATE (kernel/tcpw_watch.bpf.h).
const INFO_F_NO_STATE: u32 = 1;

/// Decode the iterator's output (records of [`RECORD_SIZE`] bytes).
pub fn parse_records(data: &[u8]) -> Result<Vec<Conn>> {
    if !data.len().is_multiple_of(RECORD_SIZE) {
        return Err(Error::Failed(format!(
            "watch: {} bytes is not a whole number of {RECORD_SIZE}-byte records (program and tool from different \
             versions? run `westwood-linux unload` then `load`)",
            data.len()
        )));
    }
    let mut out = Vec::with_capacity(data.len() / RECORD_SIZE);
    for r in data.chunks_exact(RECORD_SIZE) {
        if u32_at(r, 0) != WATCH_MAGIC {
            return Err(Error::Failed(format!(
                "watch: record magic {:#x}, expected {WATCH_MAGIC:#x} (loaded by another version? run `westwood-linux \
                 unload` then `load`)",
                u32_at(r, 0)
            )));
        }
        let family = u16_at(r, 4);
        let addr = |o: usize| addr_at(r, o, family);
        out.push(Conn {
            state: r[6],
            algo: Algo::from_id(r[7]),
            sport: u16_at(r, 8),
            dport: u16_at(r, 10),
            netns: u32_at(r, 12),
            src: addr(16),
            dst: addr(32),
            cwnd: u32_at(r, 48),
            ssthresh: u32_at(r, 52),
            mss: u32_at(r, 56),
            rtt_min_us: u32_at(r, 60),
            bwe_q8: u64_at(r, 64),
            last_ack_us: u64_at(r, 72),
            now_us: u64_at(r, 80),
            acks: u64_at(r, 88),
            dupacks: u64_at(r, 96),
            bytes_acked: u64_at(r, 104),
            losses: u32_at(r, 112),
            timeouts: u32_at(r, 116),
            last_loss: (u32_at(r, 112) + u32_at(r, 116) > 0).then(|| LossSnapshot {
                bwe_q8: u64_at(r, 120),
                rtt_min_us: u32_at(r, 128),
                mss: u32_at(r, 132),
                ssthresh: u32_at(r, 136),
                cwnd_before: u32_at(r, 140),
                cwnd_after: u32_at(r, 144),
                timeout: u32_at(r, 148) == 1,
                factor_quarters: u32_at(r, 152),
            }),
            no_state: u32_at(r, 156) & INFO_F_NO_STATE != 0,
        });
    }
    Ok(out)
}

pub fn state_name(state: u8) -> &'static str {
    match state {
        1 => "ESTABLISHED",
        2 => "SYN_SENT",
        3 => "SYN_RECV",
        4 => "FIN_WAIT1",
        5 => "FIN_WAIT2",
        6 => "TIME_WAIT",
        7 => "CLOSE",
        8 => "CLOSE_WAIT",
        9 => "LAST_ACK",
        10 => "LISTEN",
        11 => "CLOSING",
        12 => "NEW_SYN_RECV",
        _ => "UNKNOWN",
    }
}

impl Conn {
    pub fn bwe_bps(&self) -> f64 {
        self.bwe_q8 as f64 / 256.0
    }

    pub fn algo_name(&self) -> &'static str {
        self.algo.map(Algo::name).unwrap_or("?")
    }

    /// Milliseconds since the last ACK (the BWE is as of then; the filter's virtual samples
    /// are applied at the next event).
    pub fn idle_ms(&self) -> Option<f64> {
        (self.last_ack_us != 0).then(|| self.now_us.saturating_sub(self.last_ack_us) as f64 / 1000.0)
    }

    pub fn line(&self) -> String {
        let ssthresh =
            if self.ssthresh >= INFINITE_SSTHRESH { "inf".to_string() } else { self.ssthresh.to_string() };
        let mut s = String::new();
        let _ = write!(
            s,
            "{:<22} -> {:<22} {:<9} BWE {:>9.3} Mb/s  RTTmin {:>8.3} ms  cwnd {:>6}  ssthresh {:>6}",
            SocketAddr::new(self.src, self.sport),
            SocketAddr::new(self.dst, self.dport),
            self.algo_name(),
            self.bwe_bps() / 1e6,
            self.rtt_min_us as f64 / 1000.0,
            self.cwnd,
            ssthresh
        );
        if self.state != 1 {
            let _ = write!(s, "  {}", state_name(self.state));
        }
        if self.no_state {
            s.push_str("  (no estimator state: Reno halving)");
        }
        s
    }

    pub fn json(&self, time: f64) -> serde_json::Value {
        serde_json::json!({
            "time": time,
            "netns": self.netns,
            "src": self.src.to_string(),
            "sport": self.sport,
            "dst": self.dst.to_string(),
            "dport": self.dport,
            "algo": self.algo_name(),
            "state": state_name(self.state),
            "bwe_bps": self.bwe_bps().round() as u64,
            "bwe_mbps": self.bwe_bps() / 1e6,
            "rtt_min_ms": self.rtt_min_us as f64 / 1000.0,
            "cwnd": self.cwnd,
            "ssthresh": if self.ssthresh >= INFINITE_SSTHRESH { serde_json::Value::Null } else { self.ssthresh.into() },
            "mss": self.mss,
            "bytes_acked": self.bytes_acked,
            "acks": self.acks,
            "dupacks": self.dupacks,
            "losses": self.losses,
            "timeouts": self.timeouts,
            "idle_ms": self.idle_ms(),
            "no_state": self.no_state,
            "last_loss": self.last_loss.map(|l| serde_json::json!({
                "kind": if l.timeout { "rto" } else { "recovery" },
                "bwe_q8": l.bwe_q8,
                "bwe_bps": (l.bwe_q8 as f64 / 256.0).round() as u64,
                "rtt_min_us": l.rtt_min_us,
                "mss": l.mss,
                "ssthresh": l.ssthresh,
                "cwnd_before": l.cwnd_before,
                "cwnd_after": l.cwnd_after,
                "factor": f64::from(l.factor_quarters) / 4.0,
                "expected_ssthresh": l.expected_ssthresh(),
            })),
        })
    }
}

/// Read a pinned iterator file: one run of the iterator.
fn read_iterator(path: &Path) -> Result<Vec<u8>> {
    let mut f = std::fs::File::open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::PermissionDenied => {
            Error::Prereq(format!("cannot open {}: permission denied — run as root", path.display()))
        }
        _ => Error::failed(format!("opening {}", path.display()), e),
    })?;
    let mut data = Vec::new();
    f.read_to_end(&mut data).map_err(|e| Error::failed(format!("reading {}", path.display()), e))?;
    Ok(data)
}

/// Every network namespace this machine has a handle on: the inode and a path to open it by
/// (/proc/PID/ns/net of a process in it, or its /run/netns bind mount).
pub fn network_namespaces() -> BTreeMap<u64, PathBuf> {
    use std::os::unix::fs::MetadataExt;
    let mut found = BTreeMap::new();
    let mut add = |path: PathBuf| {
        if let Ok(m) = std::fs::metadata(&path) {
            found.entry(m.ino()).or_insert(path);
        }
    };
    if let Ok(dir) = std::fs::read_dir("/run/netns") {
        for e in dir.flatten() {
            add(e.path());
        }
    }
    if let Ok(dir) = std::fs::read_dir("/proc") {
        for e in dir.flatten() {
            if e.file_name().to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
                add(e.path().join("ns/net"));
            }
        }
    }
    found
}

/// Read the TCP iterator from inside the namespace at `ns` (a thread joins it, so the
/// process stays where it is; the mount namespace, and so bpffs, is unchanged).
fn read_tcp_iterator_in(ns: &Path, iter: &Path) -> Result<Vec<u8>> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let f = std::fs::File::open(ns)
                    .map_err(|e| Error::failed(format!("opening {}", ns.display()), e))?;
                if unsafe { libc::setns(f.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                    return Err(Error::failed(
                        format!("joining the network namespace {}", ns.display()),
                        std::io::Error::last_os_error(),
                    ));
                }
                read_iterator(iter)
            })
            .join()
            .unwrap_or_else(|_| Err(Error::Failed("the namespace reader thread panicked".into())))
    })
}

/// Why the sockets cannot be observed, when no iterator is pinned: nothing loaded, or each
/// iterator kind's refusal, probed again now.
fn unobservable() -> Error {
    if loader::pinned_algos().is_empty() {
        return Error::Prereq(format!(
            "nothing is loaded (no pins under {}) — run `westwood-linux load` first",
            loader::PIN_DIR
        ));
    }
    let why: Vec<String> = WatchKind::ALL
        .into_iter()
        .map(|k| match probe::probe_watch(k) {
            Ok(()) => {
                format!("the {} loads now, but is not pinned: run `westwood-linux load` again", k.describe())
            }
            Err(e) => e,
        })
        .collect();
    Error::Prereq(format!(
        "the congestion controls are registered, but their sockets cannot be observed on this kernel:\n  - {}",
        why.join("\n  - ")
    ))
}

/// One pass: every socket that uses a tcpw* congestion control now, in the namespaces for which
/// `want(inode)` is true (the TCP iterator reads only those; the storage iterator reads all and
/// filters).
pub fn snapshot_where(want: impl Fn(u64) -> bool) -> Result<Vec<Conn>> {
    let Some(kind) = loader::pinned_watch() else {
        return Err(unobservable());
    };
    let iter = loader::watch_pin_path(kind);
    let conns = match kind {
        WatchKind::Storage => parse_records(&read_iterator(&iter)?)?,
        WatchKind::Tcp => {
            let mut all = Vec::new();
            for (inode, path) in network_namespaces() {
                if !want(inode) {
                    continue;
                }
                match read_tcp_iterator_in(&path, &iter) {
                    Ok(data) => all.extend(parse_records(&data)?),
                    // A process (and so its namespace) can go away between listing and reading.
                    Err(_) if !path.exists() => {}
                    Err(e) => return Err(e),
                }
            }
            all
        }
    };
    Ok(conns.into_iter().filter(|c| want(u64::from(c.netns))).collect())
}

/// One pass over every namespace.
pub fn snapshot() -> Result<Vec<Conn>> {
    snapshot_where(|_| true)
}

#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub interval: Duration,
    pub json: bool,
    /// Stop after this many intervals (None: until Ctrl-C).
    pub count: Option<u64>,
    /// Also list sockets past ESTABLISHED/CLOSE_WAIT (closing, not yet released).
    pub all_states: bool,
}

fn unix_time() -> f64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// Print one line per connection per interval.
pub fn run(opts: &WatchOptions, out: &mut dyn std::io::Write) -> Result<()> {
    let mut done = 0u64;
    let mut said_empty = false;
    loop {
        let conns = snapshot()?;
        let time = unix_time();
        let mut shown = 0;
        for c in conns.iter().filter(|c| opts.all_states || c.state == 1 || c.state == 8) {
            let line = if opts.json { c.json(time).to_string() } else { c.line() };
            writeln!(out, "{line}").map_err(|e| Error::failed("writing", e))?;
            shown += 1;
        }
        if shown == 0 && !opts.json && !said_empty {
            eprintln!("(no connection uses a tcpw* congestion control right now)");
            said_empty = true;
        } else if shown > 0 {
            said_empty = false;
        }
        if !opts.json && shown > 1 && opts.count != Some(1) {
            writeln!(out).ok();
        }
        out.flush().ok();
        done += 1;
        if opts.count.is_some_and(|n| done >= n) {
            return Ok(());
        }
        sig::sleep(opts.interval)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(family: u16, src: &[u8], dst: &[u8]) -> Vec<u8> {
        let mut r = vec![0u8; RECORD_SIZE];
        r[0..4].copy_from_slice(&WATCH_MAGIC.to_ne_bytes());
        r[4..6].copy_from_slice(&family.to_ne_bytes());
        r[6] = 1;
        r[7] = 1;
        r[8..10].copy_from_slice(&41000u16.to_ne_bytes());
        r[10..12].copy_from_slice(&5201u16.to_ne_bytes());
        r[12..16].copy_from_slice(&4026531840u32.to_ne_bytes());
        r[16..16 + src.len()].copy_from_slice(src);
        r[32..32 + dst.len()].copy_from_slice(dst);
        r[48..52].copy_from_slice(&40u32.to_ne_bytes());
        r[52..56].copy_from_slice(&INFINITE_SSTHRESH.to_ne_bytes());
        r[56..60].copy_from_slice(&1448u32.to_ne_bytes());
        r[60..64].copy_from_slice(&25u32.to_ne_bytes());
        r[64..72].copy_from_slice(&((10_000_000_000u64) << 8).to_ne_bytes());
        r[72..80].copy_from_slice(&1_000u64.to_ne_bytes());
        r[80..88].copy_from_slice(&3_500u64.to_ne_bytes());
        r[112..116].copy_from_slice(&3u32.to_ne_bytes());
        r[120..128].copy_from_slice(&((2_000_000u64) << 8).to_ne_bytes());
        r[128..132].copy_from_slice(&100_000u32.to_ne_bytes());
        r[132..136].copy_from_slice(&1000u32.to_ne_bytes());
        r[136..140].copy_from_slice(&25u32.to_ne_bytes());
        r[140..144].copy_from_slice(&40u32.to_ne_bytes());
        r[144..148].copy_from_slice(&25u32.to_ne_bytes());
        r[152..156].copy_from_slice(&4u32.to_ne_bytes());
        r
    }

    #[test]
    fn decodes_ipv4_and_ipv6_records() {
        let mut data = record(2, &[10, 199, 0, 1], &[10, 199, 0, 2]);
        let mut v6 = [0u8; 16];
        v6[15] = 1;
        data.extend(record(10, &v6, &v6));
        let conns = parse_records(&data).unwrap();
        assert_eq!(conns.len(), 2);
        let c = &conns[0];
        assert_eq!(c.src, "10.199.0.1".parse::<IpAddr>().unwrap());
        assert_eq!((c.sport, c.dport, c.cwnd, c.mss, c.losses), (41000, 5201, 40, 1448, 3));
        assert_eq!(c.algo, Some(Algo::from_name("tcpw").unwrap()));
        assert!((c.bwe_bps() - 1e10).abs() < 1.0);
        assert!((c.idle_ms().unwrap() - 2.5).abs() < 1e-9);
        assert!(c.line().contains("10000.000 Mb/s"), "{}", c.line());
        assert!(c.line().contains("ssthresh    inf"), "{}", c.line());
        let j = c.json(1.0);
        assert_eq!(j["ssthresh"], serde_json::Value::Null);
        assert_eq!(j["dport"], 5201);
        // The seed's example: 2 Mb/s * 100 ms / 8000 bits = 25 segments.
        let loss = c.last_loss.unwrap();
        assert_eq!((loss.ssthresh, loss.expected_ssthresh(), loss.cwnd_after), (25, 25, 25));
        // tcpw_tr's factor divides it: a = 1.25 gives 20.
        assert_eq!(LossSnapshot { factor_quarters: 5, ..loss }.expected_ssthresh(), 20);
        assert!(!c.no_state);
        assert_eq!(j["last_loss"]["ssthresh"], 25);
        assert_eq!(conns[1].src, "::1".parse::<IpAddr>().unwrap());
        assert!(conns[1].line().starts_with("[::1]:41000"));
    }

    #[test]
    fn v4_mapped_v6_prints_as_v4() {
        let mut a = [0u8; 16];
        a[10] = 0xff;
        a[11] = 0xff;
        a[12..].copy_from_slice(&[127, 0, 0, 1]);
        let conns = parse_records(&record(10, &a, &a)).unwrap();
        assert_eq!(conns[0].src, "127.0.0.1".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn rejects_partial_or_foreign_records() {
        assert!(parse_records(&[0u8; 7]).is_err());
        assert!(parse_records(&[0u8; RECORD_SIZE]).is_err());
        assert!(parse_records(&[]).unwrap().is_empty());
    }
}
