//! Deterministic packet-level discrete-event network simulator.
//!
//! * [`model`] — the validated scenario (typed, integer units).
//! * [`profile`] — TCP profiles (`paper`, `ns2`, `linux`): bundles of sender and receiver behaviours.
//! * [`scenario`] — TOML scenario files: parameters, overrides, units, validation.
//! * [`engine`] — integer-nanosecond event queue and seeded RNG streams.
//! * [`network`] — packets, links, queues, channel error models, routing.
//! * [`tcp`] — TCP sender and receiver.
//! * [`sim`] — builds a network from a scenario, runs it, collects [`results`].
//! * [`traffic`] — flows arriving during the run.
//! * [`metrics`] — Jain's fairness index, per-protocol shares.
//! * [`stall`] — a flow's longest stall (its cumulative ACK standing still).
//! * [`warnings`] — scenarios that defeat themselves: the summary's warnings, strict runs.
//! * [`invariants`] — TCP invariant checks enabled in tests.
//! * [`ack_trace`] — the per-ACK trace of a run (`docs/ack-trace.md`): sinks, the trace file.
//! * [`pcap`] — packet captures of a run (`docs/measurement.md`).

pub mod ack_trace;
pub mod budget;
pub mod engine;
pub mod fields;
pub mod invariants;
pub mod metrics;
pub mod model;
pub mod network;
pub mod pcap;
pub mod profile;
pub mod replay;
pub mod results;
pub mod scenario;
pub mod series;
pub mod sim;
pub mod stall;
pub mod tcp;
pub mod traffic;
pub mod warnings;

pub use ack_trace::{AckSink, AckTraceFile, RunError};
pub use results::{RunOptions, RunResult};
pub use sim::{run, run_with, run_with_ack_trace, run_with_ack_trace_file, RunControl};
