//! AF_PACKET sockets bound to one interface: the emulator's ports.
//!
//! Each frame is read and written with a `virtio_net_hdr` in front (PACKET_VNET_HDR). That
//! header carries the kernel's checksum-offload state: a TCP segment sent by a namespace's
//! stack over a veth has its checksum still to be computed (CHECKSUM_PARTIAL); handing the
//! header back on transmit keeps that state, so the receiver's stack accepts the segment
//! without anyone computing checksums in user space. It also tells a GSO super-packet
//! (several segments in one frame) apart: the testbed turns GSO off on the endpoints
//! (`gso_max_segs 1`), and the emulator counts any that arrive anyway.
//!
//! Frames the socket itself sends are not read back (PACKET_IGNORE_OUTGOING), and transmits
//! skip the qdisc layer (PACKET_QDISC_BYPASS): the emulator is the only queue on the path.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

const PACKET_STATISTICS: libc::c_int = 6;
const PACKET_VNET_HDR: libc::c_int = 15;
const PACKET_QDISC_BYPASS: libc::c_int = 20;
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;

/// Bytes of the virtio_net_hdr in front of every frame.
pub const VNET_HDR_LEN: usize = 10;
/// Ethernet header.
pub const ETH_HLEN: usize = 14;

/// One AF_PACKET socket, non-blocking, bound to an interface.
pub struct PacketSocket {
    fd: OwnedFd,
    pub ifname: String,
}

fn setopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, value: &T) -> io::Result<()> {
    let r = unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            value as *const T as *const libc::c_void,
            std::mem::size_of::<T>() as libc::socklen_t,
        )
    };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

impl PacketSocket {
    /// Open and bind to `ifname` (in the calling thread's network namespace). `buffer` sets
    /// SO_RCVBUF and SO_SNDBUF (forced past the sysctl limits; needs CAP_NET_ADMIN).
    pub fn open(ifname: &str, buffer: usize) -> io::Result<PacketSocket> {
        let cname = std::ffi::CString::new(ifname).map_err(|_| io::Error::other("bad interface name"))?;
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) };
        if ifindex == 0 {
            return Err(io::Error::other(format!("no interface {ifname}")));
        }
        // Protocol 0 receives nothing until bound: no frames of other interfaces sneak in.
        let raw = unsafe {
            libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC, 0)
        };
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let one: libc::c_int = 1;
        setopt(raw, libc::SOL_PACKET, PACKET_VNET_HDR, &one)?;
        setopt(raw, libc::SOL_PACKET, PACKET_IGNORE_OUTGOING, &one)?;
        setopt(raw, libc::SOL_PACKET, PACKET_QDISC_BYPASS, &one)?;
        let size = buffer as libc::c_int;
        setopt(raw, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &size)
            .or_else(|_| setopt(raw, libc::SOL_SOCKET, libc::SO_RCVBUF, &size))?;
        setopt(raw, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, &size)
            .or_else(|_| setopt(raw, libc::SOL_SOCKET, libc::SO_SNDBUF, &size))?;
        let mut addr: libc::sockaddr_ll = unsafe { std::mem::zeroed() };
        addr.sll_family = libc::AF_PACKET as u16;
        addr.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        addr.sll_ifindex = ifindex as i32;
        let r = unsafe {
            libc::bind(
                raw,
                &addr as *const libc::sockaddr_ll as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        };
        if r < 0 {
            return Err(io::Error::last_os_error());
        }
        let sock = PacketSocket { fd, ifname: ifname.to_string() };
        sock.statistics(); // reset the counters
        Ok(sock)
    }

    /// Read one frame (vnet header included) into `buf`; `None` when nothing is waiting.
    pub fn recv(&self, buf: &mut [u8]) -> io::Result<Option<usize>> {
        let n =
            unsafe { libc::recv(self.fd.as_raw_fd(), buf.as_mut_ptr() as *mut libc::c_void, buf.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock => Ok(None),
                io::ErrorKind::Interrupted => Ok(None),
                _ => Err(e),
            };
        }
        Ok(Some(n as usize))
    }

    /// Transmit one frame (vnet header included).
    pub fn send(&self, frame: &[u8]) -> io::Result<()> {
        let n =
            unsafe { libc::send(self.fd.as_raw_fd(), frame.as_ptr() as *const libc::c_void, frame.len(), 0) };
        if n < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// (frames received, frames dropped for want of socket buffer) since the last call.
    pub fn statistics(&self) -> (u64, u64) {
        let mut stats = [0u32; 2];
        let mut len = std::mem::size_of_val(&stats) as libc::socklen_t;
        let r = unsafe {
            libc::getsockopt(
                self.fd.as_raw_fd(),
                libc::SOL_PACKET,
                PACKET_STATISTICS,
                stats.as_mut_ptr() as *mut libc::c_void,
                &mut len,
            )
        };
        if r < 0 {
            return (0, 0);
        }
        (u64::from(stats[0]), u64::from(stats[1]))
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }
}

/// What the emulator needs from a frame (vnet header first).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameInfo {
    /// IPv4 destination address (`None`: not IPv4 — ARP, IPv6...).
    pub dst: Option<[u8; 4]>,
    /// Bytes a link serialises: the IP packet (the Ethernet header is not counted), or for
    /// other frames everything after the Ethernet header.
    pub ip_len: u32,
    /// A GSO super-packet (several segments in one frame).
    pub gso: bool,
}

/// Parse vnet header + Ethernet (+ IPv4); `None` for a runt.
pub fn parse(frame: &[u8]) -> Option<FrameInfo> {
    if frame.len() < VNET_HDR_LEN + ETH_HLEN {
        return None;
    }
    let gso = frame[1] != 0; // virtio_net_hdr.gso_type
    let eth = &frame[VNET_HDR_LEN..];
    let payload = &eth[ETH_HLEN..];
    let on_wire = payload.len() as u32;
    if eth[12..14] != [0x08, 0x00] || payload.len() < 20 || payload[0] >> 4 != 4 {
        return Some(FrameInfo { dst: None, ip_len: on_wire.max(1), gso });
    }
    let ip = payload;
    let total = u32::from(u16::from_be_bytes([ip[2], ip[3]]));
    // A GSO frame may carry 0 or a stale total length: count what is there.
    let ip_len = if total == 0 || total > on_wire || gso { on_wire } else { total };
    Some(FrameInfo { dst: Some([ip[16], ip[17], ip[18], ip[19]]), ip_len, gso })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ipv4_behind_the_vnet_and_ethernet_headers() {
        let mut f = vec![0u8; VNET_HDR_LEN + ETH_HLEN + 440];
        f[VNET_HDR_LEN + 12] = 0x08;
        let ip = VNET_HDR_LEN + ETH_HLEN;
        f[ip] = 0x45;
        f[ip + 2..ip + 4].copy_from_slice(&440u16.to_be_bytes());
        f[ip + 16..ip + 20].copy_from_slice(&[10, 201, 2, 1]);
        assert_eq!(parse(&f), Some(FrameInfo { dst: Some([10, 201, 2, 1]), ip_len: 440, gso: false }));
        f[1] = 1; // gso_type TCPV4
        assert!(parse(&f).unwrap().gso);
        f[VNET_HDR_LEN + 12] = 0x86; // IPv6 / ARP: no IPv4 destination, sized as they come
        assert_eq!(parse(&f), Some(FrameInfo { dst: None, ip_len: 440, gso: true }));
        assert_eq!(parse(&f[..20]), None);
    }
}
