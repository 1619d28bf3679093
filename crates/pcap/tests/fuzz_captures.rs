//! Fuzzing `westwood analyze`: captures as the writer makes them (pcap and pcapng; Ethernet, raw
//! IP, Linux cooked and loopback link types; TCP connections with handshakes, SACK blocks,
//! timestamps and retransmissions, and a UDP flow), mutated at random — bits flipped, bytes of
//! the headers overwritten with edge values, the file cut, records repeated, link types changed —
//! must each give valid numbers or a clean error. No panic, no analysis longer than a bound, no
//! memory beyond a bound.
//!
//! 10 000 cases by default (`WESTWOOD_FUZZ_CASES` sets another number, `WESTWOOD_FUZZ_SEED` another
//! seed). A failing case prints its seed and mutation, to rebuild it as a regression test.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use westwood_pcap::analyze::{analyze_capture, Options};
use westwood_pcap::frame::{self, Addresses, TcpHeader};
use westwood_pcap::{CaptureWriter, Direction, Format, Interface, InterfaceStats};

/// An analysis of one small capture that takes longer than this (debug build) is a failure.
const WALL_LIMIT: Duration = Duration::from_secs(5);
/// The test process's peak resident memory after every case.
const MAX_PEAK_BYTES: u64 = 1 << 30;

/// splitmix64: the test's own generator (no dependency), reproducible from the seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const LINK_ETHERNET: u16 = 1;
const LINK_RAW: u16 = 101;
const LINK_SLL: u16 = 113;
const LINK_LOOP: u16 = 108;

/// The frames of a short exchange: two TCP connections (one with SACK and timestamps, a loss
/// and its retransmission) and a UDP flow, as Ethernet frames with their lengths on the wire.
fn ethernet_frames() -> Vec<(Vec<u8>, u32, i64)> {
    let a = Addresses { src_mac: [2; 6], dst_mac: [4; 6], src_ip: [10, 0, 0, 1], dst_ip: [10, 0, 0, 2] };
    let back = Addresses { src_mac: [4; 6], dst_mac: [2; 6], src_ip: [10, 0, 0, 2], dst_ip: [10, 0, 0, 1] };
    let mut frames = Vec::new();
    let mut t = 0i64;
    let mut push = |frames: &mut Vec<(Vec<u8>, u32, i64)>, addr: &Addresses, h: TcpHeader<'_>, len: usize| {
        let mut buf = Vec::new();
        let wire = frame::tcp_frame(&mut buf, addr, 0, &h, len, 96).unwrap() as u32;
        t += 1_000_000;
        frames.push((buf, wire, t));
    };
    let mut sack = Vec::new();
    frame::sack_option(&mut sack, &[(2400, 2800)]);
    let mut ts = vec![1, 1, 8, 10];
    ts.extend_from_slice(&7u32.to_be_bytes());
    ts.extend_from_slice(&9u32.to_be_bytes());
    let syn_opts = [2u8, 4, 1, 144, 4, 2, 3, 3, 1, 0, 0, 0];
    for (port, opts) in [(5001u16, &syn_opts[..8]), (5002, &syn_opts[..])] {
        let tcp = |seq, ack, flags, options| TcpHeader {
            src_port: port,
            dst_port: 80,
            seq,
            ack,
            flags,
            window: 1000,
            options,
        };
        let rev = |seq, ack, flags, options| TcpHeader {
            src_port: 80,
            dst_port: port,
            seq,
            ack,
            flags,
            window: 2000,
            options,
        };
        push(&mut frames, &a, tcp(999, 0, frame::SYN, opts), 0);
        push(&mut frames, &back, rev(0, 1000, frame::SYN | frame::ACK, opts), 0);
        for k in 0..6u32 {
            let options: &[u8] = if k % 2 == 0 { &ts } else { &[] };
            push(&mut frames, &a, tcp(1000 + 400 * k, 1, frame::ACK, options), 400);
        }
        push(&mut frames, &back, rev(1, 1400, frame::ACK, &[]), 0);
        push(&mut frames, &back, rev(1, 1400, frame::ACK, &sack), 0);
        push(&mut frames, &back, rev(1, 1400, frame::ACK, &sack), 0);
        push(&mut frames, &a, tcp(1400, 1, frame::ACK, &[]), 400); // the retransmission
        push(&mut frames, &back, rev(1, 3400, frame::ACK, &[]), 0);
        push(&mut frames, &a, tcp(3400, 1, frame::FIN | frame::ACK, &[]), 0);
    }
    for _ in 0..3 {
        let mut buf = Vec::new();
        let wire = frame::udp_frame(&mut buf, &a, 0, 9000, 9001, 300, 96).unwrap() as u32;
        t += 500_000;
        frames.push((buf, wire, t));
    }
    frames
}

/// The same frames under another link type: the Ethernet header swapped for that link's.
fn relink(frame: &[u8], wire: u32, link: u16) -> (Vec<u8>, u32) {
    let ip = &frame[14..];
    let ip_wire = wire - 14;
    let mut out = Vec::new();
    match link {
        LINK_RAW => {}
        LINK_SLL => {
            out.extend_from_slice(&4u16.to_be_bytes()); // sent by us
            out.extend_from_slice(&1u16.to_be_bytes());
            out.extend_from_slice(&6u16.to_be_bytes());
            out.extend_from_slice(&[2, 2, 2, 2, 2, 2, 0, 0]);
            out.extend_from_slice(&0x0800u16.to_be_bytes());
        }
        LINK_LOOP => out.extend_from_slice(&2u32.to_ne_bytes()),
        _ => return (frame.to_vec(), wire),
    }
    let header = out.len() as u32;
    out.extend_from_slice(ip);
    (out, ip_wire + header)
}

fn capture(format: Format, link: u16) -> Vec<u8> {
    let interface = Interface {
        name: "eth0".into(),
        description: String::new(),
        ipv4: Some([10, 0, 0, 1]),
        link_type: link,
        snaplen: 96,
    };
    let mut w =
        CaptureWriter::new(Vec::new(), format, "flow f: tcp 10.0.0.1:5001 > 10.0.0.2:80", &[interface])
            .unwrap();
    for (i, (frame, wire, t)) in ethernet_frames().into_iter().enumerate() {
        let (data, wire) = relink(&frame, wire, link);
        let direction = if i % 3 == 0 { Some(Direction::Outbound) } else { None };
        w.packet(0, t as u64, &data, wire, direction).unwrap();
    }
    w.finish(&[InterfaceStats { start_ns: 0, end_ns: 60_000_000, ..Default::default() }]).unwrap()
}

/// Edge values for a byte of a header.
const EDGE: [u8; 8] = [0x00, 0xff, 0x7f, 0x80, 0x01, 0x40, 0x45, 0x0f];

/// One mutation of `bytes`, described.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>) -> String {
    let n = bytes.len();
    match rng.below(7) {
        0 => {
            let flips = 1 + rng.below(16);
            for _ in 0..flips {
                let at = rng.below(n);
                bytes[at] ^= 1 << rng.below(8);
            }
            format!("{flips} bits flipped")
        }
        1 => {
            // Header bytes: the first 64 of a record, where the lengths and types are.
            let start = rng.below(n);
            let writes = 1 + rng.below(6);
            for _ in 0..writes {
                let at = (start + rng.below(64)).min(n - 1);
                bytes[at] = if rng.below(2) == 0 { EDGE[rng.below(EDGE.len())] } else { rng.next() as u8 };
            }
            format!("{writes} bytes near {start} overwritten")
        }
        2 => {
            let at = rng.below(n);
            bytes.truncate(at);
            format!("cut at {at}")
        }
        3 => {
            let at = rng.below(n);
            let len = 1 + rng.below(200);
            let chunk: Vec<u8> = bytes[at..(at + len).min(n)].to_vec();
            let to = rng.below(bytes.len());
            let times = 1 + rng.below(50);
            for _ in 0..times {
                bytes.splice(to..to, chunk.iter().copied());
            }
            format!("{len} bytes at {at} repeated {times} times at {to}")
        }
        4 if n >= 4 => {
            // A 32-bit field (a block or record length, a link type, a timestamp) set to an edge.
            let at = rng.below(n - 3);
            let value = [0u32, 1, 0xffff_ffff, 0x8000_0000, 12, 28, 65_535, 1 << 30][rng.below(8)];
            bytes[at..at + 4].copy_from_slice(&value.to_ne_bytes());
            format!("u32 at {at} set to {value:#x}")
        }
        4 | 5 => {
            let at = rng.below(n);
            let len = 1 + rng.below(64);
            let junk: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
            bytes.splice(at..at, junk);
            format!("{len} random bytes inserted at {at}")
        }
        _ => {
            let at = rng.below(n);
            let len = rng.below(100).min(n - at);
            bytes.drain(at..at + len);
            format!("{len} bytes removed at {at}")
        }
    }
}

/// What every analysis that succeeds must satisfy.
fn check(connections: &[westwood_pcap::Connection], packets: u64) -> Result<(), String> {
    if connections.len() as u64 > packets {
        return Err(format!("{} connections from {packets} packets", connections.len()));
    }
    for c in connections {
        let finite_non_negative = [
            ("goodput_bps", c.goodput_bps),
            ("throughput_bps", c.throughput_bps),
            ("active_seconds", c.active_seconds),
        ];
        for (name, v) in finite_non_negative {
            if !v.is_finite() || v < 0.0 {
                return Err(format!("{}: {name} = {v}", c.name));
            }
        }
        // The flight is sampled at data segments once an ACK is known: undefined (NaN) without.
        if !(c.mean_flight_bytes.is_nan() || c.mean_flight_bytes.is_finite() && c.mean_flight_bytes >= 0.0) {
            return Err(format!("{}: mean_flight_bytes = {}", c.name, c.mean_flight_bytes));
        }
        if c.rtt_samples > 0 {
            let (min, mean, max) = (c.min_rtt_seconds, c.mean_rtt_seconds, c.max_rtt_seconds);
            if !(min >= 0.0 && min <= mean && mean <= max && max.is_finite()) {
                return Err(format!("{}: RTT min {min} mean {mean} max {max}", c.name));
            }
        } else if !c.min_rtt_seconds.is_nan() {
            return Err(format!("{}: an RTT without samples", c.name));
        }
        if c.retransmits > c.segments_sent || c.segments_sent > packets {
            return Err(format!("{}: {} retransmits of {} segments", c.name, c.retransmits, c.segments_sent));
        }
        if c.data_bytes > c.wire_bytes {
            return Err(format!("{}: {} data bytes in {} wire bytes", c.name, c.data_bytes, c.wire_bytes));
        }
    }
    Ok(())
}

/// Peak resident memory of this process (`VmHWM`), bytes; 0 where /proc does not say.
fn peak_bytes() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

#[test]
fn mutated_captures_give_valid_numbers_or_a_clean_error() {
    let cases: u64 = std::env::var("WESTWOOD_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let seed: u64 = std::env::var("WESTWOOD_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let mut bases = Vec::new();
    for format in [Format::Pcapng, Format::Pcap] {
        for link in [LINK_ETHERNET, LINK_RAW, LINK_SLL, LINK_LOOP] {
            bases.push((format!("{format:?}/{link}"), capture(format, link)));
        }
    }
    // Every base reads cleanly, with its two connections each way and its UDP flow.
    for (name, bytes) in &bases {
        let (summary, connections, udp) =
            analyze_capture(&bytes[..], name, &Options::default(), &|| false).unwrap();
        assert_eq!((connections.len(), udp.len(), summary.malformed), (2, 1, 0), "{name}");
        check(&connections, summary.packets).unwrap();
    }
    let mut rng = Rng(seed);
    let (mut refused, mut read) = (0u64, 0u64);
    for case in 0..cases {
        let (name, base) = &bases[rng.below(bases.len())];
        let mut bytes = base.clone();
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(3) {
            if bytes.is_empty() {
                break;
            }
            what.push(mutate(&mut rng, &mut bytes));
        }
        let describe = || format!("case {case} (seed {seed}): {name}, {}", what.join("; "));
        let started = Instant::now();
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            analyze_capture(&bytes[..], "fuzz", &Options::default(), &|| false)
        }));
        let took = started.elapsed();
        assert!(took < WALL_LIMIT, "{}: took {took:?}", describe());
        match outcome {
            Err(_) => panic!("{}: the analysis panicked", describe()),
            Ok(Err(e)) => {
                assert!(!e.message.is_empty() && e.file == "fuzz", "{}: {e:?}", describe());
                refused += 1;
            }
            Ok(Ok((summary, connections, _))) => {
                if let Err(problem) = check(&connections, summary.packets) {
                    panic!("{}: {problem}", describe());
                }
                read += 1;
            }
        }
    }
    let peak = peak_bytes();
    assert!(peak < MAX_PEAK_BYTES, "peak resident memory {peak} bytes");
    eprintln!("{cases} mutated captures: {read} read, {refused} refused; peak memory {} MB", peak >> 20);
    if cases >= 1000 {
        assert!(read > cases / 10 && refused > cases / 100, "the mutations reach both outcomes");
    }
}
