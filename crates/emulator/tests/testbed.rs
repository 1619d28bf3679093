//! The testbed and the emulator in real network namespaces (root; about 45 s in all).
//!
//! Without root these tests print `SKIPPED: <reason>` and pass. They run one at a time (a
//! mutex), and each checks that what it created is gone afterwards.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use westwood_emulator::netns;
use westwood_emulator::plan;
use westwood_emulator::process::{self, Owner};
use westwood_emulator::selftest;
use westwood_emulator::testbed;

static LOCK: Mutex<()> = Mutex::new(());

fn skip_reason() -> Option<String> {
    if unsafe { libc::geteuid() } != 0 {
        return Some("not root (the testbed creates network namespaces)".into());
    }
    if !Path::new("/proc/self/ns/net").exists() {
        return Some("the kernel has no network namespaces".into());
    }
    None
}

macro_rules! require_root {
    () => {
        if let Some(reason) = skip_reason() {
            println!("SKIPPED: {reason}");
            return;
        }
    };
}

/// 10 Mb/s, 20 ms each way, BDP queue, 1 % Bernoulli loss in both directions, one bulk flow.
const PATH_10M: &str = r#"
[scenario]
name = "path10m"
duration = "5s"
seed = 3

[parameters]
cc = "reno"

[topology]
nodes = ["a", "b"]

[links.path]
from = "a"
to = "b"
rate = "10Mbps"
delay = "20ms"
queue = "bdp"
errors = { model = "bernoulli", rate = "1%", direction = "both" }

[tcp]
cc = "${cc}"
segment_size = "1460B"
header_size = "40B"

[flows.bulk]
from = "a"
to = "b"
"#;

/// A scenario file in a temporary directory, removed on drop.
struct ScenarioFile(PathBuf);

impl ScenarioFile {
    fn new(name: &str, text: &str) -> ScenarioFile {
        let dir = std::env::temp_dir().join(format!("westwood-emu-tests-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        ScenarioFile(path)
    }
}

impl Drop for ScenarioFile {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// Namespaces of this process (none may be left after a run).
fn ours() -> Vec<String> {
    let prefix = format!("{}{}-", netns::PREFIX, std::process::id());
    netns::existing().into_iter().filter(|n| n.starts_with(&prefix)).collect()
}

fn bpf_registered(name: &str) -> bool {
    westwood_linux::prereq::is_registered(name)
}

/// iperf3 processes this test process started that still exist (zombies included).
fn stray_iperf3() -> Vec<i32> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let comm = stat.split(['(', ')']).nth(1).unwrap_or("");
        let ppid = stat.rsplit(')').next().and_then(|r| r.split_whitespace().nth(1)).unwrap_or("");
        if comm == "iperf3" && ppid == me {
            found.push(pid);
        }
    }
    found
}

#[test]
fn kernel_tcp_over_a_lossy_10_mbps_path_for_reno_cubic_tcpw_and_tcpw_abse() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    let file = ScenarioFile::new("path10m.toml", PATH_10M);
    let path = file.0.clone();
    let before: Vec<bool> = ["tcpw", "tcpw_abse"].iter().map(|c| bpf_registered(c)).collect();
    let started = Instant::now();
    let trace_dir = std::env::temp_dir().join(format!("westwood-testbed-trace-{}", std::process::id()));
    std::fs::create_dir_all(&trace_dir).unwrap();
    for cc in ["reno", "cubic", "tcpw", "tcpw_abse"] {
        let opts = testbed::Options { scenario: path.clone(), ..Default::default() };
        let (scenario, _) = testbed::load_scenario(&opts, Some(cc)).unwrap();
        let plan = plan::plan(&scenario, Some(cc)).unwrap();
        let run_started = Instant::now();
        let trace = trace_dir.join(format!("{cc}.csv"));
        let run = testbed::run_once(&plan, 100_000_000, opts.fifo, cc, Some(&trace))
            .unwrap_or_else(|e| panic!("{cc}: {e}"));
        let took = run_started.elapsed();
        assert!(took < Duration::from_secs(20), "{cc}: the run took {took:?}");

        // Data integrity: iperf3's byte counts on both ends agree within the socket buffers.
        let integrity = &run.integrity[0];
        assert!(integrity.ok, "{cc}: {integrity:?}");
        assert!(integrity.received_bytes > 0 && integrity.sent_bytes >= integrity.received_bytes);
        assert!(
            integrity.acked_bytes + 1_000_000 >= integrity.received_bytes,
            "{cc}: the receiver got more than the sender saw acknowledged: {integrity:?}"
        );

        let s = &run.summary;
        let flow = &s["flows"][0];
        assert_eq!(flow["cc"], cc);
        let goodput = flow["goodput_bps"].as_f64().unwrap();
        // 1 % loss at 40 ms RTT: Mathis gives ~ 1.22 * 1460 * 8 / 0.04 / 0.1 = 3.6 Mb/s for Reno.
        assert!(goodput > 0.5e6 && goodput < 10.1e6, "{cc}: goodput {goodput}");
        assert!(flow["retransmits"].as_u64().unwrap() > 0, "{cc}: 1 % loss but no retransmission");
        assert_eq!(flow["segment_size"], 1460, "{cc}: MSS from the 1500-byte MTU, no timestamps");

        // The emulator applied the loss and lost nothing of its own.
        let link = &s["links"][0];
        assert_eq!(link["name"], "path");
        assert!(link["drops_error"].as_u64().unwrap() > 0, "{cc}: no channel loss on {link}");
        let counters = &s["testbed"]["emulator"]["counters"];
        assert_eq!(counters["rx_socket_drops"], 0, "{cc}: {counters}");
        assert_eq!(counters["tx_errors"], 0, "{cc}: {counters}");
        assert_eq!(counters["gso_frames"], 0, "{cc}: GSO should be off: {counters}");
        assert_eq!(counters["unroutable"], 0, "{cc}: {counters}");
        // Whether the emulator kept to the schedule, and how busy the machine was, are recorded.
        assert!(s["testbed"]["emulator"]["on_time"].is_boolean(), "{cc}");
        assert_eq!(s["testbed"]["load_average"].as_array().map(Vec::len), Some(3), "{cc}");
        let local = &s["testbed"]["emulator"]["endpoint_interface_drops"];
        assert_eq!(local, 0, "{cc}: drops on the endpoints' own interfaces");
        let routes = &s["testbed"]["emulator"]["routes"][0];
        let loss = routes["drops_error"].as_f64().unwrap() / routes["offered_packets"].as_f64().unwrap();
        assert!(loss > 0.002 && loss < 0.03, "{cc}: data-path loss {loss} for a 1 % Bernoulli channel");

        // Time series every 100 ms while the flow ran, with TCP_INFO in it.
        let series = &run.flow_series;
        let cwnd = series.column("cwnd_bytes").unwrap();
        assert!(series.rows() >= 30, "{cc}: {} samples", series.rows());
        assert!(
            cwnd.iter().all(|c| *c != westwood_emulator::output::Cell::Int(0)),
            "{cc}: zero cwnd sampled"
        );
        let bwe = series.column("bwe_bps").unwrap();
        let has_bwe = bwe.iter().any(|b| matches!(b, westwood_emulator::output::Cell::Float(x) if *x > 0.0));
        let westwood = cc.starts_with("tcpw");
        assert_eq!(has_bwe, westwood, "{cc}: BWE present only for tcpw*");

        // The kernel's per-ACK trace: every ACK (one per 1-2 segments at 10 Mb/s), named after
        // the scenario's flow; the tcpw* controls write theirs with the BWE, reno's and cubic's
        // come from the ACK-path probe (kernel/tcp_ack_probe.bpf.c) without one.
        assert!(trace.exists(), "{cc}: trace file");
        let rows = westwood_trace::read_ack_trace(&trace).unwrap();
        assert_eq!(s["testbed"]["ack_trace"]["rows"].as_u64(), Some(rows.len() as u64), "{cc}");
        assert_eq!(s["testbed"]["ack_trace"]["dropped"].as_u64(), Some(0), "{cc}");
        assert!(rows.iter().all(|r| r.flow == "bulk" && r.cc == cc), "{cc}: flow names");
        let last = rows.last().unwrap();
        let acks: Vec<&westwood_trace::AckRecord> =
            rows.iter().filter(|r| r.event == westwood_trace::TraceEvent::Ack).collect();
        let segments = last.ack / last.mss;
        assert!(
            acks.len() as u64 * 2 >= segments,
            "{cc}: {} ACK records for {segments} segments",
            acks.len()
        );
        assert!(rows.iter().any(|r| r.event == westwood_trace::TraceEvent::Recovery), "{cc}: no loss row");
        // The ACK numbers only go up, and each row's acked bytes are the step to it.
        for w in acks.windows(2) {
            assert!(w[1].ack >= w[0].ack, "{cc}: ACK went back: {:?} then {:?}", w[0], w[1]);
            assert_eq!(w[1].acked_bytes, w[1].ack - w[0].ack, "{cc}: {:?}", w[1]);
            assert!(!w[1].dupack || w[1].acked_bytes == 0, "{cc}: a DUPACK that acked data: {:?}", w[1]);
        }
        // The trace ends where iperf3 says the transfer did, to within the socket buffers.
        let received = integrity.received_bytes;
        assert!(
            last.ack.abs_diff(received) < 1_000_000,
            "{cc}: trace ends at {}, received {received}",
            last.ack
        );
        if westwood {
            assert!(last.bwe_bps.unwrap() > 0.5e6 && last.bwe_bps.unwrap() < 11e6, "{cc}: BWE {last:?}");
        } else {
            assert!(
                rows.iter().all(|r| r.bwe_bps.is_none() && r.credited_bytes.is_none()),
                "{cc}: BWE without an estimator"
            );
            assert!(last.rtt_min_us.is_some_and(|m| m > 30_000.0 && m < 60_000.0), "{cc}: RTTmin {last:?}");
        }
        assert!(run.link_series.rows() >= 2 * 30, "{cc}: link series");

        // Everything is gone again.
        assert!(ours().is_empty(), "{cc}: namespaces left: {:?}", ours());
        assert!(stray_iperf3().is_empty(), "{cc}: iperf3 left: {:?}", stray_iperf3());
        let links = Command::new("ip").args(["-o", "link", "show"]).output().unwrap();
        let links = String::from_utf8_lossy(&links.stdout);
        assert!(
            !links.contains(": f0s") && !links.contains(": f0r"),
            "veth ends in the root namespace: {links}"
        );
    }
    // The ACK-path probe (reno's and cubic's traces) went with its run: nothing pinned.
    if let Ok(out) = Command::new("bpftool").args(["prog", "show"]).output() {
        let progs = String::from_utf8_lossy(&out.stdout);
        assert!(!progs.contains("probe_ack") && !progs.contains("probe_state"), "probe left loaded: {progs}");
    }
    let after: Vec<bool> = ["tcpw", "tcpw_abse"].iter().map(|c| bpf_registered(c)).collect();
    assert_eq!(after, before, "tcpw and tcpw_abse left as they were before");
    std::fs::remove_dir_all(&trace_dir).ok();
    println!("four runs in {:?}", started.elapsed());
}

/// Seed 000's wireless hop as one link: 2 Mb/s, 45 ms each way, 2 % Bernoulli loss both ways,
/// 400-byte segments. Random losses keep TCPW's window (20-30 segments) below the
/// bandwidth-delay product (57 segments), so each window leaves as a burst behind the ACKs that
/// open it unless the sender paces.
const WINDOW_LIMITED: &str = r#"
[scenario]
name = "window_limited"
duration = "10s"
seed = 1

[topology]
nodes = ["a", "b"]

[links.path]
from = "a"
to = "b"
rate = "2Mbps"
delay = "45ms"
queue = "bdp"
errors = { model = "bernoulli", rate = "2%", direction = "both" }

[tcp]
cc = "westwood"
segment_size = "400B"
header_size = "40B"
receiver_window = "1MB"

[flows.bulk]
from = "a"
to = "b"
"#;

/// The kernel's sender is ACK-clocked, as on a Linux host whose default congestion control is
/// loss-based: outside recovery each window leaves as a burst behind the ACKs that open it, so
/// ACKs come back spaced by the bottleneck (1.76 ms per 440-byte segment, 3.52 ms per delayed
/// ACK) with a silence after each burst. A paced sender (Linux's internal pacing at 1.2 x
/// cwnd/srtt in congestion avoidance, which a connection keeps if it was set up under bbr:
/// iperf3 switches congestion control only after connect()) spreads the window over the round
/// trip: no two ACKs closer than about 3 ms (measured with the host's bbr inherited: the first
/// quartile of the gaps 4 ms, against 1.8 ms unpaced).
#[test]
fn the_kernel_sender_is_ack_clocked_not_paced_whatever_the_host_default() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    let file = ScenarioFile::new("window_limited.toml", WINDOW_LIMITED);
    let opts = testbed::Options { scenario: file.0.clone(), ..Default::default() };
    let (scenario, _) = testbed::load_scenario(&opts, Some("tcpw")).unwrap();
    let plan = plan::plan(&scenario, Some("tcpw")).unwrap();
    let dir = std::env::temp_dir().join(format!("westwood-testbed-clock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("acks.csv");
    testbed::run_once(&plan, 100_000_000, opts.fifo, "tcpw", Some(&trace)).unwrap();
    let rows = westwood_trace::read_ack_trace(&trace).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // ACKs of new data outside loss recovery, after the first second's slow start.
    let start = rows.first().unwrap().time_ns;
    let open: Vec<&westwood_trace::AckRecord> = rows
        .iter()
        .filter(|r| r.event == westwood_trace::TraceEvent::Ack && r.time_ns >= start + 1_000_000_000)
        .collect();
    let mut gaps: Vec<u64> = open
        .windows(2)
        .filter(|w| w.iter().all(|r| r.ca_state == westwood_trace::CaState::Open && !r.dupack))
        .map(|w| w[1].time_ns - w[0].time_ns)
        .collect();
    assert!(gaps.len() > 100, "{} gaps between open-state ACKs", gaps.len());
    gaps.sort_unstable();
    // Back to back at the bottleneck, ACKs of single segments (quick ACKs, or a delayed ACK's
    // timer) come 1.76 ms apart; a paced window never brings two ACKs that close.
    let quartile_ms = gaps[gaps.len() / 4] as f64 / 1e6;
    let host_default =
        std::fs::read_to_string("/proc/sys/net/ipv4/tcp_congestion_control").unwrap_or_default();
    assert!(
        quartile_ms < 2.5,
        "a quarter of the ACK gaps below {quartile_ms:.2} ms: the sender was paced (host default congestion \
         control: {})",
        host_default.trim()
    );
    println!(
        "first quartile of the ACK gaps {quartile_ms:.2} ms (host default congestion control: {})",
        host_default.trim()
    );
}

#[test]
fn a_congestion_control_this_kernel_refuses_is_a_missing_prerequisite() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    if bpf_registered("tcpw_tr") {
        eprintln!("SKIPPED: tcpw_tr is loaded already (the testbed would use it)");
        return;
    }
    let file = ScenarioFile::new("refused.toml", PATH_10M);
    let out = Command::new(env!("CARGO_BIN_EXE_westwood-emu"))
        .args(["testbed"])
        .arg(&file.0)
        .args(["--cc", "tcpw_tr", "--duration", "2", "--no-sim"])
        .env(westwood_linux::probe::REFUSE_ENV, "controls")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("tcpw_tr unavailable on this kernel"), "{stderr}");
    assert!(stderr.contains("WESTWOOD_LINUX_REFUSE lists controls"), "{stderr}");
    assert!(ours().is_empty(), "namespaces left: {:?}", ours());
}

#[test]
fn the_emulator_keeps_rate_and_loss_between_namespaces() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    let case = selftest::Case {
        name: "10M bernoulli 2%",
        link: "rate = \"10Mbps\"\ndelay = \"20ms\"\nqueue = 100".into(),
        errors: "errors = { model = \"bernoulli\", rate = \"2%\", direction = \"forward\" }".into(),
        offered_bps: 12_000_000,
        rate_bps: 10_000_000,
        packet: 1500,
        seconds: 3.0,
        expected_loss: Some(0.02),
        extra_loss_sd: 0.0,
    };
    let r = selftest::run_case(&case, Some(westwood_emulator::realtime::DEFAULT_FIFO_PRIORITY)).unwrap();
    // Saturated: the link sends at its rate while the emulator runs (the rate limiter works in
    // virtual time, so late wake-ups do not lower it; a stall freezes the link, and the
    // achieved rate leaves the frozen time out).
    assert!((r.achieved_over_rate - 1.0).abs() < 0.02, "{r:?}");
    assert!(r.model_drops_overflow > 0, "offered 120 %: the queue overflows: {r:?}");
    assert_eq!(r.emulator_drops, 0, "{r:?}");
    // Channel loss among what left the queue: 2 %, binomial sd ~ 0.0024 over ~2500 packets.
    let left = (r.sent - r.model_drops_overflow) as f64;
    let channel = r.model_drops_channel as f64 / left;
    assert!((channel - 0.02).abs() < 0.01, "channel loss {channel}: {r:?}");
    assert_eq!(r.received + r.model_drops_overflow + r.model_drops_channel, r.sent, "{r:?}");
    assert!(ours().is_empty(), "namespaces left: {:?}", ours());
}

fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_westwood-emu")
}

/// `westwood-emu ARGS` run to the end, tried again (up to three times in all) when the emulator
/// refuses the run because it fell behind the path's schedule (exit 1): a moment of load on a
/// 2-vCPU machine, not what a test of the run's results is about. Any other outcome is returned
/// at once. (`python/tests/test_testbed.py` does the same for its real run.)
fn testbed_output(args: &[&str]) -> std::process::Output {
    let mut attempt = 1;
    loop {
        let out = Command::new(binary()).args(args).output().unwrap();
        let refused = out.status.code() == Some(1)
            && String::from_utf8_lossy(&out.stderr).contains("fell behind the path's schedule");
        if !refused || attempt == 3 {
            return out;
        }
        eprintln!("attempt {attempt}: the emulator fell behind, trying again");
        attempt += 1;
    }
}

/// Wait until `f` holds (polling), at most `limit`.
fn wait_for(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + limit;
    while Instant::now() < end {
        if f() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    false
}

fn namespaces_of(pid: u32) -> Vec<String> {
    let prefix = format!("{}{pid}-", netns::PREFIX);
    netns::existing().into_iter().filter(|n| n.starts_with(&prefix)).collect()
}

/// The running children of `parent` whose command name is `comm`, as owners (pid and start
/// time, so a reused pid does not pass for one of them later).
fn children(parent: u32, comm: &str) -> Vec<Owner> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else { continue };
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else { continue };
        let name = text.split_once('(').and_then(|(_, r)| r.rsplit_once(')')).map_or("", |(n, _)| n);
        let ppid = text.rsplit(')').next().and_then(|r| r.split_whitespace().nth(1)).unwrap_or("");
        let Some(stat) = process::parse_stat(&text) else { continue };
        if name == comm && ppid == parent.to_string() && !stat.has_exited() {
            found.push(Owner { pid, start_time: Some(stat.start_time) });
        }
    }
    found
}

fn is_zombie(pid: u32) -> bool {
    process::stat(pid as i32).ok().flatten().is_some_and(|s| s.has_exited())
}

#[test]
fn ctrl_c_cleans_up_and_a_killed_run_is_cleaned_by_the_next() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    let file = ScenarioFile::new("ctrlc.toml", PATH_10M);
    let path = file.0.clone();
    let start = |seconds: &str| {
        Command::new(binary())
            .args(["testbed", path.to_str().unwrap(), "--cc", "reno", "--duration", seconds, "--no-sim"])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Ctrl-C (SIGINT) in the middle of a run: exit 130, nothing left.
    let mut child = start("30");
    let pid = child.id();
    assert!(wait_for(Duration::from_secs(10), || namespaces_of(pid).len() == 3), "the run did not start");
    std::thread::sleep(Duration::from_millis(1500));
    unsafe { libc::kill(pid as i32, libc::SIGINT) };
    let status = wait_exit(&mut child, Duration::from_secs(10));
    assert_eq!(status.code(), Some(130), "exit status after Ctrl-C");
    assert!(namespaces_of(pid).is_empty(), "left after Ctrl-C: {:?}", namespaces_of(pid));

    // SIGKILL leaves the namespaces, and until we reap it a zombie whose /proc entry remains
    // (what the stale check used to take for a live run). iperf3 dies with its parent.
    let mut child = start("30");
    let pid = child.id();
    let started = wait_for(Duration::from_secs(10), || {
        namespaces_of(pid).len() == 3 && children(pid, "iperf3").len() == 2
    });
    assert!(started, "the run did not start: {:?} {:?}", namespaces_of(pid), children(pid, "iperf3"));
    let iperf3 = children(pid, "iperf3");
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    assert!(wait_for(Duration::from_secs(5), || is_zombie(pid)), "the killed run is not a zombie");
    let gone = wait_for(Duration::from_secs(5), || iperf3.iter().all(|p| p.gone().is_some()));
    assert!(gone, "iperf3 outlived the SIGKILLed testbed: {iperf3:?}");
    assert_eq!(namespaces_of(pid).len(), 3, "a killed run cannot clean up");

    // The next run, with the killed one still a zombie, removes them and says so; and works.
    // The emulator refuses a run the machine's load made late ("fell behind the path's
    // schedule", exit 1): that is a verdict on the machine, not on the clean-up, so such a
    // run is repeated (twice at most); the clean-up message is the first run's.
    let run = || {
        Command::new(binary())
            .args([
                "testbed",
                path.to_str().unwrap(),
                "--cc",
                "reno",
                "--duration",
                "2",
                "--no-sim",
                "--json",
            ])
            .output()
            .unwrap()
    };
    let first = run();
    let first_err = String::from_utf8_lossy(&first.stderr).into_owned();
    assert!(
        first_err.contains(&format!("wwtb-{pid}-s")) && first_err.contains("owner is a zombie"),
        "{first_err}"
    );
    let mut out = first;
    for _ in 0..2 {
        if out.status.success()
            || !String::from_utf8_lossy(&out.stderr).contains("fell behind the path's schedule")
        {
            break;
        }
        out = run();
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(namespaces_of(pid).is_empty(), "stale namespaces not removed: {:?}", namespaces_of(pid));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["runs"][0]["testbed_goodput_bps"].as_f64().unwrap() > 0.0);
    let _ = child.wait();

    // `cleanup` does the same on demand.
    let out = Command::new(binary()).arg("cleanup").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("removed "));
}

#[test]
fn the_programs_a_killed_tcpw_run_registered_are_unregistered_by_cleanup() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    if bpf_registered("tcpw") {
        println!("SKIPPED: tcpw is registered already (a run that did not load it owns nothing)");
        return;
    }
    let file = ScenarioFile::new("killed_tcpw.toml", PATH_10M);
    let mut child = Command::new(binary())
        .args(["testbed", file.0.to_str().unwrap(), "--cc", "tcpw", "--duration", "30", "--no-sim"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let record = Path::new(westwood_emulator::kernel_cc::RECORD_DIR);
    let started =
        wait_for(Duration::from_secs(20), || bpf_registered("tcpw") && children(pid, "iperf3").len() == 2);
    assert!(started, "the tcpw run did not start");
    let recorded = || {
        std::fs::read_dir(record)
            .map(|d| {
                d.flatten().any(|e| e.file_name().to_string_lossy().starts_with(&format!("bpf-{pid}-s")))
            })
            .unwrap_or(false)
    };
    assert!(recorded(), "the run recorded what it registered");
    unsafe { libc::kill(pid as i32, libc::SIGKILL) };
    let _ = child.wait();
    assert!(bpf_registered("tcpw"), "a killed run cannot unregister");
    let out = Command::new(binary()).arg("cleanup").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(&format!("run {pid} (gone): unregistered tcpw")), "{text}");
    assert!(!bpf_registered("tcpw") && !recorded());
    let out = Command::new(binary()).arg("cleanup").output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("unregistered 0 congestion controls"));
}

#[test]
fn hold_registers_what_is_missing_until_its_input_closes_and_a_signal_ends_it_as_well() {
    use std::io::{BufRead, BufReader};
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    if bpf_registered("tcpw_plus") {
        println!("SKIPPED: tcpw_plus is registered already (a hold that did not load it owns nothing)");
        return;
    }
    let start = |args: &[&str]| {
        let mut child = Command::new(binary())
            .arg("hold")
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.as_mut().unwrap()).read_line(&mut line).unwrap();
        (child, line)
    };
    // Closing its standard input ends it (what `westwood measure` does at its end).
    let (mut child, line) = start(&["tcpw_plus,reno"]);
    assert_eq!(line.trim(), "ready");
    assert!(bpf_registered("tcpw_plus"));
    drop(child.stdin.take());
    assert!(child.wait().unwrap().success());
    assert!(!bpf_registered("tcpw_plus"), "hold unregisters what it registered");
    // So does SIGTERM (the parent-death signal `measure` gives it), within a second.
    let (mut child, line) = start(&["tcpw_plus", "--plus-min-window-ms", "40"]);
    assert_eq!(line.trim(), "ready");
    let params =
        westwood_linux::loader::registered_params(westwood_linux::Algo::from_name("tcpw_plus").unwrap());
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let sent = Instant::now();
    assert!(wait_for(Duration::from_secs(1), || child.try_wait().unwrap().is_some()), "SIGTERM ignored");
    assert!(sent.elapsed() < Duration::from_secs(1));
    assert!(!bpf_registered("tcpw_plus"));
    let params = params.expect("the registration's parameters are recorded");
    assert!(params.contains("40000"), "the parameters asked for: {params}");
    // A name no kernel offers: exit 2, the reason named, nothing left.
    let out = Command::new(binary()).args(["hold", "no_such_cc"]).stdin(Stdio::null()).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no_such_cc is not available") && err.contains("modprobe tcp_no_such_cc"), "{err}");
}

/// Runs the real `westwood testbed` wrapper (python/westwood/testbed.py) on `python3` without
/// the package's compiled half, which the wrapper does not use: `westwood` is set up as a bare
/// package so its `__init__` (which imports it) does not run.
const WRAPPER: &str = r#"
import sys, types
package = types.ModuleType("westwood")
package.__path__ = [sys.argv[1]]
sys.modules["westwood"] = package
from westwood import testbed
sys.exit(testbed.main_testbed(sys.argv[2:]))
"#;

#[test]
fn killing_the_python_wrapper_stops_the_testbed_which_cleans_up() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    let Ok(python) = westwood_linux::netns::tool("python3", "python3") else {
        println!("SKIPPED: no python3 to run the westwood testbed wrapper");
        return;
    };
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../python/westwood");
    let file = ScenarioFile::new("wrapper.toml", PATH_10M);
    let mut wrapper = Command::new(python)
        .arg("-c")
        .arg(WRAPPER)
        .arg(&package)
        .args([file.0.to_str().unwrap(), "--cc", "reno", "--duration", "30", "--no-sim"])
        .env("WESTWOOD_EMU_BIN", binary())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut emu = Vec::new();
    let started = wait_for(Duration::from_secs(15), || {
        emu = children(wrapper.id(), "westwood-emu");
        emu.len() == 1 && namespaces_of(emu[0].pid as u32).len() == 3
    });
    if !started {
        let _ = wrapper.kill();
        panic!("the wrapper's run did not start (exit {:?})", wrapper.try_wait());
    }
    let emu = emu[0];
    let emu_pid = emu.pid as u32;
    assert!(wait_for(Duration::from_secs(5), || children(emu_pid, "iperf3").len() == 2), "no iperf3");
    let iperf3 = children(emu_pid, "iperf3");

    // kill -9 of the wrapper: the kernel sends the emulator SIGTERM, which it handles as
    // Ctrl-C (iperf3 stopped, namespaces removed) before it exits.
    wrapper.kill().unwrap();
    wrapper.wait().unwrap();
    if !wait_for(Duration::from_secs(10), || emu.gone().is_some()) {
        unsafe { libc::kill(emu.pid, libc::SIGTERM) };
        panic!("westwood-emu outlived its killed wrapper");
    }
    assert!(namespaces_of(emu_pid).is_empty(), "left by the emulator: {:?}", namespaces_of(emu_pid));
    assert!(iperf3.iter().all(|p| p.gone().is_some()), "iperf3 left running: {iperf3:?}");
}

#[test]
fn the_simulator_comparison_grows_and_transmits_as_the_kernel_unless_the_user_says_otherwise() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    let file = ScenarioFile::new("growth.toml", PATH_10M);
    let path = file.0.clone();
    let out_dir = path.parent().unwrap().join("out");
    let run = |sets: &[&str]| -> (serde_json::Value, serde_json::Value) {
        let _ = std::fs::remove_dir_all(&out_dir);
        let mut args = vec!["testbed", path.to_str().unwrap(), "--cc", "reno", "--duration", "2"];
        for s in sets {
            args.extend(["--set", s]);
        }
        args.extend(["--out", out_dir.to_str().unwrap()]);
        let out = testbed_output(&args);
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        let read = |p: PathBuf| -> serde_json::Value {
            serde_json::from_str(
                &std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())),
            )
            .unwrap()
        };
        assert!(out_dir.join("simulator/summary.json").exists(), "the simulator ran");
        (read(out_dir.join("summary.json")), read(out_dir.join("comparison.json")))
    };
    // By default the simulator runs the linux profile: it grows the window by the segments
    // acknowledged (Linux's rule, no per-ACK limit), does limited transmit, recovers NewReno-style with PRR, ... as the kernel
    // does; the initial window and RTO bounds are the scenario's, which the kernel gets too.
    let (summary, comparison) = run(&[]);
    let tb = &summary["testbed"];
    assert_eq!(
        tb["simulator_overrides"],
        serde_json::json!({
            "profile": "linux",
            "changed": {
                "tcp.window_growth": "linux",
                "tcp.limited_transmit": "true",
                "tcp.recovery": "newreno",
                "tcp.partial_ack_timer": "every",
                "tcp.timeout_threshold": "new_episode",
                "tcp.recovery_pacing": "prr",
                "tcp.recovery_exit_growth": "true",
                "tcp.fast_retransmit_timer": "restart",
                "tcp.repeat_fast_retransmit": "false",
                "tcp.delayed_ack_timeout": "40ms",
                "tcp.quick_acks": "16",
                "tcp.clock_granularity": "1s",
                "tcp.send_buffer": "linux",
                "tcp.cwnd_validation": "linux",
                "tcp.rtt_estimator": "linux",
                "tcp.timer_hz": westwood_linux::prereq::kernel_hz()
                    .unwrap_or(westwood_simulator::profile::LINUX_TIMER_HZ)
                    .to_string(),
                "tcp.prr_window": "linux",
                "tcp.prr_bound": "safe_ack",
                "tcp.receive_window": "linux",
                "tcp.reduction_base": "cwnd",
                "tcp.sack_next_seg": "linux",
                "tcp.loss_detection": "rack",
                "tcp.push_flag": "linux",
                "tcp.recovery_exit": "above_recover",
                "tcp.reordering": "linux",
                "tcp.frto": "true",
                "tcp.preamble": "37B"
            },
            "user": [],
            "scenario": ["initial_cwnd", "rto_min", "rto_max"]
        })
    );
    assert_eq!(tb["simulator_window_growth"], "linux");
    assert_eq!(tb["flows"][0]["scenario_window_growth"], "per_ack");
    assert_eq!(tb["flows"][0]["scenario_limited_transmit"], false);
    assert_eq!(comparison["runs"][0]["simulator_window_growth"], "linux");
    assert_eq!(comparison["runs"][0]["simulator_limited_transmit"], true);
    // The user's --set wins, key by key.
    let (summary, comparison) =
        run(&["tcp.window_growth=per_ack", "tcp.limited_transmit=false", "tcp.recovery=reno"]);
    let tb = &summary["testbed"];
    assert_eq!(
        tb["simulator_overrides"],
        serde_json::json!({
            "profile": "linux",
            "changed": {
                "tcp.partial_ack_timer": "every",
                "tcp.timeout_threshold": "new_episode",
                "tcp.recovery_pacing": "prr",
                "tcp.recovery_exit_growth": "true",
                "tcp.fast_retransmit_timer": "restart",
                "tcp.repeat_fast_retransmit": "false",
                "tcp.delayed_ack_timeout": "40ms",
                "tcp.quick_acks": "16",
                "tcp.clock_granularity": "1s",
                "tcp.send_buffer": "linux",
                "tcp.cwnd_validation": "linux",
                "tcp.rtt_estimator": "linux",
                "tcp.timer_hz": westwood_linux::prereq::kernel_hz()
                    .unwrap_or(westwood_simulator::profile::LINUX_TIMER_HZ)
                    .to_string(),
                "tcp.prr_window": "linux",
                "tcp.prr_bound": "safe_ack",
                "tcp.receive_window": "linux",
                "tcp.reduction_base": "cwnd",
                "tcp.sack_next_seg": "linux",
                "tcp.loss_detection": "rack",
                "tcp.push_flag": "linux",
                "tcp.recovery_exit": "above_recover",
                "tcp.reordering": "linux",
                "tcp.frto": "true",
                "tcp.preamble": "37B"
            },
            "user": ["window_growth", "limited_transmit", "recovery"],
            "scenario": ["initial_cwnd", "rto_min", "rto_max"]
        })
    );
    assert_eq!(tb["simulator_window_growth"], "per_ack");
    assert_eq!(comparison["runs"][0]["simulator_window_growth"], "per_ack");
    assert_eq!(comparison["runs"][0]["simulator_limited_transmit"], false);
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(ours().is_empty(), "left: {:?}", ours());
}

fn wait_exit(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let end = Instant::now() + limit;
    loop {
        if let Some(st) = child.try_wait().unwrap() {
            return st;
        }
        if Instant::now() > end {
            let _ = child.kill();
            panic!("the run did not exit within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_drop_list_drops_the_same_numbered_segments_of_kernel_tcp_as_of_the_simulator() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    require_root!();
    // No random loss: only the scripted drops, three data segments and the first ACK of a
    // fourth, numbered from the first data byte after iperf3's cookie.
    let text = PATH_10M.replace(
        r#"errors = { model = "bernoulli", rate = "1%", direction = "both" }"#,
        r#"errors = { model = "drop-list", flow = "bulk", segments = [60, 61, 200], acks = [400], direction = "both" }"#,
    );
    let file = ScenarioFile::new("droplist.toml", &text);
    let path = file.0.clone();
    let out_dir = path.parent().unwrap().join("out");
    let _ = std::fs::remove_dir_all(&out_dir);
    let args = [
        "testbed",
        path.to_str().unwrap(),
        "--cc",
        "reno",
        "--duration",
        "3",
        "--out",
        out_dir.to_str().unwrap(),
    ];
    let out = testbed_output(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let read = |p: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
            .unwrap()
    };
    for side in [out_dir.join("summary.json"), out_dir.join("simulator/summary.json")] {
        let summary = read(side.clone());
        let drops: Vec<(String, u64)> = summary["links"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["name"].as_str().unwrap().to_string(), l["drops_error"].as_u64().unwrap()))
            .collect();
        assert_eq!(drops, [("path".to_string(), 3), ("path.reverse".to_string(), 1)], "{}", side.display());
        // Each dropped segment is resent, once (no timeout: the path is otherwise clean).
        let flow = &summary["flows"][0];
        assert_eq!(flow["retransmits"], 3, "{}: {flow}", side.display());
    }
    let _ = std::fs::remove_dir_all(&out_dir);
    assert!(ours().is_empty(), "left: {:?}", ours());
}

#[test]
fn unmappable_scenarios_and_bad_usage_exit_2() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let run = |args: &[&str]| Command::new(binary()).args(args).output().unwrap();
    if skip_reason().is_none() {
        let out = run(&["testbed", repo.join("udp_onoff.toml").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("UDP sources") && err.contains("cannot run this scenario"), "{err}");
        let out = run(&["testbed", repo.join("multipath.toml").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("multipath"));
    } else {
        // Without root the first thing said is what is missing.
        let out = run(&["testbed", repo.join("wireless.toml").to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("needs root"));
    }
    let out = run(&["testbed", "wireless", "--cc", "vegas"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cc vegas"));
    let out = run(&["frobnicate"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn without_root_it_says_so() {
    let _g = LOCK.lock().unwrap_or_else(|p| p.into_inner());
    // As root, drop to nobody with setpriv (util-linux) to see the message.
    if unsafe { libc::geteuid() } != 0 {
        println!("SKIPPED: not root (covered by unmappable_scenarios_and_bad_usage_exit_2)");
        return;
    }
    let Ok(out) = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", binary(), "testbed", "wireless"])
        .output()
    else {
        println!("SKIPPED: setpriv not available");
        return;
    };
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("needs root"), "{err}");
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups", binary(), "selftest"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
