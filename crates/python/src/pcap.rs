//! Packet captures through `_core`: the capture request of `run(..., pcap=...)`, the files it
//! will write (`pcap_paths`), and the analysis of captures (`analyze_pcap`).

use std::path::PathBuf;

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use westwood_pcap::analyze::{DEFAULT_MAX_MEMORY, DEFAULT_MAX_PLOTTED};
use westwood_pcap::{AnalyzeOptions, Event, Format, Sink};
use westwood_simulator::model::Scenario;
use westwood_simulator::pcap::{self as capture, PcapOptions, PcapTaps};
use westwood_simulator::scenario::{self, ScenarioError as SimScenarioError};
use westwood_simulator::RunError;

use crate::ScenarioError;

create_exception!(
    westwood._core,
    CaptureError,
    PyValueError,
    "A capture file could not be read; the message names the file and the byte offset."
);

/// `(dir, points, snaplen, format)`: where `westwood run --pcap` writes, which capture points
/// (empty: the bottleneck links), bytes kept per packet, `pcapng` or `pcap`.
#[derive(FromPyObject)]
pub struct CaptureRequest(PathBuf, Vec<String>, u32, String);

impl CaptureRequest {
    fn options(&self, scenario: &Scenario) -> Result<PcapOptions, SimScenarioError> {
        let format = Format::parse(&self.3).ok_or_else(|| SimScenarioError {
            file: scenario.source.clone(),
            field: "pcap".into(),
            message: format!("format {:?}: pcapng or pcap", self.3),
        })?;
        Ok(PcapOptions { dir: self.0.clone(), points: self.1.clone(), snaplen: self.2, format })
    }

    pub fn taps(&self, scenario: &Scenario) -> Result<PcapTaps, RunError> {
        PcapTaps::create(scenario, &self.options(scenario)?)
    }
}

/// The files `run(path, overrides, pcap=request)` writes, in order (the capture points
/// resolved, the bottleneck links when none is named). Raises `ScenarioError` for a name that
/// matches no link or flow endpoint.
#[pyfunction]
#[pyo3(signature = (path, overrides, request))]
fn pcap_paths(
    path: PathBuf,
    overrides: Vec<(String, String)>,
    request: CaptureRequest,
) -> PyResult<Vec<String>> {
    let error = |e: SimScenarioError| ScenarioError::new_err(e.to_string());
    let scenario = scenario::load_file(&path, &overrides).map_err(error)?;
    let options = request.options(&scenario).map_err(error)?;
    let points = capture::resolve(&scenario, &options).map_err(error)?;
    Ok(points.into_iter().map(|p| p.path.display().to_string()).collect())
}

/// Events of the analysis, handed to Python in batches (one call per batch).
struct Batches<'f> {
    on_events: &'f Py<PyAny>,
    pending: Vec<String>,
    bytes: usize,
    /// What the callback raised: the analysis stops and Python gets it back.
    error: Option<PyErr>,
}

/// Rows handed to Python at once.
const BATCH_ROWS: usize = 512;

impl Batches<'_> {
    fn flush(&mut self) -> Result<(), String> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let text = format!("[{}]", self.pending.join(","));
        self.pending.clear();
        self.bytes = 0;
        Python::attach(|py| match self.on_events.call1(py, (text,)) {
            Ok(_) => Ok(()),
            Err(e) => {
                self.error = Some(e);
                Err("the analysis' output failed".to_string())
            }
        })
    }
}

impl Sink for Batches<'_> {
    fn event(&mut self, event: Event) -> Result<(), String> {
        let (kind, value) = match &event {
            Event::Connection(c) => ("connection", serde_json::to_string(c)),
            Event::Udp(u) => ("udp", serde_json::to_string(u)),
            Event::Capture(s) => ("capture", serde_json::to_string(s)),
            Event::Flow(f) => ("flow", serde_json::to_string(f)),
            Event::Plot(p) => ("plot", serde_json::to_string(p)),
        };
        let value = value.map_err(|e| format!("cannot serialise the analysis: {e}"))?;
        self.bytes += value.len();
        self.pending.push(format!("[\"{kind}\",{value}]"));
        if self.pending.len() >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn held(&self) -> u64 {
        self.bytes as u64
    }
}

/// Analyse the captures at `paths` (docs/measurement.md), calling `on_events(text)` with
/// batches of what the analysis hands out as it reads (`westwood_pcap::analyze::Event`): a JSON
/// array of `[kind, object]`, kind `connection`, `udp`, `capture`, `flow` or `plot`. At most
/// `max_memory` bytes held (`CaptureError` naming it beyond); Ctrl-C stops it; what
/// `on_events` raises stops it and is raised again.
#[pyfunction]
#[pyo3(signature = (paths, on_events, max_bins = 2000, max_points = 5000, max_plotted = DEFAULT_MAX_PLOTTED, max_memory = DEFAULT_MAX_MEMORY))]
fn analyze_pcap(
    py: Python<'_>,
    paths: Vec<PathBuf>,
    on_events: Py<PyAny>,
    max_bins: usize,
    max_points: usize,
    max_plotted: usize,
    max_memory: u64,
) -> PyResult<()> {
    let options = AnalyzeOptions { max_bins, max_points, max_plotted, max_memory, ..Default::default() };
    let (result, interrupt, failed) = py.detach(|| {
        let interrupt: std::sync::Mutex<Option<PyErr>> = std::sync::Mutex::new(None);
        let interrupted = || match Python::attach(|py| py.check_signals()) {
            Ok(()) => false,
            Err(e) => {
                *interrupt.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                true
            }
        };
        let mut batches = Batches { on_events: &on_events, pending: Vec::new(), bytes: 0, error: None };
        let result =
            westwood_pcap::stream_files(&paths, &options, &interrupted, &mut batches).and_then(|()| {
                batches.flush().map_err(|message| westwood_pcap::ReadError {
                    file: String::new(),
                    offset: 0,
                    message,
                })
            });
        (result, interrupt.into_inner().unwrap_or_else(|p| p.into_inner()), batches.error)
    });
    if let Some(e) = interrupt.or(failed) {
        return Err(e);
    }
    result.map_err(|e| {
        if e.message == "interrupted" {
            PyKeyboardInterrupt::new_err("analysis interrupted")
        } else {
            CaptureError::new_err(e.to_string())
        }
    })
}

/// Jain's fairness index of `values` (the simulator's `metrics::jain_index`: one definition for
/// the summary's `fairness` and `westwood measure`'s); `None` without values.
#[pyfunction]
fn jain_index(values: Vec<f64>) -> Option<f64> {
    westwood_simulator::metrics::jain_index(&values)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("CaptureError", m.py().get_type::<CaptureError>())?;
    m.add_function(wrap_pyfunction!(jain_index, m)?)?;
    // The analysis' tables, declared with its rows (`westwood_pcap::analyze`).
    m.add("CONNECTION_COLUMNS", PyTuple::new(m.py(), westwood_pcap::analyze::COLUMNS)?)?;
    m.add("UDP_COLUMNS", PyTuple::new(m.py(), westwood_pcap::analyze::UDP_COLUMNS)?)?;
    m.add_function(wrap_pyfunction!(pcap_paths, m)?)?;
    m.add_function(wrap_pyfunction!(analyze_pcap, m)?)?;
    Ok(())
}
