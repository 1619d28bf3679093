//! Adding a congestion control takes its file and one registry entry, nothing in the simulator:
//! a toy control, defined and registered in this file, runs from a scenario by its name and by
//! its kernel name, takes its parameter table, gets its default recovery, and prints its name.

use westwood_algorithms::registry::{self, CcEntry, Param, ParamKind, ParamValues, ParameterTable};
use westwood_algorithms::westwood::AckedCountRule;
use westwood_algorithms::{AckEvent, CongestionControl, CongestionEvent, WindowConfig};
use westwood_simulator::scenario::load_str;
use westwood_simulator::{run, RunOptions};

/// The toy: a fixed window of `segments` segments, whatever happens. With no loss, a flow
/// running it is window-limited to `segments * mss` per round trip.
struct FixedWindow {
    window: u64,
}

impl CongestionControl for FixedWindow {
    fn on_ack(&mut self, _: &AckEvent) {}
    fn on_congestion(&mut self, _: CongestionEvent) {}
    fn on_recovery_exit(&mut self, _: u64) {}
    fn cwnd(&self) -> u64 {
        self.window
    }
    fn ssthresh(&self) -> u64 {
        self.window
    }
}

fn build(config: WindowConfig, p: &ParamValues, _: Option<AckedCountRule>) -> Box<dyn CongestionControl> {
    Box::new(FixedWindow { window: u64::from(p.integer("segments").unwrap_or(2)) * config.mss })
}

/// The one registry line.
static TOY: CcEntry = CcEntry {
    name: "toy-fixed",
    kernel: Some("toy_fixed"),
    ebpf: None,
    default_recovery: "newreno",
    reference_tcp: &[],
    parameters: Some(ParameterTable {
        key: "toy_fixed",
        params: &[Param { key: "segments", kind: ParamKind::Integer { min: 1, max: 1000, beyond: "" } }],
    }),
    build,
};

const SCENARIO: &str = r#"
[scenario]
duration = "20s"
[topology]
nodes = ["a", "b"]
[links.l]
from = "a"
to = "b"
rate = "10Mbps"
delay = "50ms"
[flows.f]
from = "a"
to = "b"
"#;

#[test]
fn a_registered_toy_control_runs_in_the_simulator() {
    registry::register(&TOY).unwrap();
    for (cc, segments) in [("toy-fixed", 4u64), ("TOY_FIXED", 8)] {
        let text = format!("{SCENARIO}cc = \"{cc}\"\ntoy_fixed = {{ segments = {segments} }}\n");
        let scenario = load_str(&text, "toy.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let tcp = &scenario.flows[0].tcp;
        assert_eq!((tcp.cc.name(), tcp.recovery.name()), ("toy-fixed", "newreno"));
        let summary =
            run(&scenario, RunOptions { check_invariants: true, ..Default::default() }).unwrap().summary;
        let flow = &summary.flows[0];
        assert_eq!(flow.cc, "toy-fixed", "the registry's name is printed, whatever the scenario wrote");
        // A window of `segments` segments per ~100 ms round trip (plus queueing and delayed
        // ACKs), far below the 10 Mb/s the link would carry.
        let window_bps = (segments * tcp.segment_size * 8) as f64 / 0.1;
        assert!(
            flow.goodput_bps > 0.8 * window_bps && flow.goodput_bps < 1.05 * window_bps,
            "{cc}: goodput {} vs window/RTT {window_bps}",
            flow.goodput_bps
        );
    }
    // The registry's schema checks the table like any built-in control's.
    let text = format!("{SCENARIO}cc = \"toy-fixed\"\ntoy_fixed = {{ segments = 0 }}\n");
    let err = load_str(&text, "toy.toml", &[]).unwrap_err();
    assert_eq!(err.field, "flows.f.toy_fixed.segments", "{err}");
    let text = format!("{SCENARIO}cc = \"reno\"\ntoy_fixed = {{ segments = 3 }}\n");
    let err = load_str(&text, "toy.toml", &[]).unwrap_err();
    assert_eq!(err.field, "flows.f.toy_fixed", "{err}");
}
