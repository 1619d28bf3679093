//! Record the kernel's per-ACK trace of one paced TCP connection over a lossy veth pair: how the
//! replay fixtures of `crates/simulator/tests/fixtures/` are made (their README).
//!
//! ```sh
//! cargo run --release -p westwood-linux --example record_ack_trace -- tcpw_abse OUT.csv \
//!     [--loss PCT] [--seconds S] [--rate-mbps R]
//! ```
//!
//! As root. Loads the congestion control if it is not registered (and unloads it again), creates
//! two namespaces joined by a veth pair with `PCT` % random loss on the data path (one segment
//! per packet), and runs one connection from its first ACK: the client socket gets
//! TCP_CONGESTION and SO_MAX_PACING_RATE (TCP's internal pacing, so ACKs come spaced as from a
//! link) before `connect`, writes 37 bytes (as iperf3's cookie), waits 20 ms, then writes for `S`
//! seconds and closes. Every ACK record of that connection goes to OUT in the format of
//! docs/ack-trace.md.

use std::io::{Read, Write};
use std::net::{SocketAddrV4, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd};
use std::path::Path;
use std::time::{Duration, Instant};

use westwood_linux::acks::{Converter, TraceSession};
use westwood_linux::loader::{self, Algo, LoadOptions};
use westwood_linux::netns::{NetnsPair, CLIENT_ADDR, SERVER_ADDR};
use westwood_linux::{Error, Result};
use westwood_trace::{AckTraceWriter, AtomicFile};

const PORT: u16 = 5299;

/// Run `f` on a thread that has joined the network namespace `ns` (a /run/netns name).
fn in_namespace<T: Send>(ns: &str, f: impl FnOnce() -> Result<T> + Send) -> Result<T> {
    let path = format!("/run/netns/{ns}");
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let file =
                    std::fs::File::open(&path).map_err(|e| Error::failed(format!("opening {path}"), e))?;
                if unsafe { libc::setns(file.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
                    return Err(Error::failed(format!("joining {path}"), std::io::Error::last_os_error()));
                }
                f()
            })
            .join()
            .unwrap_or_else(|_| Err(Error::Failed("namespace thread panicked".into())))
    })
}

fn set_option(fd: i32, level: i32, name: i32, value: &[u8]) -> Result<()> {
    let rc =
        unsafe { libc::setsockopt(fd, level, name, value.as_ptr().cast(), value.len() as libc::socklen_t) };
    if rc != 0 {
        return Err(Error::failed("setsockopt", std::io::Error::last_os_error()));
    }
    Ok(())
}

/// The client: a socket with the congestion control and pacing set before `connect`.
fn send(cc: &str, rate_bytes_per_s: u64, seconds: f64) -> Result<()> {
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_STREAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(Error::failed("socket", std::io::Error::last_os_error()));
    }
    let mut stream = unsafe { TcpStream::from_raw_fd(fd) };
    set_option(fd, libc::IPPROTO_TCP, libc::TCP_CONGESTION, cc.as_bytes())?;
    set_option(fd, libc::SOL_SOCKET, libc::SO_MAX_PACING_RATE, &rate_bytes_per_s.to_ne_bytes())?;
    let server: SocketAddrV4 = format!("{SERVER_ADDR}:{PORT}").parse().unwrap();
    let addr = libc::sockaddr_in {
        sin_family: libc::AF_INET as libc::sa_family_t,
        sin_port: server.port().to_be(),
        sin_addr: libc::in_addr { s_addr: u32::from(*server.ip()).to_be() },
        sin_zero: [0; 8],
    };
    let rc = unsafe {
        libc::connect(fd, (&addr as *const libc::sockaddr_in).cast(), std::mem::size_of_val(&addr) as u32)
    };
    if rc != 0 {
        return Err(Error::failed("connect", std::io::Error::last_os_error()));
    }
    stream.write_all(&[0x42; 37])?;
    std::thread::sleep(Duration::from_millis(20));
    let block = vec![0x5a; 64 * 1024];
    let end = Instant::now() + Duration::from_secs_f64(seconds);
    while Instant::now() < end {
        stream.write_all(&block)?;
    }
    stream.shutdown(std::net::Shutdown::Write)?;
    let mut rest = Vec::new();
    let _ = stream.read_to_end(&mut rest);
    Ok(())
}

/// Record the kernel's per-ACK trace of one transfer through a lossy veth pair.
#[derive(clap::Parser)]
struct Cli {
    /// One of the tcpw* congestion controls
    cc: String,
    /// The trace file (CSV, docs/ack-trace.md)
    out: String,
    /// Data packets lost at random, %
    #[arg(long, default_value_t = 1.0)]
    loss: f64,
    /// Transfer time, s
    #[arg(long, default_value_t = 1.0)]
    seconds: f64,
    /// The veth pair's rate, Mb/s
    #[arg(long, default_value_t = 100.0)]
    rate_mbps: f64,
}

fn run() -> Result<()> {
    let Cli { cc, out, loss, seconds, rate_mbps } =
        <Cli as clap::Parser>::try_parse().map_err(|e| Error::Usage(e.to_string()))?;
    let (cc, out) = (&cc, &out);
    let algo =
        Algo::from_name(cc).ok_or_else(|| Error::Usage(format!("{cc}: not one of the tcpw* controls")))?;
    let report = loader::load(&LoadOptions { algos: vec![algo], ..Default::default() })?;
    let result = record(cc, Path::new(out), loss, seconds, rate_mbps);
    if !report.loaded.is_empty() {
        loader::unload(&report.loaded)?;
    }
    result
}

fn record(cc: &str, out: &Path, loss: f64, seconds: f64, rate_mbps: f64) -> Result<()> {
    let pair = NetnsPair::create("record")?;
    pair.one_segment_per_packet()?;
    pair.add_loss(loss)?;
    let mut session = TraceSession::start()?;
    let listener = in_namespace(&pair.server, || Ok(TcpListener::bind(format!("{SERVER_ADDR}:{PORT}"))?))?;
    let sink = std::thread::spawn(move || -> std::io::Result<u64> {
        let (mut s, _) = listener.accept()?;
        let mut buf = vec![0u8; 1 << 16];
        let mut total = 0;
        loop {
            let n = s.read(&mut buf)?;
            if n == 0 {
                return Ok(total);
            }
            total += n as u64;
        }
    });
    let rate = (rate_mbps * 1e6 / 8.0) as u64;
    let client = pair.client.clone();
    let cc_name = cc.to_string();
    let sender = std::thread::spawn(move || in_namespace(&client, || send(&cc_name, rate, seconds)));

    let mut events = Vec::new();
    while !sender.is_finished() {
        events.extend(session.poll(Duration::from_millis(50))?);
    }
    sender.join().map_err(|_| Error::Failed("sender panicked".into()))??;
    let received = sink.join().map_err(|_| Error::Failed("sink panicked".into()))??;
    std::thread::sleep(Duration::from_millis(200));
    events.extend(session.poll(Duration::from_millis(50))?);
    let dropped = session.dropped()?;
    events.extend(session.finish()?);
    if dropped > 0 {
        return Err(Error::Failed(format!("{dropped} trace records lost: record again")));
    }

    let mut writer = AckTraceWriter::new(AtomicFile::create(out)?)?;
    let mut convert = Converter::new();
    let client_ip: std::net::IpAddr = CLIENT_ADDR.parse().unwrap();
    let mut rows = 0;
    for ev in events.iter().filter(|e| e.dport == PORT && e.src == client_ip) {
        writer.write(&convert.record(ev, &ev.flow_name()))?;
        rows += 1;
    }
    writer.into_inner().commit()?;
    eprintln!("{}: {rows} rows of {cc}, {received} bytes delivered, {loss} % loss", out.display());
    Ok(())
}

fn main() {
    westwood_linux::sig::install();
    if let Err(e) = run() {
        eprintln!("record_ack_trace: {e}");
        std::process::exit(e.exit_code());
    }
}
