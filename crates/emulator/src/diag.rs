//! TCP_INFO of every TCP socket of a namespace through netlink (NETLINK_SOCK_DIAG /
//! INET_DIAG, what `ss -ti` uses), without starting a process per sample.
//!
//! A netlink socket belongs to the namespace it was created in: [`DiagSocket::open_in`]
//! creates it on a thread that has entered the namespace; it then answers for that namespace
//! from any thread.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

const SOCK_DIAG_BY_FAMILY: u16 = 20;
const INET_DIAG_INFO: u16 = 2;
const INET_DIAG_CONG: u16 = 4;
const NLMSG_ERROR: u16 = 2;
const NLMSG_DONE: u16 = 3;

/// What we keep of one socket's `struct tcp_info` (linux/tcp.h) and inet_diag_msg.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TcpInfo {
    pub state: u8,
    pub src: [u8; 4],
    pub sport: u16,
    pub dst: [u8; 4],
    pub dport: u16,
    /// Congestion control name (INET_DIAG_CONG).
    pub cc: String,
    pub ca_state: u8,
    pub snd_mss: u32,
    pub unacked: u32,
    pub rtt_us: u32,
    pub rttvar_us: u32,
    /// Segments; 0x7fffffff (TCP_INFINITE_SSTHRESH) until the first loss.
    pub snd_ssthresh: u32,
    pub snd_cwnd: u32,
    pub total_retrans: u32,
    /// Data bytes acknowledged (the kernel's count minus the SYN).
    pub bytes_acked: u64,
    pub bytes_received: u64,
    pub segs_out: u32,
    pub min_rtt_us: u32,
    pub data_segs_out: u32,
    /// Bytes per second.
    pub delivery_rate: u64,
    pub bytes_sent: u64,
    pub bytes_retrans: u64,
    /// RTO expirations (Linux 6.7+; 0 before).
    pub total_rto: u16,
    /// Whether the kernel's tcp_info was long enough to hold `total_rto`.
    pub has_total_rto: bool,
}

pub const INFINITE_SSTHRESH: u32 = 0x7fff_ffff;

fn u16_at(b: &[u8], off: usize) -> u16 {
    b.get(off..off + 2).map_or(0, |s| u16::from_ne_bytes([s[0], s[1]]))
}
fn u32_at(b: &[u8], off: usize) -> u32 {
    b.get(off..off + 4).map_or(0, |s| u32::from_ne_bytes(s.try_into().unwrap()))
}
fn u64_at(b: &[u8], off: usize) -> u64 {
    b.get(off..off + 8).map_or(0, |s| u64::from_ne_bytes(s.try_into().unwrap()))
}

/// Decode the fields we use from a `struct tcp_info` of `b.len()` bytes (shorter structs from
/// older kernels leave the later fields 0).
pub fn parse_tcp_info(b: &[u8], info: &mut TcpInfo) {
    info.ca_state = b.get(1).copied().unwrap_or(0);
    info.snd_mss = u32_at(b, 16);
    info.unacked = u32_at(b, 24);
    info.rtt_us = u32_at(b, 68);
    info.rttvar_us = u32_at(b, 72);
    info.snd_ssthresh = u32_at(b, 76);
    info.snd_cwnd = u32_at(b, 80);
    info.total_retrans = u32_at(b, 100);
    // The kernel counts the SYN in bytes_acked: data only.
    info.bytes_acked = u64_at(b, 120).saturating_sub(1);
    info.bytes_received = u64_at(b, 128);
    info.segs_out = u32_at(b, 136);
    info.min_rtt_us = u32_at(b, 148);
    info.data_segs_out = u32_at(b, 156);
    info.delivery_rate = u64_at(b, 160);
    info.bytes_sent = u64_at(b, 200);
    info.bytes_retrans = u64_at(b, 208);
    info.total_rto = u16_at(b, 240);
    info.has_total_rto = b.len() >= 242;
}

/// A NETLINK_SOCK_DIAG socket bound to one network namespace.
pub struct DiagSocket {
    fd: OwnedFd,
    buf: Vec<u8>,
}

impl DiagSocket {
    /// In the calling thread's namespace.
    pub fn open() -> io::Result<DiagSocket> {
        let fd = unsafe {
            libc::socket(libc::AF_NETLINK, libc::SOCK_RAW | libc::SOCK_CLOEXEC, libc::NETLINK_SOCK_DIAG)
        };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let tv = libc::timeval { tv_sec: 1, tv_usec: 0 };
        unsafe {
            libc::setsockopt(
                fd.as_raw_fd(),
                libc::SOL_SOCKET,
                libc::SO_RCVTIMEO,
                &tv as *const libc::timeval as *const libc::c_void,
                std::mem::size_of::<libc::timeval>() as libc::socklen_t,
            )
        };
        Ok(DiagSocket { fd, buf: vec![0; 256 * 1024] })
    }

    /// In the namespace at `ns_path`.
    pub fn open_in(ns_path: &str) -> crate::error::Result<DiagSocket> {
        crate::netns::in_netns(ns_path, || {
            DiagSocket::open().map_err(|e| crate::error::Error::failed("netlink sock_diag socket", e))
        })
    }

    /// Every IPv4 TCP socket (all states) with its tcp_info.
    pub fn dump(&mut self) -> io::Result<Vec<TcpInfo>> {
        // nlmsghdr (16) + inet_diag_req_v2 (56).
        let mut req = [0u8; 72];
        req[0..4].copy_from_slice(&72u32.to_ne_bytes());
        req[4..6].copy_from_slice(&SOCK_DIAG_BY_FAMILY.to_ne_bytes());
        let flags = (libc::NLM_F_REQUEST | libc::NLM_F_DUMP) as u16;
        req[6..8].copy_from_slice(&flags.to_ne_bytes());
        req[8..12].copy_from_slice(&1u32.to_ne_bytes());
        req[16] = libc::AF_INET as u8;
        req[17] = libc::IPPROTO_TCP as u8;
        req[18] = ((1u32 << (INET_DIAG_INFO - 1)) | (1u32 << (INET_DIAG_CONG - 1))) as u8;
        req[20..24].copy_from_slice(&u32::MAX.to_ne_bytes()); // idiag_states: all
        let mut addr: libc::sockaddr_nl = unsafe { std::mem::zeroed() };
        addr.nl_family = libc::AF_NETLINK as u16;
        let sent = unsafe {
            libc::sendto(
                self.fd.as_raw_fd(),
                req.as_ptr() as *const libc::c_void,
                req.len(),
                0,
                &addr as *const libc::sockaddr_nl as *const libc::sockaddr,
                std::mem::size_of::<libc::sockaddr_nl>() as libc::socklen_t,
            )
        };
        if sent < 0 {
            return Err(io::Error::last_os_error());
        }
        let mut out = Vec::new();
        loop {
            let n = unsafe {
                libc::recv(self.fd.as_raw_fd(), self.buf.as_mut_ptr() as *mut libc::c_void, self.buf.len(), 0)
            };
            if n < 0 {
                return Err(io::Error::last_os_error());
            }
            let data = &self.buf[..n as usize];
            let mut off = 0;
            while off + 16 <= data.len() {
                let len = u32_at(data, off) as usize;
                let kind = u16_at(data, off + 4);
                if len < 16 || off + len > data.len() {
                    break;
                }
                match kind {
                    NLMSG_DONE => return Ok(out),
                    NLMSG_ERROR => {
                        let errno = -(u32_at(data, off + 16) as i32);
                        return Err(io::Error::from_raw_os_error(errno));
                    }
                    SOCK_DIAG_BY_FAMILY => out.push(parse_msg(&data[off + 16..off + len])),
                    _ => {}
                }
                off += (len + 3) & !3;
            }
        }
    }
}

/// inet_diag_msg (72 bytes) followed by attributes.
fn parse_msg(m: &[u8]) -> TcpInfo {
    let mut info = TcpInfo { state: m.get(1).copied().unwrap_or(0), ..Default::default() };
    if m.len() < 72 {
        return info;
    }
    info.sport = u16::from_be_bytes([m[4], m[5]]);
    info.dport = u16::from_be_bytes([m[6], m[7]]);
    info.src.copy_from_slice(&m[8..12]);
    info.dst.copy_from_slice(&m[24..28]);
    let mut off = 72;
    while off + 4 <= m.len() {
        let len = u16_at(m, off) as usize;
        let kind = u16_at(m, off + 2);
        if len < 4 || off + len > m.len() {
            break;
        }
        let payload = &m[off + 4..off + len];
        match kind {
            INET_DIAG_INFO => parse_tcp_info(payload, &mut info),
            INET_DIAG_CONG => {
                info.cc = String::from_utf8_lossy(payload).trim_end_matches('\0').to_string();
            }
            _ => {}
        }
        off += (len + 3) & !3;
    }
    info
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tcp_info_fields_at_their_offsets() {
        let mut b = vec![0u8; 248];
        b[1] = 4; // TCP_CA_Loss
        b[16..20].copy_from_slice(&400u32.to_ne_bytes());
        b[68..72].copy_from_slice(&91_000u32.to_ne_bytes());
        b[76..80].copy_from_slice(&INFINITE_SSTHRESH.to_ne_bytes());
        b[80..84].copy_from_slice(&10u32.to_ne_bytes());
        b[120..128].copy_from_slice(&123_456u64.to_ne_bytes());
        b[240..242].copy_from_slice(&3u16.to_ne_bytes());
        let mut info = TcpInfo::default();
        parse_tcp_info(&b, &mut info);
        assert_eq!((info.ca_state, info.snd_mss, info.rtt_us, info.snd_cwnd), (4, 400, 91_000, 10));
        assert_eq!((info.snd_ssthresh, info.bytes_acked, info.total_rto), (INFINITE_SSTHRESH, 123_455, 3));
        assert!(info.has_total_rto);
        let mut short = TcpInfo::default();
        parse_tcp_info(&b[..104], &mut short);
        assert_eq!((short.snd_cwnd, short.bytes_acked, short.has_total_rto), (10, 0, false));
    }

    #[test]
    fn dumps_the_sockets_of_this_namespace() {
        // Loopback: a listener and a connection must show up with their ports (no privileges).
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let client = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let (_server, _) = listener.accept().unwrap();
        let sport = client.local_addr().unwrap().port();
        let mut diag = DiagSocket::open().unwrap();
        let all = diag.dump().unwrap();
        let c = all.iter().find(|i| i.sport == sport && i.dport == port).expect("the client socket");
        assert_eq!(c.state, 1, "ESTABLISHED");
        assert_eq!(c.dst, [127, 0, 0, 1]);
        assert!(c.snd_cwnd > 0 && c.snd_mss > 0 && !c.cc.is_empty(), "{c:?}");
        assert!(all.iter().any(|i| i.sport == port && i.state == 10), "the listener");
    }
}
