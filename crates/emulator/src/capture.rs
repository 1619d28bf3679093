//! Packet captures at the testbed's endpoints (`westwood testbed --pcap`): every frame an
//! endpoint namespace sends and receives, seen on the emulator's AF_PACKET port facing it, in
//! files named as the simulator names its endpoint captures (`FLOW.sender.pcapng`,
//! `FLOW.receiver.pcapng`, through the same writer: `westwood_pcap`).
//!
//! The emulator thread only copies the first `snaplen` bytes of each frame into a bounded
//! channel (it never blocks on the disk: when the channel is full the record is dropped and
//! counted, like a capture's "dropped by kernel"); a writer thread turns them into pcapng
//! records. Frames a sender wrote with a checksum still to be computed (checksum offload) get
//! it completed when the whole frame is kept, so readers that verify checksums see good ones.
//! Timestamps are the wall clock (CLOCK_REALTIME) of the emulator's CLOCK_MONOTONIC stamps:
//! outbound frames when the emulator read them, inbound ones when it sent them.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TrySendError};
use std::sync::Arc;

use serde_json::{json, Value};
use westwood_pcap::frame::checksum;
use westwood_pcap::{CaptureFile, Direction, FlowMeta, Format, Interface, InterfaceStats, LINKTYPE_ETHERNET};

use crate::afpacket::VNET_HDR_LEN;

/// Records waiting for the writer before new ones are dropped.
const QUEUE: usize = 1 << 16;

/// One frame for a port's file.
struct Record {
    port: u16,
    ts_mono_ns: u64,
    data: Vec<u8>,
    original_len: u32,
    direction: Direction,
    /// The frame was whole and its checksum still to compute: (start, offset) in `data`.
    checksum: Option<(usize, usize)>,
}

/// The emulator thread's end: cheap to clone, never blocks.
#[derive(Clone)]
pub struct Tap {
    tx: SyncSender<Record>,
    snaplen: usize,
    ports: Arc<Vec<bool>>,
    dropped: Arc<AtomicU64>,
}

impl std::fmt::Debug for Tap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "capture::Tap(snaplen {})", self.snaplen)
    }
}

impl Tap {
    /// A frame (virtio_net_hdr first) read from `port` (`Outbound`: the endpoint sent it) or
    /// sent to it (`Inbound`), at CLOCK_MONOTONIC `t`.
    pub fn frame(&self, port: u16, t: u64, frame: &[u8], direction: Direction) {
        if !self.ports.get(port as usize).copied().unwrap_or(false) || frame.len() < VNET_HDR_LEN {
            return;
        }
        let vnet = &frame[..VNET_HDR_LEN];
        let eth = &frame[VNET_HDR_LEN..];
        let keep = eth.len().min(self.snaplen);
        // VIRTIO_NET_HDR_F_NEEDS_CSUM: the checksum at csum_start + csum_offset is partial.
        let needs = vnet[0] & 1 != 0;
        let start = usize::from(u16::from_le_bytes([vnet[6], vnet[7]]));
        let offset = usize::from(u16::from_le_bytes([vnet[8], vnet[9]]));
        let checksum =
            (needs && keep == eth.len() && start + offset + 2 <= eth.len()).then_some((start, offset));
        let record = Record {
            port,
            ts_mono_ns: t,
            data: eth[..keep].to_vec(),
            original_len: eth.len() as u32,
            direction,
            checksum,
        };
        if let Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) = self.tx.try_send(record) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A capture point: an endpoint namespace (the emulator's port facing it).
pub struct Point {
    pub port: u16,
    /// `FLOW.sender` / `FLOW.receiver`: the file's name and the interface's.
    pub name: String,
    pub description: String,
    pub ipv4: [u8; 4],
    /// The section comment (what the capture is, the flow line).
    pub comment: String,
}

/// What the writer thread returns: each file written and its packets.
type Written = io::Result<Vec<(PathBuf, u64)>>;

/// The writer thread and its files.
pub struct Captures {
    tap: Option<Tap>,
    handle: Option<std::thread::JoinHandle<Written>>,
    commit: Arc<std::sync::atomic::AtomicBool>,
    dropped: Arc<AtomicU64>,
    paths: Vec<PathBuf>,
    start_ns: u64,
}

fn realtime_minus_monotonic() -> i128 {
    let now = |clock| {
        let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
        unsafe { libc::clock_gettime(clock, &mut ts) };
        i128::from(ts.tv_sec) * 1_000_000_000 + i128::from(ts.tv_nsec)
    };
    now(libc::CLOCK_REALTIME) - now(libc::CLOCK_MONOTONIC)
}

impl Captures {
    /// Create `DIR/NAME.pcapng` for each point (the files appear when [`finish`] succeeds) and
    /// start the writer.
    ///
    /// [`finish`]: Captures::finish
    pub fn start(dir: &Path, points: Vec<Point>, ports: usize, snaplen: u32) -> io::Result<Captures> {
        std::fs::create_dir_all(dir)
            .map_err(|e| io::Error::new(e.kind(), format!("creating {}: {e}", dir.display())))?;
        let offset = realtime_minus_monotonic();
        let mut files: Vec<Option<CaptureFile>> = (0..ports).map(|_| None).collect();
        let mut paths = Vec::new();
        let mut enabled = vec![false; ports];
        for p in &points {
            let path = dir.join(format!("{}.{}", p.name, Format::Pcapng.extension()));
            let iface = Interface {
                name: p.name.clone(),
                description: p.description.clone(),
                ipv4: Some(p.ipv4),
                link_type: LINKTYPE_ETHERNET,
                snaplen,
            };
            let file = CaptureFile::create(&path, Format::Pcapng, &p.comment, &[iface])
                .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
            files[p.port as usize] = Some(file);
            enabled[p.port as usize] = true;
            paths.push(path);
        }
        let (tx, rx) = sync_channel::<Record>(QUEUE);
        let commit = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let dropped = Arc::new(AtomicU64::new(0));
        let start_ns = (crate::sys::monotonic_ns() as i128 + offset) as u64;
        let (c, d) = (commit.clone(), dropped.clone());
        let handle = std::thread::Builder::new()
            .name("westwood-pcap".into())
            .spawn(move || write_loop(rx, files, offset, start_ns, &c, &d))?;
        Ok(Captures {
            tap: Some(Tap {
                tx,
                snaplen: snaplen as usize,
                ports: Arc::new(enabled),
                dropped: dropped.clone(),
            }),
            handle: Some(handle),
            commit,
            dropped,
            paths,
            start_ns,
        })
    }

    /// The emulator thread's handle (hand it over before starting the emulator).
    pub fn tap(&self) -> Tap {
        self.tap.clone().expect("running")
    }

    /// Put the files in place, once the emulator thread (and its tap) has stopped; a summary
    /// for `summary.json`.
    pub fn finish(mut self) -> io::Result<Value> {
        self.commit.store(true, Ordering::SeqCst);
        self.tap = None;
        let written = self
            .handle
            .take()
            .expect("running")
            .join()
            .map_err(|_| io::Error::other("the capture writer panicked"))??;
        let dropped = self.dropped.load(Ordering::Relaxed);
        if dropped > 0 {
            eprintln!("warning: the captures lost {dropped} frames (the writer fell behind): see summary.json testbed.pcap");
        }
        let _ = self.start_ns;
        Ok(json!({
            "files": written.iter().map(|(p, n)| json!({ "file": p.file_name().map(|f| f.to_string_lossy().into_owned()), "packets": n })).collect::<Vec<_>>(),
            "dropped": dropped,
        }))
    }

    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }
}

impl Drop for Captures {
    fn drop(&mut self) {
        // Not finished (an error, Ctrl-C): the writer drops its files, which removes them.
        self.tap = None;
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn write_loop(
    rx: Receiver<Record>,
    mut files: Vec<Option<CaptureFile>>,
    offset: i128,
    start_ns: u64,
    commit: &std::sync::atomic::AtomicBool,
    dropped: &AtomicU64,
) -> Written {
    let mut error: Option<io::Error> = None;
    // Until every Tap is gone (the emulator stopped and `finish` or `drop` let go of its own).
    for mut r in rx {
        if error.is_some() {
            continue;
        }
        if let Some((start, off)) = r.checksum {
            // The partial sum (pseudo-header) is in the field: fold the rest over it.
            let at = start + off;
            let c = checksum(&r.data[start..]);
            r.data[at..at + 2].copy_from_slice(&c.to_be_bytes());
        }
        let Some(file) = files.get_mut(r.port as usize).and_then(Option::as_mut) else { continue };
        let ts = (i128::from(r.ts_mono_ns) + offset).max(0) as u64;
        if let Err(e) = file.writer().packet(0, ts, &r.data, r.original_len, Some(r.direction)) {
            error = Some(io::Error::new(e.kind(), format!("{}: {e}", file.path().display())));
        }
    }
    if let Some(e) = error {
        return Err(e);
    }
    if !commit.load(Ordering::SeqCst) {
        return Ok(Vec::new()); // dropped: the files go with `files`
    }
    let end_ns = (i128::from(crate::sys::monotonic_ns()) + offset).max(0) as u64;
    let lost = dropped.load(Ordering::Relaxed);
    let mut written = Vec::new();
    for file in files.into_iter().flatten() {
        let path = file.path().to_path_buf();
        let mut file = file;
        let packets = file.writer().packets(0);
        let stats = InterfaceStats {
            start_ns,
            end_ns,
            dropped: None,
            capture_dropped: Some(lost),
            comment: (lost > 0)
                .then(|| format!("{lost} frames of the run's captures were lost (the writer fell behind)")),
        };
        file.commit(&[stats]).map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        written.push((path, packets));
    }
    Ok(written)
}

/// The section comment of a testbed capture.
pub fn comment(scenario: &str, label: &str, what: &str, meta: &FlowMeta) -> String {
    format!(
        "westwood testbed capture: scenario {scenario} ({label}), {what}; real kernel TCP through the link \
         emulator; timestamps are the wall clock, as the emulator's port facing the namespace saw each frame.\n{}\n",
        meta.line()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_reach_their_files_with_checksums_completed() {
        let dir = std::env::temp_dir().join(format!("westwood-emu-capture-{}", std::process::id()));
        let points = vec![Point {
            port: 1,
            name: "f.sender".into(),
            description: "test".into(),
            ipv4: [10, 0, 0, 1],
            comment: "c".into(),
        }];
        let captures = Captures::start(&dir, points, 2, 128).unwrap();
        let tap = captures.tap();
        // A TCP frame with a partial checksum (the pseudo-header's sum) and NEEDS_CSUM.
        let a = westwood_pcap::frame::Addresses {
            src_mac: [2; 6],
            dst_mac: [4; 6],
            src_ip: [10, 0, 0, 1],
            dst_ip: [10, 0, 0, 2],
        };
        let h = westwood_pcap::frame::TcpHeader {
            src_port: 1,
            dst_port: 2,
            seq: 3,
            ack: 4,
            flags: 0x10,
            window: 5,
            options: &[],
        };
        let mut eth = Vec::new();
        westwood_pcap::frame::tcp_frame(&mut eth, &a, 0, &h, 10, 1000).unwrap();
        let good = eth.clone();
        // Replace the checksum by the folded (not complemented) pseudo-header sum, as the kernel does.
        let mut pseudo = Vec::new();
        pseudo.extend_from_slice(&a.src_ip);
        pseudo.extend_from_slice(&a.dst_ip);
        pseudo.extend_from_slice(&[0, 6, 0, 30]);
        let partial = !checksum(&pseudo);
        eth[34 + 16..34 + 18].copy_from_slice(&partial.to_be_bytes());
        let mut frame = vec![1, 0, 0, 0, 0, 0, 34, 0, 16, 0];
        frame.extend_from_slice(&eth);
        tap.frame(1, 5, &frame, Direction::Outbound);
        tap.frame(0, 6, &frame, Direction::Inbound); // a port without a capture: ignored
        drop(tap);
        let summary = captures.finish().unwrap();
        assert_eq!(summary["files"][0]["packets"], 1);
        let bytes = std::fs::read(dir.join("f.sender.pcapng")).unwrap();
        let mut r = westwood_pcap::CaptureReader::new(&bytes[..], "x").unwrap();
        let p = r.next_packet().unwrap().unwrap();
        assert_eq!(p.data, &good[..]);
        assert_eq!(p.direction, Some(Direction::Outbound));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unfinished_capture_leaves_nothing() {
        let dir = std::env::temp_dir().join(format!("westwood-emu-capture-drop-{}", std::process::id()));
        let points = vec![Point {
            port: 0,
            name: "f.receiver".into(),
            description: String::new(),
            ipv4: [10, 0, 0, 2],
            comment: String::new(),
        }];
        let captures = Captures::start(&dir, points, 1, 128).unwrap();
        captures.tap().frame(0, 1, &[0u8; 80], Direction::Inbound);
        drop(captures);
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
