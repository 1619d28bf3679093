//! Writing a capture, streamed: pcapng (the default) or classic pcap.
//!
//! pcapng: a Section Header Block (application `westwood`, a comment the analysis reads: see
//! [`crate::meta`]), one Interface Description Block per capture point (name, description,
//! nanosecond timestamps, snaplen, and for an endpoint its IPv4 address), an optional Name
//! Resolution Block (addresses to node names, which Wireshark shows as host names), one Enhanced
//! Packet Block per packet (with the direction, inbound or outbound, when the capture point is
//! an endpoint) and, at the end, an Interface Statistics Block per interface (start and end of
//! the capture, packets received, packets the interface dropped), from which `westwood analyze`
//! learns when the capture ended.
//!
//! Classic pcap: the nanosecond-resolution variant (magic `a1b23c4d`), one link type, no
//! comments, directions, names or end time.
//!
//! Blocks are written in this machine's byte order, as the formats allow; readers (libpcap,
//! Wireshark, [`crate::read`]) take it from each section's magic.

use std::io::{self, Write};
use std::path::Path;

use westwood_trace::AtomicFile;

/// LINKTYPE_ETHERNET.
pub const LINKTYPE_ETHERNET: u16 = 1;

/// The capture file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Pcapng,
    Pcap,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Pcapng => "pcapng",
            Format::Pcap => "pcap",
        }
    }

    pub fn parse(text: &str) -> Option<Format> {
        match text.trim().to_ascii_lowercase().as_str() {
            "pcapng" => Some(Format::Pcapng),
            "pcap" => Some(Format::Pcap),
            _ => None,
        }
    }
}

/// One capture point of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    /// `if_name` (e.g. the link, or `FLOW.sender`).
    pub name: String,
    /// `if_description`: what the capture point is and when packets are stamped.
    pub description: String,
    /// `if_IPv4addr`: the endpoint's own address (a host's interface), `None` for a link.
    pub ipv4: Option<[u8; 4]>,
    pub link_type: u16,
    /// Bytes kept of each packet.
    pub snaplen: u32,
}

/// Which way a packet crossed the capture point (`epb_flags`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Inbound,
    Outbound,
}

/// What an interface saw, written at the end (pcapng Interface Statistics Block).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InterfaceStats {
    /// Capture start and end, ns since the epoch (the simulator's: simulated time).
    pub start_ns: u64,
    pub end_ns: u64,
    /// `isb_ifdrop`: packets the interface dropped (a link's queue drops).
    pub dropped: Option<u64>,
    /// `isb_osdrop`: packets the capture itself lost (a full buffer).
    pub capture_dropped: Option<u64>,
    pub comment: Option<String>,
}

const SHB: u32 = 0x0A0D_0D0A;
const IDB: u32 = 0x0000_0001;
const NRB: u32 = 0x0000_0004;
const ISB: u32 = 0x0000_0005;
const EPB: u32 = 0x0000_0006;
const BYTE_ORDER_MAGIC: u32 = 0x1A2B_3C4D;
/// Classic pcap with nanosecond timestamps.
const PCAP_NS_MAGIC: u32 = 0xA1B2_3C4D;

/// A capture being written to `W`.
pub struct CaptureWriter<W: Write> {
    out: W,
    format: Format,
    snaplens: Vec<u32>,
    received: Vec<u64>,
    block: Vec<u8>,
}

fn pad4(n: usize) -> usize {
    (4 - n % 4) % 4
}

/// Append option `code` with `value` (padded) to `block`.
fn option(block: &mut Vec<u8>, code: u16, value: &[u8]) {
    let len = value.len().min(u16::MAX as usize);
    block.extend_from_slice(&code.to_ne_bytes());
    block.extend_from_slice(&(len as u16).to_ne_bytes());
    block.extend_from_slice(&value[..len]);
    block.extend(std::iter::repeat_n(0u8, pad4(len)));
}

fn end_of_options(block: &mut Vec<u8>) {
    block.extend_from_slice(&[0, 0, 0, 0]);
}

/// A 64-bit timestamp as pcapng stores it: high word, low word.
fn timestamp(ns: u64) -> [u8; 8] {
    let mut b = [0u8; 8];
    b[..4].copy_from_slice(&((ns >> 32) as u32).to_ne_bytes());
    b[4..].copy_from_slice(&(ns as u32).to_ne_bytes());
    b
}

impl<W: Write> CaptureWriter<W> {
    /// Start a capture with these interfaces (classic pcap: the first one's link type, the
    /// largest snaplen; `comment` is not kept there).
    pub fn new(out: W, format: Format, comment: &str, interfaces: &[Interface]) -> io::Result<Self> {
        assert!(!interfaces.is_empty(), "a capture needs an interface");
        let mut w = CaptureWriter {
            out,
            format,
            snaplens: interfaces.iter().map(|i| i.snaplen.max(1)).collect(),
            received: vec![0; interfaces.len()],
            block: Vec::with_capacity(256),
        };
        match format {
            Format::Pcap => {
                let snaplen = w.snaplens.iter().copied().max().unwrap_or(65535);
                let mut h = Vec::with_capacity(24);
                h.extend_from_slice(&PCAP_NS_MAGIC.to_ne_bytes());
                h.extend_from_slice(&2u16.to_ne_bytes());
                h.extend_from_slice(&4u16.to_ne_bytes());
                h.extend_from_slice(&0i32.to_ne_bytes());
                h.extend_from_slice(&0u32.to_ne_bytes());
                h.extend_from_slice(&snaplen.to_ne_bytes());
                h.extend_from_slice(&u32::from(interfaces[0].link_type).to_ne_bytes());
                w.out.write_all(&h)?;
            }
            Format::Pcapng => {
                let mut b = std::mem::take(&mut w.block);
                b.clear();
                b.extend_from_slice(&BYTE_ORDER_MAGIC.to_ne_bytes());
                b.extend_from_slice(&1u16.to_ne_bytes());
                b.extend_from_slice(&0u16.to_ne_bytes());
                b.extend_from_slice(&(-1i64).to_ne_bytes()); // section length unknown
                if !comment.is_empty() {
                    option(&mut b, 1, comment.as_bytes());
                }
                option(&mut b, 4, format!("westwood {}", env!("CARGO_PKG_VERSION")).as_bytes());
                end_of_options(&mut b);
                w.write_block(SHB, &b)?;
                for iface in interfaces {
                    b.clear();
                    b.extend_from_slice(&iface.link_type.to_ne_bytes());
                    b.extend_from_slice(&0u16.to_ne_bytes());
                    b.extend_from_slice(&iface.snaplen.max(1).to_ne_bytes());
                    option(&mut b, 2, iface.name.as_bytes());
                    if !iface.description.is_empty() {
                        option(&mut b, 3, iface.description.as_bytes());
                    }
                    if let Some(ip) = iface.ipv4 {
                        option(&mut b, 4, &[ip[0], ip[1], ip[2], ip[3], 255, 255, 255, 255]);
                    }
                    option(&mut b, 9, &[9]); // if_tsresol: nanoseconds
                    end_of_options(&mut b);
                    w.write_block(IDB, &b)?;
                }
                w.block = b;
            }
        }
        Ok(w)
    }

    fn write_block(&mut self, kind: u32, body: &[u8]) -> io::Result<()> {
        let total = (12 + body.len()) as u32;
        self.out.write_all(&kind.to_ne_bytes())?;
        self.out.write_all(&total.to_ne_bytes())?;
        self.out.write_all(body)?;
        self.out.write_all(&total.to_ne_bytes())
    }

    /// IPv4 addresses and their names (pcapng only: a Name Resolution Block).
    pub fn names(&mut self, names: &[([u8; 4], String)]) -> io::Result<()> {
        if self.format != Format::Pcapng || names.is_empty() {
            return Ok(());
        }
        let mut b = std::mem::take(&mut self.block);
        b.clear();
        for (ip, name) in names {
            let mut value = ip.to_vec();
            value.extend_from_slice(name.as_bytes());
            value.push(0);
            option(&mut b, 1, &value); // nrb_record_ipv4
        }
        end_of_options(&mut b); // nrb_record_end
        end_of_options(&mut b); // no options
        let r = self.write_block(NRB, &b);
        self.block = b;
        r
    }

    /// One packet of `original_len` bytes on the wire, of which `data` (cut to the interface's
    /// snaplen here) is kept, seen at `ts_ns`.
    pub fn packet(
        &mut self,
        interface: u32,
        ts_ns: u64,
        data: &[u8],
        original_len: u32,
        direction: Option<Direction>,
    ) -> io::Result<()> {
        let i = interface as usize;
        let data = &data[..data.len().min(self.snaplens[i] as usize)];
        self.received[i] += 1;
        match self.format {
            Format::Pcap => {
                let mut h = [0u8; 16];
                h[..4].copy_from_slice(&((ts_ns / 1_000_000_000) as u32).to_ne_bytes());
                h[4..8].copy_from_slice(&((ts_ns % 1_000_000_000) as u32).to_ne_bytes());
                h[8..12].copy_from_slice(&(data.len() as u32).to_ne_bytes());
                h[12..].copy_from_slice(&original_len.max(data.len() as u32).to_ne_bytes());
                self.out.write_all(&h)?;
                self.out.write_all(data)
            }
            Format::Pcapng => {
                let mut b = std::mem::take(&mut self.block);
                b.clear();
                b.extend_from_slice(&interface.to_ne_bytes());
                b.extend_from_slice(&timestamp(ts_ns));
                b.extend_from_slice(&(data.len() as u32).to_ne_bytes());
                b.extend_from_slice(&original_len.max(data.len() as u32).to_ne_bytes());
                b.extend_from_slice(data);
                b.extend(std::iter::repeat_n(0u8, pad4(data.len())));
                if let Some(d) = direction {
                    let flags: u32 = match d {
                        Direction::Inbound => 1,
                        Direction::Outbound => 2,
                    };
                    option(&mut b, 2, &flags.to_ne_bytes());
                    end_of_options(&mut b);
                }
                let r = self.write_block(EPB, &b);
                self.block = b;
                r
            }
        }
    }

    /// Packets written to `interface` so far.
    pub fn packets(&self, interface: u32) -> u64 {
        self.received[interface as usize]
    }

    /// Write each interface's statistics (pcapng; ignored for pcap) and return the writer.
    pub fn finish(mut self, stats: &[InterfaceStats]) -> io::Result<W> {
        if self.format == Format::Pcapng {
            let mut b = std::mem::take(&mut self.block);
            for (i, s) in stats.iter().enumerate().take(self.received.len()) {
                b.clear();
                b.extend_from_slice(&(i as u32).to_ne_bytes());
                b.extend_from_slice(&timestamp(s.end_ns));
                if let Some(c) = &s.comment {
                    option(&mut b, 1, c.as_bytes());
                }
                option(&mut b, 2, &timestamp(s.start_ns));
                option(&mut b, 3, &timestamp(s.end_ns));
                option(&mut b, 4, &self.received[i].to_ne_bytes());
                if let Some(d) = s.dropped {
                    option(&mut b, 5, &d.to_ne_bytes());
                }
                if let Some(d) = s.capture_dropped {
                    option(&mut b, 7, &d.to_ne_bytes());
                }
                end_of_options(&mut b);
                self.write_block(ISB, &b)?;
            }
        }
        self.out.flush()?;
        Ok(self.out)
    }
}

/// A capture written beside its place (`NAME.partial`) and renamed into it by [`commit`]: it is
/// complete or absent, never half-written (dropped uncommitted, the partial file is removed).
///
/// [`commit`]: CaptureFile::commit
pub struct CaptureFile {
    writer: CaptureWriter<AtomicFile>,
}

impl CaptureFile {
    pub fn create(path: &Path, format: Format, comment: &str, interfaces: &[Interface]) -> io::Result<Self> {
        let file = AtomicFile::create(path)?;
        Ok(CaptureFile { writer: CaptureWriter::new(file, format, comment, interfaces)? })
    }

    pub fn path(&self) -> &Path {
        self.writer.out.path()
    }

    pub fn writer(&mut self) -> &mut CaptureWriter<AtomicFile> {
        &mut self.writer
    }

    /// Write the statistics, flush, sync and rename into place.
    pub fn commit(self, stats: &[InterfaceStats]) -> io::Result<()> {
        self.writer.finish(stats)?.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iface(name: &str) -> Interface {
        Interface {
            name: name.into(),
            description: "test".into(),
            ipv4: Some([10, 0, 0, 1]),
            link_type: LINKTYPE_ETHERNET,
            snaplen: 64,
        }
    }

    #[test]
    fn pcapng_blocks_are_aligned_and_framed() {
        let mut w =
            CaptureWriter::new(Vec::new(), Format::Pcapng, "hello", &[iface("a"), iface("b")]).unwrap();
        w.names(&[([10, 0, 0, 1], "src".into())]).unwrap();
        w.packet(1, 1_500_000_000, &[7u8; 100], 100, Some(Direction::Outbound)).unwrap();
        let out = w.finish(&[InterfaceStats { end_ns: 2_000_000_000, ..Default::default() }]).unwrap();
        // Walk the blocks: each length is a multiple of 4 and repeated at its end.
        let mut at = 0;
        let mut kinds = Vec::new();
        while at < out.len() {
            let kind = u32::from_ne_bytes(out[at..at + 4].try_into().unwrap());
            let len = u32::from_ne_bytes(out[at + 4..at + 8].try_into().unwrap()) as usize;
            assert_eq!(len % 4, 0);
            assert_eq!(u32::from_ne_bytes(out[at + len - 4..at + len].try_into().unwrap()) as usize, len);
            kinds.push(kind);
            at += len;
        }
        assert_eq!(kinds, vec![SHB, IDB, IDB, NRB, EPB, ISB]);
    }

    #[test]
    fn pcap_records_cut_to_the_snaplen() {
        let mut w = CaptureWriter::new(Vec::new(), Format::Pcap, "", &[iface("a")]).unwrap();
        w.packet(0, 3_000_000_007, &[1u8; 100], 1500, None).unwrap();
        let out = w.finish(&[]).unwrap();
        assert_eq!(out.len(), 24 + 16 + 64);
        assert_eq!(u32::from_ne_bytes(out[24..28].try_into().unwrap()), 3);
        assert_eq!(u32::from_ne_bytes(out[28..32].try_into().unwrap()), 7);
        assert_eq!(u32::from_ne_bytes(out[32..36].try_into().unwrap()), 64);
        assert_eq!(u32::from_ne_bytes(out[36..40].try_into().unwrap()), 1500);
    }

    #[test]
    fn an_uncommitted_capture_leaves_no_file() {
        let dir = std::env::temp_dir().join(format!("westwood-pcap-w-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.pcapng");
        {
            let mut c = CaptureFile::create(&path, Format::Pcapng, "", &[iface("a")]).unwrap();
            c.writer().packet(0, 0, &[0u8; 60], 60, None).unwrap();
        }
        assert!(!path.exists());
        assert!(std::fs::read_dir(&dir).unwrap().next().is_none(), "no partial file left");
        let c = CaptureFile::create(&path, Format::Pcapng, "", &[iface("a")]).unwrap();
        c.commit(&[InterfaceStats::default()]).unwrap();
        assert!(path.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
