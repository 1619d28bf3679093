//! Fuzzing the scenario loader and the run: the committed scenario files, mutated at random
//! (values swapped for edge values, keys deleted or invented, the text cut or salted with control
//! characters), must each load into a scenario that runs to valid numbers, or fail with a clean
//! error. No panic, no run longer than a bound, no memory beyond the budget.
//!
//! 10 000 cases by default (`WESTWOOD_FUZZ_CASES` sets another number, `WESTWOOD_FUZZ_SEED` another
//! seed). A failing case prints its scenario text, to keep as a regression test.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use toml::{Table, Value};
use westwood_simulator::engine::rng::RngStream;
use westwood_simulator::model::NANOS_PER_SECOND;
use westwood_simulator::results::RunOptions;
use westwood_simulator::scenario::load_str;
use westwood_simulator::{run_with, RunControl, RunError};

/// Runs are cut to this much simulated time: the test is about inputs, not long runs.
const SIMULATED: u64 = NANOS_PER_SECOND / 2;
/// A run of half a simulated second that takes longer than this (debug build) is a failure.
const WALL_LIMIT: Duration = Duration::from_secs(20);
/// What a fuzzed run may hold.
const MAX_MEMORY: u64 = 256_000_000;

fn scenario_texts() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .map(|p| {
            (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Edge values: zero, tiny, huge, negative, wrong type, wrong unit, not a number, empty, long.
fn edge_value(rng: &mut RngStream) -> Value {
    const TEXT: &[&str] = &[
        "0s",
        "1ns",
        "1us",
        "1ms",
        "10s",
        "1000000s",
        "1000001s",
        "18446744073s",
        "-1s",
        "1e400s",
        "1.5",
        "NaN",
        "inf",
        "",
        "0%",
        "100%",
        "1e-9",
        "5%",
        "-5%",
        "0Mbps",
        "1bps",
        "10Tbps",
        "11Tbps",
        "1B",
        "0B",
        "1PB",
        "2PB",
        "bdp",
        "reno",
        "newreno",
        "sack",
        "tahoe",
        "westwood",
        "westwood-tr",
        "westwood-abse",
        "westwood-plus",
        "westwood-ucla",
        "westwood-ucla-nr",
        "cubic",
        "linux",
        "ns2",
        "paper",
        "interval",
        "\u{0}",
        "${missing}",
        "${duration}",
        "auto",
        "stationary",
        "a,b\"c",
        "πφ",
    ];
    match rng.below(10) {
        0..=4 => Value::String(TEXT[rng.below(TEXT.len() as u64) as usize].to_string()),
        5 => Value::Integer(
            [0, 1, -1, 2, 3, 64, 1000, 100_000, i64::from(u32::MAX), i64::MAX][rng.below(10) as usize],
        ),
        6 => Value::Float([0.0, -1.0, 0.5, 1e308, f64::NAN, f64::INFINITY][rng.below(6) as usize]),
        7 => Value::Boolean(rng.below(2) == 0),
        8 => match rng.below(3) {
            0 => Value::Array(vec![]),
            1 => Value::Array(vec![Value::String("1s".into()), Value::String("2s".into())]),
            _ => Value::Array(vec![Value::Array(vec![
                Value::String("0s".into()),
                Value::String("0.1s".into()),
            ])]),
        },
        _ => Value::String("x".repeat(1 + rng.below(20_000) as usize)),
    }
}

/// `v` times a factor from 0 to 1000, keeping its unit (`"10ms"` → `"0.1ms"`, `8` → `8000`).
fn scaled(v: &Value, rng: &mut RngStream) -> Option<Value> {
    const FACTORS: &[f64] = &[0.0, 0.001, 0.01, 0.1, 0.5, 2.0, 10.0, 100.0, 1000.0];
    let factor = FACTORS[rng.below(FACTORS.len() as u64) as usize];
    match v {
        Value::Integer(i) => Some(Value::Integer((*i as f64 * factor).round() as i64)),
        Value::Float(x) => Some(Value::Float(x * factor)),
        Value::String(text) => {
            let end = text.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(text.len());
            let number: f64 = text[..end].parse().ok()?;
            Some(Value::String(format!("{}{}", number * factor, &text[end..])))
        }
        _ => None,
    }
}

/// Dotted paths of every leaf of `table` (tables are walked, everything else is a leaf).
fn leaves(table: &Table, prefix: &str, out: &mut Vec<String>) {
    for (key, value) in table {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}\u{1}{key}") };
        match value {
            Value::Table(t) => leaves(t, &path, out),
            _ => out.push(path),
        }
    }
}

fn parent_of<'t>(table: &'t mut Table, path: &str) -> Option<(&'t mut Table, String)> {
    let mut parts: Vec<&str> = path.split('\u{1}').collect();
    let last = parts.pop()?.to_string();
    let mut at = table;
    for part in parts {
        at = at.get_mut(part)?.as_table_mut()?;
    }
    Some((at, last))
}

/// One to three mutations of the scenario's TOML tree, or of its text.
fn mutate(text: &str, rng: &mut RngStream) -> String {
    let mut table: Table = text.parse().expect("committed scenarios parse");
    for _ in 0..1 + rng.below(2) {
        let mut paths = Vec::new();
        leaves(&table, "", &mut paths);
        if paths.is_empty() {
            break;
        }
        let path = paths[rng.below(paths.len() as u64) as usize].clone();
        let Some((parent, key)) = parent_of(&mut table, &path) else { continue };
        match rng.below(10) {
            0 => {
                parent.remove(&key);
            }
            1 => {
                parent.insert(format!("{key}_typo"), edge_value(rng));
            }
            2..=4 => {
                parent.insert(key, edge_value(rng));
            }
            // Most often a plausible but extreme value: the same quantity, scaled.
            _ => {
                let scaled = parent.get(&key).and_then(|v| scaled(v, rng));
                if let Some(v) = scaled {
                    parent.insert(key, v);
                }
            }
        }
    }
    let mut out = toml::to_string(&table).expect("a TOML tree serialises");
    match rng.below(20) {
        // Cut the text anywhere on a character boundary.
        0 => {
            let mut at = rng.below(out.len() as u64 + 1) as usize;
            while !out.is_char_boundary(at) {
                at -= 1;
            }
            out.truncate(at);
        }
        // A control character somewhere.
        1 => {
            let mut at = rng.below(out.len() as u64 + 1) as usize;
            while !out.is_char_boundary(at) {
                at -= 1;
            }
            out.insert(at, ['\u{0}', '\u{7}', '\u{1b}', '\r'][rng.below(4) as usize]);
        }
        _ => {}
    }
    out
}

/// Numbers a valid run must report.
fn check_result(result: &westwood_simulator::RunResult) -> Result<(), String> {
    let s = &result.summary;
    for f in &s.flows {
        let ok = f.goodput_bps.is_finite()
            && f.throughput_bps.is_finite()
            && 0.0 <= f.goodput_bps
            && f.goodput_bps <= f.throughput_bps * (1.0 + 1e-9)
            && f.min_rtt_seconds >= 0.0
            && f.active_seconds >= 0.0;
        if !ok {
            return Err(format!("impossible flow numbers: {f:?}"));
        }
    }
    for l in &s.links {
        if !(0.0..=1.0).contains(&l.utilization) {
            return Err(format!("utilization {} of link {}", l.utilization, l.name));
        }
    }
    serde_json::to_string(s).map_err(|e| format!("summary does not serialise: {e}"))?;
    Ok(())
}

/// Load and run one case; `Err` describes a failure of the simulator (not of the input).
fn one_case(text: &str) -> Result<(), String> {
    let mut scenario = match load_str(text, "fuzz.toml", &[]) {
        Ok(s) => s,
        Err(e) => {
            let message = e.to_string();
            if message.trim().is_empty() || message.len() > 4000 {
                return Err(format!("unclear error ({} bytes): {message:.300}", message.len()));
            }
            return Ok(());
        }
    };
    scenario.duration = scenario.duration.min(SIMULATED);
    let started = Instant::now();
    let too_long = || started.elapsed() > WALL_LIMIT;
    let options = RunOptions { record_series: true, check_invariants: true };
    let control =
        RunControl { interrupted: Some(&too_long), max_memory_bytes: MAX_MEMORY, ..RunControl::default() };
    match run_with(&scenario, options, control) {
        Ok(result) => check_result(&result),
        Err(RunError::Interrupted) => {
            Err(format!("{:.1} s simulated took over {WALL_LIMIT:?}", SIMULATED as f64 / 1e9))
        }
        Err(RunError::Scenario(e)) if e.message.starts_with("TCP invariant violated") => Err(e.to_string()),
        Err(RunError::Scenario(_)) => Ok(()),
        Err(e) => Err(format!("unexpected error: {e}")),
    }
}

#[test]
fn mutated_scenarios_load_and_run_or_fail_cleanly() {
    let cases: u64 = std::env::var("WESTWOOD_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    let seed: u64 = std::env::var("WESTWOOD_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let texts = scenario_texts();
    let mut rng = RngStream::new(seed, "fuzz");
    let (mut loaded, mut refused) = (0u64, 0u64);
    let started = Instant::now();
    for case in 0..cases {
        let (name, text) = &texts[rng.below(texts.len() as u64) as usize];
        let mutated = mutate(text, &mut rng);
        let outcome = catch_unwind(AssertUnwindSafe(|| one_case(&mutated)))
            .unwrap_or_else(|panic| Err(format!("panic: {:?}", panic.downcast_ref::<String>())));
        if let Err(why) = outcome {
            panic!("case {case} (from {name}, seed {seed}): {why}\n--- scenario ---\n{mutated:.5000}");
        }
        match load_str(&mutated, "fuzz.toml", &[]) {
            Ok(_) => loaded += 1,
            Err(_) => refused += 1,
        }
    }
    eprintln!(
        "{cases} mutated scenarios in {:.1} s: {loaded} loaded and ran, {refused} refused cleanly",
        started.elapsed().as_secs_f64()
    );
    // The mutations must exercise both sides, or the test proves little.
    assert!(loaded > cases / 10 && refused > cases / 10, "loaded {loaded}, refused {refused}");
}
