//! From a captured frame to its IPv4/IPv6 and TCP/UDP header fields.
//!
//! Link types: Ethernet (with 802.1Q/802.1ad tags), Linux cooked captures v1 and v2
//! (`tcpdump -i any`), raw IP, BSD loopback. Lengths come from the IP header, not from what was
//! captured, so a capture cut to a snaplen still counts every byte a packet carried; but a
//! header is never trusted beyond the frame's length on the wire (the capture record's original
//! length): a packet whose IP length exceeds it, or whose header lengths are impossible (an IPv4
//! header under 20 bytes, a TCP header under 20 bytes or longer than the packet), is
//! [`Skip::Malformed`], counted and left out.

use std::net::IpAddr;

pub const LINKTYPE_NULL: u16 = 0;
pub const LINKTYPE_ETHERNET: u16 = 1;
pub const LINKTYPE_RAW: u16 = 101;
pub const LINKTYPE_LINUX_SLL: u16 = 113;
pub const LINKTYPE_IPV4: u16 = 228;
pub const LINKTYPE_IPV6: u16 = 229;
pub const LINKTYPE_LINUX_SLL2: u16 = 276;
/// Some systems write raw IP as DLT 12 or 14.
const DLT_RAW_12: u16 = 12;
const DLT_RAW_14: u16 = 14;
pub const LINKTYPE_LOOP: u16 = 108;

/// What the TCP options of a segment say (those the analysis uses).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TcpOptions {
    pub mss: Option<u16>,
    pub window_scale: Option<u8>,
    pub sack_permitted: bool,
    /// Up to four SACK blocks (left, right edges, raw sequence numbers).
    pub sack: [(u32, u32); 4],
    pub sack_count: u8,
    pub timestamp: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tcp {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Payload bytes (from the IP length).
    pub payload_len: u32,
    pub options: TcpOptions,
    /// The options were captured (not cut off by the snaplen).
    pub options_complete: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Udp {
    pub src_port: u16,
    pub dst_port: u16,
    pub payload_len: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    Tcp(Tcp),
    Udp(Udp),
    Other(u8),
}

/// A decoded IP packet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IpPacket {
    pub src: IpAddr,
    pub dst: IpAddr,
    /// Bytes of the IP packet (header included), from its header.
    pub ip_len: u32,
    pub transport: Transport,
    /// Linux cooked captures: the packet came to this host (`Some(true)`) or was sent by it
    /// (`Some(false)`); `None` when the link layer does not say.
    pub incoming: Option<bool>,
    /// IPv4's time to live, IPv6's hop limit: as the sender set it, less one per router passed.
    pub ttl: u8,
}

/// Why a frame was not decoded (counted, not an error: captures hold ARP, IPv6 neighbour
/// discovery, fragments...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Skip {
    /// Not IP (ARP, LLDP, ...), or a link type this reader does not know.
    NotIp,
    /// The captured bytes end before the headers needed.
    Truncated,
    /// A fragment after the first (no transport header).
    Fragment,
    /// Header fields that cannot be true of the frame: lengths below a header's minimum or
    /// beyond what the frame carried on the wire.
    Malformed,
    UnknownLinkType(u16),
}

fn be16(b: &[u8], at: usize) -> u16 {
    u16::from_be_bytes([b[at], b[at + 1]])
}

fn be32(b: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// Decode one frame of link type `link_type`, captured as `frame` of `original_len` bytes on
/// the wire.
pub fn decode(link_type: u16, frame: &[u8], original_len: u32) -> Result<IpPacket, Skip> {
    let (ethertype, ip, incoming) = match link_type {
        LINKTYPE_ETHERNET => {
            if frame.len() < 14 {
                return Err(Skip::Truncated);
            }
            let mut at = 12;
            let mut et = be16(frame, at);
            while et == 0x8100 || et == 0x88a8 {
                at += 4;
                if frame.len() < at + 2 {
                    return Err(Skip::Truncated);
                }
                et = be16(frame, at);
            }
            (et, &frame[at + 2..], None)
        }
        LINKTYPE_LINUX_SLL => {
            if frame.len() < 16 {
                return Err(Skip::Truncated);
            }
            (be16(frame, 14), &frame[16..], sll_incoming(be16(frame, 0)))
        }
        LINKTYPE_LINUX_SLL2 => {
            if frame.len() < 20 {
                return Err(Skip::Truncated);
            }
            (be16(frame, 0), &frame[20..], sll_incoming(u16::from(frame[10])))
        }
        LINKTYPE_RAW | LINKTYPE_IPV4 | LINKTYPE_IPV6 | DLT_RAW_12 | DLT_RAW_14 => match frame.first() {
            Some(b) if b >> 4 == 4 => (0x0800, frame, None),
            Some(b) if b >> 4 == 6 => (0x86dd, frame, None),
            Some(_) => return Err(Skip::NotIp),
            None => return Err(Skip::Truncated),
        },
        LINKTYPE_NULL | LINKTYPE_LOOP => {
            if frame.len() < 4 {
                return Err(Skip::Truncated);
            }
            let family = u32::from_ne_bytes([frame[0], frame[1], frame[2], frame[3]]);
            let family = if family > 0xffff { family.swap_bytes() } else { family };
            let et = match family {
                2 => 0x0800,
                24 | 28 | 30 => 0x86dd,
                _ => return Err(Skip::NotIp),
            };
            (et, &frame[4..], None)
        }
        other => return Err(Skip::UnknownLinkType(other)),
    };
    // The most the IP packet can be: the frame on the wire less its link header (a record whose
    // original length is below what it captured is taken at what it captured).
    let link_header = frame.len() - ip.len();
    let on_wire = (original_len as usize).max(frame.len()) - link_header;
    let on_wire = u32::try_from(on_wire).unwrap_or(u32::MAX);
    let mut p = match ethertype {
        0x0800 => ipv4(ip, on_wire)?,
        0x86dd => ipv6(ip, on_wire)?,
        _ => return Err(Skip::NotIp),
    };
    p.incoming = incoming;
    Ok(p)
}

/// Linux cooked capture packet types: 0 to us, 1 broadcast, 2 multicast, 3 to another host,
/// 4 sent by us.
fn sll_incoming(packet_type: u16) -> Option<bool> {
    match packet_type {
        0..=2 => Some(true),
        4 => Some(false),
        _ => None,
    }
}

fn ipv4(ip: &[u8], on_wire: u32) -> Result<IpPacket, Skip> {
    if ip.len() < 20 {
        return Err(Skip::Truncated);
    }
    if ip[0] >> 4 != 4 {
        return Err(Skip::NotIp);
    }
    let ihl = usize::from(ip[0] & 0x0f) * 4;
    if ihl < 20 {
        return Err(Skip::Malformed);
    }
    if ip.len() < ihl {
        return Err(Skip::Truncated);
    }
    let total = u32::from(be16(ip, 2));
    // A total length of 0 is what TSO/GSO super-packets captured on the sending host carry.
    let ip_len = if total == 0 { on_wire } else { total };
    if ip_len < ihl as u32 || ip_len > on_wire {
        return Err(Skip::Malformed);
    }
    let fragment_offset = be16(ip, 6) & 0x1fff;
    if fragment_offset != 0 {
        return Err(Skip::Fragment);
    }
    let src = IpAddr::from([ip[12], ip[13], ip[14], ip[15]]);
    let dst = IpAddr::from([ip[16], ip[17], ip[18], ip[19]]);
    let transport = transport(ip[9], &ip[ihl..], ip_len.saturating_sub(ihl as u32))?;
    Ok(IpPacket { src, dst, ip_len, transport, incoming: None, ttl: ip[8] })
}

fn ipv6(ip: &[u8], on_wire: u32) -> Result<IpPacket, Skip> {
    if ip.len() < 40 {
        return Err(Skip::Truncated);
    }
    let payload = u32::from(be16(ip, 4));
    let mut src = [0u8; 16];
    let mut dst = [0u8; 16];
    src.copy_from_slice(&ip[8..24]);
    dst.copy_from_slice(&ip[24..40]);
    let mut next = ip[6];
    let mut at = 40usize;
    // Extension headers: hop-by-hop, routing, destination options; a fragment header.
    loop {
        match next {
            0 | 43 | 60 => {
                if ip.len() < at + 2 {
                    return Err(Skip::Truncated);
                }
                next = ip[at];
                at += (usize::from(ip[at + 1]) + 1) * 8;
            }
            44 => {
                if ip.len() < at + 8 {
                    return Err(Skip::Truncated);
                }
                if be16(ip, at + 2) & 0xfff8 != 0 {
                    return Err(Skip::Fragment);
                }
                next = ip[at];
                at += 8;
            }
            _ => break,
        }
    }
    if ip.len() < at {
        return Err(Skip::Truncated);
    }
    let ip_len = 40 + payload;
    if ip_len > on_wire || (at as u32) > ip_len {
        return Err(Skip::Malformed);
    }
    let transport = transport(next, &ip[at..], ip_len.saturating_sub(at as u32))?;
    let ttl = ip[7];
    Ok(IpPacket { src: IpAddr::from(src), dst: IpAddr::from(dst), ip_len, transport, incoming: None, ttl })
}

fn transport(protocol: u8, b: &[u8], len: u32) -> Result<Transport, Skip> {
    match protocol {
        6 => {
            if b.len() < 20 {
                return Err(Skip::Truncated);
            }
            let header = u32::from(b[12] >> 4) * 4;
            if header < 20 || header > len {
                return Err(Skip::Malformed);
            }
            let options_end = (header as usize).min(b.len());
            let (options, complete) = if header > 20 {
                (tcp_options(&b[20..options_end]), options_end == header as usize)
            } else {
                (TcpOptions::default(), true)
            };
            Ok(Transport::Tcp(Tcp {
                src_port: be16(b, 0),
                dst_port: be16(b, 2),
                seq: be32(b, 4),
                ack: be32(b, 8),
                flags: b[13],
                window: be16(b, 14),
                payload_len: len.saturating_sub(header),
                options,
                options_complete: complete,
            }))
        }
        17 => {
            if b.len() < 8 {
                return Err(Skip::Truncated);
            }
            if len < 8 {
                return Err(Skip::Malformed);
            }
            Ok(Transport::Udp(Udp {
                src_port: be16(b, 0),
                dst_port: be16(b, 2),
                payload_len: len.saturating_sub(8),
            }))
        }
        other => Ok(Transport::Other(other)),
    }
}

fn tcp_options(b: &[u8]) -> TcpOptions {
    let mut o = TcpOptions::default();
    let mut at = 0;
    while at < b.len() {
        match b[at] {
            0 => break,
            1 => at += 1,
            kind => {
                let Some(&len) = b.get(at + 1) else { break };
                let len = usize::from(len);
                if len < 2 || at + len > b.len() {
                    break;
                }
                let v = &b[at + 2..at + len];
                match (kind, v.len()) {
                    (2, 2) => o.mss = Some(be16(v, 0)),
                    (3, 1) => o.window_scale = Some(v[0].min(14)),
                    (4, 0) => o.sack_permitted = true,
                    (5, n) if n % 8 == 0 => {
                        for (i, block) in v.chunks_exact(8).take(4).enumerate() {
                            o.sack[i] = (be32(block, 0), be32(block, 4));
                            o.sack_count = i as u8 + 1;
                        }
                    }
                    (8, 8) => o.timestamp = Some((be32(v, 0), be32(v, 4))),
                    _ => {}
                }
                at += len;
            }
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::frame::{self, Addresses, TcpHeader};

    const ADDRESSES: Addresses =
        Addresses { src_mac: [2; 6], dst_mac: [4; 6], src_ip: [10, 0, 0, 1], dst_ip: [10, 0, 0, 2] };

    /// A pure ACK without options, from port 1 to port 2.
    fn bare_ack() -> TcpHeader<'static> {
        TcpHeader { src_port: 1, dst_port: 2, seq: 3, ack: 4, flags: frame::ACK, window: 6, options: &[] }
    }

    #[test]
    fn decodes_what_the_frame_builder_builds_even_cut_short() {
        let a = ADDRESSES;
        let mut opts = Vec::new();
        frame::sack_option(&mut opts, &[(5, 9)]);
        let h = TcpHeader {
            src_port: 1,
            dst_port: 2,
            seq: 3,
            ack: 4,
            flags: frame::ACK,
            window: 6,
            options: &opts,
        };
        let mut buf = Vec::new();
        // Cut to 96 bytes by the snaplen; on the wire it was the whole segment.
        let on_wire = frame::tcp_frame(&mut buf, &a, 0, &h, 1000, 96).unwrap() as u32;
        let p = decode(LINKTYPE_ETHERNET, &buf, on_wire).unwrap();
        assert_eq!(p.ip_len, 20 + 32 + 1000);
        let Transport::Tcp(t) = p.transport else { panic!() };
        assert_eq!((t.seq, t.ack, t.window, t.payload_len), (3, 4, 6, 1000));
        assert_eq!((t.options.sack_count, t.options.sack[0]), (1, (5, 9)));
        assert!(t.options_complete);
        // The same header on a frame that was shorter on the wire than the IP length it claims.
        assert_eq!(decode(LINKTYPE_ETHERNET, &buf, on_wire - 1), Err(Skip::Malformed));
        buf.clear();
        let on_wire = frame::udp_frame(&mut buf, &a, 0, 7, 9, 100, 42).unwrap() as u32;
        let p = decode(LINKTYPE_ETHERNET, &buf, on_wire).unwrap();
        assert_eq!(p.transport, Transport::Udp(Udp { src_port: 7, dst_port: 9, payload_len: 100 }));
        assert_eq!(decode(LINKTYPE_ETHERNET, &buf[..20], on_wire), Err(Skip::Truncated));
    }

    #[test]
    fn impossible_header_lengths_are_malformed_not_trusted() {
        let (a, h) = (ADDRESSES, bare_ack());
        let mut good = Vec::new();
        frame::tcp_frame(&mut good, &a, 0, &h, 10, 1000).unwrap();
        let wire = good.len() as u32;
        assert!(decode(LINKTYPE_ETHERNET, &good, wire).is_ok());
        let edit = |at: usize, value: u8| {
            let mut b = good.clone();
            b[at] = value;
            decode(LINKTYPE_ETHERNET, &b, wire)
        };
        assert_eq!(edit(14, 0x44), Err(Skip::Malformed), "an IPv4 header of 16 bytes");
        assert_eq!(edit(14 + 20 + 12, 0x40), Err(Skip::Malformed), "a TCP header of 16 bytes");
        assert_eq!(edit(14 + 20 + 12, 0x00), Err(Skip::Malformed), "a TCP data offset of 0");
        assert_eq!(edit(14 + 20 + 12, 0xf0), Err(Skip::Malformed), "a TCP header beyond the packet");
        // A total length of 65 535 in a frame of 64 bytes (10 % more throughput and phantom
        // retransmissions when it was believed).
        let mut b = good.clone();
        b[16..18].copy_from_slice(&65535u16.to_be_bytes());
        assert_eq!(decode(LINKTYPE_ETHERNET, &b, wire), Err(Skip::Malformed));
        b[16..18].copy_from_slice(&10u16.to_be_bytes());
        assert_eq!(decode(LINKTYPE_ETHERNET, &b, wire), Err(Skip::Malformed), "shorter than its header");
    }

    #[test]
    fn cooked_captures_say_the_direction() {
        let (a, h) = (ADDRESSES, bare_ack());
        let mut eth = Vec::new();
        frame::tcp_frame(&mut eth, &a, 0, &h, 0, 1000).unwrap();
        let mut sll = vec![0, 4, 0, 1, 0, 6, 2, 2, 2, 2, 2, 2, 0, 0, 0x08, 0x00];
        sll.extend_from_slice(&eth[14..]);
        let p = decode(LINKTYPE_LINUX_SLL, &sll, sll.len() as u32).unwrap();
        assert_eq!(p.incoming, Some(false));
        let p = decode(LINKTYPE_RAW, &eth[14..], eth[14..].len() as u32).unwrap();
        assert_eq!(p.src, IpAddr::from([10, 0, 0, 1]));
        assert_eq!(decode(999, &eth, eth.len() as u32), Err(Skip::UnknownLinkType(999)));
    }
}
