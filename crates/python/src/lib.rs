//! `westwood._core`: the thin PyO3 layer between the Python front end and the simulator.
//!
//! It only loads a scenario file (with `--set`-style overrides), runs it with the GIL released
//! and hands the results back in plain Python types: the summary as a JSON string (so its schema
//! is defined once, by `serde` in the simulator) and time series as `dict[str, list]` columns.
//! Everything else (paths, DataFrames, CLI, reports) lives in the Python package.

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use westwood_simulator::results::{FlowSeries, LinkSeries, RunOptions};
use westwood_simulator::scenario::{self, ScenarioError as SimScenarioError};
use westwood_simulator::RunError;

create_exception!(
    westwood._core,
    ScenarioError,
    PyValueError,
    "A scenario file, an override or a run was invalid; the message names the file and field."
);

fn scenario_error(err: SimScenarioError) -> PyErr {
    ScenarioError::new_err(err.to_string())
}

/// A scenario problem is a `ScenarioError`; failing to write the trace is an `OSError`.
fn run_error(err: RunError) -> PyErr {
    match err {
        RunError::Scenario(e) => scenario_error(e),
        RunError::Trace(e) => PyOSError::new_err(format!("cannot write the per-ACK trace: {e}")),
    }
}

fn flow_series_dict<'py>(py: Python<'py>, s: &FlowSeries) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_seconds", &s.time_seconds)?;
    d.set_item("flow", &s.flow)?;
    d.set_item("cwnd_bytes", &s.cwnd_bytes)?;
    d.set_item("ssthresh_bytes", &s.ssthresh_bytes)?;
    d.set_item("srtt_seconds", &s.srtt_seconds)?;
    d.set_item("bwe_bps", &s.bwe_bps)?;
    d.set_item("bytes_delivered", &s.bytes_delivered)?;
    d.set_item("snd_max", &s.snd_max)?;
    d.set_item("snd_una", &s.snd_una)?;
    Ok(d)
}

fn link_series_dict<'py>(py: Python<'py>, s: &LinkSeries) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("time_seconds", &s.time_seconds)?;
    d.set_item("link", &s.link)?;
    d.set_item("queue_packets", &s.queue_packets)?;
    d.set_item("queue_bytes", &s.queue_bytes)?;
    d.set_item("queue_avg_packets", &s.queue_avg_packets)?;
    d.set_item("drops_overflow", &s.drops_overflow)?;
    d.set_item("drops_red", &s.drops_red)?;
    d.set_item("drops_error", &s.drops_error)?;
    d.set_item("drops_outage", &s.drops_outage)?;
    Ok(d)
}

type RunOutput<'py> = (String, Option<Bound<'py, PyDict>>, Option<Bound<'py, PyDict>>);

/// Load the scenario at `path`, apply `overrides` (name, value) and `seed`, and run it.
///
/// Returns `(summary_json, flow_series, link_series)`; the series are `None` unless `record`.
/// With `ack_trace`, the per-ACK trace (docs/ack-trace.md) is written to that path, which
/// appears only if the run succeeds. Raises `ScenarioError` for an invalid scenario, override or
/// run, `OSError` when the trace cannot be written.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new(), seed = None, record = false, check_invariants = false, ack_trace = None))]
fn run<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    record: bool,
    check_invariants: bool,
    ack_trace: Option<PathBuf>,
) -> PyResult<RunOutput<'py>> {
    let options = RunOptions { record_series: record, check_invariants };
    let result = py
        .detach(move || {
            let mut scenario = scenario::load_file(&path, &overrides)?;
            if let Some(seed) = seed {
                scenario.seed = seed;
            }
            match &ack_trace {
                Some(trace) => westwood_simulator::run_with_ack_trace_file(&scenario, options, trace),
                None => westwood_simulator::run(&scenario, options).map_err(RunError::Scenario),
            }
            // Errors found while building the network (e.g. a flow without a route) name the
            // scenario; name the file instead, like the loader's errors do.
            .map_err(|e| match e {
                RunError::Scenario(e) => {
                    RunError::Scenario(SimScenarioError { file: path.display().to_string(), ..e })
                }
                trace => trace,
            })
        })
        .map_err(run_error)?;
    let summary = serde_json::to_string(&result.summary)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot serialise summary: {e}")))?;
    let flows = result.flow_series.as_ref().map(|s| flow_series_dict(py, s)).transpose()?;
    let links = result.link_series.as_ref().map(|s| link_series_dict(py, s)).transpose()?;
    Ok((summary, flows, links))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    Ok(())
}
