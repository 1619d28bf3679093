//! Reading a capture, streamed: classic pcap (microsecond or nanosecond, either byte order) and
//! pcapng (any number of sections and interfaces, either byte order).
//!
//! Memory stays bounded whatever the file: one record is held at a time, in a buffer that grows
//! to the largest record (refused above [`MAX_RECORD`]). A file that ends inside a record (a
//! capture cut short, e.g. tcpdump killed) yields every complete record and a warning.

use std::fmt;
use std::io::{self, Read};
use std::net::IpAddr;

use crate::write::Direction;

/// The largest record (pcapng block, pcap packet) accepted: anything above is corruption.
pub const MAX_RECORD: usize = 64 << 20;

/// The most interface descriptions, address names and comments one file may hold in all, and
/// their most bytes: what the reader keeps of them grows with the file, which otherwise it never
/// does (tcpdump and the simulator write a handful; a file of a million is not a capture).
pub const MAX_DESCRIPTIONS: usize = 100_000;
pub const MAX_DESCRIPTION_BYTES: usize = 16 << 20;

/// A problem with a capture file: where, and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadError {
    pub file: String,
    /// Byte offset of the record (or header) at fault.
    pub offset: u64,
    pub message: String,
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: byte {}: {}", self.file, self.offset, self.message)
    }
}

impl std::error::Error for ReadError {}

/// A capture point as the file describes it, and what its statistics said at the end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InterfaceInfo {
    pub name: String,
    pub description: String,
    pub link_type: u16,
    pub snaplen: u32,
    /// `if_IPv4addr`: the host address of a capture point on an endpoint.
    pub ipv4: Option<[u8; 4]>,
    /// Timestamp units per second, and the offset added (seconds).
    units_per_second: u64,
    offset_seconds: i64,
    /// From its Interface Statistics Block, if any: capture start and end (ns), drops.
    pub start_ns: Option<i64>,
    pub end_ns: Option<i64>,
    pub dropped: Option<u64>,
    pub capture_dropped: Option<u64>,
    pub received: Option<u64>,
}

/// One packet record.
#[derive(Debug, Clone, Copy)]
pub struct Packet<'a> {
    /// ns since the epoch.
    pub ts_ns: i64,
    /// Index into [`CaptureReader::interfaces`] (over all sections).
    pub interface: u32,
    pub link_type: u16,
    pub data: &'a [u8],
    pub original_len: u32,
    pub direction: Option<Direction>,
    /// The capture point's own address (`if_IPv4addr`), if the file gives one.
    pub host_ipv4: Option<[u8; 4]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Pcap { swapped: bool, nanos: bool },
    Pcapng { swapped: bool },
}

/// A capture read record by record.
pub struct CaptureReader<R: Read> {
    r: R,
    file: String,
    kind: Kind,
    offset: u64,
    buf: Vec<u8>,
    interfaces: Vec<InterfaceInfo>,
    /// Index of the current section's first interface.
    section_base: usize,
    comments: Vec<String>,
    names: Vec<(IpAddr, String)>,
    warnings: Vec<String>,
    last_ts: i64,
    done: bool,
    /// Interface descriptions, names and comments kept so far, and their bytes.
    descriptions: (usize, usize),
}

/// Fill `buf` from `r`; `Ok(n)` with n < buf.len() only at the end of the input.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

fn u16_at(b: &[u8], at: usize, swapped: bool) -> u16 {
    let v = u16::from_ne_bytes([b[at], b[at + 1]]);
    if swapped {
        v.swap_bytes()
    } else {
        v
    }
}

fn u32_at(b: &[u8], at: usize, swapped: bool) -> u32 {
    let v = u32::from_ne_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]);
    if swapped {
        v.swap_bytes()
    } else {
        v
    }
}

fn u64_at(b: &[u8], at: usize, swapped: bool) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    let v = u64::from_ne_bytes(a);
    if swapped {
        v.swap_bytes()
    } else {
        v
    }
}

/// pcapng options in `b`: (code, value) until opt_endofopt or the end.
fn options(b: &[u8], swapped: bool) -> Vec<(u16, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= b.len() {
        let code = u16_at(b, at, swapped);
        let len = u16_at(b, at + 2, swapped) as usize;
        if code == 0 || at + 4 + len > b.len() {
            break;
        }
        out.push((code, &b[at + 4..at + 4 + len]));
        at += 4 + len + (4 - len % 4) % 4;
    }
    out
}

/// A pcapng 64-bit timestamp (high word first) stored in an option.
fn option_timestamp(v: &[u8], swapped: bool) -> Option<u64> {
    (v.len() == 8).then(|| (u64::from(u32_at(v, 0, swapped)) << 32) | u64::from(u32_at(v, 4, swapped)))
}

fn text(v: &[u8]) -> String {
    String::from_utf8_lossy(v).trim_end_matches('\0').to_string()
}

impl<R: Read> CaptureReader<R> {
    /// Open a capture from `r` (`file` names it in errors).
    pub fn new(mut r: R, file: &str) -> Result<Self, ReadError> {
        let err = |offset, message: String| ReadError { file: file.to_string(), offset, message };
        let mut magic = [0u8; 4];
        let got = read_full(&mut r, &mut magic).map_err(|e| err(0, e.to_string()))?;
        if got < 4 {
            return Err(err(0, format!("{got} bytes: too short to be a capture (pcap or pcapng)")));
        }
        let m = u32::from_le_bytes(magic);
        let kind = match m {
            0xA1B2_C3D4 => Kind::Pcap { swapped: false, nanos: false },
            0xD4C3_B2A1 => Kind::Pcap { swapped: true, nanos: false },
            0xA1B2_3C4D => Kind::Pcap { swapped: false, nanos: true },
            0x4D3C_B2A1 => Kind::Pcap { swapped: true, nanos: true },
            0x0A0D_0D0A => Kind::Pcapng { swapped: false },
            _ if magic[..2] == [0x1f, 0x8b] => {
                return Err(err(0, "a gzip-compressed file: decompress it first (gunzip)".into()))
            }
            _ => {
                return Err(err(
                    0,
                    format!(
                        "not a pcap or pcapng capture (it starts with {:02x} {:02x} {:02x} {:02x})",
                        magic[0], magic[1], magic[2], magic[3]
                    ),
                ))
            }
        };
        // Classic pcap's header was written little- or big-endian; the magic read as
        // little-endian tells which, so "swapped" is relative to little-endian here and the
        // values are converted with from_le/from_be below.
        let mut reader = CaptureReader {
            r,
            file: file.to_string(),
            kind,
            offset: 4,
            buf: Vec::new(),
            interfaces: Vec::new(),
            section_base: 0,
            comments: Vec::new(),
            names: Vec::new(),
            warnings: Vec::new(),
            last_ts: 0,
            done: false,
            descriptions: (0, 0),
        };
        match kind {
            Kind::Pcap { swapped, nanos } => {
                let mut h = [0u8; 20];
                let got = read_full(&mut reader.r, &mut h).map_err(|e| err(4, e.to_string()))?;
                if got < 20 {
                    return Err(err(0, "the pcap file header is cut short".into()));
                }
                let le = |at: usize| {
                    let v = u32::from_le_bytes([h[at], h[at + 1], h[at + 2], h[at + 3]]);
                    if swapped {
                        v.swap_bytes()
                    } else {
                        v
                    }
                };
                let snaplen = le(12);
                let link_type = (le(16) & 0xffff) as u16;
                reader.interfaces.push(InterfaceInfo {
                    link_type,
                    snaplen,
                    units_per_second: if nanos { 1_000_000_000 } else { 1_000_000 },
                    ..Default::default()
                });
                reader.offset = 24;
                // The pcap reader reads records with the native conversions below; normalise
                // `swapped` to mean "differs from this machine".
                let native_le = cfg!(target_endian = "little");
                reader.kind = Kind::Pcap { swapped: swapped == native_le, nanos };
            }
            Kind::Pcapng { .. } => {
                // The Section Header Block: its byte-order magic decides.
                let mut h = [0u8; 8];
                let got = read_full(&mut reader.r, &mut h).map_err(|e| err(4, e.to_string()))?;
                if got < 8 {
                    return Err(err(0, "the pcapng section header is cut short".into()));
                }
                reader.offset += 8;
                let swapped = match u32::from_ne_bytes([h[4], h[5], h[6], h[7]]) {
                    0x1A2B_3C4D => false,
                    0x4D3C_2B1A => true,
                    _ => return Err(err(8, "bad byte-order magic in the pcapng section header".into())),
                };
                reader.kind = Kind::Pcapng { swapped };
                let total = u32_at(&h, 0, swapped) as usize;
                reader.section_header(0, total)?;
            }
        }
        Ok(reader)
    }

    fn error(&self, offset: u64, message: impl Into<String>) -> ReadError {
        ReadError { file: self.file.clone(), offset, message: message.into() }
    }

    /// Bytes read so far: where the next record starts.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Every interface seen so far (all sections), in file order.
    pub fn interfaces(&self) -> &[InterfaceInfo] {
        &self.interfaces
    }

    /// The sections' comments (pcapng `shb_comment`).
    pub fn comments(&self) -> &[String] {
        &self.comments
    }

    /// Address-to-name records (pcapng Name Resolution Blocks).
    pub fn names(&self) -> &[(IpAddr, String)] {
        &self.names
    }

    /// What was odd about the file but did not stop the reading (e.g. a last record cut short).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Read `n` bytes at the current offset into `buf`; `Ok(false)` if the file ended first
    /// (a warning is recorded, and reading stops).
    fn fill(&mut self, n: usize, record_start: u64) -> Result<bool, ReadError> {
        if n > MAX_RECORD {
            return Err(self.error(
                record_start,
                format!(
                    "a record of {n} bytes (more than {MAX_RECORD}): the file is corrupt or not a capture"
                ),
            ));
        }
        if self.buf.len() < n {
            self.buf.resize(n, 0);
        }
        let got =
            read_full(&mut self.r, &mut self.buf[..n]).map_err(|e| self.error(self.offset, e.to_string()))?;
        self.offset += got as u64;
        if got < n {
            self.warnings.push(format!(
                "the file ends inside the record at byte {record_start} (a capture cut short): that record is ignored"
            ));
            self.done = true;
            return Ok(false);
        }
        Ok(true)
    }

    /// One more interface description, name or comment of `bytes`, kept: refused beyond
    /// [`MAX_DESCRIPTIONS`] or [`MAX_DESCRIPTION_BYTES`].
    fn keep_description(&mut self, start: u64, bytes: usize) -> Result<(), ReadError> {
        self.descriptions.0 += 1;
        self.descriptions.1 += bytes;
        if self.descriptions.0 > MAX_DESCRIPTIONS || self.descriptions.1 > MAX_DESCRIPTION_BYTES {
            return Err(self.error(
                start,
                format!(
                    "more than {MAX_DESCRIPTIONS} interface descriptions, names and comments (or more \
                     than {} MB of them): the file is corrupt or not a capture",
                    MAX_DESCRIPTION_BYTES >> 20
                ),
            ));
        }
        Ok(())
    }

    /// A Section Header Block whose first 12 bytes (type, length, byte-order magic) are read:
    /// reads the rest.
    fn section_header(&mut self, start: u64, total: usize) -> Result<(), ReadError> {
        let Kind::Pcapng { swapped } = self.kind else { unreachable!() };
        if total < 28 || !total.is_multiple_of(4) {
            return Err(self.error(start, format!("a section header of {total} bytes")));
        }
        if !self.fill(total - 12, start)? {
            return Ok(());
        }
        let body = &self.buf[..total - 12];
        // body: version (4), section length (8), options, then the trailing length (4).
        let comments: Vec<String> = options(&body[12..body.len() - 4], swapped)
            .into_iter()
            .filter(|(code, _)| *code == 1)
            .map(|(_, v)| text(v))
            .collect();
        for comment in comments {
            self.keep_description(start, comment.len())?;
            self.comments.push(comment);
        }
        self.section_base = self.interfaces.len();
        Ok(())
    }

    /// The next packet, `None` at the end.
    pub fn next_packet(&mut self) -> Result<Option<Packet<'_>>, ReadError> {
        loop {
            if self.done {
                return Ok(None);
            }
            match self.kind {
                Kind::Pcap { swapped, nanos } => return self.pcap_record(swapped, nanos),
                Kind::Pcapng { .. } => {
                    if let Some((start, len, kind)) = self.pcapng_block()? {
                        if let Some(p) = self.pcapng_packet(start, len, kind)? {
                            // Re-borrow: the packet's data lives in self.buf.
                            let (ts_ns, interface, link_type, original_len, direction, data_len) = p;
                            let host_ipv4 = self.interfaces[interface as usize].ipv4;
                            return Ok(Some(Packet {
                                host_ipv4,
                                ts_ns,
                                interface,
                                link_type,
                                data: &self.buf[data_len.0..data_len.0 + data_len.1],
                                original_len,
                                direction,
                            }));
                        }
                    }
                }
            }
        }
    }

    fn pcap_record(&mut self, swapped: bool, nanos: bool) -> Result<Option<Packet<'_>>, ReadError> {
        let start = self.offset;
        let mut h = [0u8; 16];
        let got = read_full(&mut self.r, &mut h).map_err(|e| self.error(start, e.to_string()))?;
        self.offset += got as u64;
        if got == 0 {
            self.done = true;
            return Ok(None);
        }
        if got < 16 {
            self.warnings.push(format!(
                "the file ends inside the record header at byte {start} (a capture cut short): that record is ignored"
            ));
            self.done = true;
            return Ok(None);
        }
        let sec = u32_at(&h, 0, swapped);
        let frac = u32_at(&h, 4, swapped);
        let caplen = u32_at(&h, 8, swapped) as usize;
        let original_len = u32_at(&h, 12, swapped);
        if !self.fill(caplen, start)? {
            return Ok(None);
        }
        let ts_ns = i64::from(sec) * 1_000_000_000 + i64::from(frac) * if nanos { 1 } else { 1000 };
        let link_type = self.interfaces[0].link_type;
        Ok(Some(Packet {
            ts_ns,
            interface: 0,
            link_type,
            data: &self.buf[..caplen],
            original_len,
            direction: None,
            host_ipv4: None,
        }))
    }

    /// Read the next block's header and body into `buf`: (offset, body length, type); `None` at
    /// the end. Section headers, interfaces, names and statistics are handled here.
    fn pcapng_block(&mut self) -> Result<Option<(u64, usize, u32)>, ReadError> {
        let Kind::Pcapng { swapped } = self.kind else { unreachable!() };
        let start = self.offset;
        let mut h = [0u8; 8];
        let got = read_full(&mut self.r, &mut h).map_err(|e| self.error(start, e.to_string()))?;
        self.offset += got as u64;
        if got == 0 {
            self.done = true;
            return Ok(None);
        }
        if got < 8 {
            self.warnings.push(format!(
                "the file ends inside the block header at byte {start} (a capture cut short): the rest is ignored"
            ));
            self.done = true;
            return Ok(None);
        }
        let kind = u32::from_ne_bytes([h[0], h[1], h[2], h[3]]);
        if kind == 0x0A0D_0D0A {
            // A new section: its own byte order.
            let mut m = [0u8; 4];
            let got = read_full(&mut self.r, &mut m).map_err(|e| self.error(start, e.to_string()))?;
            self.offset += got as u64;
            if got < 4 {
                self.done = true;
                return Ok(None);
            }
            let sw = match u32::from_ne_bytes(m) {
                0x1A2B_3C4D => false,
                0x4D3C_2B1A => true,
                _ => return Err(self.error(start, "bad byte-order magic in a pcapng section header")),
            };
            self.kind = Kind::Pcapng { swapped: sw };
            let total = u32_at(&h, 4, sw) as usize;
            self.section_header(start, total)?;
            return Ok(Some((start, 0, 0x0A0D_0D0A)));
        }
        let kind = if swapped { kind.swap_bytes() } else { kind };
        let total = u32_at(&h, 4, swapped) as usize;
        if total < 12 || !total.is_multiple_of(4) {
            return Err(self.error(start, format!("a block of {total} bytes (at least 12, a multiple of 4)")));
        }
        if !self.fill(total - 8, start)? {
            return Ok(None);
        }
        let body_len = total - 12;
        let b = &self.buf[..body_len];
        match kind {
            1 => {
                if body_len < 8 {
                    return Err(self.error(start, "an interface description block cut short"));
                }
                let mut i = InterfaceInfo {
                    link_type: u16_at(b, 0, swapped),
                    snaplen: u32_at(b, 4, swapped),
                    units_per_second: 1_000_000,
                    ..Default::default()
                };
                for (code, v) in options(&b[8..], swapped) {
                    match code {
                        2 => i.name = text(v),
                        3 => i.description = text(v),
                        4 if v.len() == 8 => i.ipv4 = Some([v[0], v[1], v[2], v[3]]),
                        9 if v.len() == 1 => {
                            let r = u32::from(v[0] & 0x7f);
                            i.units_per_second = if v[0] & 0x80 != 0 {
                                1u64.checked_shl(r).unwrap_or(0)
                            } else {
                                10u64.checked_pow(r).unwrap_or(0)
                            };
                            if i.units_per_second == 0 {
                                return Err(
                                    self.error(start, format!("if_tsresol {:#x} is out of range", v[0]))
                                );
                            }
                        }
                        14 if v.len() == 8 => i.offset_seconds = u64_at(v, 0, swapped) as i64,
                        _ => {}
                    }
                }
                self.keep_description(start, body_len)?;
                self.interfaces.push(i);
            }
            4 => {
                let mut found = Vec::new();
                let mut at = 0;
                while at + 4 <= b.len() {
                    let t = u16_at(b, at, swapped);
                    let len = u16_at(b, at + 2, swapped) as usize;
                    if t == 0 || at + 4 + len > b.len() {
                        break;
                    }
                    let v = &b[at + 4..at + 4 + len];
                    let (addr, names) = match t {
                        1 if len >= 4 => (Some(IpAddr::from([v[0], v[1], v[2], v[3]])), &v[4..]),
                        2 if len >= 16 => {
                            let mut a = [0u8; 16];
                            a.copy_from_slice(&v[..16]);
                            (Some(IpAddr::from(a)), &v[16..])
                        }
                        _ => (None, &v[..0]),
                    };
                    if let Some(addr) = addr {
                        for name in names.split(|&c| c == 0).filter(|n| !n.is_empty()) {
                            found.push((addr, String::from_utf8_lossy(name).into_owned()));
                        }
                    }
                    at += 4 + len + (4 - len % 4) % 4;
                }
                for (addr, name) in found {
                    self.keep_description(start, name.len())?;
                    self.names.push((addr, name));
                }
            }
            5 if body_len >= 12 => {
                let id = self.section_base + u32_at(b, 0, swapped) as usize;
                let opts: Vec<(u16, Vec<u8>)> =
                    options(&b[12..], swapped).into_iter().map(|(c, v)| (c, v.to_vec())).collect();
                if let Some(i) = self.interfaces.get(id).cloned() {
                    let mut i = i;
                    for (code, v) in opts {
                        match code {
                            2 => i.start_ns = option_timestamp(&v, swapped).and_then(|t| ts_ns(&i, t)),
                            3 => i.end_ns = option_timestamp(&v, swapped).and_then(|t| ts_ns(&i, t)),
                            4 if v.len() == 8 => i.received = Some(u64_at(&v, 0, swapped)),
                            5 if v.len() == 8 => i.dropped = Some(u64_at(&v, 0, swapped)),
                            7 if v.len() == 8 => i.capture_dropped = Some(u64_at(&v, 0, swapped)),
                            _ => {}
                        }
                    }
                    self.interfaces[id] = i;
                }
            }
            _ => {}
        }
        Ok(Some((start, body_len, kind)))
    }

    /// If the block in `buf` is a packet: (ts, interface, link type, original length, direction,
    /// (data offset, data length)).
    #[allow(clippy::type_complexity)]
    fn pcapng_packet(
        &mut self,
        start: u64,
        len: usize,
        kind: u32,
    ) -> Result<Option<(i64, u32, u16, u32, Option<Direction>, (usize, usize))>, ReadError> {
        let Kind::Pcapng { swapped } = self.kind else { unreachable!() };
        let b = &self.buf[..len];
        let (iface, ts, caplen, original_len, data_at) = match kind {
            6 | 2 => {
                if len < 20 {
                    return Err(self.error(start, "a packet block cut short"));
                }
                let iface = if kind == 6 { u32_at(b, 0, swapped) } else { u32::from(u16_at(b, 0, swapped)) };
                let ts = (u64::from(u32_at(b, 4, swapped)) << 32) | u64::from(u32_at(b, 8, swapped));
                (iface, Some(ts), u32_at(b, 12, swapped) as usize, u32_at(b, 16, swapped), 20)
            }
            3 => {
                if len < 4 {
                    return Err(self.error(start, "a simple packet block cut short"));
                }
                let original = u32_at(b, 0, swapped);
                let snap = self.interfaces.get(self.section_base).map_or(u32::MAX, |i| i.snaplen);
                let snap = if snap == 0 { u32::MAX } else { snap };
                ((0), None, (original.min(snap) as usize).min(len - 4), original, 4)
            }
            _ => return Ok(None),
        };
        if data_at + caplen > len {
            return Err(self.error(start, format!("a packet of {caplen} bytes in a block of {len}")));
        }
        let id = self.section_base + iface as usize;
        let Some(info) = self.interfaces.get(id) else {
            return Err(self.error(start, format!("a packet on interface {iface}, which no block described")));
        };
        let ts_ns = match ts {
            Some(t) => match ts_ns(info, t) {
                Some(ns) => ns,
                None => {
                    return Err(self
                        .error(start, "a packet timestamp before 1970 or after 2116: the file is corrupt"))
                }
            },
            None => self.last_ts,
        };
        self.last_ts = ts_ns;
        let mut direction = None;
        if kind == 6 {
            let opts_at = data_at + caplen + (4 - caplen % 4) % 4;
            if opts_at < len {
                for (code, v) in options(&b[opts_at..], swapped) {
                    if code == 2 && v.len() == 4 {
                        direction = match u32_at(v, 0, swapped) & 3 {
                            1 => Some(Direction::Inbound),
                            2 => Some(Direction::Outbound),
                            _ => None,
                        };
                    }
                }
            }
        }
        Ok(Some((ts_ns, id as u32, info.link_type, original_len, direction, (data_at, caplen))))
    }
}

/// The latest timestamp a capture may hold: 2^62 ns after the epoch (the year 2116), so that
/// the difference and the sum of any two stay within 64 bits.
pub const MAX_TIMESTAMP_NS: i64 = 1 << 62;

/// A timestamp in an interface's units, as ns since the epoch; `None` outside
/// `0..=MAX_TIMESTAMP_NS` (a corrupt resolution, offset or timestamp).
fn ts_ns(i: &InterfaceInfo, t: u64) -> Option<i64> {
    let units = u128::from(i.units_per_second.max(1));
    let ns = i128::try_from(u128::from(t) * 1_000_000_000 / units).ok()?;
    let ns = ns + i128::from(i.offset_seconds) * 1_000_000_000;
    (0..=i128::from(MAX_TIMESTAMP_NS)).contains(&ns).then_some(ns as i64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{CaptureWriter, Format, Interface, InterfaceStats, LINKTYPE_ETHERNET};

    fn capture(format: Format) -> Vec<u8> {
        let ifaces = [
            Interface {
                name: "a".into(),
                description: "d".into(),
                ipv4: Some([10, 0, 0, 1]),
                link_type: LINKTYPE_ETHERNET,
                snaplen: 8,
            },
            Interface {
                name: "b".into(),
                description: String::new(),
                ipv4: None,
                link_type: LINKTYPE_ETHERNET,
                snaplen: 100,
            },
        ];
        let mut w = CaptureWriter::new(Vec::new(), format, "flow x", &ifaces).unwrap();
        w.names(&[([10, 0, 0, 1], "src".into())]).unwrap();
        w.packet(0, 1_000_000_123, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 60, Some(Direction::Inbound)).unwrap();
        w.packet(1, 2_000_000_000, &[9; 3], 3, None).unwrap();
        w.finish(&[
            InterfaceStats { start_ns: 5, end_ns: 3_000_000_000, dropped: Some(4), ..Default::default() },
            InterfaceStats::default(),
        ])
        .unwrap()
    }

    #[test]
    fn reads_back_what_the_writer_wrote() {
        let bytes = capture(Format::Pcapng);
        let mut r = CaptureReader::new(&bytes[..], "x.pcapng").unwrap();
        let p = r.next_packet().unwrap().unwrap();
        assert_eq!(
            (p.ts_ns, p.interface, p.data, p.original_len),
            (1_000_000_123, 0, &[1, 2, 3, 4, 5, 6, 7, 8][..], 60)
        );
        assert_eq!(p.direction, Some(Direction::Inbound));
        let p = r.next_packet().unwrap().unwrap();
        assert_eq!((p.ts_ns, p.interface, p.data.len()), (2_000_000_000, 1, 3));
        assert!(r.next_packet().unwrap().is_none());
        assert_eq!(r.comments(), &["flow x".to_string()]);
        assert_eq!(r.names()[0].1, "src");
        let i = &r.interfaces()[0];
        assert_eq!(
            (i.name.as_str(), i.ipv4, i.end_ns, i.dropped, i.received),
            ("a", Some([10, 0, 0, 1]), Some(3_000_000_000), Some(4), Some(1))
        );
        assert!(r.warnings().is_empty());

        let bytes = capture(Format::Pcap);
        let mut r = CaptureReader::new(&bytes[..], "x.pcap").unwrap();
        let p = r.next_packet().unwrap().unwrap();
        assert_eq!((p.ts_ns, p.data.len(), p.original_len), (1_000_000_123, 8, 60));
        assert_eq!(r.next_packet().unwrap().unwrap().ts_ns, 2_000_000_000);
        assert!(r.next_packet().unwrap().is_none());
    }

    #[test]
    fn microsecond_and_big_endian_pcap() {
        let mut b = Vec::new();
        b.extend_from_slice(&0xA1B2C3D4u32.to_be_bytes());
        b.extend_from_slice(&2u16.to_be_bytes());
        b.extend_from_slice(&4u16.to_be_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(&65535u32.to_be_bytes());
        b.extend_from_slice(&113u32.to_be_bytes());
        for v in [7u32, 250_000, 2, 40] {
            b.extend_from_slice(&v.to_be_bytes());
        }
        b.extend_from_slice(&[0xaa, 0xbb]);
        let mut r = CaptureReader::new(&b[..], "be.pcap").unwrap();
        let p = r.next_packet().unwrap().unwrap();
        assert_eq!(
            (p.ts_ns, p.link_type, p.data, p.original_len),
            (7_250_000_000, 113, &[0xaa, 0xbb][..], 40)
        );
    }

    #[test]
    fn a_cut_file_keeps_its_complete_records_and_says_so() {
        let mut w = CaptureWriter::new(
            Vec::new(),
            Format::Pcapng,
            "",
            &[Interface {
                name: "a".into(),
                description: String::new(),
                ipv4: None,
                link_type: LINKTYPE_ETHERNET,
                snaplen: 100,
            }],
        )
        .unwrap();
        w.packet(0, 1, &[1; 40], 40, None).unwrap();
        w.packet(0, 2, &[2; 40], 40, None).unwrap();
        let bytes = w.finish(&[]).unwrap();
        // Cut inside the second packet block.
        let mut r = CaptureReader::new(&bytes[..bytes.len() - 8], "cut.pcapng").unwrap();
        assert!(r.next_packet().unwrap().is_some());
        assert!(r.next_packet().unwrap().is_none());
        assert!(r.warnings()[0].contains("cut short"), "{:?}", r.warnings());
    }

    #[test]
    fn refuses_what_is_not_a_capture_with_the_offset() {
        let e = CaptureReader::new(&b"hello world"[..], "t.txt").err().unwrap();
        assert!(e.to_string().starts_with("t.txt: byte 0: not a pcap or pcapng capture"), "{e}");
        let e = CaptureReader::new(&[0x1f, 0x8b, 8, 0][..], "t.gz").err().unwrap();
        assert!(e.message.contains("gunzip"));
        // A block length that is absurd.
        let mut bytes = capture(Format::Pcapng);
        let shb_len = u32::from_ne_bytes(bytes[4..8].try_into().unwrap()) as usize;
        bytes[shb_len + 4..shb_len + 8].copy_from_slice(&(1u32 << 30).to_ne_bytes());
        let mut r = CaptureReader::new(&bytes[..], "big.pcapng").unwrap();
        let e = r.next_packet().err().unwrap();
        assert_eq!(e.offset, shb_len as u64);
        assert!(e.message.contains("corrupt"), "{e}");
    }

    #[test]
    fn a_file_of_endless_interface_descriptions_is_refused_not_held() {
        // A 60 MB file of interface blocks once held 1.24 GB.
        let interface = Interface {
            name: "a".into(),
            description: String::new(),
            ipv4: None,
            link_type: LINKTYPE_ETHERNET,
            snaplen: 100,
        };
        let mut bytes =
            CaptureWriter::new(Vec::new(), Format::Pcapng, "", &[interface]).unwrap().finish(&[]).unwrap();
        let mut r = CaptureReader::new(&bytes[..], "one.pcapng").unwrap();
        assert!(r.next_packet().unwrap().is_none());
        let kept = r.descriptions.0;
        let idb = |b: &mut Vec<u8>| {
            for v in [1u32, 20] {
                b.extend_from_slice(&v.to_ne_bytes());
            }
            b.extend_from_slice(&1u16.to_ne_bytes()); // Ethernet
            b.extend_from_slice(&0u16.to_ne_bytes());
            b.extend_from_slice(&65535u32.to_ne_bytes());
            b.extend_from_slice(&20u32.to_ne_bytes());
        };
        for _ in kept..MAX_DESCRIPTIONS {
            idb(&mut bytes);
        }
        let mut r = CaptureReader::new(&bytes[..], "many.pcapng").unwrap();
        assert!(r.next_packet().unwrap().is_none(), "as many as the bound: read");
        idb(&mut bytes);
        let mut r = CaptureReader::new(&bytes[..], "many.pcapng").unwrap();
        let e = r.next_packet().err().unwrap();
        assert!(e.message.contains("more than 100000 interface descriptions"), "{e}");
    }

    #[test]
    fn a_timestamp_beyond_2116_is_refused_not_wrapped() {
        // A fuzzed timestamp once wrapped a connection's duration past 64 bits (a panic in a
        // debug build, garbage in a release one).
        let mut bytes = capture(Format::Pcapng);
        let mut at = 0;
        loop {
            let kind = u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
            if kind == 6 {
                break;
            }
            at += u32::from_ne_bytes(bytes[at + 4..at + 8].try_into().unwrap()) as usize;
        }
        // The enhanced packet block's timestamp (high word at +12), in microseconds.
        bytes[at + 12..at + 16].copy_from_slice(&0xffff_ffffu32.to_ne_bytes());
        let mut r = CaptureReader::new(&bytes[..], "late.pcapng").unwrap();
        let e = r.next_packet().err().unwrap();
        assert!(e.message.contains("after 2116"), "{e}");
        assert_eq!(e.offset, at as u64);
    }
}
