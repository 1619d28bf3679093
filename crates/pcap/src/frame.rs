//! Building Ethernet / IPv4 / TCP or UDP frames for packets that exist only as a model (the
//! simulator's): real headers with correct checksums, a payload of zeros.
//!
//! The payload is all zeros, which adds nothing to a one's-complement sum, so the TCP and UDP
//! checksums computed over the headers (and the pseudo-header, which carries the full length)
//! are those of the whole packet: a reader that sees every byte (a snaplen above the packet)
//! verifies them.

/// TCP flags.
pub const FIN: u8 = 0x01;
pub const SYN: u8 = 0x02;
pub const RST: u8 = 0x04;
pub const PSH: u8 = 0x08;
pub const ACK: u8 = 0x10;

pub const ETH_HEADER: usize = 14;
pub const IPV4_HEADER: usize = 20;
pub const TCP_HEADER: usize = 20;
pub const UDP_HEADER: usize = 8;
/// Most option bytes a TCP header holds.
pub const TCP_MAX_OPTIONS: usize = 40;

/// Link-layer and network-layer addresses of a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Addresses {
    pub src_mac: [u8; 6],
    pub dst_mac: [u8; 6],
    pub src_ip: [u8; 4],
    pub dst_ip: [u8; 4],
}

/// A TCP segment's header fields.
#[derive(Debug, Clone, Copy)]
pub struct TcpHeader<'a> {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u32,
    pub ack: u32,
    pub flags: u8,
    pub window: u16,
    /// Options, a multiple of 4 bytes, at most [`TCP_MAX_OPTIONS`].
    pub options: &'a [u8],
}

fn add(sum: &mut u32, bytes: &[u8]) {
    let mut chunks = bytes.chunks_exact(2);
    for c in &mut chunks {
        *sum += u32::from(u16::from_be_bytes([c[0], c[1]]));
    }
    if let [last] = chunks.remainder() {
        *sum += u32::from(u16::from_be_bytes([*last, 0]));
    }
}

fn fold(mut sum: u32) -> u16 {
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// The Internet checksum of `bytes`.
pub fn checksum(bytes: &[u8]) -> u16 {
    let mut sum = 0;
    add(&mut sum, bytes);
    fold(sum)
}

fn ethernet_ipv4(buf: &mut Vec<u8>, a: &Addresses, protocol: u8, ip_len: u16, ip_id: u16) {
    buf.extend_from_slice(&a.dst_mac);
    buf.extend_from_slice(&a.src_mac);
    buf.extend_from_slice(&[0x08, 0x00]);
    let start = buf.len();
    buf.extend_from_slice(&[0x45, 0x00]);
    buf.extend_from_slice(&ip_len.to_be_bytes());
    buf.extend_from_slice(&ip_id.to_be_bytes());
    buf.extend_from_slice(&[0x40, 0x00, 64, protocol, 0, 0]); // DF, TTL 64, checksum below
    buf.extend_from_slice(&a.src_ip);
    buf.extend_from_slice(&a.dst_ip);
    let sum = checksum(&buf[start..start + IPV4_HEADER]);
    buf[start + 10..start + 12].copy_from_slice(&sum.to_be_bytes());
}

fn pseudo_header(sum: &mut u32, a: &Addresses, protocol: u8, len: u16) {
    add(sum, &a.src_ip);
    add(sum, &a.dst_ip);
    *sum += u32::from(protocol);
    *sum += u32::from(len);
}

/// Why a packet cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FrameError {
    /// The IPv4 packet would exceed 65 535 bytes.
    TooLarge(usize),
    /// TCP options longer than 40 bytes or not a multiple of 4.
    BadOptions(usize),
}

impl std::fmt::Display for FrameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FrameError::TooLarge(n) => write!(f, "an IPv4 packet of {n} bytes (at most 65535)"),
            FrameError::BadOptions(n) => write!(f, "{n} bytes of TCP options (a multiple of 4, at most 40)"),
        }
    }
}

/// Append to `buf` the first `snaplen` bytes of an Ethernet frame holding an IPv4 TCP segment
/// with `header` and `payload_len` zero bytes of payload; returns the frame's full length.
pub fn tcp_frame(
    buf: &mut Vec<u8>,
    a: &Addresses,
    ip_id: u16,
    header: &TcpHeader<'_>,
    payload_len: usize,
    snaplen: usize,
) -> Result<usize, FrameError> {
    let opts = header.options.len();
    if opts > TCP_MAX_OPTIONS || !opts.is_multiple_of(4) {
        return Err(FrameError::BadOptions(opts));
    }
    let tcp_len = TCP_HEADER + opts + payload_len;
    let ip_len = IPV4_HEADER + tcp_len;
    if ip_len > 65_535 {
        return Err(FrameError::TooLarge(ip_len));
    }
    let start = buf.len();
    ethernet_ipv4(buf, a, 6, ip_len as u16, ip_id);
    let tcp = buf.len();
    buf.extend_from_slice(&header.src_port.to_be_bytes());
    buf.extend_from_slice(&header.dst_port.to_be_bytes());
    buf.extend_from_slice(&header.seq.to_be_bytes());
    buf.extend_from_slice(&header.ack.to_be_bytes());
    buf.push((((TCP_HEADER + opts) / 4) as u8) << 4);
    buf.push(header.flags);
    buf.extend_from_slice(&header.window.to_be_bytes());
    buf.extend_from_slice(&[0, 0, 0, 0]); // checksum, urgent pointer
    buf.extend_from_slice(header.options);
    let mut sum = 0;
    pseudo_header(&mut sum, a, 6, tcp_len as u16);
    add(&mut sum, &buf[tcp..]);
    let c = fold(sum);
    buf[tcp + 16..tcp + 18].copy_from_slice(&c.to_be_bytes());
    finish(buf, start, payload_len, snaplen);
    Ok(ETH_HEADER + ip_len)
}

/// Append to `buf` the first `snaplen` bytes of an Ethernet frame holding an IPv4 UDP datagram
/// of `payload_len` zero bytes; returns the frame's full length.
pub fn udp_frame(
    buf: &mut Vec<u8>,
    a: &Addresses,
    ip_id: u16,
    src_port: u16,
    dst_port: u16,
    payload_len: usize,
    snaplen: usize,
) -> Result<usize, FrameError> {
    let udp_len = UDP_HEADER + payload_len;
    let ip_len = IPV4_HEADER + udp_len;
    if ip_len > 65_535 {
        return Err(FrameError::TooLarge(ip_len));
    }
    let start = buf.len();
    ethernet_ipv4(buf, a, 17, ip_len as u16, ip_id);
    let udp = buf.len();
    buf.extend_from_slice(&src_port.to_be_bytes());
    buf.extend_from_slice(&dst_port.to_be_bytes());
    buf.extend_from_slice(&(udp_len as u16).to_be_bytes());
    buf.extend_from_slice(&[0, 0]);
    let mut sum = 0;
    pseudo_header(&mut sum, a, 17, udp_len as u16);
    add(&mut sum, &buf[udp..]);
    let c = match fold(sum) {
        0 => 0xffff, // RFC 768: a computed 0 is sent as all ones
        c => c,
    };
    buf[udp + 6..udp + 8].copy_from_slice(&c.to_be_bytes());
    finish(buf, start, payload_len, snaplen);
    Ok(ETH_HEADER + ip_len)
}

/// Zero payload up to the snaplen, and the headers themselves cut to it.
fn finish(buf: &mut Vec<u8>, start: usize, payload_len: usize, snaplen: usize) {
    let headers = buf.len() - start;
    let keep = snaplen.saturating_sub(headers).min(payload_len);
    buf.resize(buf.len() + keep, 0);
    buf.truncate(start + snaplen.max(1).min(buf.len() - start));
}

/// Append RFC 2018 SACK blocks (at most 4; 3 beside other options) as `NOP NOP SACK` — 4 + 8n
/// bytes, a multiple of 4.
pub fn sack_option(options: &mut Vec<u8>, blocks: &[(u32, u32)]) {
    if blocks.is_empty() {
        return;
    }
    let blocks = &blocks[..blocks.len().min(4)];
    options.extend_from_slice(&[1, 1, 5, (2 + 8 * blocks.len()) as u8]);
    for (left, right) in blocks {
        options.extend_from_slice(&left.to_be_bytes());
        options.extend_from_slice(&right.to_be_bytes());
    }
}

/// Append NOPs up to `len` option bytes in all (rounded down to a multiple of 4, at most 40).
pub fn pad_options(options: &mut Vec<u8>, len: usize) {
    let target = (len.min(TCP_MAX_OPTIONS) / 4) * 4;
    while options.len() < target {
        options.push(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: Addresses = Addresses {
        src_mac: [2, 0, 0, 0, 0, 1],
        dst_mac: [2, 0, 0, 0, 0, 2],
        src_ip: [10, 0, 0, 1],
        dst_ip: [10, 0, 0, 2],
    };

    #[test]
    fn checksums_verify_over_the_whole_packet() {
        let mut opts = Vec::new();
        sack_option(&mut opts, &[(1000, 2000), (3000, 4000)]);
        assert_eq!(opts.len(), 20);
        let h = TcpHeader {
            src_port: 30000,
            dst_port: 5001,
            seq: 7,
            ack: 9,
            flags: ACK,
            window: 512,
            options: &opts,
        };
        let mut buf = Vec::new();
        let len = tcp_frame(&mut buf, &A, 1, &h, 1000, 65535).unwrap();
        assert_eq!(len, 14 + 20 + 40 + 1000);
        assert_eq!(buf.len(), len);
        assert_eq!(checksum(&buf[14..34]), 0, "IPv4 header checksum");
        // TCP: pseudo-header + segment sums to 0xffff.
        let mut sum = 0;
        pseudo_header(&mut sum, &A, 6, (len - 34) as u16);
        add(&mut sum, &buf[34..]);
        assert_eq!(fold(sum), 0);
        // Cut to a snaplen: same headers.
        let mut cut = Vec::new();
        assert_eq!(tcp_frame(&mut cut, &A, 1, &h, 1000, 96).unwrap(), len);
        assert_eq!(cut.len(), 96);
        assert_eq!(cut[..], buf[..96]);
    }

    #[test]
    fn udp_checksum_and_limits() {
        let mut buf = Vec::new();
        let len = udp_frame(&mut buf, &A, 3, 30000, 9, 972, 2000).unwrap();
        assert_eq!(len, 14 + 1000);
        let mut sum = 0;
        pseudo_header(&mut sum, &A, 17, 980);
        add(&mut sum, &buf[34..]);
        assert_eq!(fold(sum), 0);
        assert_eq!(udp_frame(&mut buf, &A, 3, 1, 2, 70_000, 10), Err(FrameError::TooLarge(70_028)));
        let bad = [1u8; 6];
        let h = TcpHeader { src_port: 1, dst_port: 2, seq: 0, ack: 0, flags: ACK, window: 0, options: &bad };
        assert_eq!(tcp_frame(&mut buf, &A, 0, &h, 0, 100), Err(FrameError::BadOptions(6)));
    }

    #[test]
    fn padding_rounds_to_words() {
        let mut o = Vec::new();
        pad_options(&mut o, 12);
        assert_eq!(o, vec![1; 12]);
        let mut o = Vec::new();
        pad_options(&mut o, 60);
        assert_eq!(o.len(), 40);
    }
}
