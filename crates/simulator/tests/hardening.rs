//! The fault campaign's reproducers (wrapped time, goodput over a millisecond, unbounded series,
//! runs that ignore Ctrl-C), kept as regression tests: each input now gives a correct result or
//! a clear refusal.

use std::cell::Cell;
use std::path::PathBuf;

use westwood_simulator::budget::{human_bytes, DEFAULT_MAX_MEMORY_BYTES};
use westwood_simulator::model::Scenario;
use westwood_simulator::results::RunOptions;
use westwood_simulator::scenario::{load_file, ScenarioError};
use westwood_simulator::series::{SeriesCsvFiles, SeriesMemory};
use westwood_simulator::{run, run_with, RunControl, RunError};

fn load(name: &str, sets: &[(&str, &str)]) -> Result<Scenario, ScenarioError> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios").join(name);
    let sets: Vec<(String, String)> = sets.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    load_file(&path, &sets)
}

const CHECKED: RunOptions = RunOptions { record_series: false, check_invariants: true };

/// `flows.ftp.stop = 1ms` reported 12.8 Mb/s on a 2 Mb/s link: the bytes of the first window,
/// delivered after the stop, were divided by 1 ms. Goodput now counts what was delivered while
/// the flow was active, and the capacity invariant holds.
#[test]
fn goodput_of_a_flow_stopped_early_stays_within_the_link() {
    for stop in ["0.001s", "0.2s", "3s"] {
        let s = load("wireless.toml", &[("flows.ftp.stop", stop), ("duration", "20s")]).unwrap();
        let f = &run(&s, CHECKED).unwrap().summary.flows[0];
        assert!(f.goodput_bps <= 2e6 && f.throughput_bps <= 2e6, "stop {stop}: {f:?}");
        assert!(f.goodput_bps <= f.throughput_bps);
    }
}

/// `wired_delay = 18446744073s` wrapped the clock: now refused with the bound.
#[test]
fn a_delay_that_would_wrap_the_clock_is_refused() {
    let e = load("wireless.toml", &[("wired_delay", "18446744073s"), ("duration", "10s")]).unwrap_err();
    assert!(e.to_string().contains("at most 1000000s"), "{e}");
    // Long delays near the bound run with exact time: no sample can be shorter than the path's
    // 2000 s round trip (the 1 s initial RTO fires first, so Karn's rule may leave none).
    let s = load("wireless.toml", &[("wired_delay", "1000s"), ("duration", "9000s")]).unwrap();
    let f = &run(&s, CHECKED).unwrap().summary.flows[0];
    assert!(f.min_rtt_seconds == 0.0 || f.min_rtt_seconds > 2000.0, "{f:?}");
    assert!(f.bytes_delivered > 0 && f.goodput_bps <= 2e6, "{f:?}");
}

/// A run stops at the first check after an interrupt, with no result.
#[test]
fn an_interrupted_run_stops_within_one_check() {
    let s = load("wireless.toml", &[("duration", "100000s")]).unwrap();
    let asked = Cell::new(0u32);
    let stop_on_second = || {
        asked.set(asked.get() + 1);
        asked.get() >= 2
    };
    let started = std::time::Instant::now();
    let control = RunControl { interrupted: Some(&stop_on_second), ..RunControl::default() };
    let result = run_with(&s, RunOptions::default(), control);
    assert!(matches!(result, Err(RunError::Interrupted)), "{result:?}");
    assert_eq!(asked.get(), 2);
    assert!(started.elapsed().as_secs_f64() < 5.0);
}

/// Series streamed to files hold the same rows as series kept in memory.
#[test]
fn streamed_series_equal_the_series_in_memory() {
    let s = load("wireless.toml", &[("duration", "3s"), ("loss", "1%")]).unwrap();
    let mut memory = SeriesMemory::default();
    let control = RunControl { series_sink: Some(&mut memory), ..RunControl::default() };
    let streamed = run_with(&s, RunOptions::default(), control).unwrap();
    assert!(streamed.flow_series.is_none(), "streamed series are not returned");
    let kept = run(&s, RunOptions { record_series: true, check_invariants: false }).unwrap();
    // Compared as text: NaN (no RTT sample yet, no BWE for Reno) is not equal to itself.
    assert_eq!(format!("{:?}", Some(&memory.flows)), format!("{:?}", kept.flow_series.as_ref()));
    assert_eq!(format!("{:?}", Some(&memory.links)), format!("{:?}", kept.link_series.as_ref()));

    let dir = std::env::temp_dir().join(format!("westwood-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = SeriesCsvFiles::create(&dir).unwrap();
    let control = RunControl { series_sink: Some(&mut files), ..RunControl::default() };
    run_with(&s, RunOptions::default(), control).unwrap();
    files.commit().unwrap();
    let rows = std::fs::read_to_string(dir.join("flow_series.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows, memory.flows.time_seconds.len());
    let rows = std::fs::read_to_string(dir.join("link_series.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows, memory.links.time_seconds.len());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `sample_interval = 1us` for 1000 s is 3 × 10^9 rows: refused before anything is built, with
/// the count, whether the rows would go to memory or to disk.
#[test]
fn series_beyond_the_row_limit_are_refused_up_front() {
    let s = load("wireless.toml", &[("scenario.sample_interval", "1us"), ("duration", "1000s")]).unwrap();
    let e = run(&s, RunOptions { record_series: true, check_invariants: false }).unwrap_err();
    assert!(e.message.contains("rows"), "{e}");
    let mut sink = SeriesMemory::default();
    let control = RunControl { series_sink: Some(&mut sink), ..RunControl::default() };
    assert!(matches!(run_with(&s, RunOptions::default(), control), Err(RunError::Scenario(_))));
    assert!(sink.flows.time_seconds.is_empty());
}

/// The 1000 × 1000 grid the docs allowed aborted in the allocator; a grid whose routing tables
/// alone exceed the limit (150 × 150: 22 500 nodes, 4 GB) is refused with the memory it
/// would need, before anything is built.
#[test]
fn a_grid_too_large_for_memory_is_refused_with_the_estimate() {
    let text = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/multipath_grid.toml"),
    )
    .unwrap()
    .replacen("rows = 8", "rows = 150", 1)
    .replacen("cols = 8", "cols = 150", 1);
    let sets = [("duration".to_string(), "1s".to_string())];
    let s = westwood_simulator::scenario::load_str(&text, "grid.toml", &sets)
        .expect("the generator accepts 150 x 150");
    let e = run(&s, RunOptions::default()).unwrap_err();
    assert!(e.message.contains("memory") && e.message.contains("routing"), "{e}");
    assert!(e.message.contains(&human_bytes(DEFAULT_MAX_MEMORY_BYTES)), "{e}");
    // The 1000 x 1000 grid itself is refused by the generator, before it builds 4 million links.
    let text = text.replacen("rows = 150", "rows = 1000", 1).replacen("cols = 150", "cols = 1000", 1);
    let e = westwood_simulator::scenario::load_str(&text, "grid.toml", &sets).unwrap_err();
    assert!(e.field == "topology.rows" && e.message.contains("1000000 nodes; at most 32768"), "{e}");
}
