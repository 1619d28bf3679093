//! Two network namespaces joined by a veth pair, child processes, and iperf3 — as RAII
//! guards that clean up on drop (also on an error or Ctrl-C), for `bench` and the tests.
//!
//! Traffic stays inside the namespaces: the addresses (10.199.0.1/24 and 10.199.0.2/24) exist
//! only on the veth ends inside them, and nothing routes out of them.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::{sig, Error, Result};

pub const CLIENT_ADDR: &str = "10.199.0.1";
pub const SERVER_ADDR: &str = "10.199.0.2";

/// A tool from $PATH or the sbin directories, or advice naming the Debian package.
pub fn tool(name: &str, package: &str) -> Result<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::env::var_os("PATH").map(|p| std::env::split_paths(&p).collect()).unwrap_or_default();
    dirs.extend(["/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/bin", "/bin"].map(PathBuf::from));
    dirs.into_iter()
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or_else(|| Error::Prereq(format!("`{name}` not found: install it (apt-get install {package})")))
}

/// Run a command to completion; an error carries its stderr.
pub fn run(cmd: &mut Command) -> Result<String> {
    let out = cmd.stdin(Stdio::null()).output().map_err(|e| Error::failed(format!("running {cmd:?}"), e))?;
    if !out.status.success() {
        return Err(Error::Failed(format!(
            "{cmd:?} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// Client and server namespaces, a veth between them, loopback up in both.
#[derive(Debug)]
pub struct NetnsPair {
    pub client: String,
    pub server: String,
    ip: PathBuf,
}

impl NetnsPair {
    /// Namespaces named `westwood-<tag>-<pid>-<n>-{c,s}`.
    pub fn create(tag: &str) -> Result<NetnsPair> {
        let ip = tool("ip", "iproute2")?;
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let base = format!("westwood-{tag}-{}-{n}", std::process::id());
        let pair = NetnsPair { client: format!("{base}-c"), server: format!("{base}-s"), ip };
        // From here on, Drop removes whatever was created.
        run(Command::new(&pair.ip).args(["netns", "add", &pair.client]))?;
        run(Command::new(&pair.ip).args(["netns", "add", &pair.server]))?;
        run(Command::new(&pair.ip).args([
            "link",
            "add",
            "wwc0",
            "netns",
            &pair.client,
            "type",
            "veth",
            "peer",
            "name",
            "wws0",
            "netns",
            &pair.server,
        ]))?;
        for (ns, dev, addr) in [(&pair.client, "wwc0", CLIENT_ADDR), (&pair.server, "wws0", SERVER_ADDR)] {
            run(Command::new(&pair.ip).args(["-n", ns, "addr", "add", &format!("{addr}/24"), "dev", dev]))?;
            run(Command::new(&pair.ip).args(["-n", ns, "link", "set", dev, "up"]))?;
            run(Command::new(&pair.ip).args(["-n", ns, "link", "set", "lo", "up"]))?;
        }
        Ok(pair)
    }

    /// `ip netns exec NS program args...`
    pub fn command(&self, ns: &str, program: &std::path::Path) -> Command {
        let mut c = Command::new(&self.ip);
        c.args(["netns", "exec", ns]).arg(program);
        c
    }

    /// Drop each client -> server packet with probability `percent` / 100 (Bernoulli), with
    /// kernel/lossy.bpf.c on the ingress of the server's veth end. The client's end sends
    /// one MSS per packet (gso_max_segs 1), so one drop loses one segment. The tc filter
    /// goes away with the namespace.
    pub fn add_loss(&self, percent: f64) -> Result<()> {
        if !(0.0..=100.0).contains(&percent) {
            return Err(Error::Usage(format!("loss {percent}% is not in [0, 100]")));
        }
        let per_million = (percent * 1e4).round() as u32;
        self.one_segment_per_packet()?;
        let ns_path = format!("/run/netns/{}", self.server);
        std::thread::scope(|scope| {
            scope
                .spawn(|| attach_loss_in(&ns_path, "wws0", per_million))
                .join()
                .unwrap_or_else(|_| Err(Error::Failed("loss attach thread panicked".into())))
        })
    }

    /// The client's end sends one MSS per packet (gso_max_segs 1), so the server sees (and
    /// ACKs) segments as a real link would deliver them; veth does no GRO by default.
    pub fn one_segment_per_packet(&self) -> Result<()> {
        run(Command::new(&self.ip).args([
            "-n",
            &self.client,
            "link",
            "set",
            "dev",
            "wwc0",
            "gso_max_segs",
            "1",
        ]))
        .map(drop)
    }

    fn kill_pids(&self, ns: &str) {
        if let Ok(out) = Command::new(&self.ip).args(["netns", "pids", ns]).stderr(Stdio::null()).output() {
            for pid in
                String::from_utf8_lossy(&out.stdout).split_whitespace().filter_map(|p| p.parse::<i32>().ok())
            {
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

impl Drop for NetnsPair {
    fn drop(&mut self) {
        for ns in [self.client.clone(), self.server.clone()] {
            self.kill_pids(&ns);
            // Deleting a namespace destroys the veth end in it (and so the pair).
            let _ = Command::new(&self.ip).args(["netns", "del", &ns]).stderr(Stdio::null()).status();
        }
    }
}

/// On a thread of its own: enter the namespace at `ns_path` (setns affects only the calling
/// thread), load kernel/lossy.bpf.c and attach it to the ingress of `dev`.
fn attach_loss_in(ns_path: &str, dev: &str, per_million: u32) -> Result<()> {
    use libbpf_rs::skel::{OpenSkel, SkelBuilder};
    use libbpf_rs::{TcHookBuilder, TC_INGRESS};
    use std::os::fd::AsFd;
    use std::os::fd::AsRawFd;

    let ns = std::fs::File::open(ns_path).map_err(|e| Error::failed(format!("opening {ns_path}"), e))?;
    if unsafe { libc::setns(ns.as_raw_fd(), libc::CLONE_NEWNET) } != 0 {
        return Err(Error::failed(format!("setns {ns_path}"), std::io::Error::last_os_error()));
    }
    let cdev = std::ffi::CString::new(dev).unwrap();
    let ifindex = unsafe { libc::if_nametoindex(cdev.as_ptr()) };
    if ifindex == 0 {
        return Err(Error::Failed(format!("no device {dev} in {ns_path}")));
    }
    let mut object = std::mem::MaybeUninit::uninit();
    let mut open = crate::lossy_skel::LossySkelBuilder::default()
        .open(&mut object)
        .map_err(|e| Error::failed("opening lossy.bpf.o", e))?;
    if let Some(rodata) = open.maps.rodata_data.as_deref_mut() {
        rodata.drop_per_million = per_million;
    }
    let skel = open.load().map_err(|e| Error::failed("loading lossy.bpf.o", e))?;
    let mut builder = TcHookBuilder::new(skel.progs.lossy.as_fd());
    builder.ifindex(ifindex as i32).replace(true).handle(1).priority(1);
    let mut hook = builder.hook(TC_INGRESS);
    hook.create().map_err(|e| Error::failed(format!("creating the clsact qdisc on {dev}"), e))?;
    hook.attach().map_err(|e| Error::failed(format!("attaching the loss filter to {dev}"), e))?;
    Ok(())
}

/// A child process killed (SIGTERM, then SIGKILL after 1 s) and reaped on drop.
#[derive(Debug)]
pub struct ChildGuard(pub Option<Child>);

impl ChildGuard {
    pub fn spawn(cmd: &mut Command) -> Result<ChildGuard> {
        let child = cmd.spawn().map_err(|e| Error::failed(format!("starting {cmd:?}"), e))?;
        Ok(ChildGuard(Some(child)))
    }

    pub fn child(&mut self) -> &mut Child {
        self.0.as_mut().expect("child")
    }

    /// Wait for exit, polling so Ctrl-C or a timeout can stop it.
    pub fn wait_timeout(&mut self, timeout: Duration) -> Result<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(st) = self.child().try_wait()? {
                return Ok(st);
            }
            if sig::interrupted() {
                return Err(Error::Interrupted);
            }
            if Instant::now() > deadline {
                return Err(Error::Failed(format!("child process {} timed out", self.child().id())));
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            if let Ok(None) = child.try_wait() {
                unsafe {
                    libc::kill(child.id() as i32, libc::SIGTERM);
                }
                let deadline = Instant::now() + Duration::from_secs(1);
                while Instant::now() < deadline {
                    if let Ok(Some(_)) = child.try_wait() {
                        return;
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                let _ = child.kill();
            }
            let _ = child.wait();
        }
    }
}

/// What an iperf3 client reports (`-J`).
#[derive(Debug, Clone, PartialEq)]
pub struct Iperf3Result {
    pub congestion: String,
    pub sent_bytes: u64,
    pub received_bytes: u64,
    pub sent_bps: f64,
    pub received_bps: f64,
    pub retransmits: u64,
    pub seconds: f64,
}

pub fn parse_iperf3_json(text: &str) -> Result<Iperf3Result> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| Error::failed("iperf3 -J output is not JSON", e))?;
    if let Some(err) = v.get("error").and_then(|e| e.as_str()) {
        return Err(Error::Failed(format!("iperf3: {err}")));
    }
    let end = &v["end"];
    let num = |p: &serde_json::Value| p.as_f64().unwrap_or(0.0);
    Ok(Iperf3Result {
        congestion: end["sender_tcp_congestion"].as_str().unwrap_or("").to_string(),
        sent_bytes: num(&end["sum_sent"]["bytes"]) as u64,
        received_bytes: num(&end["sum_received"]["bytes"]) as u64,
        sent_bps: num(&end["sum_sent"]["bits_per_second"]),
        received_bps: num(&end["sum_received"]["bits_per_second"]),
        retransmits: num(&end["sum_sent"]["retransmits"]) as u64,
        seconds: num(&end["sum_received"]["seconds"]),
    })
}

/// An iperf3 server in the server namespace, listening on SERVER_ADDR:port.
pub fn start_iperf3_server(pair: &NetnsPair, port: u16) -> Result<ChildGuard> {
    let iperf3 = tool("iperf3", "iperf3")?;
    let mut guard = ChildGuard::spawn(
        pair.command(&pair.server, &iperf3)
            .args(["-s", "-B", SERVER_ADDR, "-p", &port.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null()),
    )?;
    let ss = tool("ss", "iproute2")?;
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        if let Some(st) = guard.child().try_wait()? {
            return Err(Error::Failed(format!("iperf3 server exited at once ({st})")));
        }
        let out = run(pair.command(&pair.server, &ss).args(["-Hltn", &format!("sport = :{port}")]))?;
        if !out.trim().is_empty() {
            return Ok(guard);
        }
        if Instant::now() > deadline {
            return Err(Error::Failed("iperf3 server not listening after 5 s".into()));
        }
        sig::sleep(Duration::from_millis(20))?;
    }
}

/// Start an iperf3 client (client namespace -> SERVER_ADDR:port) with congestion control
/// `cc` for `seconds`; [`Iperf3Client::finish`] waits and parses its JSON.
pub struct Iperf3Client {
    guard: ChildGuard,
    reader: Option<std::thread::JoinHandle<String>>,
    seconds: u32,
}

/// CPUs for the iperf3 client and server (`iperf3 -A c,s`) when there are at least two:
/// a sender that migrates between CPUs puts its packets into two per-CPU veth backlogs, and
/// the receiver sees them reordered (spurious fast retransmits), so `bench` pins them.
pub fn split_affinity() -> Option<(usize, usize)> {
    let n = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    (n >= 2).then_some((0, 1))
}

impl Iperf3Client {
    pub fn start(pair: &NetnsPair, port: u16, cc: &str, seconds: u32) -> Result<Iperf3Client> {
        Self::start_pinned(pair, port, cc, seconds, None)
    }

    /// With `affinity = Some((c, s))` the client runs on CPU c and asks the server to run on s.
    pub fn start_pinned(
        pair: &NetnsPair,
        port: u16,
        cc: &str,
        seconds: u32,
        affinity: Option<(usize, usize)>,
    ) -> Result<Iperf3Client> {
        Self::start_with(pair, port, cc, seconds, affinity, &[])
    }

    /// [`Iperf3Client::start_pinned`] with more iperf3 client options (e.g. `-b 200M`).
    pub fn start_with(
        pair: &NetnsPair,
        port: u16,
        cc: &str,
        seconds: u32,
        affinity: Option<(usize, usize)>,
        extra: &[&str],
    ) -> Result<Iperf3Client> {
        let iperf3 = tool("iperf3", "iperf3")?;
        let mut cmd = pair.command(&pair.client, &iperf3);
        let (port, seconds_s) = (port.to_string(), seconds.to_string());
        cmd.args(["-c", SERVER_ADDR, "-p", &port, "-t", &seconds_s, "-C", cc, "-J"]);
        if let Some((c, s)) = affinity {
            cmd.args(["-A", &format!("{c},{s}")]);
        }
        cmd.args(extra);
        let mut guard =
            ChildGuard::spawn(cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::null()))?;
        let mut stdout = guard.child().stdout.take().expect("piped stdout");
        let reader = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stdout, &mut s);
            s
        });
        Ok(Iperf3Client { guard, reader: Some(reader), seconds })
    }

    pub fn finish(mut self) -> Result<Iperf3Result> {
        let status = self.guard.wait_timeout(Duration::from_secs(self.seconds as u64 + 20))?;
        let text = self.reader.take().map(|h| h.join().unwrap_or_default()).unwrap_or_default();
        let parsed = parse_iperf3_json(&text);
        if !status.success() {
            return Err(match parsed {
                Err(e) => e,
                Ok(_) => Error::Failed(format!("iperf3 client failed ({status})")),
            });
        }
        parsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_iperf3_json() {
        let text = r#"{"start":{},"intervals":[],"end":{
            "sum_sent":{"start":0,"end":5.0,"seconds":5.0,"bytes":1000000,"bits_per_second":1600000.0,"retransmits":3},
            "sum_received":{"start":0,"end":5.0,"seconds":5.0,"bytes":1000000,"bits_per_second":1600000.0},
            "sender_tcp_congestion":"tcpw","receiver_tcp_congestion":"tcpw"}}"#;
        let r = parse_iperf3_json(text).unwrap();
        assert_eq!(r.congestion, "tcpw");
        assert_eq!((r.sent_bytes, r.received_bytes, r.retransmits), (1_000_000, 1_000_000, 3));
        assert!(parse_iperf3_json(r#"{"error":"unable to connect"}"#).is_err());
        assert!(parse_iperf3_json("nope").is_err());
    }
}
