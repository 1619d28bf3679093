//! `westwood._core`: the thin PyO3 layer between the Python front end and the simulator.
//!
//! It only loads a scenario file (with `--set`-style overrides), runs it with the GIL released
//! and hands the results back in plain Python types: the summary as a JSON string (so its schema
//! is defined once, by `serde` in the simulator) and time series as `dict[str, list]` columns.
//! It also exports what the front end must agree on with the simulator: the result tables'
//! column order (`FLOW_COLUMNS`, ...) and the registry of congestion controls.
//! Everything else (paths, DataFrames, CLI, reports) lives in the Python package.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use westwood_simulator::budget::DEFAULT_MAX_MEMORY_BYTES;
use westwood_simulator::replay::{
    self as replaying, Decimator, ReplayConfig, ReplayError, ReplayRow, Replayer,
};
use westwood_simulator::results::{FlowSeries, LinkSeries, RunOptions};
use westwood_simulator::scenario::{self, ScenarioError as SimScenarioError};
use westwood_simulator::series::{SeriesCsvFiles, SeriesSink};
use westwood_simulator::{AckSink, AckTraceFile, RunControl, RunError};

mod json;
mod pcap;

create_exception!(
    westwood._core,
    ScenarioError,
    PyValueError,
    "A scenario file, an override or a run was invalid; the message names the file and field."
);

create_exception!(
    westwood._core,
    StrictError,
    ScenarioError,
    "A strict run refused a scenario that defeats itself; `warnings` holds the summary records."
);

create_exception!(
    westwood._core,
    TraceError,
    PyValueError,
    "A per-ACK trace could not be read; the message names the file, the line and the column."
);

fn scenario_error(err: SimScenarioError) -> PyErr {
    ScenarioError::new_err(err.to_string())
}

/// A scenario problem is a `ScenarioError` (a strict run's refusal the `StrictError` kind of it,
/// with the warnings' records, as the summary has them, in its `warnings` attribute); failing to
/// write an output is an `OSError`; a stopped run re-raises what stopped it (`KeyboardInterrupt`
/// for Ctrl-C).
fn run_error(py: Python<'_>, err: RunError, interrupt: Option<PyErr>) -> PyErr {
    if let RunError::Refused { warnings, .. } = &err {
        let error = StrictError::new_err(err.to_string());
        let records = serde_json::to_string(warnings)
            .ok()
            .and_then(|text| json::json_loads(py, &text).ok())
            .and_then(|records| error.value(py).setattr("warnings", records).ok());
        if records.is_none() {
            return PyRuntimeError::new_err(format!("cannot hand over the warnings of: {err}"));
        }
        return error;
    }
    match err {
        RunError::Scenario(e) => scenario_error(e),
        RunError::Trace(e) => PyOSError::new_err(format!("cannot write the per-ACK trace: {e}")),
        RunError::Series(e) => PyOSError::new_err(format!("cannot write the time series: {e}")),
        RunError::Capture(e) => PyOSError::new_err(format!("cannot write a packet capture: {e}")),
        RunError::Interrupted => interrupt.unwrap_or_else(|| PyKeyboardInterrupt::new_err("run interrupted")),
        RunError::Refused { .. } => unreachable!("handled above"),
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

/// Run the scenario file at `path` with `overrides` (`[(name, value)]`, as `--set` takes them).
/// Returns `(summary_json, flow_series, link_series)`; the series are `None` unless `record`.
/// With `ack_trace`, the per-ACK trace (docs/ack-trace.md) is written to that path; with
/// `series_dir`, the time series stream into `flow_series.csv` and `link_series.csv` there as the
/// run goes (and are not returned); each file appears only if the run succeeds. `max_memory`
/// (bytes) overrides the simulator's default limit on what the run may hold. With `strict`, a
/// scenario that defeats itself (the summary's `warnings`) is refused with `StrictError` (a
/// `ScenarioError`), before the run for what building the network finds, after it for what the
/// run finds, and no output file appears. Ctrl-C stops the run within milliseconds. Raises
/// `ScenarioError` for an invalid scenario, override or run (also one that would exceed the
/// memory limit), `OSError` when an output cannot be written, `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (path, overrides = Vec::new(), seed = None, record = false, check_invariants = false, ack_trace = None, series_dir = None, max_memory = None, pcap = None, strict = false))]
#[allow(clippy::too_many_arguments)]
fn run<'py>(
    py: Python<'py>,
    path: PathBuf,
    overrides: Vec<(String, String)>,
    seed: Option<u64>,
    record: bool,
    check_invariants: bool,
    ack_trace: Option<PathBuf>,
    series_dir: Option<PathBuf>,
    max_memory: Option<u64>,
    pcap: Option<pcap::CaptureRequest>,
    strict: bool,
) -> PyResult<RunOutput<'py>> {
    let options = RunOptions { record_series: record, check_invariants };
    let (result, interrupt) = py.detach(move || {
        // Python runs its signal handlers only when asked from the main thread; a KeyboardInterrupt
        // they raise is kept and re-raised once the run has stopped.
        let interrupt: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
        let interrupted = || match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *interrupt.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        };
        let result = (|| {
            let scenario = scenario::load_file(&path, &scenario::with_seed(&overrides, seed))?;
            let mut trace = ack_trace.as_ref().map(AckTraceFile::create).transpose()?;
            let mut series =
                series_dir.as_ref().map(SeriesCsvFiles::create).transpose().map_err(RunError::Series)?;
            let mut taps = pcap.as_ref().map(|p| p.taps(&scenario)).transpose()?;
            let control = RunControl {
                packet_tap: taps.as_mut().map(|t| t as &mut dyn westwood_simulator::pcap::PacketTap),
                ack_sink: trace.as_mut().map(|t| t as &mut dyn AckSink),
                series_sink: series.as_mut().map(|s| s as &mut dyn SeriesSink),
                interrupted: Some(&interrupted),
                max_memory_bytes: max_memory.unwrap_or(DEFAULT_MAX_MEMORY_BYTES),
                strict,
            };
            let result = westwood_simulator::run_with(&scenario, options, control)?;
            if let Some(taps) = taps {
                taps.commit(&result.summary).map_err(RunError::Capture)?;
            }
            if let Some(trace) = trace {
                trace.commit()?;
            }
            if let Some(series) = series {
                series.commit().map_err(RunError::Series)?;
            }
            Ok(result)
        })()
        // Errors found while building the network (e.g. a flow without a route) name the
        // scenario; name the file instead, like the loader's errors do.
        .map_err(|e| match e {
            RunError::Scenario(e) => {
                RunError::Scenario(SimScenarioError { file: path.display().to_string(), ..e })
            }
            RunError::Refused { warnings, .. } => {
                RunError::Refused { file: path.display().to_string(), warnings }
            }
            other => other,
        });
        (result, interrupt.into_inner().unwrap_or_else(|p| p.into_inner()))
    });
    let result = result.map_err(|e| run_error(py, e, interrupt))?;
    let summary = serde_json::to_string(&result.summary)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot serialise summary: {e}")))?;
    let flows = result.flow_series.as_ref().map(|s| flow_series_dict(py, s)).transpose()?;
    let links = result.link_series.as_ref().map(|s| link_series_dict(py, s)).transpose()?;
    Ok((summary, flows, links))
}

// --- replay ------------------------------------------------------------------------------------

/// A CSV field: quoted only when it must be.
fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// A float in its shortest round-trip form, empty for none.
fn csv_float(line: &mut String, v: Option<f64>) {
    use std::fmt::Write as _;
    line.push(',');
    if let Some(v) = v.filter(|v| v.is_finite()) {
        let _ = write!(line, "{v}");
    }
}

/// `replay.csv`, written as `PATH.partial` and renamed when the replay succeeded.
struct CsvOut {
    path: PathBuf,
    partial: PathBuf,
    out: Option<BufWriter<File>>,
    error: Option<std::io::Error>,
    line: String,
}

impl CsvOut {
    fn create(path: &Path, ccs: &[String]) -> std::io::Result<CsvOut> {
        let mut name = path.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        name.push(".partial");
        let partial = path.with_file_name(name);
        let mut out = BufWriter::with_capacity(1 << 16, File::create(&partial)?);
        let mut header = String::from("flow,time_ns,event,trace_bwe_bps");
        for cc in ccs {
            header.push(',');
            header.push_str(&csv_text(&format!("{cc}_bwe_bps")));
        }
        header.push_str(",delivery_bps\n");
        let written = out.write_all(header.as_bytes());
        // Built before the check, so that a failed header write removes the partial file.
        let csv = CsvOut {
            path: path.to_path_buf(),
            partial,
            out: Some(out),
            error: None,
            line: String::with_capacity(160),
        };
        written?;
        Ok(csv)
    }

    fn row(&mut self, r: &ReplayRow<'_>) {
        if self.error.is_some() {
            return;
        }
        use std::fmt::Write as _;
        let l = &mut self.line;
        l.clear();
        l.push_str(&csv_text(r.flow));
        let _ = write!(l, ",{},{}", r.time_ns, r.event.as_str());
        csv_float(l, r.trace_bwe_bps);
        for b in r.bwe_bps {
            csv_float(l, *b);
        }
        csv_float(l, r.delivery_bps);
        l.push('\n');
        if let Some(out) = self.out.as_mut() {
            if let Err(e) = out.write_all(l.as_bytes()) {
                self.error = Some(e);
            }
        }
    }

    fn commit(mut self) -> std::io::Result<()> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        let out = self.out.take().expect("not yet committed");
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&self.partial, &self.path)
    }
}

impl Drop for CsvOut {
    fn drop(&mut self) {
        if self.out.take().is_some() {
            let _ = std::fs::remove_file(&self.partial);
        }
    }
}

/// Every replayed row, as columns (floats NaN for none).
#[derive(Default)]
struct Rows {
    flow: Vec<String>,
    time_ns: Vec<u64>,
    event: Vec<&'static str>,
    trace_bwe_bps: Vec<f64>,
    bwe_bps: Vec<Vec<f64>>,
    delivery_bps: Vec<f64>,
}

impl Rows {
    fn push(&mut self, r: &ReplayRow<'_>) {
        self.flow.push(r.flow.to_string());
        self.time_ns.push(r.time_ns);
        self.event.push(r.event.as_str());
        self.trace_bwe_bps.push(r.trace_bwe_bps.unwrap_or(f64::NAN));
        self.bwe_bps.resize_with(r.bwe_bps.len(), Vec::new);
        for (column, b) in self.bwe_bps.iter_mut().zip(r.bwe_bps) {
            column.push(b.unwrap_or(f64::NAN));
        }
        self.delivery_bps.push(r.delivery_bps.unwrap_or(f64::NAN));
    }
}

/// One plotted point of a flow: time (s), trace BWE, replayed BWE per cc, delivery rate.
type PlotPoint = (f64, f64, Vec<f64>, f64);

fn bwe_column(cc: &str) -> String {
    format!("{cc}_bwe_bps")
}

type ReplayOutput<'py> = (String, Option<Bound<'py, PyDict>>, Option<Bound<'py, PyDict>>);

/// Replay the per-ACK trace at `path` through the congestion controls `ccs` (docs/replay.md),
/// with `overrides` of their `[tcp]` settings as `--set` takes them.
///
/// Returns `(report_json, rows, plot)`. `rows` (with `rows=True`): every row as columns `flow`,
/// `time_ns`, `event`, `trace_bwe_bps`, `<cc>_bwe_bps` per cc, `delivery_bps` (NaN for none).
/// `plot` (with `plot_points > 0`): `{flow: columns}` with `time_seconds` instead of `time_ns`,
/// at most about `2 * plot_points` evenly spread rows per flow. With `csv` every row is written
/// to that path (it appears only if the replay succeeds). With `progress`, a line on stderr
/// every second once the replay has taken a second. Raises `ScenarioError` for a bad cc,
/// override or option (naming it), `TraceError` for a bad trace (naming the file, line and
/// column), `OSError` for a file that cannot be read or written, `KeyboardInterrupt`.
#[pyfunction]
#[pyo3(signature = (path, ccs, overrides = Vec::new(), origin = None, delivery_window = None, csv = None, rows = false, plot_points = 0, progress = false))]
#[allow(clippy::too_many_arguments)]
fn replay<'py>(
    py: Python<'py>,
    path: PathBuf,
    ccs: Vec<String>,
    overrides: Vec<(String, String)>,
    origin: Option<String>,
    delivery_window: Option<String>,
    csv: Option<PathBuf>,
    rows: bool,
    plot_points: usize,
    progress: bool,
) -> PyResult<ReplayOutput<'py>> {
    enum Failed {
        Replay(ReplayError),
        Io(String),
        Python(PyErr),
    }
    let name = path.display().to_string();
    let outcome = py.detach(|| {
        let config = ReplayConfig {
            ccs,
            overrides,
            origin: origin.as_deref().map(replaying::parse_origin).transpose().map_err(Failed::Replay)?,
            delivery_window_ns: delivery_window
                .as_deref()
                .map(replaying::parse_delivery_window)
                .transpose()
                .map_err(Failed::Replay)?,
        };
        let names = Replayer::new(&config).map_err(Failed::Replay)?.ccs().to_vec();
        let mut csv_out = match &csv {
            Some(p) => Some(
                CsvOut::create(p, &names)
                    .map_err(|e| Failed::Io(format!("cannot write {}: {e}", p.display())))?,
            ),
            None => None,
        };
        let mut kept = rows.then(Rows::default);
        let mut plots: Vec<(String, Decimator<PlotPoint>)> = Vec::new();
        let mut plot_index: HashMap<String, usize> = HashMap::new();
        let started = Instant::now();
        let mut last_report = started;
        let mut reported = false;
        let mut interrupted: Option<PyErr> = None;
        let result = replaying::replay_file(
            &path,
            &config,
            &mut |r| {
                if let Some(c) = csv_out.as_mut() {
                    c.row(r);
                }
                if let Some(k) = kept.as_mut() {
                    k.push(r);
                }
                if plot_points > 0 {
                    let i = *plot_index.entry(r.flow.to_string()).or_insert_with(|| {
                        plots.push((r.flow.to_string(), Decimator::new(plot_points)));
                        plots.len() - 1
                    });
                    plots[i].1.push((
                        r.time_ns as f64 / 1e9,
                        r.trace_bwe_bps.unwrap_or(f64::NAN),
                        r.bwe_bps.iter().map(|b| b.unwrap_or(f64::NAN)).collect(),
                        r.delivery_bps.unwrap_or(f64::NAN),
                    ));
                }
            },
            &mut |p| {
                if let Err(e) = Python::attach(|py| py.check_signals()) {
                    interrupted = Some(e);
                    return false;
                }
                let now = Instant::now();
                if progress
                    && now.duration_since(started) >= Duration::from_secs(1)
                    && now.duration_since(last_report) >= Duration::from_secs(1)
                {
                    let share = p
                        .total_bytes
                        .filter(|&t| t > 0)
                        .map(|t| format!(" ({:.0} % of the file)", 100.0 * p.bytes_read as f64 / t as f64))
                        .unwrap_or_default();
                    eprintln!(
                        "westwood: replay: {} rows{share}, {:.0} s",
                        p.rows,
                        now.duration_since(started).as_secs_f64()
                    );
                    last_report = now;
                    reported = true;
                }
                true
            },
        );
        let report = match result {
            Ok(report) => report,
            Err(ReplayError::Interrupted) => {
                return Err(Failed::Python(
                    interrupted.unwrap_or_else(|| PyKeyboardInterrupt::new_err("replay interrupted")),
                ))
            }
            Err(e) => return Err(Failed::Replay(e)),
        };
        if reported {
            eprintln!("westwood: replay: {} rows in {:.1} s", report.rows, started.elapsed().as_secs_f64());
        }
        if let (Some(c), Some(p)) = (csv_out, &csv) {
            c.commit().map_err(|e| Failed::Io(format!("cannot write {}: {e}", p.display())))?;
        }
        let plots: Vec<(String, Vec<PlotPoint>)> =
            plots.into_iter().map(|(flow, d)| (flow, d.into_points())).collect();
        Ok((report, names, kept, plots))
    });
    let (report, names, kept, plots) = match outcome {
        Ok(v) => v,
        Err(Failed::Replay(ReplayError::Trace(e))) if e.line == 0 => {
            return Err(PyOSError::new_err(format!("cannot read the trace {name}: {}", e.message)))
        }
        Err(Failed::Replay(ReplayError::Trace(e))) => return Err(TraceError::new_err(e.to_string())),
        Err(Failed::Replay(e)) => return Err(ScenarioError::new_err(e.to_string())),
        Err(Failed::Io(m)) => return Err(PyOSError::new_err(m)),
        Err(Failed::Python(e)) => return Err(e),
    };
    let json = serde_json::to_string(&report)
        .map_err(|e| PyRuntimeError::new_err(format!("cannot serialise the replay report: {e}")))?;
    let rows = match kept {
        Some(k) => {
            let d = PyDict::new(py);
            d.set_item("flow", k.flow)?;
            d.set_item("time_ns", k.time_ns)?;
            d.set_item("event", k.event)?;
            d.set_item("trace_bwe_bps", k.trace_bwe_bps)?;
            for (cc, column) in
                names.iter().zip(k.bwe_bps.into_iter().chain(std::iter::repeat_with(Vec::new)))
            {
                d.set_item(bwe_column(cc), column)?;
            }
            d.set_item("delivery_bps", k.delivery_bps)?;
            Some(d)
        }
        None => None,
    };
    let plot = if plot_points > 0 {
        let all = PyDict::new(py);
        for (flow, points) in plots {
            let d = PyDict::new(py);
            d.set_item("time_seconds", points.iter().map(|p| p.0).collect::<Vec<_>>())?;
            d.set_item("trace_bwe_bps", points.iter().map(|p| p.1).collect::<Vec<_>>())?;
            for (k, cc) in names.iter().enumerate() {
                d.set_item(bwe_column(cc), points.iter().map(|p| p.2[k]).collect::<Vec<_>>())?;
            }
            d.set_item("delivery_bps", points.iter().map(|p| p.3).collect::<Vec<_>>())?;
            all.set_item(flow, d)?;
        }
        Some(all)
    } else {
        None
    };
    Ok((json, rows, plot))
}

/// `flows.csv` and `links.csv` of a run from its summary (JSON text, as `run` returns it): the
/// one writer of a run's tables (`westwood_simulator::results::csv`), which the emulator uses
/// too. `ValueError` if the text is not JSON.
#[pyfunction]
fn run_tables_csv(summary_json: &str) -> PyResult<(String, String)> {
    westwood_simulator::results::csv::summary_tables(summary_json)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("a run summary that is not JSON: {e}")))
}

/// The registry of congestion controls (`westwood_algorithms::registry`), one dict per control
/// in the registry's order: `name` (printed in outputs), `kernel` (the Linux congestion control
/// standing for it, or None), `ebpf` (that kernel control is this project's eBPF program, loaded
/// by `westwood linux load`), `default_recovery`, `reference_tcp` (the sender keys its
/// reference fixes: a dict of scenario values), `parameter_table` (the scenario key of its
/// parameters, or None) and `parameters` (that table's keys).
#[pyfunction]
fn congestion_controls(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    westwood_algorithms::registry::entries()
        .into_iter()
        .map(|e| {
            let d = PyDict::new(py);
            d.set_item("name", e.name)?;
            d.set_item("kernel", e.kernel)?;
            d.set_item("ebpf", e.ebpf.is_some())?;
            d.set_item("default_recovery", e.default_recovery)?;
            let reference = PyDict::new(py);
            for (key, value) in e.reference_tcp {
                reference.set_item(key, value)?;
            }
            d.set_item("reference_tcp", reference)?;
            d.set_item("parameter_table", e.parameters.map(|t| t.key))?;
            let keys: Vec<&str> =
                e.parameters.map_or_else(Vec::new, |t| t.params.iter().map(|p| p.key).collect());
            d.set_item("parameters", keys)?;
            Ok(d)
        })
        .collect()
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ScenarioError", m.py().get_type::<ScenarioError>())?;
    m.add("StrictError", m.py().get_type::<StrictError>())?;
    m.add("TraceError", m.py().get_type::<TraceError>())?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(json::json_loads, m)?)?;
    pcap::register(m)?;
    m.add_function(wrap_pyfunction!(congestion_controls, m)?)?;
    m.add_function(wrap_pyfunction!(run_tables_csv, m)?)?;
    // The result tables' column order, declared once in the simulator (`results::columns`).
    use westwood_simulator::results::columns;
    for (name, cols) in [
        ("FLOW_COLUMNS", columns::FLOW_COLUMNS),
        ("LINK_COLUMNS", columns::LINK_COLUMNS),
        ("FLOW_SERIES_COLUMNS", columns::FLOW_SERIES_COLUMNS),
        ("LINK_SERIES_COLUMNS", columns::LINK_SERIES_COLUMNS),
    ] {
        m.add(name, PyTuple::new(m.py(), cols)?)?;
    }
    // `git describe` of the source this module was compiled from (see build.rs).
    m.add("__build__", env!("WESTWOOD_BUILD"))?;
    Ok(())
}
