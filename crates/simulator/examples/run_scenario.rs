//! Run a scenario file from Rust alone and print its summary as JSON — handy for profiling the
//! engine without the Python front end:
//!
//! ```text
//! cargo run --release --example run_scenario -- scenarios/dumbbell.toml [KEY=VALUE ...]
//! ```

use std::process::ExitCode;
use westwood_simulator::{run, scenario, RunOptions};

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: run_scenario SCENARIO.toml [KEY=VALUE ...]");
        return ExitCode::from(2);
    };
    let mut overrides = Vec::new();
    for arg in args {
        let Some((key, value)) = arg.split_once('=') else {
            eprintln!("run_scenario: override '{arg}' is not KEY=VALUE");
            return ExitCode::from(2);
        };
        overrides.push((key.to_string(), value.to_string()));
    }
    // Loading (parse, overrides, checks, flow expansion) is timed on its own: the run's
    // `wall_seconds` does not include it, and a slow set-up would otherwise go unseen.
    let started = std::time::Instant::now();
    let result = scenario::load_file(path.as_ref(), &overrides).and_then(|s| {
        eprintln!("loaded {} flows in {:.3} s", s.flows.len(), started.elapsed().as_secs_f64());
        run(&s, RunOptions::default())
    });
    match result {
        Ok(result) => {
            let s = &result.summary;
            println!("{}", serde_json::to_string_pretty(s).expect("summary serialises"));
            eprintln!(
                "{} events in {:.3} s: {:.2} M events/s, {:.2} M packets/s",
                s.events,
                s.wall_seconds,
                s.events as f64 / s.wall_seconds / 1e6,
                s.packets as f64 / s.wall_seconds / 1e6
            );
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("run_scenario: {e}");
            ExitCode::from(2)
        }
    }
}
