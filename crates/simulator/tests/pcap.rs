//! Packet captures of simulated runs (`westwood run --pcap`, docs/measurement.md): the capture
//! points, the files (complete or absent), and the analysis of a flow's two endpoint captures
//! against the run's own summary.

use std::path::{Path, PathBuf};

use westwood_pcap::{analyze_files, AnalyzeOptions, CaptureReader};
use westwood_simulator::pcap::{resolve, PacketTap, PcapOptions, PcapTaps};
use westwood_simulator::scenario::load_str;
use westwood_simulator::{run_with, RunControl, RunError, RunOptions};

const WIRELESS: &str = r#"
[scenario]
duration = "${duration}"
seed = 3
[topology]
nodes = ["src", "base", "mobile"]
[links.wired]
from = "src"
to = "base"
rate = "10Mbps"
delay = "45ms"
queue = "bdp"
[links.wireless]
from = "base"
to = "mobile"
rate = "2Mbps"
delay = "0.01ms"
queue = "bdp"
errors = { model = "bernoulli", rate = "${loss}", direction = "both" }
[parameters]
loss = "2%"
cc = "newreno"
duration = "20s"
[tcp]
cc = "${cc}"
segment_size = "400B"
header_size = "40B"
receiver_window = "1MB"
[flows.ftp]
from = "src"
to = "mobile"
[sources.cbr]
kind = "cbr"
from = "src"
to = "mobile"
rate = "100kbps"
packet_size = "200B"
on = [["1s", "20s"]]
"#;

fn dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("westwood-sim-pcap-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn scenario(overrides: &[(&str, &str)]) -> westwood_simulator::model::Scenario {
    let o: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_str(WIRELESS, "wireless", &o).unwrap()
}

fn run(
    s: &westwood_simulator::model::Scenario,
    options: &PcapOptions,
) -> (westwood_simulator::RunResult, Vec<PathBuf>) {
    let mut taps = PcapTaps::create(s, options).unwrap();
    let control = RunControl { packet_tap: Some(&mut taps as &mut dyn PacketTap), ..Default::default() };
    let result = run_with(s, RunOptions::default(), control).unwrap();
    let paths = taps.commit(&result.summary).unwrap();
    (result, paths)
}

#[test]
fn the_default_point_is_the_bottleneck_and_names_are_checked() {
    let s = scenario(&[]);
    let points = resolve(&s, &PcapOptions::new("x")).unwrap();
    assert_eq!(points.len(), 1);
    assert_eq!(points[0].name, "wireless");
    assert_eq!(points[0].path, Path::new("x").join("wireless.pcapng"));
    let bad = PcapOptions { points: vec!["nope".into()], ..PcapOptions::new("x") };
    let e = resolve(&s, &bad).err().unwrap().to_string();
    assert!(e.contains("'nope'") && e.contains("wired") && e.contains("FLOW.sender"), "{e}");
    let ok =
        PcapOptions { points: vec!["ftp.receiver".into(), "wired.reverse".into()], ..PcapOptions::new("x") };
    assert_eq!(resolve(&s, &ok).unwrap().len(), 2);
}

#[test]
fn endpoint_captures_give_the_summary_back() {
    for (cc, loss) in [("newreno", "2%"), ("sack", "2%"), ("reno", "0%"), ("westwood", "1%")] {
        let s = scenario(&[("cc", cc), ("loss", loss)]);
        let d = dir(&format!("eq-{cc}"));
        let options = PcapOptions {
            points: vec!["ftp.sender".into(), "ftp.receiver".into(), "wireless".into()],
            ..PcapOptions::new(&d)
        };
        let (result, paths) = run(&s, &options);
        assert_eq!(paths.len(), 3);
        let a = analyze_files(&paths[..2], &AnalyzeOptions::default(), &|| false).unwrap();
        let tcp: Vec<_> = a.flows.iter().filter(|f| f.name == "ftp").collect();
        assert_eq!(tcp.len(), 1, "{cc}: {:?}", a.flows.iter().map(|f| &f.name).collect::<Vec<_>>());
        let (f, want) = (tcp[0], &result.summary.flows[0]);
        assert_eq!(f.vantage, "sender + receiver", "{cc}");
        assert_eq!(f.bytes_delivered, want.bytes_delivered, "{cc}");
        assert_eq!(f.active_seconds, want.active_seconds, "{cc}");
        assert_eq!(f.goodput_bps, want.goodput_bps, "{cc}");
        assert_eq!(f.throughput_bps, want.throughput_bps, "{cc}");
        assert_eq!(f.retransmits, want.retransmits, "{cc}");
        assert_eq!(f.segments_sent, want.segments_sent, "{cc}");
        assert!(
            (f.min_rtt_seconds - want.min_rtt_seconds).abs() < 1e-9,
            "{cc}: {} vs {}",
            f.min_rtt_seconds,
            want.min_rtt_seconds
        );
        assert_eq!(f.cc.as_deref(), Some(cc));
        if loss != "0%" {
            assert!(f.retransmits > 0 && f.dupack_runs_3 > 0, "{cc}: losses show");
        }
        if cc == "sack" {
            assert!(f.sack_packets > 0, "SACK blocks are in the ACKs");
        }
        // The UDP source is in the link capture, as UDP.
        let link = analyze_files(&paths[2..], &AnalyzeOptions::default(), &|| false).unwrap();
        assert_eq!(link.udp.len(), 1);
        assert_eq!(link.udp[0].name, "cbr");
        assert_eq!(link.captures[0].interfaces[0].name, "wireless");
        assert!(link.captures[0].warnings.is_empty());
        std::fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn a_run_that_fails_leaves_no_capture() {
    // Long enough for the interrupt check (every 32768 events) to come round.
    let s = scenario(&[("duration", "600s")]);
    let d = dir("fail");
    let options = PcapOptions { points: vec!["ftp.sender".into()], ..PcapOptions::new(&d) };
    let mut taps = PcapTaps::create(&s, &options).unwrap();
    let stop = || true;
    let control = RunControl {
        packet_tap: Some(&mut taps as &mut dyn PacketTap),
        interrupted: Some(&stop),
        ..Default::default()
    };
    assert!(matches!(run_with(&s, RunOptions::default(), control), Err(RunError::Interrupted)));
    drop(taps);
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "no file, not even a partial one");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn pcap_format_and_snaplen() {
    let s = scenario(&[("loss", "0%")]);
    let d = dir("fmt");
    let options = PcapOptions {
        points: vec!["wired".into()],
        snaplen: 64,
        format: westwood_pcap::Format::Pcap,
        ..PcapOptions::new(&d)
    };
    let (result, paths) = run(&s, &options);
    assert_eq!(paths[0].extension().unwrap(), "pcap");
    let bytes = std::fs::read(&paths[0]).unwrap();
    let mut r = CaptureReader::new(&bytes[..], "x").unwrap();
    let (mut n, mut last) = (0u64, 0);
    while let Some(p) = r.next_packet().unwrap() {
        assert!(p.data.len() <= 64);
        assert!(p.ts_ns >= last, "in time order");
        last = p.ts_ns;
        n += 1;
    }
    // `wired`: every packet src transmits on it (data, CBR), and what it receives back (ACKs)
    // before the end (a few are still on their way then).
    let sent = result.summary.links.iter().find(|l| l.name == "wired").unwrap().packets_sent;
    let received = result.summary.links.iter().find(|l| l.name == "wired.reverse").unwrap().packets_sent;
    assert!(n <= sent + received && n + 30 >= sent + received, "{n} vs {sent} + {received}");
    let outbound = analyze_files(&paths, &AnalyzeOptions::default(), &|| false).unwrap().captures[0]
        .hosts
        .iter()
        .find(|h| h.addr == "10.0.0.1")
        .unwrap()
        .packets;
    assert_eq!(outbound, sent);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_capture_that_cannot_be_written_is_a_capture_error() {
    let s = scenario(&[]);
    let options = PcapOptions::new("/proc/westwood-cannot-write-here");
    match PcapTaps::create(&s, &options) {
        Err(RunError::Capture(e)) => {
            assert!(e.to_string().contains("/proc/westwood-cannot-write-here"), "{e}")
        }
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("created"),
    }
}

#[test]
fn the_analysis_columns_start_with_the_run_columns_they_share() {
    use westwood_simulator::results::columns::FLOW_COLUMNS;
    let analysis = westwood_pcap::analyze::COLUMNS;
    let shared: Vec<&str> = FLOW_COLUMNS.iter().copied().filter(|c| analysis.contains(c)).collect();
    assert_eq!(&analysis[..shared.len()], &shared[..]);
    assert!(shared.len() >= 11, "{shared:?}");
}
