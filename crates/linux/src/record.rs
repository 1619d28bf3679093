//! Reading the kernel's fixed-layout records (kernel/tcpw_watch.bpf.h): native-endian integers
//! at byte offsets and the socket addresses, shared by `watch` (the iterator's records) and
//! `acks` (the ring buffer's per-ACK events).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// `AF_INET6`: the address family whose addresses take 16 bytes.
pub(crate) const AF_INET6: u16 = 10;

pub(crate) fn u16_at(b: &[u8], o: usize) -> u16 {
    u16::from_ne_bytes([b[o], b[o + 1]])
}

pub(crate) fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_ne_bytes(b[o..o + 4].try_into().unwrap())
}

pub(crate) fn u64_at(b: &[u8], o: usize) -> u64 {
    u64::from_ne_bytes(b[o..o + 8].try_into().unwrap())
}

/// The address at offset `o`: 16 bytes for `AF_INET6` (an IPv4-mapped one as IPv4), else the
/// first 4 bytes.
pub(crate) fn addr_at(b: &[u8], o: usize, family: u16) -> IpAddr {
    if family == AF_INET6 {
        let a: [u8; 16] = b[o..o + 16].try_into().unwrap();
        let v6 = Ipv6Addr::from(a);
        v6.to_ipv4_mapped().map_or(IpAddr::V6(v6), IpAddr::V4)
    } else {
        IpAddr::V4(Ipv4Addr::new(b[o], b[o + 1], b[o + 2], b[o + 3]))
    }
}
