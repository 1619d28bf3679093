//! What a run will hold in memory, estimated before it starts, so that a scenario that would
//! exhaust the machine is refused with the number and the fix instead of growing until the
//! allocator aborts (docs/scenarios.md, "Bounds").
//!
//! The estimate counts what grows with the scenario: routing tables (nodes × destinations),
//! links, TCP flows (those of the file and, for arrival tables, the flows open at once plus a
//! slot per flow ever started), the packets the run can hold at once, and time-series rows kept
//! in memory. Everything else a run holds is small beside these or bounded by them.
//!
//! Packets: every packet is in a link's queue or on its way across a link, and a TCP sender
//! and receiver keep a record of each segment of their window; so a run holds at most what the
//! links can hold (queue limits, and rate × delay in flight), and, when only TCP sends, at most
//! what the flows' receiver windows allow, data and ACK. A scenario whose queues and windows
//! could hold more than the budget is refused up front (a 100-million-packet queue behind a
//! window of 2 GB once grew past 2 GB under a budget of 100 MB).
//! Rows streamed to disk cost no memory but are capped by [`MAX_SERIES_ROWS`].

use crate::model::{QueueLimit, QueueSpec, Scenario};
use crate::network::{Link, Routes};
use crate::scenario::ScenarioError;

/// The memory a run may use unless the caller says otherwise (`--max-memory`).
pub const DEFAULT_MAX_MEMORY_BYTES: u64 = 1_000_000_000;

/// Most time-series rows one run may write, in memory or on disk: about 6 GB of CSV.
pub const MAX_SERIES_ROWS: u64 = 100_000_000;

/// Memory per time-series row kept in memory until the run ends, all copies included: the
/// simulator's columns (a name per row), then the same row as Python objects and as a DataFrame.
/// Measured: a 1000-flow 60 s dumbbell (6 M rows) peaked at 3.57 GB RSS, about 600 B per row.
pub const BYTES_PER_MEMORY_ROW: u64 = 600;

/// A TCP flow: its sender and receiver state plus the buffers they grow (SACK scoreboard,
/// out-of-order reassembly, retransmission bookkeeping), rounded up.
const BYTES_PER_FLOW: u64 = 4096;

/// Per flow an arrival table ever starts: its slot in the flow table and its id in the
/// multipath bookkeeping.
const BYTES_PER_STARTED_FLOW: u64 = 32;

/// Per packet the run holds: the packet in a queue or on a link (with its event), and the
/// sender's and the receiver's record of a segment. Measured: a dumbbell flow with an initial
/// window of 10⁶ segments behind queues that keep them all peaked at 225 MB, about 200 B each.
const BYTES_PER_PACKET_HELD: u64 = 256;

/// One part of the estimate: what it is, its size, and the scenario field that sets it.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub what: String,
    pub bytes: u64,
    pub field: String,
}

/// The estimated memory of a run, by part.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    pub parts: Vec<Part>,
    /// Time-series rows the run will record (in memory or on disk).
    pub series_rows: u64,
}

impl Estimate {
    pub fn total_bytes(&self) -> u64 {
        self.parts.iter().fold(0u64, |sum, p| sum.saturating_add(p.bytes))
    }

    /// The largest part.
    pub fn largest(&self) -> Option<&Part> {
        self.parts.iter().max_by_key(|p| p.bytes)
    }
}

/// How the run records its time series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recording {
    Off,
    /// Kept in memory until the run ends.
    Memory,
    /// Written to files as the run goes.
    Streamed,
}

/// Estimate the memory of running `scenario`.
pub fn estimate(scenario: &Scenario, recording: Recording) -> Estimate {
    let mut parts = Vec::new();
    let nodes = scenario.nodes.len() as u64;
    parts.push(Part {
        what: format!("routing tables ({nodes} nodes)"),
        bytes: Routes::bytes_for(scenario.nodes.len()),
        field: "topology".into(),
    });
    parts.push(Part {
        what: format!("{} links", scenario.links.len()),
        bytes: (scenario.links.len() as u64).saturating_mul(std::mem::size_of::<Link>() as u64 + 256),
        field: "links".into(),
    });
    parts.push(Part {
        what: format!("{} TCP flows", scenario.flows.len()),
        bytes: (scenario.flows.len() as u64).saturating_mul(BYTES_PER_FLOW),
        field: "flows".into(),
    });
    let (packets, bound) = packets_held(scenario);
    parts.push(Part {
        what: format!("packets held at once (at most {packets}: {bound})"),
        bytes: packets.saturating_mul(BYTES_PER_PACKET_HELD),
        field: if bound.starts_with("what the links") {
            "links".into()
        } else {
            "tcp.receiver_window".into()
        },
    });
    for table in &scenario.arrivals {
        let (started, open) = arrival_counts(scenario, table);
        parts.push(Part {
            what: format!("arrival table {:?} (about {started} flows, {open} open at once)", table.name),
            bytes: started
                .saturating_mul(BYTES_PER_STARTED_FLOW)
                .saturating_add(open.saturating_mul(BYTES_PER_FLOW)),
            field: format!("flows.{}.arrivals", table.name),
        });
    }
    let series_rows = match recording {
        Recording::Off => 0,
        Recording::Memory | Recording::Streamed => {
            let per_sample = (scenario.flows.len() + scenario.links.len()) as u64;
            samples(scenario).saturating_mul(per_sample)
        }
    };
    if recording == Recording::Memory {
        parts.push(Part {
            what: format!("time series kept in memory ({series_rows} rows)"),
            bytes: series_rows.saturating_mul(BYTES_PER_MEMORY_ROW),
            field: "scenario.sample_interval".into(),
        });
    }
    Estimate { parts, series_rows }
}

/// The most packets the run can hold at once, and which bound that is: what the links can hold
/// (each queue's limit plus what is on its way across at its rate and delay, in the smallest
/// packets any flow or source sends), or what the senders can put in the network (the TCP
/// flows' receiver windows, a data segment and an ACK per segment, and all a source sends in
/// the run), if fewer.
fn packets_held(scenario: &Scenario) -> (u64, String) {
    let smallest = scenario
        .flows
        .iter()
        .map(|f| &f.tcp)
        .chain(scenario.arrivals.iter().map(|a| &a.tcp))
        .map(|tcp| tcp.segment_size + tcp.header_size)
        .chain(scenario.sources.iter().map(|s| match &s.kind {
            crate::model::SourceKind::Cbr { packet_size, .. } => *packet_size,
        }))
        .min()
        // Nothing sends: any packet would be at least a TCP/IP header.
        .unwrap_or(40)
        .max(1);
    // The longest round trip any path can have: a path visits each node once, so it crosses at
    // most nodes - 1 links each way.
    let mut delays: Vec<u64> = scenario.links.iter().map(|l| l.delay).collect();
    delays.sort_unstable_by(|a, b| b.cmp(a));
    let hops = scenario.nodes.len().saturating_sub(1);
    let round_trip = delays.iter().take(hops).fold(0u64, |sum, &d| sum.saturating_add(d)).saturating_mul(2);
    let queue_packets = |limit: &QueueLimit, rate_bps: u64| -> u64 {
        match *limit {
            QueueLimit::Packets(n) => n,
            QueueLimit::Bytes(n) => n / smallest + 1,
            // At most the rate times the longest round trip any path can have, or `min`.
            QueueLimit::BandwidthDelayProduct { rtt, min } => {
                let rtt = rtt.unwrap_or(round_trip);
                (u128::from(rate_bps) * u128::from(rtt) / 8_000_000_000 / u128::from(smallest))
                    .min(u128::from(u64::MAX)) as u64
                    + min.max(1)
            }
        }
    };
    let links = scenario.links.iter().fold(0u64, |sum, l| {
        let limit = match &l.queue {
            QueueSpec::DropTail(limit) => limit,
            QueueSpec::Red(red) => &red.limit,
        };
        let propagation = l.delay.saturating_add(l.delay_variation);
        let on_the_way =
            (u128::from(l.rate_bps) * u128::from(propagation) / 8_000_000_000 / u128::from(smallest))
                .min(u128::from(u64::MAX)) as u64;
        sum.saturating_add(queue_packets(limit, l.rate_bps)).saturating_add(on_the_way).saturating_add(1)
    });
    // What the senders can put in the network: each TCP flow a window of data and its ACKs (a
    // flow of an arrival table counted once per flow open at once), each source no more than it
    // sends in the whole run.
    let window =
        |tcp: &crate::model::TcpSpec| (tcp.receiver_window / tcp.segment_size.max(1) + 1).saturating_mul(2);
    let mut senders = scenario.flows.iter().fold(0u64, |sum, f| sum.saturating_add(window(&f.tcp)));
    for table in &scenario.arrivals {
        let (_, open) = arrival_counts(scenario, table);
        senders = senders.saturating_add(open.saturating_mul(window(&table.tcp)));
    }
    for source in &scenario.sources {
        let crate::model::SourceKind::Cbr { rate_bps, packet_size, on } = &source.kind;
        let on_time: u64 =
            on.iter().fold(0u64, |sum, (start, stop)| sum.saturating_add(stop.saturating_sub(*start)));
        let sent =
            u128::from(*rate_bps) * u128::from(on_time) / 8_000_000_000 / u128::from((*packet_size).max(1));
        senders = senders.saturating_add(sent.min(u128::from(u64::MAX)) as u64 + 1);
    }
    if senders < links {
        (senders, "what the senders' windows and sources allow".to_string())
    } else {
        (links, "what the links can hold".to_string())
    }
}

/// Samples of a recorded run: one at 0 and one every `sample_interval` up to the end.
fn samples(scenario: &Scenario) -> u64 {
    scenario.duration / scenario.sample_interval.max(1) + 1
}

/// A high-probability bound on the flows an arrival table starts (Poisson: mean plus six standard
/// deviations, at most `max_flows`) and on those open at once (Little's law, bounded the same way).
fn arrival_counts(scenario: &Scenario, table: &crate::model::ArrivalsSpec) -> (u64, u64) {
    let end = table.stop.unwrap_or(scenario.duration).min(scenario.duration);
    let span = end.saturating_sub(table.start) as f64;
    let interarrival = table.mean_interarrival.max(1) as f64;
    let bound = |mean: f64| (mean + 6.0 * mean.sqrt() + 16.0).min(table.max_flows as f64) as u64;
    let started = bound(span / interarrival);
    let open = bound(table.mean_duration.min(end) as f64 / interarrival).min(started);
    (started, open)
}

/// Refuse a run whose estimate exceeds `max_memory_bytes`, or whose series would exceed
/// [`MAX_SERIES_ROWS`], with the numbers and what to change.
pub fn check(scenario: &Scenario, recording: Recording, max_memory_bytes: u64) -> Result<(), ScenarioError> {
    let estimate = estimate(scenario, recording);
    let fail = |field: &str, message: String| ScenarioError {
        file: scenario.source.clone(),
        field: field.to_string(),
        message,
    };
    if estimate.series_rows > MAX_SERIES_ROWS {
        return Err(fail(
            "scenario.sample_interval",
            format!(
                "the time series would have {} rows ({} samples of {} flows and links, one every {}); \
                 at most {MAX_SERIES_ROWS}: raise scenario.sample_interval or shorten scenario.duration",
                estimate.series_rows,
                samples(scenario),
                scenario.flows.len() + scenario.links.len(),
                crate::fields::units::format_duration(scenario.sample_interval),
            ),
        ));
    }
    let total = estimate.total_bytes();
    if total <= max_memory_bytes {
        return Ok(());
    }
    let largest = estimate.largest().expect("an estimate has parts");
    let fix = match (recording, largest.field.as_str()) {
        (Recording::Memory, "scenario.sample_interval") => {
            "raise scenario.sample_interval, shorten scenario.duration, or write the series to disk \
             as the run goes (`westwood run --out DIR`)"
        }
        (_, "links") => "make the queues shorter (queue = N packets, or \"bdp\")",
        (_, "tcp.receiver_window") => "make the receiver windows (tcp.receiver_window) or the queues smaller",
        _ => "make the scenario smaller",
    };
    Err(fail(
        &largest.field,
        format!(
            "this run would need about {} of memory, most of it for {} ({}); the limit is {}: {fix}, \
             or raise the limit (--max-memory, or max_memory= in the Python API)",
            human_bytes(total),
            largest.what,
            human_bytes(largest.bytes),
            human_bytes(max_memory_bytes),
        ),
    ))
}

/// `1.2 GB`, `340 MB`, `12 kB`, `100 B`.
pub fn human_bytes(bytes: u64) -> String {
    let b = bytes as f64;
    for (unit, size) in [("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)] {
        if b >= size {
            return format!("{:.1} {unit}", b / size);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario;

    fn load(text: &str, overrides: &[(&str, &str)]) -> Scenario {
        let overrides: Vec<(String, String)> =
            overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        scenario::load_str(text, "test.toml", &overrides).expect("valid scenario")
    }

    const WIRELESS: &str = include_str!("../../../scenarios/wireless.toml");
    const DUMBBELL: &str = include_str!("../../../scenarios/dumbbell.toml");

    #[test]
    fn a_committed_scenario_fits_the_default_limit_with_its_series_in_memory() {
        let s = load(WIRELESS, &[]);
        assert!(check(&s, Recording::Memory, DEFAULT_MAX_MEMORY_BYTES).is_ok());
    }

    /// The tester's `sample_interval = 1ns` for 1 s: 3 × 10^9 rows, refused before the run.
    #[test]
    fn nanosecond_sampling_is_refused_with_the_row_count() {
        let s = load(WIRELESS, &[("scenario.sample_interval", "1us"), ("duration", "1000s")]);
        let e = check(&s, Recording::Streamed, DEFAULT_MAX_MEMORY_BYTES).unwrap_err();
        assert_eq!(e.field, "scenario.sample_interval");
        assert!(e.message.contains("at most 100000000"), "{e}");
    }

    /// A 1000-flow dumbbell with its series in memory needs GBs; streamed, it fits.
    #[test]
    fn wide_series_in_memory_are_refused_but_fit_when_streamed() {
        let s = load(DUMBBELL, &[("flows", "1000")]);
        let e = check(&s, Recording::Memory, DEFAULT_MAX_MEMORY_BYTES).unwrap_err();
        assert_eq!(e.field, "scenario.sample_interval");
        assert!(e.message.contains("--out DIR") && e.message.contains("GB"), "{e}");
        assert!(check(&s, Recording::Streamed, DEFAULT_MAX_MEMORY_BYTES).is_ok());
        assert!(check(&s, Recording::Off, DEFAULT_MAX_MEMORY_BYTES).is_ok());
    }

    /// A queue of 10^8 packets behind a receiver window of 2 GB (10^6 segments at once by the
    /// initial window) grew past 200 MB under a limit of 100 MB; the windows bound it.
    #[test]
    fn what_queues_and_windows_can_hold_counts_against_the_limit() {
        let huge = [
            ("flows", "1"),
            ("links.bottleneck.queue", "100000000"),
            ("links.access_left.queue", "100000000"),
            ("tcp.receiver_window", "2GB"),
        ];
        let s = load(DUMBBELL, &huge);
        let e = check(&s, Recording::Off, 100_000_000).unwrap_err();
        assert_eq!(e.field, "tcp.receiver_window");
        assert!(e.message.contains("packets held at once (at most 4000002"), "{e}");
        // A UDP source adds all it sends in the run: 10 Gb/s for 60 s into those queues.
        let source =
            "[sources.udp]\nkind = \"cbr\"\nfrom = \"senders\"\nto = \"receivers\"\nrate = \"10Gbps\"\n";
        let small_window = [&huge[..3], &[("tcp.receiver_window", "1MB")]].concat();
        let s = load(&format!("{DUMBBELL}\n{source}"), &small_window);
        let e = check(&s, Recording::Off, 1_000_000_000).unwrap_err();
        assert!(e.message.contains("packets held at once"), "{e}");
        // The committed scenario with a source whose queues are sized for a 1 s round trip at
        // 1 Gb/s (seed 001's bursty traffic) fits: its senders cannot fill them.
        let bursty = include_str!("../../../scenarios/seed001_bursty.toml");
        assert!(check(&load(bursty, &[]), Recording::Off, DEFAULT_MAX_MEMORY_BYTES).is_ok());
        // The committed dumbbell's 1000 flows share its queues: tens of MB.
        let s = load(DUMBBELL, &[("flows", "1000")]);
        let (packets, _) = packets_held(&s);
        assert!(packets * BYTES_PER_PACKET_HELD < 100_000_000, "{packets}");
    }

    #[test]
    fn bytes_read_for_people() {
        assert_eq!(human_bytes(100), "100 B");
        assert_eq!(human_bytes(1 << 30), "1.1 GB");
        assert_eq!(human_bytes(DEFAULT_MAX_MEMORY_BYTES), "1.0 GB");
        assert_eq!(human_bytes(3_570_000_000), "3.6 GB");
    }
}
